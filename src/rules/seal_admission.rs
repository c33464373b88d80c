//! Rule `seal-admission` (Inkless, docs/model/inkless.md#at-seal-admission): how a switched
//! follower at the seal gets (back) into the ISR, and when it leaves the classic fetcher.
//! Upstream: aiven/inkless PR #760 (82c0e1a2e5): `Partition.maybeExpandIsrAtSeal`
//! (e74ed8ba0d), ISR-gated routing in `applyLocalFollowersDelta` / `isReadyForConsolidation`
//! (79cd459a1d) and in `ReplicaFetcherThread.processPartitionData` (7c1ded7742).

use crate::model::{AtSealAnswer, ReplicaState};

rule! {
    pub enum SealAdmission {
        id: "seal-admission",
        family: Inkless,
        field: seal_admission,
        summary: "how a switched follower at the seal re-enters the ISR and leaves the classic fetcher (docs/model/inkless.md#at-seal-admission)",
        variants: {
            /// `generic` (before #760): only `maybeExpandIsr` (`rec.leo ≥ HW_L` and `≥
            /// leaderEpochStartOffset`), which a consolidating leader's frontier keeps out of
            /// reach; a consolidating follower evicts at the seal whether or not it is in the ISR;
            /// an at-seal fetch on a leader below the seal is out of range.
            Generic {
                name: "generic",
                summary: "Partition.maybeExpandIsr only; consolidating followers evict at the seal regardless of ISR; an at-seal fetch on a leader below the seal fails: not recorded, the follower cut to the leader's end",
                provenance: "aiven/inkless 5f22fac12b: Partition.maybeExpandIsr, ReplicaFetcherThread.processPartitionData, ReplicaManager.fetchMessages (at-seal Partition.fetchRecords)",
            },
            /// `pr760`: admit at the seal (`rec.leo ≥ s`, leader holding the prefix; a leader
            /// below the seal validates nothing) and keep an out-of-ISR switched follower on the
            /// classic fetcher until it is admitted.
            Pr760 {
                name: "pr760",
                summary: "maybeExpandIsrAtSeal (rec.leo ≥ seal, leader holds the prefix; none below it); ISR-gated routing and eviction",
                provenance: "aiven/inkless #760 82c0e1a2e5 (e74ed8ba0d, 79cd459a1d, 7c1ded7742)",
            },
        },
    }
}

impl SealAdmission {
    /// How the leader answers a follower fetch the at-seal branch takes. Only a follower at
    /// or above the seal is validated, by `Partition.fetchRecords` at the seal with no bytes
    /// (`ReplicaManager.fetchMessages`). Before #760 the validation reads the leader's local
    /// log at the seal, which is out of range when that log ends below it (`LocalLog.read`):
    /// the follower is not recorded and gets OFFSET_OUT_OF_RANGE. #760 (`e74ed8ba0d`) skips
    /// the validation on a leader below the seal, which then answers like any unvalidated
    /// at-seal fetch.
    pub fn at_seal_fetch(self, fetch_offset: i64, seal: i64, leader_leo: i64) -> AtSealAnswer {
        if fetch_offset < seal {
            return AtSealAnswer::Unvalidated;
        }
        match self {
            SealAdmission::Generic if leader_leo < seal => AtSealAnswer::OutOfRange,
            SealAdmission::Pr760 if leader_leo < seal => AtSealAnswer::Unvalidated,
            SealAdmission::Generic | SealAdmission::Pr760 => AtSealAnswer::Validated,
        }
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
