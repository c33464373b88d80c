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
//! Ghost values: O = `Ghost::original`, T = `Ghost::target` (docs/model/reassignment.md#ghosts).
//! "At completion" means at every end of a reassignment but an accepted cancel: the
//! completion the builder reports in `PartitionEffect::completion`, a completion by an
//! AlterPartition the broker side sent during the step, and a record that cleared adding and
//! removing without the completion test (docs/model/reassignment.md#ends).
//!
//! Layout: this file holds the types, the one list (its order is the order violations and
//! `sometimes` counts are reported in) and the one loop over it, which the oracle,
//! `exhaust` and the tests all run. The checks live by family: `kraft.rs` (S0–S3, G1–G9,
//! E1, V1–V8), `inkless.rs` (INV-1..INV-9, INV-4b, E2, V9–V12), `data.rs` (the data
//! plane: D1–D5, V13–V17) and `elr.rs` (eligible leader replicas: ELR1–ELR3, V18–V19).

mod data;
mod elr;
mod inkless;
mod kraft;

pub(crate) use kraft::same_partition;

use crate::model::{Cluster, Event, Outcome};
use crate::rules::RuleSet;
use data::{
    d1_acked_kept, d2_leader_holds_acked, d3_log_matching, d4_acked_everywhere, d5_consistent_read,
    v13_acknowledged, v14_truncated, v15_read_unacked, v16_below_log_start, v17_unflushed_lost,
};
use elr::{
    elr1_within_replicas, elr2_disjoint_from_isr, elr3_empty_at_min_isr, v18_entered_elr,
    v19_elected_from_elr,
};
use inkless::{
    e2_readmission, inv1_lag_safety, inv2_electable_prefix, inv3_no_spurious_shrink,
    inv4_leader_change_evidence, inv4b_keyed_on_leader_move, inv5_single_writer,
    inv6_at_seal_response, inv7_exemption, inv8_seal_monotonic, inv9_back_on_consolidation,
    v10_switched_shrink, v11_diverted, v12_at_seal_answer, v9_seal_committed,
};
use kraft::{
    e1_quiescent_completion, g1_composition, g2_list_completeness, g3_adding_not_original,
    g4_target_fidelity, g5_safe_completion, g6_cancel_restores, g7_one_step_liveness, g8_rf_guard,
    g9_completion_record, s0_shape, s1_lists, s2_listing, s3_epochs, v1_override, v2_completed,
    v3_cancelled, v4_leader_changed, v5_isr_shrank, v6_rejected, v7_transient,
    v8_unclean_completion,
};

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

