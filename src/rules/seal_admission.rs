//! Rule `seal-admission` (Inkless, spec inkless-isr.md §2(d), §2(f)): how a switched
//! follower at the seal gets (back) into the ISR, and when it leaves the classic fetcher.
//! Upstream: aiven/inkless PR #760 (82c0e1a2e5): `Partition.maybeExpandIsrAtSeal`
//! (e74ed8ba0d), ISR-gated routing in `applyLocalFollowersDelta` / `isReadyForConsolidation`
//! (79cd459a1d) and in `ReplicaFetcherThread.processPartitionData` (7c1ded7742).

use crate::model::SealAdmission as Knobs;

#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum SealAdmission {
    /// `generic` (before #760): only `maybeExpandIsr` (`rec.leo ≥ HW_L` and
    /// `≥ leaderEpochStartOffset`), which a consolidating leader's frontier keeps out of
    /// reach; a consolidating follower evicts at the seal whether or not it is in the ISR.
    Generic,
    /// `pr760`: admit at the seal (`rec.leo ≥ s`, leader holding the prefix) and keep an
    /// out-of-ISR switched follower on the classic fetcher until it is admitted.
    Pr760,
}

impl SealAdmission {
    pub const ALL: [SealAdmission; 2] = [SealAdmission::Generic, SealAdmission::Pr760];

    pub fn knobs(self) -> Knobs {
        let on = self == SealAdmission::Pr760;
        Knobs {
            at_seal: on,
            isr_gated_routing: on,
        }
    }
}
