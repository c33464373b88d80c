//! Topics of several partitions: CreatePartitions adds a partition to the topic of an
//! existing one, DeleteTopics removes a topic with every partition it has. History format 6.
//! Upstream: metadata/src/main/java/org/apache/kafka/controller/ReplicationControlManager.java
//! at the 4.3.1 release point (26b251a451) and apache trunk d79bd502ec alike
//! (`createPartitions`, `deleteTopic`, `replay(RemoveTopicRecord)`), and BrokersToElrs.java
//! (`removeTopicEntryForBroker`).
//!
//! A history names partitions by their place among the live ones: the n-th partition
//! created and not deleted since. Deleting a topic takes its partitions out of every
//! per-partition list (registrations, ghosts, the broker side, both indexes), so the
//! partitions after them move down.

use super::commit::Rejection;
use super::commit::{push_partition, TopicConfig};
use super::{BrokerId, Cluster, ErrorCode, Outcome, PARTITIONS_MAX};

/// An entry of `Cluster::elr_index` whose topic was deleted. Upstream keeps it under the
/// removed topic's id; a walk of the index that reaches it throws (`topics.get` finds no
/// topic in `generateLeaderAndIsrUpdates`). The model needs only to know it is there.
pub const DELETED_PARTITION: usize = usize::MAX;

impl Cluster {
    /// The id of a new topic: one above every live topic's (ids are never compared with
    /// the driver's names, only with each other).
    pub(crate) fn new_topic_id(&self) -> u32 {
        self.topic_of.iter().max().map_or(0, |&t| t + 1)
    }

    /// The live partitions of `topic`, in partition-number order.
    pub fn topic_partitions(&self, topic: u32) -> impl Iterator<Item = usize> + '_ {
        let of = &self.topic_of;
        (0..of.len()).filter(move |&i| of[i] == topic)
    }

    /// `replay(RemoveTopicRecord)`: the topic's partitions leave every list. In the ELR
    /// index, `removeTopicEntryForBroker` runs for each member of a partition's current
    /// ELR and drops every entry that broker has under the topic; entries of brokers no
    /// current ELR holds (a ClearElrRecord left them, `Cluster::elr_index`) stay, now
    /// naming no topic: [`DELETED_PARTITION`].
    pub(crate) fn remove_topic(&mut self, topic: u32) {
        let gone: Vec<usize> = self.topic_partitions(topic).collect();
        let members: Vec<BrokerId> = gone
            .iter()
            .flat_map(|&p| self.partitions[p].elr.iter().copied())
            .collect();
        let moved = |p: usize| p - gone.iter().filter(|&&g| g < p).count();
        let index = std::mem::take(&mut self.elr_index);
        self.elr_index = (index.into_iter())
            .filter_map(|(b, p)| match (gone.contains(&p), p == DELETED_PARTITION) {
                (false, true) => Some((b, p)),
                (false, false) => Some((b, moved(p))),
                (true, _) => (!members.contains(&b)).then_some((b, DELETED_PARTITION)),
            })
            .collect();
        self.elr_index.sort_unstable();
        self.reassigning.retain(|p| !gone.contains(p));
        for p in &mut self.reassigning {
            *p = moved(*p);
        }
        for &p in gone.iter().rev() {
            self.partitions.remove(p);
            self.ghosts.remove(p);
            self.topic_of.remove(p);
            if p < self.runtime.partitions.len() {
                self.runtime.partitions.remove(p);
            }
        }
    }

    /// The state as the checks compare it with the state after `deleted`'s step: without
    /// the topic the step deleted, so that the same index names the same partition on both
    /// sides (`check::invariants::before_step`).
    pub fn without_topic_of(&self, deleted: usize) -> Cluster {
        let mut out = self.clone();
        if let Some(&topic) = self.topic_of.get(deleted) {
            out.remove_topic(topic);
        }
        out
    }
}

