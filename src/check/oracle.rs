//! The differential oracle: run one history under one or two rule sets in lockstep (the
//! run itself is `check::lockstep`, driven by the one run loop, `check::judge::drive`),
//! check every invariant after every step on each side, heal the cluster and check the
//! quiescence properties, and name the first step where the sides' states differ.
//!
//! Architecture invariant: a panic inside the model is a harness bug. It is caught here
//! and reported as `Verdict::harness_bug`, never as a divergence or a violation.

pub use crate::check::heal::{heal, ApplyFn};
pub use crate::check::verdict::{empty_side, SideRun, StepRecord, Verdict, Violation};

use crate::check::history::History;
use crate::check::judge::drive;
use crate::check::lockstep::Lockstep;
use crate::model::apply;
use crate::rules::RuleSet;
use std::ops::ControlFlow;

/// Run `history` under each rule set (one or two). `record` keeps per-step states.
pub fn run(history: &History, sides: &[RuleSet], record: bool) -> Verdict {
    run_with(history, sides, record, apply)
}

pub fn run_with(history: &History, sides: &[RuleSet], record: bool, apply: ApplyFn) -> Verdict {
    let mut run = Lockstep::new(sides, record, apply);
    // The run keeps its own verdict: a step that panicked ends the loop (its error) with
    // the harness bug recorded, and the model judge never refuses a step.
    let _ = drive(history, &mut run, |_, _, ()| ControlFlow::Continue(()));
    run.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Cluster, Event, Outcome, Rules};

    fn panics_on_alter(c: &mut Cluster, e: &Event, r: &dyn Rules) -> Outcome {
        if matches!(e, Event::AlterPartition { .. }) {
            panic!("model bug on purpose");
        }
        apply(c, e, r)
    }

    fn history() -> History {
        History::new(
            vec![1, 2, 3, 4],
            vec![
                Event::create_classic(vec![1, 2, 3]),
                Event::Reassign {
                    partition: 0,
                    target: vec![1, 2, 4],
                    allow_replication_factor_change: true,
                },
                Event::AlterPartition {
                    partition: 0,
                    isr: vec![1, 2],
                    broker: None,
                    leader_epoch: None,
                    partition_epoch: None,
                    leader_recovery_state: crate::model::LeaderRecoveryState::Recovered,
                    stale_epoch: None,
                },
            ],
        )
    }

    #[test]
    fn a_model_panic_is_a_harness_bug_not_a_finding() {
        let v = run_with(
            &history(),
            &[RuleSet::trunk(), RuleSet::complete()],
            false,
            panics_on_alter,
        );
        assert_eq!(v.harness_bug.as_deref(), Some("model bug on purpose"));
        assert!(!v.any_violation());
        assert_eq!(v.first_divergence, None);
    }

    #[test]
    fn the_real_model_runs_the_same_history_clean() {
        let v = run(&history(), &[RuleSet::trunk(), RuleSet::complete()], false);
        assert_eq!(v.harness_bug, None);
        assert!(!v.any_violation());
    }
}
