//! The broker side: what each broker holds for each partition (local log end and high
//! watermark, which fetcher the partition is on, the previous leader it saw), what the
//! leader records about each follower (`ReplicaState`), the clock and the ISR-expiration
//! task. Model: docs/model/brokers.md (Inkless rules: docs/model/inkless.md); upstream aiven/inkless (paths below are
//! under core/src/main/scala/kafka/ unless they say otherwise).
//!
//! The broker side reacts to the controller's registrations through [`sync`], which plays
//! the metadata delta on every live broker, as `ReplicaManager.applyDelta` does. Time moves
//! only through [`advance_time`], which runs the background activity the model does not
//! make explicit (follower fetches, consolidation appends) and the `isr-expiration` task.
//!
//! This file holds the state and the helpers the others share; `local.rs` one broker's copy
//! of a partition and its fetchers' fetch states; `delta.rs` plays a
//! registration on a broker (`makeLeader`, `applyLocalFollowersDelta`), `fetch.rs` one
//! follower fetch, `expiration.rs` the clock, the background activity and the
//! `isr-expiration` task. Every rule decision is a `Rules` call, answered in `src/rules/`.

mod call;
mod catch_up;
mod delta;
mod expiration;
mod fetch;
mod hw;
mod local;
mod produce;

pub use call::{tell, BrokerCall};
pub use catch_up::{caught_up_by_assertion, Applied};
pub use delta::sync;
pub use expiration::{advance_time, NOTES_KEPT_MAX, NOTES_MAX};
pub use fetch::follower_fetch;
use hw::maybe_increment_leader_hw;
pub use local::{FetchPhase, FetchState, Fetchers, Local};
pub use produce::{
    append, complete_pending, delete_records, flush_broker, PendingAck, PENDING_MAX,
};

use super::log::Log;
use super::{BrokerId, Cluster, Partition, Rules, Survives};

/// Fixed for a history (the history header's `broker_config`).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BrokerConfig {
    /// `replica.lag.time.max.ms`; the ISR-expiration task runs every half of it.
    pub replica_lag_time_max_ms: i64,
    /// `diskless.remote.storage.consolidation.enable` on every broker.
    pub consolidation_enable: bool,
}

impl Default for BrokerConfig {
    fn default() -> Self {
        BrokerConfig {
            replica_lag_time_max_ms: 30_000,
            consolidation_enable: true,
        }
    }
}

pub const LAG_MAX_MS_MIN: i64 = 2;
pub const LAG_MAX_MS_MAX: i64 = 3_600_000;

/// `ReplicaState` (server/src/main/java/org/apache/kafka/server/replica/ReplicaState.java):
/// what the leader recorded of a follower's fetches.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct ReplicaState {
    /// The fetch offset of the last accepted follower fetch; -1 after a new-leader reset.
    pub leo: i64,
    pub last_fetch_leader_leo: i64,
    pub last_fetch_time_ms: i64,
    pub last_caught_up_time_ms: i64,
    /// Stands for `brokerEpoch` being present and equal to the follower's current broker
    /// epoch in the leader's metadata cache (`Partition.isBrokerEpochIsrEligible`). The
    /// model has no broker epochs; what changes them upstream is modelled: a recorded fetch
    /// stores the fetching process's epoch (`updateFetchStateOrThrow`), a new-leader reset
    /// empties it (`resetReplicaState` with `isNewLeader`; a re-elected leader keeps it),
    /// and a restart registers a new epoch, so the stored one no longer matches until the
    /// new process fetches (`reset_process` clears it). `leo >= 0` alone would miss the last.
    pub epoch_current: bool,
}

impl ReplicaState {
    pub const EMPTY: ReplicaState = ReplicaState {
        leo: -1,
        last_fetch_leader_leo: 0,
        last_fetch_time_ms: 0,
        last_caught_up_time_ms: 0,
        epoch_current: false,
    };

    /// `Replica.updateFetchStateOrThrow(o, t, e)`.
    pub fn update(&mut self, fetch_offset: i64, now_ms: i64, leader_leo: i64) {
        if fetch_offset >= leader_leo {
            self.last_caught_up_time_ms = self.last_caught_up_time_ms.max(now_ms);
        } else if fetch_offset >= self.last_fetch_leader_leo {
            self.last_caught_up_time_ms = self.last_caught_up_time_ms.max(self.last_fetch_time_ms);
        }
        self.leo = fetch_offset;
        self.last_fetch_leader_leo = leader_leo.max(self.last_fetch_leader_leo);
        self.last_fetch_time_ms = now_ms;
        self.epoch_current = true;
    }

