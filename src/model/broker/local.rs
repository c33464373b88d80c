//! One broker's copy of a partition (`Local`) and the fetch state each fetcher keeps for
//! it (`PartitionFetchState`; docs/model/fetcher.md, docs/model/brokers.md).

use crate::model::log::Log;
use crate::model::BrokerId;
use std::hash::{Hash, Hasher};

/// `ReplicaState` of a partition on a fetcher (server/src/main/java/org/apache/kafka/server/
/// ReplicaState.java, not the leader's record of a follower, `broker::ReplicaState`):
/// Truncating finds where this log parts
/// from the leader's before the next fetch (rule `truncation`, KIP-101 and KIP-279
/// generations); Fetching fetches.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum FetchPhase {
    Fetching,
    Truncating,
}

/// `PartitionFetchState` (server/src/main/java/org/apache/kafka/server/PartitionFetchState.java):
/// what a fetcher keeps for the partition while it holds it (docs/model/fetcher.md). The lag
/// is not modelled; a delay is a fetch not taken (a retriable answer changes nothing, and the
/// history's next fetch step is the retry).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct FetchState {
    /// `fetchOffset`: set to the log end when the fetcher starts
    /// (`ReplicaManager.initialFetchOffset`), after each of its appends and after each cut
    /// the fetcher makes. A cut from outside the fetcher leaves it where it was, past the
    /// new end, as upstream; the next answer that brings data fails the append check
    /// (`ReplicaFetcherThread.processPartitionData`) and the partition is marked failed.
    pub offset: i64,
    /// `currentLeaderEpoch`: the leader epoch the fetcher was started for; a fetcher not
    /// restarted keeps an older one and the leader fences it
    /// (docs/model/inkless.md#stale-classic-fetcher). -1 on the consolidation fetcher, whose
    /// reads from object storage the model does not check against an epoch.
    pub leader_epoch: i32,
    /// `lastFetchedEpoch`: the log's latest epoch when the fetcher starts or cuts the log,
    /// the last appended batch's epoch after an append (the leader checks the fetch offset
    /// against it). Kept across a cut from outside, like the offset.
    pub last_fetched_epoch: i32,
    /// Only the classic fetcher truncates; the consolidation fetcher is always Fetching (its
    /// first truncation upstream answers the seal, where the model starts it already).
    pub phase: FetchPhase,
}

impl FetchState {
    /// The fetch state of a fetcher that takes the partition at the log end now.
    fn at_end(log: &Log, leader_epoch: i32, phase: FetchPhase) -> FetchState {
        FetchState {
            offset: log.end(),
            leader_epoch,
            last_fetched_epoch: log.latest_epoch(),
            phase,
        }
    }

    /// Whether the state is where a fetcher that made every change to this log would be:
    /// at the end, having fetched its latest epoch.
    pub fn at_log_end(&self, log: &Log) -> bool {
        self.offset == log.end() && self.last_fetched_epoch == log.latest_epoch()
    }
}

/// Which fetchers hold the partition on this broker, with each one's fetch state. Both at
/// once breaks INV-5.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, Default)]
pub struct Fetchers {
    /// `ReplicaFetcherManager` (classic fetch from the leader).
    pub classic: Option<FetchState>,
    /// `ConsolidationFetcherManager` (appends from object storage).
    pub consolidation: Option<FetchState>,
    /// The classic fetcher marked the partition failed (`AbstractFetcherThread.
    /// markPartitionFailed`: removed, counted in `FailedPartitionsCount`) until it is added
    /// or removed again (`AbstractFetcherManager.addFetcherForPartitions`,
    /// `removeFetcherForPartitions`).
    pub classic_failed: bool,
    /// The same on the consolidation fetcher.
    pub consolidation_failed: bool,
}

impl Fetchers {
    /// The classic fetcher's fetch offset, if it holds the partition.
    pub fn classic_offset(&self) -> Option<i64> {
        self.classic.map(|f| f.offset)
    }
}

