//! Every property isrfuzz checks, in one list. Each entry has an id, a kind, a one-line
//! statement, a rationale and a source; `isrfuzz invariants` prints them.
//!
//! Kinds (stateright's always / eventually / sometimes):
//! - `Always`: checked after every step of every side.
//! - `EventuallyAtQuiescence`: checked once after the history, when the harness has healed
//!   the cluster (every broker back, every replica caught up; see `oracle::heal`).
//! - `Sometimes`: a vacuity check; counted over a run so that a generator that stops
//!   reaching a state is noticed. Never a violation.
//!
//! Ghost values: O = `Ghost::original`, T = `Ghost::target` (spec kafka-reassignment.md §4.1).
//! "At completion" means the step's change record completed the reassignment; the builder
//! reports it in `PartitionEffect::completion`.

use crate::model::event::Ids;
use crate::model::{
    contains_all, has_duplicates, same_set, without, Cluster, Event, Ghost, Outcome, Partition,
    NO_LEADER,
};
use crate::rules::RuleSet;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    Always,
    EventuallyAtQuiescence,
    Sometimes,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Always => "always",
            Kind::EventuallyAtQuiescence => "eventually-at-quiescence",
            Kind::Sometimes => "sometimes",
        }
    }
}

/// One step as the invariants see it.
pub struct StepView<'a> {
    pub prev: &'a Cluster,
    pub next: &'a Cluster,
    pub event: &'a Event,
    pub outcome: &'a Outcome,
    pub rules: &'a RuleSet,
}

pub enum Check {
    /// `Some(detail)` when violated.
    Step(fn(&StepView) -> Option<String>),
    Quiescent(fn(&Cluster, &RuleSet) -> Option<String>),
    /// `true` when the interesting thing happened in this step.
    Sometimes(fn(&StepView) -> bool),
}

pub struct Invariant {
    pub id: &'static str,
    pub kind: Kind,
    pub statement: &'static str,
    pub rationale: &'static str,
    pub source: &'static str,
    pub check: Check,
}

pub fn by_id(id: &str) -> Option<&'static Invariant> {
    INVARIANTS.iter().find(|i| i.id == id)
}

