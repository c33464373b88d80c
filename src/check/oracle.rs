//! The differential oracle: run one history under one or two rule sets in lockstep, check
//! every invariant after every step on each side, heal the cluster and check the
//! quiescence properties, and name the first step where the sides' states differ.
//!
//! Architecture invariant: a panic inside the model is a harness bug. It is caught here
//! and reported as `Verdict::harness_bug`, never as a divergence or a violation.

use crate::check::agree::Agreeing;
use crate::check::history::{ExpectedViolation, History};
use crate::check::invariants::{
    count_sometimes_memo, quiescent_violations, step_violations_memo, StepMemo, StepView,
    INVARIANTS,
};
use crate::model::{apply, BrokerState, Cluster, Event, Outcome, Rules, NO_LEADER};
use crate::rules::RuleSet;
use std::panic::{catch_unwind, AssertUnwindSafe};

#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Violation {
    pub invariant: &'static str,
    /// Index into the history's events; `events.len()` means "at quiescence".
    pub step: usize,
    pub detail: String,
}

/// One step as recorded for a step table.
#[derive(Clone, Debug)]
pub struct StepRecord {
    pub outcome: Outcome,
    pub state: Cluster,
}

#[derive(Clone, Debug)]
pub struct SideRun {
    pub rules: RuleSet,
    /// First violation of each invariant, in the order found.
    pub violations: Vec<Violation>,
    /// How many steps each `Sometimes` property fired on (indexed like `INVARIANTS`).
    pub sometimes: Vec<u32>,
    /// The step each `Sometimes` property first fired on (`u32::MAX`: never), so triage
    /// reads the decisions up to a step off the run instead of replaying it.
    pub first_fired: Vec<u32>,
    /// Filled only when recording.
    pub steps: Vec<StepRecord>,
}

impl SideRun {
    pub fn violates(&self, id: &str) -> bool {
        self.violations.iter().any(|v| v.invariant == id)
    }

    pub fn expected(&self) -> Vec<ExpectedViolation> {
        let mut v: Vec<_> = self
            .violations
            .iter()
            .map(|v| ExpectedViolation {
                invariant: v.invariant.to_string(),
                step: v.step,
            })
            .collect();
        v.sort();
        v
    }
}

#[derive(Clone, Debug)]
pub struct Verdict {
    pub sides: Vec<SideRun>,
    /// The first step after which the sides' controller states (or outcomes) differ.
    pub first_divergence: Option<usize>,
    pub harness_bug: Option<String>,
}

impl Verdict {
    /// A 64-bit fingerprint of everything a run produced (every step's outcome and state,
    /// the violations, the divergence), for determinism checks.
    pub fn fingerprint(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        for side in &self.sides {
            for step in &side.steps {
                format!("{:?}", step.outcome).hash(&mut h);
                step.state.hash(&mut h);
            }
            for v in &side.violations {
                (v.invariant, v.step, &v.detail).hash(&mut h);
            }
            side.sometimes.hash(&mut h);
        }
        (self.first_divergence, &self.harness_bug).hash(&mut h);
        h.finish()
    }

    pub fn any_violation(&self) -> bool {
        self.sides.iter().any(|s| !s.violations.is_empty())
    }
}

/// A side before its first step.
pub fn empty_side(rules: RuleSet) -> SideRun {
    SideRun {
        rules,
        violations: Vec::new(),
        sometimes: vec![0; INVARIANTS.len()],
        first_fired: vec![u32::MAX; INVARIANTS.len()],
        steps: Vec::new(),
    }
}

/// The model's step function; tests substitute a broken one to exercise panic reporting.
pub type ApplyFn = fn(&mut Cluster, &Event, &dyn Rules) -> Outcome;

/// Run `history` under each rule set (one or two). `record` keeps per-step states.
pub fn run(history: &History, sides: &[RuleSet], record: bool) -> Verdict {
    run_with(history, sides, record, apply)
}

