//! The Inkless mechanisms of the data plane (docs/model/inkless.md#truncation-to-the-seal,
//! #at-seal-fetch, #stale-classic-fetcher), each a scenario named after the upstream method
//! (aiven/inkless, core/src/main/scala/kafka/; commits in each test). A scenario prints,
//! per rule set, the verdict and each replica's log as its epoch cache sees it (`e<epoch>@<start>
//! ..<end>`), its high watermark and its fetchers (c classic with the leader epoch it fetches
//! for, C consolidation), and the leader's record of each follower.

use crate::common;

use expect_test::{expect, Expect};
use isrfuzz::check::oracle;
use isrfuzz::rules::RuleSet;
use std::fmt::Write;

fn logs(history: &str, rule_sets: &[&str]) -> String {
    let h = common::parse(history);
    let mut out = String::new();
    for name in rule_sets {
        let verdict = oracle::run(&h, &[RuleSet::parse(name).unwrap()], true);
        let side = &verdict.sides[0];
        let mut ids: Vec<String> = side
            .violations
            .iter()
            .map(|v| format!("{}@{}", v.invariant, v.step))
            .collect();
        ids.dedup();
        let verdict_text = if ids.is_empty() {
            "holds".to_string()
        } else {
            ids.join(" ")
        };
        let c = &side.steps.last().expect("at least one step").state;
        let (p, rt) = (&c.partitions[0], &c.runtime.partitions[0]);
        let _ = writeln!(
            out,
            "{name}: {verdict_text}\n  seal={} le={} isr={:?}",
            p.seal, p.leader_epoch, p.isr
        );
        for l in &rt.locals {
            let lead = if l.broker == p.leader { "*" } else { "" };
            let mut fetchers = String::new();
            if let Some(f) = l.fetchers.classic {
                let _ = write!(fetchers, " c{}", f.leader_epoch);
            }
            if l.fetchers.consolidation.is_some() {
                fetchers.push_str(" C");
            }
            let rec = rt
                .leader
                .as_ref()
                .and_then(|s| s.rec(l.broker))
                .map_or(String::new(), |r| format!(" rec {}", r.leo));
            let _ = writeln!(
                out,
                "  {}{lead}: {} hw {}{fetchers}{rec}",
                l.broker,
                l.log.describe(),
                l.hw
            );
        }
    }
    out
}

fn check(history: &str, rule_sets: &[&str], expect: Expect) {
    expect.assert_eq(&logs(history, rule_sets));
}

// ---- Truncation to the seal: `ReplicaManager.maybeTruncateSwitchedFollower` and
// ---- `maybeReconcileSwitchedLeader` through `shouldTruncateSwitchedPartitionToSeal`
// ---- (aiven/inkless 5f22fac12b; identical on main b1fcb5f6f7 and #760 82c0e1a2e5, so the
// ---- model has no variant for it).

