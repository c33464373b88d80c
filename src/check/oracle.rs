//! The differential oracle: run one history under one or two rule sets in lockstep, check
//! every invariant after every step on each side, heal the cluster and check the
//! quiescence properties, and name the first step where the sides' states differ.
//!
//! Architecture invariant: a panic inside the model is a harness bug. It is caught here
//! and reported as `Verdict::harness_bug`, never as a divergence or a violation.

use crate::check::history::{ExpectedViolation, History};
use crate::check::invariants::{
    count_sometimes, quiescent_violations, step_violations_except, StepView, INVARIANTS,
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

/// The model's step function; tests substitute a broken one to exercise panic reporting.
pub type ApplyFn = fn(&mut Cluster, &Event, &dyn Rules) -> Outcome;

/// Run `history` under each rule set (one or two). `record` keeps per-step states.
pub fn run(history: &History, sides: &[RuleSet], record: bool) -> Verdict {
    run_with(history, sides, record, apply)
}

pub fn run_with(history: &History, sides: &[RuleSet], record: bool, apply: ApplyFn) -> Verdict {
    let mut runs: Vec<SideRun> = sides
        .iter()
        .map(|&rules| SideRun {
            rules,
            violations: Vec::new(),
            sometimes: vec![0; INVARIANTS.len()],
            steps: Vec::new(),
        })
        .collect();
    let mut first_divergence = None;
    let result = catch_unwind(AssertUnwindSafe(|| {
        let mut states: Vec<Cluster> = sides
            .iter()
            .map(|_| {
                Cluster::new(&history.brokers, history.broker_config)
                    .with_elr(history.eligible_leader_replicas)
            })
            .collect();
        // Each side's state before the step, copied into last step's copy (no allocation
        // unless a list grew).
        let mut prevs = states.clone();
        for (step, event) in history.events.iter().enumerate() {
            let mut outcomes = Vec::with_capacity(sides.len());
            for ((run, state), prev) in runs.iter_mut().zip(states.iter_mut()).zip(&mut prevs) {
                prev.clone_from(state);
                outcomes.push(step_side(run, prev, state, event, step, record, apply));
            }
            // Only the first divergence is reported: once found, the states are not compared.
            if first_divergence.is_none() && differ(&states, &outcomes) {
                first_divergence = Some(step);
            }
        }
        for (run, state) in runs.iter_mut().zip(states.iter_mut()) {
            heal_with(state, &run.rules, apply);
            check_quiescent(run, state, history.events.len());
        }
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

fn step_side(
    run: &mut SideRun,
    prev: &Cluster,
    state: &mut Cluster,
    event: &Event,
    step: usize,
    record: bool,
    apply: ApplyFn,
) -> Outcome {
    let outcome = apply(state, event, &run.rules);
    let view = StepView {
        prev,
        next: state,
        event,
        outcome: &outcome,
        rules: &run.rules,
    };
    // Collected first: the filter reads the violations the push extends.
    let found: Vec<_> = step_violations_except(&view, |id| run.violates(id)).collect();
    let at_step = |(invariant, detail)| Violation {
        invariant,
        step,
        detail,
    };
    run.violations.extend(found.into_iter().map(at_step));
    count_sometimes(&view, &mut run.sometimes);
    if record {
        run.steps.push(StepRecord {
            outcome: outcome.clone(),
            state: state.clone(),
        });
    }
    outcome
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

fn heal_with(state: &mut Cluster, rules: &RuleSet, apply: ApplyFn) {
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
