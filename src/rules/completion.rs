//! Rule `completion`: when `PartitionChangeBuilder.completeReassignmentIfNeeded` finishes a
//! reassignment. Model: docs/model/reassignment.md#completion. Upstream:
//! metadata/src/main/java/org/apache/kafka/controller/PartitionReassignmentReplicas.java,
//! `maybeCompleteReassignment`.
//!
//! Common part (all versions): nothing to do when adding and removing are both empty;
//! I' = ISR − removing, R' = replicas − removing (orders kept); with removing non-empty,
//! an empty I' or R' blocks completion. On success the record carries R' and I' and
//! empty adding/removing.

use crate::model::{contains_all, without, BrokerId};

rule! {
    pub enum Completion {
        id: "completion",
        family: Kraft,
        field: completion,
        summary: "when completeReassignmentIfNeeded finishes a reassignment (docs/model/reassignment.md#completion)",
        variants: {
            /// `3.0-3.7`: adding ⊆ I' only (tag 3.7.0; inline in PartitionChangeBuilder in
            /// 3.0–3.4).
            V3_0To3_7 {
                name: "3.0-3.7",
                summary: "adding ⊆ ISR − removing",
                provenance: "PartitionReassignmentReplicas.maybeCompleteReassignment at tag 3.7.0 (inline in PartitionChangeBuilder in 3.0–3.4)",
            },
            /// `3.8-4.2`: R' ⊆ I', every surviving replica in sync (KAFKA-15665, commit
            /// 756f44a3e5).
            V3_8To4_2 {
                name: "3.8-4.2",
                summary: "replicas − removing ⊆ ISR − removing",
                provenance: "KAFKA-15665, commit 756f44a3e5 (first in 3.8.0)",
            },
            /// `4.3+`: adding ⊆ I', and when |adding| < |removing| (the RF-reduction guard) also R'
            /// ⊆ I' (KAFKA-19975, commit 3d267d4536; apache trunk d79bd502ec).
            V4_3Plus {
                name: "4.3+",
                summary: "adding ⊆ ISR − removing, plus the RF-reduction guard: if |adding| < |removing| then replicas − removing ⊆ ISR − removing",
                provenance: "KAFKA-19975, commit 3d267d4536 (branch 4.3); apache trunk d79bd502ec",
            },
            /// `keep-isr`, WRONG on purpose (a planted bug, no upstream source): the 4.3+ test, but
            /// the record drops removing from the replicas only, leaving removed replicas in the
            /// ISR. G9 (the completion record's shape) is what catches it.
            KeepIsr {
                name: "keep-isr",
                summary: "WRONG on purpose: the 4.3+ test, but the record keeps removed replicas in the ISR",
                provenance: "planted bug for G9 (no upstream source); tests/it/witnesses.rs",
            },
        },
    }
}

impl Completion {
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
            Completion::V4_3Plus | Completion::KeepIsr => {
                contains_all(&new_isr, adding)
                    && (adding.len() >= removing.len() || contains_all(&new_isr, &new_replicas))
            }
        };
        if self == Completion::KeepIsr {
            return done.then(|| (new_replicas, isr.to_vec()));
        }
        done.then_some((new_replicas, new_isr))
    }
}

#[cfg(test)]
mod tests {
    //! Upstream PartitionReassignmentReplicasTest cases (apache trunk d79bd502ec), as
    //! (replicas, isr, adding, removing), with each version's answer side by side.
    use super::*;
    use crate::model::event::Ids;
    use expect_test::{expect, Expect};

    fn check(replicas: &[i32], isr: &[i32], adding: &[i32], removing: &[i32], expect: Expect) {
        let rows: Vec<String> = Completion::ALL
            .iter()
            .map(
                |c| match c.maybe_complete(replicas, isr, adding, removing, removing) {
                    Some((r, i)) => format!("{c:?}: complete replicas={} isr={}", Ids(&r), Ids(&i)),
                    None => format!("{c:?}: waits"),
                },
            )
            .collect();
        expect.assert_eq(&(rows.join("\n") + "\n"));
    }

    /// testCanCompleteReassignmentAllNewReplicas: [0,1,2] → [3,4,5] with all in sync.
    #[test]
    fn all_new_replicas_in_sync() {
        check(
            &[3, 4, 5, 0, 1, 2],
            &[0, 1, 2, 3, 4, 5],
            &[3, 4, 5],
            &[0, 1, 2],
            expect![[r#"
                V3_0To3_7: complete replicas=[3,4,5] isr=[3,4,5]
                V3_8To4_2: complete replicas=[3,4,5] isr=[3,4,5]
                V4_3Plus: complete replicas=[3,4,5] isr=[3,4,5]
                KeepIsr: complete replicas=[3,4,5] isr=[0,1,2,3,4,5]
            "#]],
        );
    }

    /// An adding replica out of the ISR: [0,1,2] → [3,4,5] with 5 missing (the case of
    /// trunk's testDoesNotCompleteReassignmentIfIsrDoesNotHaveAnAddingTargetReplica, on
    /// a full move).
    #[test]
    fn an_adding_replica_out_of_sync() {
        check(
            &[3, 4, 5, 0, 1, 2],
            &[0, 1, 2, 3, 4],
            &[3, 4, 5],
            &[0, 1, 2],
            expect![[r#"
                V3_0To3_7: waits
                V3_8To4_2: waits
                V4_3Plus: waits
                KeepIsr: waits
            "#]],
        );
    }

    /// testCanCompleteReassignmentIfIsrDoesNotHaveBothExistingTargetReplica:
    /// [0,1,2] → [0,1,3], ISR [2,3] → replicas [0,1,3], ISR [3] on 4.3+.
    #[test]
    fn out_of_isr_survivors() {
        check(
            &[0, 1, 3, 2],
            &[2, 3],
            &[3],
            &[2],
            expect![[r#"
                V3_0To3_7: complete replicas=[0,1,3] isr=[3]
                V3_8To4_2: waits
                V4_3Plus: complete replicas=[0,1,3] isr=[3]
                KeepIsr: complete replicas=[0,1,3] isr=[2,3]
            "#]],
        );
    }

    /// The KAFKA-19975 RF-reduction guard: [0,1,2] → [0,3], ISR [1,2,3] (0 out of sync).
    #[test]
    fn rf_reduction_guard() {
        check(
            &[0, 3, 1, 2],
            &[1, 2, 3],
            &[3],
            &[1, 2],
            expect![[r#"
                V3_0To3_7: complete replicas=[0,3] isr=[3]
                V3_8To4_2: waits
                V4_3Plus: waits
                KeepIsr: waits
            "#]],
        );
    }

    /// Removing everything in the ISR never completes (I' empty).
    #[test]
    fn empty_isr_after_removal() {
        check(
            &[3, 0],
            &[0],
            &[3],
            &[0],
            expect![[r#"
                V3_0To3_7: waits
                V3_8To4_2: waits
                V4_3Plus: waits
                KeepIsr: waits
            "#]],
        );
    }

    /// A replica in both lists (the stuck case) can never complete on 4.3+ and ≤3.7.
    #[test]
    fn adding_and_removing_overlap() {
        check(
            &[1, 2, 3, 4],
            &[1, 2, 3, 4],
            &[4],
            &[4],
            expect![[r#"
                V3_0To3_7: waits
                V3_8To4_2: complete replicas=[1,2,3] isr=[1,2,3]
                V4_3Plus: waits
                KeepIsr: waits
            "#]],
        );
    }
}
