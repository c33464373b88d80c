//! The search itself, deterministic (fixed seed, bounded history count): it must find
//! the KAFKA-21419 divergence and minimize it to three operations after creation, find
//! the residual holes of the proposed fix and the keep-old-if-empty cases on its own, and
//! find nothing against the complete fix.

use isrfuzz::findings::triage::load_known;
use isrfuzz::findings::{Finding, Sink};
use isrfuzz::model::Event;
use isrfuzz::rules::RuleSet;
use isrfuzz::search::hunt::{hunt, Config, Report};
use std::time::Duration;

fn run(pairs: &[(&str, &str)], histories: u64, seed: u64) -> Report {
    let pairs = pairs
        .iter()
        .map(|(a, b)| [RuleSet::parse(a).unwrap(), RuleSet::parse(b).unwrap()])
        .collect();
    let cfg = Config {
        budget: Duration::from_secs(600),
        histories_max: Some(histories),
        ..Config::new(pairs, seed)
    };
    let known = load_known(std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/corpus/known.json"
    )))
    .unwrap()
    .into_iter()
    // These tests find the presets' own bugs (expected): count only the known as known.
    .filter(|k| k.kind == isrfuzz::findings::triage::Kind::Known)
    .collect();
    let sink = Sink::new(
        None,
        known,
        format!("found by `isrfuzz hunt --seed {seed}`"),
    );
    hunt(&cfg, &sink, |_| {}).unwrap()
}

fn finding<'a>(report: &'a Report, rules: &str, invariant: &str) -> &'a Finding {
    let rules = RuleSet::parse(rules).unwrap();
    report
        .findings
        .iter()
        .find(|f| f.side_rules == rules && f.invariant == invariant)
        .unwrap_or_else(|| {
            panic!(
                "no {rules} {invariant} finding among {:?}",
                report
                    .findings
                    .iter()
                    .map(|f| (f.side_rules.to_string(), f.invariant))
                    .collect::<Vec<_>>()
            )
        })
}

fn ops_after_creation(f: &Finding) -> usize {
    f.history
        .events
        .iter()
        .filter(|e| !matches!(e, Event::CreatePartition { .. }))
        .count()
}

