//! No vacuous invariant (issue "trust the harness", item 1). For every invariant:
//! - a committed history that violates it under some rule set (a variant, a planted bug,
//!   or, for the checks that guard the model itself, a fault injected into the model), and
//! - the same history under another rule set (or the unfaulted model) that reaches the
//!   same point and holds it.
//!
//! Every `sometimes` property must be reached by some committed history. The test fails
//! if any invariant lacks either witness, so a new invariant needs its witnesses, and a
//! corpus or rule change that loses one is noticed.

use crate::common;

use isrfuzz::check::history::History;
use isrfuzz::check::invariants::{Kind, INVARIANTS};
use isrfuzz::check::oracle::{run, run_with, ApplyFn};
use isrfuzz::model::{apply, Cluster, Event, Outcome, Rules};
use isrfuzz::rules::{RuleSet, PRESETS, RULES};
use std::collections::BTreeMap;
use std::path::Path;

/// Every committed JSON history: regressions and the fuzz targets' JSON seeds.
fn corpus() -> Vec<(String, History)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    let mut out = Vec::new();
    for dir in ["regressions", "kraft_diff", "inkless_diff", "cluster"] {
        let mut paths: Vec<_> = std::fs::read_dir(root.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        paths.sort();
        for p in paths {
            let h = History::load(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            out.push((
                format!("{dir}/{}", p.file_name().unwrap().to_string_lossy()),
                h,
            ));
        }
    }
    out
}

/// Every preset, and `complete` with each single rule swapped for each of its variants.
fn rule_sets() -> Vec<(String, RuleSet)> {
    let mut out: Vec<(String, RuleSet)> = PRESETS
        .iter()
        .map(|p| (p.name.to_string(), RuleSet::parse(p.name).unwrap()))
        .collect();
    for rule in RULES {
        for v in rule.variants {
            let name = format!("complete+{}={}", rule.id, v.name);
            out.push((name.clone(), RuleSet::parse(&name).unwrap()));
        }
    }
    out
}

// Faults for the invariants that guard the model's own bookkeeping (no rule variant can
// break them, so a broken model stands in for the variant). Each wraps the real step.

/// S2: the reassigning index is not kept on replay.
fn fault_forget_index(c: &mut Cluster, e: &Event, r: &dyn Rules) -> Outcome {
    let out = apply(c, e, r);
    c.reassigning.clear();
    out
}

/// S3: a change is stored without bumping the partition epoch.
fn fault_no_epoch_bump(c: &mut Cluster, e: &Event, r: &dyn Rules) -> Outcome {
    let before: Vec<i32> = c.partitions.iter().map(|p| p.partition_epoch).collect();
    let out = apply(c, e, r);
    for (p, epoch) in c.partitions.iter_mut().zip(before) {
        p.partition_epoch = epoch;
    }
    out
}

/// INV-8: a committed seal creeps upwards.
fn fault_seal_grows(c: &mut Cluster, e: &Event, r: &dyn Rules) -> Outcome {
    let out = apply(c, e, r);
    if matches!(e, Event::Produce { .. }) {
        for p in &mut c.partitions {
            if p.seal >= 0 {
                p.seal += 1;
            }
        }
    }
    out
}

/// INV-10: every classic follower's fetcher marks its partition failed after each
/// stretch of time (as an append check that always failed would), so none fetches at
/// quiescence while it stays in the ISR the healing reported.
fn fault_fetch_fails(c: &mut Cluster, e: &Event, r: &dyn Rules) -> Outcome {
    let out = apply(c, e, r);
    if matches!(e, Event::AdvanceTime { .. }) {
        for rt in &mut c.runtime.partitions {
            for l in rt
                .locals
                .iter_mut()
                .filter(|l| l.fetchers.classic.is_some())
            {
                l.fail_classic();
            }
        }
    }
    out
}

/// ELR1: a broker that is no replica of the partition joins the ELR.
fn fault_elr_outsider(c: &mut Cluster, e: &Event, r: &dyn Rules) -> Outcome {
    let out = apply(c, e, r);
    for p in &mut c.partitions {
        if !p.elr.contains(&99) {
            p.elr.push(99);
        }
    }
    out
}

/// ELR2: the ISR's first member is also put in the ELR.
fn fault_elr_overlaps_isr(c: &mut Cluster, e: &Event, r: &dyn Rules) -> Outcome {
    let out = apply(c, e, r);
    for p in &mut c.partitions {
        if let Some(&first) = p.isr.first() {
            if !p.elr.contains(&first) {
                p.elr.push(first);
            }
        }
    }
    out
}

/// ELR3: the ELR is never cleared: every replica out of the ISR stays in it, whatever the
/// ISR's size (a builder without `maybePopulateTargetElr`'s min-ISR test).
fn fault_elr_never_cleared(c: &mut Cluster, e: &Event, r: &dyn Rules) -> Outcome {
    let out = apply(c, e, r);
    for p in &mut c.partitions {
        let out_of_isr = p.replicas.iter().copied().filter(|b| !p.isr.contains(b));
        p.elr = out_of_isr.collect();
    }
    out
}

/// ELR5: the last leader is forgotten once the partition is leaderless (a builder without
/// `maybeUpdateLastKnownLeader`).
fn fault_forget_last_leader(c: &mut Cluster, e: &Event, r: &dyn Rules) -> Outcome {
    let out = apply(c, e, r);
    for p in &mut c.partitions {
        if p.leader == isrfuzz::model::NO_LEADER {
            p.last_known_elr.clear();
        }
    }
    out
}

const FAULTS: &[(&str, &str, ApplyFn, &str)] = &[
    (
        "S2",
        "forget-index",
        fault_forget_index,
        "create 1,2,3; reassign 1,2,4",
    ),
    (
        "S3",
        "no-epoch-bump",
        fault_no_epoch_bump,
        "create 1,2,3; reassign 1,2,4",
    ),
    (
        "INV-8",
        "seal-grows",
        fault_seal_grows,
        "brokers 1,2,3; create 1,2,3; produce 10; time 15000; switch consolidating; \
         time 15000; seal; produce 3",
    ),
    (
        "INV-10",
        "fetch-fails",
        fault_fetch_fails,
        "create 1,2,3; produce 10; time 15000",
    ),
    // ELR on, an ISR that falls below min ISR and back: the model keeps every ELR
    // property, each fault breaks one.
    ("ELR1", "elr-outsider", fault_elr_outsider, ELR_HISTORY),
    (
        "ELR2",
        "elr-overlaps-isr",
        fault_elr_overlaps_isr,
        ELR_HISTORY,
    ),
    (
        "ELR3",
        "elr-never-cleared",
        fault_elr_never_cleared,
        ELR_HISTORY,
    ),
    (
        "ELR5",
        "forget-last-leader",
        fault_forget_last_leader,
        ELR_ALL_GONE,
    ),
];

/// ISR [1,2,3] with min ISR 2: 3 fenced (ISR [1,2], no ELR), 2 fenced (ISR [1], ELR [2]),
/// 1 fenced (ISR empty, ELR [1,2]), 2 unfenced and elected from the ELR, 3 back in the ISR
/// (at min ISR again: ELR cleared).
const ELR_HISTORY: &str = "elr; brokers 1,2,3; create 1,2,3 min.isr=2; fence 3; fence 2; \
                           fence 1; unfence 2; unfence 3; isr 2,3";

/// ELR on, min ISR 2: every candidate leaves (1 and 2 by unclean restarts, 1 fenced again
/// in between), the partition has no leader, ISR or ELR, and keeps 1 as its last leader.
const ELR_ALL_GONE: &str = "elr; brokers 1,2,3; create 1,2,3 min.isr=2; fence 3; fence 2; \
                            fence 1; restart 1 unclean; fence 1; restart 2 unclean";

#[derive(Default)]
struct Witness {
    violated: Option<String>,
    held: Option<String>,
    reached: u32,
}

#[test]
fn every_invariant_has_a_violating_and_a_holding_witness() {
    let corpus = corpus();
    let rule_sets = rule_sets();
    let mut witnesses: BTreeMap<&str, Witness> = INVARIANTS
        .iter()
        .map(|i| (i.id, Witness::default()))
        .collect();
    for (file, h) in &corpus {
        let runs: Vec<_> = rule_sets
            .iter()
            .map(|(name, rs)| (name, run(h, &[*rs], false)))
            .collect();
        for (i, inv) in INVARIANTS.iter().enumerate() {
            let w = witnesses.get_mut(inv.id).unwrap();
            let bad = runs.iter().find(|(_, v)| v.sides[0].violates(inv.id));
            let good = runs.iter().find(|(_, v)| !v.sides[0].violates(inv.id));
            if let (Some((bad, _)), Some((good, _)), None) = (bad, good, &w.violated) {
                w.violated = Some(format!("{file} under {bad}"));
                w.held = Some(format!("{file} under {good}"));
            }
            w.reached += runs
                .iter()
                .map(|(_, v)| v.sides[0].sometimes[i])
                .sum::<u32>();
        }
    }
    let complete = RuleSet::complete();
    for (id, fault, apply_faulty, text) in FAULTS {
        let h = common::parse(text);
        let faulty = run_with(&h, &[complete], false, *apply_faulty);
        let clean = run(&h, &[complete], false);
        assert!(
            faulty.sides[0].violates(id),
            "fault {fault} must break {id}"
        );
        assert!(
            clean.sides[0].violations.is_empty(),
            "{text}: {:?}",
            clean.sides[0].violations
        );
        let w = witnesses.get_mut(id).unwrap();
        if w.violated.is_none() {
            w.violated = Some(format!("`{text}` with fault {fault}"));
            w.held = Some(format!("`{text}` on the model"));
        }
    }
    let mut missing = Vec::new();
    for inv in INVARIANTS {
        let w = &witnesses[inv.id];
        let ok = match inv.kind {
            Kind::Sometimes => w.reached > 0,
            _ => w.violated.is_some() && w.held.is_some(),
        };
        if !ok {
            missing.push(inv.id);
        }
    }
    assert!(
        missing.is_empty(),
        "invariants without witnesses: {missing:?}"
    );
}

/// Ends of a reassignment other than the completion a history event's record reports,
/// each broken by a variant (docs/model/reassignment.md#ends): (invariant, rule set,
/// history, the step that ends it). The completing AlterPartition is the leader's own,
/// sent during the step, after a follower's fetch. Each holds under `complete`.
const BROKER_SIDE_ENDS: &[(&str, &str, &str, usize)] = &[
    (
        "G5",
        "trunk",
        // KAFKA-21419 with 4 stalled: 5 catches up as time passes and completes it.
        "create 1,2,3; produce 5; time 1000; reassign 1,2,4; stall 4; reassign 1,2,4,5; \
         time 30000",
        6,
    ),
    (
        "G5",
        "3.0-3.7",
        // The same, completed by one explicit fetch of 5's.
        "create 1,2,3; produce 5; time 1000; reassign 1,2,4; stall 4; reassign 1,2,4,5; \
         fetch 5; fetch 5",
        7,
    ),
    (
        "G4",
        "trunk",
        // History 4 (RF-up override keeps removing [3]), completed when 4 catches up.
        "create 1,2,3; produce 5; stall 4; reassign 1,2,4; reassign 1,2,3,4; resume 4; \
         time 30000",
        6,
    ),
    (
        "G8",
        "3.0-3.7",
        // RF 3 → 2 with the surviving 2 shrunk out of the ISR: 4 catching up completes it.
        "create 1,2,3; produce 5; time 1000; stall 2; produce 5; time 60000; stall 4; \
         reassign 2,4; resume 4; time 30000",
        9,
    ),
];

#[test]
fn a_completion_the_broker_side_sends_is_judged() {
    let complete = RuleSet::complete();
    for (id, rules, text, step) in BROKER_SIDE_ENDS {
        let h = common::parse(text);
        let bad = run(&h, &[RuleSet::parse(rules).unwrap()], false);
        let v = bad.sides[0].violations.iter().find(|v| v.invariant == *id);
        let v = v.unwrap_or_else(|| panic!("{rules} must break {id} on `{text}`"));
        assert_eq!(v.step, *step, "{rules} {id} on `{text}`: {}", v.detail);
        assert!(
            v.detail.contains("by an AlterPartition of the broker side"),
            "{}",
            v.detail
        );
        let good = run(&h, &[complete], false);
        assert!(
            good.sides[0].violations.is_empty(),
            "`{text}` under complete: {:?}",
            good.sides[0].violations
        );
    }
}

/// A model fault for the end that no variant breaks: an override whose record clears
/// adding and removing without the completion test (what a derivation that writes both
/// lists empty does, and here with replicas still holding the removing ones).
fn fault_override_clears_lists(c: &mut Cluster, e: &Event, r: &dyn Rules) -> Outcome {
    let was = c.partitions.first().is_some_and(|p| p.is_reassigning());
    let out = apply(c, e, r);
    if matches!(e, Event::Reassign { .. }) && was && !out.is_rejected() {
        let p = &mut c.partitions[0];
        p.adding_replicas.clear();
        p.removing_replicas.clear();
        c.reassigning.retain(|&i| i != 0);
    }
    out
}

#[test]
fn a_record_that_clears_the_lists_is_judged() {
    let complete = RuleSet::complete();
    let h = common::parse("create 1,2,3; reassign 1,2,4; reassign 1,2,5");
    let faulty = run_with(&h, &[complete], false, fault_override_clears_lists);
    let v = &faulty.sides[0].violations;
    assert!(
        v.iter().any(|v| v.invariant == "G4"
            && v.step == 2
            && v.detail.contains("cleared adding and removing")),
        "{v:?}"
    );
    // The same end without the fault: always-write derives both lists empty for an
    // override back to the original of a removal-only reassignment; it ends on T.
    let text = "create 1,2,3; isr 1,3; reassign 1,2; reassign 1,2,3";
    let h = common::parse(text);
    for rules in ["kafka-21419-always-write", "complete"] {
        let verdict = run(&h, &[RuleSet::parse(rules).unwrap()], true);
        let side = &verdict.sides[0];
        let [.., before, after] = side.steps.as_slice() else {
            panic!("{text}: too short");
        };
        assert!(before.state.partitions[0].is_reassigning());
        assert!(!after.state.partitions[0].is_reassigning());
        assert!(after.outcome.effects()[0].completion.is_none(), "{rules}");
        assert!(side.violations.is_empty(), "{rules}: {:?}", side.violations);
    }
}

/// The negative case: an accepted cancel ends a reassignment away from T by design (G6
/// judges it), so the completion properties must not.
#[test]
fn an_accepted_cancel_is_not_judged_as_a_completion() {
    let text = "create 1,2,3; reassign 1,2,4; cancel";
    let h = common::parse(text);
    for p in PRESETS {
        let verdict = run(&h, &[RuleSet::parse(p.name).unwrap()], true);
        let side = &verdict.sides[0];
        let end = &side.steps.last().unwrap().state;
        let ghost = &end.ghosts[0];
        assert!(!end.partitions[0].is_reassigning(), "{}", p.name);
        assert_ne!(end.partitions[0].replicas, ghost.target, "{}", p.name);
        for id in ["G4", "G5", "G8"] {
            assert!(!side.violates(id), "{}: {:?}", p.name, side.violations);
        }
    }
}
