//! Time on the broker side: the clock, the background activity between events
//! (consolidation appends, follower fetches) and the `isr-expiration` task (rules `shrink`
//! and `lag`).

use super::{
    alter_isr, append_diskless, diskless_epoch, follower_fetch, lost_prefix, refresh_in_sync, Note,
    NO_DISKLESS_LOG,
};
use crate::model::{BrokerId, Cluster, Rules, NO_LEADER};

/// Advance the clock by `ms`, in steps that stop at every run of the ISR-expiration task
/// (every `replica.lag.time.max.ms / 2`). Before each step, the background activity runs:
/// consolidation appends, then follower fetches, for every broker that is up and not stalled.
/// The notes a long step leaves are bounded ([`NOTES_KEPT_MAX`], [`NOTES_MAX`]); the work
/// is bounded by the history format's budget of task runs (`check::history`).
pub fn advance_time(c: &mut Cluster, rules: &dyn Rules, ms: i64, notes: &mut Vec<Note>) {
    let period = (c.runtime.config.replica_lag_time_max_ms / 2).max(1);
    if c.runtime.next_expiration_ms == 0 {
        c.runtime.next_expiration_ms = period;
    }
    let end = c.runtime.now_ms.saturating_add(ms.max(0));
    let mut kept = Kept::default();
    let mut run = Vec::new();
    loop {
        background(c, rules, &mut run);
        let next = c.runtime.next_expiration_ms.min(end);
        c.runtime.now_ms = next;
        if next == c.runtime.next_expiration_ms {
            isr_expiration(c, rules, &mut run);
            c.runtime.next_expiration_ms += period;
        }
        kept.absorb(notes, &mut run);
        if c.runtime.now_ms >= end {
            break;
        }
    }
    background(c, rules, &mut run);
    kept.absorb(notes, &mut run);
    kept.finish(notes);
}

/// Notes of one step kept as they come; past this, a note equal to one already kept is
/// counted, not kept (every note-based invariant judges each note on its own against the
/// step's end state, so a repeat changes no verdict).
pub const NOTES_KEPT_MAX: usize = 1024;
/// Notes of one step kept at all; past this, notes are counted only (`Note::Elided`).
pub const NOTES_MAX: usize = 4096;

#[derive(Default)]
struct Kept {
    seen: std::collections::HashSet<Note>,
    repeats: u64,
    over_cap: u64,
}

impl Kept {
    fn absorb(&mut self, notes: &mut Vec<Note>, run: &mut Vec<Note>) {
        // Under the cap every note is kept as it comes: one move, not a push a note.
        if notes.len() + run.len() <= NOTES_KEPT_MAX {
            notes.append(run);
            return;
        }
        for n in run.drain(..) {
            if notes.len() < NOTES_KEPT_MAX {
                notes.push(n);
                continue;
            }
            if self.seen.is_empty() {
                self.seen.extend(notes.iter().cloned());
            }
            if self.seen.contains(&n) {
                self.repeats += 1;
            } else if notes.len() < NOTES_MAX {
                self.seen.insert(n.clone());
                notes.push(n);
            } else {
                self.over_cap += 1;
            }
        }
    }

    fn finish(self, notes: &mut Vec<Note>) {
        if self.repeats + self.over_cap > 0 {
            notes.push(Note::Elided {
                repeats: self.repeats,
                over_cap: self.over_cap,
            });
        }
    }
}

/// Rounds of fetches per step: a fetch can admit a follower, whose next fetch then moves
/// the high watermark. Bounded so a step always ends.
const FETCH_ROUNDS: usize = 2;

fn background(c: &mut Cluster, rules: &dyn Rules, notes: &mut Vec<Note>) {
    refresh_in_sync(c);
    for p in 0..c.partitions.len() {
        consolidate(c, p, notes);
    }
    // The followers of a partition, listed before its fetches (a fetch can change the
    // replicas); one buffer for every partition and round.
    let mut followers: Vec<BrokerId> = Vec::new();
    for _ in 0..FETCH_ROUNDS {
        for p in 0..c.partitions.len() {
            followers.clear();
            let locals = &c.runtime.partitions[p].locals;
            followers.extend(
                locals
                    .iter()
                    .filter(|l| l.fetchers.classic.is_some())
                    .map(|l| l.broker),
            );
            for &r in &followers {
                follower_fetch(c, rules, p, r, notes);
            }
        }
    }
    refresh_in_sync(c);
}

