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
/// what a fetcher keeps for the partition while it holds it (docs/model/fetcher.md). The lag,
/// the delay and the last fetched epoch are not modelled.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct FetchState {
    /// `fetchOffset`: set to the log end when the fetcher starts
    /// (`ReplicaManager.initialFetchOffset`), after each of its appends and after each cut
    /// the fetcher makes. The model keeps it at the log end after a cut from outside too,
    /// and still fetches at `Local::leo`: the append check (`ReplicaFetcherThread.
    /// processPartitionData`, fetch offset = log end) is not modelled yet.
    pub offset: i64,
    /// `currentLeaderEpoch`: the leader epoch the fetcher was started for; a fetcher not
    /// restarted keeps an older one and the leader fences it
    /// (docs/model/inkless.md#stale-classic-fetcher). -1 on the consolidation fetcher, whose
    /// reads from object storage the model does not check against an epoch.
    pub leader_epoch: i32,
    /// Only the classic fetcher truncates; the consolidation fetcher is always Fetching (its
    /// first truncation upstream answers the seal, where the model starts it already).
    pub phase: FetchPhase,
}

/// Which fetchers hold the partition on this broker, with each one's fetch state. Both at
/// once breaks INV-5.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, Default)]
pub struct Fetchers {
    /// `ReplicaFetcherManager` (classic fetch from the leader).
    pub classic: Option<FetchState>,
    /// `ConsolidationFetcherManager` (appends from object storage).
    pub consolidation: Option<FetchState>,
}

impl Fetchers {
    /// The classic fetcher's fetch offset, if it holds the partition.
    pub fn classic_offset(&self) -> Option<i64> {
        self.classic.map(|f| f.offset)
    }

    /// The consolidation fetcher's fetch offset, if it holds the partition.
    pub fn consolidation_offset(&self) -> Option<i64> {
        self.consolidation.map(|f| f.offset)
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
/// classic fetcher's phase and leader epoch in their old places), so that state hashes and
/// the fingerprints of examples/fingerprints.rs compare across the change. The fetch offsets
/// add nothing: every one the model keeps is the log end (see [`FetchState::offset`]); nor
/// does the consolidation fetcher's leader epoch (always -1).
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
    }
}

impl Local {
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

    /// `AbstractFetcherThread.addPartitions` on the classic fetcher for `leader_epoch`, at
    /// the log end (`ReplicaManager.initialFetchOffset`; the model's logs always have an
    /// epoch there or are empty). A running fetcher keeps its phase.
    pub fn start_classic(&mut self, leader_epoch: i32) {
        let truncating = self.truncating();
        self.truncate_at_start = false;
        self.fetchers.classic = Some(FetchState {
            offset: self.leo(),
            leader_epoch,
            phase: if truncating {
                FetchPhase::Truncating
            } else {
                FetchPhase::Fetching
            },
        });
    }

    /// The consolidation fetcher takes the partition at the log end
    /// (`ConsolidationReconciler`); one that holds it already keeps its state
    /// (`AbstractFetcherThread.addPartitions` with the same leader epoch).
    pub fn start_consolidation(&mut self) {
        let leo = self.leo();
        self.fetchers.consolidation.get_or_insert(FetchState {
            offset: leo,
            leader_epoch: -1,
            phase: FetchPhase::Fetching,
        });
    }

    /// The partition leaves the classic fetcher (which forgets its fetch state; the model
    /// keeps its Truncating phase for the next start).
    pub fn stop_classic(&mut self) {
        if let Some(f) = self.fetchers.classic.take() {
            self.truncate_at_start = f.phase == FetchPhase::Truncating;
        }
    }

    /// The partition leaves the consolidation fetcher.
    pub fn stop_consolidation(&mut self) {
        self.fetchers.consolidation = None;
    }

    /// The partition leaves both fetchers.
    pub fn stop_fetchers(&mut self) {
        self.stop_classic();
        self.stop_consolidation();
    }

    /// The classic fetcher appended or cut the log itself: it fetches next from the end. A
    /// consolidation fetcher holding the partition too (INV-5) follows here as well: upstream
    /// it keeps its own offset and fails its next append check, but until that check is
    /// modelled every fetch offset the model keeps is the log end.
    pub fn classic_at_log_end(&mut self) {
        self.offsets_to_log_end();
    }

    /// The consolidation fetcher appended: it fetches next from the end (a classic fetcher
    /// holding the partition too follows, as in [`Local::classic_at_log_end`]).
    pub fn consolidation_at_log_end(&mut self) {
        self.offsets_to_log_end();
    }

    /// The log was cut from outside the fetchers (each call site says what upstream's
    /// fetcher does there): the model moves both fetch offsets to the new end, as it has
    /// always fetched from the log end. The append check will replace this where upstream
    /// keeps the old offset (docs/model/fetcher.md#where-the-model-stands).
    pub fn fetchers_follow_cut(&mut self) {
        self.offsets_to_log_end();
    }

    fn offsets_to_log_end(&mut self) {
        let leo = self.leo();
        let Fetchers {
            classic,
            consolidation,
        } = &mut self.fetchers;
        for f in [classic, consolidation].into_iter().flatten() {
            f.offset = leo;
        }
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
