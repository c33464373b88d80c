//! The replica fetcher's own state (docs/model/fetcher.md): each mechanism as a scenario
//! named after the upstream method it follows (apache trunk `d79bd502ec`, through
//! confluentinc/kafka; aiven/inkless `5f22fac12b`), and each one run again with the
//! mechanism taken away, which must change the outcome.
//!
//! Taking the fetch state away means what the model did before it kept one: every fetcher
//! follows every cut of its log to the new end (`fetchers_follow_cut` after each event), so
//! no fetch is ever sent from a position the log was cut away from.

use crate::common;

use isrfuzz::check::oracle::{self, ApplyFn};
use isrfuzz::model::broker::{FetchPhase, Local};
use isrfuzz::model::{apply, Cluster, Event, Note, Outcome, Rules};
use isrfuzz::rules::RuleSet;

/// A consolidating switch whose follower 2 fetched [0,20) and stays on the classic fetcher
/// through the pending phase; then an operator seal at 15 (a partition epoch bump only).
const OPERATOR_SEAL: &str =
    "create 1,2; produce 20; time 7500; switch consolidating; alter-switch 15";

/// The model without fetch positions of their own: after every event each fetcher's state
/// moves to its log end.
fn fetchers_follow_every_cut(c: &mut Cluster, e: &Event, r: &dyn Rules) -> Outcome {
    let out = apply(c, e, r);
    for rt in &mut c.runtime.partitions {
        for l in &mut rt.locals {
            l.fetchers_follow_cut();
        }
    }
    out
}

fn complete() -> RuleSet {
    RuleSet::complete()
}

/// The cluster after `text`, applied with `step` (the model's `apply`, or a mutation).
fn after(text: &str, step: ApplyFn) -> Cluster {
    let h = common::parse(text);
    let rules = complete();
    let mut c = Cluster::new(&h.brokers, h.broker_config).with_elr(h.eligible_leader_replicas);
    for e in &h.events {
        step(&mut c, e, &rules);
    }
    c
}

fn follower(c: &Cluster, b: i32) -> &Local {
    c.runtime.partitions[0].local(b).expect("hosts a replica")
}

/// `ReplicaManager.applyLocalFollowersDelta` restarts a follower's fetcher only on a new
/// leader epoch (`ReplicaManagerTest.testFetcherAreNotRestartedIfLeaderEpochIsNotBumped`),
/// and Inkless's `maybeTruncateSwitchedFollower` cuts the log to a committed seal on every
/// delta (`ReplicaManagerInklessTest.testApplyDeltaReconcilesCommittedSealOffsetWithOnlySealOffsetChange`):
/// the running fetcher keeps its position and last fetched epoch past the cut.
#[test]
fn apply_local_followers_delta_keeps_the_fetcher_past_the_cut() {
    let c = after(OPERATOR_SEAL, apply);
    let f = follower(&c, 2);
    assert_eq!(f.leo(), 15, "cut to the seal");
    let state = f.fetchers.classic.expect("still on the classic fetcher");
    assert_eq!(
        (state.offset, state.leader_epoch, state.last_fetched_epoch),
        (20, c.partitions[0].leader_epoch, 0),
        "the position from before the cut, for the same leader epoch"
    );
    // Without fetch positions of their own, the fetcher follows the cut.
    let c = after(OPERATOR_SEAL, fetchers_follow_every_cut);
    let state = follower(&c, 2).fetchers.classic.expect("classic");
    assert_eq!(state.offset, 15);
}

/// `ReplicaFetcherThread.processPartitionData` refuses an answer whose fetch offset is not
/// the log end, and `AbstractFetcherThread.processFetchRequest` marks the partition failed
/// (`AbstractFetcherThreadTest.testFetcherThreadHandlingPartitionFailureDuringAppending`).
/// Here the answer is Inkless's at-seal answer (no records, HW = seal); nothing restarts
/// the fetcher, so follower 2 never reaches consolidation (docs/findings.md F21).
#[test]
fn process_partition_data_marks_an_offset_mismatch_failed() {
    let text = format!("{OPERATOR_SEAL}; time 7500");
    let c = after(&text, apply);
    let f = follower(&c, 2);
    assert!(f.fetchers.classic.is_none() && f.fetchers.classic_failed);
    assert!(f.fetchers.consolidation.is_none(), "never handed over");
    let h = common::parse(&text);
    let verdict = oracle::run(&h, &[complete()], false);
    assert!(verdict.sides[0].violates("INV-9"), "F21 on complete");
    // Without the cut under a live fetcher the follower is handed to consolidation.
    let c = after(&text, fetchers_follow_every_cut);
    let f = follower(&c, 2);
    assert!(!f.fetchers.classic_failed && f.fetchers.consolidation.is_some());
}

/// `ConsolidationFetcherThread` extends `ReplicaFetcherThread` and inherits the same check:
/// a consolidating follower whose log an operator seal cuts under its consolidation fetcher
/// fails its next append from object storage and is marked failed there.
#[test]
fn consolidation_fetcher_thread_inherits_the_append_check() {
    let text = "create 1,2; produce 31; time 7500; switch consolidating; alter-switch 31; \
                time 7500; alter-switch 15; produce 2; time 7500";
    let c = after(text, apply);
    let f = follower(&c, 2);
    assert!(
        f.fetchers.consolidation.is_none() && f.fetchers.consolidation_failed,
        "{:?} at LEO {}",
        f.fetchers,
        f.leo()
    );
    let c = after(text, fetchers_follow_every_cut);
    let f = follower(&c, 2);
    assert!(!f.fetchers.consolidation_failed && f.fetchers.consolidation.is_some());
}