pub static INVARIANTS: &[Invariant] = &[
    Invariant {
        id: "S0",
        kind: Kind::Always,
        statement: "replicas ≠ ∅, ISR ≠ ∅, no duplicates in any list, ISR ⊆ replicas, leader ∈ ISR ∪ {-1}",
        rationale: "The registration's own shape. Brokers trust it blindly: a leader outside the ISR or an ISR member that is not a replica makes every other property meaningless, so this one guards the model as much as the rules.",
        source: "spec kafka-reassignment.md §4.2 S0; Replicas.validateIsr; PartitionChangeBuilder.isValidNewLeader",
        check: Check::Step(s0_shape),
    },
    Invariant {
        id: "S1",
        kind: Kind::Always,
        statement: "adding ⊆ replicas, removing ⊆ replicas, adding ∩ removing = ∅ (design B: the overlap holds no original replica)",
        rationale: "PartitionRegistration does not enforce these, they are conventions every reader relies on. A replica in both lists can never satisfy the completion test (it is removed from I' but required in it), so the reassignment is stuck: spec history 3.",
        source: "spec §4.2 S1, §4.3 history 3; PartitionRegistration (no enforcement)",
        check: Check::Step(s1_lists),
    },
    Invariant {
        id: "S2",
        kind: Kind::Always,
        statement: "reassigning ⇔ adding ∪ removing ≠ ∅ ⇔ listed by ListPartitionReassignments",
        rationale: "The reassigning index is maintained on replay, separately from the lists; `--list` and `--verify` read the index. If the two drift, tooling declares a reassignment done while it is not, or lists a finished one forever.",
        source: "spec §1.1, §4.2 S2; ReplicationControlManager.updateReassigningTopicsIfNeeded, listPartitionReassignments",
        check: Check::Step(s2_listing),
    },
    Invariant {
        id: "S3",
        kind: Kind::Always,
        statement: "partition_epoch rises on every change and only then; leader_epoch never falls and rises whenever a replica leaves or the leader changes",
        rationale: "Brokers fence stale leaders and stale AlterPartition requests by these epochs. A removal without a leader-epoch bump lets a removed replica keep acting on the old assignment.",
        source: "spec §1.6, §4.2 S3; PartitionRegistration.merge; PartitionChangeBuilder.triggerLeaderEpochBumpForReplicaReassignmentIfNeeded",
        check: Check::Step(s3_epochs),
    },
    Invariant {
        id: "G1",
        kind: Kind::Always,
        statement: "while reassigning: T ∪ O ⊆ set(replicas) ⊆ T ∪ O ∪ (every target of the chain), and set(replicas) − removing = T",
        rationale: "What stays after completion must be exactly what the operator asked for last. Keeping an old removing set when the new one is empty (the RF-up override, spec history 4) breaks the second half.",
        source: "spec §4.2 G1, §4.3 history 4",
        check: Check::Step(g1_composition),
    },
    Invariant {
        id: "G2",
        kind: Kind::Always,
        statement: "list completeness: while reassigning, (replicas − removing) − O ⊆ adding",
        rationale: "Every non-original replica that will survive completion must be reported as adding, or `--list`, throttles and under-replication accounting treat it as caught up. This is KAFKA-21419's first symptom (history 1, step 2) and the drop-then-re-add hole of its proposed fix (history 5).",
        source: "spec §4.2 G2, §4.3 histories 1 and 5; KAFKA-21419 report",
        check: Check::Step(g2_list_completeness),
    },
    Invariant {
        id: "G3",
        kind: Kind::Always,
        statement: "while reassigning: adding ∩ O = ∅",
        rationale: "An original replica reported as adding would be removed by a cancel (revert drops adding replicas), losing a replica the partition had before the reassignment.",
        source: "spec §4.2 G3; PartitionReassignmentRevert",
        check: Check::Step(g3_adding_not_original),
    },
    Invariant {
        id: "G4",
        kind: Kind::Always,
        statement: "target fidelity: at completion, set(replicas) = T",
        rationale: "The operator's last target is what the partition must end on. The keep-old-removing rule drops a replica the target still names (history 4).",
        source: "spec §4.2 G4, §4.3 history 4",
        check: Check::Step(g4_target_fidelity),
    },
    Invariant {
        id: "G5",
        kind: Kind::Always,
        statement: "safe completion: at completion, T − O ⊆ ISR (the ISR completion was decided on, see F1)",
        rationale: "No newly added replica may be declared done while out of sync: KAFKA-21419 ends with replicas [1,2,4,5] and ISR [1,2,5], the removed replica 3 already gone.",
        source: "spec §4.2 G5, §4.3 history 1; KAFKA-21419 report",
        check: Check::Step(g5_safe_completion),
    },
    Invariant {
        id: "G6",
        kind: Kind::Always,
        statement: "cancel restores: after an accepted cancel, set(replicas) = O",
        rationale: "Cancel must return the partition to where it was before the chain of alter calls. Promoted replicas (history 2) and transients (history 5) survive the revert.",
        source: "spec §4.2 G6, §4.3 histories 2 and 5; PartitionReassignmentRevert",
        check: Check::Step(g6_cancel_restores),
    },
    Invariant {
        id: "G7",
        kind: Kind::Always,
        statement: "liveness, one step: if reassigning, T ⊆ ISR and ISR − removing ≠ ∅, the next change completes it",
        rationale: "Once every target replica is in sync nothing should hold the reassignment open. Checked by running the completion rule on the current state, which is what any next build does first.",
        source: "spec §4.2 G7, §4.3 history 3",
        check: Check::Step(g7_one_step_liveness),
    },
    Invariant {
        id: "G8",
        kind: Kind::Always,
        statement: "RF guard: if |T| < |O| at completion, T ⊆ ISR (the ISR completion was decided on, see F1)",
        rationale: "KAFKA-19975 allows out-of-ISR survivors, except when the replication factor drops: then every survivor must be in sync, or the partition ends with fewer in-sync copies than it started with.",
        source: "spec §3.1, §4.2 G8; PartitionReassignmentReplicas.maybeCompleteReassignment (3d267d4536)",
        check: Check::Step(g8_rf_guard),
    },
    Invariant {
        id: "G9",
        kind: Kind::Always,
        statement: "the completion record drops exactly removing from replicas and ISR, clears both lists, and leaves leader ∈ ISR ∪ {-1}",
        rationale: "Completion must not reorder, add or lose anything but the removing replicas, and must demote a removing leader (testStoppedLeaderIsDemotedAfterReassignmentCompletesEvenIfNoNewEligibleLeaders).",
        source: "spec §3.2, §4.2 G9; PartitionChangeBuilder.completeReassignmentIfNeeded",
        check: Check::Step(g9_completion_record),
    },
    Invariant {
        id: "E1",
        kind: Kind::EventuallyAtQuiescence,
        statement: "once every broker is back and every replica is in the ISR, no reassignment is in progress",
        rationale: "A reassignment that never finishes with a fully healthy cluster blocks the operator's next change and keeps throttles on forever (the stuck override back to the original, history 3).",
        source: "spec §4.3 history 3, §5 (override back to the original)",
        check: Check::Quiescent(e1_quiescent_completion),
    },
    Invariant {
        id: "V1",
        kind: Kind::Sometimes,
        statement: "an alter call overrode a reassignment in progress",
        rationale: "KAFKA-21419 and every hole after it need an override; a generator that stops producing them proves nothing.",
        source: "spec §2.1",
        check: Check::Sometimes(v1_override),
    },
    Invariant {
        id: "V2",
        kind: Kind::Sometimes,
        statement: "a reassignment completed",
        rationale: "G4, G5, G8 and G9 only bite at completion.",
        source: "spec §3",
        check: Check::Sometimes(v2_completed),
    },
    Invariant {
        id: "V3",
        kind: Kind::Sometimes,
        statement: "a cancel was accepted",
        rationale: "G6 only bites on cancel.",
        source: "spec §1.3",
        check: Check::Sometimes(v3_cancelled),
    },
    Invariant {
        id: "V4",
        kind: Kind::Sometimes,
        statement: "a partition's leader changed",
        rationale: "Elections inside completion, fencing and ElectLeaders are where leader-related rules differ.",
        source: "spec §1.5",
        check: Check::Sometimes(v4_leader_changed),
    },
    Invariant {
        id: "V5",
        kind: Kind::Sometimes,
        statement: "a partition's ISR shrank",
        rationale: "Out-of-sync replicas are what make an early completion unsafe.",
        source: "spec §1.3",
        check: Check::Sometimes(v5_isr_shrank),
    },
    Invariant {
        id: "V6",
        kind: Kind::Sometimes,
        statement: "a request was rejected",
        rationale: "Validation paths are exercised on purpose; a generator that never hits them leaves the error codes untested.",
        source: "spec §1.4",
        check: Check::Sometimes(v6_rejected),
    },
    Invariant {
        id: "V7",
        kind: Kind::Sometimes,
        statement: "a transient exists: a replica in removing that is not original",
        rationale: "The drop-then-re-add hole of the proposed fix needs a transient.",
        source: "spec §2.3",
        check: Check::Sometimes(v7_transient),
    },
    Invariant {
        id: "V8",
        kind: Kind::Sometimes,
        statement: "a reassignment completed in a record whose election was unclean",
        rationale: "The corner docs/findings.md F1 describes: G5 and G8 judge the ISR completion was decided on, which the unclean election then replaces. Counted so that the exemption is seen to be exercised.",
        source: "docs/findings.md F1; PartitionChangeBuilder.build (completion before tryElection)",
        check: Check::Sometimes(v8_unclean_completion),
    },
];

