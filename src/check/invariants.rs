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

use crate::model::broker::{consolidating, lost_prefix, LeaderState, Local};
use crate::model::event::Ids;
use crate::model::{
    contains_all, has_duplicates, same_set, without, Cluster, Event, Ghost, Outcome, Partition,
    NO_LEADER,
};
use crate::model::{BrokerId, BrokerState, Note, SEAL_NONE, SEAL_PENDING};
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

/// Every step invariant `view` violates, with its detail, in registry order. (The oracle
/// and exhaust run their own loop: they skip invariants that already failed.)
pub fn step_violations<'a>(
    view: &'a StepView<'a>,
) -> impl Iterator<Item = (&'static str, String)> + 'a {
    INVARIANTS.iter().filter_map(move |i| match i.check {
        Check::Step(check) => check(view).map(|d| (i.id, d)),
        _ => None,
    })
}

/// Every quiescence invariant `c` violates, with its detail, in registry order.
pub fn quiescent_violations<'a>(
    c: &'a Cluster,
    rules: &'a RuleSet,
) -> impl Iterator<Item = (&'static str, String)> + 'a {
    INVARIANTS.iter().filter_map(move |i| match i.check {
        Check::Quiescent(check) => check(c, rules).map(|d| (i.id, d)),
        _ => None,
    })
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
    Invariant {
        id: "V9",
        kind: Kind::Sometimes,
        statement: "a seal was committed (-2 → s ≥ 0)",
        rationale: "Every Inkless rule but the pending-phase ones only acts on a committed seal.",
        source: "spec inkless-isr.md §3 E2b",
        check: Check::Sometimes(v9_seal_committed),
    },
    Invariant {
        id: "V10",
        kind: Kind::Sometimes,
        statement: "the ISR-expiration task shrank a switched partition",
        rationale: "INV-3 and INV-4 only bite when a lag shrink happens on a switched partition.",
        source: "spec inkless-isr.md §2(a), §2(b)",
        check: Check::Sometimes(v10_switched_shrink),
    },
    Invariant {
        id: "V11",
        kind: Kind::Sometimes,
        statement: "a consolidating follower moved from the consolidation to the classic fetcher (a diversion)",
        rationale: "CE-b2, CE-c3 and CE-d all start with a diversion.",
        source: "spec inkless-isr.md §2(c)",
        check: Check::Sometimes(v11_diverted),
    },
    Invariant {
        id: "V12",
        kind: Kind::Sometimes,
        statement: "a follower fetch was answered by the at-seal branch",
        rationale: "INV-6 and the #760 admission are about that answer.",
        source: "spec inkless-isr.md §2(d)",
        check: Check::Sometimes(v12_at_seal_answer),
    },
    // Inkless (spec inkless-isr.md §4). Sources are aiven/inkless paths under core/src/main/scala/kafka/.
    Invariant {
        id: "INV-1",
        kind: Kind::Always,
        statement: "lag safety: on a classic, pending or switched partition with a live leader, no ISR follower below the leader's end (the seal, once committed) stays silent for 2 × replica_lag_time_max_ms",
        rationale: "A follower that stopped fetching must leave the ISR within lag plus one task period, or it stays electable while missing data. With diskless topics never evaluated for shrink, a stalled follower of a switched partition stays in the ISR forever and a failover loses the gap up to the seal (CE-a).",
        source: "spec §4 INV-1, CE-a; server/ReplicaManager.scala maybeShrinkIsr, cluster/Partition.scala maybeShrinkIsr",
        check: Check::Step(inv1_lag_safety),
    },
    Invariant {
        id: "INV-2",
        kind: Kind::Always,
        statement: "electable prefix: a replica joins the ISR of a switched partition (seal ≥ 0), or is elected its leader, only holding the whole classic prefix (local LEO ≥ seal; a consolidating leader can rebuild it); unclean elections excepted",
        rationale: "Admission paths that skip a leader-observed fetch let an empty replica become electable: the one-step reassignment (CE-e) and the unfence expansion (CE-f). #757 and #754 close them for committed and pending seals.",
        source: "spec §4 INV-2, CE-e, CE-f; metadata ReplicationControlManager changePartitionReassignment (9082a19e2f), expandIsrForDisklessManagedPartitions (43b016f6ec)",
        check: Check::Step(inv2_electable_prefix),
    },
    Invariant {
        id: "INV-3",
        kind: Kind::Always,
        statement: "no spurious shrink: the ISR-expiration task never removes a follower of a switched partition whose recorded offset is at or above the seal",
        rationale: "Past the seal every consolidating replica grows its log from object storage and never fetches from the leader, so its record stays at the seal while the leader's LEO moves on. Comparing against that LEO (CE-b1), or requiring equality with the capped end (CE-b2), shrinks healthy followers for good.",
        source: "spec §4 INV-3, CE-b1, CE-b2; cluster/Partition.scala isFollowerOutOfSync (150ec6ed61, 5f22fac12b)",
        check: Check::Step(inv3_no_spurious_shrink),
    },
    Invariant {
        id: "INV-4",
        kind: Kind::Always,
        statement: "leader-change evidence: the ISR-expiration task never removes a live, unstalled follower of a switched partition that holds the prefix",
        rationale: "After a leader change the new leader has reset its records; a healthy follower must show itself with one classic fetch, or it is shrunk a lag later: an at-seal follower that schedules no fetch (CE-c1), a consolidating one restarted on consolidation (CE-c2).",
        source: "spec §4 INV-4, CE-c1, CE-c2; server/ReplicaManager.scala applyLocalFollowersDelta (150ec6ed61, 5f22fac12b)",
        check: Check::Step(inv4_leader_change_evidence),
    },
    Invariant {
        id: "INV-4b",
        kind: Kind::Always,
        statement: "leader-change keying: a leader-epoch bump without a leader move diverts no consolidating follower and starts no extra catch-up fetch on an in-sync at-seal follower",
        rationale: "A same-leader bump (switch-pending mark, re-arm, a completion that drops another replica) keeps the leader's records, so the followers need not prove anything; keying the catch-up on the epoch instead of the leader move makes every delta trigger a fetch (CE-c4).",
        source: "spec §2(c), §4 INV-4 (keying), CE-c4; server/ReplicaManager.scala applyLocalFollowersDelta (leaderChanged, 150ec6ed61)",
        check: Check::Step(inv4b_keyed_on_leader_move),
    },
    Invariant {
        id: "INV-5",
        kind: Kind::Always,
        statement: "single writer: no follower has a partition on the classic and the consolidation fetcher at once",
        rationale: "Two fetchers append to one log; the second append finds its fetch offset no longer equal to the log end and the partition fails (CE-c3).",
        source: "spec §4 INV-5, CE-c3; server/ReplicaFetcherThread.scala processPartitionData; server/ReplicaManager.scala applyLocalFollowersDelta (5f22fac12b)",
        check: Check::Step(inv5_single_writer),
    },
    Invariant {
        id: "INV-6",
        kind: Kind::Always,
        statement: "at-seal response shape: a follower fetch at or above a committed seal gets no records and HW = seal",
        rationale: "Served from the leader's local log instead, a diverted follower appends consolidated records through the classic fetcher and takes the leader's frontier as its HW (CE-d).",
        source: "spec §4 INV-6, CE-d; server/ReplicaManager.scala fetchMessages (13ae69df5c)",
        check: Check::Step(inv6_at_seal_response),
    },
    Invariant {
        id: "INV-7",
        kind: Kind::Always,
        statement: "exemption: no lag shrink on a diskless partition with seal -1 (born diskless or aborted)",
        rationale: "Those partitions have no classic replication to judge lag by; shrinking them would empty their ISR.",
        source: "spec §4 INV-7; server/ReplicaManager.scala maybeShrinkIsr (150ec6ed61)",
        check: Check::Step(inv7_exemption),
    },
    Invariant {
        id: "INV-8",
        kind: Kind::Always,
        statement: "seal monotonicity: only -1→-2, -2→-1, -2→-2, -2→s≥0 and s→s′ with 0 ≤ s′ ≤ s",
        rationale: "Readers route by the seal; a committed seal that turned negative or grew would move data between the classic and diskless tiers.",
        source: "spec §1.1, §4 INV-8; metadata ReplicationControlManager alterDisklessSwitch, initDisklessLog, markClassicToDisklessSwitchStarted",
        check: Check::Step(inv8_seal_monotonic),
    },
    Invariant {
        id: "INV-9",
        kind: Kind::EventuallyAtQuiescence,
        statement: "progress after diversion: on a consolidating partition (seal ≥ 0 or born diskless) with a live leader, every live follower is back on the consolidation fetcher",
        rationale: "A diverted follower must return to consolidation after one classic round (or after admission with #760); one left on the classic fetcher, or on none, stops growing its log.",
        source: "spec §4 INV-9; server/ReplicaFetcherThread.scala processPartitionData; ConsolidationReconciler.startConsolidationFetchersForCaughtUpClassicPartitions",
        check: Check::Quiescent(inv9_back_on_consolidation),
    },
    Invariant {
        id: "E2",
        kind: Kind::EventuallyAtQuiescence,
        statement: "re-admission: once every broker is healthy, every live replica of a switched partition that holds the prefix is in the ISR",
        rationale: "A follower shrunk or fenced while healthy must find its way back; with generic expansion a consolidating leader's frontier keeps it out for good (spec §2(f), §6.2), and a restarted consolidating follower goes straight to consolidation with no admission path (E9).",
        source: "spec §2(f), §3 E9, §4 INV-4 (re-admission part); cluster/Partition.scala maybeExpandIsrAtSeal (e74ed8ba0d)",
        check: Check::Quiescent(e2_readmission),
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
        let p = &info.record;
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

fn e1_quiescent_completion(c: &Cluster, _: &RuleSet) -> Option<String> {
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
            format!(
                "p{i} ({}, seal {}) still reassigning after healing: replicas {} isr {} adding {} removing {}",
            if p.diskless { "diskless" } else { "classic" },
            p.seal,
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

fn is_up(c: &Cluster, b: BrokerId) -> bool {
    matches!(
        c.broker_state(b),
        Some(BrokerState::Active | BrokerState::ControlledShutdown)
    )
}

/// The leader's local replica and leader state, when it leads with the current epoch and
/// holds the prefix (a leader that lost it is INV-2's finding, not the others').
fn live_leader(c: &Cluster, i: usize) -> Option<(&Local, &LeaderState)> {
    let p = &c.partitions[i];
    if p.leader == NO_LEADER || !is_up(c, p.leader) {
        return None;
    }
    let rt = c.runtime.partitions.get(i)?;
    let state = rt
        .leader
        .as_ref()
        .filter(|s| s.broker == p.leader && s.leader_epoch == p.leader_epoch)?;
    let local = rt.local(p.leader)?;
    (!lost_prefix(&c.runtime.config, p, local)).then_some((local, state))
}

fn inv1_lag_safety(s: &StepView) -> Option<String> {
    let c = s.next;
    let lag = c.runtime.config.replica_lag_time_max_ms;
    (0..c.partitions.len()).find_map(|i| {
        let p = &c.partitions[i];
        if p.diskless && p.seal == SEAL_NONE {
            return None;
        }
        let (lead, state) = live_leader(c, i)?;
        let target = if p.seal >= 0 { p.seal } else { lead.leo };
        p.isr.iter().filter(|&&r| r != p.leader).find_map(|&r| {
            let local = c.runtime.partitions[i].local(r)?;
            let silent_ms = c.runtime.now_ms - local.in_sync_ms.max(state.epoch_since_ms);
            (local.leo < target && silent_ms >= 2 * lag).then(|| {
                format!(
                    "p{i}: follower {r} in isr {} at LEO {} < {target}, silent for {silent_ms} ms",
                    Ids(&p.isr),
                    local.leo
                )
            })
        })
    })
}

fn inv2_electable_prefix(s: &StepView) -> Option<String> {
    let c = s.next;
    (0..c.partitions.len()).find_map(|i| {
        let p = &c.partitions[i];
        // An unclean election is an explicit choice to lose data; it is not an admission.
        let unclean = s
            .outcome
            .effects()
            .iter()
            .any(|e| e.partition == i && e.unclean_election);
        if p.seal < 0 || unclean {
            return None;
        }
        let moved = s
            .prev
            .partitions
            .get(i)
            .is_some_and(|q| q.leader != p.leader);
        let leader_local = c.runtime.partitions[i].local(p.leader);
        if let Some(l) = leader_local.filter(|l| moved && lost_prefix(&c.runtime.config, p, l)) {
            return Some(format!(
                "p{i}: elected leader {} holds LEO {} < seal {}: the prefix is gone",
                p.leader, l.leo, p.seal
            ));
        }
        let before: &[i32] = s.prev.partitions.get(i).map_or(&[], |q| &q.isr);
        // A restart leaves the ISR and may re-enter it within the one event.
        let restarted = match *s.event {
            Event::RestartBroker { broker, .. } => Some(broker),
            _ => None,
        };
        // (Fencing the last ISR member leaves it in place, so a lone replica never left.)
        let rejoined = |r: i32| Some(r) == restarted && before != [r];
        p.isr
            .iter()
            .filter(|&&r| !before.contains(&r) || rejoined(r))
            .find_map(|&r| {
                let leo = c.runtime.partitions[i].local(r).map_or(0, |l| l.leo);
                (leo < p.seal).then(|| {
                    format!(
                        "p{i}: {r} joined isr {} with LEO {leo} < seal {}",
                        Ids(&p.isr),
                        p.seal
                    )
                })
            })
    })
}

/// Each lag shrink of this step with its partition.
fn shrinks<'a>(s: &'a StepView) -> impl Iterator<Item = (usize, &'a [(i32, i64)])> + 'a {
    s.outcome.notes().iter().filter_map(|n| match n {
        Note::Shrink {
            partition, removed, ..
        } => Some((*partition, removed.as_slice())),
        _ => None,
    })
}

fn inv3_no_spurious_shrink(s: &StepView) -> Option<String> {
    shrinks(s).find_map(|(i, removed)| {
        let seal = s.next.partitions[i].seal;
        let bad = removed.iter().find(|(_, rec)| seal >= 0 && *rec >= seal)?;
        Some(format!(
            "p{i}: shrank {} recorded at {} ≥ seal {seal}",
            bad.0, bad.1
        ))
    })
}

fn inv4_leader_change_evidence(s: &StepView) -> Option<String> {
    let c = s.next;
    shrinks(s).find_map(|(i, removed)| {
        let seal = c.partitions[i].seal;
        removed.iter().find_map(|&(r, rec)| {
            let leo = c.runtime.partitions[i].local(r)?.leo;
            let healthy =
                c.is_active(r) && !c.runtime.stalled.contains(&r) && seal >= 0 && leo >= seal;
            healthy.then(|| {
                format!(
                    "p{i}: shrank healthy follower {r} (LEO {leo} ≥ seal {seal}, recorded {rec})"
                )
            })
        })
    })
}

fn inv5_single_writer(s: &StepView) -> Option<String> {
    let c = s.next;
    c.runtime.partitions.iter().enumerate().find_map(|(i, rt)| {
        let both = rt
            .locals
            .iter()
            .find(|l| l.fetchers.classic && l.fetchers.consolidation)?;
        Some(format!(
            "p{i}: broker {} is on the classic and the consolidation fetcher",
            both.broker
        ))
    })
}

fn inv6_at_seal_response(s: &StepView) -> Option<String> {
    s.outcome.notes().iter().find_map(|n| {
        let Note::Fetch { partition, follower, fetch_offset, records, hw, .. } = *n else { return None };
        let p = &s.next.partitions[partition];
        let applies = p.diskless && p.seal >= 0 && fetch_offset >= p.seal;
        (applies && (records != 0 || hw != p.seal)).then(|| {
            format!("p{partition}: fetch by {follower} at {fetch_offset} ≥ seal {} got {records} records, HW {hw}", p.seal)
        })
    })
}

fn inv7_exemption(s: &StepView) -> Option<String> {
    shrinks(s).find_map(|(i, removed)| {
        let p = &s.next.partitions[i];
        (p.diskless && p.seal == SEAL_NONE).then(|| {
            format!(
                "p{i}: lag shrink of {:?} on a seal -1 diskless partition",
                removed
            )
        })
    })
}

fn inv8_seal_monotonic(s: &StepView) -> Option<String> {
    s.prev
        .partitions
        .iter()
        .zip(&s.next.partitions)
        .enumerate()
        .find_map(|(i, (a, b))| {
            let (from, to) = (a.seal, b.seal);
            let legal = from == to
                || (from == SEAL_NONE && to == SEAL_PENDING)
                || (from == SEAL_PENDING && to >= SEAL_NONE)
                || (from >= 0 && to >= 0 && to <= from);
            (!legal).then(|| format!("p{i}: seal {from} → {to}"))
        })
}

fn inv9_back_on_consolidation(c: &Cluster, _: &RuleSet) -> Option<String> {
    (0..c.partitions.len()).find_map(|i| {
        let p = &c.partitions[i];
        let consolidating = consolidating(&c.runtime.config, p) && p.seal != SEAL_PENDING;
        if !consolidating || live_leader(c, i).is_none() {
            return None;
        }
        c.runtime.partitions[i]
            .locals
            .iter()
            .filter(|l| l.broker != p.leader && c.is_active(l.broker))
            .find_map(|l| {
                (!l.fetchers.consolidation || l.fetchers.classic).then(|| {
                    format!(
                        "p{i} (seal {}): follower {} fetchers {:?}",
                        p.seal, l.broker, l.fetchers
                    )
                })
            })
    })
}

fn e2_readmission(c: &Cluster, _: &RuleSet) -> Option<String> {
    (0..c.partitions.len()).find_map(|i| {
        let p = &c.partitions[i];
        if p.seal < 0 || live_leader(c, i).is_none() {
            return None;
        }
        c.runtime.partitions[i].locals.iter().find_map(|l| {
            let out = c.is_active(l.broker) && l.leo >= p.seal && !p.isr.contains(&l.broker);
            out.then(|| {
                format!(
                    "p{i}: {} holds the prefix (LEO {} ≥ seal {}) but stays out of isr {}",
                    l.broker,
                    l.leo,
                    p.seal,
                    Ids(&p.isr)
                )
            })
        })
    })
}

fn inv4b_keyed_on_leader_move(s: &StepView) -> Option<String> {
    let c = s.next;
    (0..c.partitions.len().min(s.prev.partitions.len())).find_map(|i| {
        let (a, b) = (&s.prev.partitions[i], &c.partitions[i]);
        let same_leader_bump = a.leader == b.leader && b.leader_epoch > a.leader_epoch && b.leader != NO_LEADER;
        if !same_leader_bump || b.seal < 0 {
            return None;
        }
        let before = s.prev.runtime.partitions.get(i)?;
        c.runtime.partitions[i].locals.iter().filter(|l| l.broker != b.leader && b.isr.contains(&l.broker)).find_map(|l| {
            let was = before.local(l.broker)?;
            let diverted = was.fetchers.consolidation && !was.fetchers.classic && l.fetchers.classic;
            let extra_fetch = !was.fetchers.classic && l.fetchers.classic && l.hw >= b.seal && !consolidating(&c.runtime.config, b);
            (diverted || extra_fetch).then(|| {
                format!("p{i}: leader {} kept, epoch {} → {}, yet follower {} moved to the classic fetcher", b.leader, a.leader_epoch, b.leader_epoch, l.broker)
            })
        })
    })
}

fn v9_seal_committed(s: &StepView) -> bool {
    s.prev
        .partitions
        .iter()
        .zip(&s.next.partitions)
        .any(|(a, b)| a.seal == SEAL_PENDING && b.seal >= 0)
}

fn v10_switched_shrink(s: &StepView) -> bool {
    shrinks(s).any(|(i, _)| s.next.partitions[i].seal >= 0)
}

fn v11_diverted(s: &StepView) -> bool {
    s.prev
        .runtime
        .partitions
        .iter()
        .zip(&s.next.runtime.partitions)
        .any(|(a, b)| {
            b.locals.iter().any(|l| {
                a.local(l.broker).is_some_and(|was| {
                    was.fetchers.consolidation && !was.fetchers.classic && l.fetchers.classic
                })
            })
        })
}

fn v12_at_seal_answer(s: &StepView) -> bool {
    s.outcome.notes().iter().any(|n| {
        matches!(
            n,
            Note::Fetch {
                at_seal_branch: true,
                ..
            }
        )
    })
}
