//! `isrfuzz exhaust`: bounded exhaustive exploration. Breadth-first over every history of
//! up to `depth` operations drawn from a fixed alphabet, from a fixed starting cluster,
//! with equal states (controller, brokers and ghosts) merged, so each (state, operation)
//! transition is checked once. Breadth-first order makes the first violation of each
//! invariant a shortest counterexample. Deterministic: the same configuration always
//! explores the same counts.
//!
//! Reduction: equal states are merged (the full state: controller, brokers, ghosts). There
//! is no broker-id symmetry reduction, on purpose: Kafka orders `removing` by broker id
//! (a TreeSet), so renaming brokers is not a symmetry of the rules and merging renamed
//! states would be unsound; src/symmetry.rs and tests/symmetry.rs show it.

use crate::check::history::History;
use crate::check::invariants::{
    quiescent_pending, quiescent_violations_except, step_violations_except, StepView,
};
use crate::check::oracle;
use crate::model::{apply, Acks, BrokerConfig, Cluster, Event, LeaderRecoveryState, Survives};
use crate::rules::RuleSet;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// The index of seen states hashes whole clusters, once or twice per transition: with the
/// standard SipHash that was about a quarter of a run. Only membership is asked (the map is
/// never iterated), so the hash function changes no result, only the time.
type Seen = HashMap<Cluster, usize, BuildHasherDefault<StateHasher>>;

/// A multiply-rotate hash over 64-bit words (the function of rustc's `FxHasher`): fast on
/// the many small integers a `Cluster` writes, not resistant to chosen collisions (the
/// states come from the model, not from an adversary; a collision costs time only).
#[derive(Default)]
struct StateHasher(u64);

impl StateHasher {
    const K: u64 = 0x517c_c1b7_2722_0a95;

    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(Self::K);
    }
}

impl Hasher for StateHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(last) ^ ((rest.len() as u64) << 59));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// A starting cluster and the operations explored from it.
pub struct Start {
    pub name: &'static str,
    pub brokers: Vec<i32>,
    /// Events played once to build the starting state (depth 0).
    pub setup: Vec<Event>,
}

