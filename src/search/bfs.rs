//! `exhaust`'s breadth-first engine. A depth is expanded in chunks of frontier states,
//! each in four phases, so that the result is exactly what one thread taking every
//! transition in order would produce (the same states get the same numbers, the same
//! violations the same shortest histories), whatever the number of threads:
//!
//! 1. expand (every thread, a contiguous share of the chunk): rebuild each state from its
//!    path, apply each operation of its alphabet, check the step, fingerprint the result;
//! 2. classify (every thread, whole shards of the seen-set): in transition order, the first
//!    of equal new fingerprints is fresh, the others repeats;
//! 3. heal (every thread): the fresh states are healed and judged at quiescence, then
//!    dropped: only fingerprints and paths outlive a chunk;
//! 4. merge (one thread, cheap): count, record first violations, number the fresh states.

use crate::check::invariants::{
    quiescent_pending, quiescent_violations_except, step_violations_except, StepView,
};
use crate::check::oracle;
use crate::model::{apply, Cluster, Event};
use crate::rules::RuleSet;
use crate::search::fingerprints::{fingerprint, shard_of, Fingerprints, SHARDS};
use crate::search::space::{alphabet, setup_state, Limits, Report, Start};
use crate::search::tree::{Rebuilder, Replay, Tree, ROOT};
use crate::search::{stop, JOBS_MAX};
use std::ops::Range;

/// Frontier states expanded per chunk: up to 35 transitions each from `kraft`, enough
/// work to pay for starting the threads of its phases, little enough that the chunk's
/// fresh states (kilobytes each) stay within `exhaust::WORKING_BYTES` (60–200 MB
/// resident in all from `kraft`, one or two threads).
/// Frontier states per share of phase 1 (a few milliseconds of work): the threads wait
/// for the last share at the end of each phase, and each share rebuilds its first path.
const SHARE_STATES: usize = 16;

/// Fresh states a thread heals at a time in phase 3.
const HEAL_BLOCK: usize = 16;

const CHUNK_STATES: u32 = 2048;

pub(crate) fn explore(
    start: &Start,
    rules: &RuleSet,
    limits: &Limits,
    until: Option<&str>,
) -> Report {
    let root = setup_state(start, rules);
    let mut seen = Fingerprints::default();
    seen.insert(fingerprint(&root));
    let mut bfs = Bfs {
        start,
        rules,
        until,
        max_target: limits.max_target,
        jobs: limits.jobs.clamp(1, JOBS_MAX),
        root,
        tree: Tree::new(),
        seen,
        report: Report::default(),
    };
    let mut level = ROOT..ROOT + 1;
    for d in 1..=limits.depth {
        let next = bfs.tree.len() as u32;
        let mut lo = level.start;
        while lo < level.end {
            // Between chunks, like the state bound: what was found so far is kept.
            if stop::requested() {
                bfs.report.cut_at_depth = Some(d);
                bfs.report.stopped = true;
                return bfs.finish();
            }
            let hi = level.end.min(lo.saturating_add(CHUNK_STATES));
            match bfs.chunk(lo..hi, limits.states_max) {
                Some(End::Full) => {
                    bfs.report.cut_at_depth = Some(d);
                    return bfs.finish();
                }
                Some(End::Found) => return bfs.finish(),
                None => lo = hi,
            }
        }
        level = next..bfs.tree.len() as u32;
        bfs.report.depth_reached = d;
    }
    bfs.finish()
}

struct Bfs<'a> {
    start: &'a Start,
    rules: &'a RuleSet,
    until: Option<&'a str>,
    max_target: usize,
    jobs: usize,
    root: Cluster,
    tree: Tree,
    seen: Fingerprints,
    report: Report,
}

/// One transition, computed away from the search's memory.
struct Transition {
    from: u32,
    op: u16,
    novelty: Novelty,
    fp: u64,
    /// Step invariants violated, in list order (those found before the chunk are not
    /// checked).
    violated: Vec<&'static str>,
    /// The state reached, while it may be fresh (until phase 3).
    state: Option<Box<Cluster>>,
}

#[derive(Clone, Copy, PartialEq)]
enum Novelty {
    /// The step was rejected: no state to merge.
    Rejected,
    /// Seen before this chunk.
    Seen,
    /// Equal to the state of an earlier transition of this chunk.
    Repeat,
    /// New: only these are healed and judged at quiescence, and numbered.
    Fresh,
}

enum End {
    /// The `until` invariant was violated.
    Found,
    /// The state bound was reached.
    Full,
}

