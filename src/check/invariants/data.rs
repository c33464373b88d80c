//! The data plane's properties: acknowledged records are never lost, replicas agree on
//! what they have committed, and what a consumer read stays. D1–D5 and V13–V17;
//! docs/model/brokers.md#data-invariants.
//!
//! They judge classic topics (diskless and switching ones have their own rules, INV-*), and
//! stop judging a partition's acknowledgements after an unclean election, where Kafka
//! documents that acknowledged records can be lost (`unclean.leader.election.enable`).
//! Records below `Ghost::deleted_below` were deleted on purpose (DeleteRecords) and are
//! asked of no replica.

use super::{part_view, PartView, Scope, StepView};
use crate::model::broker::{Local, Note};
use crate::model::log::Log;
use crate::model::{AckedRun, Cluster, Ghost};
use crate::rules::RuleSet;

/// Whether a partition's guarantees still hold: an unclean election or an unclean
/// shutdown that lost committed records gives them up (Kafka accepts both).
fn guarantees_hold(g: &Ghost) -> bool {
    !g.unclean_election && !g.committed_lost
}

/// A classic partition whose guarantees still hold: what D1–D3 and D5 judge.
fn judged(v: &PartView) -> bool {
    !v.partition.diskless && guarantees_hold(v.ghost)
}

/// Every partition of a whole state, as views (for the quiescence checks).
fn views<'a>(c: &'a Cluster, scope: &'a Scope<'a>) -> impl Iterator<Item = PartView<'a>> + 'a {
    (0..c.partitions.len()).map(move |i| part_view(c, scope, i))
}

/// The part of `run` at or above `from` (records below it were deleted on purpose).
pub(crate) fn from_offset(run: &AckedRun, from: i64) -> Option<AckedRun> {
    let start = run.start.max(from);
    (start < run.end).then_some(AckedRun { start, ..*run })
}

/// The acknowledged runs of a partition that must still exist.
pub(crate) fn kept_acked(g: &Ghost) -> impl Iterator<Item = AckedRun> + '_ {
    g.acked
        .iter()
        .filter_map(|r| from_offset(r, g.deleted_below))
}

/// The sub-ranges of `run` that `log` holds with the run's epoch, in offset order.
fn held(log: &Log, run: AckedRun) -> impl Iterator<Item = (i64, i64)> + '_ {
    let entries = log.entries();
    entries
        .iter()
        .enumerate()
        .filter(move |(_, e)| e.epoch == run.epoch)
        .filter_map(move |(i, e)| {
            let next = entries.get(i + 1).map_or(log.end(), |n| n.start_offset);
            let (lo, hi) = (
                e.start_offset.max(run.start),
                next.min(run.end).min(log.end()),
            );
            (lo < hi).then_some((lo, hi))
        })
}

/// The first offset of `run` none of `logs` holds. Without a buffer: each pass over the
/// held ranges extends the covered prefix to the furthest range that reaches it, so it
/// stops after at most one pass per range.
pub(super) fn first_missing<'a>(
    logs: impl Iterator<Item = &'a Log> + Clone,
    run: &AckedRun,
) -> Option<i64> {
    let mut covered = run.start;
    while let Some(hi) = logs
        .clone()
        .flat_map(|l| held(l, *run))
        .filter(|&(lo, hi)| lo <= covered && hi > covered)
        .map(|(_, hi)| hi)
        .max()
    {
        covered = hi;
    }
    (covered < run.end).then_some(covered)
}

/// D1: some replica still holds every acknowledged record.
pub(super) fn d1_acked_kept(v: &PartView) -> Option<String> {
    if !judged(v) {
        return None;
    }
    kept_acked(v.ghost).find_map(|run| {
        let o = first_missing(v.runtime.locals.iter().map(|l| &l.log), &run)?;
        Some(format!(
            "acknowledged record {o} (epoch {}) is on no replica",
            run.epoch
        ))
    })
}

/// The leader a client would read from: active and hosting a replica. (A RECOVERING one
/// comes only from an unclean election, after which the partition is not judged.)
fn serving_leader<'a>(v: &PartView<'a>) -> Option<&'a Local> {
    let leader = v.partition.leader;
    v.scope
        .is_active(leader)
        .then(|| v.runtime.local(leader))
        .flatten()
}

/// D2: the live leader holds every acknowledged record.
pub(super) fn d2_leader_holds_acked(v: &PartView) -> Option<String> {
    if !judged(v) {
        return None;
    }
    let leader = serving_leader(v)?;
    kept_acked(v.ghost).find_map(|run| {
        let o = first_missing(std::iter::once(&leader.log), &run)?;
        Some(format!(
            "leader {} lacks acknowledged record {o} (epoch {}); its log {}",
            v.partition.leader,
            run.epoch,
            leader.log.describe()
        ))
    })
}

/// D3: two replicas hold the same records below both their high watermarks. Partitions
/// whose guarantees were given up are skipped (a step may be mid-repair; at quiescence,
/// D4, none is).
pub(super) fn d3_log_matching(v: &PartView) -> Option<String> {
    judged(v).then(|| log_mismatch(v)).flatten()
}

