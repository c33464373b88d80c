//! The checks themselves, on states a correct model never produces: each case runs a
//! short history, corrupts the state after its last step the way a model bug would, and
//! lists the step invariants that fire. The uncorrupted step must be clean (the negative
//! space), and each sub-condition of a check has a case of its own, so weakening any of
//! them (an `||` turned `&&`, a dropped clause) fails here. Witnesses for whole
//! invariants are in tests/witnesses.rs.

mod common;

use expect_test::{expect, Expect};
use isrfuzz::invariants::{by_id, Check, Kind, StepView, INVARIANTS};
use isrfuzz::model::{apply, Cluster, Outcome};
use isrfuzz::rules::RuleSet;

fn fired(history: &str, rules: &str, corrupt: impl FnOnce(&mut Cluster, &mut Outcome)) -> String {
    let h = common::parse(history);
    let rules = RuleSet::parse(rules).unwrap();
    let (last, before) = h.events.split_last().unwrap();
    let mut prev = Cluster::new(&h.brokers, h.broker_config);
    for e in before {
        apply(&mut prev, e, &rules);
    }
    let mut next = prev.clone();
    let mut outcome = apply(&mut next, last, &rules);
    let view = |next: &Cluster, outcome: &Outcome| -> Vec<String> {
        let v = StepView {
            prev: &prev,
            next,
            event: last,
            outcome,
            rules: &rules,
        };
        INVARIANTS
            .iter()
            .filter_map(|i| match i.check {
                Check::Step(c) => c(&v).map(|d| format!("{} ({d})", i.id)),
                _ => None,
            })
            .collect()
    };
    assert_eq!(
        view(&next, &outcome),
        Vec::<String>::new(),
        "the uncorrupted step is clean"
    );
    corrupt(&mut next, &mut outcome);
    view(&next, &outcome).join("\n") + "\n"
}

fn check(history: &str, corrupt: impl FnOnce(&mut Cluster, &mut Outcome), expect: Expect) {
    expect.assert_eq(&fired(history, "complete", corrupt));
}

const REASSIGN: &str = "create 1,2,3; reassign 1,2,4";

