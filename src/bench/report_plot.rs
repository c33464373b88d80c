//! The benchmark's plot (docs/benchmarks.svg): time to detection per planted bug and
//! engine, from the report's summaries.

use crate::bench::detection::{summarize, Summary, ENGINES};
use crate::bench::planted::{Bug, BUGS};
use crate::bench::row::Row;
use crate::findings::svg_doc::{self, el, Px};
use std::fmt::Write as _;

/// A dot plot: one row per bug, log-scaled seconds across, one marker per engine at the
/// median with a line from the fastest to the slowest detection; an engine that missed
/// most trials is drawn as a hollow marker at the right edge.
const TITLE: &str = "Time to detection: dot = median, line = fastest to slowest (to the edge \
                     if any trial missed), hollow = most trials missed";

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

/// The plot of `rows` (see the constants above for its geometry).
pub fn svg(rows: &[Row]) -> String {
    let summaries = summarize(rows);
    let height = TOP + ROW * BUGS.len() as f64 + 60.0;
    let mut s = svg_doc::open(LEFT + WIDTH + 30.0, height, "sans-serif") + svg_doc::BACKGROUND;
    let title = el("text").attr("x", 10).attr("y", 16).attr("font-size", 12);
    let _ = writeln!(s, "{}", title.wrap(TITLE));
    svg_axis(&mut s);
    for (i, b) in BUGS.iter().enumerate() {
        svg_bug_row(&mut s, i, b, &summaries);
    }
    svg_legend(&mut s);
    s.push_str(svg_doc::CLOSE);
    s
}

fn svg_axis(s: &mut String) {
    let (lo, hi) = (LOG_LO, LOG_HI);
    for p in (lo as i32)..=(hi as i32) {
        let px = Px(x(10f64.powi(p)));
        let label = match p {
            -4 => "0.1ms".to_string(),
            -3 => "1ms".to_string(),
            -2 => "10ms".to_string(),
            -1 => "0.1s".to_string(),
            _ => format!("{}s", 10f64.powi(p)),
        };
        let bottom = TOP + ROW * BUGS.len() as f64;
        let _ = writeln!(s, "{}", svg_doc::gridline(px, TOP, bottom, &label));
    }
}

/// One bug: per engine, a line from the fastest to the slowest trial and a dot at the median.
fn svg_bug_row(s: &mut String, i: usize, b: &Bug, summaries: &[Summary]) {
    let hi = LOG_HI;
    let y = TOP + ROW * (i as f64 + 0.5);
    let name = el("text")
        .attr("x", Px(LEFT - 6.0))
        .attr("y", Px(y + 4.0))
        .attr("text-anchor", "end")
        .wrap(format_args!("{} ({})", b.name, b.invariant));
    let _ = writeln!(s, "{name}");
    for (e, &engine) in ENGINES.iter().enumerate() {
        let Some(sm) = summaries
            .iter()
            .find(|m| m.engine == engine && m.bug == b.name)
        else {
            continue;
        };
        let dy = Px(y - 6.0 + 3.0 * e as f64);
        let c = COLORS[e];
        if let (Some(min), true) = (sm.min_s, sm.detected > 0) {
            let max = sm.max_s.unwrap_or(10f64.powf(hi));
            let line = el("line")
                .attr("x1", Px(x(min)))
                .attr("y1", dy)
                .attr("x2", Px(x(max)))
                .attr("y2", dy)
                .attr("stroke", c);
            let _ = writeln!(s, "{}", line.empty());
        }
        let dot = match sm.median_s {
            Some(m) => el("circle")
                .attr("cx", Px(x(m)))
                .attr("cy", dy)
                .attr("r", 3)
                .attr("fill", c),
            None => el("circle")
                .attr("cx", Px(LEFT + WIDTH))
                .attr("cy", dy)
                .attr("r", 3)
                .attr("fill", "white")
                .attr("stroke", c),
        };
        let _ = writeln!(s, "{}", dot.empty());
    }
}

fn svg_legend(s: &mut String) {
    let ly = TOP + ROW * BUGS.len() as f64 + 34.0;
    for (e, engine) in ENGINES.iter().enumerate() {
        let lx = LEFT + e as f64 * 110.0;
        let dot = el("circle")
            .attr("cx", Px(lx))
            .attr("cy", Px(ly))
            .attr("r", 4)
            .attr("fill", COLORS[e])
            .empty();
        let name = el("text")
            .attr("x", Px(lx + 8.0))
            .attr("y", Px(ly + 4.0))
            .wrap(engine);
        let _ = writeln!(s, "{dot}{name}");
    }
}
