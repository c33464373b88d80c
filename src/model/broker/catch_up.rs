//! The history's own AlterPartition expansions, made true on the broker side: each added
//! follower fetched until it had the leader's end, and the leader recorded it there.

use super::{append_diskless, diskless_epoch, fetch, tell, BrokerCall};
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

/// An explicit `alter_partition` event is the history asserting that the leader saw the
/// added followers caught up (it is how controller-only histories move replicas into the
/// ISR). Make the broker side agree: each added follower's log reaches the leader's end.
/// Expansions the broker side earns itself (fetch → `maybe_expand_isr`) do not come here.
/// The records come from the leader that sent the request (`leader_before`): a completion
/// in the same record may already have moved leadership to an added follower.
pub fn caught_up_by_assertion(
    c: &mut Cluster,
    rules: &dyn Rules,
    p: usize,
    isr_before: &[BrokerId],
    leader_before: BrokerId,
) {
    let part = &c.partitions[p];
    let Some(rt) = c.runtime.partitions.get_mut(p) else {
        return;
    };
    let leader_log = rt
        .local(leader_before)
        .map(|l| l.log.clone())
        .unwrap_or_default();
    let leader_hw = rt.local(leader_before).map(|l| l.hw);
    let target = leader_log.end().max(part.seal);
    for &r in part.isr.iter().filter(|r| !isr_before.contains(r)) {
        if let Some(l) = rt.local_mut(r) {
            tell(rules, || BrokerCall::CatchUp {
                partition: p,
                follower: r,
                leader: leader_before,
            });
            // Caught up means the follower fetched until it had the leader's end: on a
            // classic topic it truncated on the way as its generation does (rule
            // `truncation`; before KIP-101 a diverged tail stays).
            if !part.diskless {
                l.log = reconciled(rules, &l.log, l.hw, &leader_log);
                l.hw = l.hw.min(l.leo());
            } else {
                // An epoch it assigned at its end as leader and never wrote in goes first:
                // its first fetch names that epoch, the leader cannot place it and the
                // answer truncates to the end, which drops such an entry. Kept, the
                // leader's older-epoch records would be appended after it and the cache
                // would drop the entries below them (`LeaderEpochFileCache.assign`),
                // leaving records with no epoch.
                let end = l.leo();
                l.log.truncate_to(end);
            }
            l.log.copy_from(&leader_log, target);
            // Its fetches also brought the leader's log start (`processPartitionData`), which
            // deletes any diverged records still below it; the high watermark is raised to
            // the start if below (`UnifiedLog.updateLogStartOffset`).
            l.log.increment_start(leader_log.start());
            l.hw = l.hw.max(l.log.start());
            if let (false, Some(hw)) = (part.diskless, leader_hw) {
                // The last of those fetches carried the leader's high watermark, which the
                // follower takes, clamped to its log (`processPartitionData`, as a fetch
                // step's `take_watermarks`): found by the real brokers of 4.0.2 and 4.4.0,
                // where a follower caught up this way knows the leader's high watermark.
                l.hw = hw.clamp(l.log.start(), l.leo());
            }
            if l.leo() < target {
                // Classic records below the seal that the leader lost: they come back the
                // way a consolidating leader rebuilds them, stamped E_d (never a later epoch:
                // the prefix predates the seal, and a consolidation append of E_d would drop
                // a later epoch's entry and leave these records with none,
                // docs/model/brokers.md#asserted-catch-up).
                append_diskless(&mut l.log, diskless_epoch(part), target);
            }
            // The records came by the follower's own fetches (and rebuild): its fetchers
            // continue from the end, as after their own appends.
            l.fetchers_follow_cut();
            l.in_sync_ms = c.runtime.now_ms;
        }
    }
    record_catch_up(c, p, isr_before, leader_before);
}

/// The catch-up's fetches reached the leader that answered them: its last one, at the
/// leader's end, is recorded on the leader's state of the follower (`Replica.updateFetchStateOrThrow`
/// via `Partition.fetchRecords`), which makes the follower caught up now, its broker epoch
/// current, and may move the high watermark. Found by the real brokers of 4.4.0: the
/// leader, recording none, stopped waiting for a follower the real leader still counted as
/// caught up after a later shrink (`broker:hw`, `broker:fault+proposals`). Classic
/// partitions only: a diskless replica's records come from the shared log, not the leader.
fn record_catch_up(c: &mut Cluster, p: usize, isr_before: &[BrokerId], leader_before: BrokerId) {
    let part = &c.partitions[p];
    let answered = c.runtime.partitions[p]
        .leader
        .as_ref()
        .is_some_and(|l| l.broker == leader_before);
    // A leader the same request replaced (a completion) loses its state at the next delta:
    // its high watermark is not raised on the registration that replaced it.
    if part.diskless || !answered || part.leader != leader_before {
        return;
    }
    let added: Vec<BrokerId> = part
        .isr
        .iter()
        .copied()
        .filter(|r| !isr_before.contains(r))
        .collect();
    for r in added {
        let rt = &c.runtime.partitions[p];
        let (Some(f), Some(lead)) = (rt.local(r), rt.local(leader_before)) else {
            continue;
        };
        let (at, leader_leo) = (f.leo(), lead.leo());
        fetch::record_fetch(c, p, r, at, leader_leo);
    }
}