pub fn run_with(history: &History, sides: &[RuleSet], record: bool, apply: ApplyFn) -> Verdict {
    let mut runs: Vec<SideRun> = sides.iter().map(|&rules| empty_side(rules)).collect();
    let mut first_divergence = None;
    let result = catch_unwind(AssertUnwindSafe(|| {
        let start = Cluster::new(&history.brokers, history.broker_config)
            .with_elr(history.eligible_leader_replicas);
        let mut states: Vec<Cluster> = sides.iter().map(|_| start.clone()).collect();
        // Each side's state before the step, copied into last step's copy (no allocation
        // unless a list grew).
        let mut prevs = states.clone();
        // Two sides share side 0's state while their rules answer alike (agree.rs);
        // meanwhile side 1's own state is not kept.
        let mut shared = sides.len() == 2;
        for (step, event) in history.events.iter().enumerate() {
            let at = At {
                event,
                step,
                record,
            };
            let outcomes = if shared {
                let Some(outcomes) = step_shared(&mut runs, &mut states, &mut prevs, &at, apply)
                else {
                    continue; // one state, one outcome: nothing differs
                };
                outcomes
            } else {
                let mut outcomes = Vec::with_capacity(sides.len());
                for ((run, state), prev) in runs.iter_mut().zip(states.iter_mut()).zip(&mut prevs) {
                    prev.clone_from(state);
                    outcomes.push(step_side(run, prev, state, &at, apply));
                }
                outcomes
            };
            // Only the first divergence is reported: once found, the states are not compared.
            if first_divergence.is_none() && differ(&states, &outcomes) {
                first_divergence = Some(step);
            }
            // Equal whole states (ghosts and broker side included) behave alike from here
            // on: share again. A split is often a question whose answers differ where it
            // does not matter (a truncation rule on an empty log).
            shared = sides.len() == 2 && states[0] == states[1];
        }
        heal_and_check(&mut runs, &mut states, shared, history.events.len(), apply);
    }));
    let harness_bug = result.err().map(|payload| panic_message(payload.as_ref()));
    Verdict {
        sides: runs,
        first_divergence,
        harness_bug,
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
/// rules too. `None` while they agree (both judged on the one next state, in the order
/// two separate steps would be); else they split here: side 1 takes the step on its own
/// from the state before it, and the two outcomes are returned.
fn step_shared(
    runs: &mut [SideRun],
    states: &mut [Cluster],
    prevs: &mut [Cluster],
    at: &At,
    apply: ApplyFn,
) -> Option<Vec<Outcome>> {
    prevs[0].clone_from(&states[0]);
    let (first, second) = (runs[0].rules, runs[1].rules);
    let agreeing = Agreeing::new(&first, &second);
    let outcome = apply(&mut states[0], at.event, &agreeing);
    // One step, one memo: side 1 reads what side 0's rule-free checks found.
    let memo = &mut StepMemo::default();
    judge(&mut runs[0], &prevs[0], &states[0], &outcome, at, memo);
    if agreeing.agreed() {
        judge(&mut runs[1], &prevs[0], &states[0], &outcome, at, memo);
        return None;
    }
    let (before, own_prev) = prevs.split_at_mut(1);
    states[1].clone_from(&before[0]);
    own_prev[0].clone_from(&before[0]);
    let other = step_side(&mut runs[1], &prevs[1], &mut states[1], at, apply);
    Some(vec![outcome, other])
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
    let view = StepView {
        prev,
        next,
        event: at.event,
        outcome,
    };
    // Collected first: the filter reads the violations the push extends.
    let found = step_violations_memo(&view, &run.rules, |id| run.violates(id), memo);
    let step = at.step;
    let at_step = |(invariant, detail)| Violation {
        invariant,
        step,
        detail,
    };
    run.violations.extend(found.into_iter().map(at_step));
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

/// Rounds of "every leader reports a full ISR"; each round can complete a reassignment
/// and move leadership, so a few are needed. Bounded: healing must terminate.
const HEAL_ROUNDS: usize = 4;

/// Bring the cluster to quiescence: every broker registered and active, then every
/// leader reports every replica in sync. Healing is never bounded by a fault budget,
/// only by `HEAL_ROUNDS`.
pub fn heal(state: &mut Cluster, rules: &RuleSet) {
    heal_with(state, rules, apply);
}

fn heal_with(state: &mut Cluster, rules: &dyn Rules, apply: ApplyFn) {
    for broker in state.runtime.stalled.clone() {
        apply(state, &Event::ResumeBroker { broker }, rules);
    }
    let brokers: Vec<_> = state.brokers.clone();
    for (b, s) in brokers {
        if s == BrokerState::ControlledShutdown {
            apply(state, &Event::FenceBroker { broker: b }, rules);
        }
        if s != BrokerState::Active {
            apply(state, &Event::UnfenceBroker { broker: b }, rules);
        }
    }
    // Time past 1.5 × lag with every broker healthy: every pending fetch is delivered,
    // every follower that can be admitted is, every one that must be shrunk is.
    let settle = Event::AdvanceTime {
        ms: 2 * state.runtime.config.replica_lag_time_max_ms,
    };
    apply(state, &settle, rules);
    // Classic partitions: every replica caught up and reported in sync by its leader (the
    // controller-side quiescence of the reassignment properties). Diskless partitions
    // earn their ISR through fetches only, which is what E2 and INV-9 judge.
    for _ in 0..HEAL_ROUNDS {
        for partition in 0..state.partitions.len() {
            let p = &state.partitions[partition];
            if p.diskless {
                continue;
            }
            let event = if p.leader == NO_LEADER {
                Event::ElectLeaders {
                    partition,
                    election: crate::model::ElectionType::Unclean,
                }
            } else {
                Event::AlterPartition {
                    partition,
                    isr: p.replicas.to_vec(),
                    broker: None,
                    leader_epoch: None,
                    partition_epoch: None,
                    leader_recovery_state: crate::model::LeaderRecoveryState::Recovered,
                }
            };
            apply(state, &event, rules);
        }
    }
    apply(state, &settle, rules);
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with a non-string payload".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
                Event::CreatePartition {
                    replicas: vec![1, 2, 3],
                    unclean_leader_election_enable: false,
                    diskless: false,
                    remote_storage: false,
                    min_insync_replicas: 1,
                },
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