/// One broker's copy of one partition.
#[derive(PartialEq, Eq, Debug)]
pub struct Local {
    pub broker: BrokerId,
    /// The local log: its end (LEO) and the epoch of every record (docs/model/brokers.md).
    pub log: Log,
    pub hw: i64,
    pub fetchers: Fetchers,
    /// `Partition.leaderReplicaIdOpt` before the delta: `None` for a fresh Partition
    /// (after a restart), `Some(-1)` after a NO_LEADER delta.
    pub previous_leader: Option<BrokerId>,
    /// Epochs of the last registration this broker applied (-1: none yet).
    pub applied_leader_epoch: i32,
    pub applied_partition_epoch: i32,
    pub is_leader: bool,
    /// The phase the classic fetcher takes when it next starts, while it does not hold the
    /// partition (false while it does: its phase is in its fetch state). The model decides
    /// Truncating at the delta, before the fetcher starts, and a stop keeps it for the next
    /// start; upstream decides it at `addPartitions`.
    truncate_at_start: bool,
    /// Harness ghost for INV-1: the last time this replica's log reached the partition's
    /// lag target (the seal once committed, else the leader's log end), or it joined the ISR.
    pub in_sync_ms: i64,
}

clone_reusing!(Local {
    broker,
    log,
    hw,
    fetchers,
    previous_leader,
    applied_leader_epoch,
    applied_partition_epoch,
    is_leader,
    truncate_at_start,
    in_sync_ms,
});

/// Hashed as the replica was before it kept fetch states (the fetchers as two flags, the
/// classic fetcher's phase and leader epoch in their old places), then what the fetch states
/// add only where it departs from the log (an offset or last fetched epoch left behind by a
/// cut from outside, a failed mark), so that a state the fetch states do not change hashes
/// as before. The consolidation fetcher's leader epoch is always -1.
impl Hash for Local {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.broker.hash(h);
        self.log.hash(h);
        self.hw.hash(h);
        self.fetchers.classic.is_some().hash(h);
        self.fetchers.consolidation.is_some().hash(h);
        self.previous_leader.hash(h);
        self.applied_leader_epoch.hash(h);
        self.applied_partition_epoch.hash(h);
        self.is_leader.hash(h);
        self.truncating().hash(h);
        self.classic_fetch_epoch().hash(h);
        self.in_sync_ms.hash(h);
        let f = &self.fetchers;
        if let Some(state) = f.classic.filter(|s| !s.at_log_end(&self.log)) {
            (state.offset, state.last_fetched_epoch).hash(h);
        }
        // The consolidation fetcher's last fetched epoch is not read (the model does not
        // check its reads against an epoch), and a leader's epoch assignment moves the log's.
        if let Some(state) = f.consolidation.filter(|s| s.offset != self.leo()) {
            state.offset.hash(h);
        }
        if f.classic_failed || f.consolidation_failed {
            (f.classic_failed, f.consolidation_failed).hash(h);
        }
    }
}

impl Local {
    /// What `Hash` leaves out and equality compares: the fetch states in full and the
    /// phase kept for the next start. `exhaust`'s fingerprints add it, so that they merge
    /// only states the search's old exact comparison merged.
    pub fn hash_unread<H: Hasher>(&self, h: &mut H) {
        self.fetchers.hash(h);
        self.truncate_at_start.hash(h);
    }

    /// The log end offset.
    pub fn leo(&self) -> i64 {
        self.log.end()
    }

    /// Whether the classic fetcher truncates before its next fetch (or will when it starts).
    pub fn truncating(&self) -> bool {
        self.fetchers.classic.map_or(self.truncate_at_start, |f| {
            f.phase == FetchPhase::Truncating
        })
    }

    /// The next classic fetch (or the next start of the classic fetcher) truncates first.
    pub fn mark_truncating(&mut self) {
        match &mut self.fetchers.classic {
            Some(f) => f.phase = FetchPhase::Truncating,
            None => self.truncate_at_start = true,
        }
    }

    /// The classic fetcher fetches without truncating (now and when it next starts).
    pub fn clear_truncating(&mut self) {
        if let Some(f) = &mut self.fetchers.classic {
            f.phase = FetchPhase::Fetching;
        }
        self.truncate_at_start = false;
    }

    /// The leader epoch the classic fetcher fetches for; -1 when it does not hold the partition.
    pub fn classic_fetch_epoch(&self) -> i32 {
        self.fetchers.classic.map_or(-1, |f| f.leader_epoch)
    }

