//! Eligible leader replicas (KIP-966): the ELR cases of upstream's
//! `metadata/src/test/java/org/apache/kafka/controller/PartitionChangeBuilderTest.java` at
//! apache trunk d79bd502ec, replayed on the model's `ChangeBuilder` with the same inputs
//! and the same expected outcomes. Each test is named after the upstream test (snake
//! case); a parameterized upstream test is one model test per parameter that changes the
//! outcome (`_elr_off` for the versions before ELR, `isElrEnabled(version)` false).
//!
//! Upstream asserts the change record and the merged registration; the model's record is
//! private to the builder, so each test asserts the merged partition (every field, epochs
//! included: a record that sets the leader raises the leader epoch, every record the
//! partition epoch), which tells which fields the record set except one set to its old
//! value, and `None` where upstream expects no record. Upstream's acceptance predicate
//! (`r -> r != 3`, `r -> false`, ...) is a broker list with the unacceptable brokers fenced.
//! The controller paths and upstream's `ReplicationControlManagerTest` cases are in
//! tests/it/elr_controller.rs.

use isrfuzz::model::builder::{Acceptor, ChangeBuilder, Election};
use isrfuzz::model::{BrokerState, LeaderRecoveryState, Partition, NO_LEADER};
use isrfuzz::rules::RuleSet;

/// A registration as upstream's tests build it: leader epoch 100, partition epoch 200,
/// RECOVERED, and min ISR 3 (every ELR test of upstream's builder uses 3).
fn registration(
    replicas: &[i32],
    isr: &[i32],
    elr: &[i32],
    last_known_elr: &[i32],
    leader: i32,
) -> Partition {
    Partition {
        replicas: replicas.to_vec().into(),
        isr: isr.to_vec().into(),
        adding_replicas: Default::default(),
        removing_replicas: Default::default(),
        leader,
        leader_epoch: 100,
        partition_epoch: 200,
        leader_recovery_state: LeaderRecoveryState::Recovered,
        unclean_leader_election_enable: false,
        diskless: false,
        remote_storage: false,
        seal: -1,
        diskless_leader_epoch: -1,
        min_insync_replicas: 3,
        topic_replication_factor: replicas.len() as u32,
        elr: elr.to_vec().into(),
        last_known_elr: last_known_elr.to_vec().into(),
        dirs: vec![-1; replicas.len()].into(),
    }
}

/// One upstream builder call: the acceptance predicate, ELR on or off, the election, the
/// last-known-leader flag, the target ISR (`None`: not set) and the unclean-shutdown
/// replica.
struct Call<'a> {
    acceptable: &'a dyn Fn(i32) -> bool,
    elr: bool,
    election: Election,
    last_known_leader: bool,
    target_isr: Option<&'a [i32]>,
    unclean_shutdown: i32,
}

impl Default for Call<'_> {
    fn default() -> Self {
        Call {
            acceptable: &|_| true,
            elr: true,
            election: Election::Preferred,
            last_known_leader: false,
            target_isr: None,
            unclean_shutdown: NO_LEADER,
        }
    }
}

/// The merged registration, or `None` for no record; and whether the election was unclean.
fn build(part: &Partition, call: Call<'_>) -> Option<(Partition, bool)> {
    let rules = RuleSet::trunk();
    let brokers: Vec<(i32, BrokerState)> = (0..8)
        .map(|b| match (call.acceptable)(b) {
            true => (b, BrokerState::Active),
            false => (b, BrokerState::Fenced),
        })
        .collect();
    let acceptor = Acceptor {
        brokers: &brokers,
        offline_dirs: &[],
        remove: NO_LEADER,
        add: NO_LEADER,
    };
    let mut builder = ChangeBuilder::new(part, &rules, acceptor, call.elr);
    builder.election = call.election;
    builder.use_last_known_leader = call.last_known_leader;
    builder.unclean_shutdown = call.unclean_shutdown;
    if let Some(isr) = call.target_isr {
        builder.target_isr = isr.to_vec().into();
    }
    let built = builder
        .build()
        .expect("no candidate here is outside the replicas");
    built.map(|b| (b.partition, b.unclean_election))
}

/// `part` with the fields a record changed: the leader (raising the leader epoch), ISR,
/// ELR, last known ELR, and one more partition epoch.
fn merged(part: &Partition, change: impl FnOnce(&mut Partition)) -> Partition {
    let mut next = part.clone();
    change(&mut next);
    next.partition_epoch += 1;
    next
}

fn new_leader(p: &mut Partition, leader: i32) {
    p.leader = leader;
    p.leader_epoch += 1;
}