/// Apply `check` to every partition that exists after the step.
fn each_partition(
    s: &StepView,
    check: impl Fn(usize, Option<&Partition>, &Partition, &Ghost) -> Option<String>,
) -> Option<String> {
    s.next.partitions.iter().enumerate().find_map(|(i, next)| {
        check(i, s.prev.partitions.get(i), next, &s.next.ghosts[i]).map(|d| format!("p{i}: {d}"))
    })
}

fn s0_shape(s: &StepView) -> Option<String> {
    each_partition(s, |_, _, p, _| {
        if p.replicas.is_empty() || p.isr.is_empty() {
            return Some(format!(
                "empty replicas {} or isr {}",
                Ids(&p.replicas),
                Ids(&p.isr)
            ));
        }
        let lists = [
            &p.replicas,
            &p.isr,
            &p.adding_replicas,
            &p.removing_replicas,
        ];
        if lists.iter().any(|l| has_duplicates(l)) {
            return Some("a list holds a broker twice".to_string());
        }
        if !contains_all(&p.replicas, &p.isr) {
            return Some(format!(
                "isr {} ⊄ replicas {}",
                Ids(&p.isr),
                Ids(&p.replicas)
            ));
        }
        if p.leader != NO_LEADER && !p.isr.contains(&p.leader) {
            return Some(format!("leader {} ∉ isr {}", p.leader, Ids(&p.isr)));
        }
        None
    })
}

