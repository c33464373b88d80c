//! Rule `derivation`: how an alter-reassignment call derives `replicas`, `adding_replicas`
//! and `removing_replicas` from the current registration and the target, and whether it
//! writes empty sets. Spec: kafka-reassignment.md §2.
//!
//! Each variant's doc names what it mirrors. Upstream for `trunk`:
//! metadata/src/main/java/org/apache/kafka/controller/PartitionReassignmentReplicas.java
//! (constructor) and ReplicationControlManager.changePartitionReassignment (the
//! keep-if-empty setter guards), apache trunk d79bd502ec, unchanged since KAFKA-12803 (3.0).

use crate::model::{sorted_difference, without, BrokerId, Partition};

#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Derivation {
    /// `trunk`: adding = target − replicas and removing = replicas − target, both against
    /// the *current* replicas (which already hold in-flight adding replicas); an empty derived
    /// set keeps the old one. KAFKA-21419: an override promotes still-adding replicas.
    Trunk,
    /// `kafka-21419`: the fix the report proposes, adding = target − (replicas − adding),
    /// with upstream's keep-if-empty guards left in place.
    Kafka21419,
    /// `kafka-21419-always-write`: the proposed fix plus always writing both sets, even when
    /// empty (spec §2.3, the required companion). Still fails on drop-then-re-add.
    Kafka21419AlwaysWrite,
    /// `zk-style`, design A (spec §2.3): like the ZooKeeper controller's
    /// `ReplicaAssignment.reassignTo` (core/.../ControllerContext.scala, apache 1eb7644349):
    /// on override, drop transients (old adding replicas not in the new target) from the
    /// replicas and the ISR at once; adding = target − O, removing = O − target.
    ZkStyle,
    /// `transients-tracked`, design B (spec §2.3): transients stay in both adding and
    /// removing; completion works on adding − removing and removing − adding.
    TransientsTracked,
}

/// What `changePartitionReassignment` hands the builder. `None`: setter not called
/// (the builder keeps the current value).
pub struct AlterPlan {
    pub replicas: Vec<BrokerId>,
    pub adding: Option<Vec<BrokerId>>,
    pub removing: Option<Vec<BrokerId>>,
    /// Replicas to drop from the replica list and ISR right away (design A's transients).
    pub drop_now: Vec<BrokerId>,
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
    pub const ALL: [Derivation; 5] = [
        Derivation::Trunk,
        Derivation::Kafka21419,
        Derivation::Kafka21419AlwaysWrite,
        Derivation::ZkStyle,
        Derivation::TransientsTracked,
    ];

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
