//! Rule `unfence-expansion` (Inkless, spec inkless-isr.md §2(f)): whether unfencing a broker
//! adds it to the ISR of diskless partitions that list it. Upstream: aiven/inkless
//! metadata/.../controller/ReplicationControlManager.java, `handleBrokerUnfenced` →
//! `expandIsrForDisklessManagedPartitions`.

use crate::model::{Partition, SEAL_NONE};

#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum UnfenceExpansion {
    /// `pre-754`: every diskless partition, switched ones included, so a replica that lost
    /// part of the classic prefix rejoins the ISR (CE-f).
    Pre754,
    /// `pr754` (merged as 43b016f6ec): skip any seal other than -1, permanently.
    Pr754,
}

impl UnfenceExpansion {
    pub const ALL: [UnfenceExpansion; 2] = [UnfenceExpansion::Pre754, UnfenceExpansion::Pr754];

    pub fn adds_to_isr(self, p: &Partition) -> bool {
        p.diskless && (self == UnfenceExpansion::Pre754 || p.seal == SEAL_NONE)
    }
}
