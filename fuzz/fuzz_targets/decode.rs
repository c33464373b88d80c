//! libFuzzer glue: bytes → `isrfuzz::fuzz::run_target` (see src/fuzz.rs for what crashes).
#![no_main]
use isrfuzz::fuzz::{run_target, Target};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| run_target(Target::Decode, data));
