//! The lockstep run: one or two sides stepped through a history event by event, every
//! step judged, then healed and judged at quiescence. It is a judge (`check::judge`):
//! `oracle::run` drives it through a whole history with the one run loop; `hunt` feeds it
//! a history as the generator draws one, the generator reading the guide side's state
//! (`search::judged`), so each history runs once.
//!
//! Two sides share side 0's state while their rules answer alike (agree.rs); meanwhile
//! side 1's own state is not kept. A panic in the model ends the run as a harness bug.

use crate::check::agree::Agreeing;
use crate::check::heal::{heal_with, ApplyFn};
use crate::check::invariants::{
    count_sometimes_memo, quiescent_violations, step_violations_memo, StepMemo, StepView,
};
use crate::check::judge::{Ask, Judge, Start};
use crate::check::verdict::{empty_side, panic_message, SideRun, StepRecord, Verdict, Violation};
use crate::model::{Cluster, Event, Outcome};
use crate::rules::RuleSet;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// A run in progress (see the module docs).
#[derive(Clone)]
pub struct Lockstep {
    runs: Vec<SideRun>,
    states: Vec<Cluster>,
    /// Each side's state before the step, copied into last step's copy (no allocation
    /// unless a list grew).
    prevs: Vec<Cluster>,
    /// The step's outcome on each side (a buffer kept across steps).
    outcomes: Vec<Outcome>,
    shared: bool,
    first_divergence: Option<usize>,
    /// Steps taken.
    steps: usize,
    record: bool,
    apply: ApplyFn,
    harness_bug: Option<String>,
}

impl Lockstep {
    /// A run of `sides` (one or two), to be reset to a history's start.
    pub fn new(sides: &[RuleSet], record: bool, apply: ApplyFn) -> Lockstep {
        Lockstep {
            runs: sides.iter().map(|&rules| empty_side(rules)).collect(),
            states: Vec::new(),
            prevs: Vec::new(),
            outcomes: Vec::with_capacity(2),
            shared: sides.len() == 2,
            first_divergence: None,
            steps: 0,
            record,
            apply,
            harness_bug: None,
        }
    }

    /// Back to `start` (every broker registered and active), nothing judged yet.
    pub fn start(&mut self, start: &Start) {
        let cluster = start.cluster();
        self.states = self.runs.iter().map(|_| cluster.clone()).collect();
        self.prevs = self.states.clone();
        for run in &mut self.runs {
            run.clear();
        }
        self.shared = self.runs.len() == 2;
        self.first_divergence = None;
        self.steps = 0;
        self.harness_bug = None;
    }

    /// The state of `side` after the steps taken.
    pub fn state(&self, side: usize) -> &Cluster {
        &self.states[if self.shared { 0 } else { side }]
    }

    /// Whether the model has panicked (the run is over: no step is taken any more).
    pub fn stopped(&self) -> bool {
        self.harness_bug.is_some()
    }

    /// Take and judge one step; `false` once the model has panicked.
    pub fn step(&mut self, event: &Event) -> bool {
        if self.stopped() {
            return false;
        }
        let step = self.steps;
        self.steps += 1;
        let result = catch_unwind(AssertUnwindSafe(|| self.step_unguarded(event, step)));
        if let Err(payload) = result {
            self.harness_bug = Some(panic_message(payload.as_ref()));
        }
        !self.stopped()
    }

    fn step_unguarded(&mut self, event: &Event, step: usize) {
        let at = At {
            event,
            step,
            record: self.record,
        };
        let (runs, states, prevs) = (&mut self.runs, &mut self.states, &mut self.prevs);
        let outcomes = &mut self.outcomes;
        outcomes.clear();
        if self.shared {
            if step_shared(runs, states, prevs, &at, self.apply, outcomes) {
                return; // one state, one outcome: nothing differs
            }
        } else {
            for ((run, state), prev) in runs.iter_mut().zip(states.iter_mut()).zip(prevs) {
                prev.clone_from(state);
                outcomes.push(step_side(run, prev, state, &at, self.apply));
            }
        }
        // Only the first divergence is reported: once found, the states are not compared.
        if self.first_divergence.is_none() && differ(states, outcomes) {
            self.first_divergence = Some(step);
        }
        // Equal whole states (ghosts and broker side included) behave alike from here
        // on: share again. A split is often a question whose answers differ where it
        // does not matter (a truncation rule on an empty log).
        self.shared = states.len() == 2 && states[0] == states[1];
    }

    /// Heal and judge at quiescence (unless the model panicked), and hand over the verdict.
    pub fn finish(mut self) -> Verdict {
        if !self.stopped() {
            let end = self.steps;
            let (runs, states, shared) = (&mut self.runs, &mut self.states, self.shared);
            let result = catch_unwind(AssertUnwindSafe(|| {
                heal_and_check(runs, states, shared, end, self.apply)
            }));
            if let Err(payload) = result {
                self.harness_bug = Some(panic_message(payload.as_ref()));
            }
        }
        Verdict {
            sides: self.runs,
            first_divergence: self.first_divergence,
            harness_bug: self.harness_bug,
        }
    }
}

/// The model panicked: the run is over (its verdict names the harness bug).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stopped;

impl Judge for Lockstep {
    /// The run keeps every step's judgement itself (`finish` hands the verdict over).
    type Answer = ();
    type Error = Stopped;

