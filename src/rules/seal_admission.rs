//! Rule `seal-admission` (Inkless, spec inkless-isr.md §2(d), §2(f)): how a switched
//! follower at the seal gets (back) into the ISR, and when it leaves the classic fetcher.
//! Upstream: aiven/inkless PR #760 (82c0e1a2e5): `Partition.maybeExpandIsrAtSeal`
//! (e74ed8ba0d), ISR-gated routing in `applyLocalFollowersDelta` / `isReadyForConsolidation`
//! (79cd459a1d) and in `ReplicaFetcherThread.processPartitionData` (7c1ded7742).

use crate::model::SealAdmission as Knobs;

rule! {
    pub enum SealAdmission {
        id: "seal-admission",
        family: Inkless,
        field: seal_admission,
        summary: "how a switched follower at the seal re-enters the ISR and leaves the classic fetcher (spec §2(d), §2(f))",
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
    pub fn knobs(self) -> Knobs {
        let on = self == SealAdmission::Pr760;
        Knobs {
            at_seal: on,
            isr_gated_routing: on,
        }
    }
}
