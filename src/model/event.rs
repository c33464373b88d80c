//! The operations alphabet: every event a history can contain. The serde form of this
//! enum *is* the history format's event list (see docs/history-format.md).

use super::{BrokerId, LeaderRecoveryState};
use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ElectionType {
    Preferred,
    Unclean,
}

impl ElectionType {
    /// The step tables' name of the election.
    pub(crate) fn name(self) -> &'static str {
        match self {
            ElectionType::Preferred => "preferred",
            ElectionType::Unclean => "unclean",
        }
    }

    /// Its name in the admin API (`kafka-leader-election.sh --election-type`, Java's
    /// `ElectionType`).
    pub fn api_name(self) -> &'static str {
        match self {
            ElectionType::Preferred => "PREFERRED",
            ElectionType::Unclean => "UNCLEAN",
        }
    }
}

fn one() -> i32 {
    1
}

fn is_one(n: &i32) -> bool {
    *n == 1
}

/// The producer's `acks` setting (`acks=0` is not modelled: nothing is acknowledged).
#[derive(
    Clone, Copy, PartialEq, Eq, Debug, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Acks {
    #[default]
    One,
    All,
}

impl Acks {
    pub fn is_one(&self) -> bool {
        *self == Acks::One
    }
}

/// What survives a power loss on a broker (`restart_broker` with `unclean`): the log is
/// recovered from its recovery point, and what the operating system had not written back
/// is lost. Upstream recovery (`LogLoader.recoverLog`) keeps every valid batch above the
/// recovery point and cuts at the first invalid one, so any cut between the recovery point
/// and the log end can happen; these name two of them.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Survives {
    /// Only the flushed prefix (everything below the recovery point): the worst case.
    #[default]
    Flushed,
    /// Also what was written back up to the local high watermark (never less than the
    /// flushed prefix): what format 2 meant by an unclean shutdown.
    HighWatermark,
}

fn yes() -> bool {
    true
}
fn is_true(b: &bool) -> bool {
    *b
}
fn is_false(b: &bool) -> bool {
    !*b
}
fn is_zero(p: &usize) -> bool {
    *p == 0
}
fn recovered() -> LeaderRecoveryState {
    LeaderRecoveryState::Recovered
}
fn is_recovered(s: &LeaderRecoveryState) -> bool {
    *s == LeaderRecoveryState::Recovered
}

