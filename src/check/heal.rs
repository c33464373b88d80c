//! Healing: bring a cluster to quiescence (every broker back and active, every replica
//! caught up and reported in sync), where the `EventuallyAtQuiescence` invariants are
//! judged.

use crate::model::{apply, BrokerState, Cluster, Event, Outcome, Rules, NO_LEADER};
use crate::rules::RuleSet;

/// The model's step function; tests substitute a broken one to exercise panic reporting.
pub type ApplyFn = fn(&mut Cluster, &Event, &dyn Rules) -> Outcome;

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
    // An unregistered broker comes back as a new registration (then unfenced).
    for broker in state.runtime.decommissioned.clone() {
        let restart = Event::RestartBroker {
            broker,
            unclean: false,
            survives: None,
        };
        apply(state, &restart, rules);
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
    // A round that changes nothing would change nothing again (the step is a function
    // of the state): the rounds left are skipped, which saves most of healing's cost.
    let mut before = Cluster::default();
    for _ in 0..HEAL_ROUNDS {
        before.clone_from(state);
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
                    stale_epoch: None,
                }
            };
            apply(state, &event, rules);
        }
        if *state == before {
            break;
        }
    }
    apply(state, &settle, rules);
}
