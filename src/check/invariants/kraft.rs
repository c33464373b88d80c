//! Checks of the KRaft reassignment properties: the registration's shape and epochs
//! (S0–S3), the reassignment lists against the ghost original and target (G1–G9), the
//! quiescence property E1 and the vacuity counters V1–V8. The entries that name these
//! checks are in the one list in `mod.rs`.

use super::fetcher::stuck_fetcher_suffix;
use super::{PartView, StepView};
use crate::model::broker::lost_prefix;
use crate::model::event::Ids;
use crate::model::{
    contains_all, has_duplicates, same_set, without, Cluster, Event, Ghost, LeaderRecoveryState,
    Outcome, Partition, NO_LEADER,
};
use crate::rules::RuleSet;

pub(super) fn s0_shape(v: &PartView) -> Option<String> {
    let p = v.partition;
    // With ELR on the ISR may be empty (docs/model/reassignment.md#s0).
    if p.replicas.is_empty() || (p.isr.is_empty() && !v.scope.elr) {
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
}

pub(super) fn s1_lists(v: &PartView, rules: &RuleSet) -> Option<String> {
    let transients_allowed = rules.derivation.tracks_transients();
    let (p, g) = (v.partition, v.ghost);
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
}

pub(super) fn s2_listing(s: &StepView) -> Option<String> {
    // Compared as iterators first: the list is built only to describe a violation.
    let reassigning =
        || (0..s.next.partitions.len()).filter(|&i| s.next.partitions[i].is_reassigning());
    let index_ok = s.next.reassigning.iter().copied().eq(reassigning());
    let listed_ok = match s.outcome {
        Outcome::Accepted {
            listed: Some(listed),
            ..
        } => listed.iter().copied().eq(reassigning()),
        _ => true,
    };
    if index_ok && listed_ok {
        return None;
    }
    let truth: Vec<usize> = reassigning().collect();
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

pub(super) fn s3_epochs(s: &StepView) -> Option<String> {
    let pairs = s.prev.partitions.iter().zip(&s.next.partitions);
    pairs
        .enumerate()
        .find_map(|(i, (prev, p))| s3_partition(prev, p).map(|d| format!("p{i}: {d}")))
}

/// S3 on one partition before and after the step.
fn s3_partition(prev: &Partition, p: &Partition) -> Option<String> {
    // The topic configs (and the topic's replication factor) held on the model's partition
    // are not the registration's: a config change writes a ConfigRecord, not a partition
    // record.
    let changed = prev != p && !configs_only(prev, p);
    if changed != (p.partition_epoch > prev.partition_epoch)
        || p.partition_epoch < prev.partition_epoch
    {
        return Some(format!(
            "partition_epoch {} → {} (changed: {changed})",
            prev.partition_epoch, p.partition_epoch
        ));
    }
    let must_bump = !contains_all(&p.replicas, &prev.replicas) || p.leader != prev.leader;
    if p.leader_epoch < prev.leader_epoch || (must_bump && p.leader_epoch == prev.leader_epoch) {
        return Some(format!(
            "leader_epoch {} → {} (replica left or leader moved: {must_bump})",
            prev.leader_epoch, p.leader_epoch
        ));
    }
    None
}

/// The two differ in the topic's `min.insync.replicas` or unclean setting alone.
fn configs_only(prev: &Partition, p: &Partition) -> bool {
    let mut same = prev.clone();
    same.min_insync_replicas = p.min_insync_replicas;
    same.unclean_leader_election_enable = p.unclean_leader_election_enable;
    // Another partition's reassignment (the topic's partition 0) moves this one's cap.
    same.topic_replication_factor = p.topic_replication_factor;
    same == *p
}

pub(super) fn g1_composition(v: &PartView) -> Option<String> {
    let (p, g) = (v.partition, v.ghost);
    if !p.is_reassigning() {
        return None;
    }
    let known =
        |r: &i32| g.target.contains(r) || g.original.contains(r) || g.ever_targeted.contains(r);
    let lower_ok = contains_all(&p.replicas, &g.target) && contains_all(&p.replicas, &g.original);
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
}

pub(super) fn g2_list_completeness(v: &PartView) -> Option<String> {
    let (p, g) = (v.partition, v.ghost);
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
}

pub(super) fn g3_adding_not_original(v: &PartView) -> Option<String> {
    let (p, g) = (v.partition, v.ghost);
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
}

/// How a reassignment ended (docs/model/reassignment.md#ends).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum How {
    /// The change builder's completion, in a record of this step's event.
    Completion,
    /// The builder's completion in an AlterPartition the broker side sent during the step
    /// (an ISR expansion after a fetch, or the ISR-expiration task's shrink).
    BrokerCompletion,
    /// A record that cleared adding and removing without the completion test (an
    /// override whose derivation wrote both lists empty).
    Cleared,
}

impl How {
    fn describe(self) -> &'static str {
        match self {
            How::Completion => "completion",
            How::BrokerCompletion => "completed by an AlterPartition of the broker side",
            How::Cleared => "ended by a record that cleared adding and removing",
        }
    }
}

