//! The operator's requests that elect leaders or change a topic's config: ElectLeaders
//! over one partition, several, or every one, and IncrementalAlterConfigs on a topic.
//! Upstream: metadata/src/main/java/org/apache/kafka/controller/ReplicationControlManager.java
//! (`electLeaders`, `electLeader`) and ConfigurationControlManager.java
//! (`incrementalAlterConfigs`, `createClearElrRecordsAsNeeded`; the ClearElrRecord replayed
//! by `ReplicationControlManager.removeTopicElrs`), apache trunk d79bd502ec and the
//! releases 4.0.2 to 4.4.0.

use super::builder::{Built, ChangeBuilder, Election};
use super::commit::{acceptor, commit, fault, partition, Rejection};
use super::{Cluster, ElectionType, ErrorCode, IdList, Outcome, PartitionEffect, Rules};

/// `electLeader` for one partition: the record it builds, or its error (ELECTION_NOT_NEEDED
/// when there is nothing to do). A build that throws is a fault of the whole request.
fn elect_one(
    c: &Cluster,
    rules: &dyn Rules,
    index: usize,
    election: ElectionType,
) -> Result<Built, Rejection> {
    let part = partition(c, index)?;
    let not_needed = match election {
        ElectionType::Preferred => part.replicas.first() == Some(&part.leader),
        ElectionType::Unclean => part.leader != super::NO_LEADER,
    };
    if not_needed {
        return Err((ErrorCode::ElectionNotNeeded, "the election is not needed"));
    }
    let mut builder = ChangeBuilder::new(part, rules, acceptor(c), c.elr);
    builder.election = match election {
        ElectionType::Preferred => Election::Preferred,
        ElectionType::Unclean => Election::Unclean,
    };
    builder.build().map_err(fault)?.ok_or(match election {
        ElectionType::Preferred => (
            ErrorCode::PreferredLeaderNotAvailable,
            "the preferred leader is not available",
        ),
        ElectionType::Unclean => (ErrorCode::EligibleLeadersNotAvailable, "no eligible leader"),
    })
}

/// ElectLeaders for one partition: its answer is the request's.
pub(crate) fn elect_leaders(
    c: &mut Cluster,
    rules: &dyn Rules,
    index: usize,
    election: ElectionType,
) -> Result<Outcome, Rejection> {
    let built = elect_one(c, rules, index, election)?;
    Ok(Outcome::accepted(commit(c, index, Some(built))))
}

/// ElectLeaders over `partitions` (each its own topic, in order), or over every partition
/// when there is no list, as `electLeaders` does for a null `topicPartitions`: then a
/// partition whose election is not needed is left out of the answer. Each partition's
/// election reads only its own registration and the brokers, so building every record
/// before storing any equals upstream, which replays the request's records after the
/// last; a build that throws fails the request with nothing stored.
pub(crate) fn elect_many(
    c: &mut Cluster,
    rules: &dyn Rules,
    partitions: Option<&[usize]>,
    election: ElectionType,
) -> Result<Outcome, Rejection> {
    let every: Vec<usize> = (0..c.partitions.len()).collect();
    let list = partitions.unwrap_or(&every);
    let mut records = Vec::with_capacity(list.len());
    let mut elected = Vec::with_capacity(list.len());
    for &index in list {
        match elect_one(c, rules, index, election) {
            Ok(built) => {
                records.push((index, built));
                elected.push((index, "NONE"));
            }
            Err((ErrorCode::ControllerFault, reason)) => {
                return Err((ErrorCode::ControllerFault, reason))
            }
            Err((ErrorCode::ElectionNotNeeded, _)) if partitions.is_none() => {}
            Err((error, _)) => elected.push((index, error.name())),
        }
    }
    let mut effects = Vec::with_capacity(records.len());
    for (index, built) in records {
        effects.extend(commit(c, index, Some(built)));
    }
    Ok(Outcome::Accepted {
        effects,
        new_leader_elected: false,
        listed: None,
        elected: Some(elected),
        notes: Vec::new(),
    })
}

/// IncrementalAlterConfigs SET on the partition's topic (every partition of it). A value
/// equal to the current one writes no ConfigRecord. With ELR on, a ConfigRecord for
/// `min.insync.replicas` brings a ClearElrRecord for the topic: every partition of it with
/// an ELR or a last-known ELR gets both emptied (`PartitionRegistration.merge`: partition
/// epoch + 1, same leader epoch); the others are untouched. The periodic unclean election
/// of leaderless partitions (`maybeElectUncleanLeaders`, QuorumController's timer) is not
/// modelled: an unclean setting takes effect at the partition's next change.
pub(crate) fn alter_topic_config(
    c: &mut Cluster,
    index: usize,
    min_insync_replicas: Option<i32>,
    unclean_leader_election_enable: Option<bool>,
) -> Result<Outcome, Rejection> {
    let current = partition(c, index)?.min_insync_replicas;
    let min_isr_changed = min_insync_replicas.is_some_and(|m| m != current);
    let elr_on = c.elr;
    let mut effects = Vec::new();
    let parts: Vec<usize> = c.topic_partitions(c.topic_of[index]).collect();
    for p in parts {
        let part = &mut c.partitions[p];
        if let Some(m) = min_insync_replicas {
            part.min_insync_replicas = m;
        }
        if let Some(u) = unclean_leader_election_enable {
            part.unclean_leader_election_enable = u;
        }
        let has_elr = !part.elr.is_empty() || !part.last_known_elr.is_empty();
        if !(elr_on && min_isr_changed && has_elr) {
            continue;
        }
        // `removeTopicElrs` stores the merged registration directly, past `replay`: the
        // brokersToElrs index keeps the brokers it listed (`Cluster::elr_index`).
        part.elr = IdList::EMPTY;
        part.last_known_elr = IdList::EMPTY;
        part.partition_epoch += 1;
        effects.push(PartitionEffect {
            partition: p,
            completion: None,
            unclean_election: false,
        });
    }
    Ok(Outcome::accepted(effects))
}