#[test]
fn s0_empty_isr_even_when_leaderless() {
    check(
        REASSIGN,
        |c, _| {
            c.partitions[0].isr.clear();
            c.partitions[0].leader = -1;
        },
        expect![[r#"
            S0 (p0: empty replicas [1,2,4,3] or isr [])
            S3 (p0: leader_epoch 0 → 0 (replica left or leader moved: true))
        "#]],
    );
}

#[test]
fn s1_removing_outside_the_replicas() {
    check(
        REASSIGN,
        |c, _| c.partitions[0].removing_replicas = vec![5],
        expect![[r#"
            S1 (p0: adding [4] or removing [5] ⊄ replicas [1,2,4,3])
            G1 (p0: replicas − removing = [1,2,4,3] but T = [1,2,4])
        "#]],
    );
}

#[test]
fn s3_a_replica_leaves_without_a_leader_epoch_bump() {
    check(
        REASSIGN,
        |c, _| {
            let p = &mut c.partitions[0];
            p.replicas.retain(|&r| r != 3);
            p.isr.retain(|&r| r != 3);
            p.removing_replicas.clear();
        },
        expect![[r#"
            S3 (p0: leader_epoch 0 → 0 (replica left or leader moved: true))
            G1 (p0: replicas [1,2,4] vs T [1,2,4] O [1,2,3])
        "#]],
    );
}

#[test]
fn s3_the_leader_epoch_goes_down() {
    check(
        REASSIGN,
        |c, _| c.partitions[0].leader_epoch -= 1,
        expect![[r#"
            S3 (p0: leader_epoch 0 → -1 (replica left or leader moved: false))
        "#]],
    );
}

#[test]
fn g1_a_target_replica_missing_from_the_replicas() {
    check(
        REASSIGN,
        |c, _| {
            let p = &mut c.partitions[0];
            p.replicas.retain(|&r| r != 4);
            p.adding_replicas.clear();
            p.adding_replicas.push(2);
        },
        expect![[r#"
            G1 (p0: replicas [1,2,3] vs T [1,2,4] O [1,2,3])
            G3 (p0: adding [2] holds original replicas [2])
        "#]],
    );
}

#[test]
fn g1_a_replica_no_target_ever_named() {
    check(
        REASSIGN,
        |c, _| c.partitions[0].replicas.push(5),
        expect![[r#"
            G1 (p0: replicas [1,2,4,3,5] vs T [1,2,4] O [1,2,3])
            G2 (p0: [5] will survive, is not original [1,2,3] and is not in adding [4])
        "#]],
    );
}

#[test]
fn g9_a_completion_record_that_keeps_an_adding_replica() {
    check(
        "create 1,2,3; reassign 1,2,4; isr 1,2,3,4",
        |_, o| {
            if let Outcome::Accepted { effects, .. } = o {
                let info = effects[0].completion.as_mut().expect("the step completes");
                info.record.adding_replicas = vec![4];
            }
        },
        expect![[r#"
            G9 (p0: record has replicas [1,2,4] isr [1,2,4] leader 1, expected replicas [1,2,4] isr [1,2,4])
        "#]],
    );
}

#[test]
fn registry_lookups_and_kind_names() {
    assert_eq!(by_id("G5").map(|i| i.id), Some("G5"));
    assert_eq!(by_id("INV-4b").map(|i| i.id), Some("INV-4b"));
    assert!(by_id("G99").is_none());
    let names: Vec<_> = [Kind::Always, Kind::EventuallyAtQuiescence, Kind::Sometimes]
        .iter()
        .map(|k| k.name())
        .collect();
    assert_eq!(names, ["always", "eventually-at-quiescence", "sometimes"]);
}

fn g9_with(corrupt: impl FnOnce(&mut isrfuzz::model::Partition), expect: Expect) {
    check(
        "create 1,2,3; reassign 1,2,4; isr 1,2,3,4",
        |_, o| {
            if let Outcome::Accepted { effects, .. } = o {
                corrupt(&mut effects[0].completion.as_mut().expect("completes").record);
            }
        },
        expect,
    );
}

#[test]
fn g9_each_clause_alone() {
    g9_with(
        |r| r.replicas.push(3),
        expect![[r#"
            G4 (p0: completed with replicas [1,2,4,3] but T = [1,2,4])
            G9 (p0: record has replicas [1,2,4,3] isr [1,2,4] leader 1, expected replicas [1,2,4] isr [1,2,4])
        "#]],
    );
    g9_with(
        |r| r.isr.push(3),
        expect![[r#"
            G9 (p0: record has replicas [1,2,4] isr [1,2,4,3] leader 1, expected replicas [1,2,4] isr [1,2,4])
        "#]],
    );
    g9_with(
        |r| r.leader = 5,
        expect![[r#"
            G9 (p0: record has replicas [1,2,4] isr [1,2,4] leader 5, expected replicas [1,2,4] isr [1,2,4])
        "#]],
    );
    g9_with(
        |r| r.removing_replicas = vec![3],
        expect![[r#"
            G9 (p0: record has replicas [1,2,4] isr [1,2,4] leader 1, expected replicas [1,2,4] isr [1,2,4])
        "#]],
    );
}

/// How often each `sometimes` property fires on short histories, under two rule sets: a
/// property that fired on every step, or never, or on the wrong step, changes a count.
#[test]
fn sometimes_counts_on_short_histories() {
    let cases = [
        "create 1,2,3; reassign 1,2,4; reassign 1,2,5; cancel; cancel; reassign 1,2,4; \
         isr 1,2,3,4",
        "create 1,2,3; isr 1,2; reassign 1,4; isr 1,4; fence 1; elect unclean",
        "brokers 1,2,3; create 1,2,3; produce 10; time 15000; switch; time 15000; seal; \
         stall 2; time 60000; produce 3; time 60000",
        "brokers 1,2,3; create 1,2,3; produce 10; time 15000; switch consolidating; \
         time 15000; seal; fence 1; time 30000",
    ];
    let mut out = String::new();
    for text in cases {
        let h = common::parse(text);
        for rules in ["trunk", "complete"] {
            let v = isrfuzz::oracle::run(&h, &[RuleSet::parse(rules).unwrap()], false);
            let counts: Vec<String> = INVARIANTS
                .iter()
                .zip(&v.sides[0].sometimes)
                .filter(|(i, _)| i.kind == Kind::Sometimes)
                .map(|(i, n)| format!("{}={n}", i.id))
                .collect();
            out += &format!("{rules}: {}\n", counts.join(" "));
        }
    }
    expect![[r#"
        trunk: V1=1 V2=1 V3=1 V4=0 V5=1 V6=1 V7=1 V8=0 V9=0 V10=0 V11=0 V12=0
        complete: V1=1 V2=1 V3=1 V4=0 V5=1 V6=1 V7=1 V8=0 V9=0 V10=0 V11=0 V12=0
        trunk: V1=0 V2=1 V3=0 V4=1 V5=3 V6=1 V7=0 V8=0 V9=0 V10=0 V11=0 V12=0
        complete: V1=0 V2=1 V3=0 V4=1 V5=3 V6=1 V7=0 V8=0 V9=0 V10=0 V11=0 V12=0
        trunk: V1=0 V2=0 V3=0 V4=0 V5=0 V6=0 V7=0 V8=0 V9=1 V10=0 V11=0 V12=1
        complete: V1=0 V2=0 V3=0 V4=0 V5=0 V6=0 V7=0 V8=0 V9=1 V10=0 V11=0 V12=1
        trunk: V1=0 V2=0 V3=0 V4=1 V5=1 V6=0 V7=0 V8=0 V9=1 V10=0 V11=0 V12=1
        complete: V1=0 V2=0 V3=0 V4=1 V5=1 V6=0 V7=0 V8=0 V9=1 V10=0 V11=0 V12=1
    "#]]
    .assert_eq(&out);
}

/// INV-1's ghost clock: replicas whose log reached the lag target (here the seal) count as
/// in sync however long they stay quiet, so a consolidating partition left alone for
/// minutes does not break INV-1 (the violating side: the CE-a witness and
/// `inv1_fires_on_a_classic_follower_left_in_the_isr`).
#[test]
fn inv1_quiet_replicas_at_the_seal_stay_in_sync() {
    let quiet = "brokers 1,2,3; create 1,2,3; produce 10; time 15000; switch consolidating; \
                 time 15000; seal; time 200000";
    for rules in ["complete", "inkless-main"] {
        let v = isrfuzz::oracle::run(
            &common::parse(quiet),
            &[RuleSet::parse(rules).unwrap()],
            false,
        );
        assert!(
            !v.sides[0].violates("INV-1"),
            "{rules}: {:?}",
            v.sides[0].violations
        );
    }
}

/// A model whose ISR-expiration task never removes anyone: the stalled follower stays in
/// the ISR of a classic partition while the leader moves on, which INV-1 must report.
fn fault_isr_never_shrinks(
    c: &mut Cluster,
    e: &isrfuzz::model::Event,
    r: &dyn isrfuzz::model::Rules,
) -> Outcome {
    let before: Vec<Vec<i32>> = c.partitions.iter().map(|p| p.isr.clone()).collect();
    let out = apply(c, e, r);
    for (p, isr) in c.partitions.iter_mut().zip(before) {
        for b in isr {
            if !p.isr.contains(&b) && p.replicas.contains(&b) {
                p.isr.push(b);
            }
        }
    }
    out
}

#[test]
fn inv1_fires_on_a_classic_follower_left_in_the_isr() {
    let h = common::parse(
        "brokers 1,2,3; create 1,2,3; produce 10; time 15000; stall 2; produce 5; \
         time 60000; time 60000",
    );
    let complete = [RuleSet::complete()];
    let faulty = isrfuzz::oracle::run_with(&h, &complete, false, fault_isr_never_shrinks);
    let clean = isrfuzz::oracle::run(&h, &complete, false);
    assert!(
        faulty.sides[0].violates("INV-1"),
        "{:?}",
        faulty.sides[0].violations
    );
    assert!(
        clean.sides[0].violations.is_empty(),
        "{:?}",
        clean.sides[0].violations
    );
}