/// A reassignment that ended in this step, other than by an accepted cancel (`ends`),
/// as the at-end checks (`Check::AtEnd`) see it: the partition as its end left it, its
/// ghost, and the ISR the end was decided on. `None` for that ISR: the end's election was
/// unclean and the ISR before it cannot be told; only the checks that need no ISR judge it
/// (docs/model/reassignment.md#ends).
pub struct End<'a> {
    pub partition: usize,
    pub record: &'a Partition,
    pub isr: Option<Vec<i32>>,
    pub how: How,
    pub ghost: &'a Ghost,
}

impl End<'_> {
    /// A check's detail on this end, with the partition and, unless it is the builder's
    /// completion, how the reassignment ended.
    pub fn describe(&self, detail: String) -> String {
        let i = self.partition;
        match self.how {
            How::Completion => format!("p{i}: {detail}"),
            how => format!("p{i}: {detail} ({})", how.describe()),
        }
    }
}

/// Every reassignment that ended in this step other than by an accepted cancel: the
/// completions the builder reported, then every partition that was reassigning before the
/// step, is not after it, and has neither a reported completion nor an accepted cancel.
/// For a reported completion the ISR is the one completion was decided on: the record's
/// ISR, except when the same record's election was unclean, which forcibly resets the ISR
/// to the new leader afterwards (PartitionChangeBuilder.tryElection). That reset is the
/// data loss the topic opted into, not a completion decision; see docs/findings.md F1.
pub(super) fn ends<'a>(s: &StepView<'a>, rules: &RuleSet) -> Vec<End<'a>> {
    let mut out: Vec<End<'a>> = Vec::new();
    for e in s.outcome.effects() {
        let Some(info) = e.completion.as_ref() else {
            continue;
        };
        let isr = if e.unclean_election {
            without(&info.isr_before, &info.removing)
        } else {
            info.record.isr.to_vec()
        };
        out.push(End {
            partition: e.partition,
            record: &info.record,
            isr: Some(isr),
            how: How::Completion,
            ghost: &s.next.ghosts[e.partition],
        });
    }
    let cancelled = match *s.event {
        Event::CancelReassignment { partition } if !s.outcome.is_rejected() => Some(partition),
        _ => None,
    };
    for (i, next) in s.next.partitions.iter().enumerate() {
        let Some(prev) = s.prev.partitions.get(i) else {
            continue;
        };
        let reported = out.iter().any(|e| e.partition == i);
        if !prev.is_reassigning() || next.is_reassigning() || reported || cancelled == Some(i) {
            continue;
        }
        let (isr, how) = unreported_end_isr(s, rules, i, prev, next);
        out.push(End {
            partition: i,
            record: next,
            isr,
            how,
            ghost: &s.next.ghosts[i],
        });
    }
    out
}

/// The ISR an end the builder did not report was decided on. With ISR changes the broker
/// side noted for the partition, replay them from the ISR before the step and run the
/// completion test after each (the lists change only by completion in such a step); the
/// replay is trusted when it ends on the ISR the step ended on. Otherwise, the ISR the step
/// ended on, unless an unclean election is visible (then `None`, as for F1).
fn unreported_end_isr(
    s: &StepView,
    rules: &RuleSet,
    i: usize,
    prev: &Partition,
    next: &Partition,
) -> (Option<Vec<i32>>, How) {
    use crate::model::broker::{Note, NOTES_KEPT_MAX};
    let mut isr = prev.isr.to_vec();
    let mut decided = None;
    let mut noted = false;
    for note in s.outcome.notes().iter().take(NOTES_KEPT_MAX) {
        match note {
            Note::Expand {
                partition,
                follower,
            } if *partition == i => {
                if !isr.contains(follower) {
                    isr.push(*follower);
                }
            }
            Note::Shrink {
                partition, removed, ..
            } if *partition == i => isr.retain(|b| !removed.iter().any(|(r, _)| r == b)),
            _ => continue,
        }
        noted = true;
        if decided.is_none() {
            let (r, a, m) = (
                &prev.replicas,
                &prev.adding_replicas,
                &prev.removing_replicas,
            );
            if let Some((_, done)) = rules.maybe_complete(r, &isr, a, m) {
                decided = Some(done.clone());
                isr = done;
            }
        }
    }
    let how = if noted {
        How::BrokerCompletion
    } else {
        How::Cleared
    };
    if let Some(d) = decided.filter(|_| same_set(&isr, &next.isr)) {
        return (Some(d), how);
    }
    let unclean = next.leader_recovery_state == LeaderRecoveryState::Recovering
        && (prev.leader_recovery_state != next.leader_recovery_state || prev.leader != next.leader);
    ((!unclean).then(|| next.isr.to_vec()), how)
}

pub(super) fn g4_target_fidelity(e: &End) -> Option<String> {
    let (p, g) = (e.record, e.ghost);
    (!same_set(&p.replicas, &g.target)).then(|| {
        format!(
            "completed with replicas {} but T = {}",
            Ids(&p.replicas),
            Ids(&g.target)
        )
    })
}

