//! The controller model: broker registrations and partition registrations as the KRaft
//! controller stores them, plus the operations that change them.
//!
//! State first, operations after, as in stateright's examples. Every change to a partition
//! goes through [`builder::ChangeBuilder`], the model's `PartitionChangeBuilder`, so that
//! reassignment completion, leader election and epoch bumps run on every change, whichever
//! operation caused it (docs/model/reassignment.md#change-builder).
//!
//! Architecture invariant: nothing in this module does I/O, reads a clock or draws random
//! numbers. `apply` is a pure function of (state, event, rule set).

/// `Clone` whose `clone_from` reuses the target's heap buffers field by field: the oracle
/// copies the whole state before every step (for the (prev, next) checks), and a copy into
/// last step's copy then allocates only where a list grew. The source is destructured in
/// full, so a field added to the type and not named here is a compile error.
macro_rules! clone_reusing {
    ($t:ident { $($f:ident),* $(,)? }) => {
        impl Clone for $t {
            fn clone(&self) -> Self {
                let $t { $($f),* } = self;
                $t { $($f: $f.clone()),* }
            }
            fn clone_from(&mut self, source: &Self) {
                let $t { $($f),* } = source;
                $(self.$f.clone_from($f);)*
            }
        }
    };
}

mod admin;
pub mod broker;
pub mod builder;
mod commit;
mod controller;
mod dir_state;
pub mod dirs;
pub mod event;
mod event_text;
mod hooks;
pub mod ids;
pub mod log;
mod membership;
mod ops;
pub mod request;
pub mod symmetry;
mod topics;

pub use broker::{AtSealAnswer, BrokerConfig, Note, ReplicaState};
pub use event::{Acks, ElectionType, Event, Survives};
pub(crate) use hooks::with_rule_hooks;
pub use hooks::Rules;
pub use ids::IdList;
pub use ops::apply;
pub use topics::DELETED_PARTITION;

/// What `changePartitionReassignment` hands the builder. `None`: setter not called
/// (the builder keeps the current value).
#[derive(PartialEq, Eq, Debug)]
pub struct AlterPlan {
    pub replicas: Vec<BrokerId>,
    pub adding: Option<Vec<BrokerId>>,
    pub removing: Option<Vec<BrokerId>>,
    /// Replicas to drop from the replica list and ISR right away (design A's transients).
    pub drop_now: Vec<BrokerId>,
}

/// A broker id, as in Kafka (`int`). Registered ids are never negative.
pub type BrokerId = i32;

/// `leader = -1`: the partition has no leader (`LeaderConstants.NO_LEADER`).
pub const NO_LEADER: BrokerId = -1;

/// Limits: every history, generated or written by hand, stays inside these.
pub const BROKERS_MAX: usize = 16;
pub const PARTITIONS_MAX: usize = 8;
pub const REPLICAS_MAX: usize = 16;

/// Registration state of a broker, as `ClusterControlManager` sees it.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum BrokerState {
    Active,
    Fenced,
    /// In controlled shutdown: registered, not fenced yet, but not an acceptable leader
    /// nor an eligible ISR member (`BrokerRegistration.inControlledShutdown`).
    ControlledShutdown,
}

impl BrokerState {
    /// The broker's process runs: active or in controlled shutdown (a fenced broker is down).
    pub fn is_up(self) -> bool {
        matches!(self, BrokerState::Active | BrokerState::ControlledShutdown)
    }
}

/// The registration state of `id` in a list of registered brokers (`Cluster::brokers`).
pub fn broker_state_in(brokers: &[(BrokerId, BrokerState)], id: BrokerId) -> Option<BrokerState> {
    brokers.iter().find(|(b, _)| *b == id).map(|&(_, s)| s)
}

/// `LeaderRecoveryState`: RECOVERING after an unclean election until the leader says
/// it has recovered.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LeaderRecoveryState {
    Recovered,
    Recovering,
}

