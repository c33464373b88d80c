//! One follower fetch (E4): the leader's answer (rule `seal-fetch`), its record of the
//! follower, the follower's processing of the answer (eviction at the seal), and the ISR
//! expansion the fetch can earn (rule `seal-admission`).

use super::hw::maybe_increment_leader_hw;
use super::{
    active_unstalled, alter_isr, consolidating, lost_prefix, AtSealAnswer, Note, ReplicaState,
};
use crate::model::log::{FetchPosition, Log, OutOfRange};
use crate::model::{BrokerId, Cluster, Rules, NO_LEADER};
use std::cmp::Ordering;

/// A follower fetch the leader answers: from where, against which leader log end, and
/// whether the local log answers it (else the at-seal branch).
struct FetchRequest {
    leader: BrokerId,
    /// The classic fetcher's position (`PartitionFetchState`): its log end unless the log
    /// was cut under it.
    at: FetchPosition,
    leader_leo: i64,
    seal: i64,
    local_path: bool,
    /// The at-seal branch's answer (rule `seal-admission`); meaningful off the local path.
    at_seal: AtSealAnswer,
    /// The follower fetcher's leader epoch against the leader's (`checkCurrentLeaderEpoch`).
    epoch_check: Ordering,
}

/// E4: one classic fetch from follower `r` at its fetcher's position, answered by the leader
/// and applied on the follower (`ReplicaManager.fetchMessages`, rule `seal-fetch`; then
/// `AbstractFetcherThread.processFetchRequest` and `ReplicaFetcherThread.processPartitionData`).
pub fn follower_fetch(
    c: &mut Cluster,
    rules: &dyn Rules,
    p: usize,
    r: BrokerId,
    notes: &mut Vec<Note>,
) {
    let Some(req) = fetch_request(c, rules, p, r) else {
        return;
    };
    super::tell(rules, || super::BrokerCall::Fetch {
        partition: p,
        follower: r,
        leader: req.leader,
        now_ms: c.runtime.now_ms,
    });
    if answered_with_error(c, rules, p, r, &req, notes) {
        return;
    }
    let Some(req) = truncation_round(c, rules, p, r, req, notes) else {
        return;
    };
    let (o, leader_leo) = (req.at.offset, req.leader_leo);
    let Some((records, hw, recorded_at)) = answer(c, p, r, &req, notes) else {
        return;
    };
    // The answer carries the high watermark as the leader had it before this fetch moved it
    // (`Partition.readRecords` reads it first): a follower learns of an advance one fetch
    // later.
    let leader_hw_before = c.runtime.partitions[p]
        .local(req.leader)
        .expect("listed")
        .hw;
    let moved = recorded_at.is_some_and(|at| record_fetch(c, p, r, at, leader_leo));
    let hw = hw.unwrap_or(leader_hw_before);
    if failed_append_check(c, p, r, o, notes) {
        // The leader recorded the fetch before answering; its ISR expansion does not wait
        // for the follower's append.
        if recorded_at.is_some() {
            expand_then_hw(c, rules, p, r, !req.local_path, moved, notes);
        }
        return;
    }
    if records > 0 {
        let (leader_log, f) = follower_and_leader_log(c, p, r, req.leader);
        f.log.copy_from(leader_log, o + records);
        // `processPartitionData`: the next fetch asks from after the last appended record.
        f.classic_at_log_end();
    }
    take_watermarks(c, p, r, &req, hw);
    notes.push(Note::Fetch {
        partition: p,
        follower: r,
        fetch_offset: o,
        records,
        hw,
        at_seal_branch: !req.local_path,
    });
    // The follower processes the answer with the metadata it has (the ISR before any
    // expansion this fetch earns: AlterPartition reaches it later as a delta).
    maybe_evict(c, rules, p, r);
    if recorded_at.is_some() {
        expand_then_hw(c, rules, p, r, !req.local_path, moved, notes);
    }
}

/// The leader's side of a recorded fetch after the record itself, in upstream's order
/// (`Partition.updateFollowerFetchState`: `maybeExpandIsr`, then `maybeIncrementLeaderHW`
/// when the follower's end moved; core/src/main/scala/kafka/cluster/Partition.scala,
/// confluentinc/kafka 06d492d813 and the 4.0.2 release point). The expansion is judged
/// against the high watermark before this fetch moves it: a follower at the old high
/// watermark joins, and then holds it. Found by the real brokers of 4.4.0 (model fix 23).
fn expand_then_hw(
    c: &mut Cluster,
    rules: &dyn Rules,
    p: usize,
    r: BrokerId,
    at_seal_branch: bool,
    moved: bool,
    notes: &mut Vec<Note>,
) {
    maybe_expand_isr(c, rules, p, r, at_seal_branch, notes);
    if moved {
        maybe_increment_leader_hw(c, p);
    }
}