    /// `Replica.resetReplicaState(now, leaderEpochStartOffset, isNewLeader, inIsr)`.
    pub fn reset(
        &mut self,
        now_ms: i64,
        leader_epoch_start_offset: i64,
        is_new_leader: bool,
        in_isr: bool,
    ) {
        self.last_caught_up_time_ms = if in_isr { now_ms } else { 0 };
        if is_new_leader {
            self.leo = -1;
            self.last_fetch_leader_leo = -1;
            self.last_fetch_time_ms = 0;
            self.epoch_current = false;
        } else {
            self.last_fetch_leader_leo = leader_epoch_start_offset;
            self.last_fetch_time_ms = if in_isr { now_ms } else { 0 };
        }
    }

    /// `ReplicaState.isCaughtUp`: note the *equality* on the offset leg.
    pub fn is_caught_up(&self, leader_leo: i64, now_ms: i64, lag_max_ms: i64) -> bool {
        self.leo == leader_leo || now_ms - self.last_caught_up_time_ms <= lag_max_ms
    }
}

/// Leader-only state for a partition (`Partition` on the leading broker).
#[derive(PartialEq, Eq, Debug, Hash)]
pub struct LeaderState {
    pub broker: BrokerId,
    pub leader_epoch: i32,
    /// `leaderEpochStartOffset`: the leader's LEO when it took this epoch.
    pub leader_epoch_start_offset: i64,
    /// When this broker became leader, and when it last took a new leader epoch (which
    /// resets the records, restarting every ISR follower's grace period).
    pub since_ms: i64,
    pub epoch_since_ms: i64,
    /// The recorded state of each remote replica, sorted by broker.
    pub recorded: Vec<(BrokerId, ReplicaState)>,
}

clone_reusing!(LeaderState {
    broker,
    leader_epoch,
    leader_epoch_start_offset,
    since_ms,
    epoch_since_ms,
    recorded,
});

impl LeaderState {
    pub fn rec(&self, r: BrokerId) -> Option<&ReplicaState> {
        self.recorded.iter().find(|(b, _)| *b == r).map(|(_, s)| s)
    }

    fn rec_mut(&mut self, r: BrokerId) -> &mut ReplicaState {
        if let Some(i) = self.recorded.iter().position(|(b, _)| *b == r) {
            return &mut self.recorded[i].1;
        }
        self.recorded.push((r, ReplicaState::EMPTY));
        self.recorded.sort_unstable_by_key(|(b, _)| *b);
        let i = self
            .recorded
            .iter()
            .position(|(b, _)| *b == r)
            .expect("just inserted");
        &mut self.recorded[i].1
    }
}

/// The broker side of one partition.
#[derive(PartialEq, Eq, Debug, Hash, Default)]
pub struct PartitionRuntime {
    /// One entry per broker hosting a replica, sorted by broker.
    pub locals: Vec<Local>,
    pub leader: Option<LeaderState>,
    /// The states of leaders a registration replaced while they applied no delta (they
    /// were down): each one's `Partition` still leads and keeps what it recorded until it
    /// applies one. At most one per broker, sorted by broker.
    pub stale_leaders: Vec<LeaderState>,
    /// End of the diskless log in object storage (offsets from the seal up), or
    /// [`NO_DISKLESS_LOG`].
    pub diskless_end: i64,
    /// acks=all produce requests waiting for the high watermark (`DelayedProduce`).
    pub pending_acks: Vec<PendingAck>,
}

clone_reusing!(PartitionRuntime {
    locals,
    leader,
    stale_leaders,
    diskless_end,
    pending_acks,
});

impl PartitionRuntime {
    pub fn local(&self, b: BrokerId) -> Option<&Local> {
        self.locals.iter().find(|l| l.broker == b)
    }

    pub fn local_mut(&mut self, b: BrokerId) -> Option<&mut Local> {
        self.locals.iter_mut().find(|l| l.broker == b)
    }
}

