//! The release presets (`kafka-4.0` … `kafka-4.4`) and rule `last-known-leader`, each
//! told from its siblings by a history the real controllers answer differently
//! (measured by `isrfuzz conform`; conformance/measured.json).

use crate::common;

use isrfuzz::conform::replay::model_requests;
use isrfuzz::model::request::Request;
use isrfuzz::model::{apply, Cluster};
use isrfuzz::rules::{LastKnownLeader, RuleSet, RELEASE_PRESETS};

/// The registration of partition 0 after `text` under `rules`, as `leader isr lke`.
fn after(text: &str, rules: &str) -> String {
    let h = common::parse(text);
    let rules = RuleSet::parse(rules).unwrap();
    let mut c = Cluster::new(&h.brokers, h.broker_config).with_elr(h.eligible_leader_replicas);
    for e in &h.events {
        apply(&mut c, e, &rules);
    }
    let p = &c.partitions[0];
    format!(
        "leader {} isr {:?} lke {:?}",
        p.leader, p.isr, p.last_known_elr
    )
}

/// The leader of partition 0 right after the restarted broker's registration, before it
/// is unfenced (the restart's second controller request).
fn leader_at_registration(text: &str, rules: &str) -> i32 {
    let h = common::parse(text);
    let rules = RuleSet::parse(rules).unwrap();
    let exchanges = model_requests(&h, &rules);
    let (_, registered) = exchanges
        .iter()
        .find(|(_, e)| matches!(e.request, Request::Register { .. }))
        .expect("a registration");
    registered.partitions[0].leader
}

/// KAFKA-19522: the only replica (the last known leader) restarts after a power loss; its
/// registration takes it out of the ELR and runs an election while it is still fenced.
/// 4.0 elects it there (the acceptor's answer is ignored); from 4.1 the partition stays
/// leaderless until the broker is unfenced.
#[test]
fn a_fenced_last_known_leader_is_elected_by_4_0_only() {
    let text = "elr; brokers 1; create 1 min.isr=2; restart 1 unclean";
    assert_eq!(leader_at_registration(text, "kafka-4.0"), 1);
    assert_eq!(
        leader_at_registration(text, "trunk+last-known-leader=4.0"),
        1
    );
    for later in ["kafka-4.1", "kafka-4.2", "kafka-4.3", "kafka-4.4", "trunk"] {
        assert_eq!(leader_at_registration(text, later), -1, "{later}");
    }
}

/// `maybeUpdateLastKnownLeader`: a cancel that leaves the partition leaderless records
/// the leader before it from 4.1; 4.0 records only when the record writes an empty ISR.
#[test]
fn the_last_known_leader_is_recorded_as_each_release_does() {
    let text = "elr; brokers 1,2,3; create 1 unclean; fence 1; reassign 2; restart 3; cancel";
    assert!(
        after(text, "kafka-4.1").ends_with("lke [2]"),
        "{}",
        after(text, "kafka-4.1")
    );
    assert!(
        after(text, "kafka-4.0").ends_with("lke []"),
        "{}",
        after(text, "kafka-4.0")
    );
}

/// Each release preset names its release and differs from the one before it exactly
/// where a measured difference lies (4.0 → 4.1: last-known-leader; 4.2 → 4.3: completion).
#[test]
fn release_presets_differ_where_the_releases_do() {
    let names: Vec<_> = RELEASE_PRESETS.iter().map(|p| p.name).collect();
    assert_eq!(
        names,
        [
            "kafka-4.0",
            "kafka-4.1",
            "kafka-4.2",
            "kafka-4.3",
            "kafka-4.4"
        ]
    );
    let rules: Vec<RuleSet> = names.iter().map(|n| RuleSet::parse(n).unwrap()).collect();
    assert_eq!(rules[0].last_known_leader, LastKnownLeader::V4_0);
    assert_eq!(
        rules[1],
        RuleSet {
            last_known_leader: LastKnownLeader::V4_1Plus,
            ..rules[0]
        }
    );
    assert_eq!(rules[1], rules[2]);
    assert_ne!(rules[2].completion, rules[3].completion);
    assert_eq!(rules[3], rules[4]);
    assert_eq!(rules[3], RuleSet::trunk());
    assert_eq!(rules[1], RuleSet::parse("3.8-4.2").unwrap());
}