/// One step of a history. `partition` is the index of the partition in creation order
/// (the n-th `create_partition` made partition n); it defaults to 0.
#[derive(Clone, PartialEq, Eq, Debug, Hash, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum Event {
    /// CreateTopics with a manual assignment for one partition.
    CreatePartition {
        replicas: Vec<BrokerId>,
        #[serde(default, skip_serializing_if = "is_false")]
        unclean_leader_election_enable: bool,
        /// A born-diskless topic (`diskless.enable=true` from creation).
        #[serde(default, skip_serializing_if = "is_false")]
        diskless: bool,
        /// `remote.storage.enable` (with `diskless`: a consolidating topic).
        #[serde(default, skip_serializing_if = "is_false")]
        remote_storage: bool,
        /// The topic config `min.insync.replicas` (acks=all needs an ISR this large).
        #[serde(default = "one", skip_serializing_if = "is_one")]
        min_insync_replicas: i32,
    },
    /// AlterPartitionReassignments with a target: starts or overrides a reassignment.
    Reassign {
        #[serde(default, skip_serializing_if = "is_zero")]
        partition: usize,
        target: Vec<BrokerId>,
        /// KIP-860's `allowReplicationFactorChange`.
        #[serde(default = "yes", skip_serializing_if = "is_true")]
        allow_replication_factor_change: bool,
    },
    /// AlterPartitionReassignments with a null target.
    CancelReassignment {
        #[serde(default, skip_serializing_if = "is_zero")]
        partition: usize,
    },
    /// AlterPartition from a broker (by default the current leader, with the current epochs).
    AlterPartition {
        #[serde(default, skip_serializing_if = "is_zero")]
        partition: usize,
        isr: Vec<BrokerId>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        broker: Option<BrokerId>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        leader_epoch: Option<i32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        partition_epoch: Option<i32>,
        #[serde(default = "recovered", skip_serializing_if = "is_recovered")]
        leader_recovery_state: LeaderRecoveryState,
        /// The broker whose broker epoch the request carries one behind its registration:
        /// the sender (`checkBrokerEpoch`: STALE_BROKER_EPOCH for the whole request) or an
        /// ISR member (`ineligibleReplicasForIsr`: INELIGIBLE_REPLICA). Format 5.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        stale_epoch: Option<BrokerId>,
    },
    /// The broker's session expired (`handleBrokerFenced`).
    FenceBroker {
        broker: BrokerId,
    },
    /// The broker caught up with the metadata log again (`handleBrokerUnfenced`).
    UnfenceBroker {
        broker: BrokerId,
    },
    /// The broker asked for a controlled shutdown (`handleBrokerInControlledShutdown`).
    ControlledShutdown {
        broker: BrokerId,
    },
    /// ElectLeaders for one partition.
    ElectLeaders {
        #[serde(default, skip_serializing_if = "is_zero")]
        partition: usize,
        election: ElectionType,
    },
    /// ElectLeaders over the partitions listed (in order, each answered on its own), or
    /// over every partition when `partitions` is absent (then the partitions whose
    /// election is not needed are left out of the answer). Format 5.
    ElectLeadersMany {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        partitions: Option<Vec<usize>>,
        election: ElectionType,
    },
    /// IncrementalAlterConfigs (SET) on the partition's topic: `min.insync.replicas`,
    /// `unclean.leader.election.enable`, or both; an absent one is left as it is. Format 5.
    AlterTopicConfig {
        #[serde(default, skip_serializing_if = "is_zero")]
        partition: usize,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        min_insync_replicas: Option<i32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        unclean_leader_election_enable: Option<bool>,
    },
    /// A heartbeat from a fenced broker whose metadata offset is still behind its own
    /// registration record (it has not caught up yet): it stays fenced. Format 5.
    LaggingHeartbeat {
        broker: BrokerId,
    },
    /// UnregisterBroker for a broker that is down (fenced): the operator decommissions it.
    /// It leaves every ISR and ELR it is in and its registration is removed; a later
    /// restart registers it anew. Format 5.
    UnregisterBroker {
        broker: BrokerId,
    },
    /// UpdateFeatures of `eligible.leader.replicas.version`: 1 turns ELR on, 0 turns it off
    /// (a safe downgrade). Nothing else is written: a partition's ELR fields stay until its
    /// next change, which builds with the new setting. Format 5.
    UpdateFeatures {
        eligible_leader_replicas: bool,
    },
    /// CreatePartitions with a manual assignment: the topic of `partition` gets one more
    /// partition, on `replicas`; it is the newest partition of the history. Format 6.
    CreatePartitions {
        #[serde(default, skip_serializing_if = "is_zero")]
        partition: usize,
        replicas: Vec<BrokerId>,
    },
    /// DeleteTopics of the topic of `partition`, with every partition it has; the
    /// partitions after them move down (a history names the live ones). Format 6.
    DeleteTopic {
        #[serde(default, skip_serializing_if = "is_zero")]
        partition: usize,
    },
    /// AssignReplicasToDirs from `broker` (a replica of the partition, with its current
    /// broker epoch): its replica lives in directory `dir` (0 or 1 of the two every broker
    /// registers). The change goes through the builder, so it may elect a leader too; a
    /// directory already reported offline also takes the broker out of leadership and
    /// ISR. Format 7.
    AssignReplicaDir {
        #[serde(default, skip_serializing_if = "is_zero")]
        partition: usize,
        broker: BrokerId,
        dir: BrokerId,
    },
    /// Directory `dir` of a running `broker` fails: its replicas there stop, and its next
    /// heartbeat lists the directory offline, which takes the broker out of leadership and
    /// ISR of every partition the controller has placed there. Until the broker registers
    /// again (a restart). Format 7.
    LogDirOffline {
        broker: BrokerId,
        dir: BrokerId,
    },
    /// ListPartitionReassignments over every partition: an observation, changes nothing.
    ListReassignments,
    /// E1: produce `records` records. Classic topics append on the leader; switched and
    /// born-diskless topics append to the diskless log; a pending switch rejects it.
    Produce {
        #[serde(default, skip_serializing_if = "is_zero")]
        partition: usize,
        records: i64,
        /// The producer's `acks`: `one` (the leader's append acknowledges) or `all` (the
        /// high watermark passing the records does; min.insync.replicas applies).
        #[serde(default, skip_serializing_if = "Acks::is_one")]
        acks: Acks,
    },
    /// E5: the clock moves on; follower fetches, consolidation and the ISR-expiration task
    /// (every `replica_lag_time_max_ms / 2`) run as time passes.
    AdvanceTime {
        ms: i64,
    },
    /// E4: one explicit classic fetch by `broker` (it must have a classic fetcher).
    FollowerFetch {
        #[serde(default, skip_serializing_if = "is_zero")]
        partition: usize,
        broker: BrokerId,
    },
    /// E2a: switch a classic topic to diskless (`markClassicToDisklessSwitchStarted`): the
    /// seal becomes pending (-2) and the leader epoch rises with the same leader.
    SwitchStart {
        #[serde(default, skip_serializing_if = "is_zero")]
        partition: usize,
        /// Also enable remote storage (a consolidating topic).
        #[serde(default, skip_serializing_if = "is_false")]
        consolidating: bool,
    },
    /// E2b: the sealed leader sends InitDisklessLog once its HW equals its LEO.
    SealCommit {
        #[serde(default, skip_serializing_if = "is_zero")]
        partition: usize,
    },
    /// Operator `AlterDisklessSwitch`: abort (-1), re-arm (-2), seal at s ≥ 0, re-seal lower.
    AlterDisklessSwitch {
        #[serde(default, skip_serializing_if = "is_zero")]
        partition: usize,
        seal: i64,
    },
    /// E8: the broker stays up but its fetchers make no progress.
    StallBroker {
        broker: BrokerId,
    },
    ResumeBroker {
        broker: BrokerId,
    },
    /// E9: the broker restarts: fenced, fresh Partition objects (an unclean shutdown loses
    /// the log past the high watermark), then unfenced.
    RestartBroker {
        broker: BrokerId,
        #[serde(default, skip_serializing_if = "is_false")]
        unclean: bool,
        /// With `unclean`: what survives the power loss (default: the flushed prefix).
        /// Format 3.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        survives: Option<Survives>,
    },
    /// DeleteRecords (`Partition.deleteRecordsOnLeader`): the leader's log start offset
    /// moves to `offset` (-1: its high watermark), which may not pass the high watermark
    /// (OFFSET_OUT_OF_RANGE). Classic topics only. Format 3.
    DeleteRecords {
        #[serde(default, skip_serializing_if = "is_zero")]
        partition: usize,
        offset: i64,
    },
    /// The broker flushes every local log to disk (`UnifiedLog.flush`: LogManager's
    /// periodic flush, `log.flush.interval.*`, a segment roll): the recovery points reach
    /// the log ends. Format 3.
    FlushBroker {
        broker: BrokerId,
    },
}