fn s1_lists(s: &StepView) -> Option<String> {
    let transients_allowed = s.rules.derivation.tracks_transients();
    each_partition(s, |_, _, p, g| {
        if !contains_all(&p.replicas, &p.adding_replicas)
            || !contains_all(&p.replicas, &p.removing_replicas)
        {
            return Some(format!(
                "adding {} or removing {} ⊄ replicas {}",
                Ids(&p.adding_replicas),
                Ids(&p.removing_replicas),
                Ids(&p.replicas)
            ));
        }
        let both: Vec<_> = p
            .adding_replicas
            .iter()
            .copied()
            .filter(|r| p.removing_replicas.contains(r))
            .collect();
        let bad = if transients_allowed {
            both.iter().any(|r| g.original.contains(r))
        } else {
            !both.is_empty()
        };
        bad.then(|| {
            format!(
                "adding {} ∩ removing {} = {}",
                Ids(&p.adding_replicas),
                Ids(&p.removing_replicas),
                Ids(&both)
            )
        })
    })
}

fn s2_listing(s: &StepView) -> Option<String> {
    let truth: Vec<usize> = (0..s.next.partitions.len())
        .filter(|&i| s.next.partitions[i].is_reassigning())
        .collect();
    if s.next.reassigning != truth {
        return Some(format!(
            "index lists {:?} but reassigning are {:?}",
            s.next.reassigning, truth
        ));
    }
    if let Outcome::Accepted {
        listed: Some(listed),
        ..
    } = s.outcome
    {
        if *listed != truth {
            return Some(format!(
                "ListPartitionReassignments gave {listed:?} but reassigning are {truth:?}"
            ));
        }
    }
    None
}

fn s3_epochs(s: &StepView) -> Option<String> {
    each_partition(s, |_, prev, p, _| {
        let prev = prev?;
        let changed = prev != p;
        if changed != (p.partition_epoch > prev.partition_epoch)
            || p.partition_epoch < prev.partition_epoch
        {
            return Some(format!(
                "partition_epoch {} → {} (changed: {changed})",
                prev.partition_epoch, p.partition_epoch
            ));
        }
        let must_bump = !contains_all(&p.replicas, &prev.replicas) || p.leader != prev.leader;
        if p.leader_epoch < prev.leader_epoch || (must_bump && p.leader_epoch == prev.leader_epoch)
        {
            return Some(format!(
                "leader_epoch {} → {} (replica left or leader moved: {must_bump})",
                prev.leader_epoch, p.leader_epoch
            ));
        }
        None
    })
}

