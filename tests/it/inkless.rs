//! Scenario tests for the Inkless rules (docs/model/inkless.md#counterexamples and the
//! five #756 upstream tests), each under the rule sets that tell the variants apart.
//! Histories use the notation of tests/it/common.rs; `lag` is replica_lag_time_max_ms (30 s by
//! default, so the ISR-expiration task runs every 15 s).

use crate::common;

use common::broker_outcome;
use expect_test::{expect, Expect};

fn check(history: &str, rule_sets: &[&str], expect: Expect) {
    expect.assert_eq(&broker_outcome(history, rule_sets));
}

/// A switched partition with seal 10 on replicas [1,3,2], every replica caught up.
/// `consolidating` picks a consolidating topic.
fn switched(consolidating: bool) -> String {
    let kind = if consolidating { " consolidating" } else { "" };
    format!("create 1,3,2; produce 10; time 15000; switch{kind}; time 15000; seal")
}

// ---- The PR's ladder: each step fixes the previous counterexample; the next one only
// ---- appears once the earlier fix is in.

/// CE-a (rule shrink): main never evaluates a switched partition, so a follower that
/// stalled below the seal (reachable through an operator seal) stays in the ISR.
#[test]
fn ce_a_stalled_follower_below_the_seal_stays_in_isr_on_main() {
    check(
        "create 1,2; produce 60; time 15000; stall 2; produce 40; switch; alter-switch 100; time 90000",
        &["inkless-main", "pr756-commit1"],
        expect![[r#"
            inkless-main: violates INV-1@7
              isr=[1,2] diskless seal=100 t=105000ms | 1*: 100/100 | 2: 60/60 c stalled rec 60@15000
            pr756-commit1: holds
              isr=[1] diskless seal=100 t=105000ms | 1*: 100/100 | 2: 60/60 c stalled rec 60@15000
        "#]],
    );
}

/// CE-b1 (rule lag): with the switched partition now evaluated, the naive uncapped
/// comparison shrinks a consolidating follower recorded at the seal once the leader's own
/// consolidation moves its LEO past it.
#[test]
fn ce_b1_uncapped_lag_shrinks_consolidating_followers() {
    check(
        &format!("{}; time 15000; produce 5; time 60000", switched(true)),
        &["pr756-commit1+lag=uncapped", "pr756-commit1"],
        expect![[r#"
            pr756-commit1+lag=uncapped: violates INV-3@8 INV-4@8 E2@9
              isr=[1] consolidating seal=10 t=105000ms | 1*: 15/15 C | 2: 15/15 C rec 10@30000 | 3: 15/15 C rec 10@30000
            pr756-commit1: holds
              isr=[1,3,2] consolidating seal=10 t=105000ms | 1*: 15/15 C | 2: 15/15 C rec 10@30000 | 3: 15/15 C rec 10@30000
        "#]],
    );
}

/// CE-c1 (rule leader-change): a non-consolidating at-seal follower in the ISR schedules
/// no fetch when the leader moves, is shrunk a lag later and re-admitted after.
#[test]
fn ce_c1_at_seal_follower_without_catch_up_fetch_is_shrunk() {
    check(
        &format!("{}; time 15000; shutdown 1; time 60000", switched(false)),
        &["pr756-commit1+leader-change=none", "pr756-commit1"],
        expect![[r#"
            pr756-commit1+leader-change=none: violates INV-4@8
              isr=[3,2] diskless seal=10 t=105000ms | 1: 10/10 rec -1@0 | 2: 10/10 rec 10@90000 | 3*: 10/10
            pr756-commit1: holds
              isr=[3,2] diskless seal=10 t=105000ms | 1: 10/10 rec -1@0 | 2: 10/10 rec 10@45000 | 3*: 10/10
        "#]],
    );
}

/// CE-c2: commit 1's catch-up fetch does not cover consolidating followers: restarted
/// on consolidation, they never reach the new leader and are shrunk for good.
#[test]
fn ce_c2_consolidating_follower_without_diversion_is_shrunk_for_good() {
    check(
        &format!("{}; time 15000; shutdown 1; time 60000", switched(true)),
        &["pr756-commit1", "pr756"],
        expect![[r#"
            pr756-commit1: violates INV-4@8 E2@9
              isr=[3] consolidating seal=10 t=105000ms | 1: 10/10 rec -1@0 | 2: 10/10 C rec -1@45000 | 3*: 10/10 C
            pr756: violates E2@9
              isr=[3,2] consolidating seal=10 t=105000ms | 1: 10/10 rec -1@0 | 2: 10/10 C rec 10@45000 | 3*: 10/10 C
        "#]],
    );
}

/// CE-b2 and CE-d: with diversion, a follower behind the leader is served from the local
/// log and recorded above the seal; a leader-side cap alone then shrinks it (CE-b2), both
/// caps keep it, and only #760's at-seal exclusion answers it with the at-seal shape (CE-d).
#[test]
fn ce_b2_and_ce_d_diverted_follower_behind_the_leader() {
    check(
        "create 1,3,2; produce 5; time 15000; switch consolidating; time 15000; seal; time 15000; produce 3; time 15000; stall 2; produce 4; time 15000; resume 2; shutdown 1; time 60000",
        &["pr756-commit1+leader-change=diversion", "pr756", "pr756+pr760"],
        expect![[r#"
            pr756-commit1+leader-change=diversion: violates INV-3@14 INV-4@14 INV-6@14 E2@15
              isr=[3] consolidating seal=5 t=135000ms | 1: 12/12 rec -1@0 | 2: 12/12 C rec 8@75000 | 3*: 12/12 C
            pr756: violates INV-6@14 E2@15
              isr=[3,2] consolidating seal=5 t=135000ms | 1: 12/12 rec -1@0 | 2: 12/12 C rec 8@75000 | 3*: 12/12 C
            pr756+pr760: holds
              isr=[3,2] consolidating seal=5 t=135000ms | 1: 12/12 rec -1@0 | 2: 12/12 C rec 5@75000 | 3*: 12/12 C
        "#]],
    );
}

/// CE-c3: diverting without evicting the consolidation fetcher leaves two writers.
#[test]
fn ce_c3_diversion_without_eviction_is_two_writers() {
    check(
        &format!("{}; time 15000; shutdown 1", switched(true)),
        &["pr756+leader-change=diversion-no-evict", "pr756"],
        expect![[r#"
            pr756+leader-change=diversion-no-evict: violates INV-5@7 E2@8
              isr=[3,2] consolidating seal=10 t=45000ms | 1: 10/10 rec -1@0 | 2: 10/10 c C rec -1@45000 | 3*: 10/10 C
            pr756: violates E2@8
              isr=[3,2] consolidating seal=10 t=45000ms | 1: 10/10 rec -1@0 | 2: 10/10 c rec -1@45000 | 3*: 10/10 C
        "#]],
    );
}

/// CE-c4: keyed on the leader epoch, a same-leader bump (a completion that drops another
/// replica) diverts the consolidating followers although the leader kept its records.
#[test]
fn ce_c4_keying_on_the_epoch_bump() {
    check(
        &format!("{}; time 15000; reassign 1,3", switched(true)),
        &["pr756+leader-change=epoch-bump", "pr756"],
        expect![[r#"
            pr756+leader-change=epoch-bump: violates INV-4b@7
              isr=[1,3] consolidating seal=10 t=45000ms | 1*: 10/10 C | 3: 10/10 c rec 10@45000
            pr756: holds
              isr=[1,3] consolidating seal=10 t=45000ms | 1*: 10/10 C | 3: 10/10 C rec 10@45000
        "#]],
    );
}

/// CE-e (rule switched-reassignment): the one-step path puts an empty replica in the ISR
/// of a switched partition; #757 stages it.
#[test]
fn ce_e_one_step_reassignment_of_a_switched_partition() {
    check(
        &format!("{}; time 15000; reassign 1,4", switched(false)),
        &["pr756+pr760", "inkless-complete"],
        expect![[r#"
            pr756+pr760: violates INV-2@7
              isr=[1,4] diskless seal=10 t=45000ms | 1*: 10/10 | 4: 0/0 c rec -1@45000
            inkless-complete: holds
              isr=[1,3,2] diskless seal=10 t=45000ms | 1*: 10/10 | 2: 10/10 rec 10@30000 | 3: 10/10 rec 10@30000 | 4: 0/0 c
        "#]],
    );
}

/// CE-f (rule unfence-expansion): before #754, unfencing re-adds a replica that lost the
/// end of the prefix in an unclean restart.
#[test]
fn ce_f_unfence_re_adds_a_replica_below_the_seal() {
    check(
        "create 1,2; produce 90; time 15000; stall 2; produce 10; switch; alter-switch 100; restart 2 unclean survives=hw",
        &["inkless-complete+unfence-expansion=pre-754", "inkless-complete"],
        expect![[r#"
            inkless-complete+unfence-expansion=pre-754: violates INV-2@7
              isr=[1,2] diskless seal=100 t=15000ms | 1*: 100/100 | 2: 90/90 c rec 90@15000
            inkless-complete: holds
              isr=[1] diskless seal=100 t=15000ms | 1*: 100/100 | 2: 90/90 c rec 90@15000
        "#]],
    );
}

// ---- The five #756 upstream tests (aiven/inkless core/src/test/scala/unit/kafka/server/
// ---- ReplicaManagerInklessTest.scala at 5f22fac12b).

/// testApplyDeltaStartsCatchUpFetcherForDisklessFollowerAtSealOnLeaderChange.
#[test]
fn upstream_catch_up_fetcher_on_leader_change() {
    check(
        &format!("{}; time 15000; shutdown 1", switched(false)),
        &["pr756-commit1", "inkless-main"],
        expect![[r#"
        pr756-commit1: holds
          isr=[3,2] diskless seal=10 t=45000ms | 1: 10/10 rec -1@0 | 2: 10/10 c rec -1@45000 | 3*: 10/10
        inkless-main: holds
          isr=[3,2] diskless seal=10 t=45000ms | 1: 10/10 rec -1@0 | 2: 10/10 rec -1@45000 | 3*: 10/10
    "#]],
    );
}

/// testMaybeShrinkIsrAppliesToSwitchedPartitionsButNotBornDiskless: partition 0 switched
/// at 5, partition 1 born diskless; a silent in-ISR follower on each; only p0 shrinks.
#[test]
fn upstream_shrink_switched_but_not_born_diskless() {
    check(
        "create 1,2; stall 2; produce 5; switch; alter-switch 5; create 1,2 diskless; time 60000",
        &["pr756-commit1", "inkless-main"],
        expect![[r#"
            pr756-commit1: holds
              isr=[1] [1,2] diskless seal=5 t=60000ms | 1*: 5/5 | 2: 0/0 c stalled rec -1@0
            inkless-main: violates INV-1@6
              isr=[1,2] [1,2] diskless seal=5 t=60000ms | 1*: 5/5 | 2: 0/0 c stalled rec -1@0
        "#]],
    );
}

/// testMaybeShrinkIsrKeepsConsolidatingFollowerAtSealInIsr (LEO_L 12, seal 5, recorded 5).
#[test]
fn upstream_keeps_consolidating_follower_at_seal() {
    check(
        "create 1,2; produce 5; time 15000; switch consolidating; time 15000; seal; time 15000; produce 7; time 60000",
        &["pr756-commit1", "pr756-commit1+lag=uncapped"],
        expect![[r#"
            pr756-commit1: holds
              isr=[1,2] consolidating seal=5 t=105000ms | 1*: 12/12 C | 2: 12/12 C rec 5@30000
            pr756-commit1+lag=uncapped: violates INV-3@8 INV-4@8 E2@9
              isr=[1] consolidating seal=5 t=105000ms | 1*: 12/12 C | 2: 12/12 C rec 5@30000
        "#]],
    );
}

/// testApplyDeltaDivertsConsolidatingFollowerToClassicFetcherOnLeaderChange (seal 10,
/// follower LEO 12): the follower leaves consolidation for the classic fetcher.
#[test]
fn upstream_diverts_consolidating_follower() {
    check(
        &format!(
            "{}; time 15000; produce 2; time 15000; shutdown 1",
            switched(true)
        ),
        &["pr756", "pr756-commit1"],
        expect![[r#"
            pr756: violates E2@10
              isr=[3,2] consolidating seal=10 t=60000ms | 1: 12/12 rec -1@0 | 2: 12/12 c rec -1@60000 | 3*: 12/12 C
            pr756-commit1: violates E2@10
              isr=[3,2] consolidating seal=10 t=60000ms | 1: 12/12 rec -1@0 | 2: 12/12 C rec -1@60000 | 3*: 12/12 C
        "#]],
    );
}

/// testMaybeShrinkIsrKeepsConsolidatingFollowerRecordedBeyondSealInIsr: recorded 8 above
/// seal 5 with the leader at 12; both caps keep it, the leader cap alone shrinks it.
#[test]
fn upstream_keeps_follower_recorded_beyond_seal() {
    check(
        "create 1,3,2; produce 5; time 15000; switch consolidating; time 15000; seal; time 15000; produce 3; time 15000; stall 2; produce 4; time 15000; resume 2; shutdown 1; time 60000",
        &["pr756", "pr756+lag=leader-cap"],
        expect![[r#"
            pr756: violates INV-6@14 E2@15
              isr=[3,2] consolidating seal=5 t=135000ms | 1: 12/12 rec -1@0 | 2: 12/12 C rec 8@75000 | 3*: 12/12 C
            pr756+lag=leader-cap: violates INV-3@14 INV-4@14 INV-6@14 E2@15
              isr=[3] consolidating seal=5 t=135000ms | 1: 12/12 rec -1@0 | 2: 12/12 C rec 8@75000 | 3*: 12/12 C
        "#]],
    );
}

/// The PR's story as a ladder: rows are counterexamples, columns the presets in the order
/// the fixes landed; a cell lists the invariants violated. Each fix clears the row before
/// it, and a later row only turns red once the earlier fix is in (CE-c2 needs #756's shrink
/// of switched partitions, CE-d needs commit 3's diversion). E2 is the re-admission a
/// restarted consolidating follower lacks until #760 (docs/model/inkless.md#e2).
#[test]
fn the_pr756_ladder() {
    use isrfuzz::{check::oracle, rules::RuleSet};
    let ladder = [
        "inkless-main",
        "pr756-commit1",
        "pr756",
        "pr756+pr760",
        "inkless-complete",
    ];
    let rows: [(&str, String); 4] = [
        ("CE-a stalled below seal", "create 1,2; produce 60; time 15000; stall 2; produce 40; switch; alter-switch 100; time 90000".into()),
        ("CE-c2 consolidating, leader moves", format!("{}; time 15000; shutdown 1; time 60000", switched(true))),
        ("CE-d diverted behind leader", "create 1,3,2; produce 5; time 15000; switch consolidating; time 15000; seal; time 15000; produce 3; time 15000; stall 2; produce 4; time 15000; resume 2; shutdown 1; time 60000".into()),
        ("CE-e one-step reassignment", format!("{}; time 15000; reassign 1,4", switched(false))),
    ];
    let mut out = String::new();
    for (name, history) in &rows {
        let h = common::parse(history);
        let cells: Vec<String> = ladder
            .iter()
            .map(|preset| {
                let v = oracle::run(&h, &[RuleSet::parse(preset).unwrap()], false);
                let mut ids: Vec<&str> =
                    v.sides[0].violations.iter().map(|v| v.invariant).collect();
                ids.sort_unstable();
                if ids.is_empty() {
                    "ok".to_string()
                } else {
                    ids.join(",")
                }
            })
            .collect();
        out.push_str(&format!("{name:<36} {}\n", cells.join(" | ")));
    }
    expect![[r#"
        CE-a stalled below seal              INV-1 | ok | ok | ok | ok
        CE-c2 consolidating, leader moves    E2 | E2,INV-4 | E2 | ok | ok
        CE-d diverted behind leader          E2 | E2,INV-4 | E2,INV-6 | ok | ok
        CE-e one-step reassignment           INV-2 | INV-2 | INV-2 | INV-2 | ok
    "#]]
    .assert_eq(&out);
}

/// Rule seal-fetch alone (everything else #756): the at-seal exclusion answers the diverted
/// follower with the at-seal shape and records it at the seal, not above it.
#[test]
fn seal_fetch_variants_differ_on_a_diverted_follower() {
    check(
        "create 1,3,2; produce 5; time 15000; switch consolidating; time 15000; seal; time 15000; produce 3; time 15000; stall 2; produce 4; time 15000; resume 2; shutdown 1; time 15000",
        &["pr756", "pr756+seal-fetch=at-seal-exclusion"],
        expect![[r#"
            pr756: violates INV-6@14 E2@15
              isr=[3,2] consolidating seal=5 t=90000ms | 1: 12/12 rec -1@0 | 2: 12/12 C rec 8@75000 | 3*: 12/12 C
            pr756+seal-fetch=at-seal-exclusion: violates E2@15
              isr=[3,2] consolidating seal=5 t=90000ms | 1: 12/12 rec -1@0 | 2: 12/12 C rec 5@75000 | 3*: 12/12 C
        "#]],
    );
}

/// Rule seal-admission alone: a consolidating follower that restarted holding the prefix is
/// re-admitted at the seal with #760, and stays out with generic expansion.
#[test]
fn seal_admission_variants_differ_on_a_restarted_follower() {
    check(
        &format!(
            "{}; time 15000; produce 4; time 15000; restart 2; time 60000",
            switched(true)
        ),
        &["pr756", "pr756+seal-admission=pr760"],
        expect![[r#"
            pr756: violates E2@11
              isr=[1,3] consolidating seal=10 t=120000ms | 1*: 14/14 C | 2: 14/14 C rec 10@30000 | 3: 14/14 C rec 10@30000
            pr756+seal-admission=pr760: holds
              isr=[1,3,2] consolidating seal=10 t=120000ms | 1*: 14/14 C | 2: 14/14 C rec 10@30000 | 3: 14/14 C rec 10@30000
        "#]],
    );
}

/// The planted-bug benchmark's CE-c2. On `pr756-commit1` its INV-4 is a known finding
/// (CE-c's row names its mechanism; F6, F10 and F12 share the invariant), so a fuzz
/// target reports nothing and the benchmark measured 0 of 10. With the bug's fix named
/// (`ISRFUZZ_PLANTED_FIX`), the target reports this INV-4, the one the fix removes; a
/// rule change that leaves it (`lag=uncapped`) does not make it the bug's own. Every fix
/// the bug list names is a rule=variant of this build.
#[test]
fn planted_ce_c2_is_told_apart_from_the_known_holes() {
    use isrfuzz::bench::planted::BUGS;
    use isrfuzz::findings::triage::is_known;
    use isrfuzz::rules::RuleSet;
    use isrfuzz::search::fuzz::{embedded_known, judge, planted_fix, planted_violation, Target};
    let h = common::parse(&format!(
        "{}; time 15000; shutdown 1; time 60000",
        switched(true)
    ));
    let sides = RuleSet::parse_pair("pr756-commit1:complete").unwrap();
    let (verdict, _) = judge(Target::KraftDiff, &h, &sides);
    let left = &verdict.sides[0];
    let inv4 = left.violations.iter().find(|v| v.invariant == "INV-4");
    let inv4 = inv4.expect("pr756-commit1 violates INV-4");
    assert!(!verdict.sides[1].violates("INV-4"));
    assert!(is_known(embedded_known(), &h, left, inv4));
    let until = ["INV-4".to_string()];
    // The fix the benchmark names for CE-c2 (what `ci/bench.sh` passes).
    let ce_c2 = BUGS.iter().find(|b| b.name == "CE-c2").unwrap();
    let fix = planted_fix(ce_c2.fix.expect("CE-c2 names its fix")).unwrap();
    let own = planted_violation(&h, &verdict, &fix, Some(&until)).expect("CE-c2's INV-4");
    assert_eq!((own.invariant, own.step), ("INV-4", 8));
    let other = planted_fix("lag=uncapped").unwrap();
    assert!(planted_violation(&h, &verdict, &other, Some(&until)).is_none());
    assert!(planted_fix("leader-change=bogus").is_err());
    for b in BUGS.iter().filter_map(|b| b.fix) {
        assert!(planted_fix(b).is_ok(), "{b}");
    }
    assert!(planted_fix("leader-change").is_err());
}