/// The one loop over the list: for each entry, in list order, that `skip` does not name,
/// `run` applies the entry's check (`None` when the check is of another kind or found
/// nothing). Yields the entry's index in `INVARIANTS`, its id and what `run` returned.
fn run_each<'a, T>(
    skip: impl Fn(&str) -> bool + 'a,
    run: impl Fn(&Check) -> Option<T> + 'a,
) -> impl Iterator<Item = (usize, &'static str, T)> + 'a {
    INVARIANTS
        .iter()
        .enumerate()
        .filter(move |(_, i)| !skip(i.id))
        .filter_map(move |(n, i)| run(&i.check).map(|t| (n, i.id, t)))
}

/// Every step invariant `view` violates, with its detail, in list order.
pub fn step_violations<'a>(
    view: &'a StepView<'a>,
) -> impl Iterator<Item = (&'static str, String)> + 'a {
    step_violations_except(view, |_| false)
}

/// [`step_violations`] without running the invariants `known` names: a run reports only
/// the first violation of each invariant, so one that already failed need not be checked.
pub fn step_violations_except<'a>(
    view: &'a StepView<'a>,
    known: impl Fn(&str) -> bool + 'a,
) -> impl Iterator<Item = (&'static str, String)> + 'a {
    let check = move |c: &Check| match *c {
        Check::Step(check) => check(view),
        _ => None,
    };
    run_each(known, check).map(|(_, id, detail)| (id, detail))
}

/// Every quiescence invariant `c` violates, with its detail, in list order.
pub fn quiescent_violations<'a>(
    c: &'a Cluster,
    rules: &'a RuleSet,
) -> impl Iterator<Item = (&'static str, String)> + 'a {
    quiescent_violations_except(c, rules, |_| false)
}

/// [`quiescent_violations`] without running the invariants `known` names.
pub fn quiescent_violations_except<'a>(
    c: &'a Cluster,
    rules: &'a RuleSet,
    known: impl Fn(&str) -> bool + 'a,
) -> impl Iterator<Item = (&'static str, String)> + 'a {
    let check = move |k: &Check| match *k {
        Check::Quiescent(check) => check(c, rules),
        _ => None,
    };
    run_each(known, check).map(|(_, id, detail)| (id, detail))
}

/// Whether a quiescence invariant is left that `known` does not name. Healing a state
/// replays a dozen or more events, so `exhaust` heals only when something is left to judge.
pub fn quiescent_pending(known: impl Fn(&str) -> bool) -> bool {
    let quiescent = |c: &Check| matches!(c, Check::Quiescent(_)).then_some(());
    run_each(known, quiescent).next().is_some()
}

/// Add one to `counts[n]` for each `Sometimes` property `INVARIANTS[n]` that fired on
/// `view` (`counts` is indexed like `INVARIANTS`).
pub fn count_sometimes(view: &StepView, counts: &mut [u32]) {
    let fired = |c: &Check| match *c {
        Check::Sometimes(fired) => fired(view).then_some(()),
        _ => None,
    };
    for (n, _, ()) in run_each(|_| false, fired) {
        counts[n] += 1;
    }
}

/// The one list, in report order. A data table (one entry per property), exempt from the
/// function-length limit.
pub static INVARIANTS: &[Invariant] = &[
    Invariant {
        id: "S0",
        kind: Kind::Always,
        statement: "replicas ≠ ∅, ISR ≠ ∅ (unless ELR is on), no duplicates in any list, ISR ⊆ replicas, leader ∈ ISR ∪ {-1}",
        rationale: "The registration's own shape. Brokers trust it blindly: a leader outside the ISR or an ISR member that is not a replica makes every other property meaningless, so this one guards the model as much as the rules.",
        source: "docs/model/reassignment.md#s0; Replicas.validateIsr; PartitionChangeBuilder.isValidNewLeader",
        check: Check::Step(s0_shape),
    },
    Invariant {
        id: "S1",
        kind: Kind::Always,
        statement: "adding ⊆ replicas, removing ⊆ replicas, adding ∩ removing = ∅ (design B: the overlap holds no original replica)",
        rationale: "PartitionRegistration does not enforce these, they are conventions every reader relies on. A replica in both lists can never satisfy the completion test (it is removed from I' but required in it), so the reassignment is stuck: docs/model/reassignment.md#history-3.",
        source: "docs/model/reassignment.md#s1, #history-3; PartitionRegistration (no enforcement)",
        check: Check::Step(s1_lists),
    },
    Invariant {
        id: "S2",
        kind: Kind::Always,
        statement: "reassigning ⇔ adding ∪ removing ≠ ∅ ⇔ listed by ListPartitionReassignments",
        rationale: "The reassigning index is maintained on replay, separately from the lists; `--list` and `--verify` read the index. If the two drift, tooling declares a reassignment done while it is not, or lists a finished one forever.",
        source: "docs/model/reassignment.md#s2, #partition-registration; ReplicationControlManager.updateReassigningTopicsIfNeeded, listPartitionReassignments",
        check: Check::Step(s2_listing),
    },
    Invariant {
        id: "S3",
        kind: Kind::Always,
        statement: "partition_epoch rises on every change and only then; leader_epoch never falls and rises whenever a replica leaves or the leader changes",
        rationale: "Brokers fence stale leaders and stale AlterPartition requests by these epochs. A removal without a leader-epoch bump lets a removed replica keep acting on the old assignment.",
        source: "docs/model/reassignment.md#s3, #epochs; PartitionRegistration.merge; PartitionChangeBuilder.triggerLeaderEpochBumpForReplicaReassignmentIfNeeded",
        check: Check::Step(s3_epochs),
    },
    Invariant {
        id: "G1",
        kind: Kind::Always,
        statement: "while reassigning: T ∪ O ⊆ set(replicas) ⊆ T ∪ O ∪ (every target of the chain), and set(replicas) − removing = T",
        rationale: "What stays after completion must be exactly what the operator asked for last. Keeping an old removing set when the new one is empty (the RF-up override, docs/model/reassignment.md#history-4) breaks the second half.",
        source: "docs/model/reassignment.md#g1, #history-4",
        check: Check::Step(g1_composition),
    },
    Invariant {
        id: "G2",
        kind: Kind::Always,
        statement: "list completeness: while reassigning, (replicas − removing) − O ⊆ adding",
        rationale: "Every non-original replica that will survive completion must be reported as adding, or `--list`, throttles and under-replication accounting treat it as caught up. This is KAFKA-21419's first symptom (history 1, step 2) and the drop-then-re-add hole of its proposed fix (history 5).",
        source: "docs/model/reassignment.md#g2, #history-1, #history-5; https://issues.apache.org/jira/browse/KAFKA-21419",
        check: Check::Step(g2_list_completeness),
    },
    Invariant {
        id: "G3",
        kind: Kind::Always,
        statement: "while reassigning: adding ∩ O = ∅",
        rationale: "An original replica reported as adding would be removed by a cancel (revert drops adding replicas), losing a replica the partition had before the reassignment.",
        source: "docs/model/reassignment.md#g3; PartitionReassignmentRevert",
        check: Check::Step(g3_adding_not_original),
    },
    Invariant {
        id: "G4",
        kind: Kind::Always,
        statement: "target fidelity: at completion, set(replicas) = T",
        rationale: "The operator's last target is what the partition must end on. The keep-old-removing rule drops a replica the target still names (history 4).",
        source: "docs/model/reassignment.md#g4, #history-4, #ends",
        check: Check::Step(g4_target_fidelity),
    },
    Invariant {
        id: "G5",
        kind: Kind::Always,
        statement: "safe completion: at completion, T − O ⊆ ISR (the ISR completion was decided on, see F1)",
        rationale: "No newly added replica may be declared done while out of sync: KAFKA-21419 ends with replicas [1,2,4,5] and ISR [1,2,5], the removed replica 3 already gone.",
        source: "docs/model/reassignment.md#g5, #history-1, #ends; https://issues.apache.org/jira/browse/KAFKA-21419",
        check: Check::Step(g5_safe_completion),
    },
    Invariant {
        id: "G6",
        kind: Kind::Always,
        statement: "cancel restores: after an accepted cancel, set(replicas) = O",
        rationale: "Cancel must return the partition to where it was before the chain of alter calls. Promoted replicas (history 2) and transients (history 5) survive the revert.",
        source: "docs/model/reassignment.md#g6, #history-2, #history-5; PartitionReassignmentRevert",
        check: Check::Step(g6_cancel_restores),
    },
    Invariant {
        id: "G7",
        kind: Kind::Always,
        statement: "liveness, one step: if reassigning, T ⊆ ISR and ISR − removing ≠ ∅, the next change completes it",
        rationale: "Once every target replica is in sync nothing should hold the reassignment open. Checked by running the completion rule on the current state, which is what any next build does first.",
        source: "docs/model/reassignment.md#g7, #history-3",
        check: Check::Step(g7_one_step_liveness),
    },
    Invariant {
        id: "G8",
        kind: Kind::Always,
        statement: "RF guard: if |T| < |O| at completion, T ⊆ ISR (the ISR completion was decided on, see F1)",
        rationale: "KAFKA-19975 allows out-of-ISR survivors, except when the replication factor drops: then every survivor must be in sync, or the partition ends with fewer in-sync copies than it started with.",
        source: "docs/model/reassignment.md#g8, #completion, #ends; PartitionReassignmentReplicas.maybeCompleteReassignment (3d267d4536)",
        check: Check::Step(g8_rf_guard),
    },
    Invariant {
        id: "G9",
        kind: Kind::Always,
        statement: "the completion record drops exactly removing from replicas and ISR, clears both lists, and leaves leader ∈ ISR ∪ {-1}",
        rationale: "Completion must not reorder, add or lose anything but the removing replicas, and must demote a removing leader (testStoppedLeaderIsDemotedAfterReassignmentCompletesEvenIfNoNewEligibleLeaders).",
        source: "docs/model/reassignment.md#g9, #completion-record; PartitionChangeBuilder.completeReassignmentIfNeeded",
        check: Check::Step(g9_completion_record),
    },
    Invariant {
        id: "E1",
        kind: Kind::EventuallyAtQuiescence,
        statement: "once every broker is back and every replica is in the ISR, no reassignment is in progress",
        rationale: "A reassignment that never finishes with a fully healthy cluster blocks the operator's next change and keeps throttles on forever (the stuck override back to the original, history 3).",
        source: "docs/model/reassignment.md#e1, #history-3 (override back to the original)",
        check: Check::Quiescent(e1_quiescent_completion),
    },
    Invariant {
        id: "V1",
        kind: Kind::Sometimes,
        statement: "an alter call overrode a reassignment in progress",
        rationale: "KAFKA-21419 and every hole after it need an override; a generator that stops producing them proves nothing.",
        source: "docs/model/reassignment.md#upstream-derivation",
        check: Check::Sometimes(v1_override),
    },
    Invariant {
        id: "V2",
        kind: Kind::Sometimes,
        statement: "a reassignment completed",
        rationale: "G4, G5, G8 and G9 only bite at completion.",
        source: "docs/model/reassignment.md#completion",
        check: Check::Sometimes(v2_completed),
    },
    Invariant {
        id: "V3",
        kind: Kind::Sometimes,
        statement: "a cancel was accepted",
        rationale: "G6 only bites on cancel.",
        source: "docs/model/reassignment.md#cancel",
        check: Check::Sometimes(v3_cancelled),
    },
    Invariant {
        id: "V4",
        kind: Kind::Sometimes,
        statement: "a partition's leader changed",
        rationale: "Elections inside completion, fencing and ElectLeaders are where leader-related rules differ.",
        source: "docs/model/reassignment.md#election",
        check: Check::Sometimes(v4_leader_changed),
    },
    Invariant {
        id: "V5",
        kind: Kind::Sometimes,
        statement: "a partition's ISR shrank",
        rationale: "Out-of-sync replicas are what make an early completion unsafe.",
        source: "docs/model/reassignment.md#alterpartition",
        check: Check::Sometimes(v5_isr_shrank),
    },
    Invariant {
        id: "V6",
        kind: Kind::Sometimes,
        statement: "a request was rejected",
        rationale: "Validation paths are exercised on purpose; a generator that never hits them leaves the error codes untested.",
        source: "docs/model/reassignment.md#validation",
        check: Check::Sometimes(v6_rejected),
    },
    Invariant {
        id: "V7",
        kind: Kind::Sometimes,
        statement: "a transient exists: a replica in removing that is not original",
        rationale: "The drop-then-re-add hole of the proposed fix needs a transient.",
        source: "docs/model/reassignment.md#transients",
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
        source: "docs/model/inkless.md#seal-commit",
        check: Check::Sometimes(v9_seal_committed),
    },
    Invariant {
        id: "V10",
        kind: Kind::Sometimes,
        statement: "the ISR-expiration task shrank a switched partition",
        rationale: "INV-3 and INV-4 only bite when a lag shrink happens on a switched partition.",
        source: "docs/model/inkless.md#isr-expiration, #lag-check",
        check: Check::Sometimes(v10_switched_shrink),
    },
    Invariant {
        id: "V11",
        kind: Kind::Sometimes,
        statement: "a consolidating follower moved from the consolidation to the classic fetcher (a diversion)",
        rationale: "CE-b2, CE-c3 and CE-d all start with a diversion.",
        source: "docs/model/inkless.md#b2",
        check: Check::Sometimes(v11_diverted),
    },
    Invariant {
        id: "V12",
        kind: Kind::Sometimes,
        statement: "a follower fetch was answered by the at-seal branch",
        rationale: "INV-6 and the #760 admission are about that answer.",
        source: "docs/model/inkless.md#at-seal-fetch",
        check: Check::Sometimes(v12_at_seal_answer),
    },
    // Inkless (docs/model/inkless.md#invariants). Sources are aiven/inkless paths under core/src/main/scala/kafka/.
    Invariant {
        id: "INV-1",
        kind: Kind::Always,
        statement: "lag safety: on a classic, pending or switched partition with a live leader, no ISR follower below the leader's end (the seal, once committed) stays silent for 2 × replica_lag_time_max_ms",
        rationale: "A follower that stopped fetching must leave the ISR within lag plus one task period, or it stays electable while missing data. With diskless topics never evaluated for shrink, a stalled follower of a switched partition stays in the ISR forever and a failover loses the gap up to the seal (CE-a).",
        source: "docs/model/inkless.md#inv-1, #ce-a; server/ReplicaManager.scala maybeShrinkIsr, cluster/Partition.scala maybeShrinkIsr",
        check: Check::Step(inv1_lag_safety),
    },
    Invariant {
        id: "INV-2",
        kind: Kind::Always,
        statement: "electable prefix: a replica joins the ISR of a switched partition (seal ≥ 0), or is elected its leader, only holding the whole classic prefix (local LEO ≥ seal; a consolidating leader can rebuild it); unclean elections excepted, and after one the partition's elected leaders are no longer judged (joins still are); with ELR on, an ELR member elected returns to the ISR rather than joins it (its election is judged)",
        rationale: "Admission paths that skip a leader-observed fetch let an empty replica become electable: the one-step reassignment (CE-e) and the unfence expansion (CE-f). #757 and #754 close them for committed and pending seals.",
        source: "docs/model/inkless.md#inv-2, #ce-e, #ce-f; metadata ReplicationControlManager changePartitionReassignment (9082a19e2f), expandIsrForDisklessManagedPartitions (43b016f6ec); ELR: PartitionChangeBuilder.tryElection (9082a19e2f, as apache trunk d79bd502ec)",
        check: Check::Step(inv2_electable_prefix),
    },
    Invariant {
        id: "INV-3",
        kind: Kind::Always,
        statement: "no spurious shrink: the ISR-expiration task never removes a follower of a switched partition whose recorded offset is at or above the seal",
        rationale: "Past the seal every consolidating replica grows its log from object storage and never fetches from the leader, so its record stays at the seal while the leader's LEO moves on. Comparing against that LEO (CE-b1), or requiring equality with the capped end (CE-b2), shrinks healthy followers for good.",
        source: "docs/model/inkless.md#inv-3, #ce-b1, #ce-b2; cluster/Partition.scala isFollowerOutOfSync (150ec6ed61, 5f22fac12b)",
        check: Check::Step(inv3_no_spurious_shrink),
    },
    Invariant {
        id: "INV-4",
        kind: Kind::Always,
        statement: "leader-change evidence: the ISR-expiration task never removes a live, unstalled follower of a switched partition that holds the prefix",
        rationale: "After a leader change the new leader has reset its records; a healthy follower must show itself with one classic fetch, or it is shrunk a lag later: an at-seal follower that schedules no fetch (CE-c1), a consolidating one restarted on consolidation (CE-c2).",
        source: "docs/model/inkless.md#inv-4, #ce-c1, #ce-c2; server/ReplicaManager.scala applyLocalFollowersDelta (150ec6ed61, 5f22fac12b)",
        check: Check::Step(inv4_leader_change_evidence),
    },
    Invariant {
        id: "INV-4b",
        kind: Kind::Always,
        statement: "leader-change keying: a leader-epoch bump without a leader move diverts no consolidating follower and starts no extra catch-up fetch on an in-sync at-seal follower",
        rationale: "A same-leader bump (switch-pending mark, re-arm, a completion that drops another replica) keeps the leader's records, so the followers need not prove anything; keying the catch-up on the epoch instead of the leader move makes every delta trigger a fetch (CE-c4).",
        source: "docs/model/inkless.md#inv-4b, #leader-change, #ce-c4; server/ReplicaManager.scala applyLocalFollowersDelta (leaderChanged, 150ec6ed61)",
        check: Check::Step(inv4b_keyed_on_leader_move),
    },
    Invariant {
        id: "INV-5",
        kind: Kind::Always,
        statement: "single writer: no follower has a partition on the classic and the consolidation fetcher at once",
        rationale: "Two fetchers append to one log; the second append finds its fetch offset no longer equal to the log end and the partition fails (CE-c3).",
        source: "docs/model/inkless.md#inv-5, #ce-c3; server/ReplicaFetcherThread.scala processPartitionData; server/ReplicaManager.scala applyLocalFollowersDelta (5f22fac12b)",
        check: Check::Step(inv5_single_writer),
    },
    Invariant {
        id: "INV-6",
        kind: Kind::Always,
        statement: "at-seal response shape: a follower fetch at or above a committed seal gets no records and HW = seal",
        rationale: "Served from the leader's local log instead, a diverted follower appends consolidated records through the classic fetcher and takes the leader's frontier as its HW (CE-d).",
        source: "docs/model/inkless.md#inv-6, #ce-d; server/ReplicaManager.scala fetchMessages (13ae69df5c)",
        check: Check::Step(inv6_at_seal_response),
    },
    Invariant {
        id: "INV-7",
        kind: Kind::Always,
        statement: "exemption: no lag shrink on a diskless partition with seal -1 (born diskless or aborted)",
        rationale: "Those partitions have no classic replication to judge lag by; shrinking them would empty their ISR.",
        source: "docs/model/inkless.md#inv-7; server/ReplicaManager.scala maybeShrinkIsr (150ec6ed61)",
        check: Check::Step(inv7_exemption),
    },
    Invariant {
        id: "INV-8",
        kind: Kind::Always,
        statement: "seal monotonicity: only -1→-2, -2→-1, -2→-2, -2→s≥0 and s→s′ with 0 ≤ s′ ≤ s",
        rationale: "Readers route by the seal; a committed seal that turned negative or grew would move data between the classic and diskless tiers.",
        source: "docs/model/inkless.md#inv-8, #seal-transitions; metadata ReplicationControlManager alterDisklessSwitch, initDisklessLog, markClassicToDisklessSwitchStarted",
        check: Check::Step(inv8_seal_monotonic),
    },
    Invariant {
        id: "INV-9",
        kind: Kind::EventuallyAtQuiescence,
        statement: "progress after diversion: on a consolidating partition (seal ≥ 0 or born diskless) with a live leader, every live follower is back on the consolidation fetcher",
        rationale: "A diverted follower must return to consolidation after one classic round (or after admission with #760); one left on the classic fetcher, or on none, stops growing its log.",
        source: "docs/model/inkless.md#inv-9; server/ReplicaFetcherThread.scala processPartitionData; ConsolidationReconciler.startConsolidationFetchersForCaughtUpClassicPartitions",
        check: Check::Quiescent(inv9_back_on_consolidation),
    },
    Invariant {
        id: "E2",
        kind: Kind::EventuallyAtQuiescence,
        statement: "re-admission: once every broker is healthy, every live replica of a switched partition that holds the prefix is in the ISR",
        rationale: "A follower shrunk or fenced while healthy must find its way back; with generic expansion a consolidating leader's frontier keeps it out for good (docs/model/inkless.md#at-seal-admission), and a restarted consolidating follower goes straight to consolidation with no admission path (E9).",
        source: "docs/model/inkless.md#e2, #at-seal-admission; cluster/Partition.scala maybeExpandIsrAtSeal (e74ed8ba0d)",
        check: Check::Quiescent(e2_readmission),
    },
    // The data plane (docs/model/brokers.md#data-invariants): classic topics, until an
    // unclean election gives the guarantee up.
    Invariant {
        id: "D1",
        kind: Kind::Always,
        statement: "no acknowledged record is lost: every record an acks=all producer was told is written is held, with its epoch, by some replica",
        rationale: "The property Kafka users rely on most. Truncating to a stale high watermark (before KIP-101) cuts an acknowledged record from the one follower that had it.",
        source: "docs/model/brokers.md#data-invariants; KIP-101 scenario 1; cluster/Partition.scala checkEnoughReplicasReachOffset (confluentinc/kafka 06d492d813)",
        check: Check::Step(d1_acked_kept),
    },
    Invariant {
        id: "D2",
        kind: Kind::Always,
        statement: "candidate completeness: a live, recovered leader holds every acknowledged record",
        rationale: "A clean election picks an ISR member, and every ISR member holds what the high watermark passed; a leader without an acknowledged record serves a log that lost it.",
        source: "docs/model/brokers.md#data-invariants; cluster/Partition.scala maybeIncrementLeaderHW, makeLeader",
        check: Check::Step(d2_leader_holds_acked),
    },
    Invariant {
        id: "D3",
        kind: Kind::Always,
        statement: "log matching: two replicas hold the same record (same epoch) at every offset below both their high watermarks",
        rationale: "Below the high watermark a record is committed and may have been read; two replicas that disagree there have diverged (KIP-101 scenario 2).",
        source: "docs/model/brokers.md#data-invariants; KIP-101 scenario 2; hachikuji/kafka-specification's log-matching property (Kip101.tla)",
        check: Check::Step(d3_log_matching),
    },
    Invariant {
        id: "D4",
        kind: Kind::EventuallyAtQuiescence,
        statement: "once healed, every replica holds every acknowledged record, and the logs match below the high watermarks",
        rationale: "Replication must finish: a replica that can never fetch an acknowledged record back, or keeps a diverged tail, is a stuck fetcher.",
        source: "docs/model/brokers.md#data-invariants; server/AbstractFetcherThread.scala truncateOnFetchResponse",
        check: Check::Quiescent(d4_acked_everywhere),
    },
    Invariant {
        id: "D5",
        kind: Kind::Always,
        statement: "consistent read: a record the serving leader's high watermark passed (acks=1 included) is never replaced: the serving leader, and every live replica whose high watermark passes it, holds that record (same epoch) unless it is below their log start",
        rationale: "A consumer reads up to the high watermark; if that record later changes or disappears from the leader, two consumers see different logs. Truncating to a stale high watermark (before KIP-101) lets a new leader overwrite acks=1 records that were already readable, which D1 and D2 (acks=all only) do not see.",
        source: "docs/model/brokers.md#data-invariants; server-common FetchIsolation.of (HIGH_WATERMARK for consumers), storage UnifiedLog.read (confluentinc/kafka 06d492d813)",
        check: Check::Step(d5_consistent_read),
    },
    Invariant {
        id: "V13",
        kind: Kind::Sometimes,
        statement: "an acks=all produce was acknowledged",
        rationale: "D1, D2 and D4 judge acknowledged records; without any they hold vacuously.",
        source: "docs/model/brokers.md#produce",
        check: Check::Sometimes(v13_acknowledged),
    },
    Invariant {
        id: "V14",
        kind: Kind::Sometimes,
        statement: "a follower truncated its log where it parted from its leader's",
        rationale: "The truncation rule only matters when a log diverged.",
        source: "docs/model/brokers.md#truncation",
        check: Check::Sometimes(v14_truncated),
    },
    Invariant {
        id: "V15",
        kind: Kind::Sometimes,
        statement: "records no acks=all producer waited for became readable below the high watermark",
        rationale: "D5 judges read records, acks=1 ones included; without reads beyond the acknowledged ones it adds nothing to D1 and D2.",
        source: "docs/model/brokers.md#data-invariants",
        check: Check::Sometimes(v15_read_unacked),
    },
    Invariant {
        id: "V16",
        kind: Kind::Sometimes,
        statement: "a follower fetched below its leader's log start (OFFSET_OUT_OF_RANGE) and started over there",
        rationale: "The deleted-on-purpose exemption and the fetcher's full truncation only matter once DeleteRecords left a follower behind.",
        source: "docs/model/brokers.md#follower-fetch; AbstractFetcherThread.fetchOffsetAndTruncate",
        check: Check::Sometimes(v16_below_log_start),
    },
    Invariant {
        id: "V17",
        kind: Kind::Sometimes,
        statement: "a power loss lost records a broker had not flushed",
        rationale: "The recovery point decides what an unclean shutdown keeps; a run where none loses anything never tests the committed_lost exemption.",
        source: "docs/model/brokers.md#stall-and-restart; LogLoader.recoverLog",
        check: Check::Sometimes(v17_unflushed_lost),
    },
    // Eligible leader replicas (docs/model/reassignment.md#elr-invariants): empty, and so
    // held, unless the history turns the ELR feature on.
    Invariant {
        id: "ELR1",
        kind: Kind::Always,
        statement: "ELR ⊆ replicas",
        rationale: "An ELR member stands for a replica that holds every committed record; a broker that is no longer a replica holds no log of the partition. The controller never elects it (elections walk the replica list), but the registration then names a safe leader that is not one.",
        source: "docs/model/reassignment.md#elr-invariants; KIP-966; PartitionChangeBuilder.maybePopulateTargetElr (apache trunk d79bd502ec)",
        check: Check::Step(elr1_within_replicas),
    },
    Invariant {
        id: "ELR2",
        kind: Kind::Always,
        statement: "ELR ∩ ISR = ∅",
        rationale: "A replica is either in sync or eligible after leaving the ISR, never both; upstream refuses to replay a registration that breaks this.",
        source: "docs/model/reassignment.md#elr-invariants; ReplicationControlManager.replay(PartitionChangeRecord) validation, PartitionChangeBuilder.maybePopulateTargetElr (apache trunk d79bd502ec)",
        check: Check::Step(elr2_disjoint_from_isr),
    },
    Invariant {
        id: "ELR3",
        kind: Kind::Always,
        statement: "|ISR| ≥ min(min.insync.replicas, |replicas|) ⇒ ELR = ∅",
        rationale: "The ELR only exists while the ISR is below the effective min ISR (capped at the replication factor): every build clears it once the target ISR reaches it. Upstream takes the cap from the replica list before a completion shortens it, and elects from the ELR after that step (ISR = {leader} next to a non-empty ELR when min ISR ≤ 1, which the model cannot reach): docs/model/reassignment.md#elr-invariants.",
        source: "docs/model/reassignment.md#elr-invariants; KIP-966; PartitionChangeBuilder.maybePopulateTargetElr, tryElection, ReplicationControlManager.getTopicEffectiveMinIsr (apache trunk d79bd502ec)",
        check: Check::Step(elr3_empty_at_min_isr),
    },
    Invariant {
        id: "V18",
        kind: Kind::Sometimes,
        statement: "a replica entered a partition's ELR",
        rationale: "ELR1-ELR3 only bite once an ELR is non-empty, and generated histories reach that only with ELR on and an ISR shrinking below min.insync.replicas.",
        source: "docs/model/reassignment.md#eligible-leader-replicas; PartitionChangeBuilder.maybePopulateTargetElr (apache trunk d79bd502ec)",
        check: Check::Sometimes(v18_entered_elr),
    },
    Invariant {
        id: "V19",
        kind: Kind::Sometimes,
        statement: "a partition's new leader was elected from its ELR",
        rationale: "The ELR exists to be elected from; an election from it puts a replica outside the ISR back in as leader, the path the reassignment and Inkless invariants must survive with ELR on.",
        source: "docs/model/reassignment.md#eligible-leader-replicas; PartitionChangeBuilder.isValidNewLeader, tryElection (apache trunk d79bd502ec)",
        check: Check::Sometimes(v19_elected_from_elr),
    },
];