fn g1_composition(s: &StepView) -> Option<String> {
    each_partition(s, |_, _, p, g| {
        if !p.is_reassigning() {
            return None;
        }
        let known =
            |r: &i32| g.target.contains(r) || g.original.contains(r) || g.ever_targeted.contains(r);
        let lower_ok =
            contains_all(&p.replicas, &g.target) && contains_all(&p.replicas, &g.original);
        if !lower_ok || !p.replicas.iter().all(known) {
            return Some(format!(
                "replicas {} vs T {} O {}",
                Ids(&p.replicas),
                Ids(&g.target),
                Ids(&g.original)
            ));
        }
        let surviving = without(&p.replicas, &p.removing_replicas);
        (!same_set(&surviving, &g.target)).then(|| {
            format!(
                "replicas − removing = {} but T = {}",
                Ids(&surviving),
                Ids(&g.target)
            )
        })
    })
}

fn g2_list_completeness(s: &StepView) -> Option<String> {
    each_partition(s, |_, _, p, g| {
        if !p.is_reassigning() {
            return None;
        }
        let surviving_new = without(&without(&p.replicas, &p.removing_replicas), &g.original);
        let missing = without(&surviving_new, &p.adding_replicas);
        (!missing.is_empty()).then(|| {
            format!(
                "{} will survive, is not original {} and is not in adding {}",
                Ids(&missing),
                Ids(&g.original),
                Ids(&p.adding_replicas)
            )
        })
    })
}

fn g3_adding_not_original(s: &StepView) -> Option<String> {
    each_partition(s, |_, _, p, g| {
        let both: Vec<_> = p
            .adding_replicas
            .iter()
            .copied()
            .filter(|r| g.original.contains(r))
            .collect();
        (p.is_reassigning() && !both.is_empty()).then(|| {
            format!(
                "adding {} holds original replicas {}",
                Ids(&p.adding_replicas),
                Ids(&both)
            )
        })
    })
}

/// Apply `check` to every partition whose reassignment completed in this step. The ISR
/// handed to `check` is the one completion was decided on: the record's ISR, except when
/// the same record's election was unclean, which forcibly resets the ISR to the new leader
/// afterwards (PartitionChangeBuilder.tryElection). That reset is the data loss the topic
/// opted into, not a completion decision; see docs/findings.md F1.
fn each_completion(
    s: &StepView,
    check: impl Fn(&Partition, &[i32], &Ghost) -> Option<String>,
) -> Option<String> {
    s.outcome.effects().iter().find_map(|e| {
        let info = e.completion.as_ref()?;
        let i = e.partition;
        let p = &s.next.partitions[i];
        let decided_isr = if e.unclean_election {
            without(&info.isr_before, &info.removing)
        } else {
            p.isr.clone()
        };
        check(p, &decided_isr, &s.next.ghosts[i]).map(|d| format!("p{i}: {d}"))
    })
}

fn g4_target_fidelity(s: &StepView) -> Option<String> {
    each_completion(s, |p, _, g| {
        (!same_set(&p.replicas, &g.target)).then(|| {
            format!(
                "completed with replicas {} but T = {}",
                Ids(&p.replicas),
                Ids(&g.target)
            )
        })
    })
}

fn g5_safe_completion(s: &StepView) -> Option<String> {
    each_completion(s, |p, isr, g| {
        let out = without(&without(&g.target, &g.original), isr);
        (!out.is_empty()).then(|| {
            format!(
                "completed with new replicas {} out of isr {} (replicas {})",
                Ids(&out),
                Ids(isr),
                Ids(&p.replicas)
            )
        })
    })
}

fn g6_cancel_restores(s: &StepView) -> Option<String> {
    let Event::CancelReassignment { partition } = *s.event else {
        return None;
    };
    if s.outcome.is_rejected() {
        return None;
    }
    let p = &s.next.partitions[partition];
    let g = &s.next.ghosts[partition];
    (!same_set(&p.replicas, &g.original)).then(|| {
        format!(
            "p{partition}: cancel left replicas {} but O = {}",
            Ids(&p.replicas),
            Ids(&g.original)
        )
    })
}

