//! What every controller operation shares, below both the requests (`controller.rs`) and
//! the broker registration events (`membership.rs`): the rejection it answers with, the
//! leader acceptor, and committing a built record.

use super::builder::{Acceptor, Built, Thrown};
use super::{has_duplicates, BrokerId, Cluster, ErrorCode, Partition, PartitionEffect, NO_LEADER};

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
