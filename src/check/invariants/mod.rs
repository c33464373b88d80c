//! Every property isrfuzz checks, in one list. Each entry has an id, a kind, a one-line
//! statement, a rationale and a source; `isrfuzz invariants` prints them.
//!
//! Kinds (stateright's always / eventually / sometimes):
//! - `Always`: checked after every step of every side.
//! - `EventuallyAtQuiescence`: checked once after the history, when the harness has healed
//!   the cluster (every broker back, every replica caught up; see `oracle::heal`).
//! - `Sometimes`: a vacuity check; counted over a run so that a generator that stops
//!   reaching a state is noticed. Never a violation.
//!
//! Ghost values: O = `Ghost::original`, T = `Ghost::target` (docs/model/reassignment.md#ghosts).
//! "At completion" means at every end of a reassignment but an accepted cancel: the
//! completion the builder reports in `PartitionEffect::completion`, a completion by an
//! AlterPartition the broker side sent during the step, and a record that cleared adding and
//! removing without the completion test (docs/model/reassignment.md#ends).
//!
//! Layout: this file holds the types and the walks over the list, which the oracle,
//! `exhaust` and the tests all run (`run_each`; the oracle's memoized step loop, which
//! lets two sides judged on one step share every rule-free result; the one-entry forms of
//! the focused run); `list.rs` holds the one list (its order is the order
//! violations and `sometimes` counts are reported in). The checks live by family: `kraft.rs` (S0–S3, G1–G9,
//! E1, V1–V8), `inkless.rs` (INV-1..INV-9, INV-4b, E2, V9–V12), `data.rs` (the data
//! plane: D1–D5, V13–V17), `elr.rs` (eligible leader replicas: ELR1–ELR5, V18–V20) and
//! `fetcher.rs` (the fetchers' own state: INV-10, V21–V23).

mod data;
mod elr;
mod fetcher;
mod inkless;
mod kraft;
mod list;
mod scope;

/// What the data-plane checks ask of a replica, for a reproducer that asserts the same.
pub(crate) use data::{from_offset, kept_acked};
pub(crate) use elr::leader_candidates;
pub use kraft::{End, How};
pub use list::INVARIANTS;
pub use scope::{all_partitions, part_view, touched, PartSet, PartView, Scope};

use crate::model::{Cluster, Event, Outcome};
use crate::rules::RuleSet;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    Always,
    EventuallyAtQuiescence,
    Sometimes,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Always => "always",
            Kind::EventuallyAtQuiescence => "eventually-at-quiescence",
            Kind::Sometimes => "sometimes",
        }
    }
}

/// One step as the invariants see it. It holds no rule set: a step check that reads the
/// side's rules says so by its kind ([`Check::AtEnd`], [`Check::PartitionUnderRules`]),
/// so two sides judged on the same step can share every other result ([`StepMemo`]).
pub struct StepView<'a> {
    pub prev: &'a Cluster,
    pub next: &'a Cluster,
    pub event: &'a Event,
    pub outcome: &'a Outcome,
}

/// The state before a step as the checks compare it with the state after: for an accepted
/// `delete_topic`, without the deleted topic, so that an index names the same partition in
/// `prev` and `next` (and a deleted reassignment is no reassignment's end). Every other
/// step: `prev` itself. Build each [`StepView`]'s `prev` with this (exhaust needs not:
/// its alphabets delete no topic).
pub fn before_step<'a>(
    prev: &'a Cluster,
    event: &Event,
    outcome: &Outcome,
) -> std::borrow::Cow<'a, Cluster> {
    match *event {
        Event::DeleteTopic { partition } if !outcome.is_rejected() => {
            std::borrow::Cow::Owned(prev.without_topic_of(partition))
        }
        _ => std::borrow::Cow::Borrowed(prev),
    }
}