/// The whole broker side.
#[derive(PartialEq, Eq, Debug, Hash, Default)]
pub struct Runtime {
    pub config: BrokerConfig,
    pub now_ms: i64,
    /// The next run of the `isr-expiration` task.
    pub next_expiration_ms: i64,
    /// Brokers that are alive but whose fetchers make no progress.
    pub stalled: Vec<BrokerId>,
    pub partitions: Vec<PartitionRuntime>,
    /// Restarted brokers whose registration threw in the controller: their process keeps
    /// retrying it and never heartbeats, so nothing unfences them until they restart.
    pub unregistered: Vec<BrokerId>,
    /// Brokers the operator unregistered (`unregister_broker`), sorted: down, with no
    /// registration, until a restart registers them anew.
    pub decommissioned: Vec<BrokerId>,
}

clone_reusing!(Runtime {
    config,
    now_ms,
    next_expiration_ms,
    stalled,
    partitions,
    unregistered,
    decommissioned,
});

/// What the broker side did in a step, for the invariants and the step table.
#[derive(Clone, PartialEq, Eq, Debug, Hash)]
pub enum Note {
    /// A follower fetch and its answer.
    Fetch {
        partition: usize,
        follower: BrokerId,
        fetch_offset: i64,
        records: i64,
        hw: i64,
        at_seal_branch: bool,
    },
    /// The ISR-expiration task removed these replicas (with the leader's recorded offset).
    Shrink {
        partition: usize,
        leader: BrokerId,
        removed: Vec<(BrokerId, i64)>,
    },
    /// A follower's fetch was out of range of the leader's log (OFFSET_OUT_OF_RANGE): it
    /// truncated to the leader's end, or started over at the leader's log start, or only
    /// asks again from its log end. `unplaced_epoch`: the last fetched epoch, when the
    /// leader's epoch cache could not place it (`Partition.readRecords`).
    OutOfRange {
        partition: usize,
        follower: BrokerId,
        fetch_offset: i64,
        to: i64,
        unplaced_epoch: Option<i32>,
    },
    /// A fetcher's answer failed the append check (its fetch offset is not the log end,
    /// `ReplicaFetcherThread.processPartitionData`): the partition is marked failed on that
    /// fetcher (`consolidation`: the consolidation fetcher's, else the classic one's).
    FetchFailed {
        partition: usize,
        follower: BrokerId,
        fetch_offset: i64,
        log_end: i64,
        consolidation: bool,
    },
    /// A follower cut its log where it parted from its leader's (rule `truncation`).
    Truncate {
        partition: usize,
        follower: BrokerId,
        from: i64,
        to: i64,
    },
    /// The leader added a follower to the ISR after a fetch.
    Expand {
        partition: usize,
        follower: BrokerId,
    },
    /// A request the broker side made on its own threw in the controller (a controller
    /// failover upstream; nothing of it was written): `request` names it.
    ControllerFault {
        broker: BrokerId,
        request: &'static str,
    },
    /// Notes of a long step not kept (`expiration::NOTES_KEPT_MAX`, `NOTES_MAX`):
    /// `repeats` equal to a kept one, `over_cap` beyond the cap.
    Elided { repeats: u64, over_cap: u64 },
}

/// The consolidating predicate on brokers: `consB(T) = brokerFlag ∧ diskless ∧ remote storage`.
pub fn consolidating(config: &BrokerConfig, p: &Partition) -> bool {
    config.consolidation_enable && p.diskless && p.remote_storage
}

/// A non-consolidating leader of a switched partition whose log ends below the seal cannot
/// rebuild the classic prefix (`maybeReconcileSwitchedLeader` fences it): it serves no
/// fetch and runs no ISR change. A consolidating one rebuilds from remote storage.
pub fn lost_prefix(config: &BrokerConfig, p: &Partition, leader: &Local) -> bool {
    p.seal >= 0 && !consolidating(config, p) && leader.leo() < p.seal
}

/// How the leader answers a follower fetch the at-seal branch takes (rule `seal-admission`,
/// docs/model/inkless.md#at-seal-fetch).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum AtSealAnswer {
    /// No validation: no records, HW = seal, nothing recorded, no leader-epoch check.
    Unvalidated,
    /// Validated at the seal (`Partition.fetchRecords` with no bytes): recorded at the seal.
    Validated,
    /// The validation reads the leader's local log at the seal, beyond its end:
    /// OFFSET_OUT_OF_RANGE, nothing recorded, and the follower resets against the leader's end.
    OutOfRange,
}