/// What the leader answers a fetch that passed the epoch checks: the records it returns,
/// the high watermark it sends when it is not its own (the at-seal answer's seal), and the
/// offset it records for the follower. `None`: no answer to process (out of range, or a
/// pending seal).
fn answer(
    c: &mut Cluster,
    p: usize,
    r: BrokerId,
    req: &FetchRequest,
    notes: &mut Vec<Note>,
) -> Option<(i64, Option<i64>, Option<i64>)> {
    let (o, s) = (req.at.offset, req.seal);
    if req.local_path {
        if out_of_range(c, p, r, req, notes) {
            return None;
        }
        Some((req.leader_leo - o, None, Some(o)))
    } else if s >= 0 {
        let recorded = (req.at_seal == AtSealAnswer::Validated).then_some(s);
        Some((0, Some(s), recorded))
    } else {
        None
    }
}

/// `ReplicaFetcherThread.processPartitionData` on an answer without error (records or none):
/// it refuses to append unless the fetch offset is the log end ("Offset mismatch"), and
/// `AbstractFetcherThread.processFetchRequest` marks the partition failed for it. The
/// leader has already recorded the fetch (`Partition.fetchRecords`, the at-seal validation
/// included), so a follower it counts as caught up stays in the ISR while it fetches no
/// more.
fn failed_append_check(
    c: &mut Cluster,
    p: usize,
    r: BrokerId,
    fetch_offset: i64,
    notes: &mut Vec<Note>,
) -> bool {
    let f = c.runtime.partitions[p].local_mut(r).expect("listed");
    if fetch_offset == f.leo() {
        return false;
    }
    f.fail_classic();
    notes.push(Note::FetchFailed {
        partition: p,
        follower: r,
        fetch_offset,
        log_end: f.leo(),
        consolidation: false,
    });
    true
}

/// `Replica.updateFetchStateOrThrow` on the leader. Returns whether the follower's recorded
/// end moved: only then does [`expand_then_hw`] run `maybeIncrementLeaderHW`
/// (`Partition.updateFollowerFetchState` compares it with the one before), so a fetch that
/// changes nothing does not re-judge which followers the HW waits for, and one that
/// stopped being caught up holds it until the next change.
fn record_fetch(c: &mut Cluster, p: usize, r: BrokerId, at: i64, leader_leo: i64) -> bool {
    let now = c.runtime.now_ms;
    let rt = &mut c.runtime.partitions[p];
    let rec = rt.leader.as_mut().expect("checked").rec_mut(r);
    let before = rec.leo;
    rec.update(at, now, leader_leo);
    rec.leo != before
}

/// Answers that end the fetch before any record moves: a fetcher of another leader epoch
/// ([`rejected_epoch`]), or an at-seal validation out of the leader's range
/// ([`at_seal_out_of_range`]).
fn answered_with_error(
    c: &mut Cluster,
    rules: &dyn Rules,
    p: usize,
    r: BrokerId,
    req: &FetchRequest,
    notes: &mut Vec<Note>,
) -> bool {
    if rejected_epoch(c, p, r, req) {
        return true;
    }
    if !req.local_path && req.at_seal == AtSealAnswer::OutOfRange {
        at_seal_out_of_range(c, rules, p, r, req.leader, notes);
        return true;
    }
    false
}

/// `Partition.fetchRecords` checks the fetch's leader epoch first (`checkCurrentLeaderEpoch`,
/// wherever the answer goes through it: the local log, or an at-seal validation). An older
/// epoch is FENCED_LEADER_EPOCH: `AbstractFetcherThread.onPartitionFenced` marks the
/// partition failed and removes it from the fetcher, which only a later delta restarts. A
/// newer one is UNKNOWN_LEADER_EPOCH: retried after `replica.fetch.backoff.ms`, which in
/// the model is the history's next fetch step. Neither is recorded. This is what ends
/// a classic fetcher a re-route left behind (docs/model/inkless.md#stale-classic-fetcher).
fn rejected_epoch(c: &mut Cluster, p: usize, r: BrokerId, req: &FetchRequest) -> bool {
    if !req.local_path && req.at_seal == AtSealAnswer::Unvalidated {
        return false;
    }
    match req.epoch_check {
        Ordering::Equal => false,
        Ordering::Greater => true,
        Ordering::Less => {
            let f = c.runtime.partitions[p].local_mut(r).expect("listed");
            f.fail_classic();
            true
        }
    }
}