/// One `PartitionRegistration` (metadata/.../metadata/PartitionRegistration.java at apache
/// trunk d79bd502ec). `elr` and `last_known_elr` stay empty unless the
/// cluster runs with ELR (`Cluster::elr`, docs/model/reassignment.md#eligible-leader-replicas).
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Partition {
    /// Full assignment in order; `replicas[0]` is the preferred leader.
    pub replicas: IdList,
    pub isr: IdList,
    /// Stored sorted ascending, as upstream does (it builds them from a TreeSet).
    pub adding_replicas: IdList,
    pub removing_replicas: IdList,
    pub leader: BrokerId,
    pub leader_epoch: i32,
    pub partition_epoch: i32,
    pub leader_recovery_state: LeaderRecoveryState,
    /// The topic config `unclean.leader.election.enable`.
    pub unclean_leader_election_enable: bool,
    /// Topic config `diskless.enable`.
    pub diskless: bool,
    /// Topic config `remote.storage.enable` (a consolidating topic is diskless with it).
    pub remote_storage: bool,
    /// `classicToDisklessStartOffset`, the seal: -1 never switched (or aborted), -2 switch
    /// pending, ≥ 0 the committed first diskless-owned offset.
    pub seal: i64,
    /// `disklessLeaderEpoch`: the leader epoch when the seal was committed (-1: none).
    pub diskless_leader_epoch: i32,
    /// Topic config `min.insync.replicas`.
    pub min_insync_replicas: i32,
    /// The replica count of the topic's partition 0 (`parts.get(0).replicas.length`), which
    /// caps `min.insync.replicas` for every partition of the topic
    /// (`getTopicEffectiveMinIsr`); kept by `Cluster::replay`.
    pub topic_replication_factor: u32,
    /// `PartitionRegistration.elr`: replicas that left an ISR smaller than min ISR and are
    /// still safe leaders (KIP-966). In `java.util.HashSet` iteration order, as upstream
    /// writes it (ascending for ids below 16; `builder::JavaHashSet`).
    pub elr: IdList,
    /// `PartitionRegistration.lastKnownElr`: with the controller's default
    /// (`useLastKnownLeaderInBalancedRecovery`), the last leader of a partition that lost
    /// every leader candidate.
    pub last_known_elr: IdList,
    /// `PartitionRegistration.directories` in `replicas`' order: a directory index of the
    /// replica's broker, or `dirs::UNASSIGNED` / `dirs::MIGRATING`.
    pub dirs: IdList,
}

/// Debug as derived, except that the ELR fields show only when non-empty: dumps of a
/// cluster without ELR (the step snapshots of the tests) stay as short as before.
impl std::fmt::Debug for Partition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("Partition");
        d.field("replicas", &self.replicas)
            .field("isr", &self.isr)
            .field("adding_replicas", &self.adding_replicas)
            .field("removing_replicas", &self.removing_replicas)
            .field("leader", &self.leader)
            .field("leader_epoch", &self.leader_epoch)
            .field("partition_epoch", &self.partition_epoch)
            .field("leader_recovery_state", &self.leader_recovery_state)
            .field(
                "unclean_leader_election_enable",
                &self.unclean_leader_election_enable,
            )
            .field("diskless", &self.diskless)
            .field("remote_storage", &self.remote_storage)
            .field("seal", &self.seal)
            .field("diskless_leader_epoch", &self.diskless_leader_epoch)
            .field("min_insync_replicas", &self.min_insync_replicas);
        if !self.elr.is_empty() || !self.last_known_elr.is_empty() {
            d.field("elr", &self.elr)
                .field("last_known_elr", &self.last_known_elr);
        }
        if self.dirs.iter().any(|&d| d != dirs::UNASSIGNED) {
            d.field("dirs", &self.dirs);
        }
        d.finish()
    }
}

pub const SEAL_NONE: i64 = -1;
pub const SEAL_PENDING: i64 = -2;

impl Partition {
    /// `PartitionReassignmentReplicas.isReassignmentInProgress`.
    pub fn is_reassigning(&self) -> bool {
        !self.adding_replicas.is_empty() || !self.removing_replicas.is_empty()
    }
}