/// The partition number `topicInfo.parts.values().iterator().next()` returns for a topic
/// of `count` partitions: the parts are a TimelineHashMap (server-common's BaseHashTable:
/// capacity 2 at first, doubled and rehashed slot by slot once (size + 1) × 0.75 passes it;
/// slot = the top log2(capacity) bits of the key × -7046029254386353131, Fibonacci
/// hashing), inserted in partition order, and its iterator walks the slots in order, each
/// slot's list from its last element (`SnapshottableHashTable.CurrentIterator`). With
/// three partitions that is partition 2, not 0. Found by conformance (4.4.0 accepted an
/// assignment the model refused while partition 0 was reassigned).
pub fn first_in_hash_order(count: usize) -> usize {
    let slot = |key: usize, capacity: usize| {
        let shift = 65 - (usize::BITS - capacity.leading_zeros());
        ((key as i64).wrapping_mul(-7_046_029_254_386_353_131) as u64 >> shift) as usize
    };
    let mut table: Vec<Vec<usize>> = vec![Vec::new(); 2];
    for key in 0..count {
        if (key + 1) as f64 * 0.75 > table.len() as f64 {
            let mut grown = vec![Vec::new(); table.len() * 2];
            for k in table.into_iter().flatten() {
                let at = slot(k, grown.len());
                grown[at].push(k);
            }
            table = grown;
        }
        let at = slot(key, table.len());
        table[at].push(key);
    }
    table.iter().find_map(|s| s.last().copied()).unwrap_or(0)
}

/// `createPartitions` with one manual assignment: the topic of partition `index` grows by
/// one partition on `replicas`. The replication factor is the replica count of the
/// partition the topic's hash map lists first ([`first_in_hash_order`]; its replica list
/// includes the adding replicas while it is reassigned); the assignment is validated as at
/// creation (`validateManualPartitionAssignment`, INVALID_REPLICA_ASSIGNMENT also for a
/// count other than that factor); ISR = the active replicas (none active:
/// INVALID_REPLICA_ASSIGNMENT), leader = the ISR's first; the topic's configs carry over.
pub(crate) fn create_partitions(
    c: &mut Cluster,
    index: usize,
    replicas: &[BrokerId],
) -> Result<Outcome, Rejection> {
    let Some(&topic) = c.topic_of.get(index) else {
        return Err((ErrorCode::UnknownTopicOrPartition, "no such partition"));
    };
    if c.partitions.len() >= PARTITIONS_MAX {
        return Err((
            ErrorCode::InvalidRequest,
            "partition limit of the model reached",
        ));
    }
    let parts: Vec<usize> = c.topic_partitions(topic).collect();
    let rf = c.partitions[parts[first_in_hash_order(parts.len())]]
        .replicas
        .len();
    let template = &c.partitions[parts[0]];
    let config = TopicConfig {
        unclean_leader_election_enable: template.unclean_leader_election_enable,
        diskless: template.diskless,
        remote_storage: template.remote_storage,
        min_insync_replicas: template.min_insync_replicas,
        replication_factor: template.topic_replication_factor,
    };
    super::commit::validate_assignment(c, replicas)?;
    if replicas.len() != rf {
        return Err((
            ErrorCode::InvalidReplicaAssignment,
            "the assignment's replica count is not the topic's replication factor",
        ));
    }
    let none_active = "every replica of the new partition is fenced or shutting down";
    push_partition(c, replicas, topic, config, none_active)
}

/// `deleteTopics` of the topic of partition `index` (by name, as the broker's API resolves
/// it first: an unknown one is UNKNOWN_TOPIC_OR_PARTITION): one RemoveTopicRecord.
pub(crate) fn delete_topic(c: &mut Cluster, index: usize) -> Result<Outcome, Rejection> {
    let Some(&topic) = c.topic_of.get(index) else {
        return Err((ErrorCode::UnknownTopicOrPartition, "no such partition"));
    };
    c.remove_topic(topic);
    Ok(Outcome::accepted(Vec::new()))
}

#[cfg(test)]
mod tests {
    use super::first_in_hash_order;

    /// Worked by hand from BaseHashTable: keys 0 and 1 fill slots 0 and 1 of the first two;
    /// the third doubles the table, key 1 moves to slot 2 and key 2 joins key 0 in slot 0,
    /// whose list is read from its end.
    #[test]
    fn the_hash_order_starts_where_upstream_starts() {
        assert_eq!(first_in_hash_order(1), 0);
        assert_eq!(first_in_hash_order(2), 0);
        assert_eq!(first_in_hash_order(3), 2);
    }
}