/// `ReplicaManager.shouldTruncateSwitchedPartitionToSeal` (aiven/inkless 5f22fac12b, the
/// same on main b1fcb5f6f7 and #760 82c0e1a2e5), run by `maybeReconcileSwitchedLeader` and
/// `maybeTruncateSwitchedFollower` on every delta with a committed seal: a local log that
/// runs past the seal is cut to it, unless `hasConsolidatedDisklessSuffixFromSeal` proves
/// the part above the seal is consolidated data (a consolidating topic, a diskless leader
/// epoch, every record from the seal up stamped with it). Returns the offset it cut from.
pub fn truncate_to_seal(config: &BrokerConfig, p: &Partition, local: &mut Local) -> Option<i64> {
    let (seal, leo) = (p.seal, local.leo());
    if seal < 0 || leo <= seal {
        return None;
    }
    let e_d = p.diskless_leader_epoch;
    let consolidated_suffix = consolidating(config, p)
        && e_d >= 0
        && local.log.epoch_at(seal) == Some(e_d)
        && !local
            .log
            .entries()
            .iter()
            .any(|e| e.start_offset > seal && e.start_offset < leo && e.epoch != e_d);
    if consolidated_suffix {
        return None;
    }
    local.log.truncate_to(seal);
    local.hw = local.hw.min(seal);
    Some(leo)
}

/// `diskless_end` of a partition the control plane has no diskless log for: an aborted
/// switch. The control plane gets a log when a born-diskless topic is created
/// (`ControllerApis.createTopicsDiskless`) or from the leader once a seal commits
/// (`ReplicaManager.initDisklessLogOnControlPlane`, seal ≥ 0 only; aiven/inkless main
/// `b1fcb5f6f7`); an abort undoes a pending switch, before either. Produce is answered
/// UNKNOWN_TOPIC_OR_PARTITION (`nonexistent_log`) and a consolidation fetch appends nothing.
pub const NO_DISKLESS_LOG: i64 = -1;

/// Append the diskless log's records from `log`'s end up to `to`, stamped `epoch` (E_d, 0 born
/// diskless), as a consolidation append does. An entry assigned at the end with no records
/// goes first: the older epoch would drop it (`LeaderEpochFileCache.assign`).
fn append_diskless(log: &mut Log, epoch: i32, to: i64) {
    let leo = log.end();
    log.truncate_to(leo);
    // Architecture Invariant: every entry left holds records, and the model's log is also
    // the records' epochs, so an older epoch appended after one would drop it and leave its
    // records with another epoch or none (distorting D1–D5 and `Log::copy_from`). Upstream
    // records below a diskless end predate the seal, in epochs below E_d: a model path that
    // gets here with a later one is a harness bug, as the aborted switch's phantom diskless
    // log was (docs/findings.md).
    assert!(
        log.latest_epoch() <= epoch,
        "a diskless append of epoch {epoch} at {leo} would drop {:?}, which holds records",
        log.entries().last()
    );
    log.append(epoch, to - leo);
}

/// The epoch stamped on records appended from object storage: the diskless leader epoch
/// (the epoch at the seal commit), 0 for a partition that was diskless from birth.
pub fn diskless_epoch(p: &Partition) -> i32 {
    p.diskless_leader_epoch.max(0)
}

/// Stamp `in_sync_ms` on every replica whose log has reached its partition's lag target.
fn refresh_in_sync(c: &mut Cluster) {
    let now = c.runtime.now_ms;
    for (p, rt) in c.partitions.iter().zip(c.runtime.partitions.iter_mut()) {
        let leader_leo = rt.local(p.leader).map_or(0, |l| l.leo());
        let target = if p.seal >= 0 { p.seal } else { leader_leo };
        for l in &mut rt.locals {
            if l.leo() >= target {
                l.in_sync_ms = now;
            }
        }
    }
}

fn active_unstalled(c: &Cluster, b: BrokerId) -> bool {
    c.is_active(b) && !c.runtime.stalled.contains(&b)
}

