//! The benchmark's CSV rows and their rendering: docs/benchmarks.md (a Markdown table) and
//! docs/benchmarks.svg (a plot). In the binary, not the library: no fuzz target links it.
//!
//! CSV columns (one row per trial or throughput run):
//! `date,machine,engine,bug,invariant,trial,result,seconds,execs,triggered_s`
//! - `result`: `detected`, `timeout` (budget spent), `unreachable` (exhaust: not within
//!   its depth), or `throughput` (then `execs` per `seconds`, `bug` names the family or
//!   the fuzz target);
//! - `execs`: executions (histories) until detection or the budget; for `exhaust`, the
//!   shortest counterexample's operations after the start;
//! - `triggered_s`: when the two sides' states first differed (hunt only; empty when
//!   the engine cannot tell).

use crate::cli::rediscover_report;
use clap::Args;
use isrfuzz::error::Error;
use isrfuzz::search::bench::{Bug, BUGS};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Args)]
pub struct BenchReportArgs {
    #[arg(long, default_value = "docs/benchmarks.csv")]
    csv: PathBuf,
    #[arg(long, default_value = "docs/benchmarks.md")]
    md: PathBuf,
    #[arg(long, default_value = "docs/benchmarks.svg")]
    svg: PathBuf,
    /// Rows of `bench --parts rediscover`, rendered (with the plot beside it and the notes
    /// `NAME-notes.md`, if any) when the file exists.
    #[arg(long, default_value = "docs/rediscovery.csv")]
    rediscovery: PathBuf,
}

pub fn run(args: BenchReportArgs) -> Result<ExitCode, Error> {
    let rows = read_rows(&args.csv)?;
    let command = format!(
        "isrfuzz bench-report --csv {} --md {} --svg {}",
        args.csv.display(),
        args.md.display(),
        args.svg.display()
    );
    let name = |p: &Path| {
        p.file_name()
            .map_or(String::new(), |n| n.to_string_lossy().into())
    };
    let files = (name(&args.csv), name(&args.svg));
    let mut md = markdown(&rows, &command, (&files.0, &files.1));
    let mut out = vec![(args.svg.clone(), svg(&rows))];
    if args.rediscovery.exists() {
        let again = read_rows(&args.rediscovery)?;
        md += &rediscover_report::markdown(&again, &args.rediscovery, &mut out);
    }
    md += &kept_section(&args.md);
    out.insert(0, (args.md.clone(), md));
    for (path, body) in &out {
        std::fs::write(path, body).map_err(Error::io(path))?;
        println!("wrote {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// The Markdown's hand-kept section (measured by `isrfuzz bench --parts micro` and `hunt`,
/// not from the CSV): from this heading on, carried over when the tables are regenerated.
const KEPT_HEADING: &str = "\n## Model speed";

fn kept_section(md: &Path) -> String {
    let old = std::fs::read_to_string(md).unwrap_or_default();
    old.find(KEPT_HEADING)
        .map_or(String::new(), |at| old[at..].to_string())
}

pub fn read_rows(csv: &Path) -> Result<Vec<Row>, Error> {
    let text = std::fs::read_to_string(csv).map_err(Error::io(csv))?;
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if i == 0 && line == CSV_HEADER || line.trim().is_empty() {
            continue;
        }
        let row = Row::parse(line).map_err(|message| Error::Input {
            path: csv.to_path_buf(),
            message: format!("line {}: {message}", i + 1),
        })?;
        rows.push(row);
    }
    if rows.is_empty() {
        return Err(Error::Input {
            path: csv.to_path_buf(),
            message: "no rows".into(),
        });
    }
    Ok(rows)
}

pub const CSV_HEADER: &str =
    "date,machine,engine,bug,invariant,trial,result,seconds,execs,triggered_s";

/// One CSV row.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub date: String,
    pub machine: String,
    pub engine: String,
    pub bug: String,
    pub invariant: String,
    pub trial: u32,
    pub result: String,
    pub seconds: f64,
    pub execs: u64,
    pub triggered_s: Option<f64>,
}

impl Row {
    pub fn csv(&self) -> String {
        format!(
            "{},{},{},{},{},{},{},{:.4},{},{}",
            self.date,
            self.machine,
            self.engine,
            self.bug,
            self.invariant,
            self.trial,
            self.result,
            self.seconds,
            self.execs,
            self.triggered_s
                .map_or(String::new(), |t| format!("{t:.4}"))
        )
    }

    pub fn parse(line: &str) -> Result<Row, String> {
        let f: Vec<&str> = line.split(',').collect();
        if f.len() != 10 {
            return Err(format!("expected 10 fields, got {}: `{line}`", f.len()));
        }
        let num = |i: usize| -> Result<f64, String> {
            f[i].parse()
                .map_err(|_| format!("field {} is not a number: `{line}`", i + 1))
        };
        Ok(Row {
            date: f[0].into(),
            machine: f[1].into(),
            engine: f[2].into(),
            bug: f[3].into(),
            invariant: f[4].into(),
            trial: num(5)? as u32,
            result: f[6].into(),
            seconds: num(7)?,
            execs: num(8)? as u64,
            triggered_s: if f[9].is_empty() { None } else { Some(num(9)?) },
        })
    }
}

/// `YYYY-MM-DD` (UTC) of now, without a date library (days-to-civil, H. Hinnant).
pub fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let z = secs.div_euclid(86_400) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// A short machine description: CPU model and core count (no commas: it is a CSV field).
pub fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_string())
        })
        .unwrap_or_else(|| "unknown cpu".into());
    // The machine's cores, not this process's affinity (the benchmark pins to one).
    let cores = std::fs::read_to_string("/proc/cpuinfo").map_or(1, |t| {
        t.lines()
            .filter(|l| l.starts_with("processor"))
            .count()
            .max(1)
    });
    format!("{cpu} x{cores}").replace(',', " ")
}