pub(super) fn g5_safe_completion(e: &End) -> Option<String> {
    let (p, g, isr) = (e.record, e.ghost, e.isr.as_deref()?);
    let out = without(&without(&g.target, &g.original), isr);
    (!out.is_empty()).then(|| {
        format!(
            "completed with new replicas {} out of isr {} (replicas {})",
            Ids(&out),
            Ids(isr),
            Ids(&p.replicas)
        )
    })
}

pub(super) fn g6_cancel_restores(s: &StepView) -> Option<String> {
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

pub(super) fn g7_one_step_liveness(v: &PartView, rules: &RuleSet) -> Option<String> {
    let (p, g) = (v.partition, v.ghost);
    let ready = p.is_reassigning()
        && contains_all(&p.isr, &g.target)
        && !without(&p.isr, &p.removing_replicas).is_empty();
    let completes = || {
        rules
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
}

pub(super) fn g8_rf_guard(e: &End) -> Option<String> {
    let (g, isr) = (e.ghost, e.isr.as_deref()?);
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
}

pub(super) fn g9_completion_record(s: &StepView) -> Option<String> {
    s.outcome.effects().iter().find_map(|e| {
        let info = e.completion.as_ref()?;
        let p = &info.record;
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

pub(super) fn e1_quiescent_completion(c: &Cluster, rules: &RuleSet) -> Option<String> {
    c.partitions
        .iter()
        .enumerate()
        // A partition whose leader lost the classic prefix is broken; INV-2 reports why.
        .filter(|(i, p)| {
            let leader = c.runtime.partitions.get(*i).and_then(|rt| rt.local(p.leader));
            !leader.is_some_and(|l| lost_prefix(&c.runtime.config, p, l))
        })
        .find(|(_, p)| p.is_reassigning())
        .map(|(i, p)| {
            // A replica kept out of the ISR by its fetcher says why (docs/findings.md F21, F22).
            let why: String = c.runtime.partitions[i]
                .locals
                .iter()
                .filter(|l| !p.isr.contains(&l.broker))
                .map(|l| stuck_fetcher_suffix(c, rules, i, l))
                .find(|s| !s.is_empty())
                .unwrap_or_default();
            format!(
                "p{i} ({}, seal {}) still reassigning after healing: replicas {} isr {} adding {} removing {}{why}",
                if p.diskless { "diskless" } else { "classic" },
                p.seal,
                Ids(&p.replicas),
                Ids(&p.isr),
                Ids(&p.adding_replicas),
                Ids(&p.removing_replicas)
            )
        })
}

pub(super) fn v1_override(s: &StepView) -> bool {
    matches!(*s.event, Event::Reassign { partition, .. }
        if !s.outcome.is_rejected() && s.prev.partitions.get(partition).is_some_and(Partition::is_reassigning))
}

pub(super) fn v2_completed(s: &StepView) -> bool {
    s.outcome.effects().iter().any(|e| e.completion.is_some())
}

pub(super) fn v3_cancelled(s: &StepView) -> bool {
    matches!(s.event, Event::CancelReassignment { .. }) && !s.outcome.is_rejected()
}

pub(super) fn v4_leader_changed(s: &StepView) -> bool {
    s.prev
        .partitions
        .iter()
        .zip(&s.next.partitions)
        .any(|(a, b)| a.leader != b.leader)
}

pub(super) fn v5_isr_shrank(s: &StepView) -> bool {
    s.prev
        .partitions
        .iter()
        .zip(&s.next.partitions)
        .any(|(a, b)| !contains_all(&b.isr, &a.isr))
}

pub(super) fn v6_rejected(s: &StepView) -> bool {
    s.outcome.is_rejected()
}

pub(super) fn v7_transient(s: &StepView) -> bool {
    s.next.partitions.iter().zip(&s.next.ghosts).any(|(p, g)| {
        p.is_reassigning() && p.removing_replicas.iter().any(|r| !g.original.contains(r))
    })
}

pub(super) fn v8_unclean_completion(s: &StepView) -> bool {
    s.outcome
        .effects()
        .iter()
        .any(|e| e.completion.is_some() && e.unclean_election)
}

/// S4: the request made the controller throw: an uncaught exception (a failover), an
/// exception answered as UNKNOWN_SERVER_ERROR, or a broker's own request that threw.
pub(super) fn s4_no_throw(s: &StepView) -> Option<String> {
    if let Outcome::Rejected { error, reason } = s.outcome {
        if *error == crate::model::ErrorCode::DeletedTopicFault {
            // Named apart from the leader acceptor's fault (triage tells them by detail).
            return Some(format!(
                "{} answered {}: {reason}",
                s.event.op(),
                error.name()
            ));
        }
        if error.is_fault() || *error == crate::model::ErrorCode::UnknownServerError {
            return Some(format!("{} answered {}", s.event.op(), error.name()));
        }
    }
    s.outcome.notes().iter().find_map(|n| match n {
        crate::model::Note::ControllerFault { broker, request } => Some(format!(
            "broker {broker}'s {request} threw in the controller"
        )),
        _ => None,
    })
}