/// E3: every replica on the consolidation fetcher appends up to the diskless log end;
/// its high watermark follows the diskless one. Never touches the leader's records.
fn consolidate(c: &mut Cluster, p: usize, notes: &mut Vec<Note>) {
    // An aborted switch has no diskless log: the fetch from object storage fails
    // (`DisklessLeaderEndPoint.fetch`, UNKNOWN_TOPIC_OR_PARTITION), and nothing is appended
    // or raises a high watermark.
    if c.runtime.partitions[p].diskless_end == NO_DISKLESS_LOG {
        return;
    }
    // By position: appending from object storage adds or drops no replica.
    for i in 0..c.runtime.partitions[p].locals.len() {
        let b = c.runtime.partitions[p].locals[i].broker;
        if !c.is_up(b) || c.runtime.stalled.contains(&b) {
            continue;
        }
        let rt = &mut c.runtime.partitions[p];
        let end = rt.diskless_end;
        let epoch = diskless_epoch(&c.partitions[p]);
        let local = &mut rt.locals[i];
        if let Some(fetch_offset) = consolidation_check_failed(local, end) {
            notes.push(Note::FetchFailed {
                partition: p,
                follower: local.broker,
                fetch_offset,
                log_end: local.leo(),
                consolidation: true,
            });
            local.fail_consolidation();
            continue;
        }
        if local.fetchers.consolidation.is_some() && local.leo() < end {
            // Consolidated batches carry the diskless leader epoch, older than the epoch a
            // leader elected since assigned at its end (an entry with no records). Appending
            // an older epoch drops every entry of that epoch or later
            // (`LeaderEpochFileCache.assign`); the model's log is also the records' epochs,
            // so only the empty entry goes and the consolidated records keep E_d
            // (docs/model/inkless.md#differences-from-upstream).
            append_diskless(&mut local.log, epoch, end);
            local.consolidation_at_log_end();
        }
        if local.fetchers.consolidation.is_some() {
            local.hw = end.min(local.leo());
        }
    }
}

/// The consolidation fetcher's append check (`ConsolidationFetcherThread` inherits
/// `ReplicaFetcherThread.processPartitionData`): an answer from object storage at a fetch
/// offset other than the log end fails it, and the partition is marked failed. Assumed, not
/// read in Inkless's diskless fetch: an offset past the diskless end is answered
/// OFFSET_OUT_OF_RANGE, and the fetcher starts again at its log end, as
/// `fetchOffsetAndTruncate` does for a log within the leader's range. Returns the fetch
/// offset that failed.
fn consolidation_check_failed(local: &mut super::Local, diskless_end: i64) -> Option<i64> {
    let offset = local.fetchers.consolidation?.offset;
    if offset == local.leo() {
        return None;
    }
    if offset > diskless_end {
        local.consolidation_at_log_end();
        return None;
    }
    Some(offset)
}

/// The `isr-expiration` task on every leader (rules `shrink` and `lag`).
fn isr_expiration(c: &mut Cluster, rules: &dyn Rules, notes: &mut Vec<Note>) {
    let now = c.runtime.now_ms;
    super::tell(rules, || super::BrokerCall::Expire {
        now_ms: now,
        brokers: (c.brokers.iter())
            .map(|&(b, _)| b)
            .filter(|&b| c.is_up(b))
            .collect(),
    });
    let lag = c.runtime.config.replica_lag_time_max_ms;
    for p in 0..c.partitions.len() {
        let part = &c.partitions[p];
        if part.leader == NO_LEADER || !c.is_up(part.leader) {
            continue;
        }
        let Some(cap) = rules.isr_shrink_cap(part) else {
            continue;
        };
        let rt = &c.runtime.partitions[p];
        let Some(state) = rt
            .leader
            .as_ref()
            .filter(|s| s.leader_epoch == part.leader_epoch)
        else {
            continue;
        };
        let lead = rt.local(state.broker).expect("listed");
        if lost_prefix(&c.runtime.config, part, lead) {
            continue;
        }
        let leader_leo = lead.leo();
        let removed: Vec<(BrokerId, i64)> = part
            .isr
            .iter()
            .filter(|&&r| r != part.leader)
            .filter_map(|&r| match state.rec(r) {
                Some(rec) => rules
                    .out_of_sync(rec, leader_leo, cap, now, lag)
                    .then_some((r, rec.leo)),
                None => Some((r, -1)),
            })
            .collect();
        if removed.is_empty() {
            continue;
        }
        let isr: Vec<BrokerId> = part
            .isr
            .iter()
            .copied()
            .filter(|r| !removed.iter().any(|(x, _)| x == r))
            .collect();
        let leader = part.leader;
        if alter_isr(c, rules, p, isr) {
            notes.push(Note::Shrink {
                partition: p,
                leader,
                removed,
            });
        }
    }
}
