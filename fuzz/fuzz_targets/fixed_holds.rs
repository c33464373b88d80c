//! libFuzzer glue: bytes → `isrfuzz::search::fuzz::run_target` (see src/search/fuzz.rs for what crashes).
#![no_main]
use isrfuzz::search::fuzz::{run_target, Target};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| run_target(Target::FixedHolds, data));