pub fn median(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}

/// Per (engine, bug): trials, detections, median and max seconds. A timeout counts as
/// the budget, so the median is "over budget" when fewer than half the trials detect.
pub struct Summary {
    pub engine: String,
    pub bug: String,
    pub trials: usize,
    pub detected: usize,
    pub median_s: Option<f64>,
    pub max_s: Option<f64>,
    pub min_s: Option<f64>,
    pub triggered_median_s: Option<f64>,
}

pub const ENGINES: &[&str] = &["hunt", "libfuzzer", "afl", "afl-state", "exhaust"];

pub fn summarize(rows: &[Row]) -> Vec<Summary> {
    let mut out = Vec::new();
    for b in BUGS {
        for &engine in ENGINES {
            let trials: Vec<&Row> = rows
                .iter()
                .filter(|r| r.engine == engine && r.bug == b.name && r.result != "throughput")
                .collect();
            if trials.is_empty() {
                continue;
            }
            let mut times: Vec<f64> = trials.iter().map(|r| r.seconds).collect();
            times.sort_by(f64::total_cmp);
            let detected = trials.iter().filter(|r| r.result == "detected").count();
            let mut hits: Vec<f64> = trials
                .iter()
                .filter(|r| r.result == "detected")
                .map(|r| r.seconds)
                .collect();
            hits.sort_by(f64::total_cmp);
            let mut trig: Vec<f64> = trials.iter().filter_map(|r| r.triggered_s).collect();
            trig.sort_by(f64::total_cmp);
            out.push(Summary {
                engine: engine.into(),
                bug: b.name.into(),
                trials: trials.len(),
                detected,
                median_s: (2 * detected > trials.len()).then(|| median(&times)),
                max_s: (detected == trials.len()).then(|| times[times.len() - 1]),
                min_s: hits.first().copied(),
                triggered_median_s: (!trig.is_empty()).then(|| median(&trig)),
            });
        }
    }
    out
}

fn secs(x: Option<f64>, over: &str) -> String {
    match x {
        Some(s) if s < 0.01 => format!("{:.1} ms", s * 1000.0),
        Some(s) if s < 10.0 => format!("{s:.2} s"),
        Some(s) => format!("{s:.0} s"),
        None => over.to_string(),
    }
}

