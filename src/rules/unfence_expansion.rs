//! Rule `unfence-expansion` (Inkless, docs/model/inkless.md#unfence-expansion): whether unfencing a broker
//! adds it to the ISR of diskless partitions that list it. Upstream: aiven/inkless
//! metadata/.../controller/ReplicationControlManager.java, `handleBrokerUnfenced` →
//! `expandIsrForDisklessManagedPartitions`.

use crate::model::{Partition, SEAL_NONE};

rule! {
    pub enum UnfenceExpansion {
        id: "unfence-expansion",
        family: Inkless,
        field: unfence_expansion,
        summary: "whether unfencing adds the broker to diskless ISRs (docs/model/inkless.md#unfence-expansion)",
        variants: {
            /// `pre-754`: every diskless partition, switched ones included, so a replica that lost
            /// part of the classic prefix rejoins the ISR (CE-f).
            Pre754 {
                name: "pre-754",
                summary: "every diskless partition listing the broker",
                provenance: "ReplicationControlManager.expandIsrForDisklessManagedPartitions before #754",
            },
            /// `pr754` (merged as 43b016f6ec): skip any seal other than -1, permanently.
            Pr754 {
                name: "pr754",
                summary: "only diskless partitions with seal -1",
                provenance: "aiven/inkless #754, merged as 43b016f6ec",
            },
        },
    }
}

impl UnfenceExpansion {
    pub fn adds_to_isr(self, p: &Partition) -> bool {
        let every_diskless_partition = match self {
            UnfenceExpansion::Pre754 => true,
            UnfenceExpansion::Pr754 => false,
        };
        p.diskless && (every_diskless_partition || p.seal == SEAL_NONE)
    }
}