/// An AlterPartition from the leader with its current epochs, through the controller.
fn alter_isr(c: &mut Cluster, rules: &dyn Rules, p: usize, isr: Vec<BrokerId>) -> bool {
    let part = &c.partitions[p];
    let request = super::Event::AlterPartition {
        partition: p,
        isr,
        broker: None,
        leader_epoch: None,
        partition_epoch: None,
        // A leader elected uncleanly has recovered by the time it changes the ISR.
        leader_recovery_state: super::LeaderRecoveryState::Recovered,
        stale_epoch: None,
    };
    let (before, sender) = (part.partition_epoch, part.leader);
    let outcome = super::controller::apply_controller(c, &request, rules);
    tell(rules, || {
        BrokerCall::alter_answer(c, sender, false, &request, &outcome)
    });
    let changed = c.partitions[p].partition_epoch != before;
    sync(c, rules);
    changed
}

/// A broker process restarts: fresh `Partition` objects (no previous leader, no applied
/// delta, no fetcher). A clean shutdown (`loss` None) flushes every log first
/// (`LogManager.shutdown` → `UnifiedLog.flush`) and keeps it; a power loss keeps what
/// `survives` says, never less than the recovery point (`LogLoader.recoverLog` recovers
/// from it). It applies the current registrations when it is next up.
///
/// The process's produce purgatory goes with it (`ReplicaManager.shutdown` shuts
/// `delayedProducePurgatory` down; core/src/main/scala/kafka/server/ReplicaManager.scala,
/// confluentinc/kafka 06d492d813): an acks=all produce it was holding is never
/// acknowledged, even when the same broker leads again in the same event and its new high
/// watermark later passes the offsets (by then other records may stand there).
pub fn reset_process(c: &mut Cluster, rules: &dyn Rules, broker: BrokerId, loss: Option<Survives>) {
    tell(rules, || BrokerCall::Restart {
        broker,
        survives: loss,
    });
    let now = c.runtime.now_ms;
    let elr = c.elr;
    for (rt, ghost) in c.runtime.partitions.iter_mut().zip(&mut c.ghosts) {
        let committed = rt.locals.iter().map(|l| l.hw).max().unwrap_or(0);
        if rt.leader.as_ref().is_some_and(|l| l.broker == broker) {
            rt.leader = None;
        }
        rt.stale_leaders.retain(|l| l.broker != broker);
        // The new process registers with a new broker epoch: other leaders' stored one for
        // it is stale until it fetches again (`isBrokerEpochIsrEligible`). A stale leader
        // (one that has not applied the registration that moved the leadership away) keeps
        // its followers' states, and takes them back when it is elected again (makeLeader
        // resets them only for a new leader): the epoch it stored is stale there too.
        let leaders = rt.leader.iter_mut().chain(rt.stale_leaders.iter_mut());
        for rec in leaders.filter_map(|l| {
            l.recorded
                .iter_mut()
                .find(|(b, _)| *b == broker)
                .map(|(_, s)| s)
        }) {
            rec.epoch_current = false;
        }
        rt.pending_acks.retain(|a| a.leader != broker);
        if let Some(local) = rt.local_mut(broker) {
            let mut log = std::mem::take(&mut local.log);
            match loss {
                None => log.flush(),
                Some(survives) => {
                    let kept = match survives {
                        Survives::Flushed => log.recovery_point(),
                        Survives::HighWatermark => local.hw.max(log.recovery_point()),
                    };
                    let lost = kept < committed.min(log.end());
                    ghost.committed_lost |= lost;
                    ghost.lost_without_elr |= lost && !elr;
                    log.truncate_to(kept);
                    // What survived the power loss is on disk: a second one loses nothing
                    // of it. Found by the real brokers of 4.0.2 (the driver's restart ends
                    // with the log closed, which flushes it; BROKERS.md).
                    log.flush();
                }
            }
            // Loading the log drops the cache entries from its end up, e.g. an epoch it took
            // as leader and never wrote in (`LogLoader.load`, `truncateFromEndAsyncFlush` at
            // the recovered next offset; storage/.../internals/log/LogLoader.java,
            // confluentinc/kafka 06d492d813): found by the real brokers of 4.4.0.
            let end = log.end();
            log.truncate_to(end);
            // Upstream: the fetchers go with the process; the delta the broker applies when
            // it is next up starts them afresh, at `initialFetchOffset`.
            let mut fresh = Local::fresh(broker, now);
            fresh.hw = local.hw.min(log.end()).max(log.start());
            fresh.log = log;
            *local = fresh;
        }
    }
    c.runtime.stalled.retain(|&b| b != broker);
}