/// The Markdown report: provenance, throughput, time to detection, exhaust depths.
/// `files`: the CSV's and the plot's names, linked from the report (same folder).
pub fn markdown(rows: &[Row], command: &str, files: (&str, &str)) -> String {
    let mut md = String::new();
    provenance(&mut md, rows, command, files.0);
    throughput_table(&mut md, rows);
    detection_table(&mut md, rows, files.1);
    md
}

fn provenance(md: &mut String, rows: &[Row], command: &str, csv: &str) {
    let dates: Vec<&str> = dedup(rows.iter().map(|r| r.date.as_str()));
    let machines: Vec<&str> = dedup(rows.iter().map(|r| r.machine.as_str()));
    let _ = writeln!(md, "# Benchmarks\n");
    let _ = writeln!(
        md,
        "Generated by `{command}` from [{csv}]({csv}) (raw rows, one per \
         trial). Machine: {}. Date: {}. Every figure below comes from that CSV; rerun the \
         command to refresh both.\n",
        machines.join("; "),
        dates.join(", ")
    );
    let _ = writeln!(
        md,
        "How it runs (`ci/bench.sh TRIALS BUDGET`, defaults 10 and 10 s): everything pinned \
         to one core with `taskset`, one measurement at a time. `hunt`: seeds 1..=TRIALS, \
         20 s budget, `--until` the bug's invariant. libFuzzer: the `kraft_diff` binary with \
         `ISRFUZZ_RULES=<bug>:complete ISRFUZZ_UNTIL=<invariant>`, empty corpus, \
         `--sanitizer none`, `-use_value_profile=1 -len_control=0 -max_len=512 -seed=<trial>`. \
         AFL++: `cargo afl fuzz` (CmpLog on) on `afl_kraft_diff`, one 4-byte seed, \
         `AFL_BENCH_UNTIL_CRASH=1 -s <trial> -V <budget>`; `afl-state` adds \
         `ISRFUZZ_STATE_FEEDBACK=1`. Engine times include start-up. Throughput runs the \
         diff targets on `complete:complete` so that they never stop.\n"
    );
}

fn throughput_table(md: &mut String, rows: &[Row]) {
    let _ = writeln!(md, "## Throughput\n");
    let _ = writeln!(md, "| engine | what | execs/s | relative |");
    let _ = writeln!(md, "|---|---|---:|---:|");
    for engine in dedup(
        rows.iter()
            .filter(|r| r.result == "throughput")
            .map(|r| r.engine.as_str()),
    ) {
        let runs: Vec<&Row> = rows
            .iter()
            .filter(|r| r.result == "throughput" && r.engine == engine)
            .collect();
        let rate = |what: &str| -> Option<f64> {
            let mut v: Vec<f64> = runs
                .iter()
                .filter(|r| r.bug == what && r.seconds > 0.0)
                .map(|r| r.execs as f64 / r.seconds)
                .collect();
            v.sort_by(f64::total_cmp);
            (!v.is_empty()).then(|| median(&v))
        };
        let baseline = rate("trivial");
        for what in dedup(runs.iter().map(|r| r.bug.as_str())) {
            let Some(r) = rate(what) else { continue };
            let rel = baseline.map_or("".into(), |b| format!("{:.3} of trivial", r / b));
            let _ = writeln!(md, "| {engine} | {what} | {r:.0} | {rel} |");
        }
    }
}

fn detection_table(md: &mut String, rows: &[Row], svg: &str) {
    let _ = writeln!(
        md,
        "\n## Time to detection\n\nMedian and max seconds from an empty corpus to the first \
         input that violates the bug's invariant on the buggy side and not on `complete`; \
         `found` is the success rate within the budget (a timeout counts as the budget, so \
         a median shows only when most trials detect). `triggered` (hunt only) is the median \
         time to the first history where the two sides' states differ. `exhaust` is \
         deterministic: one run, its time to reach the shortest counterexample, whose length \
         (operations after the start) is in brackets.\n"
    );
    let _ = writeln!(md, "![time to detection per bug and engine]({svg})\n");
    let _ = write!(md, "| bug | rules | invariant |");
    for e in ENGINES {
        let _ = write!(md, " {e} |");
    }
    let _ = writeln!(md);
    let _ = writeln!(md, "|---|---|---|{}", "---|".repeat(ENGINES.len()));
    let summaries = summarize(rows);
    for b in BUGS {
        let _ = write!(md, "| {} | `{}` | {} |", b.name, b.rules, b.invariant);
        for &e in ENGINES {
            let s = summaries.iter().find(|s| s.engine == e && s.bug == b.name);
            let _ = write!(md, " {} |", detection_cell(rows, s, e, b.name));
        }
        let _ = writeln!(md);
    }
}

