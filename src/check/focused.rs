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
use crate::check::judge::{drive, ModelJudge};
use crate::check::oracle::{self, SideRun, Violation};
use crate::model::Cluster;
use crate::rules::RuleSet;
use std::ops::ControlFlow;
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
        // The state before a step is kept only for what reads it: the vacuity counters and
        // the checks that compare it with the state after. A per-partition check then
        // judges every partition; a quiescence invariant needs no step view at all.
        let keeps_prev = decisions || matches!(entry.check, Check::Step(_) | Check::AtEnd(_));
        let judges_steps = entry.kind != Kind::EventuallyAtQuiescence;
        let mut judge = ModelJudge::new(&rules, keeps_prev, false);
        let ended = drive(history, &mut judge, |judge, ask, answer| {
            if !keeps_prev && !judges_steps {
                return ControlFlow::Continue(());
            }
            let (step, next) = (ask.index, judge.state());
            let before = crate::check::invariants::before_step(
                judge.prev().unwrap_or(next),
                ask.event,
                &answer.outcome,
            );
            let view = StepView {
                prev: &before,
                next,
                event: ask.event,
                outcome: &answer.outcome,
            };
            if decisions {
                count_sometimes_from(&view, &mut run.sometimes, &mut run.first_fired, step as u32);
            }
            // Every step before this one held the invariant (the run stops at a violation),
            // so with the state before it kept, only the partitions it touched are judged.
            let prev_judged = keeps_prev && step > 0;
            match step_violation_of(entry, &view, &rules, prev_judged) {
                Some(detail) => {
                    run.violations.push(violation(entry, step, detail));
                    ControlFlow::Break(())
                }
                None => ControlFlow::Continue(()),
            }
        });
        let Ok(_) = ended;
        if run.violations.is_empty() && entry.kind == Kind::EventuallyAtQuiescence {
            let mut state: Cluster = judge.into_state();
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