pub enum Check {
    /// `Some(detail)` when violated.
    Step(fn(&StepView) -> Option<String>),
    /// A check of each reassignment that ended in this step (`kraft::ends`, which reads the
    /// side's rules: an end the builder did not report replays the completion test). The
    /// ends are found once per side and step, for every such entry; the detail names the
    /// partition and how the reassignment ended ([`End::describe`]).
    AtEnd(fn(&End) -> Option<String>),
    /// A step check that is a predicate of one partition of the state after the step
    /// (`scope.rs`): judged on the partitions the step touched, its detail prefixed
    /// with the partition (`p3: ...`).
    Partition(fn(&PartView) -> Option<String>),
    /// [`Check::Partition`] that also reads the side's rules.
    PartitionUnderRules(fn(&PartView, &RuleSet) -> Option<String>),
    Quiescent(fn(&Cluster, &RuleSet) -> Option<String>),
    /// `true` when the interesting thing happened in this step.
    Sometimes(fn(&StepView) -> bool),
}

/// The part of the system a property speaks of.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Plane {
    /// The controller's partition registrations and reassignments.
    Control,
    /// The brokers' replication: logs, acknowledged records, the fetchers.
    Data,
    /// The Inkless broker side: lag, the electable prefix, consolidation, the seal.
    Inkless,
}

/// Who can show a property broken: the model always; the real controller (conformance
/// judges its states) only for the control-plane properties its states hold.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Judge {
    Model,
    RealController,
}

pub const MODEL_ONLY: &[Judge] = &[Judge::Model];
pub const MODEL_AND_CONTROLLER: &[Judge] = &[Judge::Model, Judge::RealController];

pub struct Invariant {
    pub id: &'static str,
    pub kind: Kind,
    pub statement: &'static str,
    pub rationale: &'static str,
    pub source: &'static str,
    /// What breaking it looks like to an operator, in a few words (ticket titles); `None`
    /// for a `Sometimes` counter, which nothing breaks.
    pub headline: Option<&'static str>,
    pub plane: Plane,
    pub judges: &'static [Judge],
    pub check: Check,
}

/// The invariants a JUnit reproducer (`conform --junit`) asserts on the real controller:
/// the control-plane ones the real controller shows on the corpus.
pub const JUNIT_ASSERTED: &[&str] = &[
    "S0", "S1", "S4", "G1", "G2", "G4", "G5", "G6", "G7", "ELR1", "ELR3", "ELR5",
];

pub fn by_id(id: &str) -> Option<&'static Invariant> {
    INVARIANTS.iter().find(|i| i.id == id)
}

/// Whether `id` is judged on the real controller's states too (conformance): the
/// control-plane properties that a controller's registrations alone decide.
pub fn is_control_plane(id: &str) -> bool {
    by_id(id).is_some_and(|i| i.judges.contains(&Judge::RealController))
}

