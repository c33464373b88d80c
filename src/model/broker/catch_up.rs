//! The history's own AlterPartition expansions, made true on the broker side: each added
//! follower fetched until it had the leader's end, and the leader recorded it there.

use super::Local;
use super::{append_diskless, diskless_epoch, hw, tell, BrokerCall};
use crate::model::log::{FetchPosition, Log};
use crate::model::{BrokerId, Cluster, Rules};

/// A follower's log after it reconciled with `leader` by fetching (rule `truncation`): the
/// fetch-path check until the leader answers no diverging epoch, or the Truncating state's
/// cut. Only the cuts those answers make touch it: a follower the leader finds no
/// divergence with keeps an epoch it assigned at its end (found by the real brokers of
/// 4.4.0, where no truncation runs then). Bounded: each round cuts the log.
fn reconciled(rules: &dyn Rules, log: &Log, hw: i64, leader: &Log) -> Log {
    const ROUNDS_MAX: usize = 64;
    let mut log = log.clone();
    for _ in 0..ROUNDS_MAX {
        let Some(to) = rules.diverging_fetch(&log, hw, FetchPosition::end_of(&log), leader) else {
            break;
        };
        // A cut at the end still drops an epoch assigned there: progress either way.
        let before = log.clone();
        log.truncate_to(to);
        if log == before {
            break;
        }
    }
    if rules.truncates_before_fetch(true, true) {
        let to = rules.truncate_before_fetch(&log, hw, leader);
        log.truncate_to(to);
    }
    log
}

/// The registration the sender of a history's AlterPartition had applied when it sent it.
#[derive(Clone, Copy)]
pub struct Applied<'a> {
    pub replicas: &'a [BrokerId],
    pub isr: &'a [BrokerId],
    pub leader: BrokerId,
}

/// An explicit `alter_partition` event is the history asserting that the leader saw the
/// added followers caught up (it is how controller-only histories move replicas into the
/// ISR). Make the broker side agree: each added follower, in the request's order, fetched
/// until it had the leader's end, and the leader recorded it there.
/// Expansions the broker side earns itself (fetch → `maybe_expand_isr`) do not come here.
/// The records come from the leader that sent the request (`leader_before`): a completion
/// in the same record may already have moved leadership to an added follower.
pub fn caught_up_by_assertion(c: &mut Cluster, rules: &dyn Rules, p: usize, before: Applied) {
    let (isr_before, leader_before) = (before.isr, before.leader);
    let Some(part) = c.partitions.get(p) else {
        return;
    };
    let added: Vec<BrokerId> = (part.isr.iter().copied())
        .filter(|r| !isr_before.contains(r))
        .collect();
    for r in added {
        let hosted = (c.runtime.partitions.get(p)).is_some_and(|rt| rt.local(r).is_some());
        if hosted {
            let now_ms = c.runtime.now_ms;
            tell(rules, || BrokerCall::CatchUp {
                partition: p,
                follower: r,
                leader: leader_before,
                now_ms,
            });
            catch_up(c, rules, p, r, &before);
        }
    }
}

