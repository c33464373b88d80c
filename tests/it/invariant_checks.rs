//! The checks themselves, on states a correct model never produces: each case runs a
//! short history, corrupts the state after its last step the way a model bug would, and
//! lists the step invariants that fire. The uncorrupted step must be clean (the negative
//! space), and each sub-condition of a check has a case of its own, so weakening any of
//! them (an `||` turned `&&`, a dropped clause) fails here. Witnesses for whole
//! invariants are in tests/it/witnesses.rs.

use crate::common;

use expect_test::{expect, Expect};
use isrfuzz::check::invariants::{
    by_id, quiescent_violations, step_violations, Kind, StepView, INVARIANTS,
};
use isrfuzz::model::broker::Note;
use isrfuzz::model::{apply, BrokerState, Cluster, Outcome};
use isrfuzz::rules::RuleSet;

fn fired(history: &str, rules: &str, corrupt: impl FnOnce(&mut Cluster, &mut Outcome)) -> String {
    fired_both(history, rules, |_, next, outcome| corrupt(next, outcome))
}

/// The step invariants that fire on the last step of `history`, after `corrupt` changed
/// the state before it (`prev`), the state after it, or the outcome.
fn fired_both(
    history: &str,
    rules: &str,
    corrupt: impl FnOnce(&mut Cluster, &mut Cluster, &mut Outcome),
) -> String {
    let h = common::parse(history);
    let rules = RuleSet::parse(rules).unwrap();
    let (last, before) = h.events.split_last().unwrap();
    let mut prev = common::cluster_after(&h, before, &rules);
    let mut next = prev.clone();
    let mut outcome = apply(&mut next, last, &rules);
    let view = |prev: &Cluster, next: &Cluster, outcome: &Outcome| -> Vec<String> {
        let v = StepView {
            prev,
            next,
            event: last,
            outcome,
        };
        step_violations(&v, &rules).map(named).collect()
    };
    assert_eq!(
        view(&prev, &next, &outcome),
        Vec::<String>::new(),
        "the uncorrupted step is clean"
    );
    corrupt(&mut prev, &mut next, &mut outcome);
    lines(view(&prev, &next, &outcome))
}

/// The quiescence invariants that fire on the state after `history` (not healed), once
/// `corrupt` changed it; the uncorrupted state must be clean.
fn fired_quiescent(history: &str, corrupt: impl FnOnce(&mut Cluster)) -> String {
    let h = common::parse(history);
    let rules = RuleSet::complete();
    let mut c = common::cluster_after(&h, &h.events, &rules);
    let view =
        |c: &Cluster| -> Vec<String> { quiescent_violations(c, &rules).map(named).collect() };
    assert_eq!(
        view(&c),
        Vec::<String>::new(),
        "the uncorrupted state is clean"
    );
    corrupt(&mut c);
    lines(view(&c))
}

fn named((id, detail): (&str, String)) -> String {
    format!("{id} ({detail})")
}

