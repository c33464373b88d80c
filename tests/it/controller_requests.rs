//! Controller request handling the invariants do not look at: which error an
//! AlterPartition gets for each bad epoch (upstream `validateAlterPartitionData` order),
//! when an accepted one says NEW_LEADER_ELECTED, what an unclean election writes, every
//! field of a newly created partition record, and the Inkless switch requests (start,
//! InitDisklessLog, the operator's AlterDisklessSwitch) with the reason for each refusal.

use crate::common;

use expect_test::{expect, Expect};
use isrfuzz::check::oracle;
use isrfuzz::model::Outcome;
use isrfuzz::rules::RuleSet;
use std::fmt::Write;

/// Each step's result and partition-0 columns, then every field of the final records.
fn check(history: &str, expect: Expect) {
    let h = common::parse(history);
    let v = oracle::run(&h, &[RuleSet::complete()], true);
    let side = &v.sides[0];
    let mut out = String::new();
    for line in isrfuzz::findings::report::step_table(&h, side).lines() {
        // Step rows only (they start with the step number): the header, the broker-side
        // lines and the verdict are pinned elsewhere.
        if line.trim_start().starts_with(|c: char| c.is_ascii_digit()) {
            let _ = writeln!(out, "{}", line.trim_end());
        }
    }
    // Why each refused request was refused: the reason is what an engineer reads.
    for (step, rec) in side.steps.iter().enumerate() {
        if let Outcome::Rejected { error, reason } = rec.outcome {
            let _ = writeln!(out, "step {step}: {} ({reason})", error.name());
        }
    }
    let last = &side.steps.last().expect("at least one step").state;
    for p in &last.partitions {
        let _ = writeln!(out, "{p:?}");
    }
    expect.assert_eq(&out);
}

