//! Rule `shrink` (Inkless, docs/model/inkless.md#isr-expiration): which partitions the leader's
//! `isr-expiration` task evaluates, and the offset cap it passes to the lag check.
//! Upstream: aiven/inkless core/src/main/scala/kafka/server/ReplicaManager.scala,
//! `maybeShrinkIsr`.

use crate::model::{Partition, SEAL_NONE};

rule! {
    pub enum Shrink {
        id: "shrink",
        family: Inkless,
        field: shrink,
        summary: "which partitions the isr-expiration task evaluates, and the cap it uses (docs/model/inkless.md#isr-expiration)",
        variants: {
            /// `inkless-main` (main b1fcb5f6f7 and the #756 base a5128f5095): every diskless topic
            /// is skipped, so a switched replica leaves the ISR only through the controller.
            InklessMain {
                name: "inkless-main",
                summary: "skip every diskless topic",
                provenance: "aiven/inkless ReplicaManager.maybeShrinkIsr at main b1fcb5f6f7 (and #756 base a5128f5095)",
            },
            /// `pr756` (commit 150ec6ed61): only a diskless topic with seal -1 (born diskless or
            /// aborted) is skipped; a committed seal is the cap, a pending one is uncapped.
            Pr756 {
                name: "pr756",
                summary: "skip only diskless topics with seal -1; cap = committed seal",
                provenance: "aiven/inkless #756 commit 150ec6ed61, ReplicaManager.maybeShrinkIsr",
            },
            /// `all-diskless`, WRONG on purpose (a planted bug, no upstream source): #756 with the
            /// skip removed instead of narrowed, so born-diskless and aborted partitions (seal -1),
            /// whose followers never fetch, are shrunk too. INV-7 catches it.
            AllDiskless {
                name: "all-diskless",
                summary: "WRONG on purpose: no diskless skip at all, born-diskless and aborted partitions shrunk too",
                provenance: "planted bug for INV-7 (no upstream source); tests/it/witnesses.rs",
            },
        },
    }
}

impl Shrink {
    /// `None`: not evaluated. `Some(cap)`: evaluated, with cap -1 meaning none.
    pub fn cap(self, p: &Partition) -> Option<i64> {
        let skipped = match self {
            Shrink::InklessMain => p.diskless,
            Shrink::Pr756 => p.diskless && p.seal == SEAL_NONE,
            Shrink::AllDiskless => false,
        };
        (!skipped).then_some(if p.seal >= 0 { p.seal } else { -1 })
    }
}