impl Bfs<'_> {
    fn finish(mut self) -> Report {
        self.report.states = self.tree.len();
        self.report
    }

    fn replay(&self) -> Replay<'_> {
        Replay {
            start: self.start,
            rules: self.rules,
            max_target: self.max_target,
            tree: &self.tree,
        }
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

    /// The four phases over the frontier states `ids`.
    fn chunk(&mut self, ids: Range<u32>, states_max: usize) -> Option<End> {
        let known = self.known_ids();
        let mut ts = self.expand(ids, &known);
        self.classify(&mut ts);
        let quiescent = self.heal(&mut ts, &known);
        for (t, q) in ts.into_iter().zip(quiescent) {
            if let Some(end) = self.merge(t, q, states_max) {
                return Some(end);
            }
        }
        None
    }

    /// Phase 1: every transition out of `ids`, in order.
    fn expand(&self, ids: Range<u32>, known: &[&'static str]) -> Vec<Transition> {
        // Many small shares taken in turn: states differ in cost, and equal halves left one
        // thread idle for a third of the phase.
        let shares = ids.len().div_ceil(SHARE_STATES);
        let parts = split(ids, shares);
        let (replay, root, seen) = (self.replay(), &self.root, &self.seen);
        let (start, rules, max_target) = (self.start, self.rules, self.max_target);
        // Each thread keeps its rebuilt path, its scratch state and the fingerprints it
        // produced across its shares: it takes shares in increasing order, so a state met
        // twice on one thread is a repeat for sure (its first meeting comes earlier), and
        // is not kept.
        let each = || {
            let mine = crate::search::fingerprints::Shard::default();
            (Rebuilder::new(replay, root), Cluster::default(), mine)
        };
        let out = in_turn(
            &parts,
            self.jobs,
            each,
            |(rebuilder, scratch, mine), part| {
                let mut out = Vec::new();
                for id in part.clone() {
                    let state = rebuilder.state(id);
                    for (k, op) in alphabet(start, state, max_target).iter().enumerate() {
                        let k =
                            u16::try_from(k).expect("an alphabet has fewer than 2^16 operations");
                        let mut t = transition(state, (id, k), op, rules, known, seen, scratch);
                        if t.novelty == Novelty::Fresh && !mine.insert(t.fp) {
                            t.novelty = Novelty::Repeat;
                            if let Some(s) = t.state.take() {
                                *scratch = *s;
                            }
                        }
                        out.push(t);
                    }
                }
                out
            },
        );
        out.into_iter().flatten().collect()
    }

    /// Phase 2: each thread owns whole shards and walks the transitions in order, so the
    /// first of equal fingerprints is the fresh one, as on one thread.
    fn classify(&mut self, ts: &mut [Transition]) {
        let per = SHARDS.div_ceil(self.jobs);
        let all: &[Transition] = ts;
        let groups: Vec<(usize, &mut [crate::search::fingerprints::Shard])> = self
            .seen
            .shards
            .chunks_mut(per)
            .enumerate()
            .map(|(g, shards)| (g * per, shards))
            .collect();
        let repeats = in_parallel_owned(groups, |(first, shards)| {
            let mut repeats = Vec::new();
            for (i, t) in all.iter().enumerate() {
                let s = shard_of(t.fp);
                if t.novelty == Novelty::Fresh
                    && (first..first + shards.len()).contains(&s)
                    && !shards[s - first].insert(t.fp)
                {
                    repeats.push(i);
                }
            }
            repeats
        });
        for i in repeats.into_iter().flatten() {
            ts[i].novelty = Novelty::Repeat;
            ts[i].state = None;
        }
    }

    /// Phase 3: the quiescence violations of each fresh state (healed in place, then
    /// dropped), unless every quiescence invariant is already found.
    fn heal(&self, ts: &mut [Transition], known: &[&'static str]) -> Vec<Vec<&'static str>> {
        let pending = quiescent_pending(|id| known.contains(&id));
        let rules = self.rules;
        let mut out: Vec<Vec<&'static str>> = ts.iter().map(|_| Vec::new()).collect();
        if !pending {
            return out; // the states go with their transitions, at the merge
        }
        // Only the fresh states cost anything, and they bunch: they are what is shared out.
        let mut fresh = (ts.iter_mut().enumerate())
            .filter_map(|(i, t)| Some((i, t.state.take()?)))
            .peekable();
        let mut blocks = Vec::new();
        while fresh.peek().is_some() {
            blocks.push(std::sync::Mutex::new(
                fresh.by_ref().take(HEAL_BLOCK).collect::<Vec<_>>(),
            ));
        }
        let healed = in_turn(
            &blocks,
            self.jobs,
            || (),
            |(), block| {
                let block = std::mem::take(&mut *block.lock().expect("one thread takes a block"));
                let mut found = Vec::new();
                for (i, mut state) in block {
                    oracle::heal(&mut state, rules);
                    let ids: Vec<_> =
                        quiescent_violations_except(&state, rules, |id| known.contains(&id))
                            .map(|(id, _)| id)
                            .collect();
                    if !ids.is_empty() {
                        found.push((i, ids));
                    }
                }
                found
            },
        );
        for (i, ids) in healed.into_iter().flatten() {
            out[i] = ids;
        }
        out
    }

    /// Phase 4: merge one transition, in the order a single thread takes them.
    fn merge(
        &mut self,
        t: Transition,
        quiescent: Vec<&'static str>,
        states_max: usize,
    ) -> Option<End> {
        self.report.transitions += 1;
        self.record(&t.violated, t.from, t.op);
        if self.found() {
            return Some(End::Found);
        }
        if t.novelty != Novelty::Fresh {
            return None;
        }
        if self.tree.len() >= states_max {
            return Some(End::Full);
        }
        self.record(&quiescent, t.from, t.op);
        if self.found() {
            return Some(End::Found);
        }
        self.tree.push(t.from, t.op);
        None
    }

    /// Record the first violation of each invariant in `ids` not found yet, with the
    /// shortest history: the path to `from`, then operation `op`.
    fn record(&mut self, ids: &[&'static str], from: u32, op: u16) {
        for &id in ids {
            if !self.known(id) {
                let h = self.replay().history(&self.root, from, op);
                self.report.violations.push((id, h));
            }
        }
    }
}

/// Apply `op` to `prev` (in `scratch`, whose memory is reused while its states are not
/// kept) and check the step, skipping the invariants in `known`.
fn transition(
    prev: &Cluster,
    (from, k): (u32, u16),
    op: &Event,
    rules: &RuleSet,
    known: &[&'static str],
    seen: &Fingerprints,
    scratch: &mut Cluster,
) -> Transition {
    scratch.clone_from(prev);
    let outcome = apply(scratch, op, rules);
    let view = StepView {
        prev,
        next: scratch,
        event: op,
        outcome: &outcome,
    };
    let violated = step_violations_except(&view, rules, |id| known.contains(&id))
        .map(|(id, _)| id)
        .collect();
    let mut t = Transition {
        from,
        op: k,
        novelty: Novelty::Rejected,
        fp: 0,
        violated,
        state: None,
    };
    if outcome.is_rejected() {
        return t;
    }
    t.fp = fingerprint(scratch);
    if seen.contains(t.fp) {
        t.novelty = Novelty::Seen;
    } else {
        t.novelty = Novelty::Fresh;
        t.state = Some(Box::new(std::mem::take(scratch)));
    }
    t
}

/// `ids` cut into at most `parts` contiguous ranges of nearly equal length.
fn split(ids: Range<u32>, parts: usize) -> Vec<Range<u32>> {
    let len = (ids.end - ids.start) as usize;
    let per = len.div_ceil(parts.max(1)).max(1) as u32;
    (ids.start..ids.end)
        .step_by(per as usize)
        .map(|lo| lo..ids.end.min(lo + per))
        .collect()
}

/// `f` over `items` on up to `jobs` threads, each with its own state from `each` and
/// taking the next item when it is free (so each thread's items come in increasing order);
/// results in the order of `items`.
fn in_turn<T: Sync, S, R: Send>(
    items: &[T],
    jobs: usize,
    each: impl Fn() -> S + Sync,
    f: impl Fn(&mut S, &T) -> R + Sync,
) -> Vec<R> {
    if jobs <= 1 || items.len() < 2 {
        let mut state = each();
        return items.iter().map(|item| f(&mut state, item)).collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut done: Vec<(usize, R)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..jobs.min(items.len()))
            .map(|_| {
                scope.spawn(|| {
                    let (mut state, mut mine) = (each(), Vec::new());
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(item) = items.get(i) else { break mine };
                        mine.push((i, f(&mut state, item)));
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a transition panicked"))
            .collect()
    });
    done.sort_unstable_by_key(|&(i, _)| i);
    done.into_iter().map(|(_, r)| r).collect()
}

/// `f` on each item, one thread each, results in order.
fn in_parallel_owned<T: Send, R: Send>(items: Vec<T>, f: impl Fn(T) -> R + Sync) -> Vec<R> {
    if items.len() < 2 {
        return items.into_iter().map(&f).collect();
    }
    std::thread::scope(|scope| {
        let f = &f;
        let handles: Vec<_> = items
            .into_iter()
            .map(|item| scope.spawn(move || f(item)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a merge panicked"))
            .collect()
    })
}
