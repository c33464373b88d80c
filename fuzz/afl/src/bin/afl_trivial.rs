//! AFL++ glue (persistent mode): bytes → `isrfuzz::fuzz::run_target`, the same entry point
//! as the libFuzzer target, so crash files carry over between the engines.
fn main() {
    afl::fuzz!(|data: &[u8]| {
        isrfuzz::fuzz::run_target(isrfuzz::fuzz::Target::Trivial, data);
    });
}
