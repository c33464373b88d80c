//! What happens to a violation: minimizing it, triage against the known findings, writing
//! it as a regression history, and rendering step tables and verdicts. Every engine
//! (hunt, exhaust, promote, the fuzz targets) goes through here; uses `check` and below.

pub mod minimize;
pub mod report;