/// Ghost values the harness tracks for the invariants; Kafka stores none of them
/// (docs/model/reassignment.md#ghosts). Not part of the compared state.
#[derive(PartialEq, Eq, Debug, Hash, Default)]
pub struct Ghost {
    /// O: `replicas` when the current chain of alter calls started on a quiet partition.
    pub original: IdList,
    /// T: the target of the last accepted alter call.
    pub target: IdList,
    /// Every broker some target of this chain named (sorted); transients come from here.
    pub ever_targeted: IdList,
    /// Records acks=all producers were told are acknowledged (the high watermark passed
    /// them with the ISR at min.insync.replicas), classic topics only.
    pub acked: Vec<AckedRun>,
    /// An unclean election happened: Kafka gives up the acknowledged records' guarantee,
    /// and the data invariants stop judging this partition's acknowledgements.
    pub unclean_election: bool,
    /// An unclean shutdown cut a replica's log below a high watermark some replica had: a
    /// committed record may be gone (power loss without fsync, which Kafka accepts), and
    /// the acknowledgement invariants stop judging this partition.
    pub committed_lost: bool,
    /// Records a consumer could have read: every record the serving leader's high
    /// watermark has passed (acks=1 ones included), with the leader's epochs, in offset
    /// order. At most `READ_RUNS_MAX` runs (docs/model/brokers.md#data-invariants).
    pub read: Vec<AckedRun>,
    /// Where `read` ends: the highest high watermark a leader of the partition reached.
    pub read_end: i64,
    /// DeleteRecords moved a leader's log start here: records below it are deleted on
    /// purpose, and no data invariant asks for them.
    pub deleted_below: i64,
    /// A power loss cut a committed record while ELR was off (`committed_lost` then):
    /// without ELR the replica stays in the ISR, and turning ELR on later does not give
    /// back what was lost before, so ELR4 stops judging this partition.
    pub lost_without_elr: bool,
}

clone_reusing!(Ghost {
    original,
    target,
    ever_targeted,
    acked,
    unclean_election,
    committed_lost,
    read,
    read_end,
    deleted_below,
    lost_without_elr,
});

/// The most runs `Ghost::read` keeps; past it, later reads are not recorded (a judged
/// partition's leaders agree on their epochs, so it needs one run per leader epoch, and a
/// history starts at most `ENTRIES_MAX` of those).
pub const READ_RUNS_MAX: usize = 2 * log::ENTRIES_MAX;

/// Records `[start, end)` written in leader epoch `epoch`: a ghost of what producers were
/// told is acknowledged.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct AckedRun {
    pub epoch: i32,
    pub start: i64,
    pub end: i64,
}

/// The whole model state: what the controller stores plus the harness's ghosts.
#[derive(PartialEq, Eq, Debug, Hash, Default)]
pub struct Cluster {
    /// Registered brokers, sorted by id.
    pub brokers: Vec<(BrokerId, BrokerState)>,
    pub partitions: Vec<Partition>,
    /// The index `ReplicationControlManager.reassigningTopics`, kept by `replay` the way
    /// `updateReassigningTopicsIfNeeded` keeps it; ListPartitionReassignments walks it.
    pub reassigning: Vec<usize>,
    /// One ghost per partition (harness-only).
    pub ghosts: Vec<Ghost>,
    /// The broker side: local logs, fetchers, the leaders' records, the clock.
    pub runtime: broker::Runtime,
    /// The cluster feature `eligible.leader.replicas.version` ≥ 1
    /// (`FeatureControlManager.isElrFeatureEnabled`): the history's at the start, then as
    /// `update_features` sets it.
    pub elr: bool,
    /// The index `ReplicationControlManager.brokersToElrs` (`BrokersToElrs`): one
    /// (broker, partition) entry per time the broker entered the partition's ELR, kept by
    /// `replay` from each record's ELR change. Handling an unclean shutdown or an
    /// unregistration walks it. A ClearElrRecord empties ELRs without it
    /// (`removeTopicElrs`), so it can list brokers no ELR holds, even twice: kept as
    /// upstream keeps it (docs/model/reassignment.md#the-elr-index). Held sorted: upstream
    /// walks it in its maps' order, and every record of such a walk is built from the state
    /// before the request and touches its own partition, so the order changes nothing; a
    /// sorted index is a function of the ELRs until a ClearElrRecord.
    pub elr_index: Vec<(BrokerId, usize)>,
    /// The topic of each partition (format 6: a topic can have several). Ids tell topics
    /// apart and nothing more; a topic's partitions are in partition-number order.
    pub topic_of: Vec<u32>,
    /// Per broker since it registered, (id, unlisted, failed): masks of the directories its
    /// registration no longer lists (never all) and of those that failed (dir_state.rs).
    pub offline_dirs: Vec<(BrokerId, u8, u8)>,
}