#[test]
fn finds_kafka_21419_and_minimizes_it() {
    // Seed 6: with the generator's table as it is (every row changes the draws), seeds 1
    // to 5 first find G5 on a longer path (seed 1: a topic deleted first, which the
    // minimizer keeps, as it renumbers the partitions), the same bug; seeds 6 and 7 give
    // the 3-operation shape asserted here (measured with format 7's directory rows).
    let report = run(&[("trunk", "complete")], 4000, 6);
    let g5 = finding(&report, "trunk", "G5");
    let g2 = finding(&report, "trunk", "G2");
    assert!(ops_after_creation(g5) <= 3, "{}", g5.history.to_json());
    assert!(ops_after_creation(g2) <= 2, "{}", g2.history.to_json());
    // The shape of the bug: two reassignments, then an ISR change that completes: an
    // AlterPartition of the history's, or one the leader sends itself after a fetch (time
    // passing, or one explicit fetch), which is judged the same way.
    let kinds: Vec<&str> = g5
        .history
        .events
        .iter()
        .map(|e| match e {
            Event::Reassign { .. } => "reassign",
            Event::AlterPartition { .. } | Event::AdvanceTime { .. } => "isr change",
            Event::FollowerFetch { .. } => "isr change",
            Event::CreatePartition { .. } => "create",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, ["create", "reassign", "reassign", "isr change"]);
    // The complete fix holds on every history of the run, but for the known F13 (a
    // stranded reassignment, G2; docs/findings.md), which this seed reaches too.
    let others: Vec<String> = report
        .findings
        .iter()
        .filter(|f| f.side_rules != RuleSet::trunk())
        .map(|f| format!("{} {}\n{}", f.side_rules, f.invariant, f.history.to_json()))
        .collect();
    assert!(others.is_empty(), "{}", others.join("\n"));
    assert!(report.harness_bugs.is_empty());
}

#[test]
fn finds_the_residual_hole_of_the_proposed_fix() {
    let report = run(&[("kafka-21419-always-write", "complete")], 4000, 2);
    let g5 = finding(&report, "kafka-21419-always-write", "G5");
    // Drop-then-re-add needs a transient: three alter calls before the completing ISR change.
    let reassigns = g5
        .history
        .events
        .iter()
        .filter(|e| matches!(e, Event::Reassign { .. }))
        .count();
    assert!(reassigns >= 3, "{}", g5.history.to_json());
    finding(&report, "kafka-21419-always-write", "G2");
    finding(&report, "kafka-21419-always-write", "G6");
}

#[test]
fn finds_the_keep_old_if_empty_cases() {
    let report = run(&[("kafka-21419", "complete")], 4000, 3);
    // Stuck override back to the original (history 3) and the RF-up override (history 4).
    finding(&report, "kafka-21419", "S1");
    finding(&report, "kafka-21419", "G7");
    finding(&report, "kafka-21419", "E1");
    finding(&report, "kafka-21419", "G4");
}

#[test]
fn complete_fix_holds() {
    let report = run(&[("complete", "complete")], 6000, 4);
    assert!(
        report.findings.is_empty(),
        "{:?}",
        report
            .findings
            .iter()
            .map(|f| f.history.to_json())
            .collect::<Vec<_>>()
    );
    assert_eq!(report.histories, 6000);
}

#[test]
fn hunt_is_deterministic_for_a_seed() {
    let a = run(&[("trunk", "complete")], 500, 9);
    let b = run(&[("trunk", "complete")], 500, 9);
    let key = |r: &Report| {
        r.findings
            .iter()
            .map(|f| (f.side_rules, f.invariant, f.history.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(key(&a), key(&b));
}

/// The rarest vacuity property has a committed witness that still reaches it.
#[test]
fn v8_has_a_witness() {
    let path = std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/corpus/regressions/f1-unclean-election-completes.json"
    ));
    let h = isrfuzz::History::load(path).unwrap();
    let v8 = isrfuzz::check::invariants::INVARIANTS
        .iter()
        .position(|i| i.id == "V8")
        .unwrap();
    let verdict = isrfuzz::check::oracle::run(&h, &[RuleSet::complete()], false);
    assert!(verdict.sides[0].sometimes[v8] > 0);
}

/// Replaying a history twice gives the same trace, over a sample of generated histories
/// under both the buggy and the complete rules (the model is a pure function).
#[test]
fn replay_is_deterministic_on_a_hunt_sample() {
    let mut rng = isrfuzz::search::rng::Rng::new(42);
    let mut buf = Vec::new();
    let sides = [RuleSet::trunk(), RuleSet::complete()];
    for _ in 0..300 {
        rng.fill(&mut buf);
        let h = isrfuzz::decode(&buf, Default::default());
        let a = isrfuzz::check::oracle::run(&h, &sides, true).fingerprint();
        let b = isrfuzz::check::oracle::run(&h, &sides, true).fingerprint();
        assert_eq!(a, b, "{}", h.to_json());
    }
}

/// Every `sometimes` property is reached by a short deterministic hunt with the default
/// pairs, so a generator change that stops reaching a state (an override, a completion, a
/// shrink of a switched partition, a diversion, the at-seal answer ...) fails here.
/// `hunt` prints the same counts after every run.
#[test]
fn a_hunt_sample_reaches_every_sometimes_property() {
    let pairs: Vec<(&str, &str)> = isrfuzz::rules::PRESETS
        .iter()
        .map(|p| (p.name, "complete"))
        .collect();
    let report = run(&pairs, 6_000, 1);
    // V8 (completion inside an unclean election) fires about once per 15,000 histories
    // (2-6 per 10 s `hunt`); `v8_has_a_witness` pins its committed witness instead. V20
    // (ELR5's premise: every candidate gone while the last leader is away) about once per
    // 50,000 ELR-on histories; tests/it/witnesses.rs finds it reached by
    // corpus/regressions/elr5-every-candidate-gone-keeps-the-last-leader.json. V23 (an
    // unplaced last fetched epoch answered OFFSET_OUT_OF_RANGE, F22) fired 3, 6, 0, 6, 0
    // and 6 times in 6,000 histories of seeds 1 to 6 once the generator drew format 5's
    // operations; tests/it/fetcher.rs replays its witness. Seed 1: with format 7's
    // directory rows, seed 3 (the seed before) missed V21 (a failed append check) in
    // 6,000 histories, seeds 1, 2, 4 and 5 reached every property not listed here.
    const RARE: &[&str] = &["V8", "V20", "V23"];
    let mut missed = Vec::new();
    for (i, inv) in isrfuzz::check::invariants::INVARIANTS.iter().enumerate() {
        let sometimes = inv.kind == isrfuzz::check::invariants::Kind::Sometimes;
        if sometimes && !RARE.contains(&inv.id) && report.sometimes[i] == 0 {
            missed.push(inv.id);
        }
    }
    assert!(
        missed.is_empty(),
        "never reached in 6,000 histories: {missed:?}"
    );
}