/// Before #760, an at-seal validation on a leader whose log ends below the seal cannot
/// succeed (`Partition.readRecords` at the seal): the follower's last fetched epoch ends
/// below the seal on that leader (a diverging epoch), or the read is beyond the leader's end
/// (`LocalLog.read`, OFFSET_OUT_OF_RANGE, after which `AbstractFetcherThread.fetchOffsetAndTruncate`
/// asks the leader's end through ListOffsets, served from its local log for a follower,
/// `DisklessFetchOffsetRouter` case 4). Either way the follower is not recorded and cuts its
/// log to at most the leader's end, below the seal.
fn at_seal_out_of_range(
    c: &mut Cluster,
    rules: &dyn Rules,
    p: usize,
    r: BrokerId,
    leader: BrokerId,
    notes: &mut Vec<Note>,
) {
    let (leader_log, f) = follower_and_leader_log(c, p, r, leader);
    let leader_end = leader_log.end();
    let at = f
        .fetchers
        .classic
        .map_or(FetchPosition::end_of(&f.log), |s| FetchPosition {
            offset: f.log.end(),
            last_fetched_epoch: s.last_fetched_epoch,
        });
    let to = rules
        .diverging_fetch(&f.log, f.hw, at, leader_log)
        .map_or(leader_end, |d| d.min(leader_end));
    cut(f, to, p, notes);
}

/// The follower takes the answer's high watermark (clamped to its log), then its log start
/// (`ReplicaFetcherThread.processPartitionData`: `maybeUpdateHighWatermark`, then
/// `maybeIncrementLogStartOffset`, which never passes the high watermark).
fn take_watermarks(c: &mut Cluster, p: usize, r: BrokerId, req: &FetchRequest, hw: i64) {
    let (leader_log, f) = follower_and_leader_log(c, p, r, req.leader);
    let leader_start = leader_log.start();
    f.hw = hw.clamp(f.log.start(), f.leo());
    if req.local_path {
        f.log.increment_start(leader_start.min(f.hw));
    }
}

/// OFFSET_OUT_OF_RANGE (`UnifiedLog.read`: a fetch offset below the leader's log start
/// (`checkLogStartOffset`) or beyond its end (`LocalLog.read`)). The leader records nothing;
/// the follower handles it at once, as `AbstractFetcherThread.handleOutOfRangeError` does
/// with `fetchOffsetAndTruncate` (a synchronous ListOffsets to the leader), which judges
/// the follower's log end, not the fetch offset: a log beyond the leader's end is truncated
/// to it; a log ending below the leader's start is deleted and starts over there
/// (`truncateFullyAndStartAt`); either way, and when the log is within the leader's range
/// (a fetch offset left past a cut), the fetcher starts again at the log end. Returns
/// whether the fetch was out of range.
fn out_of_range(
    c: &mut Cluster,
    p: usize,
    r: BrokerId,
    req: &FetchRequest,
    notes: &mut Vec<Note>,
) -> bool {
    let o = req.at.offset;
    let (leader_log, f) = follower_and_leader_log(c, p, r, req.leader);
    if (leader_log.start()..=leader_log.end()).contains(&o) {
        return false;
    }
    fetch_offset_and_truncate(f, leader_log, p, o, None, notes);
    true
}

/// `AbstractFetcherThread.fetchOffsetAndTruncate` after an OFFSET_OUT_OF_RANGE answer to a
/// fetch at `o`, judged on the follower's log end against the leader's range: a log past
/// the leader's end is cut to it; one ending below the leader's start starts over there;
/// the fetcher then asks from the log end.
fn fetch_offset_and_truncate(
    f: &mut super::Local,
    leader_log: &Log,
    p: usize,
    o: i64,
    unplaced_epoch: Option<i32>,
    notes: &mut Vec<Note>,
) {
    if f.log.fit_to_range_of(leader_log) {
        // Cut to the leader's end, the high watermark follows it down; started over at the
        // leader's start, it is that start.
        f.hw = f.hw.min(f.leo()).max(f.log.start());
    }
    f.classic_at_log_end();
    notes.push(Note::OutOfRange {
        partition: p,
        follower: f.broker,
        fetch_offset: o,
        to: f.leo(),
        unplaced_epoch,
    });
}

