//! What every controller operation shares, below both the requests (`controller.rs`) and
//! the broker registration events (`membership.rs`): the rejection it answers with, the
//! leader acceptor, and committing a built record.

use super::builder::{Acceptor, Built, Thrown};
use super::{
    has_duplicates, BrokerId, Cluster, ErrorCode, Ghost, IdList, LeaderRecoveryState, Outcome,
    Partition, PartitionEffect, NO_LEADER, SEAL_NONE,
};

pub(crate) type Rejection = (ErrorCode, &'static str);

/// AlterPartitionReassignments catches any exception per partition and answers it
/// (`alterPartitionReassignments`' try/catch, apache trunk d79bd502ec).
pub(crate) fn caught(_: Thrown) -> Rejection {
    (
        ErrorCode::UnknownServerError,
        "the leader acceptor threw: a candidate is not a replica of the registration",
    )
}

/// Every other request lets the exception through: a controller failover.
pub(crate) fn fault(_: Thrown) -> Rejection {
    (
        ErrorCode::ControllerFault,
        "the leader acceptor threw: a candidate is not a replica of the registration",
    )
}

/// The leader acceptor over the cluster's brokers, with no broker added or removed by
/// the change.
pub(crate) fn acceptor(c: &Cluster) -> Acceptor<'_> {
    Acceptor {
        brokers: &c.brokers,
        offline_dirs: &c.offline_dirs,
        remove: NO_LEADER,
        add: NO_LEADER,
    }
}

/// Store a built record and describe its effect.
pub(crate) fn commit(c: &mut Cluster, index: usize, built: Option<Built>) -> Vec<PartitionEffect> {
    let Some(built) = built else {
        return Vec::new();
    };
    let effect = PartitionEffect {
        partition: index,
        completion: built.completion,
        unclean_election: built.unclean_election,
    };
    c.replay(index, built.partition);
    vec![effect]
}

/// The partition a request names by its index, or UNKNOWN_TOPIC_OR_PARTITION.
pub(crate) fn partition(c: &Cluster, index: usize) -> Result<&Partition, Rejection> {
    c.partitions
        .get(index)
        .ok_or((ErrorCode::UnknownTopicOrPartition, "no such partition"))
}

/// `validateManualPartitionAssignment`: non-empty, registered, no duplicates. Fenced and
/// shutting-down brokers are accepted; only registration is checked.
pub(crate) fn validate_assignment(c: &Cluster, replicas: &[BrokerId]) -> Result<(), Rejection> {
    let invalid = ErrorCode::InvalidReplicaAssignment;
    if replicas.is_empty() {
        return Err((invalid, "the assignment includes an empty replica list"));
    }
    if replicas.iter().any(|&b| !c.is_registered(b)) {
        return Err((
            invalid,
            "the assignment names a broker that is not registered",
        ));
    }
    if has_duplicates(replicas) {
        return Err((invalid, "the assignment names a broker more than once"));
    }
    Ok(())
}

/// The topic configs a new partition gets (and the topic's replication factor, which caps
/// its `min.insync.replicas`: `Partition::topic_replication_factor`).
pub(crate) struct TopicConfig {
    pub unclean_leader_election_enable: bool,
    pub diskless: bool,
    pub remote_storage: bool,
    pub min_insync_replicas: i32,
    pub replication_factor: u32,
}

/// A new partition of `topic` as `buildPartitionRegistration` makes it, for createTopics
/// and createPartitions alike: ISR = the active replicas, leader = the ISR's first, epochs
/// 0, recovered, never switched. No active replica: INVALID_REPLICA_ASSIGNMENT
/// (`none_active` says why).
pub(crate) fn push_partition(
    c: &mut Cluster,
    replicas: &[BrokerId],
    topic: u32,
    config: TopicConfig,
    none_active: &'static str,
) -> Result<Outcome, Rejection> {
    let isr: Vec<BrokerId> = (replicas.iter().copied())
        .filter(|&b| c.is_active(b))
        .collect();
    let Some(&leader) = isr.first() else {
        return Err((ErrorCode::InvalidReplicaAssignment, none_active));
    };
    // `PartitionAssignment` over the cluster describer's `defaultDir` of each replica.
    let dirs: IdList = replicas
        .iter()
        .map(|&b| super::dir_state::default_dir(c, b))
        .collect();
    c.partitions.push(Partition {
        replicas: replicas.into(),
        isr: isr.into(),
        adding_replicas: IdList::EMPTY,
        removing_replicas: IdList::EMPTY,
        leader,
        leader_epoch: 0,
        partition_epoch: 0,
        leader_recovery_state: LeaderRecoveryState::Recovered,
        unclean_leader_election_enable: config.unclean_leader_election_enable,
        diskless: config.diskless,
        remote_storage: config.remote_storage,
        seal: SEAL_NONE,
        diskless_leader_epoch: -1,
        min_insync_replicas: config.min_insync_replicas,
        topic_replication_factor: config.replication_factor,
        elr: IdList::EMPTY,
        last_known_elr: IdList::EMPTY,
        dirs,
    });
    c.ghosts.push(Ghost::default());
    c.topic_of.push(topic);
    Ok(Outcome::accepted(Vec::new()))
}
