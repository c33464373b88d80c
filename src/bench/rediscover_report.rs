//! The time-to-rediscovery section of docs/benchmarks.md and its plot, from the rows of
//! `bench --parts rediscover` (engine `rediscover-jN`, `bug` the target; one row per seed,
//! a timeout at the budget). Rows of an earlier build keep a suffix of their own
//! (`rediscover-j2-before`), so before and after sit side by side.

use crate::bench::row::{dedup, median, Row};
use crate::findings::svg_doc::{self, el, Px};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The goal each target is held to: a median under this many seconds…
pub const GOAL_MEDIAN_S: f64 = 5.0;
/// …and found in at least this share of the trials (9 of 10).
pub const GOAL_HIT_TENTHS: usize = 9;

/// One target under one engine.
#[derive(Debug, PartialEq)]
pub struct Cell {
    pub trials: usize,
    pub hits: usize,
    /// Median seconds, a miss counted as the budget.
    pub median_s: f64,
    /// The slowest trial; `None` when one missed.
    pub worst_s: Option<f64>,
}

impl Cell {
    fn of(rows: &[&Row]) -> Cell {
        let mut t: Vec<f64> = rows.iter().map(|r| r.seconds).collect();
        t.sort_by(f64::total_cmp);
        let n = t.len();
        let median_s = median(&t);
        let hits = rows.iter().filter(|r| r.result == "detected").count();
        Cell {
            trials: n,
            hits,
            median_s,
            worst_s: (hits == n).then(|| t[n - 1]),
        }
    }

    pub fn meets_goal(&self) -> bool {
        self.median_s < GOAL_MEDIAN_S && self.hits * 10 >= GOAL_HIT_TENTHS * self.trials
    }
}

/// The engines (in CSV order) and targets (in CSV order, keyed `target invariant`).
fn axes(rows: &[Row]) -> (Vec<&str>, Vec<(&str, &str)>) {
    let engines = dedup(rows.iter().map(|r| r.engine.as_str()));
    let mut targets: Vec<(&str, &str)> = Vec::new();
    for r in rows {
        let t = (r.bug.as_str(), r.invariant.as_str());
        if !targets.contains(&t) {
            targets.push(t);
        }
    }
    (engines, targets)
}

fn cell(rows: &[Row], engine: &str, target: (&str, &str)) -> Option<Cell> {
    let mine: Vec<&Row> = rows
        .iter()
        .filter(|r| r.engine == engine && (r.bug.as_str(), r.invariant.as_str()) == target)
        .collect();
    (!mine.is_empty()).then(|| Cell::of(&mine))
}

fn secs(s: f64) -> String {
    if s < 0.01 {
        format!("{:.1} ms", s * 1000.0)
    } else {
        format!("{s:.2} s")
    }
}

fn cell_text(c: &Cell) -> String {
    let worst = c.worst_s.map_or("missed".to_string(), secs);
    let text = format!("{} / {worst} ({}/{})", secs(c.median_s), c.hits, c.trials);
    if c.meets_goal() {
        text
    } else {
        format!("**{text}**")
    }
}

