//! The integration tests, one binary: each module was once its own test file, so a test is
//! named `module::test` (`hunt::finds_kafka_21419_and_minimizes_it`; `cargo test --test it
//! hunt::` runs a module). One binary links the library once instead of once per file. The
//! corpus replay is tests/regressions.rs, its own binary (a custom harness: one test per
//! file of corpus/regressions/).
//!
//! The modules share one process: a test that needs process-wide state (the environment,
//! the working directory, signal handlers) gets it in a child process, as the command-line
//! tests do (they run the built `isrfuzz`).

mod common;

mod adding_a_variant;
mod attribution;
mod broker_guards;
mod cli;
mod cluster_cli;
mod cluster_plan;
mod conform_brokers_junit;
mod conform_cli;
mod conform_junit;
mod conform_mutants;
mod conform_requests;
mod conform_upstream;
mod controller_requests;
mod data_plane;
mod default_hunt;
mod dirs;
mod elr;
mod elr_controller;
mod elr_data;
mod exhaust;
#[cfg(unix)]
mod faults;
mod fetcher;
mod fuzz_seeds;
mod golden_traces;
mod history_format;
mod hostile;
mod hunt;
mod inert_output;
mod inkless;
mod inkless_data;
#[cfg(unix)]
mod interrupt;
mod invariant_checks;
mod layout;
mod lockstep;
mod outputs;
mod readme_commands;
mod releases;
mod scenarios;
mod summary;
mod symmetry;
mod tickets;
mod triage;
mod witnesses;
mod workers;