impl Event {
    /// CreateTopics for one classic partition on `replicas`, with the topic defaults of the
    /// history format (unclean election off, `min.insync.replicas` 1).
    pub fn create_classic(replicas: Vec<BrokerId>) -> Event {
        Event::CreatePartition {
            replicas,
            unclean_leader_election_enable: false,
            diskless: false,
            remote_storage: false,
            min_insync_replicas: one(),
        }
    }

    /// Its `op` name in the history format (`alter_diskless_switch`), the serde tag
    /// (a test checks the two agree for every kind).
    pub fn op(&self) -> &'static str {
        match self {
            Event::CreatePartition { .. } => "create_partition",
            Event::Reassign { .. } => "reassign",
            Event::CancelReassignment { .. } => "cancel_reassignment",
            Event::AlterPartition { .. } => "alter_partition",
            Event::FenceBroker { .. } => "fence_broker",
            Event::UnfenceBroker { .. } => "unfence_broker",
            Event::ControlledShutdown { .. } => "controlled_shutdown",
            Event::ElectLeaders { .. } => "elect_leaders",
            Event::ElectLeadersMany { .. } => "elect_leaders_many",
            Event::AlterTopicConfig { .. } => "alter_topic_config",
            Event::LaggingHeartbeat { .. } => "lagging_heartbeat",
            Event::UnregisterBroker { .. } => "unregister_broker",
            Event::UpdateFeatures { .. } => "update_features",
            Event::CreatePartitions { .. } => "create_partitions",
            Event::DeleteTopic { .. } => "delete_topic",
            Event::AssignReplicaDir { .. } => "assign_replica_dir",
            Event::LogDirOffline { .. } => "log_dir_offline",
            Event::ListReassignments => "list_reassignments",
            Event::Produce { .. } => "produce",
            Event::AdvanceTime { .. } => "advance_time",
            Event::FollowerFetch { .. } => "follower_fetch",
            Event::SwitchStart { .. } => "switch_start",
            Event::SealCommit { .. } => "seal_commit",
            Event::AlterDisklessSwitch { .. } => "alter_diskless_switch",
            Event::StallBroker { .. } => "stall_broker",
            Event::ResumeBroker { .. } => "resume_broker",
            Event::RestartBroker { .. } => "restart_broker",
            Event::DeleteRecords { .. } => "delete_records",
            Event::FlushBroker { .. } => "flush_broker",
        }
    }

    /// The event uses what history format 5 added: a stale broker epoch in AlterPartition,
    /// elections over several partitions, topic config changes, lagging heartbeats,
    /// unregistration and feature updates.
    pub fn is_format_5(&self) -> bool {
        matches!(
            self,
            Event::AlterPartition {
                stale_epoch: Some(_),
                ..
            } | Event::ElectLeadersMany { .. }
                | Event::AlterTopicConfig { .. }
                | Event::LaggingHeartbeat { .. }
                | Event::UnregisterBroker { .. }
                | Event::UpdateFeatures { .. }
        )
    }

    /// The event uses what history format 6 added: topics of several partitions
    /// (`create_partitions`) and topic deletion.
    pub fn is_format_6(&self) -> bool {
        matches!(
            self,
            Event::CreatePartitions { .. } | Event::DeleteTopic { .. }
        )
    }

    /// The event uses what history format 7 added: log directories (`assign_replica_dir`,
    /// `log_dir_offline`).
    pub fn is_format_7(&self) -> bool {
        matches!(
            self,
            Event::AssignReplicaDir { .. } | Event::LogDirOffline { .. }
        )
    }

    /// An event only Inkless has: a switch, or a diskless or remote-storage topic. No
    /// Apache Kafka controller takes it, nor judges the steps after it.
    pub fn is_inkless_only(&self) -> bool {
        match self {
            Event::CreatePartition {
                diskless,
                remote_storage,
                ..
            } => *diskless || *remote_storage,
            Event::SwitchStart { .. }
            | Event::SealCommit { .. }
            | Event::AlterDisklessSwitch { .. } => true,
            _ => false,
        }
    }

    /// CreateTopics or CreatePartitions: the event takes the next partition index.
    pub fn creates_a_partition(&self) -> bool {
        matches!(
            self,
            Event::CreatePartition { .. } | Event::CreatePartitions { .. }
        )
    }

    /// The partition the event addresses, if it addresses one.
    pub fn partition(&self) -> Option<usize> {
        match *self {
            Event::CreatePartitions { partition, .. } | Event::DeleteTopic { partition } => {
                Some(partition)
            }
            Event::Reassign { partition, .. }
            | Event::CancelReassignment { partition }
            | Event::AlterPartition { partition, .. }
            | Event::ElectLeaders { partition, .. }
            | Event::AlterTopicConfig { partition, .. }
            | Event::AssignReplicaDir { partition, .. }
            | Event::Produce { partition, .. }
            | Event::FollowerFetch { partition, .. }
            | Event::SwitchStart { partition, .. }
            | Event::SealCommit { partition }
            | Event::AlterDisklessSwitch { partition, .. }
            | Event::DeleteRecords { partition, .. } => Some(partition),
            _ => None,
        }
    }

    pub fn partition_mut(&mut self) -> Option<&mut usize> {
        match self {
            Event::CreatePartitions { partition, .. } | Event::DeleteTopic { partition } => {
                Some(partition)
            }
            Event::Reassign { partition, .. }
            | Event::CancelReassignment { partition }
            | Event::AlterPartition { partition, .. }
            | Event::ElectLeaders { partition, .. }
            | Event::AlterTopicConfig { partition, .. }
            | Event::AssignReplicaDir { partition, .. }
            | Event::Produce { partition, .. }
            | Event::FollowerFetch { partition, .. }
            | Event::SwitchStart { partition, .. }
            | Event::SealCommit { partition }
            | Event::AlterDisklessSwitch { partition, .. }
            | Event::DeleteRecords { partition, .. } => Some(partition),
            _ => None,
        }
    }

    /// The broker a cluster event is about.
    pub fn broker(&self) -> Option<BrokerId> {
        match *self {
            Event::FenceBroker { broker }
            | Event::UnfenceBroker { broker }
            | Event::ControlledShutdown { broker }
            | Event::LaggingHeartbeat { broker }
            | Event::UnregisterBroker { broker }
            | Event::AssignReplicaDir { broker, .. }
            | Event::LogDirOffline { broker, .. }
            | Event::FollowerFetch { broker, .. }
            | Event::StallBroker { broker }
            | Event::ResumeBroker { broker }
            | Event::FlushBroker { broker }
            | Event::RestartBroker { broker, .. } => Some(broker),
            _ => None,
        }
    }

    /// Every broker id the event names, for renumbering during minimization.
    pub fn broker_ids_mut(&mut self) -> Vec<&mut BrokerId> {
        match self {
            Event::CreatePartition { replicas, .. } | Event::CreatePartitions { replicas, .. } => {
                replicas.iter_mut().collect()
            }
            Event::Reassign { target, .. } => target.iter_mut().collect(),
            Event::AlterPartition {
                isr,
                broker,
                stale_epoch,
                ..
            } => {
                let mut ids: Vec<_> = isr.iter_mut().collect();
                ids.extend(broker.as_mut());
                ids.extend(stale_epoch.as_mut());
                ids
            }
            Event::FenceBroker { broker }
            | Event::UnfenceBroker { broker }
            | Event::ControlledShutdown { broker }
            | Event::LaggingHeartbeat { broker }
            | Event::UnregisterBroker { broker }
            | Event::AssignReplicaDir { broker, .. }
            | Event::LogDirOffline { broker, .. }
            | Event::FollowerFetch { broker, .. }
            | Event::StallBroker { broker }
            | Event::ResumeBroker { broker }
            | Event::FlushBroker { broker }
            | Event::RestartBroker { broker, .. } => vec![broker],
            _ => Vec::new(),
        }
    }
}

pub struct Ids<'a>(pub &'a [BrokerId]);

impl fmt::Display for Ids<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, id) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{id}")?;
        }
        f.write_str("]")
    }
}
