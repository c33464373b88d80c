//! Looking for violations: the byte-level generator, the in-process random search
//! (`hunt`), bounded exhaustive exploration (`exhaust`), the entry point of the
//! coverage-guided engines (`fuzz`). Uses `findings` and below.

mod bfs;
pub mod counterexamples;
pub mod exhaust;
pub mod fingerprints;
pub mod fuzz;
pub mod generate;
pub mod hunt;
pub mod judged;
pub mod report;
pub mod rng;
pub mod share;
mod space;
pub mod splice;
pub mod stop;
mod tree;
pub mod workers;

/// Threads a search (`hunt`'s workers, `exhaust`'s batches) uses at most.
pub const JOBS_MAX: usize = 64;

/// The threads a search uses unless told: the cores this process may run on.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
