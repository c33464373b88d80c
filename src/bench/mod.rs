//! The benchmarks: what `bench`, `bench-report` and `speed-report` measure and render. A
//! layer of its own, the top one: it times the searches and replays below it, and nothing
//! below depends on it, so the command line keeps only argument structs and the fuzz
//! targets, which link the library, call none of it.
//!
//! Measuring: `planted.rs` (the planted bugs, throughput, time to detection, the
//! micro-benchmarks), `rediscover.rs` (time to rediscovery), `run.rs` (the parts in
//! order, rows appended as they come). The rows: `row.rs`. Rendering docs/benchmarks.md:
//! `report.rs` with `detection.rs` (what its table and plot show), `report_plot.rs` and
//! `rediscover_report.rs`; its "Model speed" part: `speed_report.rs` with `speed_data.rs`
//! and `speed_plot.rs`. Every plot draws through `findings::svg_doc`.

pub mod detection;
pub mod planted;
pub mod rediscover;
pub mod rediscover_report;
pub mod report;
pub mod report_plot;
pub mod row;
pub mod run;
pub mod speed_data;
pub mod speed_plot;
pub mod speed_report;
