//! The space `exhaust` searches: its starting clusters and the operations explored from
//! each state (the alphabets), what one search is bounded by and what it reports. Below
//! the engine (src/search/bfs.rs) and the API (src/search/exhaust.rs), which both use it.

use crate::check::history::History;
use crate::check::judge::{drive, ModelJudge};
use crate::model::{Acks, Cluster, Event, LeaderRecoveryState, Survives};
use crate::rules::RuleSet;
use std::ops::ControlFlow;

/// A starting cluster and the operations explored from it.
pub struct Start {
    pub name: &'static str,
    pub brokers: Vec<i32>,
    /// Events played once to build the starting state (depth 0).
    pub setup: Vec<Event>,
    /// The cluster feature ELR (KIP-966), on for every history explored from here.
    pub elr: bool,
}

/// Largest `min.insync.replicas` a start accepts: its partition has 3 replicas, and a
/// larger value acts as 3 (the effective min ISR is capped at the replication factor).
pub const START_MIN_ISR_MAX: i32 = 3;

impl Start {
    /// The same start with ELR on or off and, if given, its partition created with this
    /// `min.insync.replicas` (1..=[`START_MIN_ISR_MAX`]).
    pub fn with_mode(mut self, elr: bool, min_isr: Option<i32>) -> Result<Start, String> {
        self.elr = elr;
        let Some(m) = min_isr else {
            return Ok(self);
        };
        if !(1..=START_MIN_ISR_MAX).contains(&m) {
            return Err(format!(
                "--min-isr must be 1..={START_MIN_ISR_MAX} (the partition has 3 replicas), got {m}"
            ));
        }
        for e in &mut self.setup {
            if let Event::CreatePartition {
                min_insync_replicas,
                ..
            } = e
            {
                *min_insync_replicas = m;
            }
        }
        Ok(self)
    }
}

/// The starting states of docs/model/README.md#starting-states: a 3-replica partition on 5 brokers
/// and a switched consolidating partition with 3 replicas.
pub fn starts() -> Vec<Start> {
    let create = Event::create_classic;
    vec![
        Start {
            name: "kraft",
            brokers: vec![1, 2, 3, 4, 5],
            setup: vec![create(vec![1, 2, 3])],
            elr: false,
        },
        Start {
            name: "switched",
            brokers: vec![1, 2, 3],
            setup: vec![
                create(vec![1, 2, 3]),
                Event::Produce {
                    partition: 0,
                    records: 10,
                    acks: Acks::One,
                },
                Event::AdvanceTime { ms: 15_000 },
                Event::SwitchStart {
                    partition: 0,
                    consolidating: true,
                },
                Event::AdvanceTime { ms: 15_000 },
                Event::SealCommit { partition: 0 },
            ],
            elr: false,
        },
        Start {
            name: "data",
            brokers: vec![1, 2, 3],
            setup: vec![create(vec![1, 2, 3])],
            elr: false,
        },
    ]
}

/// A starting cluster by name with `brokers` brokers (default, docs/model/README.md#starting-states: 5 for `kraft`,
/// 3 for `switched`). The partition always has replicas [1,2,3].
pub fn start_named(name: &str, brokers: Option<usize>) -> Result<Start, String> {
    let mut start = starts()
        .into_iter()
        .find(|s| s.name == name)
        .ok_or_else(|| format!("unknown start `{name}` (known: kraft, switched, data)"))?;
    if let Some(n) = brokers {
        if !(3..=START_BROKERS_MAX).contains(&n) {
            return Err(format!(
                "--brokers must be 3..={START_BROKERS_MAX} (the partition has replicas [1,2,3]), got {n}"
            ));
        }
        start.brokers = (1..=n as i32).collect();
    }
    Ok(start)
}

/// Brokers in an exhaustive start, far below the model's `BROKERS_MAX`: the reassignment
/// alphabet (every subset of the brokers) grows as 2^n, and the states with it.
pub const START_BROKERS_MAX: usize = 7;

