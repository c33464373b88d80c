//! How far broker ids are interchangeable (see src/symmetry.rs for why it matters to
//! `exhaust`): only their equality and order count, never their values; and their order
//! does count, so `exhaust` must not merge states that differ by an arbitrary renaming.

use crate::common;

use isrfuzz::check::history::History;
use isrfuzz::check::invariants::{step_violations, StepView};
use isrfuzz::model::symmetry::Renaming;
use isrfuzz::model::{apply, Cluster};
use isrfuzz::rules::RuleSet;
use isrfuzz::search::generate::{decode, Decode, ElrMode};
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

/// An order-preserving renaming into small odd ids: the i-th smallest id the history
/// names (its brokers and every id its events name, unregistered ones included) ↦ 2·i + 1,
/// so every id stays below 16. With ELR on the builder lists a target ELR in
/// `java.util.HashSet` order, which is ascending only for ids below the set's 16 buckets,
/// so only such a renaming can commute there (`model::symmetry`).
fn odd(h: &History) -> Renaming {
    let mut ids: Vec<i32> = h.brokers.clone();
    for e in &h.events {
        ids.extend(
            e.clone()
                .broker_ids_mut()
                .into_iter()
                .map(|b| *b)
                .filter(|&b| b >= 0),
        );
    }
    ids.sort_unstable();
    ids.dedup();
    assert!(ids.len() <= 8, "{ids:?}");
    Renaming {
        to: (0..ids.len() as i32).map(|i| 2 * i + 1).collect(),
        from: ids,
    }
}

/// Runs 400 generated histories per rule set under `elr`, each beside its renaming by
/// `rename`, and checks that the renamed run is the renaming of the run (states,
/// outcomes, step verdicts). Returns the steps taken, the violations seen and the steps
/// that end with an ELR of two or more brokers (where its order can matter), or the
/// first difference.
fn commutes(elr: ElrMode, rename: fn(&History) -> Renaming) -> Result<(u64, u64, u64), String> {
    let mut rng = Rng::new(0x5eed);
    let mut bytes = Vec::new();
    let (mut steps, mut violations_seen, mut elr_multi) = (0u64, 0u64, 0u64);
    for rules in ["trunk", "complete", "pr756", "kafka-21419-always-write"] {
        let rules = RuleSet::parse(rules).unwrap();
        for _ in 0..400 {
            rng.fill(&mut bytes);
            let h = decode(
                &bytes,
                Decode {
                    elr,
                    ..Decode::guided(rules)
                },
            );
            let pi = rename(&h);
            let renamed: Vec<i32> = h.brokers.iter().map(|&b| pi.apply(b)).collect();
            let on = h.eligible_leader_replicas;
            let mut a = Cluster::new(&h.brokers, h.broker_config).with_elr(on);
            let mut b = Cluster::new(&renamed, h.broker_config).with_elr(on);
            for e in &h.events {
                let (prev_a, prev_b) = (a.clone(), b.clone());
                let pe = pi.event(e);
                let out_a = apply(&mut a, e, &rules);
                let out_b = apply(&mut b, &pe, &rules);
                steps += 1;
                if pi.cluster(&a) != b {
                    return Err(format!("state after {e} in {h:?}"));
                }
                if out_a.is_rejected() != out_b.is_rejected() {
                    return Err(format!("outcome of {e} in {h:?}"));
                }
                let view = |prev, next, event, outcome| StepView {
                    prev,
                    next,
                    event,
                    outcome,
                };
                let va = step_verdicts(&view(&prev_a, &a, e, &out_a), &rules);
                let vb = step_verdicts(&view(&prev_b, &b, &pe, &out_b), &rules);
                if va != vb {
                    return Err(format!("verdicts after {e} in {h:?}: {va:?} / {vb:?}"));
                }
                violations_seen += va.len() as u64;
                elr_multi += u64::from(a.partitions.iter().any(|p| p.elr.len() >= 2));
            }
        }
    }
    Ok((steps, violations_seen, elr_multi))
}

#[test]
fn order_preserving_renaming_commutes_with_every_step() {
    let (steps, violations_seen, _) = commutes(ElrMode::Off, |h| spread(&h.brokers)).unwrap();
    // Not vacuous: many steps, some of them violating.
    assert!(steps > 5_000, "{steps} steps");
    assert!(violations_seen > 0);
}

#[test]
fn order_preserving_renaming_below_16_commutes_with_elr_on() {
    let (steps, violations_seen, elr_multi) = commutes(ElrMode::On, odd).unwrap();
    assert!(steps > 5_000, "{steps} steps");
    assert!(violations_seen > 0);
    assert!(
        elr_multi > 1_000,
        "{elr_multi} steps with an ELR of two or more"
    );
}

/// The negative space: with ELR on, renaming into ids of 16 and more does not commute,
/// because the builder's target ELR takes `java.util.HashSet` order (bucket = id mod the
/// table size), which is not the ids' order there. So order preservation alone is a
/// symmetry only with ELR off.
#[test]
fn renaming_past_16_does_not_commute_with_elr_on() {
    let first = commutes(ElrMode::On, |h| spread(&h.brokers)).unwrap_err();
    assert!(first.contains("eligible_leader_replicas: true"), "{first}");
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
