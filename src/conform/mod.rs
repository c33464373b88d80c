//! Conformance: the model judged by Apache Kafka's own controller. Every controller request
//! the model makes while it runs a history (`model::request`) is replayed against the real
//! `ReplicationControlManager` of one release, driven in a JVM by the Java driver in
//! `conformance/` (its protocol: conformance/PROTOCOL.md), and the two answers are compared
//! field by field after every request.
//!
//! Architecture invariant: the real controller is a second judge behind one narrow
//! protocol. Nothing below this layer knows it exists; the model only lets a tap observe
//! the requests it makes.

pub mod brokers;
pub mod campaign;
pub mod cluster;
pub mod cluster_report;
pub mod cluster_run;
pub mod driver;
pub mod epoch_cache;
pub mod junit;
pub mod junit_brokers;
pub mod junit_dialect;
pub mod junit_files;
pub mod junit_upstream;
pub mod jvm;
pub mod patch;
pub mod pipes;
pub mod protocol;
pub mod release;
pub mod render;
pub mod replay;
pub mod replicas;
pub mod sut;

pub use driver::Driver;
pub use release::{Release, RELEASES};
pub use replay::{conform_history, Conformance, Disagreement, Skip};