clone_reusing!(Cluster {
    brokers,
    partitions,
    reassigning,
    ghosts,
    runtime,
    elr,
    elr_index,
    topic_of,
    offline_dirs,
});

impl Cluster {
    /// A cluster whose brokers are registered and active.
    pub fn new(broker_ids: &[BrokerId], config: BrokerConfig) -> Cluster {
        let mut brokers: Vec<_> = broker_ids
            .iter()
            .map(|&b| (b, BrokerState::Active))
            .collect();
        brokers.sort_unstable_by_key(|&(b, _)| b);
        let runtime = broker::Runtime {
            config,
            ..broker::Runtime::default()
        };
        Cluster {
            brokers,
            runtime,
            ..Cluster::default()
        }
    }

    /// The same cluster with the ELR feature on or off.
    pub fn with_elr(self, elr: bool) -> Cluster {
        Cluster { elr, ..self }
    }

    pub fn broker_state(&self, id: BrokerId) -> Option<BrokerState> {
        broker_state_in(&self.brokers, id)
    }

    /// Registered and running ([`BrokerState::is_up`]).
    pub fn is_up(&self, id: BrokerId) -> bool {
        self.broker_state(id).is_some_and(BrokerState::is_up)
    }

    /// `ClusterControlManager.isActive`: registered, not fenced, not shutting down.
    pub fn is_active(&self, id: BrokerId) -> bool {
        self.broker_state(id) == Some(BrokerState::Active)
    }

    pub fn is_registered(&self, id: BrokerId) -> bool {
        self.broker_state(id).is_some()
    }

    /// What the controller stores, without the ghosts: two sides diverge when this differs.
    pub fn same_kafka_state(&self, other: &Cluster) -> bool {
        self.brokers == other.brokers
            && self.partitions == other.partitions
            && self.runtime == other.runtime
            && self.elr_index == other.elr_index
            && self.topic_of == other.topic_of
            && self.offline_dirs == other.offline_dirs
    }

    /// `ReplicationControlManager.replay(PartitionChangeRecord)`: store the merged
    /// partition and keep the reassigning index in step.
    pub(crate) fn replay(&mut self, index: usize, next: Partition) {
        if self.partitions[index].elr != next.elr {
            self.update_elr_index(index, &next.elr);
        }
        let reassigning = next.is_reassigning();
        let rf = next.replicas.len() as u32;
        self.partitions[index] = next;
        // Partition 0 of its topic (no earlier index of the topic): every partition of the
        // topic reads its replica count. No allocation: this runs for every record.
        let topic = self.topic_of[index];
        if !self.topic_of[..index].contains(&topic) {
            for (p, &t) in self.partitions.iter_mut().zip(&self.topic_of) {
                if t == topic {
                    p.topic_replication_factor = rf;
                }
            }
        }
        let listed = self.reassigning.iter().position(|&p| p == index);
        match (reassigning, listed) {
            (true, None) => {
                self.reassigning.push(index);
                self.reassigning.sort_unstable();
            }
            (false, Some(at)) => {
                self.reassigning.remove(at);
            }
            _ => {}
        }
    }

    /// `BrokersToElrs.update` from the partition's ELR to `next`: a broker that enters it
    /// gets an entry added, one that leaves it loses every entry it has for the partition.
    fn update_elr_index(&mut self, index: usize, next: &IdList) {
        let prev = self.partitions[index].elr;
        for &b in prev.iter().filter(|b| !next.contains(b)) {
            self.elr_index.retain(|&e| e != (b, index));
        }
        let added = next.iter().filter(|b| !prev.contains(b));
        self.elr_index.extend(added.map(|&b| (b, index)));
        self.elr_index.sort_unstable();
    }
}

/// `a − b`, keeping `a`'s order (upstream `Replicas.copyWithout` and friends).
pub fn without(a: &[BrokerId], b: &[BrokerId]) -> Vec<BrokerId> {
    a.iter().copied().filter(|x| !b.contains(x)).collect()
}

/// `sorted(set(a) − set(b))`, as `PartitionReassignmentReplicas.calculateDifference` (a TreeSet).
pub fn sorted_difference(a: &[BrokerId], b: &[BrokerId]) -> Vec<BrokerId> {
    let mut out = without(a, b);
    out.sort_unstable();
    out.dedup();
    out
}

