//! The controller requests the model hands the conformance driver, without a JVM: every
//! request a step makes is tapped (the operator's and the brokers' own), in order, with the
//! sender and epochs the controller reads, and a request the model calls not upstream is
//! marked. A tap that missed one would let conformance agree by never asking.

use crate::common;

use isrfuzz::conform::protocol::{differences, encode, registration, Answer, RealBroker};
use isrfuzz::conform::replay::model_requests;
use isrfuzz::model::request::Request;
use isrfuzz::model::Event;
use isrfuzz::rules::RuleSet;

fn requests(text: &str, rules: &str) -> Vec<String> {
    let h = common::parse(text);
    let rules = RuleSet::parse(rules).unwrap();
    model_requests(&h, &rules)
        .into_iter()
        .map(|(step, e)| {
            let line = encode(&e.request).map(|v| v.to_string()).unwrap();
            let skip = if e.not_upstream {
                " (not upstream)"
            } else {
                ""
            };
            format!("{step} {line} -> {}{skip}", e.error)
        })
        .collect()
}

#[test]
fn the_kafka_21419_repro_sends_its_four_requests_with_the_epochs_read() {
    let got = requests(
        "create 1,2,3; reassign 1,2,4; reassign 1,2,4,5; isr 1,2,3,5",
        "trunk",
    );
    assert_eq!(
        got,
        [
            r#"0 {"min_isr":1,"op":"create","replicas":[1,2,3],"unclean":false} -> NONE"#,
            r#"1 {"allow_rf_change":true,"op":"reassign","partition":0,"target":[1,2,4]} -> NONE"#,
            r#"2 {"allow_rf_change":true,"op":"reassign","partition":0,"target":[1,2,4,5]} -> NONE"#,
            r#"3 {"broker":1,"isr":[1,2,3,5],"leader_epoch":0,"leader_recovery_state":0,"op":"alter_partition","partition":0,"partition_epoch":2} -> NONE"#,
        ]
    );
}

