//! Rule `derivation`: how an alter-reassignment call derives `replicas`, `adding_replicas`
//! and `removing_replicas` from the current registration and the target, and whether it
//! writes empty sets. Model: docs/model/reassignment.md#derivation.
//!
//! Each variant's doc names what it mirrors. Upstream for `trunk`:
//! metadata/src/main/java/org/apache/kafka/controller/PartitionReassignmentReplicas.java
//! (constructor) and ReplicationControlManager.changePartitionReassignment (the
//! keep-if-empty setter guards), apache trunk d79bd502ec, unchanged since KAFKA-12803 (3.0).

use crate::model::{sorted_difference, without, AlterPlan, BrokerId, Partition};

rule! {
    pub enum Derivation {
        id: "derivation",
        family: Kraft,
        field: derivation,
        summary: "how an alter-reassignment call derives adding/removing replicas (docs/model/reassignment.md#derivation)",
        variants: {
            /// `trunk`: adding = target − replicas and removing = replicas − target, both against
            /// the *current* replicas (which already hold in-flight adding replicas); an empty
            /// derived set keeps the old one. KAFKA-21419: an override promotes still-adding
            /// replicas.
            Trunk {
                name: "trunk",
                summary: "adding = target − current replicas, removing = current − target; an empty derived set keeps the old one (KAFKA-21419)",
                provenance: "metadata/.../controller/PartitionReassignmentReplicas.java constructor + ReplicationControlManager.changePartitionReassignment, apache trunk d79bd502ec (unchanged since KAFKA-12803, 3.0)",
            },
            /// `kafka-21419`: the fix the report proposes, adding = target − (replicas − adding),
            /// with upstream's keep-if-empty guards left in place.
            Kafka21419 {
                name: "kafka-21419",
                summary: "the report's fix: adding = target − (replicas − adding); keep-if-empty guards kept",
                provenance: "KAFKA-21419 report, https://issues.apache.org/jira/browse/KAFKA-21419 (docs/model/reassignment.md#proposed-fix); no upstream commit as of d79bd502ec",
            },
            /// `kafka-21419-always-write`: the proposed fix plus always writing both sets, even
            /// when empty (docs/model/reassignment.md#always-write, the required companion). Still fails on drop-then-re-add.
            Kafka21419AlwaysWrite {
                name: "kafka-21419-always-write",
                summary: "the report's fix plus always writing adding and removing, even when empty",
                provenance: "docs/model/reassignment.md#always-write (required companion of the KAFKA-21419 fix; no upstream commit)",
            },
            /// `zk-style`, design A (docs/model/reassignment.md#design-a): like the ZooKeeper controller's
            /// `ReplicaAssignment.reassignTo` (core/.../ControllerContext.scala, apache
            /// 1eb7644349): on override, drop transients (old adding replicas not in the new
            /// target) from the replicas and the ISR at once; adding = target − O, removing = O −
            /// target.
            ZkStyle {
                name: "zk-style",
                summary: "design A: drop transients from replicas and ISR at once; adding = target − O, removing = O − target",
                provenance: "docs/model/reassignment.md#design-a, after ZK ControllerContext.ReplicaAssignment.reassignTo + KafkaController.updateCurrentReassignment (apache 1eb7644349)",
            },
            /// `transients-tracked`, design B (docs/model/reassignment.md#design-b): transients stay in both adding and
            /// removing; completion works on adding − removing and removing − adding.
            TransientsTracked {
                name: "transients-tracked",
                summary: "design B: transients stay in adding and removing; completion uses adding − removing and removing − adding",
                provenance: "docs/model/reassignment.md#design-b (no upstream commit)",
            },
            /// `previous-target`, WRONG on purpose (a planted bug, no upstream source): adding =
            /// target − (replicas − removing), i.e. against the previous *target* instead of the
            /// original replicas, always written. Re-adding an original replica that the previous
            /// target dropped lists it as adding, which G3 forbids (a cancel would then lose it).
            PreviousTarget {
                name: "previous-target",
                summary: "WRONG on purpose: adding = target − (replicas − removing), the previous target instead of O; always written",
                provenance: "planted bug for G3 (no upstream source); tests/it/witnesses.rs",
            },
        },
    }
}

fn non_empty(v: Vec<BrokerId>) -> Option<Vec<BrokerId>> {
    (!v.is_empty()).then_some(v)
}

/// target (request order) followed by removing (ascending): the constructor's replica list.
fn target_then(target: &[BrokerId], removing: &[BrokerId]) -> Vec<BrokerId> {
    let mut replicas = target.to_vec();
    replicas.extend_from_slice(removing);
    replicas
}