/// The loop over the list: for each entry, in list order, that `skip` does not name,
/// `run` applies the entry's check (`None` when the check is of another kind or found
/// nothing). Yields the entry's index in `INVARIANTS`, its id and what `run` returned.
fn run_each<'a, T>(
    skip: impl Fn(&str) -> bool + 'a,
    run: impl Fn(&Check) -> Option<T> + 'a,
) -> impl Iterator<Item = (usize, &'static str, T)> + 'a {
    INVARIANTS
        .iter()
        .enumerate()
        .filter(move |(_, i)| !skip(i.id))
        .filter_map(move |(n, i)| run(&i.check).map(|t| (n, i.id, t)))
}

/// Every step invariant `view` violates under `rules`, with its detail, in list order.
pub fn step_violations(
    view: &StepView,
    rules: &RuleSet,
) -> impl Iterator<Item = (&'static str, String)> {
    step_violations_except(view, rules, |_| false)
}

/// [`step_violations`] without running the invariants `known` names: a run reports only
/// the first violation of each invariant, so one that already failed need not be checked.
/// The same walk as the oracle's ([`step_violations_memo`]), with a memo of its own.
pub fn step_violations_except(
    view: &StepView,
    rules: &RuleSet,
    known: impl Fn(&str) -> bool,
) -> impl Iterator<Item = (&'static str, String)> {
    let known = (INVARIANTS.iter().enumerate())
        .filter(|(_, i)| known(i.id))
        .fold(0, |set: IdSet, (n, _)| set | 1 << n);
    let memo = &mut StepMemo::default();
    let found = step_violations_memo(view, rules, known, false, memo);
    found.into_iter().map(|(_, id, detail)| (id, detail))
}

/// What the rule-free checks ([`Check::Step`], [`Check::Partition`], [`Check::Sometimes`])
/// found on one step, so that a second side judged on the same (prev, next, event,
/// outcome), as the oracle's two sides are while they share a state, reads those results
/// instead of running the checks again. Both sides must pass the same `prev_judged` (the
/// partitions judged are computed once). Allocation-free unless a check fails.
#[derive(Default)]
pub struct StepMemo {
    /// The step checks that have run on this step.
    ran: IdSet,
    /// The details of those that ran and failed.
    found: Vec<(usize, String)>,
    /// The vacuity properties that fired; `None` until counted once.
    fired: Option<IdSet>,
    /// The partitions the per-partition checks judge; `None` until computed once.
    judged: Option<PartSet>,
}

/// A set of entries of the list, bit n standing for `INVARIANTS[n]`.
pub type IdSet = u64;

/// Every set of entries fits an [`IdSet`].
const _: () = assert!(list::INVARIANTS_LEN <= IdSet::BITS as usize);

/// [`step_violations_except`], reading and filling `memo`: a rule-free check that ran on
/// this step for another side is not run again. `known`: the entries not to run (those
/// this side already violated). `prev_judged`: the side was judged on `view.prev` at its
/// last step, every entry not in `known` holding there, so the per-partition checks
/// judge only the partitions the step touched (`scope.rs`). Yields each violated entry's
/// index, id and detail.
pub fn step_violations_memo(
    view: &StepView,
    rules: &RuleSet,
    known: IdSet,
    prev_judged: bool,
    memo: &mut StepMemo,
) -> Vec<(usize, &'static str, String)> {
    let mut out = Vec::new();
    // The reassignments that ended, found for the first at-end entry left to run.
    let mut ends = None;
    let judged = *memo
        .judged
        .get_or_insert_with(|| judged_partitions(view, prev_judged));
    let scope = Scope::of(view.next);
    let on = Partitions {
        next: view.next,
        scope: &scope,
        judged,
    };
    let todo = kinds().step & !known;
    // Rule-free entries: those not run on this step yet (for another side), then every
    // finding the memo holds for an entry this side still judges.
    for n in bits(todo & kinds().rule_free & !memo.ran) {
        memo.ran |= 1 << n;
        if let Some(d) = on.rule_free(view, &INVARIANTS[n].check) {
            memo.found.push((n, d));
        }
    }
    let found = memo.found.iter().filter(|(n, _)| todo & 1 << n != 0);
    out.extend(found.map(|(n, d)| (*n, INVARIANTS[*n].id, d.clone())));
    // Entries that read the side's rules: never shared.
    for n in bits(todo & !kinds().rule_free) {
        let found = match INVARIANTS[n].check {
            Check::AtEnd(check) => {
                let ends = ends.get_or_insert_with(|| kraft::ends(view, rules));
                first_end(ends, check)
            }
            Check::PartitionUnderRules(check) => on.first(|p| check(p, rules)),
            _ => None,
        };
        out.extend(found.map(|d| (n, INVARIANTS[n].id, d)));
    }
    // In list order, as one walk over the list reports them.
    out.sort_unstable_by_key(|&(n, ..)| n);
    out
}

/// The first of a step's reassignment ends an at-end check finds violated, described.
fn first_end(ends: &[End], check: fn(&End) -> Option<String>) -> Option<String> {
    ends.iter().find_map(|e| check(e).map(|d| e.describe(d)))
}

/// The members of a set of list entries (or of partitions, [`PartSet`]), lowest first.
fn bits(mut set: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        let n = (set != 0).then(|| set.trailing_zeros() as usize)?;
        set &= set - 1;
        Some(n)
    })
}

/// The partitions the per-partition checks judge on a step: those it [`touched`] when the
/// side was judged on the state before it, else all. A rejected request changes nothing
/// (`model::Outcome::Rejected`; asserted in debug builds), so it touched none, and the
/// deep comparison is not needed.
fn judged_partitions(view: &StepView, prev_judged: bool) -> PartSet {
    let rejected = view.outcome.is_rejected();
    debug_assert!(
        !rejected || view.prev == view.next,
        "a rejected request changed the state: {:?}",
        view.event
    );
    match prev_judged {
        true if rejected => 0,
        true => touched(view.prev, view.next),
        false => all_partitions(view.next),
    }
}

