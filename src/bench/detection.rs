//! Time to detection per (engine, planted bug), from the benchmark's rows: what the
//! report's table and its plot both show, computed once here for both.

use crate::bench::planted::BUGS;
use crate::bench::row::{median, Row};

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

/// The engines, in the table's and the plot's order.
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