/// Whether every member of `small` is in `big` (`Replicas.contains`).
pub fn contains_all(big: &[BrokerId], small: &[BrokerId]) -> bool {
    small.iter().all(|x| big.contains(x))
}

/// Set equality, ignoring order.
pub fn same_set(a: &[BrokerId], b: &[BrokerId]) -> bool {
    contains_all(a, b) && contains_all(b, a)
}

pub fn has_duplicates(a: &[BrokerId]) -> bool {
    a.iter().enumerate().any(|(i, x)| a[..i].contains(x))
}

/// Error codes the modelled requests answer with (`org.apache.kafka.common.protocol.Errors`).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum ErrorCode {
    InvalidReplicaAssignment,
    InvalidReplicationFactor,
    NoReassignmentInProgress,
    UnknownTopicOrPartition,
    InvalidRequest,
    FencedLeaderEpoch,
    InvalidUpdateVersion,
    NotController,
    IneligibleReplica,
    ElectionNotNeeded,
    PreferredLeaderNotAvailable,
    EligibleLeadersNotAvailable,
    /// acks=all with an ISR smaller than `min.insync.replicas`.
    NotEnoughReplicas,
    /// DeleteRecords past the high watermark (`UnifiedLog.maybeIncrementLogStartOffset`).
    OffsetOutOfRange,
    /// A request for the leader sent to a broker that does not lead the partition.
    NotLeaderOrFollower,
    /// Not upstream: the sealed leader's InitDisklessLog waits for HW == LEO
    /// (`InitDisklessLogState.WaitingForReplication`).
    WaitingForReplication,
    /// AlterPartition from a broker that is not registered (`checkBrokerEpoch`).
    StaleBrokerEpoch,
    /// UnregisterBroker for a broker that is not registered (`unregisterBroker`).
    BrokerIdNotRegistered,
    /// A non-API exception caught per partition and answered as such
    /// (`ApiError.fromThrowable`), e.g. by AlterPartitionReassignments.
    UnknownServerError,
    /// Not an answer: a non-API exception the request's handler does not catch. Upstream
    /// the active controller resigns and nothing of the request is written; the request
    /// fails again on the next controller. Nothing changes.
    ControllerFault,
    /// Not an answer: the walk of the ELR index reached an entry of a deleted topic
    /// (`DELETED_PARTITION`), and `generateLeaderAndIsrUpdates` throws a RuntimeException
    /// ("existed in isrMembers, but not in the topics map"). As `ControllerFault`, nothing
    /// of the request is written.
    DeletedTopicFault,
    /// Not upstream: a cluster event that does not apply to the broker's current state
    /// (e.g. unfencing a broker that is not fenced). The event changes nothing.
    BrokerStateMismatch,
}

impl ErrorCode {
    /// The faults: not answers, the request's handler threw.
    pub const FAULTS: [ErrorCode; 2] = [ErrorCode::ControllerFault, ErrorCode::DeletedTopicFault];

    pub fn is_fault(self) -> bool {
        ErrorCode::FAULTS.contains(&self)
    }

