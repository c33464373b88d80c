//! Rule `completion`: when `PartitionChangeBuilder.completeReassignmentIfNeeded` finishes a
//! reassignment. Spec: kafka-reassignment.md §3.1. Upstream:
//! metadata/src/main/java/org/apache/kafka/controller/PartitionReassignmentReplicas.java,
//! `maybeCompleteReassignment`.
//!
//! Common part (all versions): nothing to do when adding and removing are both empty;
//! I' = ISR − removing, R' = replicas − removing (orders kept); with removing non-empty,
//! an empty I' or R' blocks completion. On success the record carries R' and I' and
//! empty adding/removing.

use crate::model::{contains_all, without, BrokerId};

#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Completion {
    /// `3.0-3.7`: adding ⊆ I' only (tag 3.7.0; inline in PartitionChangeBuilder in 3.0–3.4).
    V3_0To3_7,
    /// `3.8-4.2`: R' ⊆ I', every surviving replica in sync (KAFKA-15665, commit 756f44a3e5).
    V3_8To4_2,
    /// `4.3+`: adding ⊆ I', and when |adding| < |removing| (the RF-reduction guard) also
    /// R' ⊆ I' (KAFKA-19975, commit 3d267d4536; apache trunk d79bd502ec).
    V4_3Plus,
}

impl Completion {
    pub const ALL: [Completion; 3] = [
        Completion::V3_0To3_7,
        Completion::V3_8To4_2,
        Completion::V4_3Plus,
    ];

    /// `adding`/`removing` are the effective sets used by the tests; `removing_all` is
    /// what completion drops (they differ only when transients are tracked in both).
    pub fn maybe_complete(
        self,
        replicas: &[BrokerId],
        isr: &[BrokerId],
        adding: &[BrokerId],
        removing: &[BrokerId],
        removing_all: &[BrokerId],
    ) -> Option<(Vec<BrokerId>, Vec<BrokerId>)> {
        let new_isr = without(isr, removing_all);
        let new_replicas = without(replicas, removing_all);
        if !removing_all.is_empty() && (new_isr.is_empty() || new_replicas.is_empty()) {
            return None;
        }
        let done = match self {
            Completion::V3_0To3_7 => contains_all(&new_isr, adding),
            Completion::V3_8To4_2 => contains_all(&new_isr, &new_replicas),
            Completion::V4_3Plus => {
                contains_all(&new_isr, adding)
                    && (adding.len() >= removing.len() || contains_all(&new_isr, &new_replicas))
            }
        };
        done.then_some((new_replicas, new_isr))
    }
}