/// The partitions a step's per-partition checks judge.
struct Partitions<'a> {
    next: &'a Cluster,
    scope: &'a Scope<'a>,
    judged: PartSet,
}

impl Partitions<'_> {
    /// The first judged partition, in index order, `check` finds violated, with its detail
    /// prefixed by the partition.
    fn first(&self, check: impl Fn(&PartView) -> Option<String>) -> Option<String> {
        bits(self.judged.into())
            .find_map(|i| check(&part_view(self.next, self.scope, i)).map(|d| format!("p{i}: {d}")))
    }

    /// A rule-free step check's finding (`None` for another kind).
    fn rule_free(&self, view: &StepView, check: &Check) -> Option<String> {
        match *check {
            Check::Step(check) => check(view),
            Check::Partition(check) => self.first(check),
            _ => None,
        }
    }
}

/// The entries of each kind of check, as sets (computed once from the list).
struct Kinds {
    /// `Check::Step`, `Check::AtEnd`, `Check::Partition` and `Check::PartitionUnderRules`.
    step: IdSet,
    /// The step entries that read no rules (`Check::Step`, `Check::Partition`): what
    /// [`StepMemo`] shares between the sides.
    rule_free: IdSet,
    sometimes: IdSet,
}

fn kinds() -> &'static Kinds {
    static KINDS: std::sync::OnceLock<Kinds> = std::sync::OnceLock::new();
    KINDS.get_or_init(|| {
        let of = |keep: fn(&Check) -> bool| {
            (INVARIANTS.iter().enumerate())
                .filter(|(_, i)| keep(&i.check))
                .fold(0, |set: IdSet, (n, _)| set | 1 << n)
        };
        Kinds {
            step: of(|c| {
                matches!(
                    c,
                    Check::Step(_)
                        | Check::AtEnd(_)
                        | Check::Partition(_)
                        | Check::PartitionUnderRules(_)
                )
            }),
            rule_free: of(|c| matches!(c, Check::Step(_) | Check::Partition(_))),
            sometimes: of(|c| matches!(c, Check::Sometimes(_))),
        }
    })
}

/// One entry's step check alone (`None` for another kind), for a run that judges one
/// invariant (`check::focused`). `prev_judged` as for [`step_violations_memo`].
pub fn step_violation_of(
    entry: &Invariant,
    view: &StepView,
    rules: &RuleSet,
    prev_judged: bool,
) -> Option<String> {
    let scope = Scope::of(view.next);
    let on = || Partitions {
        next: view.next,
        scope: &scope,
        judged: judged_partitions(view, prev_judged),
    };
    match entry.check {
        Check::Step(check) => check(view),
        Check::AtEnd(check) => first_end(&kraft::ends(view, rules), check),
        Check::Partition(check) => on().first(check),
        Check::PartitionUnderRules(check) => on().first(|p| check(p, rules)),
        _ => None,
    }
}

/// The premise of every quiescence invariant: healing brought every broker back. A broker
/// whose registration throws in the controller never comes back (S4 reports that), and
/// no quiescence property is judged on a cluster that could not heal. Nor with a failed
/// log directory: only a restart brings it back, healing does not restart brokers (a
/// restart has quiescence findings of its own), and its replicas there stay out.
fn healed(c: &Cluster) -> bool {
    c.runtime.unregistered.is_empty() && c.offline_dirs.iter().all(|&(_, _, f)| f == 0)
}

/// One entry's quiescence check alone (`None` for another kind).
pub fn quiescent_violation_of(entry: &Invariant, c: &Cluster, rules: &RuleSet) -> Option<String> {
    match entry.check {
        Check::Quiescent(check) if healed(c) => check(c, rules),
        _ => None,
    }
}

