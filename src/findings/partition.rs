//! The decisions one partition saw: triage judges an entry that names decisions that must
//! not fire on the violating partition's own decisions, so that a decision elsewhere (a
//! leader moved on another partition) does not make a known mechanism new; and, when the
//! entry names an event to count from, only on those since its last accepted occurrence
//! there (a leader moved before the switch was aborted).

use crate::check::history::History;
use crate::check::invariants::{Check, StepView, INVARIANTS};
use crate::check::judge::{drive, ModelJudge};
use crate::check::oracle::Violation;
use crate::model::Cluster;
use crate::rules::RuleSet;
use std::ops::ControlFlow;

/// The partition a violation's detail names first (`p0: ...`, `p0 (seal -1): ...`).
pub fn partition_of(v: &Violation) -> Option<usize> {
    let rest = v.detail.strip_prefix('p')?;
    let end = rest.find(|c: char| !c.is_ascii_digit())?;
    let boundary = rest[end..].starts_with([':', ' ']);
    boundary.then(|| rest[..end].parse().ok())?
}

/// The vacuity properties (decisions) that fired on partition `partition` through `step`
/// of `history` under `rules`. Each step's checks judge the state before it with every
/// other partition (its registration, ghost and broker side) already as after it, so a
/// change elsewhere fires nothing here; a fact the projection does not split per
/// partition (brokers, the clock) still fires. With `since` (an event kind), only from
/// the last step on (included) whose event of that kind addressed `partition` and was
/// accepted; from the start when there is none.
pub fn decisions_on_partition(
    history: &History,
    rules: &RuleSet,
    step: usize,
    partition: usize,
    since: Option<&str>,
) -> Vec<&'static str> {
    let end = (step + 1).min(history.events.len());
    let mut fired = vec![false; INVARIANTS.len()];
    let mut model = ModelJudge::new(rules, true, false);
    let Ok(_) = drive(history, &mut model, |model, ask, answer| {
        let restarts = since == Some(ask.event.op())
            && ask.event.partition() == Some(partition)
            && !answer.outcome.is_rejected();
        if restarts {
            fired.fill(false);
        }
        let next = model.state();
        let before = crate::check::invariants::before_step(
            model.prev().expect("kept"),
            ask.event,
            &answer.outcome,
        );
        let prev = project(&before, next, partition);
        let view = StepView {
            prev: &prev,
            next,
            event: ask.event,
            outcome: &answer.outcome,
        };
        for (n, i) in INVARIANTS.iter().enumerate() {
            if let Check::Sometimes(check) = i.check {
                fired[n] |= check(&view);
            }
        }
        if ask.index + 1 >= end {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    (INVARIANTS.iter().zip(&fired))
        .filter(|(_, &f)| f)
        .map(|(i, _)| i.id)
        .collect()
}

/// The state before a step as `partition` alone saw it change: `prev`, with every other
/// partition as `next` holds it (partitions created by the step included).
fn project(prev: &Cluster, next: &Cluster, partition: usize) -> Cluster {
    let mut out = prev.clone();
    let others = |len: usize| (0..len).filter(move |&q| q != partition);
    for q in others(next.partitions.len()) {
        set_or_push(&mut out.partitions, q, &next.partitions[q]);
    }
    for q in others(next.ghosts.len()) {
        set_or_push(&mut out.ghosts, q, &next.ghosts[q]);
    }
    for q in others(next.runtime.partitions.len()) {
        set_or_push(&mut out.runtime.partitions, q, &next.runtime.partitions[q]);
    }
    let was = prev.reassigning.contains(&partition);
    out.reassigning = (next.reassigning.iter().copied())
        .filter(|&q| q != partition)
        .chain(was.then_some(partition))
        .collect();
    out.reassigning.sort_unstable();
    out
}

fn set_or_push<T: Clone>(list: &mut Vec<T>, at: usize, value: &T) {
    if at < list.len() {
        list[at] = value.clone();
    } else if at == list.len() {
        list.push(value.clone());
    }
}
