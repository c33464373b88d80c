//! Controller request handling the invariants do not look at: which error an
//! AlterPartition gets for each bad epoch (upstream `validateAlterPartitionData` order),
//! when an accepted one says NEW_LEADER_ELECTED, what an unclean election writes, and every
//! field of a newly created partition record.

mod common;

use expect_test::{expect, Expect};
use isrfuzz::oracle;
use isrfuzz::rules::RuleSet;
use std::fmt::Write;

/// Each step's result and partition-0 columns, then every field of the final records.
fn check(history: &str, expect: Expect) {
    let h = common::parse(history);
    let v = oracle::run(&h, &[RuleSet::complete()], true);
    let side = &v.sides[0];
    let mut out = String::new();
    for line in isrfuzz::report::step_table(&h, side).lines().skip(2) {
        // Step rows only: the broker-side lines and the verdict are pinned elsewhere.
        if line.trim_start().starts_with(|c: char| c.is_ascii_digit()) {
            let _ = writeln!(out, "{}", line.trim_end());
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
            Partition { replicas: [1, 2, 3], isr: [2], adding_replicas: [], removing_replicas: [], leader: 2, leader_epoch: 1, partition_epoch: 2, leader_recovery_state: Recovered, unclean_leader_election_enable: false, diskless: false, remote_storage: false, seal: -1, diskless_leader_epoch: -1 }
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
            Partition { replicas: [1, 2, 3], isr: [1, 2], adding_replicas: [], removing_replicas: [], leader: 1, leader_epoch: 0, partition_epoch: 1, leader_recovery_state: Recovered, unclean_leader_election_enable: false, diskless: false, remote_storage: false, seal: -1, diskless_leader_epoch: -1 }
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
            Partition { replicas: [2, 3, 4], isr: [2, 3, 4], adding_replicas: [], removing_replicas: [], leader: 2, leader_epoch: 1, partition_epoch: 2, leader_recovery_state: Recovered, unclean_leader_election_enable: false, diskless: false, remote_storage: false, seal: -1, diskless_leader_epoch: -1 }
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
            Partition { replicas: [1, 2, 3], isr: [2], adding_replicas: [], removing_replicas: [], leader: 2, leader_epoch: 1, partition_epoch: 2, leader_recovery_state: Recovering, unclean_leader_election_enable: true, diskless: false, remote_storage: false, seal: -1, diskless_leader_epoch: -1 }
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
            Partition { replicas: [1, 2, 3], isr: [2], adding_replicas: [], removing_replicas: [], leader: 2, leader_epoch: 1, partition_epoch: 3, leader_recovery_state: Recovered, unclean_leader_election_enable: true, diskless: false, remote_storage: false, seal: -1, diskless_leader_epoch: -1 }
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
            Partition { replicas: [1, 2, 3], isr: [1, 2, 3], adding_replicas: [], removing_replicas: [], leader: 1, leader_epoch: 0, partition_epoch: 0, leader_recovery_state: Recovered, unclean_leader_election_enable: false, diskless: false, remote_storage: false, seal: -1, diskless_leader_epoch: -1 }
            Partition { replicas: [2, 3, 4], isr: [2, 3, 4], adding_replicas: [], removing_replicas: [], leader: 2, leader_epoch: 0, partition_epoch: 0, leader_recovery_state: Recovered, unclean_leader_election_enable: false, diskless: true, remote_storage: false, seal: -1, diskless_leader_epoch: -1 }
            Partition { replicas: [3, 4, 5], isr: [3, 4, 5], adding_replicas: [], removing_replicas: [], leader: 3, leader_epoch: 0, partition_epoch: 0, leader_recovery_state: Recovered, unclean_leader_election_enable: true, diskless: true, remote_storage: true, seal: -1, diskless_leader_epoch: -1 }
        "#]],
    );
}