/// The Markdown section: how it was measured, the plot, the table (median / worst
/// (hits/trials) per engine; bold where the goal is missed), and the misses per engine.
pub fn section(rows: &[Row], csv: &str, svg: &str) -> String {
    let (engines, targets) = axes(rows);
    let mut md = String::new();
    let _ = writeln!(md, "## Time to rediscovery\n");
    let _ = writeln!(
        md,
        "Generated from [{csv}]({csv}) with the rest of this page. How long `hunt` takes to \
         show each bug we already know is there (`isrfuzz bench --parts rediscover`, seeds \
         1..=10 per target): every mechanism of `corpus/known.json` (`expected:`/`known:`, per \
         finding and invariant) as the first time the default hunt (every preset against \
         `complete`, the findings loaded so that triage names the row) counts a violation of \
         it; every planted bug (`planted:`) on its own pair until its invariant shows as a \
         new finding. `rediscover-jN` runs N workers (`--jobs N`); a suffix names rows of an \
         earlier build (`-before`: see the notes below). A cell is the \
         median / the worst trial (hits within the budget / trials), a miss counted as the \
         budget; **bold** misses the goal (median under {GOAL_MEDIAN_S} s and at least \
         {GOAL_HIT_TENTHS} in 10 found).\n"
    );
    let _ = writeln!(md, "![time to rediscovery per target]({svg})\n");
    let _ = writeln!(md, "| target | invariant | {} |", engines.join(" | "));
    let _ = writeln!(md, "|---|---|{}", "---|".repeat(engines.len()));
    for &t in &targets {
        let cells: Vec<String> = engines
            .iter()
            .map(|e| cell(rows, e, t).map_or("–".into(), |c| cell_text(&c)))
            .collect();
        let _ = writeln!(md, "| {} | {} | {} |", t.0, t.1, cells.join(" | "));
    }
    md.push('\n');
    for e in &engines {
        let missed: Vec<String> = (targets.iter())
            .filter(|&&t| cell(rows, e, t).is_some_and(|c| !c.meets_goal()))
            .map(|t| format!("{} {}", t.0, t.1))
            .collect();
        let n = targets
            .iter()
            .filter(|&&t| cell(rows, e, t).is_some())
            .count();
        let _ = writeln!(
            md,
            "- `{e}`: {} of {n} targets meet the goal{}",
            n - missed.len(),
            if missed.is_empty() {
                String::new()
            } else {
                format!("; not: {}", missed.join(", "))
            }
        );
    }
    md.push('\n');
    md
}

/// The section for `rows`, read from `csv`: the plot `NAME.svg` beside it (added to `out`,
/// the files to write) and the hand-written notes `NAME-notes.md` under the table when
/// that file exists.
pub fn markdown(rows: &[Row], csv: &Path, out: &mut Vec<(PathBuf, String)>) -> String {
    let stem = csv
        .file_stem()
        .map_or(String::new(), |n| n.to_string_lossy().into());
    let plot = csv.with_file_name(format!("{stem}.svg"));
    let csv_name = csv
        .file_name()
        .map_or(String::new(), |n| n.to_string_lossy().into());
    let mut md = section(rows, &csv_name, &format!("{stem}.svg"));
    if let Ok(notes) = std::fs::read_to_string(csv.with_file_name(format!("{stem}-notes.md"))) {
        md += &notes;
        md.push('\n');
    }
    out.push((plot, svg(rows)));
    md
}

const TITLE: &str = "Time to rediscovery: dot = median, line = fastest to slowest (to the edge \
                     if a trial missed), hollow = goal missed";

// The plot's geometry, in pixels; seconds log-scaled from 1 ms to 100 s.
const LEFT: f64 = 230.0;
const WIDTH: f64 = 480.0;
const ROW: f64 = 16.0;
const TOP: f64 = 40.0;
const LOG_LO: f64 = -3.0;
const LOG_HI: f64 = 2.0;
const COLORS: [&str; 4] = ["#999999", "#d95f02", "#1b9e77", "#7570b3"];

fn x(s: f64) -> f64 {
    LEFT + (s.max(1e-3).log10().clamp(LOG_LO, LOG_HI) - LOG_LO) / (LOG_HI - LOG_LO) * WIDTH
}

