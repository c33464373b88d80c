//! Bounded exhaustive exploration: pinned state counts (a model change that alters them is
//! noticed, as stateright pins its examples' counts), and the shortest counterexamples the
//! reassignment histories give (docs/model/reassignment.md#histories) (KAFKA-21419 in 3 operations, drop-then-re-add in 4).

use expect_test::{expect, Expect};
use isrfuzz::rules::RuleSet;
use isrfuzz::search::exhaust::{explore, starts};

fn check(start: &str, rules: &str, depth: usize, expect: Expect) {
    check_mode(start, false, None, rules, depth, expect);
}

/// `check` from the start with ELR on or off and its partition's min ISR.
fn check_mode(
    start: &str,
    elr: bool,
    min_isr: Option<i32>,
    rules: &str,
    depth: usize,
    expect: Expect,
) {
    let start = starts().into_iter().find(|s| s.name == start).unwrap();
    let start = &start.with_mode(elr, min_isr).unwrap();
    let r = explore(start, &RuleSet::parse(rules).unwrap(), depth, 4, 1_000_000);
    let setup = start.setup.len();
    let mut lines = vec![format!(
        "transitions={} states={} depth={}",
        r.transitions, r.states, r.depth_reached
    )];
    for (inv, h) in &r.violations {
        lines.push(format!("{inv} shortest={}", h.events.len() - setup));
    }
    expect.assert_eq(&(lines.join("\n") + "\n"));
}

