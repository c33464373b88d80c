//! How far broker ids are interchangeable (see src/symmetry.rs for why it matters to
//! `exhaust`): only their equality and order count, never their values; and their order
//! does count, so `exhaust` must not merge states that differ by an arbitrary renaming.

mod common;

use isrfuzz::check::invariants::{step_violations, StepView};
use isrfuzz::model::symmetry::Renaming;
use isrfuzz::model::{apply, Cluster};
use isrfuzz::rules::RuleSet;
use isrfuzz::search::generate::decode_guided;
use isrfuzz::search::rng::Rng;

fn step_verdicts(view: &StepView, rules: &RuleSet) -> Vec<&'static str> {
    step_violations(view, rules).map(|(id, _)| id).collect()
}

/// An order-preserving renaming with gaps: b ↦ 10·b + 3.
fn spread(ids: &[i32]) -> Renaming {
    Renaming {
        from: ids.to_vec(),
        to: ids.iter().map(|&b| 10 * b + 3).collect(),
    }
}

#[test]
fn order_preserving_renaming_commutes_with_every_step() {
    let mut rng = Rng::new(0x5eed);
    let mut bytes = Vec::new();
    let (mut steps, mut violations_seen) = (0u64, 0u64);
    for rules in ["trunk", "complete", "pr756", "kafka-21419-always-write"] {
        let rules = RuleSet::parse(rules).unwrap();
        for _ in 0..400 {
            rng.fill(&mut bytes);
            let h = decode_guided(&bytes, &rules);
            let pi = spread(&h.brokers);
            let renamed: Vec<i32> = h.brokers.iter().map(|&b| pi.apply(b)).collect();
            let mut a = Cluster::new(&h.brokers, h.broker_config);
            let mut b = Cluster::new(&renamed, h.broker_config);
            for e in &h.events {
                let (prev_a, prev_b) = (a.clone(), b.clone());
                let pe = pi.event(e);
                let out_a = apply(&mut a, e, &rules);
                let out_b = apply(&mut b, &pe, &rules);
                steps += 1;
                assert_eq!(pi.cluster(&a), b, "state after {e} in {h:?}");
                assert_eq!(out_a.is_rejected(), out_b.is_rejected(), "outcome of {e}");
                let va = step_verdicts(
                    &StepView {
                        prev: &prev_a,
                        next: &a,
                        event: e,
                        outcome: &out_a,
                    },
                    &rules,
                );
                let vb = step_verdicts(
                    &StepView {
                        prev: &prev_b,
                        next: &b,
                        event: &pe,
                        outcome: &out_b,
                    },
                    &rules,
                );
                assert_eq!(va, vb, "verdicts after {e} in {h:?}");
                violations_seen += va.len() as u64;
            }
        }
    }
    // Not vacuous: many steps, some of them violating.
    assert!(steps > 5_000, "{steps} steps");
    assert!(violations_seen > 0);
}

/// Swapping brokers 1 and 3 is not a symmetry: a reassignment lists `removing` in id
/// order after the target, and a cancel keeps that order, so the preferred leader after
/// `create [2,1,3]; reassign [4]; cancel` is broker 1 (the lowest id), not a renaming of it.
#[test]
fn swapping_ids_is_not_a_symmetry() {
    let swap = Renaming {
        from: vec![1, 2, 3, 4, 5],
        to: vec![3, 2, 1, 4, 5],
    };
    let h = common::parse("create 2,1,3; reassign 4; cancel");
    let rules = RuleSet::parse("trunk").unwrap();
    let run = |events: &[isrfuzz::model::Event]| {
        let mut c = Cluster::new(&h.brokers, h.broker_config);
        for e in events {
            assert!(!apply(&mut c, e, &rules).is_rejected(), "{e}");
        }
        c
    };
    let plain = run(&h.events);
    let swapped_events: Vec<_> = h.events.iter().map(|e| swap.event(e)).collect();
    let swapped = run(&swapped_events);
    // Both end with the replicas in id order, whatever order they were created in ...
    assert_eq!(plain.partitions[0].replicas, vec![1, 2, 3]);
    assert_eq!(swapped.partitions[0].replicas, vec![1, 2, 3]);
    // ... so the renamed run is not the renaming of the run.
    assert_ne!(swap.cluster(&plain), swapped);
    // The positive space: an order-preserving renaming of the same history commutes.
    let pi = spread(&h.brokers);
    let renamed: Vec<i32> = h.brokers.iter().map(|&b| pi.apply(b)).collect();
    let mut c = Cluster::new(&renamed, h.broker_config);
    for e in &h.events {
        apply(&mut c, &pi.event(e), &rules);
    }
    assert_eq!(pi.cluster(&plain), c);
}