impl Derivation {
    pub fn plan(self, part: &Partition, target: &[BrokerId]) -> AlterPlan {
        let current = &part.replicas;
        let removing = sorted_difference(current, target);
        match self {
            Derivation::Trunk => {
                let adding = sorted_difference(target, current);
                AlterPlan {
                    replicas: target_then(target, &removing),
                    adding: non_empty(adding),
                    removing: non_empty(removing),
                    drop_now: Vec::new(),
                }
            }
            Derivation::Kafka21419 | Derivation::Kafka21419AlwaysWrite => {
                let original_estimate = without(current, &part.adding_replicas);
                let adding = sorted_difference(target, &original_estimate);
                let replicas = target_then(target, &removing);
                if self == Derivation::Kafka21419 {
                    AlterPlan {
                        replicas,
                        adding: non_empty(adding),
                        removing: non_empty(removing),
                        drop_now: Vec::new(),
                    }
                } else {
                    AlterPlan {
                        replicas,
                        adding: Some(adding),
                        removing: Some(removing),
                        drop_now: Vec::new(),
                    }
                }
            }
            Derivation::ZkStyle => {
                // Transients never survive an override here, so replicas − adding is O.
                let original = without(current, &part.adding_replicas);
                let transients = sorted_difference(&part.adding_replicas, target);
                let removing = sorted_difference(&original, target);
                AlterPlan {
                    replicas: target_then(target, &removing),
                    adding: Some(sorted_difference(target, &original)),
                    removing: Some(removing),
                    drop_now: transients,
                }
            }
            Derivation::PreviousTarget => {
                let previous_target = without(current, &part.removing_replicas);
                AlterPlan {
                    replicas: target_then(target, &removing),
                    adding: Some(sorted_difference(target, &previous_target)),
                    removing: Some(removing),
                    drop_now: Vec::new(),
                }
            }
            Derivation::TransientsTracked => {
                // Transients are kept in adding, so replicas − adding is O.
                let original = without(current, &part.adding_replicas);
                let mut adding = sorted_difference(target, &original);
                adding.extend(sorted_difference(&part.adding_replicas, target));
                adding.sort_unstable();
                AlterPlan {
                    replicas: target_then(target, &removing),
                    adding: Some(adding),
                    removing: Some(removing),
                    drop_now: Vec::new(),
                }
            }
        }
    }

    /// The (adding, removing) sets the completion test and RF guard look at.
    pub fn effective_sets<'a>(
        self,
        adding: &'a [BrokerId],
        removing: &'a [BrokerId],
    ) -> (
        std::borrow::Cow<'a, [BrokerId]>,
        std::borrow::Cow<'a, [BrokerId]>,
    ) {
        use std::borrow::Cow;
        if self == Derivation::TransientsTracked {
            (
                Cow::Owned(without(adding, removing)),
                Cow::Owned(without(removing, adding)),
            )
        } else {
            (Cow::Borrowed(adding), Cow::Borrowed(removing))
        }
    }

    /// Whether a replica may be in both adding and removing by design.
    pub fn tracks_transients(self) -> bool {
        self == Derivation::TransientsTracked
    }
}

#[cfg(test)]
mod tests {
    //! The worked derivations of docs/model/reassignment.md#worked-derivations (start: replicas
    //! [1,2,3], in flight [1,2,4] = replicas [1,2,4,3], adding [4], removing [3]), one
    //! row per override, every variant side by side. `-` means "setter not called".
    use super::*;
    use crate::model::event::Ids;
    use crate::model::{LeaderRecoveryState, Partition};
    use expect_test::{expect, Expect};

    fn in_flight() -> Partition {
        Partition {
            replicas: vec![1, 2, 4, 3].into(),
            isr: vec![1, 2, 3].into(),
            adding_replicas: vec![4].into(),
            removing_replicas: vec![3].into(),
            leader: 1,
            leader_epoch: 0,
            partition_epoch: 1,
            leader_recovery_state: LeaderRecoveryState::Recovered,
            unclean_leader_election_enable: false,
            diskless: false,
            remote_storage: false,
            seal: -1,
            diskless_leader_epoch: -1,
            min_insync_replicas: 1,
            topic_replication_factor: 4,
            elr: Default::default(),
            last_known_elr: Default::default(),
            dirs: vec![-1; 4].into(),
        }
    }

    fn check(target: &[i32], expect: Expect) {
        let part = in_flight();
        let opt = |v: &Option<Vec<i32>>| v.as_ref().map_or("-".to_string(), |v| Ids(v).to_string());
        let rows: Vec<String> = Derivation::ALL
            .iter()
            .map(|d| {
                let plan = d.plan(&part, target);
                format!(
                    "{d:?}: replicas={} adding={} removing={} drop={}",
                    Ids(&plan.replicas),
                    opt(&plan.adding),
                    opt(&plan.removing),
                    Ids(&plan.drop_now)
                )
            })
            .collect();
        expect.assert_eq(&(rows.join("\n") + "\n"));
    }

