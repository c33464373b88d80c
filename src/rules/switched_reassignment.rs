//! Rule `switched-reassignment` (Inkless, docs/model/inkless.md#staged-reassignment): whether a
//! reassignment of a diskless topic takes the one-step path. Upstream: aiven/inkless
//! metadata/.../controller/ReplicationControlManager.java, `changePartitionReassignment`.

use crate::model::{Partition, SEAL_NONE};

rule! {
    pub enum SwitchedReassignment {
        id: "switched-reassignment",
        family: Inkless,
        field: switched_reassignment,
        summary: "whether reassigning a diskless topic sets replicas and ISR at once (docs/model/inkless.md#staged-reassignment)",
        variants: {
            /// `one-step` (before #757): every diskless topic sets replicas and ISR to the target
            /// at once, so a new replica with an empty log can be elected (CE-e).
            OneStep {
                name: "one-step",
                summary: "every diskless topic goes one step",
                provenance: "ReplicationControlManager.changePartitionReassignment before #757",
            },
            /// `staged` (#757, 9082a19e2f): only a born-diskless topic (seal -1) goes one step; a
            /// switched or pending one is staged, new replicas earn the ISR by fetching.
            Staged {
                name: "staged",
                summary: "only born-diskless (seal -1) goes one step",
                provenance: "aiven/inkless #757 9082a19e2f (isBornDiskless)",
            },
        },
    }
}

impl SwitchedReassignment {
    pub fn one_step(self, p: &Partition) -> bool {
        let every_diskless_topic = match self {
            SwitchedReassignment::OneStep => true,
            SwitchedReassignment::Staged => false,
        };
        p.diskless && (every_diskless_topic || p.seal == SEAL_NONE)
    }
}