#[test]
fn alter_partition_epochs_each_get_their_error() {
    // Newer leader epoch, newer partition epoch: NOT_CONTROLLER. After leader 1 is fenced
    // (leader 2, epochs 1 and 1), a stale leader epoch is FENCED_LEADER_EPOCH and a stale
    // partition epoch INVALID_UPDATE_VERSION; the current ones are accepted.
    check(
        "brokers 1,2,3; create 1,2,3; isr 1,2 le=1; isr 1,2 pe=1; fence 1; \
         isr 2 le=0; isr 2 pe=0; isr 2 le=1 pe=1",
        expect![[r#"
               0  create [1,2,3]                     ok                       p0 [1,2,3]       [1,2,3]     []        []          1   0   0
               1  alter_partition p0 isr=[1,2] le=1  NOT_CONTROLLER           p0 [1,2,3]       [1,2,3]     []        []          1   0   0
               2  alter_partition p0 isr=[1,2] pe=1  NOT_CONTROLLER           p0 [1,2,3]       [1,2,3]     []        []          1   0   0
               3  fence 1                            ok                       p0 [1,2,3]       [2,3]       []        []          2   1   1
               4  alter_partition p0 isr=[2] le=0    FENCED_LEADER_EPOCH      p0 [1,2,3]       [2,3]       []        []          2   1   1
               5  alter_partition p0 isr=[2] pe=0    INVALID_UPDATE_VERSION   p0 [1,2,3]       [2,3]       []        []          2   1   1
               6  alter_partition p0 isr=[2] le=1 pe=1 ok                       p0 [1,2,3]       [2]         []        []          2   1   2
            step 1: NOT_CONTROLLER (the request carries a newer epoch than the controller's)
            step 2: NOT_CONTROLLER (the request carries a newer epoch than the controller's)
            step 4: FENCED_LEADER_EPOCH (stale leader epoch)
            step 5: INVALID_UPDATE_VERSION (stale partition epoch)
            Partition { replicas: [1, 2, 3], isr: [2], adding_replicas: [], removing_replicas: [], leader: 2, leader_epoch: 1, partition_epoch: 2, leader_recovery_state: Recovered, unclean_leader_election_enable: false, diskless: false, remote_storage: false, seal: -1, diskless_leader_epoch: -1, min_insync_replicas: 1 }
        "#]],
    );
}

#[test]
fn only_the_leader_may_alter_the_isr() {
    check(
        "brokers 1,2,3; create 1,2,3; isr 1,2 by=2; isr 1,2 by=1",
        expect![[r#"
               0  create [1,2,3]                     ok                       p0 [1,2,3]       [1,2,3]     []        []          1   0   0
               1  alter_partition p0 isr=[1,2] from=2 INVALID_REQUEST          p0 [1,2,3]       [1,2,3]     []        []          1   0   0
               2  alter_partition p0 isr=[1,2] from=1 ok                       p0 [1,2,3]       [1,2]       []        []          1   0   1
            step 1: INVALID_REQUEST (the sender is not the partition leader)
            Partition { replicas: [1, 2, 3], isr: [1, 2], adding_replicas: [], removing_replicas: [], leader: 1, leader_epoch: 0, partition_epoch: 1, leader_recovery_state: Recovered, unclean_leader_election_enable: false, diskless: false, remote_storage: false, seal: -1, diskless_leader_epoch: -1, min_insync_replicas: 1 }
        "#]],
    );
}

#[test]
fn a_completion_that_moves_the_leader_says_new_leader_elected() {
    check(
        "create 1,2,3; reassign 2,3,4; isr 1,2,3,4",
        expect![[r#"
               0  create [1,2,3]                     ok                       p0 [1,2,3]       [1,2,3]     []        []          1   0   0
               1  reassign p0 [2,3,4]                ok                       p0 [2,3,4,1]     [1,2,3]     [4]       [1]         1   0   1
               2  alter_partition p0 isr=[1,2,3,4]   ok NEW_LEADER_ELECTED    p0 [2,3,4]       [2,3,4]     []        []          2   1   2
            Partition { replicas: [2, 3, 4], isr: [2, 3, 4], adding_replicas: [], removing_replicas: [], leader: 2, leader_epoch: 1, partition_epoch: 2, leader_recovery_state: Recovered, unclean_leader_election_enable: false, diskless: false, remote_storage: false, seal: -1, diskless_leader_epoch: -1, min_insync_replicas: 1 }
        "#]],
    );
}

#[test]
fn an_unclean_election_marks_the_leader_recovering() {
    // Fencing the last ISR member of a partition that allows unclean elections elects
    // broker 2 at once; an explicit unclean election afterwards has nothing to do.
    check(
        "brokers 1,2,3; create 1,2,3 unclean; isr 1; fence 1; elect unclean",
        expect![[r#"
               0  create [1,2,3] unclean.enable      ok                       p0 [1,2,3]       [1,2,3]     []        []          1   0   0
               1  alter_partition p0 isr=[1]         ok                       p0 [1,2,3]       [1]         []        []          1   0   1
               2  fence 1                            ok                       p0 [1,2,3]       [2]         []        []          2   1   2
               3  elect p0 unclean                   ELECTION_NOT_NEEDED      p0 [1,2,3]       [2]         []        []          2   1   2
            step 3: ELECTION_NOT_NEEDED (the election is not needed)
            Partition { replicas: [1, 2, 3], isr: [2], adding_replicas: [], removing_replicas: [], leader: 2, leader_epoch: 1, partition_epoch: 2, leader_recovery_state: Recovering, unclean_leader_election_enable: true, diskless: false, remote_storage: false, seal: -1, diskless_leader_epoch: -1, min_insync_replicas: 1 }
        "#]],
    );
}

#[test]
fn a_recovering_leader_reports_alone_then_recovers() {
    // After the unclean election leader 2 is RECOVERING: it may not grow the ISR while
    // recovering, may report itself alone, then RECOVERED, and never go back.
    check(
        "brokers 1,2,3; create 1,2,3 unclean; isr 1; fence 1; isr 2,3 recovering; \
         isr 2 recovering; isr 2; isr 2 recovering",
        expect![[r#"
               0  create [1,2,3] unclean.enable      ok                       p0 [1,2,3]       [1,2,3]     []        []          1   0   0
               1  alter_partition p0 isr=[1]         ok                       p0 [1,2,3]       [1]         []        []          1   0   1
               2  fence 1                            ok                       p0 [1,2,3]       [2]         []        []          2   1   2
               3  alter_partition p0 isr=[2,3] recovering INVALID_REQUEST          p0 [1,2,3]       [2]         []        []          2   1   2
               4  alter_partition p0 isr=[2] recovering ok                       p0 [1,2,3]       [2]         []        []          2   1   2
               5  alter_partition p0 isr=[2]         ok                       p0 [1,2,3]       [2]         []        []          2   1   3
               6  alter_partition p0 isr=[2] recovering INVALID_REQUEST          p0 [1,2,3]       [2]         []        []          2   1   3
            step 3: INVALID_REQUEST (a recovering leader cannot have a larger ISR)
            step 6: INVALID_REQUEST (RECOVERED cannot go back to RECOVERING)
            Partition { replicas: [1, 2, 3], isr: [2], adding_replicas: [], removing_replicas: [], leader: 2, leader_epoch: 1, partition_epoch: 3, leader_recovery_state: Recovered, unclean_leader_election_enable: true, diskless: false, remote_storage: false, seal: -1, diskless_leader_epoch: -1, min_insync_replicas: 1 }
        "#]],
    );
}

#[test]
fn created_records_carry_every_field() {
    check(
        "create 1,2,3; create 2,3,4 diskless; create 3,4,5 remote unclean",
        expect![[r#"
               0  create [1,2,3]                     ok                       p0 [1,2,3]       [1,2,3]     []        []          1   0   0
               1  create [2,3,4] diskless            ok                       p1 [2,3,4]       [2,3,4]     []        []          2   0   0
               2  create [3,4,5] unclean.enable diskless remote ok                       p2 [3,4,5]       [3,4,5]     []        []          3   0   0
            Partition { replicas: [1, 2, 3], isr: [1, 2, 3], adding_replicas: [], removing_replicas: [], leader: 1, leader_epoch: 0, partition_epoch: 0, leader_recovery_state: Recovered, unclean_leader_election_enable: false, diskless: false, remote_storage: false, seal: -1, diskless_leader_epoch: -1, min_insync_replicas: 1 }
            Partition { replicas: [2, 3, 4], isr: [2, 3, 4], adding_replicas: [], removing_replicas: [], leader: 2, leader_epoch: 0, partition_epoch: 0, leader_recovery_state: Recovered, unclean_leader_election_enable: false, diskless: true, remote_storage: false, seal: -1, diskless_leader_epoch: -1, min_insync_replicas: 1 }
            Partition { replicas: [3, 4, 5], isr: [3, 4, 5], adding_replicas: [], removing_replicas: [], leader: 3, leader_epoch: 0, partition_epoch: 0, leader_recovery_state: Recovered, unclean_leader_election_enable: true, diskless: true, remote_storage: true, seal: -1, diskless_leader_epoch: -1, min_insync_replicas: 1 }
        "#]],
    );
}

#[test]
fn switch_start_needs_a_healthy_classic_partition() {
    check(
        "brokers 1,2,3; create 1,2,3 diskless; switch; create 1,2,3; isr 1,2 p1; switch p1; \
         isr 1,2,3 p1; switch p1; switch p1",
        expect![[r#"
               0  create [1,2,3] diskless            ok                       p0 [1,2,3]       [1,2,3]     []        []          1   0   0
               1  switch p0                          INVALID_REQUEST          p0 [1,2,3]       [1,2,3]     []        []          1   0   0
               2  create [1,2,3]                     ok                       p1 [1,2,3]       [1,2,3]     []        []          1   0   0
               3  alter_partition p1 isr=[1,2]       ok                       p1 [1,2,3]       [1,2]       []        []          1   0   1
               4  switch p1                          INVALID_REQUEST          p1 [1,2,3]       [1,2]       []        []          1   0   1
               5  alter_partition p1 isr=[1,2,3]     ok                       p1 [1,2,3]       [1,2,3]     []        []          1   0   2
               6  switch p1                          ok                       p1 [1,2,3]       [1,2,3]     []        []          1   1   3
               7  switch p1                          INVALID_REQUEST          p1 [1,2,3]       [1,2,3]     []        []          1   1   3
            step 1: INVALID_REQUEST (the topic is already diskless)
            step 4: INVALID_REQUEST (the partition is not healthy enough to switch)
            step 7: INVALID_REQUEST (the topic is already diskless)
            Partition { replicas: [1, 2, 3], isr: [1, 2, 3], adding_replicas: [], removing_replicas: [], leader: 1, leader_epoch: 0, partition_epoch: 0, leader_recovery_state: Recovered, unclean_leader_election_enable: false, diskless: true, remote_storage: false, seal: -1, diskless_leader_epoch: -1, min_insync_replicas: 1 }
            Partition { replicas: [1, 2, 3], isr: [1, 2, 3], adding_replicas: [], removing_replicas: [], leader: 1, leader_epoch: 1, partition_epoch: 3, leader_recovery_state: Recovered, unclean_leader_election_enable: false, diskless: true, remote_storage: false, seal: -2, diskless_leader_epoch: -1, min_insync_replicas: 1 }
        "#]],
    );
}

#[test]
fn seal_commit_waits_for_the_high_watermark() {
    check(
        "brokers 1,2,3; create 1,2,3; seal; produce 10; switch; seal; time 15000; seal; seal",
        expect![[r#"
               0  create [1,2,3]                     ok                       p0 [1,2,3]       [1,2,3]     []        []          1   0   0
               1  seal_commit p0                     INVALID_REQUEST          p0 [1,2,3]       [1,2,3]     []        []          1   0   0
               2  produce p0 +10                     ok                       p0 [1,2,3]       [1,2,3]     []        []          1   0   0
               3  switch p0                          ok                       p0 [1,2,3]       [1,2,3]     []        []          1   1   1
               4  seal_commit p0                     WAITING_FOR_REPLICATION  p0 [1,2,3]       [1,2,3]     []        []          1   1   1
               5  time +15000ms                      ok
               6  seal_commit p0                     ok                       p0 [1,2,3]       [1,2,3]     []        []          1   1   2
               7  seal_commit p0                     INVALID_REQUEST          p0 [1,2,3]       [1,2,3]     []        []          1   1   2
            step 1: INVALID_REQUEST (no switch is pending)
            step 4: WAITING_FOR_REPLICATION (the leader's high watermark has not reached its log end)
            step 7: INVALID_REQUEST (no switch is pending)
            Partition { replicas: [1, 2, 3], isr: [1, 2, 3], adding_replicas: [], removing_replicas: [], leader: 1, leader_epoch: 1, partition_epoch: 2, leader_recovery_state: Recovered, unclean_leader_election_enable: false, diskless: true, remote_storage: false, seal: 10, diskless_leader_epoch: 1, min_insync_replicas: 1 }
        "#]],
    );
}

#[test]
fn alter_diskless_switch_each_transition() {
    // Refused: on a classic partition, on a born-diskless partition, beyond the leader's
    // log (a seal below -2 never gets here: history validation refuses it). Accepted:
    // re-arm (-2 → -2, leader epoch +1), abort (-2 → -1, on p3). On a consolidating p2:
    // seal at 5 without the HW check (the leader's classic records above it are cut,
    // `maybeReconcileSwitchedLeader`); refused: re-seal higher once consolidation has taken
    // the leader's log past it; accepted: re-seal lower.
    check(
        "brokers 1,2,3; create 1,2,3; alter-switch 0; create 1,2,3 diskless; \
         alter-switch -2 p1; alter-switch 5 p1; produce 10; time 15000; switch; \
         alter-switch 15; alter-switch -2; \
         create 1,2,3; produce 10 p2; time 15000; switch consolidating p2; alter-switch 5 p2; \
         produce 3 p2; time 15000; alter-switch 7 p2; alter-switch 3 p2; create 1,2,3; switch p3; alter-switch -1 p3",
        expect![[r#"
               0  create [1,2,3]                     ok                       p0 [1,2,3]       [1,2,3]     []        []          1   0   0
               1  alter_switch p0 seal=0             INVALID_REQUEST          p0 [1,2,3]       [1,2,3]     []        []          1   0   0
               2  create [1,2,3] diskless            ok                       p1 [1,2,3]       [1,2,3]     []        []          1   0   0
               3  alter_switch p1 seal=-2            INVALID_REQUEST          p1 [1,2,3]       [1,2,3]     []        []          1   0   0
               4  alter_switch p1 seal=5             INVALID_REQUEST          p1 [1,2,3]       [1,2,3]     []        []          1   0   0
               5  produce p0 +10                     ok                       p0 [1,2,3]       [1,2,3]     []        []          1   0   0
               6  time +15000ms                      ok
               7  switch p0                          ok                       p0 [1,2,3]       [1,2,3]     []        []          1   1   1
               8  alter_switch p0 seal=15            INVALID_REQUEST          p0 [1,2,3]       [1,2,3]     []        []          1   1   1
               9  alter_switch p0 seal=-2            ok                       p0 [1,2,3]       [1,2,3]     []        []          1   2   2
              10  create [1,2,3]                     ok                       p2 [1,2,3]       [1,2,3]     []        []          1   0   0
              11  produce p2 +10                     ok                       p2 [1,2,3]       [1,2,3]     []        []          1   0   0
              12  time +15000ms                      ok
              13  switch p2 consolidating            ok                       p2 [1,2,3]       [1,2,3]     []        []          1   1   1
              14  alter_switch p2 seal=5             ok                       p2 [1,2,3]       [1,2,3]     []        []          1   1   2
              15  produce p2 +3                      ok                       p2 [1,2,3]       [1,2,3]     []        []          1   1   2
              16  time +15000ms                      ok
              17  alter_switch p2 seal=7             INVALID_REQUEST          p2 [1,2,3]       [1,2,3]     []        []          1   1   2
              18  alter_switch p2 seal=3             ok                       p2 [1,2,3]       [1,2,3]     []        []          1   1   3
              19  create [1,2,3]                     ok                       p3 [1,2,3]       [1,2,3]     []        []          1   0   0
              20  switch p3                          ok                       p3 [1,2,3]       [1,2,3]     []        []          1   1   1
              21  alter_switch p3 seal=-1            ok                       p3 [1,2,3]       [1,2,3]     []        []          1   1   2
            step 1: INVALID_REQUEST (not a diskless topic, or a seal below -2)
            step 3: INVALID_REQUEST (the partition is not part of a switch)
            step 4: INVALID_REQUEST (the tool needs a live leader and a seal within its log)
            step 8: INVALID_REQUEST (the tool needs a live leader and a seal within its log)
            step 17: INVALID_REQUEST (a committed seal can only move down)
            Partition { replicas: [1, 2, 3], isr: [1, 2, 3], adding_replicas: [], removing_replicas: [], leader: 1, leader_epoch: 2, partition_epoch: 2, leader_recovery_state: Recovered, unclean_leader_election_enable: false, diskless: true, remote_storage: false, seal: -2, diskless_leader_epoch: -1, min_insync_replicas: 1 }
            Partition { replicas: [1, 2, 3], isr: [1, 2, 3], adding_replicas: [], removing_replicas: [], leader: 1, leader_epoch: 0, partition_epoch: 0, leader_recovery_state: Recovered, unclean_leader_election_enable: false, diskless: true, remote_storage: false, seal: -1, diskless_leader_epoch: -1, min_insync_replicas: 1 }
            Partition { replicas: [1, 2, 3], isr: [1, 2, 3], adding_replicas: [], removing_replicas: [], leader: 1, leader_epoch: 1, partition_epoch: 3, leader_recovery_state: Recovered, unclean_leader_election_enable: false, diskless: true, remote_storage: true, seal: 3, diskless_leader_epoch: 1, min_insync_replicas: 1 }
            Partition { replicas: [1, 2, 3], isr: [1, 2, 3], adding_replicas: [], removing_replicas: [], leader: 1, leader_epoch: 1, partition_epoch: 2, leader_recovery_state: Recovered, unclean_leader_election_enable: false, diskless: true, remote_storage: false, seal: -1, diskless_leader_epoch: -1, min_insync_replicas: 1 }
        "#]],
    );
}

#[test]
fn stall_and_resume_toggle_once() {
    check(
        "brokers 1,2,3; create 1,2,3; stall 2; stall 2; resume 2; resume 2",
        expect![[r#"
               0  create [1,2,3]                     ok                       p0 [1,2,3]       [1,2,3]     []        []          1   0   0
               1  stall 2                            ok
               2  stall 2                            BROKER_STATE_MISMATCH
               3  resume 2                           ok
               4  resume 2                           BROKER_STATE_MISMATCH
            step 2: BROKER_STATE_MISMATCH (the broker is already in that state)
            step 4: BROKER_STATE_MISMATCH (the broker is already in that state)
            Partition { replicas: [1, 2, 3], isr: [1, 2, 3], adding_replicas: [], removing_replicas: [], leader: 1, leader_epoch: 0, partition_epoch: 0, leader_recovery_state: Recovered, unclean_leader_election_enable: false, diskless: false, remote_storage: false, seal: -1, diskless_leader_epoch: -1, min_insync_replicas: 1 }
        "#]],
    );
}

/// aiven/inkless main's `testReassignDisklessPartitionsToFencedBrokerIncludesInIsr`
/// (ReplicationControlManagerTest at b1fcb5f6f7): a one-step diskless reassignment to a
/// fenced broker puts it in the ISR (the data is in object storage); a target equal to the
/// current replicas changes nothing.
#[test]
fn one_step_diskless_reassignment_takes_the_whole_target_as_isr() {
    let rules = RuleSet::parse("pr756").unwrap();
    let h = common::parse("brokers 1,2,3; create 1 diskless; fence 2; reassign 1,2");
    let c = common::cluster_after(&h, &h.events, &rules);
    let p = &c.partitions[0];
    assert_eq!(
        (p.replicas.to_vec(), p.isr.to_vec()),
        (vec![1, 2], vec![1, 2])
    );
    let same = common::parse("brokers 1,2,3; create 1,2 diskless; reassign 1,2");
    let before = common::cluster_after(&same, &same.events[..1], &rules);
    let after = common::cluster_after(&same, &same.events, &rules);
    assert_eq!(
        after.partitions, before.partitions,
        "no record for an unchanged target"
    );
    // No active target broker: refused.
    let none = common::parse("brokers 1,2,3; create 1 diskless; fence 2; fence 3; reassign 2,3");
    let c = common::cluster_after(&none, &none.events, &rules);
    assert_eq!(c.partitions[0].replicas, vec![1]);
}
