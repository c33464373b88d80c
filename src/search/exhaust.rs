//! `isrfuzz exhaust`: bounded exhaustive exploration. Breadth-first over every history of
//! up to `depth` operations drawn from a fixed alphabet, from a fixed starting cluster,
//! with equal states (controller, brokers and ghosts) merged, so each (state, operation)
//! transition is checked once. Breadth-first order makes the first violation of each
//! invariant a shortest counterexample. Deterministic: the same configuration always
//! explores the same counts.
//!
//! Storage: a state seen is kept as a 64-bit fingerprint (src/search/fingerprints.rs) and
//! its first parent and operation (src/search/tree.rs), and rebuilt by re-executing that
//! path when it is expanded or a counterexample is written; the engine is src/search/bfs.rs.
//!
//! Reduction: equal states are merged (the full state: controller, brokers, ghosts). There
//! is no broker-id symmetry reduction, on purpose: Kafka orders `removing` by broker id
//! (a TreeSet), so renaming brokers is not a symmetry of the rules and merging renamed
//! states would be unsound; src/symmetry.rs and tests/it/symmetry.rs show it.

use crate::rules::RuleSet;
use crate::search::default_jobs;
pub use crate::search::space::{start_named, starts, Limits, Report, Start};
pub use crate::search::space::{START_BROKERS_MAX, START_MIN_ISR_MAX};

/// Explore every history of up to `depth` operations under `rules` from `start`.
/// `states_max` bounds memory: exploration stops beyond it, and the report says where
/// (`depth_reached` is then the last depth completed, `cut_at_depth` the one cut short).
pub fn explore(
    start: &Start,
    rules: &RuleSet,
    depth: usize,
    max_target: usize,
    states_max: usize,
) -> Report {
    explore_until(start, rules, depth, max_target, states_max, None)
}

/// [`explore`], stopping as soon as `until` is violated (the benchmark's time to the
/// shortest counterexample of one bug).
pub fn explore_until(
    start: &Start,
    rules: &RuleSet,
    depth: usize,
    max_target: usize,
    states_max: usize,
    until: Option<&str>,
) -> Report {
    let limits = Limits {
        depth,
        max_target,
        states_max,
        jobs: default_jobs(),
    };
    explore_with(start, rules, &limits, until)
}

/// Bytes a stored state costs at most: its tree node (8 bytes, up to 24 while the node
/// list doubles) and its fingerprint's slot in a shard (8 bytes and a control byte at
/// least 7/16 full: up to 21). States themselves are not stored.
pub const STATE_BYTES: u64 = 48;

/// Bytes the search needs besides its stored states: a chunk's transitions and fresh
/// states, each thread's rebuilt path and fingerprints, the model's own (130–210 MB
/// resident in all at depth 5 from `kraft`, one or two threads, 316 K states included).
pub const WORKING_BYTES: u64 = 256 << 20;

/// The states a memory budget holds: what is left after the working set, at
/// [`STATE_BYTES`] each (0 when the budget does not cover the working set).
pub fn states_for_budget(bytes: u64) -> usize {
    usize::try_from(bytes.saturating_sub(WORKING_BYTES) / STATE_BYTES).unwrap_or(usize::MAX)
}

/// The breadth-first search (src/search/bfs.rs).
pub fn explore_with(
    start: &Start,
    rules: &RuleSet,
    limits: &Limits,
    until: Option<&str>,
) -> Report {
    crate::search::bfs::explore(start, rules, limits, until)
}