/// Every quiescence invariant `c` violates, with its detail, in list order.
pub fn quiescent_violations<'a>(
    c: &'a Cluster,
    rules: &'a RuleSet,
) -> impl Iterator<Item = (&'static str, String)> + 'a {
    quiescent_violations_except(c, rules, |_| false)
}

/// [`quiescent_violations`] without running the invariants `known` names.
pub fn quiescent_violations_except<'a>(
    c: &'a Cluster,
    rules: &'a RuleSet,
    known: impl Fn(&str) -> bool + 'a,
) -> impl Iterator<Item = (&'static str, String)> + 'a {
    let check = move |k: &Check| match *k {
        Check::Quiescent(check) if healed(c) => check(c, rules),
        _ => None,
    };
    run_each(known, check).map(|(_, id, detail)| (id, detail))
}

/// Whether a quiescence invariant is left that `known` does not name. Healing a state
/// replays a dozen or more events, so `exhaust` heals only when something is left to judge.
pub fn quiescent_pending(known: impl Fn(&str) -> bool) -> bool {
    let quiescent = |c: &Check| matches!(c, Check::Quiescent(_)).then_some(());
    run_each(known, quiescent).next().is_some()
}

/// Add one to `counts[n]` for each `Sometimes` property `INVARIANTS[n]` that fired on
/// `view` (`counts` is indexed like `INVARIANTS`).
pub fn count_sometimes(view: &StepView, counts: &mut [u32]) {
    count_sometimes_from(view, counts, &mut [], 0);
}

/// [`count_sometimes`], noting in `first` (when it is as long as `counts`) the step
/// `step` for each property that fires for the first time.
pub fn count_sometimes_from(view: &StepView, counts: &mut [u32], first: &mut [u32], step: u32) {
    count_sometimes_memo(view, counts, first, step, &mut StepMemo::default());
}

/// [`count_sometimes_from`], reading and filling `memo` (the properties read no rules, so
/// which fired on a step is the same for every side judged on it).
pub fn count_sometimes_memo(
    view: &StepView,
    counts: &mut [u32],
    first: &mut [u32],
    step: u32,
    memo: &mut StepMemo,
) {
    let fired = *memo.fired.get_or_insert_with(|| {
        let (mut todo, mut fired) = (kinds().sometimes, 0);
        while todo != 0 {
            let n = todo.trailing_zeros() as usize;
            todo &= todo - 1;
            if let Check::Sometimes(check) = INVARIANTS[n].check {
                fired |= IdSet::from(check(view)) << n;
            }
        }
        fired
    });
    let mut bits = fired;
    while bits != 0 {
        let n = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        if counts[n] == 0 {
            if let Some(f) = first.get_mut(n) {
                *f = step;
            }
        }
        counts[n] += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every property that can be broken says so in words; the model judges everything;
    /// the real controller judges only control-plane properties.
    #[test]
    fn every_entry_fills_headline_plane_and_judges() {
        for i in INVARIANTS {
            match (i.kind, i.headline) {
                (Kind::Sometimes, h) => assert_eq!(h, None, "{}: a counter has no headline", i.id),
                (_, Some(h)) => assert!(!h.trim().is_empty(), "{}: empty headline", i.id),
                (_, None) => panic!("{}: no headline", i.id),
            }
            assert!(i.judges.contains(&Judge::Model), "{}", i.id);
            if i.judges.contains(&Judge::RealController) {
                assert_eq!(i.plane, Plane::Control, "{}", i.id);
            }
        }
    }

    /// The properties conformance judges on the real controller's states.
    #[test]
    fn the_control_plane_is_the_registrations_properties() {
        let judged: Vec<&str> = (INVARIANTS.iter().map(|i| i.id))
            .filter(|id| is_control_plane(id))
            .collect();
        let by_prefix = |id: &str| {
            id.starts_with('S')
                || id.starts_with('G')
                || matches!(id, "E1" | "ELR1" | "ELR2" | "ELR3" | "ELR5")
        };
        let expected: Vec<&str> = (INVARIANTS.iter().map(|i| i.id))
            .filter(|id| by_prefix(id))
            .collect();
        assert_eq!(judged, expected);
        assert!(!is_control_plane("no-such-id"));
    }
}
