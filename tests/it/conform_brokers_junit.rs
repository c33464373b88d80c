//! The data-plane reproducers `conform --junit` writes, without a JVM: F18c's ELR4 as the
//! real brokers show it (a snapshot: the calls of each step, the leader's acks=all
//! completion asserted where the model counts the record acknowledged, the ELR members'
//! logs asserted after the finding's step), the D1, D2 and D5 assertions, and the one-line
//! refusals. That each emitted test fails on every release is ci/conformance.sh's
//! business, against the real jars.

use expect_test::expect_file;
use isrfuzz::conform::junit::{class_name, Finding};
use isrfuzz::conform::junit_brokers::brokers_reproducer;
use isrfuzz::conform::Release;
use isrfuzz::rules::RuleSet;
use isrfuzz::History;
use std::path::Path;

fn emit(
    name: &str,
    rules: &str,
    invariant: &str,
    step: usize,
    detail: &str,
) -> Result<String, String> {
    let release = Release::parse("4.4").unwrap();
    let rules = RuleSet::parse(rules).unwrap();
    let finding = Finding {
        invariant,
        step,
        detail,
    };
    let label = format!("corpus/regressions/{name}");
    let history = History::load(&Path::new("corpus/regressions").join(name)).unwrap();
    brokers_reproducer(&label, &history, &rules, &release, &finding).map(|r| {
        assert_eq!(r.class, class_name(&label, &format!("{invariant}Brokers")));
        r.source
    })
}

const F18C: &str = "f18-stale-elr-member-elected-while-healing.json";
const KIP101: &str = "kip-101-scenario-1-truncate-to-hw-loses-an-acked-record.json";
const PRE_KIP101: &str = "trunk+inkless-main+truncation=hw";

#[test]
fn f18c_elr4_replays_the_brokers_calls_and_asserts_the_elr_members_logs() {
    let detail = "p0: elr member 2 lacks acknowledged record 0 (epoch 0); its log ..0";
    let source = emit(F18C, "trunk+inkless-main", "ELR4", 6, detail).unwrap();
    expect_file!["snapshots/F18StaleElrMemberElectedWhileHealingELR4BrokersReproTest.java"]
        .assert_eq(&source);
}

/// Each invariant asserts its own property, on the replicas the model names: D2 the
/// leader's log, D1 any replica's, D5 the leader's above its log start and the others'
/// below their high watermarks; the acknowledgement is the leader's own completion check.
#[test]
fn each_data_invariant_asserts_its_own_property() {
    let d2 = emit(KIP101, PRE_KIP101, "D2", 7, "p0: leader 3 lacks").unwrap();
    assert!(
        d2.contains("assertTrue(brokers.acknowledged(1, 0, 5L)"),
        "{d2}"
    );
    assert!(
        d2.contains(
            "assertTrue(brokers.holds(3, 0, 0L, 5L, 0), \"the leader 3 holds records 0-4 (epoch 0)"
        ),
        "{d2}"
    );
    assert!(
        !d2.contains("someHolds") && !d2.contains("BelowHighWatermark"),
        "{d2}"
    );
    let d1 = emit(KIP101, PRE_KIP101, "D1", 10, "p0: acknowledged record").unwrap();
    assert!(
        d1.contains("assertTrue(brokers.someHolds(new int[] {"),
        "{d1}"
    );
    let d5 = emit(KIP101, PRE_KIP101, "D5", 7, "p0: record 0").unwrap();
    assert!(d5.contains("brokers.holdsAboveLogStart(3, 0, 0L, "), "{d5}");
    assert!(d5.contains("brokers.highWatermark(1, 0) >= "), "{d5}");
    // Every step up to the finding's is there, and none after it.
    assert!(
        d2.contains("// step 7: ") && !d2.contains("// step 8: "),
        "{d2}"
    );
}

#[test]
fn an_invariant_without_a_brokers_assertion_or_an_inkless_history_gets_one_line() {
    let why = emit(KIP101, PRE_KIP101, "D4", 11, "p0: x").unwrap_err();
    assert!(
        why.starts_with("D4 has no brokers assertion (supported: D1, D2, D5, ELR4)"),
        "{why}"
    );
    assert!(!why.contains('\n'));
    let why = emit(KIP101, PRE_KIP101, "D2", 99, "p0: x").unwrap_err();
    assert!(why.contains("beyond"), "{why}");
    let inkless = "aborted-switch-has-no-diskless-log.json";
    let why = emit(inkless, "trunk+inkless-main", "D2", 1, "p0: x").unwrap_err();
    assert!(why.ends_with("Apache Kafka has no such step"), "{why}");
}