/// `AbstractFetcherThread.partitionFetchState` keeps a state of the same leader epoch
/// (offset included) and makes a new one at the log end for another epoch;
/// `AbstractFetcherThread.addPartitions` clears a failed mark; `markPartitionFailed`
/// removes the partition and its state.
#[test]
fn add_partitions_keeps_a_state_of_the_same_leader_epoch() {
    let mut l = Local::fresh(2, 0);
    l.log.append(0, 20);
    l.start_classic(1);
    let at_start = l.fetchers.classic.expect("started");
    assert_eq!(
        (at_start.offset, at_start.phase),
        (20, FetchPhase::Fetching)
    );
    l.log.truncate_to(15);
    l.start_classic(1);
    assert_eq!(l.fetchers.classic_offset(), Some(20), "same epoch: kept");
    l.start_classic(2);
    assert_eq!(
        l.fetchers.classic_offset(),
        Some(15),
        "new epoch: at the end"
    );
    l.fail_classic();
    assert!(l.fetchers.classic.is_none() && l.fetchers.classic_failed);
    l.start_classic(2);
    assert!(!l.fetchers.classic_failed && l.fetchers.classic_offset() == Some(15));
    l.fail_classic();
    l.stop_classic();
    assert!(
        !l.fetchers.classic_failed,
        "removeFetcherForPartitions clears it"
    );
}

/// `AbstractFetcherThread.onPartitionFenced`: FENCED_LEADER_EPOCH for the fetcher's own
/// leader epoch marks the partition failed (`AbstractFetcherThreadTest.testFencedFetch`);
/// UNKNOWN_LEADER_EPOCH (a fetcher ahead of the leader) is retried and changes nothing.
#[test]
fn on_partition_fenced_marks_the_partition_failed() {
    let text = "create 1,2; produce 10; time 7500";
    for (shift, failed) in [(-1, true), (1, false)] {
        let h = common::parse(text);
        let rules = complete();
        let mut c = common::cluster_after(&h, &h.events, &rules);
        let le = c.partitions[0].leader_epoch;
        let f = common::local(&mut c, 2);
        f.log.append(0, 0);
        let state = f.fetchers.classic.as_mut().expect("fetching");
        state.leader_epoch = le + shift;
        apply(&mut c, &Event::AdvanceTime { ms: 7500 }, &rules);
        let f = follower(&c, 2);
        assert_eq!(f.fetchers.classic_failed, failed, "epoch shift {shift}");
        assert_eq!(f.fetchers.classic.is_some(), !failed, "epoch shift {shift}");
    }
}

/// `AbstractFetcherThread.fetchOffsetAndTruncate` judges the follower's log end, not the
/// fetch offset: a fetcher asking below the leader's log start whose log ends within the
/// leader's range keeps its log and asks again from its log end (a reset judged by the
/// fetch offset would delete the log and start over at the leader's start).
#[test]
fn fetch_offset_and_truncate_judges_the_log_end() {
    let text = "create 1,2; produce 10; time 7500; delete 8; produce 5";
    let h = common::parse(text);
    let rules = complete();
    let mut c = common::cluster_after(&h, &h.events, &rules);
    assert_eq!(c.runtime.partitions[0].local(1).unwrap().log.start(), 8);
    let f = common::local(&mut c, 2);
    assert_eq!((f.log.start(), f.leo()), (0, 10));
    f.fetchers.classic.as_mut().expect("fetching").offset = 2;
    let out = apply(&mut c, &Event::AdvanceTime { ms: 7500 }, &rules);
    let reset = out.notes().iter().find_map(|n| match n {
        Note::OutOfRange {
            follower: 2,
            fetch_offset,
            to,
            ..
        } => Some((*fetch_offset, *to)),
        _ => None,
    });
    assert_eq!(reset, Some((2, 10)), "kept [0,10), asked again from 10");
    let f = follower(&c, 2);
    assert!(!f.fetchers.classic_failed);
    assert_eq!(f.leo(), 15, "then caught up");
    assert_eq!(f.fetchers.classic_offset(), Some(15));
}

/// `Partition.readRecords` answers OFFSET_OUT_OF_RANGE for a last fetched epoch its epoch
/// cache cannot place (`PartitionTest.testLastFetchedOffsetValidation`), and
/// `fetchOffsetAndTruncate` leaves a log within the leader's range as it is: a follower
/// whose epoch a consolidating leader's cache lost asks the same for ever (docs/findings.md
/// F22). The generations before KIP-320 send no last fetched epoch, and the follower gets
/// through.
#[test]
fn read_records_answers_an_unplaced_epoch_out_of_range() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/corpus/regressions/f22-unplaced-epoch-keeps-a-follower-out-for-good.json"
    );
    let h = isrfuzz::check::history::History::load(std::path::Path::new(path)).unwrap();
    let v23 = isrfuzz::check::invariants::INVARIANTS
        .iter()
        .position(|i| i.id == "V23")
        .unwrap();
    let run = |rules: &str| oracle::run(&h, &[RuleSet::parse(rules).unwrap()], true);
    let today = run("complete");
    assert!(today.sides[0].violates("INV-9") && today.sides[0].sometimes[v23] > 0);
    let last = &today.sides[0].steps.last().unwrap().state;
    let f = last.runtime.partitions[0].local(2).unwrap();
    assert!(!last.partitions[0].isr.contains(&2) && f.leo() == 0);
    // Without a last fetched epoch in the fetch (the KIP-279 generation), no such answer.
    let older = run("complete+truncation=kip-279");
    assert_eq!(older.sides[0].sometimes[v23], 0);
    assert!(
        !older.sides[0].violates("INV-9"),
        "{:?}",
        older.sides[0].violations
    );
}
