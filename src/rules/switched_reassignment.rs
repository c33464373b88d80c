//! Rule `switched-reassignment` (Inkless, spec inkless-isr.md §2(e)): whether a
//! reassignment of a diskless topic takes the one-step path. Upstream: aiven/inkless
//! metadata/.../controller/ReplicationControlManager.java, `changePartitionReassignment`.

use crate::model::{Partition, SEAL_NONE};

#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum SwitchedReassignment {
    /// `one-step` (before #757): every diskless topic sets replicas and ISR to the target
    /// at once, so a new replica with an empty log can be elected (CE-e).
    OneStep,
    /// `staged` (#757, 9082a19e2f): only a born-diskless topic (seal -1) goes one step; a
    /// switched or pending one is staged, new replicas earn the ISR by fetching.
    Staged,
}

impl SwitchedReassignment {
    pub const ALL: [SwitchedReassignment; 2] =
        [SwitchedReassignment::OneStep, SwitchedReassignment::Staged];

    pub fn one_step(self, p: &Partition) -> bool {
        p.diskless && (self == SwitchedReassignment::OneStep || p.seal == SEAL_NONE)
    }
}
