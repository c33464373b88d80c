//! What happens to a violation: triage against the known findings, minimizing it,
//! annotating and writing it as a regression history, and rendering step tables and
//! verdicts. Every engine (hunt, exhaust, promote, the fuzz targets) goes through here;
//! uses `check` and below, never `search`.

pub mod affected;
pub mod attribution;
pub mod commands;
pub mod finding;
pub mod markup;
pub mod minimize;
pub mod operator;
pub mod partition;
pub mod plain;
pub mod plan;
pub mod report;
pub mod skipped;
pub mod summary;
pub mod svg;
pub mod svg_doc;
pub mod throttle;
pub mod ticket;
pub mod triage;

pub use finding::{Finding, Sink};
pub use triage::Known;