#[test]
fn a_restart_is_a_fence_a_registration_and_an_unfence() {
    let got = requests("elr; create 1,2,3; restart 2 unclean", "trunk");
    assert_eq!(got.len(), 4, "{got:#?}");
    assert!(
        got[1].starts_with(r#"1 {"broker":2,"op":"fence"}"#),
        "{got:#?}"
    );
    assert!(
        got[2].starts_with(r#"1 {"broker":2,"clean":false,"op":"register"}"#),
        "{got:#?}"
    );
    assert!(
        got[3].starts_with(r#"1 {"broker":2,"op":"unfence"}"#),
        "{got:#?}"
    );
    let clean = requests("create 1,2,3; restart 2", "trunk");
    assert!(clean[2].contains(r#""clean":true"#), "{clean:#?}");
}

#[test]
fn the_brokers_own_isr_changes_are_requests_too() {
    // Brokers 2 and 3 stall; the ISR-expiration task on leader 1 shrinks them away by
    // itself. A fenced and unfenced broker's first fetch has the leader expand it back.
    let got = requests(
        "brokers 1,2,3; create 1,2,3; produce 10; stall 2; stall 3; time 60000",
        "trunk",
    );
    let shrink = r#"{"broker":1,"isr":[1],"leader_epoch":0,"leader_recovery_state":0,"op":"alter_partition","partition":0,"partition_epoch":0} -> NONE"#;
    assert!(
        got.iter()
            .any(|l| l.starts_with("4 ") && l.ends_with(shrink)),
        "{got:#?}"
    );
    let got = requests(
        "brokers 1,2,3; create 1,2,3; fence 3; unfence 3; fetch 3",
        "trunk",
    );
    let expand = r#"{"broker":1,"isr":[1,2,3],"leader_epoch":0,"leader_recovery_state":0,"op":"alter_partition","partition":0,"partition_epoch":1} -> NONE"#;
    assert_eq!(got.last().unwrap(), &format!("3 {expand}"), "{got:#?}");
}

#[test]
fn a_broker_event_that_does_not_apply_is_marked_not_upstream() {
    let got = requests("create 1,2,3; unfence 2", "trunk");
    assert_eq!(
        got[1],
        r#"1 {"broker":2,"op":"unfence"} -> BROKER_STATE_MISMATCH (not upstream)"#
    );
}

#[test]
fn only_controller_requests_encode() {
    let switch = Event::SwitchStart {
        partition: 0,
        consolidating: false,
    };
    assert!(encode(&Request::Event(switch)).is_err());
    let diskless = Event::CreatePartition {
        replicas: vec![1],
        unclean_leader_election_enable: false,
        diskless: true,
        remote_storage: false,
        min_insync_replicas: 1,
    };
    assert!(encode(&Request::Event(diskless)).is_err());
}

/// The comparison reads every field: an answer equal to the model's agrees, and a change
/// to any one field, the error or a broker's state is a difference of that name.
#[test]
fn every_field_of_an_answer_is_compared() {
    let h = common::parse("create 1,2,3; fence 2");
    let (_, model) = model_requests(&h, &RuleSet::trunk()).pop().unwrap();
    let same = Answer {
        error: "NONE".into(),
        fault: None,
        listed: None,
        elected: None,
        partitions: model
            .partitions
            .iter()
            .enumerate()
            .map(|(i, p)| registration(i, p))
            .collect(),
        brokers: model
            .brokers
            .iter()
            .map(|b| isrfuzz::conform::protocol::real_broker(b, &model.offline_dirs))
            .collect(),
        release: None,
    };
    assert!(differences(&model, &same).is_empty());
    let mutations: Vec<(&str, Box<dyn Fn(&mut Answer)>)> = vec![
        ("error", Box::new(|a| a.error = "INVALID_REQUEST".into())),
        (
            "fault",
            Box::new(|a| a.fault = Some("java.lang.IllegalStateException: x".into())),
        ),
        (
            "p0.replicas",
            Box::new(|a| a.partitions[0].replicas.push(9)),
        ),
        ("p0.isr", Box::new(|a| a.partitions[0].isr.push(2))),
        ("p0.adding", Box::new(|a| a.partitions[0].adding.push(4))),
        (
            "p0.removing",
            Box::new(|a| a.partitions[0].removing.push(4)),
        ),
        ("p0.leader", Box::new(|a| a.partitions[0].leader = 3)),
        (
            "p0.leader_epoch",
            Box::new(|a| a.partitions[0].leader_epoch += 1),
        ),
        (
            "p0.partition_epoch",
            Box::new(|a| a.partitions[0].partition_epoch += 1),
        ),
        (
            "p0.leader_recovery_state",
            Box::new(|a| a.partitions[0].leader_recovery_state = 1),
        ),
        ("p0.elr", Box::new(|a| a.partitions[0].elr.push(2))),
        (
            "p0.last_known_elr",
            Box::new(|a| a.partitions[0].last_known_elr.push(2)),
        ),
        (
            "broker 2",
            Box::new(|a| {
                a.brokers[1] = RealBroker {
                    id: 2,
                    fenced: false,
                    in_controlled_shutdown: false,
                    dirs: a.brokers[1].dirs.clone(),
                }
            }),
        ),
        (
            "partitions",
            Box::new(|a| {
                a.partitions.pop();
            }),
        ),
    ];
    for (name, mutate) in mutations {
        let mut real = same.clone();
        mutate(&mut real);
        let found = differences(&model, &real);
        assert!(
            found.iter().any(|d| d.starts_with(name)),
            "{name}: {found:?}"
        );
    }
}

/// The driver JVM's compilers follow the run's length: C1 alone for the corpus and runs
/// under two minutes, C1 and C2 for a campaign (docs/benchmarks.md, the brokers judge).
#[test]
fn a_long_conform_run_gets_c2_and_a_short_one_c1_alone() {
    use isrfuzz::conform::driver::Jit;
    assert_eq!(Jit::for_run(None, None), Jit::Quick);
    assert_eq!(Jit::for_run(Some(60.0), None), Jit::Quick);
    assert_eq!(Jit::for_run(Some(119.9), Some(5_999)), Jit::Quick);
    assert_eq!(Jit::for_run(Some(120.0), None), Jit::Peak);
    assert_eq!(Jit::for_run(None, Some(6_000)), Jit::Peak);
}