fn lines(fired: Vec<String>) -> String {
    if fired.is_empty() {
        return "nothing fires\n".into();
    }
    fired.join("\n") + "\n"
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
        |c, _| c.partitions[0].removing_replicas = vec![5].into(),
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
                info.record.adding_replicas = vec![4].into();
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
        |r| r.removing_replicas = vec![3].into(),
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
        // Only accepted cancels count (V3), only committed seals (V9, not an abort), only
        // lag shrinks of switched partitions (V10, not this classic one).
        "create 1,2,3; cancel; cancel",
        "brokers 1,2,3; create 1,2,3; produce 10; time 15000; switch; alter-switch -1",
        "brokers 1,2,3; create 1,2,3; produce 10; stall 2; time 60000",
    ];
    let mut out = String::new();
    for text in cases {
        let h = common::parse(text);
        for rules in ["trunk", "complete"] {
            let v = isrfuzz::check::oracle::run(&h, &[RuleSet::parse(rules).unwrap()], false);
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
        trunk: V1=1 V2=1 V3=1 V4=0 V5=1 V6=1 V7=1 V8=0 V9=0 V10=0 V11=0 V12=0 V13=0 V14=0 V15=0 V16=0 V17=0 V18=0 V19=0 V20=0 V21=0 V22=0 V23=0
        complete: V1=1 V2=1 V3=1 V4=0 V5=1 V6=1 V7=1 V8=0 V9=0 V10=0 V11=0 V12=0 V13=0 V14=0 V15=0 V16=0 V17=0 V18=0 V19=0 V20=0 V21=0 V22=0 V23=0
        trunk: V1=0 V2=1 V3=0 V4=1 V5=3 V6=1 V7=0 V8=0 V9=0 V10=0 V11=0 V12=0 V13=0 V14=0 V15=0 V16=0 V17=0 V18=0 V19=0 V20=0 V21=0 V22=0 V23=0
        complete: V1=0 V2=1 V3=0 V4=1 V5=3 V6=1 V7=0 V8=0 V9=0 V10=0 V11=0 V12=0 V13=0 V14=0 V15=0 V16=0 V17=0 V18=0 V19=0 V20=0 V21=0 V22=0 V23=0
        trunk: V1=0 V2=0 V3=0 V4=0 V5=0 V6=0 V7=0 V8=0 V9=1 V10=0 V11=0 V12=1 V13=0 V14=0 V15=1 V16=0 V17=0 V18=0 V19=0 V20=0 V21=0 V22=0 V23=0
        complete: V1=0 V2=0 V3=0 V4=0 V5=0 V6=0 V7=0 V8=0 V9=1 V10=0 V11=0 V12=1 V13=0 V14=0 V15=1 V16=0 V17=0 V18=0 V19=0 V20=0 V21=0 V22=0 V23=0
        trunk: V1=0 V2=0 V3=0 V4=1 V5=1 V6=0 V7=0 V8=0 V9=1 V10=0 V11=0 V12=0 V13=0 V14=0 V15=1 V16=0 V17=0 V18=0 V19=0 V20=0 V21=0 V22=0 V23=0
        complete: V1=0 V2=0 V3=0 V4=1 V5=1 V6=0 V7=0 V8=0 V9=1 V10=0 V11=0 V12=1 V13=0 V14=0 V15=1 V16=0 V17=0 V18=0 V19=0 V20=0 V21=0 V22=0 V23=0
        trunk: V1=0 V2=0 V3=0 V4=0 V5=0 V6=2 V7=0 V8=0 V9=0 V10=0 V11=0 V12=0 V13=0 V14=0 V15=0 V16=0 V17=0 V18=0 V19=0 V20=0 V21=0 V22=0 V23=0
        complete: V1=0 V2=0 V3=0 V4=0 V5=0 V6=2 V7=0 V8=0 V9=0 V10=0 V11=0 V12=0 V13=0 V14=0 V15=0 V16=0 V17=0 V18=0 V19=0 V20=0 V21=0 V22=0 V23=0
        trunk: V1=0 V2=0 V3=0 V4=0 V5=0 V6=0 V7=0 V8=0 V9=0 V10=0 V11=0 V12=0 V13=0 V14=0 V15=1 V16=0 V17=0 V18=0 V19=0 V20=0 V21=0 V22=0 V23=0
        complete: V1=0 V2=0 V3=0 V4=0 V5=0 V6=0 V7=0 V8=0 V9=0 V10=0 V11=0 V12=0 V13=0 V14=0 V15=1 V16=0 V17=0 V18=0 V19=0 V20=0 V21=0 V22=0 V23=0
        trunk: V1=0 V2=0 V3=0 V4=0 V5=1 V6=0 V7=0 V8=0 V9=0 V10=0 V11=0 V12=0 V13=0 V14=0 V15=1 V16=0 V17=0 V18=0 V19=0 V20=0 V21=0 V22=0 V23=0
        complete: V1=0 V2=0 V3=0 V4=0 V5=1 V6=0 V7=0 V8=0 V9=0 V10=0 V11=0 V12=0 V13=0 V14=0 V15=1 V16=0 V17=0 V18=0 V19=0 V20=0 V21=0 V22=0 V23=0
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
        let v = isrfuzz::check::oracle::run(
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
    let before: Vec<Vec<i32>> = c.partitions.iter().map(|p| p.isr.to_vec()).collect();
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
    let faulty = isrfuzz::check::oracle::run_with(&h, &complete, false, fault_isr_never_shrinks);
    let clean = isrfuzz::check::oracle::run(&h, &complete, false);
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

// --- The Inkless checks, one case per sub-condition (same idea as S0–G9 above). ---

/// A classic partition whose followers are 10 records behind; corrupting the clock to two
/// lag windows later makes INV-1 see a follower silent for too long.
const BEHIND: &str = "brokers 1,2,3; create 1,2,3; produce 10";

use common::{local, set_broker, set_leo};

#[test]
fn inv1_judges_only_a_live_current_leader() {
    let later = |c: &mut Cluster| c.runtime.now_ms += 60_000;
    check(
        BEHIND,
        |c, _| later(c),
        expect![[r#"
        INV-1 (p0: follower 2 in isr [1,2,3] at LEO 0 < 10, silent for 60000 ms)
    "#]],
    );
    // The leader is fenced (the controller would have moved it): nobody judges the lag.
    check(
        BEHIND,
        |c, _| {
            later(c);
            set_broker(c, 1, BrokerState::Fenced);
        },
        expect![[r#"
            nothing fires
        "#]],
    );
    // The leader's state is from an older leader epoch: it has not judged this epoch yet.
    check(
        BEHIND,
        |c, _| {
            later(c);
            c.runtime.partitions[0]
                .leader
                .as_mut()
                .unwrap()
                .leader_epoch -= 1;
        },
        expect![[r#"
            nothing fires
        "#]],
    );
}

#[test]
fn inv1_a_follower_exactly_at_the_target_is_in_sync() {
    check(
        BEHIND,
        |c, _| {
            c.runtime.now_ms += 60_000;
            set_leo(local(c, 2), 10);
            set_leo(local(c, 3), 10);
        },
        expect![[r#"
            nothing fires
        "#]],
    );
}

/// A switched, non-consolidating partition sealed at 0 (nothing was produced), then a
/// reassignment that drops broker 3: leader 1 stays, its leader epoch rises.
const SEAL_ZERO_BUMP: &str = "brokers 1,2,3; create 1,2,3; switch; seal; reassign 1,2";

#[test]
fn inv4b_a_same_leader_bump_that_starts_a_classic_fetch() {
    // Follower 2 was off the classic fetcher before the bump and is on it after, though
    // its high watermark is at the seal: the extra fetch INV-4b is about (seal 0 counts).
    fired_case(
        SEAL_ZERO_BUMP,
        |prev, _, _| local(prev, 2).stop_classic(),
        expect![[r#"
            INV-4b (p0: leader 1 kept, epoch 1 → 2, yet follower 2 moved to the classic fetcher)
        "#]],
    );
    // The same flip without a leader-epoch bump (a step that changes nothing) is not
    // INV-4b's business.
    fired_case(
        "brokers 1,2,3; create 1,2,3; switch; seal; list",
        |prev, _, _| local(prev, 2).stop_classic(),
        expect![[r#"
            nothing fires
        "#]],
    );
    // Only ISR followers count: the leader's own fetcher flag is another check's concern.
    fired_case(
        SEAL_ZERO_BUMP,
        |_, next, _| local(next, 1).start_classic(-1),
        expect![[r#"
            nothing fires
        "#]],
    );
}

fn fired_case(
    history: &str,
    corrupt: impl FnOnce(&mut Cluster, &mut Cluster, &mut Outcome),
    expect: Expect,
) {
    expect.assert_eq(&fired_both(history, "complete", corrupt));
}

#[test]
fn inv6_an_at_seal_answer_with_a_wrong_high_watermark() {
    check(
        "brokers 1,2,3; create 1,2,3; produce 10; time 15000; switch; time 15000; seal; \
         fetch 2",
        |_, o| {
            if let Outcome::Accepted { notes, .. } = o {
                for n in notes {
                    if let Note::Fetch { hw, records, .. } = n {
                        assert_eq!(*records, 0, "the at-seal answer carries no records");
                        *hw += 1;
                    }
                }
            }
        },
        expect![[r#"
            INV-6 (p0: fetch by 2 at 10 ≥ seal 10 got 0 records, HW 11)
        "#]],
    );
}

#[test]
fn inv8_a_seal_that_skips_the_pending_state() {
    check(
        "brokers 1,2,3; create 1,2,3; produce 5",
        |c, _| c.partitions[0].seal = 5,
        expect![[r#"
            S3 (p0: partition_epoch 0 → 0 (changed: true))
            INV-8 (p0: seal -1 → 5)
        "#]],
    );
}

/// A consolidating partition sealed at 10: every follower is on the consolidation fetcher.
const CONSOLIDATED: &str = "brokers 1,2,3; create 1,2,3; produce 10; time 15000; \
                            switch consolidating; time 15000; seal; time 30000";

#[test]
fn inv9_each_follower_on_the_consolidation_fetcher_only() {
    let cases = [
        fired_quiescent(CONSOLIDATED, |c| {
            local(c, 2).fetchers = Default::default();
        }),
        fired_quiescent(CONSOLIDATED, |c| local(c, 3).start_classic(-1)),
        // The leader consolidates for itself; INV-9 is about its followers.
        fired_quiescent(CONSOLIDATED, |c| {
            local(c, 1).stop_consolidation();
        }),
    ];
    expect![[r#"
        INV-9 (p0 (seal 10): follower 2 fetchers Fetchers { classic: false, consolidation: false })
        INV-9 (p0 (seal 10): follower 3 fetchers Fetchers { classic: true, consolidation: true })
        nothing fires
    "#]]
    .assert_eq(&cases.concat());
}

#[test]
fn e2_a_replica_at_a_seal_of_zero_left_out_of_the_isr() {
    expect![[r#"
        E2 (p0: 3 holds the prefix (LEO 0 ≥ seal 0) but stays out of isr [1,2])
    "#]]
    .assert_eq(&fired_quiescent(
        "brokers 1,2,3; create 1,2,3; switch; seal; time 1",
        |c| c.partitions[0].isr.retain(|&r| r != 3),
    ));
}

/// 4 catches up as time passes and its leader's ISR expansion completes the reassignment
/// (no completion the event's record reports): G4, G5 and G8 judge the ISR the completion
/// was decided on, replayed from the broker side's notes (docs/model/reassignment.md#ends).
const TIME_COMPLETES: &str = "create 1,2,3; produce 5; time 1000; reassign 1,2,4; time 30000";

fn notes(o: &mut Outcome) -> &mut Vec<Note> {
    match o {
        Outcome::Accepted { notes, .. } => notes,
        Outcome::Rejected { .. } => unreachable!("the step is accepted"),
    }
}

fn shrink_4() -> Note {
    Note::Shrink {
        partition: 0,
        leader: 1,
        removed: vec![(4, 5)],
    }
}

#[test]
fn ends_by_the_broker_side_judge_the_isr_completion_was_decided_on() {
    let drop_4 = |c: &mut Cluster| c.partitions[0].isr.retain(|&r| r != 4);
    let cases = [
        // Shrunk after completing, in the same step: the replay ends on the step's ISR,
        // and completion was decided on [1,2,4].
        fired(TIME_COMPLETES, "complete", |c, o| {
            drop_4(c);
            notes(o).push(shrink_4());
        }),
        // The same end state with no shrink noted: the replay does not explain it, so
        // the ISR the step ended on is judged.
        fired(TIME_COMPLETES, "complete", |c, _| drop_4(c)),
        // No ISR change noted at all: a record that cleared the lists.
        fired(TIME_COMPLETES, "complete", |c, o| {
            drop_4(c);
            notes(o).clear();
        }),
        // An unclean election visible in the step: no ISR to judge G5 and G8 by (F1),
        // G4 still judges the replicas.
        fired(TIME_COMPLETES, "complete", |c, _| {
            let p = &mut c.partitions[0];
            p.replicas.push(5);
            p.isr = vec![2].into();
            p.leader = 2;
            p.leader_epoch += 1;
            p.leader_recovery_state = isrfuzz::model::LeaderRecoveryState::Recovering;
        }),
    ];
    expect![[r#"
        nothing fires
        G5 (p0: completed with new replicas [4] out of isr [1,2] (replicas [1,2,4]) (completed by an AlterPartition of the broker side))
        G5 (p0: completed with new replicas [4] out of isr [1,2] (replicas [1,2,4]) (ended by a record that cleared adding and removing))
        G4 (p0: completed with replicas [1,2,4,5] but T = [1,2,4] (completed by an AlterPartition of the broker side))
    "#]]
    .assert_eq(&cases.concat());
}