/// A follower's log is first reconciled with its leader's (rule `truncation`) whenever the
/// leader's local log answers: classic topics, a pending switch, a fetch below a committed
/// seal (`ReplicaManager.fetchMessages` sends all three to `readFromLog` →
/// `Partition.fetchRecords`, aiven/inkless b1fcb5f6f7). In the Truncating state it cuts
/// before fetching; with the fetch-path check a diverging answer ends the fetch (`None`).
/// A validated at-seal answer goes through `Partition.fetchRecords` too, at the seal with
/// the follower's last fetched epoch, and can diverge the same way: the follower is not
/// recorded (docs/model/inkless.md#at-seal-fetch).
fn truncation_round(
    c: &mut Cluster,
    rules: &dyn Rules,
    p: usize,
    r: BrokerId,
    req: FetchRequest,
    notes: &mut Vec<Note>,
) -> Option<FetchRequest> {
    if !req.local_path {
        let validated = req.at_seal == AtSealAnswer::Validated;
        let at = FetchPosition {
            offset: req.seal,
            last_fetched_epoch: req.at.last_fetched_epoch,
        };
        return (!validated || !diverged(c, rules, p, r, req.leader, at, notes)).then_some(req);
    }
    let mut req = req;
    if truncate_first(c, rules, p, r, req.leader, notes) {
        req = fetch_request(c, rules, p, r).expect("truncation keeps the fetch possible");
    }
    let at = req.at;
    (!diverged(c, rules, p, r, req.leader, at, notes)).then_some(req)
}

/// The Truncating state (rule `truncation`, KIP-101 and KIP-279 generations): before its
/// first fetch from a new leader the follower cuts its log where it parts from the leader's.
/// Returns whether the log changed.
fn truncate_first(
    c: &mut Cluster,
    rules: &dyn Rules,
    p: usize,
    r: BrokerId,
    leader: BrokerId,
    notes: &mut Vec<Note>,
) -> bool {
    if !c.runtime.partitions[p]
        .local(r)
        .is_some_and(super::Local::truncating)
    {
        return false;
    }
    let (leader_log, f) = follower_and_leader_log(c, p, r, leader);
    f.clear_truncating();
    let to = rules.truncate_before_fetch(&f.log, f.hw, leader_log);
    cut(f, to, p, notes)
}

/// The fetch-path check (rule `truncation`, today's generation): a fetch at `at` whose last
/// fetched epoch the leader's log does not end the same way gets a diverging epoch instead
/// of records; the follower truncates and the leader records nothing
/// (`Partition.fetchRecords` updates the follower's state only without a diverging epoch).
fn diverged(
    c: &mut Cluster,
    rules: &dyn Rules,
    p: usize,
    r: BrokerId,
    leader: BrokerId,
    at: FetchPosition,
    notes: &mut Vec<Note>,
) -> bool {
    let (leader_log, f) = follower_and_leader_log(c, p, r, leader);
    if let Some(why) = rules.fetch_epoch_out_of_range(at, leader_log) {
        let epoch = (why == OutOfRange::UnplacedEpoch).then_some(at.last_fetched_epoch);
        fetch_offset_and_truncate(f, leader_log, p, at.offset, epoch, notes);
        return true;
    }
    let Some(to) = rules.diverging_fetch(&f.log, f.hw, at, leader_log) else {
        return false;
    };
    cut(f, to, p, notes);
    true
}

/// The leader's log as the answer reads it, and the follower that applies the answer.
/// Borrowed together without copying the leader's log (this runs on every fetch).
fn follower_and_leader_log(
    c: &mut Cluster,
    p: usize,
    r: BrokerId,
    leader: BrokerId,
) -> (&Log, &mut super::Local) {
    let locals = &mut c.runtime.partitions[p].locals;
    let at = |b: BrokerId| locals.iter().position(|l| l.broker == b).expect("listed");
    let (li, fi) = (at(leader), at(r));
    assert_ne!(li, fi, "a leader does not fetch from itself");
    if li < fi {
        let (lo, hi) = locals.split_at_mut(fi);
        (&lo[li].log, &mut hi[0])
    } else {
        let (lo, hi) = locals.split_at_mut(li);
        (&hi[0].log, &mut lo[fi])
    }
}