#[test]
fn eligible_leader_replicas_isr_shrink_below_min_isr() {
    let part = registration(&[1, 2, 3, 4], &[1, 2, 3, 4], &[], &[], 1);
    let not_3 = |r| r != 3;
    let call = |elr| Call {
        acceptable: &not_3,
        elr,
        target_isr: Some(&[1, 2]),
        ..Call::default()
    };
    let expected = merged(&part, |p| {
        p.isr = vec![1, 2].into();
        p.elr = vec![3, 4].into();
    });
    assert_eq!(build(&part, call(true)), Some((expected, false)));
    let without = merged(&part, |p| p.isr = vec![1, 2].into());
    assert_eq!(build(&part, call(false)), Some((without, false)), "ELR off");
}

#[test]
fn eligible_leader_replicas_last_known_elr_should_be_populated_when_no_leader() {
    let part = registration(&[1, 2, 3], &[1], &[2], &[], 1);
    let call = Call {
        acceptable: &|_| false,
        last_known_leader: true,
        ..Call::default()
    };
    let expected = merged(&part, |p| {
        new_leader(p, NO_LEADER);
        p.last_known_elr = vec![1].into();
    });
    assert_eq!(build(&part, call), Some((expected, false)));
}

#[test]
fn eligible_leader_replicas_isr_expand_above_min_isr() {
    let part = registration(&[1, 2, 3, 4], &[1, 2], &[3], &[4], 1);
    let expected = merged(&part, |p| {
        p.isr = vec![1, 2, 3].into();
        p.elr = vec![].into();
        p.last_known_elr = vec![].into();
    });
    for elr in [true, false] {
        let not_3 = |r| r != 3;
        let call = Call {
            acceptable: &not_3,
            elr,
            target_isr: Some(&[1, 2, 3]),
            ..Call::default()
        };
        assert_eq!(
            build(&part, call),
            Some((expected.clone(), false)),
            "ELR {elr}"
        );
    }
}

#[test]
fn eligible_leader_replicas_isr_add_new_member_not_in_elr() {
    let part = registration(&[1, 2, 3, 4], &[1], &[3], &[2], 1);
    let not_3 = |r| r != 3;
    let call = |elr| Call {
        acceptable: &not_3,
        elr,
        target_isr: Some(&[1, 4]),
        ..Call::default()
    };
    let expected = merged(&part, |p| p.isr = vec![1, 4].into());
    assert_eq!(build(&part, call(true)), Some((expected, false)));
    let without = merged(&part, |p| {
        p.isr = vec![1, 4].into();
        p.elr = vec![].into();
        p.last_known_elr = vec![].into();
    });
    assert_eq!(build(&part, call(false)), Some((without, false)), "ELR off");
}

#[test]
fn eligible_leader_replicas_remove_unclean_shutdown_replicas_from_elr() {
    let part = registration(&[1, 2, 3, 4], &[1], &[2, 3], &[], 1);
    let not_3 = |r| r != 3;
    let call = |elr| Call {
        acceptable: &not_3,
        elr,
        unclean_shutdown: 3,
        ..Call::default()
    };
    let expected = merged(&part, |p| {
        p.elr = vec![2].into();
        p.last_known_elr = vec![3].into();
    });
    assert_eq!(build(&part, call(true)), Some((expected, false)));
    let without = merged(&part, |p| p.elr = vec![].into());
    assert_eq!(build(&part, call(false)), Some((without, false)), "ELR off");
}

#[test]
fn eligible_leader_replicas_elr_can_be_elected() {
    for last_known_leader in [true, false] {
        let lke: &[i32] = if last_known_leader { &[] } else { &[2] };
        let part = registration(&[1, 2, 3, 4], &[1], &[3], lke, 1);
        let not_1 = |r| r != 1;
        let call = Call {
            acceptable: &not_1,
            last_known_leader,
            target_isr: Some(&[]),
            ..Call::default()
        };
        let expected = merged(&part, |p| {
            new_leader(p, 3);
            p.isr = vec![3].into();
            p.elr = vec![1].into();
        });
        let got = build(&part, call);
        assert_eq!(got, Some((expected, false)), "flag {last_known_leader}");
    }
}

#[test]
fn eligible_leader_replicas_isr_can_shrink_to_zero() {
    for last_known_leader in [true, false] {
        let part = registration(&[1, 2, 3, 4], &[1, 2, 3, 4], &[], &[], 1);
        let call = Call {
            acceptable: &|_| false,
            last_known_leader,
            target_isr: Some(&[]),
            ..Call::default()
        };
        let expected = merged(&part, |p| {
            new_leader(p, NO_LEADER);
            p.isr = vec![].into();
            p.elr = vec![1, 2, 3, 4].into();
            if last_known_leader {
                p.last_known_elr = vec![1].into();
            }
        });
        let got = build(&part, call).expect("a record");
        assert_eq!(got, (expected.clone(), false), "flag {last_known_leader}");
        if last_known_leader {
            // Upstream then builds once more with replica 2 shut down uncleanly and
            // asserts only that the record leaves the last known ELR alone.
            let again = Call {
                acceptable: &|_| false,
                last_known_leader,
                unclean_shutdown: 2,
                ..Call::default()
            };
            let (next, _) = build(&expected, again).expect("a record");
            assert_eq!(next.last_known_elr, vec![1]);
            assert_eq!(next.elr, vec![1, 3, 4], "the ELR loses the unclean replica");
        }
    }
}