    pub fn name(self) -> &'static str {
        match self {
            ErrorCode::InvalidReplicaAssignment => "INVALID_REPLICA_ASSIGNMENT",
            ErrorCode::InvalidReplicationFactor => "INVALID_REPLICATION_FACTOR",
            ErrorCode::NoReassignmentInProgress => "NO_REASSIGNMENT_IN_PROGRESS",
            ErrorCode::UnknownTopicOrPartition => "UNKNOWN_TOPIC_OR_PARTITION",
            ErrorCode::InvalidRequest => "INVALID_REQUEST",
            ErrorCode::FencedLeaderEpoch => "FENCED_LEADER_EPOCH",
            ErrorCode::InvalidUpdateVersion => "INVALID_UPDATE_VERSION",
            ErrorCode::NotController => "NOT_CONTROLLER",
            ErrorCode::IneligibleReplica => "INELIGIBLE_REPLICA",
            ErrorCode::ElectionNotNeeded => "ELECTION_NOT_NEEDED",
            ErrorCode::PreferredLeaderNotAvailable => "PREFERRED_LEADER_NOT_AVAILABLE",
            ErrorCode::EligibleLeadersNotAvailable => "ELIGIBLE_LEADERS_NOT_AVAILABLE",
            ErrorCode::NotEnoughReplicas => "NOT_ENOUGH_REPLICAS",
            ErrorCode::OffsetOutOfRange => "OFFSET_OUT_OF_RANGE",
            ErrorCode::NotLeaderOrFollower => "NOT_LEADER_OR_FOLLOWER",
            ErrorCode::BrokerStateMismatch => "BROKER_STATE_MISMATCH",
            ErrorCode::UnknownServerError => "UNKNOWN_SERVER_ERROR",
            ErrorCode::StaleBrokerEpoch => "STALE_BROKER_EPOCH",
            ErrorCode::BrokerIdNotRegistered => "BROKER_ID_NOT_REGISTERED",
            ErrorCode::ControllerFault => "CONTROLLER_FAULT",
            ErrorCode::DeletedTopicFault => "CONTROLLER_FAULT_DELETED_TOPIC",
            ErrorCode::WaitingForReplication => "WAITING_FOR_REPLICATION",
        }
    }

    /// The exception a fault is predicted to be: the leader acceptor's directory lookup on
    /// a broker that is not a replica of the registration (`PartitionRegistration.directory`
    /// throws IllegalArgumentException, metadata/src/main/java/org/apache/kafka/metadata/
    /// PartitionRegistration.java, apache trunk d79bd502ec), or the ELR index's entry of a
    /// deleted topic (RuntimeException, `ReplicationControlManager.generateLeaderAndIsrUpdates`).
    pub fn fault_class(self) -> Option<&'static str> {
        match self {
            ErrorCode::ControllerFault => Some("java.lang.IllegalArgumentException"),
            ErrorCode::DeletedTopicFault => Some("java.lang.RuntimeException"),
            _ => None,
        }
    }
}

/// What a completion did, captured inside the builder for invariant G9.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct CompletionInfo {
    /// The builder's target replicas and ISR just before completion.
    pub replicas_before: Vec<BrokerId>,
    pub isr_before: Vec<BrokerId>,
    pub removing: Vec<BrokerId>,
    /// The partition as the completing record left it (later records of the same step,
    /// such as an unfence expansion, can change it again).
    pub record: Box<Partition>,
}

/// The effect of an accepted event on one partition.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct PartitionEffect {
    pub partition: usize,
    pub completion: Option<CompletionInfo>,
    /// The builder fell back to an unclean election.
    pub unclean_election: bool,
}

/// What an event did: accepted (possibly with no record at all) or rejected.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Outcome {
    Accepted {
        effects: Vec<PartitionEffect>,
        /// An error returned together with a record (AlterPartition's NEW_LEADER_ELECTED).
        new_leader_elected: bool,
        /// ListPartitionReassignments: the partitions listed.
        listed: Option<Vec<usize>>,
        /// ElectLeaders over several partitions: each partition's answer, in the order of
        /// the request (over every partition: ascending, without ELECTION_NOT_NEEDED).
        elected: Option<Vec<(usize, &'static str)>>,
        /// What the broker side did (fetches, shrinks, expansions).
        notes: Vec<Note>,
    },
    /// A rejected request changes nothing.
    Rejected {
        error: ErrorCode,
        reason: &'static str,
    },
}

impl Outcome {
    pub(crate) fn accepted(effects: Vec<PartitionEffect>) -> Outcome {
        Outcome::Accepted {
            effects,
            new_leader_elected: false,
            listed: None,
            elected: None,
            notes: Vec::new(),
        }
    }

    pub(crate) fn rejected(error: ErrorCode, reason: &'static str) -> Outcome {
        Outcome::Rejected { error, reason }
    }

    pub fn is_rejected(&self) -> bool {
        matches!(self, Outcome::Rejected { .. })
    }

    pub fn effects(&self) -> &[PartitionEffect] {
        match self {
            Outcome::Accepted { effects, .. } => effects,
            Outcome::Rejected { .. } => &[],
        }
    }

    pub fn notes(&self) -> &[Note] {
        match self {
            Outcome::Accepted { notes, .. } => notes,
            Outcome::Rejected { .. } => &[],
        }
    }
}