    fn reset(&mut self, start: &Start) -> Result<(), Stopped> {
        self.start(start);
        Ok(())
    }

    fn step(&mut self, ask: &Ask) -> Result<(), Stopped> {
        if Lockstep::step(self, ask.event) {
            Ok(())
        } else {
            Err(Stopped)
        }
    }
}

/// Whether the sides' controller states or outcomes differ after a step.
fn differ(states: &[Cluster], outcomes: &[Outcome]) -> bool {
    states.windows(2).any(|w| !w[0].same_kafka_state(&w[1]))
        || outcomes.windows(2).any(|w| w[0] != w[1])
}

/// The step being judged.
struct At<'a> {
    event: &'a Event,
    step: usize,
    record: bool,
}

/// One step of two sides that share side 0's state: side 0 takes it, asking side 1's
/// rules too. `true` while they agree (both judged on the one next state, in the order
/// two separate steps would be); else they split here: side 1 takes the step on its own
/// from the state before it, and the two outcomes go to `outcomes`.
fn step_shared(
    runs: &mut [SideRun],
    states: &mut [Cluster],
    prevs: &mut [Cluster],
    at: &At,
    apply: ApplyFn,
    outcomes: &mut Vec<Outcome>,
) -> bool {
    prevs[0].clone_from(&states[0]);
    let (first, second) = (runs[0].rules, runs[1].rules);
    let agreeing = Agreeing::new(&first, &second);
    let outcome = apply(&mut states[0], at.event, &agreeing);
    // One step, one memo: side 1 reads what side 0's rule-free checks found.
    let memo = &mut StepMemo::default();
    judge(&mut runs[0], &prevs[0], &states[0], &outcome, at, memo);
    if agreeing.agreed() {
        judge(&mut runs[1], &prevs[0], &states[0], &outcome, at, memo);
        return true;
    }
    let (before, own_prev) = prevs.split_at_mut(1);
    states[1].clone_from(&before[0]);
    own_prev[0].clone_from(&before[0]);
    let other = apply(&mut states[1], at.event, &runs[1].rules);
    // Answers that differed where it did not matter (a truncation rule on an empty log)
    // leave the same step view: the memo still holds for it.
    let same_view = other == outcome && states[1] == states[0];
    let fresh = &mut StepMemo::default();
    let memo = if same_view { memo } else { fresh };
    judge(&mut runs[1], &prevs[1], &states[1], &other, at, memo);
    outcomes.extend([outcome, other]);
    false
}

fn step_side(
    run: &mut SideRun,
    prev: &Cluster,
    state: &mut Cluster,
    at: &At,
    apply: ApplyFn,
) -> Outcome {
    let outcome = apply(state, at.event, &run.rules);
    judge(run, prev, state, &outcome, at, &mut StepMemo::default());
    outcome
}

/// Every step invariant and vacuity counter on (prev, next) under the side's rules;
/// `memo` holds what the rule-free checks found on this step for another side.
fn judge(
    run: &mut SideRun,
    prev: &Cluster,
    next: &Cluster,
    outcome: &Outcome,
    at: &At,
    memo: &mut StepMemo,
) {
    let before = super::invariants::before_step(prev, at.event, outcome);
    let view = StepView {
        prev: &before,
        next,
        event: at.event,
        outcome,
    };
    // The side was judged on `prev` at its last step (the first step's `prev` is the empty
    // start, with no partition to skip).
    let prev_judged = at.step > 0;
    let found = step_violations_memo(&view, &run.rules, run.violated, prev_judged, memo);
    let step = at.step;
    for (n, invariant, detail) in found {
        run.violated |= 1 << n;
        run.violations.push(Violation {
            invariant,
            step,
            detail,
        });
    }
    let (counts, first) = (&mut run.sometimes, &mut run.first_fired);
    count_sometimes_memo(&view, counts, first, step as u32, memo);
    if at.record {
        run.steps.push(StepRecord {
            outcome: outcome.clone(),
            state: next.clone(),
        });
    }
}

/// Heal every side and check the quiescence invariants. Sides that still share a state
/// heal it once while their rules agree, and side 1 heals its own copy if they do not.
fn heal_and_check(
    runs: &mut [SideRun],
    states: &mut [Cluster],
    shared: bool,
    end: usize,
    apply: ApplyFn,
) {
    if !shared {
        for (run, state) in runs.iter_mut().zip(states.iter_mut()) {
            heal_with(state, &run.rules, apply);
            check_quiescent(run, state, end);
        }
        return;
    }
    let (first, second) = (runs[0].rules, runs[1].rules);
    let (one, rest) = states.split_at_mut(1);
    rest[0].clone_from(&one[0]);
    let agreeing = Agreeing::new(&first, &second);
    heal_with(&mut one[0], &agreeing, apply);
    check_quiescent(&mut runs[0], &one[0], end);
    if agreeing.agreed() {
        check_quiescent(&mut runs[1], &one[0], end);
    } else {
        heal_with(&mut rest[0], &second, apply);
        check_quiescent(&mut runs[1], &rest[0], end);
    }
}

fn check_quiescent(run: &mut SideRun, state: &Cluster, step: usize) {
    let rules = run.rules;
    let found = quiescent_violations(state, &rules).map(|(invariant, detail)| Violation {
        invariant,
        step,
        detail,
    });
    run.violations.extend(found);
}