#[test]
fn eligible_leader_replicas_elect_last_known_leader() {
    let part = registration(&[1, 2, 3, 4], &[], &[], &[1], NO_LEADER);
    let call = Call {
        last_known_leader: true,
        target_isr: Some(&[]),
        ..Call::default()
    };
    let expected = merged(&part, |p| {
        new_leader(p, 1);
        p.isr = vec![1].into();
        p.leader_recovery_state = LeaderRecoveryState::Recovering;
        p.last_known_elr = vec![].into();
    });
    assert_eq!(
        build(&part, call),
        Some((expected, true)),
        "an unclean election"
    );
}

#[test]
fn eligible_leader_replicas_elect_last_known_leader_should_fail() {
    let part = registration(&[1, 2, 3, 4], &[], &[3], &[1], NO_LEADER);
    let not_3 = |r| r != 3;
    let call = Call {
        acceptable: &not_3,
        last_known_leader: true,
        target_isr: Some(&[]),
        ..Call::default()
    };
    assert_eq!(build(&part, call), None);
}

#[test]
fn eligible_leader_replicas_not_eligible_last_known_leader() {
    let part = registration(&[1, 2, 3, 4], &[], &[], &[1], NO_LEADER);
    for election in [Election::Preferred, Election::Online, Election::Unclean] {
        let call = Call {
            acceptable: &|_| false,
            election,
            last_known_leader: true,
            target_isr: Some(&[]),
            ..Call::default()
        };
        assert_eq!(build(&part, call), None, "{election:?}");
    }
}

/// The ELR lists keep `java.util.HashSet`'s iteration order (bucket = id mod the table
/// size, 16 here), which upstream writes and then compares as a list: 17 lands in bucket 1,
/// before 2 (OpenJDK prints that `HashSet` as [17, 2, 5]). Not an upstream test.
#[test]
fn elr_lists_follow_java_hash_set_order() {
    let mut part = registration(&[2, 17, 5], &[2, 17, 5], &[], &[], 5);
    let call = || Call {
        target_isr: Some(&[5]),
        ..Call::default()
    };
    let (next, _) = build(&part, call()).expect("a record");
    assert_eq!(next.elr, vec![17, 2]);
    part.isr = vec![5].into();
    part.elr = vec![17, 2].into();
    assert_eq!(
        build(&part, call()),
        None,
        "the same list in the same order: no record"
    );
    part.elr = vec![2, 17].into();
    let (again, _) = build(&part, call()).expect("another order is a change upstream");
    assert_eq!(again.elr, vec![17, 2]);
}

/// The ELR half of upstream's `testUncleanLeaderElection` (its `createOfflineBuilder`):
/// replicas [2,1,3], min ISR 2, only 1 acceptable. With ELR (ISR empty, ELR [3], last
/// known ELR [2]) the UNCLEAN election takes 1, writes ISR [1] and RECOVERING, and clears
/// ELR and last known ELR, with the target ISR left alone or set to [2]; without ELR (ISR
/// [3]) the same election and record, with no ELR field to clear.
#[test]
fn unclean_leader_election() {
    let only_1 = |r| r == 1;
    let call = |elr, target_isr| Call {
        acceptable: &only_1,
        elr,
        election: Election::Unclean,
        last_known_leader: true,
        target_isr,
        ..Call::default()
    };
    let unclean = |p: &mut Partition| {
        new_leader(p, 1);
        p.isr = vec![1].into();
        p.leader_recovery_state = LeaderRecoveryState::Recovering;
        p.elr = vec![].into();
        p.last_known_elr = vec![].into();
    };
    let mut with_elr = registration(&[2, 1, 3], &[], &[3], &[2], NO_LEADER);
    with_elr.min_insync_replicas = 2;
    let expected = merged(&with_elr, unclean);
    for target in [None, Some(&[2][..])] {
        let got = build(&with_elr, call(true, target));
        assert_eq!(got, Some((expected.clone(), true)), "target ISR {target:?}");
    }
    let mut without = registration(&[2, 1, 3], &[3], &[], &[], NO_LEADER);
    without.min_insync_replicas = 2;
    for target in [None, Some(&[2][..])] {
        let got = build(&without, call(false, target));
        assert_eq!(
            got,
            Some((merged(&without, unclean), true)),
            "ELR off, {target:?}"
        );
    }
}