/// Replicas on running brokers: a fenced broker's log is compared once it is back and has
/// had the chance to truncate (its stale tail is not a divergence anyone can read).
fn live_locals<'a>(
    scope: &'a Scope<'a>,
    locals: &'a [Local],
) -> impl Iterator<Item = (usize, &'a Local)> + Clone + 'a {
    locals
        .iter()
        .enumerate()
        .filter(|(_, l)| scope.is_up(l.broker))
}

/// Two live replicas of a classic partition that differ below both high watermarks.
fn log_mismatch(v: &PartView) -> Option<String> {
    if v.partition.diskless {
        return None;
    }
    let locals = &v.runtime.locals;
    live_locals(v.scope, locals).find_map(|(k, a)| {
        live_locals(v.scope, &locals[k + 1..]).find_map(|(_, b)| {
            let committed = a.hw.min(a.leo()).min(b.hw).min(b.leo());
            let at = a.log.diverges_from(&b.log);
            (at < committed).then(|| {
                format!(
                    "{} ({}) and {} ({}) differ at {at}, below both high watermarks",
                    a.broker,
                    a.log.describe(),
                    b.broker,
                    b.log.describe()
                )
            })
        })
    })
}

/// D4: once healed, every replica holds every acknowledged record, and the logs match.
pub(super) fn d4_acked_everywhere(c: &Cluster, _rules: &RuleSet) -> Option<String> {
    let scope = Scope::of(c);
    let missing = views(c, &scope).filter(judged).find_map(|v| {
        let live = (v.runtime.locals.iter()).filter(|l| v.partition.replicas.contains(&l.broker));
        live.into_iter().find_map(|l| {
            kept_acked(v.ghost).find_map(|run| {
                let o = first_missing(std::iter::once(&l.log), &run)?;
                Some(format!(
                    "p{}: replica {} lacks acknowledged record {o} (epoch {}) at quiescence",
                    v.index, l.broker, run.epoch
                ))
            })
        })
    });
    let mismatch =
        || views(c, &scope).find_map(|v| log_mismatch(&v).map(|d| format!("p{}: {d}", v.index)));
    missing.or_else(mismatch)
}

/// D5: a record a consumer could read (the serving leader's high watermark passed it) is
/// never replaced: the serving leader holds it unless it is below the leader's log start,
/// and so does every live replica whose high watermark passes it (above its log start).
pub(super) fn d5_consistent_read(v: &PartView) -> Option<String> {
    if !judged(v) {
        return None;
    }
    let g = v.ghost;
    // The leader must hold every read record; another replica those its HW passes.
    // (The leader is judged once, whole: its HW-bounded check is a part of that.)
    let leader = serving_leader(v);
    let led = leader.map(|l| l.broker);
    let leader = leader.map(|l| (l, i64::MAX));
    let live = live_locals(v.scope, &v.runtime.locals)
        .filter(move |(_, l)| Some(l.broker) != led)
        .map(|(_, l)| (l, l.hw.min(l.leo())));
    leader.into_iter().chain(live).find_map(|(l, below)| {
        let from = g.deleted_below.max(l.log.start());
        g.read.iter().find_map(|run| {
            let run = from_offset(run, from)?;
            let run = AckedRun {
                end: run.end.min(below),
                ..run
            };
            let o = first_missing(std::iter::once(&l.log), &run)?;
            Some(format!(
                "record {o} (epoch {}) was read below the high watermark, but replica {} holds {}",
                run.epoch,
                l.broker,
                l.log.describe()
            ))
        })
    })
}

/// V13: an acks=all produce was acknowledged.
pub(super) fn v13_acknowledged(v: &StepView) -> bool {
    v.next
        .ghosts
        .iter()
        .zip(&v.prev.ghosts)
        .any(|(n, p)| n.acked.len() > p.acked.len())
}

/// V14: a follower truncated its log (rule `truncation`).
pub(super) fn v14_truncated(v: &StepView) -> bool {
    v.outcome
        .notes()
        .iter()
        .any(|n| matches!(n, Note::Truncate { .. }))
}

/// V15: a record no acks=all producer was told is written (acks=1) became readable.
pub(super) fn v15_read_unacked(v: &StepView) -> bool {
    v.next.ghosts.iter().zip(&v.prev.ghosts).any(|(n, p)| {
        n.read_end > p.read_end
            && !n
                .acked
                .iter()
                .any(|a| a.start <= p.read_end && a.end >= n.read_end)
    })
}

/// V16: a follower fetched below its leader's log start and started over there.
pub(super) fn v16_below_log_start(v: &StepView) -> bool {
    v.outcome
        .notes()
        .iter()
        .any(|n| matches!(n, Note::OutOfRange { fetch_offset, to, .. } if to > fetch_offset))
}

/// V17: a power loss lost records a broker had not flushed.
pub(super) fn v17_unflushed_lost(v: &StepView) -> bool {
    let crate::model::Event::RestartBroker {
        broker,
        unclean: true,
        ..
    } = *v.event
    else {
        return false;
    };
    let end = |c: &Cluster, p: usize| c.runtime.partitions[p].local(broker).map(|l| l.leo());
    (0..v.prev.runtime.partitions.len()).any(|p| {
        end(v.next, p)
            .zip(end(v.prev, p))
            .is_some_and(|(n, b)| n < b)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `first_missing` over the union of what each log holds: a record held by no log is
    /// found even when others hold what comes before and after it.
    #[test]
    fn the_first_record_no_log_holds() {
        let run = AckedRun {
            epoch: 2,
            start: 0,
            end: 6,
        };
        let mut a = Log::default();
        a.append(2, 2); // [0,2) in epoch 2
        let mut b = Log::default();
        b.append(1, 3);
        b.append(2, 3); // [3,6) in epoch 2, offset 2 in epoch 1
        assert_eq!(first_missing([&a, &b].into_iter(), &run), Some(2));
        let mut c = Log::default();
        c.append(2, 6);
        assert_eq!(first_missing([&a, &b, &c].into_iter(), &run), None);
        assert_eq!(first_missing(std::iter::empty(), &run), Some(0));
        assert_eq!(held(&b, run).collect::<Vec<_>>(), vec![(3, 6)]);
    }
}