/// The starting states of docs/model/README.md#starting-states: a 3-replica partition on 5 brokers
/// and a switched consolidating partition with 3 replicas.
pub fn starts() -> Vec<Start> {
    let create = |replicas: Vec<i32>| Event::CreatePartition {
        replicas,
        unclean_leader_election_enable: false,
        diskless: false,
        remote_storage: false,
        min_insync_replicas: 1,
    };
    vec![
        Start {
            name: "kraft",
            brokers: vec![1, 2, 3, 4, 5],
            setup: vec![create(vec![1, 2, 3])],
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
        },
        Start {
            name: "data",
            brokers: vec![1, 2, 3],
            setup: vec![create(vec![1, 2, 3])],
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
fn alphabet(start: &Start, state: &Cluster, max_target: usize) -> Vec<Event> {
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
}

/// Explore every history of up to `depth` operations under `rules` from `start`.
/// `states_max` bounds memory: exploration stops beyond it, and the report says where
/// (`depth_reached` is then the last depth completed, `cut_at_depth` the one cut short).
pub fn explore(
    start: &Start,
    rules: &RuleSet,
    depth: usize,
    max_target: usize,
    states_max: usize,
) -> Report {
    explore_until(start, rules, depth, max_target, states_max, None)
}

/// [`explore`], stopping as soon as `until` is violated (the benchmark's time to the
/// shortest counterexample of one bug).
pub fn explore_until(
    start: &Start,
    rules: &RuleSet,
    depth: usize,
    max_target: usize,
    states_max: usize,
    until: Option<&str>,
) -> Report {
    let mut root = Cluster::new(&start.brokers, BrokerConfig::default());
    for e in &start.setup {
        apply(&mut root, e, rules);
    }
    let mut bfs = Bfs {
        start,
        rules,
        until,
        arena: vec![(root.clone(), None)],
        seen: Seen::from_iter([(root, 0)]),
        report: Report {
            states: 1,
            ..Report::default()
        },
    };
    let mut frontier = vec![0usize];
    for d in 1..=depth {
        let mut next = Vec::new();
        for &idx in &frontier {
            for op in alphabet(start, &bfs.arena[idx].0, max_target) {
                match bfs.step(idx, op, states_max) {
                    Step::Stop => {
                        bfs.report.states = bfs.arena.len();
                        return bfs.report;
                    }
                    Step::Full => {
                        bfs.report.cut_at_depth = Some(d);
                        bfs.report.states = bfs.arena.len();
                        return bfs.report;
                    }
                    Step::New(new) => next.push(new),
                    Step::Merged => {}
                }
            }
        }
        frontier = next;
        bfs.report.depth_reached = d;
    }
    bfs.report.states = bfs.arena.len();
    bfs.report
}

/// The breadth-first search's memory: an arena of states with parent links (to rebuild
/// shortest histories), the index of states seen, and the report so far.
struct Bfs<'a> {
    start: &'a Start,
    rules: &'a RuleSet,
    until: Option<&'a str>,
    arena: Vec<(Cluster, Option<(usize, Event)>)>,
    seen: Seen,
    report: Report,
}

enum Step {
    /// The `until` invariant was violated.
    Stop,
    /// The state bound was reached.
    Full,
    /// A state not seen before, stored at this index.
    New(usize),
    /// Rejected, or a state already seen.
    Merged,
}

impl Bfs<'_> {
    fn found(&self) -> bool {
        self.until
            .is_some_and(|id| self.report.violations.iter().any(|(v, _)| *v == id))
    }

    /// Apply `op` to state `idx`, check the step, and store the new state.
    fn step(&mut self, idx: usize, op: Event, states_max: usize) -> Step {
        let (start, rules) = (self.start, self.rules);
        let prev = &self.arena[idx].0;
        let mut state = prev.clone();
        let outcome = apply(&mut state, &op, rules);
        self.report.transitions += 1;
        let view = StepView {
            prev,
            next: &state,
            event: &op,
            outcome: &outcome,
            rules,
        };
        let arena = &self.arena;
        check_step(&view, &mut self.report, || rebuild(start, arena, idx, &op));
        if self.found() {
            return Step::Stop;
        }
        if outcome.is_rejected() || self.seen.contains_key(&state) {
            return Step::Merged;
        }
        if self.arena.len() >= states_max {
            return Step::Full;
        }
        check_quiescent(&state, rules, &mut self.report, || {
            rebuild(start, arena, idx, &op)
        });
        if self.found() {
            return Step::Stop;
        }
        let new = self.arena.len();
        self.seen.insert(state.clone(), new);
        self.arena.push((state, Some((idx, op))));
        Step::New(new)
    }
}

fn check_step(view: &StepView, report: &mut Report, history: impl Fn() -> History) {
    let known = |id: &str| report.violations.iter().any(|(v, _)| *v == id);
    let found: Vec<_> = step_violations_except(view, known).collect();
    for (id, _) in found {
        report.violations.push((id, history()));
    }
}

fn check_quiescent(
    state: &Cluster,
    rules: &RuleSet,
    report: &mut Report,
    history: impl Fn() -> History,
) {
    let known = |id: &str| report.violations.iter().any(|(v, _)| *v == id);
    if !quiescent_pending(known) {
        return;
    }
    let mut healed = state.clone();
    oracle::heal(&mut healed, rules);
    let found: Vec<_> = quiescent_violations_except(&healed, rules, known).collect();
    for (id, _) in found {
        report.violations.push((id, history()));
    }
}

/// The history from the start to `idx`, then `last`.
fn rebuild(
    start: &Start,
    arena: &[(Cluster, Option<(usize, Event)>)],
    mut idx: usize,
    last: &Event,
) -> History {
    let mut ops = vec![last.clone()];
    while let Some((parent, op)) = &arena[idx].1 {
        ops.push(op.clone());
        idx = *parent;
    }
    ops.reverse();
    let mut events = start.setup.clone();
    events.extend(ops);
    History::new(start.brokers.clone(), events)
}