/// The alphabet for a state: reassignments to every ascending subset of the brokers
/// (sizes 1..=max_target), cancel, every AlterPartition ISR that holds the leader, and
/// for the switched start: fence/unfence, a leader move, time and diskless produce.
pub(crate) fn alphabet(start: &Start, state: &Cluster, max_target: usize) -> Vec<Event> {
    if start.name == "data" {
        return data_alphabet(start);
    }
    let mut ops = Vec::new();
    let n = start.brokers.len();
    for mask in 1u32..(1 << n) {
        let target: Vec<i32> = (0..n)
            .filter(|i| mask & (1 << i) != 0)
            .map(|i| start.brokers[i])
            .collect();
        if target.len() <= max_target {
            ops.push(Event::Reassign {
                partition: 0,
                target,
                allow_replication_factor_change: true,
            });
        }
    }
    ops.push(Event::CancelReassignment { partition: 0 });
    let p = &state.partitions[0];
    if p.leader >= 0 {
        let others: Vec<i32> = p
            .replicas
            .iter()
            .copied()
            .filter(|&r| r != p.leader)
            .collect();
        for mask in 0u32..(1 << others.len()) {
            let mut isr = vec![p.leader];
            isr.extend(
                (0..others.len())
                    .filter(|i| mask & (1 << i) != 0)
                    .map(|i| others[i]),
            );
            ops.push(Event::AlterPartition {
                partition: 0,
                isr,
                broker: None,
                leader_epoch: None,
                partition_epoch: None,
                leader_recovery_state: LeaderRecoveryState::Recovered,
                stale_epoch: None,
            });
        }
    }
    if start.name == "switched" {
        for &b in &start.brokers {
            ops.push(Event::FenceBroker { broker: b });
            ops.push(Event::UnfenceBroker { broker: b });
        }
        ops.push(Event::AdvanceTime { ms: 30_000 });
        ops.push(Event::Produce {
            partition: 0,
            records: 2,
            acks: Acks::One,
        });
        ops.push(Event::ElectLeaders {
            partition: 0,
            election: crate::model::ElectionType::Preferred,
        });
    }
    ops
}

/// The data plane's alphabet (start `data`, a classic partition on brokers 1..3): an acks=all
/// produce of one record, one explicit fetch by each broker, and each broker fenced,
/// unfenced and restarted uncleanly: the moves of KIP-101's scenarios, with no
/// reassignment.
fn data_alphabet(start: &Start) -> Vec<Event> {
    let mut ops = vec![Event::Produce {
        partition: 0,
        records: 1,
        acks: Acks::All,
    }];
    for &b in &start.brokers {
        ops.push(Event::FollowerFetch {
            partition: 0,
            broker: b,
        });
        ops.push(Event::FenceBroker { broker: b });
        ops.push(Event::UnfenceBroker { broker: b });
        // A power loss that keeps the log up to the high watermark (what the data start
        // explored before recovery points; the flushed-prefix case is hunt's).
        ops.push(Event::RestartBroker {
            broker: b,
            unclean: true,
            survives: Some(Survives::HighWatermark),
        });
    }
    ops
}

#[derive(Debug, Default)]
pub struct Report {
    /// Transitions taken (histories extended by one operation), all depths.
    pub transitions: u64,
    /// Distinct states reached, the start included.
    pub states: usize,
    /// First violation of each invariant: (invariant, shortest history).
    pub violations: Vec<(&'static str, History)>,
    /// The deepest depth explored completely: every history of this many operations.
    pub depth_reached: usize,
    /// `states_max` stopped the exploration part-way through this depth (so
    /// `depth_reached` is one less, and no bound beyond it was established).
    pub cut_at_depth: Option<usize>,
    /// A stop request ([`crate::search::stop`]) ended the exploration, at `cut_at_depth`.
    pub stopped: bool,
}

impl Report {
    /// The chance, at most, that two distinct states were merged because their
    /// fingerprints collided (src/search/fingerprints.rs): every bound carries it.
    pub fn collision_bound(&self) -> f64 {
        crate::search::fingerprints::collision_bound(self.states)
    }
}

/// How far and how wide `explore_with` goes.
pub struct Limits {
    pub depth: usize,
    pub max_target: usize,
    pub states_max: usize,
    /// Threads that compute transitions (`JOBS_MAX` at most). The report does not depend
    /// on it: every result is merged in the order one thread would have produced it.
    pub jobs: usize,
}

/// The state the start's setup events leave, run through the one loop as a history of
/// their own.
pub(crate) fn setup_state(start: &Start, rules: &RuleSet) -> Cluster {
    let mut setup = History::new(start.brokers.clone(), start.setup.clone());
    setup.eligible_leader_replicas = start.elr;
    let mut model = ModelJudge::new(rules, false, false);
    let Ok(_) = drive(&setup, &mut model, |_, _, _| ControlFlow::Continue(()));
    model.into_state()
}
