//! AFL++ glue (persistent mode): bytes → `isrfuzz::search::fuzz::run_target`, the same entry point
//! as the libFuzzer target, so crash files carry over between the engines.
fn main() {
    afl::fuzz!(|data: &[u8]| {
        isrfuzz::search::fuzz::run_target(isrfuzz::search::fuzz::Target::Trivial, data);
    });
}