/// One engine's figure for one bug.
fn detection_cell(rows: &[Row], s: Option<&Summary>, e: &str, bug: &str) -> String {
    match s {
        None => "–".to_string(),
        Some(s) if e == "exhaust" => {
            let ops = rows
                .iter()
                .find(|r| r.engine == e && r.bug == bug)
                .map(|r| r.execs);
            if s.detected > 0 {
                format!("{} [{}]", secs(s.median_s, "?"), ops.unwrap_or(0))
            } else {
                "not within depth".into()
            }
        }
        Some(s) => {
            let mut c = format!(
                "{} / max {} ({}/{})",
                secs(s.median_s, "> budget"),
                secs(s.max_s, "> budget"),
                s.detected,
                s.trials
            );
            if let Some(t) = s.triggered_median_s {
                let _ = write!(c, "; triggered {}", secs(Some(t), ""));
            }
            c
        }
    }
}

pub fn dedup<'a>(it: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for x in it {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    out
}

/// A dot plot: one row per bug, log-scaled seconds across, one marker per engine at the
/// median with a line from the fastest to the slowest detection; an engine that missed
/// most trials is drawn as a hollow marker at the right edge.
// The plot's geometry, in pixels; seconds are log-scaled between 10^LOG_LO and 10^LOG_HI.
const LEFT: f64 = 150.0;
const WIDTH: f64 = 560.0;
const ROW: f64 = 22.0;
const TOP: f64 = 40.0;
const LOG_LO: f64 = -4.0; // 0.1 ms
const LOG_HI: f64 = 2.0; // 100 s
const COLORS: [&str; 5] = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e"];

/// Horizontal position of `s` seconds.
fn x(s: f64) -> f64 {
    LEFT + (s.max(1e-4).log10().clamp(LOG_LO, LOG_HI) - LOG_LO) / (LOG_HI - LOG_LO) * WIDTH
}

/// An SVG document's opening tag and white background, as both plots start.
pub fn svg_start(width: f64, height: f64) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         font-family=\"sans-serif\" font-size=\"11\">"
    );
    let _ = writeln!(s, "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>");
    s
}

pub fn svg(rows: &[Row]) -> String {
    let summaries = summarize(rows);
    let height = TOP + ROW * BUGS.len() as f64 + 60.0;
    let mut s = svg_start(LEFT + WIDTH + 30.0, height);
    let _ = writeln!(
        s,
        "<text x=\"10\" y=\"16\" font-size=\"12\">Time to detection: dot = median, line = fastest to slowest (to the edge if any trial missed), hollow = most trials missed</text>"
    );
    svg_axis(&mut s);
    for (i, b) in BUGS.iter().enumerate() {
        svg_bug_row(&mut s, i, b, &summaries);
    }
    svg_legend(&mut s);
    s.push_str("</svg>\n");
    s
}

fn svg_axis(s: &mut String) {
    let (lo, hi) = (LOG_LO, LOG_HI);
    for p in (lo as i32)..=(hi as i32) {
        let px = x(10f64.powi(p));
        let label = match p {
            -4 => "0.1ms".to_string(),
            -3 => "1ms".to_string(),
            -2 => "10ms".to_string(),
            -1 => "0.1s".to_string(),
            _ => format!("{}s", 10f64.powi(p)),
        };
        let bottom = TOP + ROW * BUGS.len() as f64;
        let _ = writeln!(
            s,
            "<line x1=\"{px:.1}\" y1=\"{TOP}\" x2=\"{px:.1}\" y2=\"{bottom}\" stroke=\"#ddd\"/>\
             <text x=\"{px:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{label}</text>",
            bottom + 14.0
        );
    }
}