/// Per target and engine: a line from the fastest to the slowest trial (to the edge when
/// one missed) and a dot at the median, hollow when the goal is missed.
pub fn svg(rows: &[Row]) -> String {
    let (engines, targets) = axes(rows);
    let bottom = TOP + ROW * targets.len() as f64;
    let mut s =
        svg_doc::open(LEFT + WIDTH + 30.0, bottom + 50.0, "sans-serif") + svg_doc::BACKGROUND;
    let title = el("text").attr("x", 10).attr("y", 16).attr("font-size", 12);
    let _ = writeln!(s, "{}", title.wrap(TITLE));
    for p in (LOG_LO as i32)..=(LOG_HI as i32) {
        let px = Px(x(10f64.powi(p)));
        let label = if p < 0 {
            format!("{}ms", 10f64.powi(p + 3))
        } else {
            format!("{}s", 10f64.powi(p))
        };
        let _ = writeln!(s, "{}", svg_doc::gridline(px, TOP, bottom, &label));
    }
    for (i, &t) in targets.iter().enumerate() {
        let y = TOP + ROW * (i as f64 + 0.5);
        let name = el("text")
            .attr("x", Px(LEFT - 6.0))
            .attr("y", Px(y + 4.0))
            .attr("text-anchor", "end")
            .wrap(format_args!("{} {}", t.0, t.1));
        let _ = writeln!(s, "{name}");
        for (e, engine) in engines.iter().enumerate() {
            if let Some(c) = cell(rows, engine, t) {
                svg_cell(
                    &mut s,
                    &c,
                    rows,
                    engine,
                    t,
                    y - 4.0 + 3.0 * e as f64,
                    COLORS[e % COLORS.len()],
                );
            }
        }
    }
    for (e, engine) in engines.iter().enumerate() {
        let lx = LEFT + e as f64 * 130.0;
        let ly = bottom + 34.0;
        let dot = el("circle")
            .attr("cx", Px(lx))
            .attr("cy", Px(ly))
            .attr("r", 4)
            .attr("fill", COLORS[e % COLORS.len()])
            .empty();
        let name = el("text")
            .attr("x", Px(lx + 8.0))
            .attr("y", Px(ly + 4.0))
            .wrap(engine);
        let _ = writeln!(s, "{dot}{name}");
    }
    s.push_str(svg_doc::CLOSE);
    s
}

fn svg_cell(
    s: &mut String,
    c: &Cell,
    rows: &[Row],
    engine: &str,
    t: (&str, &str),
    y: f64,
    color: &str,
) {
    let fastest = (rows.iter())
        .filter(|r| r.engine == engine && (r.bug.as_str(), r.invariant.as_str()) == t)
        .filter(|r| r.result == "detected")
        .map(|r| r.seconds)
        .min_by(f64::total_cmp);
    if let Some(lo) = fastest {
        let hi = c.worst_s.map_or(LEFT + WIDTH, x);
        let line = el("line")
            .attr("x1", Px(x(lo)))
            .attr("y1", Px(y))
            .attr("x2", Px(hi))
            .attr("y2", Px(y))
            .attr("stroke", color);
        let _ = writeln!(s, "{}", line.empty());
    }
    let fill = if c.meets_goal() { color } else { "white" };
    let dot = el("circle")
        .attr("cx", Px(x(c.median_s)))
        .attr("cy", Px(y))
        .attr("r", 2.5)
        .attr("fill", fill)
        .attr("stroke", color);
    let _ = writeln!(s, "{}", dot.empty());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(engine: &str, result: &str, seconds: f64) -> Row {
        Row {
            date: "d".into(),
            machine: "m".into(),
            engine: engine.into(),
            bug: "known:F18".into(),
            invariant: "D1".into(),
            trial: 1,
            result: result.into(),
            seconds,
            execs: 1,
            triggered_s: None,
        }
    }

    #[test]
    fn a_cell_counts_a_miss_as_the_budget_and_holds_it_to_the_goal() {
        let mut rows: Vec<Row> = (0..9)
            .map(|k| row("rediscover-j2", "detected", 0.5 + k as f64))
            .collect();
        rows.push(row("rediscover-j2", "timeout", 60.0));
        let c = cell(&rows, "rediscover-j2", ("known:F18", "D1")).unwrap();
        assert_eq!((c.trials, c.hits, c.worst_s), (10, 9, None));
        assert_eq!(c.median_s, 5.0);
        assert!(!c.meets_goal(), "a median of 5 s is not under 5 s");
        rows[8].seconds = 3.0;
        rows.sort_by(|a, b| a.seconds.total_cmp(&b.seconds));
        let c = cell(&rows, "rediscover-j2", ("known:F18", "D1")).unwrap();
        assert!(c.meets_goal(), "{c:?}");
        let md = section(&rows, "r.csv", "r.svg");
        assert!(
            md.contains("| known:F18 | D1 | 4.00 s / missed (9/10) |"),
            "{md}"
        );
        assert!(
            md.contains("- `rediscover-j2`: 1 of 1 targets meet the goal"),
            "{md}"
        );
        assert!(svg(&rows).starts_with("<svg"));
    }
}
