//! libFuzzer glue for the engine baseline: `Target::Trivial` runs nothing.
#![no_main]
use isrfuzz::search::fuzz::{run_target, Target};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| run_target(Target::Trivial, data));
