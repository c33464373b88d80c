//! isrfuzz: differential fuzzing of replication rules (KRaft reassignment, Inkless ISR).
//!
//! Layers, bottom up, one folder each: `model` (pure controller state and operations, with
//! the rule set as a parameter) ← `rules` (variants side by side) ← `check` (the property
//! list, the oracle: run a history under rule sets, check, compare) ← `findings` (triage,
//! minimization, reports) ← `search` (generation, `hunt`, `exhaust`, the fuzz targets'
//! entry) ← `conform` (the real controller as a second judge) ← `bench` (the benchmarks)
//! ← the `isrfuzz` binary (`cli/`). See ARCHITECTURE.md.

pub mod bench;
pub mod check;
pub mod conform;
pub mod error;
pub mod findings;
pub mod model;
pub mod rules;
pub mod search;

pub use check::history::History;
pub use rules::RuleSet;
pub use search::generate::decode;

// The model allocates many short-lived small vectors (broker lists): glibc's malloc and
// free were a third of all instructions under callgrind, and mimalloc removes most of
// that. In the library so the CLI, the tests and both fuzzing engines' targets share it.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