/// One added follower's catch-up from `leader`.
fn catch_up(c: &mut Cluster, rules: &dyn Rules, p: usize, r: BrokerId, before: &Applied) {
    let leader = before.leader;
    let part = &c.partitions[p];
    let rt = &c.runtime.partitions[p];
    let leader_log = rt.local(leader).map(|l| l.log.clone()).unwrap_or_default();
    let target = leader_log.end().max(part.seal);
    let (diskless, seal_epoch) = (part.diskless, diskless_epoch(part));
    if !diskless {
        // Caught up means the follower fetched until it had the leader's end: on a classic
        // topic it truncated on the way as its generation does (rule `truncation`; before
        // KIP-101 a diverged tail stays). Its first fetch after that, at its end (or, out of
        // range, at the leader's log start), is recorded by the leader.
        let l = c.runtime.partitions[p].local_mut(r).expect("hosted");
        l.log = reconciled(rules, &l.log, l.hw, &leader_log);
        // Its fetch at its end, outside the leader's range, is answered
        // OFFSET_OUT_OF_RANGE (no diverging epoch: its log has none the leader could
        // place), and the fetcher fits the log to the range. Found by the real brokers of
        // 4.0.2 to 4.4.0 past the end: a follower restarted at a DeleteRecords'd log start
        // of 10 caught up to an uncleanly elected empty leader and ended at 0, where the
        // model kept 10.
        l.log.fit_to_range_of(&leader_log);
        l.hw = l.hw.min(l.leo());
        let at = l.leo();
        if at < leader_log.end() {
            record(c, p, r, at, before);
        }
    }
    // The answer to its last fetch carries the leader's high watermark as it was before
    // that fetch was recorded.
    let leader_hw = c.runtime.partitions[p].local(leader).map(|l| l.hw);
    let l = c.runtime.partitions[p].local_mut(r).expect("hosted");
    if diskless {
        // An epoch it assigned at its end as leader and never wrote in goes first: its
        // first fetch names that epoch, the leader cannot place it and the answer truncates
        // to the end, which drops such an entry. Kept, the leader's older-epoch records
        // would be appended after it and the cache would drop the entries below them
        // (`LeaderEpochFileCache.assign`), leaving records with no epoch.
        let end = l.leo();
        l.log.truncate_to(end);
    }
    l.log.copy_from(&leader_log, target);
    // Its fetches also brought the leader's log start (`processPartitionData`), which
    // deletes any diverged records still below it; the high watermark is raised to the
    // start if below (`UnifiedLog.updateLogStartOffset`).
    l.log.increment_start(leader_log.start());
    l.hw = l.hw.max(l.log.start());
    if let (false, Some(hw)) = (diskless, leader_hw) {
        // The follower takes it, clamped to its log (`processPartitionData`, as a fetch
        // step's `take_watermarks`): found by the real brokers of 4.0.2 and 4.4.0.
        l.hw = hw.clamp(l.log.start(), l.leo());
    }
    if l.leo() < target {
        // Classic records below the seal that the leader lost: they come back the way a
        // consolidating leader rebuilds them, stamped E_d (never a later epoch: the prefix
        // predates the seal, and a consolidation append of E_d would drop a later epoch's
        // entry and leave these records with none, docs/model/brokers.md#asserted-catch-up).
        append_diskless(&mut l.log, seal_epoch, target);
    }
    // The records came by the follower's own fetches (and rebuild): its fetchers continue
    // from the end, as after their own appends.
    l.fetchers_follow_cut();
    l.in_sync_ms = c.runtime.now_ms;
    if !diskless {
        let end = l.leo();
        record(c, p, r, end, before);
    }
}

/// A catch-up fetch at `at` reached the leader that answered it, and is recorded on the
/// leader's state of the follower (`Replica.updateFetchStateOrThrow` via
/// `Partition.fetchRecords`): the last one, at the leader's end, makes the follower caught
/// up now and its broker epoch current, and either may move the high watermark, over the ISR
/// the leader has before the request's answer. Found by the real brokers of 4.4.0: the
/// leader, recording none, stopped waiting for a follower the real leader still counted as
/// caught up after a later shrink (`broker:hw`, `broker:fault+proposals`), and the next
/// added follower took a high watermark the first one's catch-up had not moved. Classic
/// partitions only: a diskless replica's records come from the shared log.
fn record(c: &mut Cluster, p: usize, r: BrokerId, at: i64, before: &Applied) {
    let leader = before.leader;
    let rt = &c.runtime.partitions[p];
    // The leader that answered the fetches: a completion in the same request has replaced
    // it in the registration, but it answers the catch-ups before it applies that (and
    // raises its high watermark, which later followers' fetches carry: found by the real
    // brokers of 4.2.2, a reassignment completed by a history's AlterPartition).
    let answered = rt.leader.as_ref().is_some_and(|l| l.broker == leader);
    if !answered {
        return;
    }
    let Some(leader_leo) = rt.local(leader).map(Local::leo) else {
        return;
    };
    let leader_hw = rt.local(leader).map_or(0, |l| l.hw);
    let now = c.runtime.now_ms;
    let state = c.runtime.partitions[p].leader.as_mut().expect("answered");
    let epoch_start = state.leader_epoch_start_offset;
    let rec = state.rec_mut(r);
    let was = rec.leo;
    rec.update(at, now, leader_leo);
    // The leader sends the expansion the history asserts on the first recorded fetch that
    // finds the follower in sync (`isFollowerInSync`: at or past the high watermark and
    // the leader epoch's start, not at the leader's end), and from then waits for it
    // (`maximalIsr`) before the answer comes. Found by the real brokers of 4.4.0: a
    // follower recorded at the high watermark 0 of a 100-record log held the high
    // watermark until the expansion completed, where the model raised it at once.
    if rec.leo != was {
        let mut maximal = before.isr.to_vec();
        if at >= leader_hw && at >= epoch_start && !maximal.contains(&r) {
            maximal.push(r);
        }
        hw::maybe_increment_leader_hw_in(c, p, before.replicas, before.isr, &maximal);
    }
}
