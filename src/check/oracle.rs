//! The differential oracle: run one history under one or two rule sets in lockstep (the
//! run itself is `check::lockstep`), check every invariant after every step on each side,
//! heal the cluster and check the quiescence properties, and name the first step where the
//! sides' states differ.
//!
//! Architecture invariant: a panic inside the model is a harness bug. It is caught here
//! and reported as `Verdict::harness_bug`, never as a divergence or a violation.

use crate::check::history::{ExpectedViolation, History};
use crate::check::invariants::{IdSet, INVARIANTS};
use crate::check::lockstep::Lockstep;
use crate::model::{apply, BrokerState, Cluster, Event, Outcome, Rules, NO_LEADER};
use crate::rules::RuleSet;

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
    /// The step invariants `violations` names, as a set of list entries (the step loop
    /// skips them without comparing ids; quiescence, judged once at the end, is not in it).
    pub(crate) violated: IdSet,
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
        violated: 0,
    }
}

/// The model's step function; tests substitute a broken one to exercise panic reporting.
pub type ApplyFn = fn(&mut Cluster, &Event, &dyn Rules) -> Outcome;

/// Run `history` under each rule set (one or two). `record` keeps per-step states.
pub fn run(history: &History, sides: &[RuleSet], record: bool) -> Verdict {
    run_with(history, sides, record, apply)
}

pub fn run_with(history: &History, sides: &[RuleSet], record: bool, apply: ApplyFn) -> Verdict {
    let mut run = Lockstep::new(
        &history.brokers,
        history.broker_config,
        history.eligible_leader_replicas,
        sides,
        record,
        apply,
    );
    for event in &history.events {
        if !run.step(event) {
            break;
        }
    }
    run.finish()
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

pub(crate) fn heal_with(state: &mut Cluster, rules: &dyn Rules, apply: ApplyFn) {
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

pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
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