    #[test]
    fn override_that_adds_more() {
        check(
            &[1, 2, 4, 5],
            expect![[r#"
                Trunk: replicas=[1,2,4,5,3] adding=[5] removing=[3] drop=[]
                Kafka21419: replicas=[1,2,4,5,3] adding=[4,5] removing=[3] drop=[]
                Kafka21419AlwaysWrite: replicas=[1,2,4,5,3] adding=[4,5] removing=[3] drop=[]
                ZkStyle: replicas=[1,2,4,5,3] adding=[4,5] removing=[3] drop=[]
                TransientsTracked: replicas=[1,2,4,5,3] adding=[4,5] removing=[3] drop=[]
                PreviousTarget: replicas=[1,2,4,5,3] adding=[5] removing=[3] drop=[]
            "#]],
        );
    }

    #[test]
    fn override_back_to_the_original() {
        check(
            &[1, 2, 3],
            expect![[r#"
                Trunk: replicas=[1,2,3,4] adding=- removing=[4] drop=[]
                Kafka21419: replicas=[1,2,3,4] adding=- removing=[4] drop=[]
                Kafka21419AlwaysWrite: replicas=[1,2,3,4] adding=[] removing=[4] drop=[]
                ZkStyle: replicas=[1,2,3] adding=[] removing=[] drop=[4]
                TransientsTracked: replicas=[1,2,3,4] adding=[4] removing=[4] drop=[]
                PreviousTarget: replicas=[1,2,3,4] adding=[3] removing=[4] drop=[]
            "#]],
        );
    }

    #[test]
    fn override_that_raises_rf() {
        check(
            &[1, 2, 3, 4],
            expect![[r#"
                Trunk: replicas=[1,2,3,4] adding=- removing=- drop=[]
                Kafka21419: replicas=[1,2,3,4] adding=[4] removing=- drop=[]
                Kafka21419AlwaysWrite: replicas=[1,2,3,4] adding=[4] removing=[] drop=[]
                ZkStyle: replicas=[1,2,3,4] adding=[4] removing=[] drop=[]
                TransientsTracked: replicas=[1,2,3,4] adding=[4] removing=[] drop=[]
                PreviousTarget: replicas=[1,2,3,4] adding=[3] removing=[] drop=[]
            "#]],
        );
    }

    #[test]
    fn override_that_drops_a_still_adding_replica() {
        check(
            &[1, 2, 5],
            expect![[r#"
                Trunk: replicas=[1,2,5,3,4] adding=[5] removing=[3,4] drop=[]
                Kafka21419: replicas=[1,2,5,3,4] adding=[5] removing=[3,4] drop=[]
                Kafka21419AlwaysWrite: replicas=[1,2,5,3,4] adding=[5] removing=[3,4] drop=[]
                ZkStyle: replicas=[1,2,5,3] adding=[5] removing=[3] drop=[4]
                TransientsTracked: replicas=[1,2,5,3,4] adding=[4,5] removing=[3,4] drop=[]
                PreviousTarget: replicas=[1,2,5,3,4] adding=[5] removing=[3,4] drop=[]
            "#]],
        );
    }

    #[test]
    fn override_that_lowers_rf() {
        check(
            &[1, 4],
            expect![[r#"
                Trunk: replicas=[1,4,2,3] adding=- removing=[2,3] drop=[]
                Kafka21419: replicas=[1,4,2,3] adding=[4] removing=[2,3] drop=[]
                Kafka21419AlwaysWrite: replicas=[1,4,2,3] adding=[4] removing=[2,3] drop=[]
                ZkStyle: replicas=[1,4,2,3] adding=[4] removing=[2,3] drop=[]
                TransientsTracked: replicas=[1,4,2,3] adding=[4] removing=[2,3] drop=[]
                PreviousTarget: replicas=[1,4,2,3] adding=[] removing=[2,3] drop=[]
            "#]],
        );
    }

    #[test]
    fn effective_sets_only_differ_for_design_b() {
        for d in Derivation::ALL {
            let (a, m) = d.effective_sets(&[4, 5], &[3, 4]);
            if d.tracks_transients() {
                assert_eq!((&*a, &*m), (&[5][..], &[3][..]));
            } else {
                assert_eq!((&*a, &*m), (&[4, 5][..], &[3, 4][..]));
            }
        }
    }
}