    /// `AbstractFetcherManager.addFetcherForPartitions` on the classic fetcher for
    /// `leader_epoch`: clears a failed mark; a state of the same leader epoch is kept, fetch
    /// offset included (`AbstractFetcherThread.partitionFetchState`); else a new one at the
    /// log end (`ReplicaManager.initialFetchOffset`; the model's logs always have an epoch
    /// there or are empty), in the phase decided at the delta.
    pub fn start_classic(&mut self, leader_epoch: i32) {
        self.fetchers.classic_failed = false;
        if self
            .fetchers
            .classic
            .is_some_and(|f| f.leader_epoch == leader_epoch)
        {
            return;
        }
        let phase = if self.truncating() {
            FetchPhase::Truncating
        } else {
            FetchPhase::Fetching
        };
        self.truncate_at_start = false;
        self.fetchers.classic = Some(FetchState::at_end(&self.log, leader_epoch, phase));
    }

    /// The consolidation fetcher takes the partition at the log end
    /// (`ConsolidationReconciler`); one that holds it already keeps its state
    /// (`AbstractFetcherThread.addPartitions` with the same leader epoch). Clears a failed mark.
    pub fn start_consolidation(&mut self) {
        self.fetchers.consolidation_failed = false;
        if self.fetchers.consolidation.is_none() {
            self.fetchers.consolidation =
                Some(FetchState::at_end(&self.log, -1, FetchPhase::Fetching));
        }
    }

    /// The partition leaves the classic fetcher (`removeFetcherForPartitions`, which also
    /// clears a failed mark; the model keeps a Truncating phase for the next start).
    pub fn stop_classic(&mut self) {
        self.fetchers.classic_failed = false;
        if let Some(f) = self.fetchers.classic.take() {
            self.truncate_at_start = f.phase == FetchPhase::Truncating;
        }
    }

    /// The partition leaves the consolidation fetcher (clearing a failed mark).
    pub fn stop_consolidation(&mut self) {
        self.fetchers.consolidation_failed = false;
        self.fetchers.consolidation = None;
    }

    /// The partition leaves both fetchers.
    pub fn stop_fetchers(&mut self) {
        self.stop_classic();
        self.stop_consolidation();
    }

    /// `markPartitionFailed` on the classic fetcher: it drops the partition and its state
    /// and counts it failed until the partition is next added or removed.
    pub fn fail_classic(&mut self) {
        self.stop_classic();
        self.fetchers.classic_failed = true;
    }

    /// `markPartitionFailed` on the consolidation fetcher.
    pub fn fail_consolidation(&mut self) {
        self.stop_consolidation();
        self.fetchers.consolidation_failed = true;
    }

    /// The classic fetcher appended or cut the log itself: it fetches next from the end,
    /// having fetched the log's latest epoch. A consolidation fetcher holding the partition
    /// too (INV-5) keeps its own offset, as upstream, and its next append check judges it.
    pub fn classic_at_log_end(&mut self) {
        let log = &self.log;
        if let Some(f) = &mut self.fetchers.classic {
            *f = FetchState::at_end(log, f.leader_epoch, f.phase);
        }
    }

    /// The consolidation fetcher appended: it fetches next from the end (a classic fetcher
    /// holding the partition too keeps its own offset).
    pub fn consolidation_at_log_end(&mut self) {
        let log = &self.log;
        if let Some(f) = &mut self.fetchers.consolidation {
            *f = FetchState::at_end(log, f.leader_epoch, f.phase);
        }
    }

    /// The log was cut from outside the fetchers where upstream removes the partition from
    /// its fetchers before the cut and adds it after (each call site says so): the fetch
    /// states start again at the new end.
    pub fn fetchers_follow_cut(&mut self) {
        self.classic_at_log_end();
        self.consolidation_at_log_end();
    }

    pub fn fresh(broker: BrokerId, now_ms: i64) -> Local {
        Local {
            broker,
            log: Log::default(),
            hw: 0,
            fetchers: Fetchers::default(),
            previous_leader: None,
            applied_leader_epoch: -1,
            applied_partition_epoch: -1,
            is_leader: false,
            truncate_at_start: false,
            in_sync_ms: now_ms,
        }
    }
}
