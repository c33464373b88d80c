//! Rule `seal-admission` (Inkless, docs/model/inkless.md#at-seal-admission): how a switched
//! follower at the seal gets (back) into the ISR, and when it leaves the classic fetcher.
//! Upstream: aiven/inkless PR #760 (82c0e1a2e5): `Partition.maybeExpandIsrAtSeal`
//! (e74ed8ba0d), ISR-gated routing in `applyLocalFollowersDelta` / `isReadyForConsolidation`
//! (79cd459a1d) and in `ReplicaFetcherThread.processPartitionData` (7c1ded7742).

use crate::model::ReplicaState;

rule! {
    pub enum SealAdmission {
        id: "seal-admission",
        family: Inkless,
        field: seal_admission,
        summary: "how a switched follower at the seal re-enters the ISR and leaves the classic fetcher (docs/model/inkless.md#at-seal-admission)",
        variants: {
            /// `generic` (before #760): only `maybeExpandIsr` (`rec.leo ≥ HW_L` and `≥
            /// leaderEpochStartOffset`), which a consolidating leader's frontier keeps out of
            /// reach; a consolidating follower evicts at the seal whether or not it is in the ISR.
            Generic {
                name: "generic",
                summary: "Partition.maybeExpandIsr only; consolidating followers evict at the seal regardless of ISR",
                provenance: "Partition.maybeExpandIsr / ReplicaFetcherThread.processPartitionData at 5f22fac12b",
            },
            /// `pr760`: admit at the seal (`rec.leo ≥ s`, leader holding the prefix) and keep an
            /// out-of-ISR switched follower on the classic fetcher until it is admitted.
            Pr760 {
                name: "pr760",
                summary: "maybeExpandIsrAtSeal (rec.leo ≥ seal, leader holds the prefix); ISR-gated routing and eviction",
                provenance: "aiven/inkless #760 82c0e1a2e5 (e74ed8ba0d, 79cd459a1d, 7c1ded7742)",
            },
        },
    }
}

impl SealAdmission {
    /// Whether the leader records a follower fetch answered by the at-seal branch, as a
    /// fetch at the seal. Only a follower at or above the seal is recorded; with #760 only
    /// while the leader holds the whole classic prefix (`LEO_L ≥ s`), the precondition of
    /// `maybeExpandIsrAtSeal`.
    pub fn records_at_seal_fetch(self, fetch_offset: i64, seal: i64, leader_leo: i64) -> bool {
        let leader_holds_prefix = match self {
            SealAdmission::Generic => true,
            SealAdmission::Pr760 => leader_leo >= seal,
        };
        fetch_offset >= seal && leader_holds_prefix
    }

    /// Whether a follower outside the ISR may join it. Generic: `Partition.isFollowerInSync`,
    /// `rec.leo ≥ HW_L` and `≥ leaderEpochStartOffset`. With #760, a fetch the at-seal
    /// branch answered is judged by `maybeExpandIsrAtSeal` instead: `rec.leo ≥ s`.
    pub fn in_sync_for_expansion(
        self,
        rec: &ReplicaState,
        at_seal_branch: bool,
        seal: i64,
        leader_hw: i64,
        leader_epoch_start_offset: i64,
    ) -> bool {
        let generic = rec.leo >= leader_hw && rec.leo >= leader_epoch_start_offset;
        match self {
            SealAdmission::Generic => generic,
            SealAdmission::Pr760 if at_seal_branch => rec.leo >= seal,
            SealAdmission::Pr760 => generic,
        }
    }

    /// #760 routing (`applyLocalFollowersDelta`, `isReadyForConsolidation`,
    /// `ReplicaFetcherThread.processPartitionData`): a switched follower leaves the classic
    /// fetcher for consolidation only once it is in the ISR.
    pub fn isr_gated_routing(self) -> bool {
        match self {
            SealAdmission::Generic => false,
            SealAdmission::Pr760 => true,
        }
    }
}