/// maybeTruncateSwitchedFollower, non-consolidating: an operator seal at 6 below the logs'
/// end (10) cuts the follower's classic records [6, 10) as well as the leader's.
#[test]
fn maybe_truncate_switched_follower_cuts_records_above_an_operator_seal() {
    check(
        "create 1,2; produce 10; time 15000; switch; alter-switch 6; time 15000",
        &["inkless-main", "complete"],
        expect![[r#"
            inkless-main: holds
              seal=6 le=1 isr=[1, 2]
              1*: e0@0 ..6 hw 6
              2: e0@0 ..6 hw 6 rec 6
            complete: holds
              seal=6 le=1 isr=[1, 2]
              1*: e0@0 ..6 hw 6
              2: e0@0 ..6 hw 6 rec 6
        "#]],
    );
}

/// maybeReconcileSwitchedLeader on a consolidating leader: an operator seal at 6 below its
/// end leaves classic records (epoch 0) in [6, 10), which `hasConsolidatedDisklessSuffixFromSeal`
/// does not prove diskless (the diskless leader epoch is 1), so leader and follower are cut
/// to the seal; consolidation then appends the diskless records (epoch 1) from 6. Follower
/// 2, still on the classic fetcher from the pending phase, is not restarted (no new leader
/// epoch) and keeps its position 10 past the cut: its next answer, at the seal, fails the
/// append check and the partition is marked failed for good (docs/findings.md F21, INV-9),
/// on both sides. Before the model kept the fetch state, `pr756`'s follower read across the
/// seal here instead (INV-6, F8's second window, which tests/regressions still reach).
#[test]
fn maybe_reconcile_switched_leader_cuts_a_consolidating_leader_to_an_operator_seal() {
    check(
        "create 1,2; produce 10; time 15000; switch consolidating; alter-switch 6; produce 2; time 15000",
        &["pr756", "complete"],
        expect![[r#"
            pr756: INV-9@7
              seal=6 le=1 isr=[1, 2]
              1*: e0@0 e1@6 ..8 hw 8 C
              2: e0@0 ..6 hw 6 rec 6
            complete: INV-9@7
              seal=6 le=1 isr=[1, 2]
              1*: e0@0 e1@6 ..8 hw 8 C
              2: e0@0 ..6 hw 6 rec 6
        "#]],
    );
}

/// hasConsolidatedDisklessSuffixFromSeal: records above the seal that consolidation wrote
/// (every one stamped with the diskless leader epoch) stay when the leader moves; the new
/// leader 3 keeps its 15 records.
#[test]
fn has_consolidated_diskless_suffix_from_seal_keeps_consolidated_records() {
    check(
        "create 1,3,2; produce 10; time 15000; switch consolidating; time 15000; seal; \
         produce 5; time 15000; shutdown 1; time 15000",
        &["complete"],
        expect![[r#"
            complete: holds
              seal=10 le=2 isr=[3, 2]
              1: e0@0 e1@10 ..15 hw 15 rec -1
              2: e0@0 e1@10 ..15 hw 15 C rec 10
              3*: e0@0 e1@10 e2@15 ..15 hw 15 C
        "#]],
    );
}

// ---- The at-seal validation on a leader below the seal: `ReplicaManager.fetchMessages`
// ---- calls `Partition.fetchRecords` at the seal with no bytes (5f22fac12b); #760 skips it
// ---- on a leader whose log ends below the seal (e74ed8ba0d). Rule `seal-admission`.

/// A consolidating leader elected without the prefix (the operator seal of F5 left 3 in the
/// ISR with nothing; 3 is stalled, so it has not rebuilt the prefix yet) answers follower 2,
/// diverted at the seal. Before #760 (`pr756`) the validation at the seal is beyond the
/// leader's end: 2 is not recorded and cuts its log to the leader's end, losing the prefix
/// it held (to 0: the leader knows no epoch ≤ 0, so the answer is OFFSET_OUT_OF_RANGE and
/// the leader's end is 0), and waits below the seal for the leader to rebuild (E2 at
/// quiescence). With #760 the leader validates nothing: 2 keeps its log.
#[test]
fn fetch_records_at_the_seal_on_a_leader_below_it() {
    check(
        "create 1,3,2; stall 3; produce 5; time 15000; switch consolidating; alter-switch 5; \
         fence 1; time 15000",
        &["pr756", "pr756+seal-admission=pr760"],
        expect![[r#"
            pr756: E2@8
              seal=5 le=2 isr=[3, 2]
              1: e0@0 e1@5 ..5 hw 5 C rec -1
              2: ..0 hw 0 c2 rec -1
              3*: e2@0 ..0 hw 0 C
            pr756+seal-admission=pr760: holds
              seal=5 le=2 isr=[3, 2]
              1: e0@0 e1@5 ..5 hw 5 C rec -1
              2: e0@0 ..5 hw 5 C rec -1
              3*: e2@0 ..0 hw 0 C
        "#]],
    );
}

// ---- A classic fetcher of an older leader epoch: `Partition.fetchRecords` →
// ---- `checkCurrentLeaderEpoch` answers FENCED_LEADER_EPOCH, and
// ---- `AbstractFetcherThread.onPartitionFenced` removes the partition (apache Kafka since
// ---- KIP-320; the same in every Inkless commit modelled).

/// checkCurrentLeaderEpoch: before #760 a same-leader bump (the completion that drops 3)
/// routes consolidating follower 2 to consolidation and leaves its classic fetcher from the
/// pending phase in place, for epoch 1 (two writers, INV-5, F8). Its next fetch is fenced by
/// leader epoch 2 and the fetcher is gone; the leader's record of 2 no longer moves. With
/// #760 the bump drops both fetchers first and nothing is left to fence. (On both, 2 was
/// handed to consolidation unrecorded: F6.)
#[test]
fn check_current_leader_epoch_fences_a_classic_fetcher_left_by_a_re_route() {
    check(
        "create 1,2,3; switch consolidating; seal; reassign 2,1; time 15000",
        &["pr756", "complete"],
        expect![[r#"
            pr756: INV-5@3 E2@5
              seal=0 le=2 isr=[2, 1]
              1*: e2@0 ..0 hw 0 C
              2: ..0 hw 0 C rec -1
            complete: holds
              seal=0 le=2 isr=[1, 2]
              1*: e2@0 ..0 hw 0 C
              2: ..0 hw 0 C rec -1
        "#]],
    );
}

// ---- An aborted switch has no diskless log: the control plane gets one only for a
// ---- born-diskless topic (`ControllerApis.createTopicsDiskless`) or from the leader once a
// ---- seal commits (`ReplicaManager.initDisklessLogOnControlPlane`), aiven/inkless main
// ---- b1fcb5f6f7.

/// The produce after the abort is answered UNKNOWN_TOPIC_OR_PARTITION (`nonexistent_log`)
/// and consolidation fetches nothing (`DisklessLeaderEndPoint.fetch`): leader 2 keeps record
/// 0 with its epoch 1 and its high watermark. The model used to take the produce into a
/// diskless log at 0 and consolidate [1, 11) stamped 0 after it, which dropped epoch 1's
/// entry (`corpus/regressions/aborted-switch-has-no-diskless-log.json`).
#[test]
fn an_aborted_switch_takes_no_produce_and_consolidates_nothing() {
    check(
        "create 1; reassign 2; time 30000; produce 1 acks=all; switch consolidating; \
         alter-switch -1; produce 10; time 30000",
        &["complete"],
        expect![[r#"
            complete: holds
              seal=-1 le=2 isr=[2]
              2*: e1@0 e2@1 ..1 hw 1 C
        "#]],
    );
}

// ---- A follower fetch the leader's local log answers carries the last fetched epoch on a
// ---- diskless topic too: `ReplicaManager.fetchMessages` sends a pending switch's fetch,
// ---- and one below a committed seal, to `readFromLog` → `Partition.fetchRecords` →
// ---- `readRecords` (aiven/inkless main b1fcb5f6f7), whose diverging epoch the follower
// ---- applies in `AbstractFetcherThread.truncateOnFetchResponse` (no diskless case).

/// Pending switch: 2 led epoch 1 with an empty log and took record 0 (epoch 1), never
/// replicated; the switch bumps the epoch and fencing 2 elects 3 (5 records, epoch 0). Back,
/// 2 fetches at 1 with last fetched epoch 1, which 3's log ends at 5 with epoch 0: a
/// diverging epoch, and 2 cuts to 0 before it copies [0, 5). The model used to skip the
/// check on every diskless partition, and 2 kept record 0 of epoch 1 under the high
/// watermark and rejoined the ISR.
#[test]
fn read_records_answers_a_diverging_epoch_on_a_pending_switch() {
    check(
        "brokers 1,2,3; create 1,2; reassign 2,3; produce 5 acks=all; fetch 3; produce 1; \
         switch consolidating; fence 2; unfence 2; time 15000",
        &["complete"],
        expect![[r#"
            complete: holds
              seal=-2 le=3 isr=[3, 2]
              2: e0@0 ..5 hw 5 c3 rec 5
              3*: e0@0 e3@5 ..5 hw 5
        "#]],
    );
}

/// The same follower once 3 has committed the seal at 5: 2's fetch at 1 is below it, read
/// from the local log (rule `seal-fetch`), and diverges the same way.
#[test]
fn read_records_answers_a_diverging_epoch_below_a_committed_seal() {
    check(
        "brokers 1,2,3; create 1,2; reassign 2,3; produce 5 acks=all; fetch 3; produce 1; \
         switch consolidating; fence 2; seal; unfence 2; time 15000",
        &["complete"],
        expect![[r#"
            complete: holds
              seal=5 le=3 isr=[3, 2]
              2: e0@0 ..5 hw 5 C rec 5
              3*: e0@0 e3@5 ..5 hw 5 C
        "#]],
    );
}

// ---- The at-seal validation reads through `Partition.fetchRecords` at the seal with the
// ---- follower's last fetched epoch (`ReplicaManager.fetchMessages`, aiven/inkless main
// ---- b1fcb5f6f7 and 5f22fac12b; #760 82c0e1a2e5 admits only without a diverging epoch), so
// ---- `readRecords` can answer a diverging epoch there too: not recorded, no admission, and
// ---- the follower truncates (`AbstractFetcherThread.truncateOnFetchResponse`).

/// 2 led epoch 1 with an empty log and took 6 records nobody replicated; fenced while the
/// switch is pending, 3 (5 records of epoch 0) leads and commits the seal at 5, and 2's log
/// is cut to the seal at its delta. 2 fetches at 5, at the seal: 3's log ends epoch ≤ 1 at
/// 5 with epoch 0, a diverging epoch; 2 cuts to 0 and is not recorded. Its next fetches
/// copy [0, 5) below the seal, then validate at the seal and admit it. The model used to
/// record it at the seal unchecked and admit it with [0, 5) of epoch 1.
#[test]
fn at_seal_validation_answers_a_diverging_epoch() {
    let history = "brokers 1,2,3; create 1,2; reassign 2,3; produce 5 acks=all; fetch 3; \
                   produce 6; switch; fence 2; seal; unfence 2; fetch 2";
    check(
        history,
        &["inkless-main", "complete"],
        expect![[r#"
            inkless-main: holds
              seal=5 le=3 isr=[3]
              2: ..0 hw 0 c3 rec -1
              3*: e0@0 e3@5 ..5 hw 5
            complete: holds
              seal=5 le=3 isr=[3]
              2: ..0 hw 0 c3 rec -1
              3*: e0@0 e3@5 ..5 hw 5
        "#]],
    );
    check(
        &format!("{history}; fetch 2; fetch 2"),
        &["complete"],
        expect![[r#"
            complete: holds
              seal=5 le=3 isr=[3, 2]
              2: e0@0 ..5 hw 5 c3 rec 5
              3*: e0@0 e3@5 ..5 hw 5
        "#]],
    );
}

/// The same on a consolidating topic, where the at-seal branch answers a fetch at the seal
/// under either `seal-fetch` variant (the leader's log ends at the seal) once #760 keeps the
/// follower, out of the ISR, on the classic fetcher.
#[test]
fn at_seal_validation_answers_a_diverging_epoch_when_consolidating() {
    check(
        "brokers 1,2,3; create 1,2; reassign 2,3; produce 5 acks=all; fetch 3; produce 6; \
         switch consolidating; fence 2; seal; unfence 2; fetch 2",
        &["complete", "complete+seal-fetch=local-log"],
        expect![[r#"
            complete: holds
              seal=5 le=3 isr=[3]
              2: ..0 hw 0 c3 rec -1
              3*: e0@0 e3@5 ..5 hw 5 C
            complete+seal-fetch=local-log: holds
              seal=5 le=3 isr=[3]
              2: ..0 hw 0 c3 rec -1
              3*: e0@0 e3@5 ..5 hw 5 C
        "#]],
    );
}
