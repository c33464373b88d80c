//! A run that judges one invariant: the predicate minimization keeps true asks only
//! whether one side violates one invariant (and the other does not), so it need not
//! check the rest, nor go on past the violation, nor heal for a step invariant.
//!
//! What it reports for that invariant is what [`oracle::run`] reports: the first
//! violation, with its step and detail, and the vacuity counters' first firings up to it
//! (triage reads its decisions off them). A test compares the two on generated histories.
//! Unlike `oracle::run`, a run on which the model panics yields `None`: a candidate
//! history that makes the model panic is a harness bug, never a smaller witness.

use crate::check::history::History;
use crate::check::invariants::{
    by_id, count_sometimes_from, quiescent_violation_of, step_violation_of, Check, Invariant, Kind,
    StepView,
};
use crate::check::oracle::{self, SideRun, Violation};
use crate::model::{apply, Cluster};
use crate::rules::RuleSet;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Run `history` under `rules` judging `invariant` only. `decisions`: count the vacuity
/// properties too (triage needs them when a known finding of this invariant names
/// decisions). `None` when the invariant is unknown or the model panicked.
pub fn run_focused(
    history: &History,
    rules: RuleSet,
    invariant: &str,
    decisions: bool,
) -> Option<SideRun> {
    let entry = by_id(invariant)?;
    let mut run = oracle::empty_side(rules);
    catch_unwind(AssertUnwindSafe(|| {
        let mut state = Cluster::new(&history.brokers, history.broker_config)
            .with_elr(history.eligible_leader_replicas);
        // The state before a step is kept only for what reads it: the vacuity counters and
        // the checks that compare it with the state after. A per-partition check then
        // judges every partition; a quiescence invariant needs no step view at all.
        let keeps_prev = decisions || matches!(entry.check, Check::Step(_) | Check::AtEnd(_));
        let judges_steps = entry.kind != Kind::EventuallyAtQuiescence;
        let mut prev = if keeps_prev {
            state.clone()
        } else {
            Cluster::default()
        };
        for (step, event) in history.events.iter().enumerate() {
            if keeps_prev {
                prev.clone_from(&state);
            }
            let outcome = apply(&mut state, event, &rules);
            if !keeps_prev && !judges_steps {
                continue;
            }
            let view = StepView {
                prev: if keeps_prev { &prev } else { &state },
                next: &state,
                event,
                outcome: &outcome,
            };
            if decisions {
                count_sometimes_from(&view, &mut run.sometimes, &mut run.first_fired, step as u32);
            }
            // Every step before this one held the invariant (the run stops at a violation),
            // so with the state before it kept, only the partitions it touched are judged.
            let prev_judged = keeps_prev && step > 0;
            if let Some(detail) = step_violation_of(entry, &view, &rules, prev_judged) {
                run.violations.push(violation(entry, step, detail));
                return;
            }
        }
        if entry.kind == Kind::EventuallyAtQuiescence {
            oracle::heal(&mut state, &rules);
            if let Some(detail) = quiescent_violation_of(entry, &state, &rules) {
                let end = history.events.len();
                run.violations.push(violation(entry, end, detail));
            }
        }
    }))
    .ok()?;
    Some(run)
}

fn violation(entry: &Invariant, step: usize, detail: String) -> Violation {
    Violation {
        invariant: entry.id,
        step,
        detail,
    }
}
