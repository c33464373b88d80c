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
//! states would be unsound; src/symmetry.rs and tests/it/symmetry.rs show it.

use crate::check::history::History;
use crate::check::invariants::{
    quiescent_pending, quiescent_violations_except, step_violations_except, StepView,
};
use crate::check::judge::{drive, ModelJudge};
use crate::check::oracle;
use crate::model::{apply, Acks, Cluster, Event, LeaderRecoveryState, Survives};
use crate::rules::RuleSet;
use crate::search::seen::{state_hash, Seen};
use crate::search::stop;
use crate::search::{default_jobs, JOBS_MAX};
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
    /// A stop request ([`stop`]) ended the exploration, at `cut_at_depth`.
    pub stopped: bool,
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
    let limits = Limits {
        depth,
        max_target,
        states_max,
        jobs: default_jobs(),
    };
    explore_with(start, rules, &limits, until)
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
fn setup_state(start: &Start, rules: &RuleSet) -> Cluster {
    let mut setup = History::new(start.brokers.clone(), start.setup.clone());
    setup.eligible_leader_replicas = start.elr;
    let mut model = ModelJudge::new(rules, false, false);
    let Ok(_) = drive(&setup, &mut model, |_, _, _| ControlFlow::Continue(()));
    model.into_state()
}

/// Transitions computed per parallel batch: bounds the states held outside the arena.
const BATCH_MAX: usize = 512;

/// The breadth-first search. Each depth's transitions are computed in batches on `jobs`
/// threads (apply, step checks, state hash) and merged in order on this one, exactly as
/// a single thread would: the same states get the same indices, the same violations the
/// same shortest histories.
pub fn explore_with(
    start: &Start,
    rules: &RuleSet,
    limits: &Limits,
    until: Option<&str>,
) -> Report {
    let root = setup_state(start, rules);
    let mut bfs = Bfs {
        start,
        rules,
        until,
        seen: Seen::default(),
        arena: Vec::new(),
        report: Report {
            states: 1,
            ..Report::default()
        },
    };
    bfs.seen.insert(state_hash(&root), 0);
    bfs.arena.push((root, None));
    let jobs = limits.jobs.clamp(1, JOBS_MAX);
    let mut frontier = vec![0usize];
    for d in 1..=limits.depth {
        let mut next = Vec::new();
        let mut batch = Vec::with_capacity(BATCH_MAX);
        for (k, &idx) in frontier.iter().enumerate() {
            let ops = alphabet(start, &bfs.arena[idx].0, limits.max_target);
            batch.extend(ops.into_iter().map(|op| (idx, op)));
            if batch.len() < BATCH_MAX && k + 1 < frontier.len() {
                continue;
            }
            // Between batches, like the state bound: what was found so far is kept.
            if stop::requested() {
                bfs.report.cut_at_depth = Some(d);
                bfs.report.stopped = true;
                return bfs.finish();
            }
            match bfs.run_batch(&batch, jobs, limits.states_max, &mut next) {
                Some(Step::Full) => {
                    bfs.report.cut_at_depth = Some(d);
                    return bfs.finish();
                }
                Some(_) => return bfs.finish(),
                None => batch.clear(),
            }
        }
        frontier = next;
        bfs.report.depth_reached = d;
    }
    bfs.finish()
}

/// The breadth-first search's memory: an arena of states with parent links (to rebuild
/// shortest histories), the index of states seen (by hash, into the arena), and the
/// report so far.
struct Bfs<'a> {
    start: &'a Start,
    rules: &'a RuleSet,
    until: Option<&'a str>,
    arena: Vec<(Cluster, Option<(usize, Event)>)>,
    seen: Seen,
    report: Report,
}

/// One transition, computed away from the search's memory.
struct Transition {
    from: usize,
    op: Event,
    state: Cluster,
    hash: u64,
    /// Step invariants violated, in list order (those already found when the batch
    /// started are not checked).
    violated: Vec<&'static str>,
    novelty: Novelty,
}

/// Whether a transition's state is new, decided once per batch (the arena and the index
/// do not change while a batch is computed, and merging keeps the batch's order).
#[derive(Clone, Copy, PartialEq)]
enum Novelty {
    /// The step was rejected: no state to merge.
    Rejected,
    /// Stored before this batch.
    Seen,
    /// Equal to the state of an earlier transition of this batch.
    Repeat,
    /// New: only these are healed and judged at quiescence, and stored.
    Fresh,
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
    fn finish(mut self) -> Report {
        self.report.states = self.arena.len();
        self.report
    }

    /// Compute and merge one batch; the new states go to `next`. `Some(Stop)` or
    /// `Some(Full)` ends the search there.
    fn run_batch(
        &mut self,
        batch: &[(usize, Event)],
        jobs: usize,
        states_max: usize,
        next: &mut Vec<usize>,
    ) -> Option<Step> {
        let expanded = self.expand_batch(batch, jobs);
        let quiescent = self.quiescent_batch(&expanded, jobs);
        for (t, q) in expanded.into_iter().zip(quiescent) {
            match self.merge(t, q, states_max) {
                Step::New(new) => next.push(new),
                Step::Merged => {}
                end => return Some(end),
            }
        }
        None
    }

