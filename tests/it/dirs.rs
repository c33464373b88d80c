//! Log directories through the controller (history format 7): where a new replica lives,
//! what a failed directory takes away, AssignReplicasToDirs and its second record, rule
//! `assignment-elr`, and the broker side of a failed directory. Each expected state was
//! also the answer of the real controller of Apache Kafka 4.0.2 and 4.4.0
//! (`isrfuzz conform`), except where a test says the model alone is asked.

use crate::common;

use isrfuzz::check::history::History;
use isrfuzz::model::dirs::UNASSIGNED;
use isrfuzz::model::{Cluster, NO_LEADER};
use isrfuzz::rules::RuleSet;

fn after(history: &str, rules: &str) -> Cluster {
    let h = common::parse(history);
    common::cluster_after(&h, &h.events, &RuleSet::parse(rules).unwrap())
}

/// (leader, ISR, ELR, directories) of partition `p`.
fn part(c: &Cluster, p: usize) -> (i32, Vec<i32>, Vec<i32>, Vec<i32>) {
    let x = &c.partitions[p];
    (x.leader, x.isr.to_vec(), x.elr.to_vec(), x.dirs.to_vec())
}

/// A broker listing two directories leaves a new replica UNASSIGNED; one listing only
/// one (the other reported offline) places it there.
#[test]
fn a_new_replica_gets_the_default_directory() {
    let c = after("brokers 1,2,3; dirfail 2 0; create 1,2,3", "trunk");
    assert_eq!(part(&c, 0).3, vec![UNASSIGNED, 1, UNASSIGNED]);
    // The last listed directory stays listed (an empty list is not written): the
    // default stays that directory (MIGRATING would be the default of an empty list).
    let c = after(
        "brokers 1,2,3; dirfail 2 0; dirfail 2 1; create 1,2,3",
        "trunk",
    );
    assert_eq!(part(&c, 0).3, vec![UNASSIGNED, 1, UNASSIGNED]);
}

/// A failed directory takes its broker out of the partitions placed in it, and only
/// those: an UNASSIGNED replica of the same broker stays in its ISR and leadership.
#[test]
fn a_failed_directory_takes_the_broker_out_of_the_partitions_placed_there() {
    let history = "brokers 1,2,3; create 1,2,3; create 1,2,3; dir 1 0 p0; dirfail 1 0";
    let c = after(history, "trunk");
    assert_eq!(
        part(&c, 0),
        (2, vec![2, 3], vec![], vec![0, UNASSIGNED, UNASSIGNED])
    );
    assert_eq!(part(&c, 1).0, 1);
    assert_eq!(part(&c, 1).1, vec![1, 2, 3]);
    // The broker cannot lead p0 while the directory is offline, even when asked to.
    let c = after(&format!("{history}; elect p0 preferred"), "trunk");
    assert_eq!(part(&c, 0).0, 2);
    // A restart lists both directories again: the preferred election succeeds.
    let c = after(
        &format!("{history}; restart 1; isr 1,2,3 p0; elect p0 preferred"),
        "trunk",
    );
    assert_eq!(part(&c, 0).0, 1);
}

/// Moving a replica between directories bumps the partition epoch only; assigning it to
/// the directory it is in writes nothing.
#[test]
fn an_assignment_is_a_change_of_directory() {
    let c = after("brokers 1,2,3; create 1,2,3; dir 2 1", "trunk");
    assert_eq!(c.partitions[0].partition_epoch, 1);
    assert_eq!(part(&c, 0).3, vec![UNASSIGNED, 1, UNASSIGNED]);
    let again = after("brokers 1,2,3; create 1,2,3; dir 2 1; dir 2 1", "trunk");
    assert_eq!(again.partitions[0].partition_epoch, 1);
    // A broker that is not a replica changes nothing (NOT_LEADER_OR_FOLLOWER).
    let other = after("brokers 1,2,3,4; create 1,2,3; dir 4 1", "trunk");
    assert_eq!(other.partitions[0].partition_epoch, 0);
}

/// F29: the assignment into a reported-offline directory writes the assignment's change
/// (it completes the reassignment) and the removal built from the state before it (an
/// unclean election of 3): leader and ISR end outside the replicas.
#[test]
fn f29_two_records_from_one_state_leave_the_isr_outside_the_replicas() {
    let history =
        "brokers 1,2,3; create 3 unclean; reassign 2; fence 3; unfence 3; dirfail 2 0; dir 2 0";
    let c = after(history, "trunk");
    let p = &c.partitions[0];
    assert_eq!(
        (p.replicas.to_vec(), p.isr.to_vec(), p.leader),
        (vec![2], vec![3], 3)
    );
    assert_eq!((p.leader_epoch, p.partition_epoch), (3, 4));
}

/// Rule `assignment-elr`: before 4.3 the assignment's change builds with ELR off and
/// clears the ELR (the last known leader of a leaderless partition stays); from 4.3 on it
/// keeps it. The history is the one conformance found the difference with on 4.0.2.
#[test]
fn assignment_elr_off_clears_the_elr_and_feature_keeps_it() {
    let history =
        "brokers 1,2; elr; create 1; dirfail 2 0; reassign 2; time 7500; dir 2 0; dir 2 1";
    let off = after(history, "trunk+assignment-elr=off");
    let feature = after(history, "trunk+assignment-elr=feature");
    assert_eq!(part(&feature, 0), (NO_LEADER, vec![], vec![2], vec![1]));
    assert_eq!(part(&off, 0), (NO_LEADER, vec![], vec![], vec![1]));
    assert_eq!(feature.partitions[0].last_known_elr.to_vec(), vec![2]);
    assert_eq!(off.partitions[0].last_known_elr.to_vec(), vec![2]);
    let releases: Vec<_> = ["kafka-4.2", "kafka-4.3"]
        .map(|r| RuleSet::parse(r).unwrap().assignment_elr)
        .to_vec();
    assert_eq!(
        releases.iter().map(|v| v.name()).collect::<Vec<_>>(),
        ["off", "feature"]
    );
}

/// The broker side (the model alone): a replica in a failed directory neither fetches nor
/// is fetched from. Produced records do not reach it, and the leader it lost does not get
/// it back into the ISR.
#[test]
fn a_replica_in_a_failed_directory_does_not_fetch() {
    let history = "brokers 1,2,3; create 1,2,3; dir 2 0; dirfail 2 0; produce 5; time 100";
    let c = after(history, "trunk");
    let leo = |b: i32| c.runtime.partitions[0].local(b).map(|l| l.leo());
    assert_eq!((leo(1), leo(2), leo(3)), (Some(5), Some(0), Some(5)));
    assert_eq!(part(&c, 0).1, vec![1, 3]);
    assert!(c.dir_failed(0, 2));
}

/// Format 7 operations are refused in an older file, and a directory must be 0 or 1.
#[test]
fn format_7_operations_are_refused_before_version_7_and_out_of_range() {
    let v6 = r#"{"format": 6, "brokers": [1,2], "events": [{"op":"create_partition","replicas":[1,2]},{"op":"log_dir_offline","broker":2,"dir":0}]}"#;
    let err = History::from_json(v6).unwrap_err();
    assert!(
        err.contains("uses a format 7 operation") && err.contains("\"format\": 7"),
        "{err}"
    );
    let v7 = v6.replace(r#""format": 6"#, r#""format": 7"#);
    assert!(History::from_json(&v7).is_ok());
    let err = History::from_json(&v7.replace(r#""dir":0"#, r#""dir":2"#)).unwrap_err();
    assert!(err.contains("dir"), "{err}");
}