/// One bug: per engine, a line from the fastest to the slowest trial and a dot at the median.
fn svg_bug_row(s: &mut String, i: usize, b: &Bug, summaries: &[Summary]) {
    let hi = LOG_HI;
    let y = TOP + ROW * (i as f64 + 0.5);
    let _ = writeln!(
        s,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{} ({})</text>",
        LEFT - 6.0,
        y + 4.0,
        b.name,
        b.invariant
    );
    for (e, &engine) in ENGINES.iter().enumerate() {
        let Some(sm) = summaries
            .iter()
            .find(|m| m.engine == engine && m.bug == b.name)
        else {
            continue;
        };
        let dy = y - 6.0 + 3.0 * e as f64;
        let c = COLORS[e];
        if let (Some(min), true) = (sm.min_s, sm.detected > 0) {
            let max = sm.max_s.unwrap_or(10f64.powf(hi));
            let _ = writeln!(
                s,
                "<line x1=\"{:.1}\" y1=\"{dy:.1}\" x2=\"{:.1}\" y2=\"{dy:.1}\" stroke=\"{c}\"/>",
                x(min),
                x(max)
            );
        }
        match sm.median_s {
            Some(m) => {
                let _ = writeln!(
                    s,
                    "<circle cx=\"{:.1}\" cy=\"{dy:.1}\" r=\"3\" fill=\"{c}\"/>",
                    x(m)
                );
            }
            None => {
                let _ = writeln!(
                    s,
                    "<circle cx=\"{:.1}\" cy=\"{dy:.1}\" r=\"3\" fill=\"white\" stroke=\"{c}\"/>",
                    LEFT + WIDTH
                );
            }
        }
    }
}

fn svg_legend(s: &mut String) {
    let ly = TOP + ROW * BUGS.len() as f64 + 34.0;
    for (e, engine) in ENGINES.iter().enumerate() {
        let lx = LEFT + e as f64 * 110.0;
        let _ = writeln!(
            s,
            "<circle cx=\"{lx:.1}\" cy=\"{ly:.1}\" r=\"4\" fill=\"{}\"/>\
             <text x=\"{:.1}\" y=\"{:.1}\">{engine}</text>",
            COLORS[e],
            lx + 8.0,
            ly + 4.0
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_round_trip_and_bad_rows_are_errors() {
        let r = Row {
            date: "2026-11-30".into(),
            machine: "cpu x2".into(),
            engine: "hunt".into(),
            bug: "CE-a".into(),
            invariant: "INV-1".into(),
            trial: 3,
            result: "detected".into(),
            seconds: 0.25,
            execs: 812,
            triggered_s: Some(0.01),
        };
        assert_eq!(Row::parse(&r.csv()).unwrap(), r);
        assert!(Row::parse("a,b,c").is_err());
        assert!(Row::parse("d,m,hunt,CE-a,INV-1,x,detected,1,1,").is_err());
    }

    #[test]
    fn summary_counts_timeouts_as_the_budget() {
        let row = |result: &str, seconds: f64| Row {
            date: "d".into(),
            machine: "m".into(),
            engine: "hunt".into(),
            bug: "CE-a".into(),
            invariant: "INV-1".into(),
            trial: 0,
            result: result.into(),
            seconds,
            execs: 1,
            triggered_s: None,
        };
        let rows = vec![
            row("detected", 1.0),
            row("detected", 3.0),
            row("timeout", 20.0),
        ];
        let s = &summarize(&rows)[0];
        assert_eq!((s.trials, s.detected), (3, 2));
        assert_eq!(s.median_s, Some(3.0));
        assert_eq!(s.max_s, None, "a miss means the max is over budget");
        assert_eq!(s.min_s, Some(1.0));
        let missed = summarize(&[
            row("detected", 1.0),
            row("timeout", 20.0),
            row("timeout", 20.0),
        ]);
        assert_eq!(missed[0].median_s, None);
        assert!(markdown(&rows, "cmd", ("b.csv", "b.svg"))
            .contains("| CE-a | `inkless-main` | INV-1 | 3.00 s / max > budget (2/3) |"));
        assert!(svg(&rows).starts_with("<svg"));
    }

    #[test]
    fn today_is_a_plausible_date() {
        let d = today();
        assert_eq!(d.len(), 10);
        assert!(d.as_str() > "2024-01-01", "{d}");
    }
}