    fn known(&self, id: &str) -> bool {
        self.report.violations.iter().any(|(v, _)| *v == id)
    }

    /// The invariants found so far (checked no more: only a shortest witness is kept).
    fn known_ids(&self) -> Vec<&'static str> {
        self.report.violations.iter().map(|(v, _)| *v).collect()
    }

    fn found(&self) -> bool {
        self.until.is_some_and(|id| self.known(id))
    }

    /// Compute `batch` on `jobs` threads, in order; then mark the states new to it.
    fn expand_batch(&self, batch: &[(usize, Event)], jobs: usize) -> Vec<Transition> {
        let known = self.known_ids();
        let (arena, seen, rules) = (&self.arena, &self.seen, self.rules);
        let one = |(from, op): &(usize, Event)| {
            let mut t = transition(&arena[*from].0, *from, op, rules, &known);
            if t.novelty == Novelty::Fresh && seen.find(arena, t.hash, &t.state).is_some() {
                t.novelty = Novelty::Seen;
                // Freed on this thread, while its memory is hot: only fresh states live
                // until the merge.
                t.state = Cluster::default();
            }
            t
        };
        let mut out = in_parallel(batch, jobs, one);
        let mut firsts = Seen::default();
        for i in 0..out.len() {
            if out[i].novelty != Novelty::Fresh {
                continue;
            }
            let (hash, state) = (out[i].hash, &out[i].state);
            if firsts.find_in(&out, |t| &t.state, hash, state).is_some() {
                out[i].novelty = Novelty::Repeat;
            } else {
                firsts.insert(hash, i);
            }
        }
        out
    }

    /// The quiescence violations of each fresh state of `batch` (healed on `jobs` threads),
    /// unless every quiescence invariant is already found.
    fn quiescent_batch(&self, batch: &[Transition], jobs: usize) -> Vec<Vec<&'static str>> {
        if !quiescent_pending(|id| self.known(id)) {
            return batch.iter().map(|_| Vec::new()).collect();
        }
        let known = self.known_ids();
        let rules = self.rules;
        in_parallel(batch, jobs, |t| {
            if t.novelty != Novelty::Fresh {
                return Vec::new();
            }
            let mut healed = t.state.clone();
            oracle::heal(&mut healed, rules);
            quiescent_violations_except(&healed, rules, |id| known.contains(&id))
                .map(|(id, _)| id)
                .collect()
        })
    }

    /// Merge one computed transition, in the order a single thread takes them.
    fn merge(&mut self, t: Transition, quiescent: Vec<&'static str>, states_max: usize) -> Step {
        self.report.transitions += 1;
        self.record(&t.violated, t.from, &t.op);
        if self.found() {
            return Step::Stop;
        }
        if t.novelty != Novelty::Fresh {
            return Step::Merged;
        }
        if self.arena.len() >= states_max {
            return Step::Full;
        }
        self.record(&quiescent, t.from, &t.op);
        if self.found() {
            return Step::Stop;
        }
        let new = self.arena.len();
        self.seen.insert(t.hash, new);
        self.arena.push((t.state, Some((t.from, t.op))));
        Step::New(new)
    }

    /// Record the first violation of each invariant in `ids` not found yet, with the
    /// shortest history: the one to `from`, then `op`.
    fn record(&mut self, ids: &[&'static str], from: usize, op: &Event) {
        for &id in ids {
            if !self.known(id) {
                let h = rebuild(self.start, &self.arena, from, op);
                self.report.violations.push((id, h));
            }
        }
    }
}

/// Apply `op` to `prev` and check the step (skipping the invariants in `known`).
fn transition(
    prev: &Cluster,
    from: usize,
    op: &Event,
    rules: &RuleSet,
    known: &[&'static str],
) -> Transition {
    let mut state = prev.clone();
    let outcome = apply(&mut state, op, rules);
    let view = StepView {
        prev,
        next: &state,
        event: op,
        outcome: &outcome,
    };
    let violated = step_violations_except(&view, rules, |id| known.contains(&id))
        .map(|(id, _)| id)
        .collect();
    let rejected = outcome.is_rejected();
    // A rejected step leaves no state to merge; its hash is never read.
    let hash = if rejected { 0 } else { state_hash(&state) };
    let (novelty, state) = if rejected {
        (Novelty::Rejected, Cluster::default())
    } else {
        (Novelty::Fresh, state)
    };
    Transition {
        from,
        op: op.clone(),
        state,
        hash,
        violated,
        novelty,
    }
}

/// `f` over `items` on up to `jobs` threads, results in the order of `items`.
fn in_parallel<T: Sync, R: Send>(items: &[T], jobs: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    if jobs <= 1 || items.len() < 2 {
        return items.iter().map(&f).collect();
    }
    let per = items.len().div_ceil(jobs);
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(per)
            .map(|chunk| scope.spawn(|| chunk.iter().map(&f).collect::<Vec<R>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a transition panicked"))
            .collect()
    })
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
    let mut history = History::new(start.brokers.clone(), events);
    history.eligible_leader_replicas = start.elr;
    history.format = history.written_format();
    history
}
