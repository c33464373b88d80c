//! `exhaust`'s record of how each state was first reached: its parent and the index of the
//! operation in the parent's alphabet, 8 bytes a state. A state is not stored: it is
//! rebuilt by re-executing its path from the start (the model is a pure function), and a
//! counterexample's history is the path's operations. States are numbered in breadth-first
//! order, so each depth is one range of numbers.

use crate::check::history::History;
use crate::model::{apply, Cluster, Event};
use crate::rules::RuleSet;
use crate::search::space::{alphabet, Start};

/// Number of the starting state.
pub(crate) const ROOT: u32 = 0;

/// Longest path rebuilt: `exhaust`'s depth cap with room to spare.
const PATH_MAX: usize = 16;

/// 8 bytes with its padding (`exhaust::STATE_BYTES` counts on it).
#[derive(Clone, Copy)]
pub(crate) struct Node {
    parent: u32,
    op: u16,
}

/// The first-reached parent and operation of every state.
pub(crate) struct Tree {
    nodes: Vec<Node>,
}

impl Tree {
    pub(crate) fn new() -> Tree {
        Tree {
            nodes: vec![Node {
                parent: ROOT,
                op: 0,
            }],
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.nodes.len()
    }

    /// A new state, reached from `parent` by operation `op` of its alphabet; its number.
    pub(crate) fn push(&mut self, parent: u32, op: u16) -> u32 {
        let id = u32::try_from(self.nodes.len()).expect("states fit in u32 (the budget caps them)");
        self.nodes.push(Node { parent, op });
        id
    }

    /// The states from the start to `id`, both included.
    fn path(&self, mut id: u32) -> Vec<u32> {
        let mut ids = vec![id];
        while id != ROOT {
            id = self.nodes[id as usize].parent;
            ids.push(id);
            assert!(ids.len() <= PATH_MAX, "a path longer than {PATH_MAX}");
        }
        ids.reverse();
        ids
    }
}

/// What a path is re-executed with.
#[derive(Clone, Copy)]
pub(crate) struct Replay<'a> {
    pub(crate) start: &'a Start,
    pub(crate) rules: &'a RuleSet,
    pub(crate) max_target: usize,
    pub(crate) tree: &'a Tree,
}

impl Replay<'_> {
    /// Operation `op` of `state`'s alphabet.
    pub(crate) fn op(&self, state: &Cluster, op: u16) -> Event {
        alphabet(self.start, state, self.max_target).swap_remove(usize::from(op))
    }

    /// The state `id` is, from the state of its parent, and the operation between them.
    fn child(&self, parent: &Cluster, id: u32) -> (Event, Cluster) {
        let e = self.op(parent, self.tree.nodes[id as usize].op);
        let mut state = parent.clone();
        let outcome = apply(&mut state, &e, self.rules);
        debug_assert!(!outcome.is_rejected(), "a stored path replays");
        (e, state)
    }

    /// The shortest history found to `from`, then operation `op` of its alphabet.
    pub(crate) fn history(&self, root: &Cluster, from: u32, op: u16) -> History {
        let mut state = root.clone();
        let mut events = self.start.setup.clone();
        for id in self.tree.path(from).into_iter().skip(1) {
            let (e, next) = self.child(&state, id);
            events.push(e);
            state = next;
        }
        events.push(self.op(&state, op));
        let mut history = History::new(self.start.brokers.clone(), events);
        history.eligible_leader_replicas = self.start.elr;
        history.format = history.written_format();
        history
    }
}

/// Rebuilds states one after another, keeping the last path's states: a depth is
/// expanded in number order, where neighbours share their parents, so most states cost
/// one operation.
pub(crate) struct Rebuilder<'a> {
    replay: Replay<'a>,
    /// (number, state) from the start to the last state rebuilt.
    path: Vec<(u32, Cluster)>,
}

impl<'a> Rebuilder<'a> {
    pub(crate) fn new(replay: Replay<'a>, root: &Cluster) -> Rebuilder<'a> {
        Rebuilder {
            replay,
            path: vec![(ROOT, root.clone())],
        }
    }

    pub(crate) fn state(&mut self, id: u32) -> &Cluster {
        let ids = self.replay.tree.path(id);
        let common = self
            .path
            .iter()
            .zip(&ids)
            .take_while(|((have, _), want)| have == *want)
            .count();
        self.path.truncate(common);
        for &next in &ids[common..] {
            let parent = &self.path.last().expect("the start is always kept").1;
            let (_, state) = self.replay.child(parent, next);
            self.path.push((next, state));
        }
        &self.path.last().expect("just rebuilt").1
    }
}

const _: () = assert!(std::mem::size_of::<Node>() == 8);