#[test]
fn trunk_from_the_spec_start() {
    check(
        "kraft",
        "trunk",
        3,
        expect![[r#"
            transitions=30824 states=12270 depth=3
            S1 shortest=2
            G7 shortest=2
            E1 shortest=2
            G1 shortest=2
            G2 shortest=2
            G4 shortest=3
            G6 shortest=3
            G5 shortest=3
        "#]],
    );
}

#[test]
fn complete_holds_to_depth_3() {
    check(
        "kraft",
        "complete",
        3,
        expect![[r#"
            transitions=25038 states=7257 depth=3
        "#]],
    );
}

#[test]
fn proposed_fix_needs_four_operations() {
    check(
        "kraft",
        "kafka-21419-always-write",
        4,
        expect![[r#"
            transitions=301591 states=61835 depth=4
            G2 shortest=3
            G6 shortest=3
            G5 shortest=4
        "#]],
    );
}

#[test]
fn switched_start_under_pr756_and_complete() {
    check(
        "switched",
        "pr756",
        3,
        expect![[r#"
            transitions=3332 states=1409 depth=3
            INV-5 shortest=1
            INV-2 shortest=2
            E2 shortest=2
            INV-6 shortest=2
            INV-9 shortest=3
            INV-4 shortest=3
        "#]],
    );
    check(
        "switched",
        "complete",
        3,
        expect![[r#"
            transitions=3652 states=1651 depth=3
            INV-9 shortest=3
            E2 shortest=3
        "#]],
    );
}

/// The result does not depend on the threads: one, two and five threads explore the same
/// counts and find the same shortest histories, in the same order (the transitions are
/// merged in the order one thread takes them).
#[test]
fn threads_do_not_change_the_result() {
    use isrfuzz::search::exhaust::{explore_with, Limits};
    let starts = starts();
    for (start, rules, violates) in [
        ("kraft", "trunk", true),
        ("switched", "pr756", true),
        ("data", "complete", false),
    ] {
        let start = starts.iter().find(|s| s.name == start).unwrap();
        let rules = RuleSet::parse(rules).unwrap();
        let run = |jobs: usize| {
            let limits = Limits {
                depth: 3,
                max_target: 4,
                states_max: 1_000_000,
                jobs,
            };
            let r = explore_with(start, &rules, &limits, None);
            let found: Vec<String> = r
                .violations
                .iter()
                .map(|(id, h)| format!("{id} {:016x}", h.content_hash()))
                .collect();
            (r.transitions, r.states, r.depth_reached, found)
        };
        let one = run(1);
        assert!(one.0 > 100, "{} explored", start.name);
        assert_eq!(
            !one.3.is_empty(),
            violates,
            "{} found {:?}",
            start.name,
            one.3
        );
        assert_eq!(run(2), one, "{} with 2 threads", start.name);
        assert_eq!(run(5), one, "{} with 5 threads", start.name);
    }
}

/// With ELR on and min.insync.replicas 2 the same alphabet reaches more states (an ISR
/// shrink below 2 fills the ELR), and `complete` meets F17 (ELR1, ELR3) in one operation.
/// ELR on with min ISR 1, or min ISR 2 with ELR off, explores exactly the default's states:
/// this alphabet's AlterPartitions keep the leader, so the ISR never drops below 1, and
/// min ISR only gates acks=all produce, which it has none of.
#[test]
fn elr_on_from_the_spec_start() {
    check_mode(
        "kraft",
        true,
        Some(2),
        "complete",
        3,
        expect![[r#"
            transitions=25233 states=7696 depth=3
            ELR1 shortest=1
            ELR3 shortest=1
        "#]],
    );
    check_mode(
        "kraft",
        true,
        None,
        "complete",
        3,
        expect![[r#"
            transitions=25038 states=7257 depth=3
        "#]],
    );
    check_mode(
        "kraft",
        false,
        Some(2),
        "complete",
        3,
        expect![[r#"
            transitions=25038 states=7257 depth=3
        "#]],
    );
}

/// What exhaust finds at depth 4 is pinned: each invariant's shortest counterexample (its
/// history's content hash, as in the file name written) in the order found, and the
/// counts. These are the values the exact-state engine of 96d2365 found; the fingerprint
/// engine must find the very same (`ci/exhaust-pins.sh` compares every preset at depths
/// 4 and 5 against tests/it/snapshots/exhaust-pins.txt).
#[test]
fn shortest_counterexamples_at_depth_4_are_pinned() {
    let starts = starts();
    let mut lines = Vec::new();
    for (start, rules) in [
        ("kraft", "trunk"),
        ("kraft", "kafka-21419"),
        ("switched", "pr756"),
        ("switched", "inkless-main"),
    ] {
        let s = starts.iter().find(|s| s.name == start).unwrap();
        let r = explore(s, &RuleSet::parse(rules).unwrap(), 4, 4, 1_000_000);
        lines.push(format!(
            "{rules} from {start}: transitions={} states={} depth={}",
            r.transitions, r.states, r.depth_reached
        ));
        for (id, h) in &r.violations {
            lines.push(format!("  {id} {:016x}", h.content_hash()));
        }
    }
    expect![[r#"
        trunk from kraft: transitions=514724 states=116591 depth=4
          S1 8a6cf9a1fb69f35f
          G7 8a6cf9a1fb69f35f
          E1 8a6cf9a1fb69f35f
          G1 7863e4c9ec44f3ac
          G2 85d0500ad553855b
          G4 355d850cbb10526d
          G6 b30605c20c21f1cb
          G5 9d76bb735470fea0
        kafka-21419 from kraft: transitions=336618 states=71391 depth=4
          S1 8a6cf9a1fb69f35f
          G7 8a6cf9a1fb69f35f
          E1 8a6cf9a1fb69f35f
          G1 7863e4c9ec44f3ac
          G4 355d850cbb10526d
          G2 7f533cccdf19842d
          G6 b30605c20c21f1cb
          G5 bbcba352e09a1ff3
        pr756 from switched: transitions=27125 states=9360 depth=4
          INV-5 9671c19b6a62c8a0
          INV-2 b3913e8998c42fdc
          E2 312658e4477bd853
          INV-6 d9a46f4a62e5678c
          INV-9 122c1ff970ddcc1b
          INV-4 4ff96672dfbbc0e7
        inkless-main from switched: transitions=27100 states=9336 depth=4
          INV-5 9671c19b6a62c8a0
          E2 e8d99f0f77b9fd67
          INV-2 b3913e8998c42fdc
          INV-6 d9a46f4a62e5678c
    "#]]
    .assert_eq(&(lines.join("\n") + "\n"));
}