fn g7_one_step_liveness(s: &StepView) -> Option<String> {
    each_partition(s, |_, _, p, g| {
        let ready = p.is_reassigning()
            && contains_all(&p.isr, &g.target)
            && !without(&p.isr, &p.removing_replicas).is_empty();
        let completes = || {
            s.rules
                .maybe_complete(
                    &p.replicas,
                    &p.isr,
                    &p.adding_replicas,
                    &p.removing_replicas,
                )
                .is_some()
        };
        (ready && !completes()).then(|| {
            format!(
                "T {} ⊆ isr {} yet adding {} removing {} never completes",
                Ids(&g.target),
                Ids(&p.isr),
                Ids(&p.adding_replicas),
                Ids(&p.removing_replicas)
            )
        })
    })
}

fn g8_rf_guard(s: &StepView) -> Option<String> {
    each_completion(s, |_, isr, g| {
        let shrinking = g.target.len() < g.original.len();
        (shrinking && !contains_all(isr, &g.target)).then(|| {
            format!(
                "RF {} → {} completed with isr {} ⊉ T {}",
                g.original.len(),
                g.target.len(),
                Ids(isr),
                Ids(&g.target)
            )
        })
    })
}

fn g9_completion_record(s: &StepView) -> Option<String> {
    s.outcome.effects().iter().find_map(|e| {
        let info = e.completion.as_ref()?;
        let p = &s.next.partitions[e.partition];
        let replicas = without(&info.replicas_before, &info.removing);
        let isr = if e.unclean_election {
            vec![p.leader]
        } else {
            without(&info.isr_before, &info.removing)
        };
        let lists_clear = p.adding_replicas.is_empty() && p.removing_replicas.is_empty();
        let leader_ok = p.leader == NO_LEADER || p.isr.contains(&p.leader);
        (p.replicas != replicas || p.isr != isr || !lists_clear || !leader_ok).then(|| {
            format!(
                "p{}: record has replicas {} isr {} leader {}, expected replicas {} isr {}",
                e.partition,
                Ids(&p.replicas),
                Ids(&p.isr),
                p.leader,
                Ids(&replicas),
                Ids(&isr)
            )
        })
    })
}

fn e1_quiescent_completion(c: &Cluster, _: &RuleSet) -> Option<String> {
    c.partitions
        .iter()
        .enumerate()
        .find(|(_, p)| p.is_reassigning())
        .map(|(i, p)| {
            format!(
                "p{i} still reassigning after healing: replicas {} isr {} adding {} removing {}",
                Ids(&p.replicas),
                Ids(&p.isr),
                Ids(&p.adding_replicas),
                Ids(&p.removing_replicas)
            )
        })
}

fn v1_override(s: &StepView) -> bool {
    matches!(*s.event, Event::Reassign { partition, .. }
        if !s.outcome.is_rejected() && s.prev.partitions.get(partition).is_some_and(Partition::is_reassigning))
}

fn v2_completed(s: &StepView) -> bool {
    s.outcome.effects().iter().any(|e| e.completion.is_some())
}

fn v3_cancelled(s: &StepView) -> bool {
    matches!(s.event, Event::CancelReassignment { .. }) && !s.outcome.is_rejected()
}

fn v4_leader_changed(s: &StepView) -> bool {
    s.prev
        .partitions
        .iter()
        .zip(&s.next.partitions)
        .any(|(a, b)| a.leader != b.leader)
}

fn v5_isr_shrank(s: &StepView) -> bool {
    s.prev
        .partitions
        .iter()
        .zip(&s.next.partitions)
        .any(|(a, b)| !contains_all(&b.isr, &a.isr))
}

fn v6_rejected(s: &StepView) -> bool {
    s.outcome.is_rejected()
}

fn v7_transient(s: &StepView) -> bool {
    s.next.partitions.iter().zip(&s.next.ghosts).any(|(p, g)| {
        p.is_reassigning() && p.removing_replicas.iter().any(|r| !g.original.contains(r))
    })
}

fn v8_unclean_completion(s: &StepView) -> bool {
    s.outcome
        .effects()
        .iter()
        .any(|e| e.completion.is_some() && e.unclean_election)
}