/// Truncate a follower's log to `to` (its high watermark with it); note it when records
/// went. A cut at the end still drops an epoch assigned there (`UnifiedLog.truncateTo`),
/// so the next fetch asks about the epoch before it. The cut is the classic fetcher's own
/// (a truncation round, a diverging epoch, an out-of-range answer): it fetches next from the
/// new end. Returns whether the log changed.
fn cut(f: &mut super::Local, to: i64, p: usize, notes: &mut Vec<Note>) -> bool {
    let before = f.log.clone();
    if to < f.leo() {
        notes.push(Note::Truncate {
            partition: p,
            follower: f.broker,
            from: f.leo(),
            to,
        });
    }
    f.log.truncate_to(to);
    f.hw = f.hw.min(f.leo());
    f.classic_at_log_end();
    f.log != before
}

/// Whether follower `r` fetches at all: both up, `r` active, unstalled and on the classic
/// fetcher, the leader serving its current epoch with its prefix, the topic not born
/// diskless (nothing to replicate classically). Then which branch answers.
fn fetch_request(c: &Cluster, rules: &dyn Rules, p: usize, r: BrokerId) -> Option<FetchRequest> {
    let part = &c.partitions[p];
    let leader = part.leader;
    if leader == NO_LEADER || leader == r || !c.is_up(leader) || !active_unstalled(c, r) {
        return None;
    }
    // A replica in a failed directory is offline on its broker (`ReplicaManager.
    // handleLogDirFailure`): it neither fetches nor serves.
    if c.dir_failed(p, r) || c.dir_failed(p, leader) {
        return None;
    }
    let rt = &c.runtime.partitions[p];
    let (Some(lead), Some(fol)) = (rt.local(leader), rt.local(r)) else {
        return None;
    };
    let state = fol.fetchers.classic?;
    if !lead.is_leader
        || lead.applied_leader_epoch != part.leader_epoch
        || rt.leader.is_none()
        || lost_prefix(&c.runtime.config, part, lead)
        || (part.diskless && part.seal == -1)
    {
        return None;
    }
    let (o, leader_leo) = (state.offset, lead.leo());
    let consb = consolidating(&c.runtime.config, part);
    Some(FetchRequest {
        leader,
        at: FetchPosition {
            offset: o,
            last_fetched_epoch: state.last_fetched_epoch,
        },
        leader_leo,
        seal: part.seal,
        local_path: !part.diskless
            || rules.follower_reads_local_log(consb, part.seal, o, leader_leo),
        at_seal: rules.at_seal_fetch(o, part.seal, leader_leo),
        epoch_check: state.leader_epoch.cmp(&part.leader_epoch),
    })
}

/// Generic expansion (`Partition.maybeExpandIsr`, `isFollowerInSync`) or, at the seal with
/// #760, `maybeExpandIsrAtSeal`. Goes to the controller as an AlterPartition.
fn maybe_expand_isr(
    c: &mut Cluster,
    rules: &dyn Rules,
    p: usize,
    r: BrokerId,
    at_seal_branch: bool,
    notes: &mut Vec<Note>,
) {
    let part = &c.partitions[p];
    if part.isr.contains(&r) || !c.is_active(r) {
        return;
    }
    let rt = &c.runtime.partitions[p];
    let state = rt.leader.as_ref().expect("fetch answered by a leader");
    let rec = state.rec(r).copied().unwrap_or(ReplicaState::EMPTY);
    let lead = rt.local(state.broker).expect("listed");
    if !rules.in_sync_for_expansion(
        &rec,
        at_seal_branch,
        part.seal,
        lead.hw,
        state.leader_epoch_start_offset,
    ) {
        return;
    }
    let mut isr = part.isr.to_vec();
    isr.push(r);
    if alter_isr(c, rules, p, isr) {
        notes.push(Note::Expand {
            partition: p,
            follower: r,
        });
        if let Some(l) = c.runtime.partitions[p].local_mut(r) {
            l.in_sync_ms = c.runtime.now_ms;
        }
    }
}

/// `ReplicaFetcherThread.processPartitionData` at the seal: hand a caught-up switched
/// partition back to consolidation (or drop the fetcher on a non-consolidating topic).
fn maybe_evict(c: &mut Cluster, rules: &dyn Rules, p: usize, r: BrokerId) {
    let part = &c.partitions[p];
    let s = part.seal;
    let consb = consolidating(&c.runtime.config, part);
    let in_isr = part.isr.contains(&r);
    let gated = rules.isr_gated_routing();
    let rt = &mut c.runtime.partitions[p];
    let f = rt.local_mut(r).expect("listed");
    let evict =
        part.diskless && s >= 0 && f.leo() >= s && if gated { in_isr } else { consb || in_isr };
    if evict {
        f.stop_classic();
        if consb {
            f.start_consolidation();
        }
    }
}
