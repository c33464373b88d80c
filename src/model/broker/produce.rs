//! Produce on a classic topic and its acknowledgement (`Partition.appendRecordsToLeader`,
//! `Partition.checkEnoughReplicasReachOffset`; confluentinc/kafka 06d492d813,
//! core/src/main/scala/kafka/cluster/Partition.scala). acks=1 is acknowledged by the
//! leader's append; acks=all is refused when the ISR is smaller than the effective `min.insync.replicas`
//! (NOT_ENOUGH_REPLICAS), waits in purgatory until the leader's high watermark passes the
//! records, and fails if the broker stops leading first. What acks=all acknowledged is a
//! ghost (`Ghost::acked`): the invariants check that it is never lost.
//!
//! Also what a consumer can read (`Ghost::read`: a consumer fetch reads up to the high
//! watermark, `FetchIsolation.of` → HIGH_WATERMARK, server-common/src/main/java/org/apache/
//! kafka/server/storage/log/FetchIsolation.java), DeleteRecords
//! (`Partition.deleteRecordsOnLeader`) and flushing a broker's logs.

use super::maybe_increment_leader_hw;
use crate::model::log::Log;
use crate::model::{
    AckedRun, Acks, BrokerId, Cluster, ErrorCode, Ghost, Rules, NO_LEADER, READ_RUNS_MAX,
};

/// A produce request with acks=all waiting for the high watermark (`DelayedProduce`).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct PendingAck {
    /// The leader that appended the records.
    pub leader: BrokerId,
    pub records: AckedRun,
}

/// Most produce requests waiting in one partition's purgatory (one per event at most).
pub const PENDING_MAX: usize = 1024;

/// Append `records` on the leader of classic partition `p` in its leader epoch.
pub fn append(
    c: &mut Cluster,
    rules: &dyn Rules,
    p: usize,
    records: i64,
    acks: Acks,
) -> Result<(), (ErrorCode, &'static str)> {
    let part = &c.partitions[p];
    let (leader, epoch) = (part.leader, part.leader_epoch.max(0));
    if leader == NO_LEADER || !c.is_active(leader) {
        return Err((ErrorCode::InvalidRequest, "no live leader"));
    }
    super::tell(rules, || super::BrokerCall::Produce {
        partition: p,
        broker: leader,
        records,
        acks,
        min_insync_replicas: part.min_insync_replicas,
        now_ms: c.runtime.now_ms,
    });
    // The broker's effective min ISR: the topic's `min.insync.replicas` capped at the
    // replication factor (`Partition.effectiveMinIsr`, core/src/main/scala/kafka/cluster/
    // Partition.scala, confluentinc/kafka 06d492d813), as the controller caps it; the model
    // used the raw config until the real brokers of 4.4.0 appended where it refused.
    let min_isr = crate::model::builder::effective_min_isr(part);
    if acks == Acks::All && (part.isr.len() as i64) < min_isr {
        return Err((
            ErrorCode::NotEnoughReplicas,
            "the isr is smaller than min.insync.replicas",
        ));
    }
    let rt = &mut c.runtime.partitions[p];
    let local = rt
        .local_mut(leader)
        .ok_or((ErrorCode::InvalidRequest, "no live leader"))?;
    let start = local.leo();
    local.log.append(epoch, records);
    let run = AckedRun {
        epoch,
        start,
        end: local.leo(),
    };
    match acks {
        // acks=1 is acknowledged by the append alone and promises nothing if the leader
        // fails before its followers fetch: Kafka's durability promise is for acks=all.
        Acks::One => {}
        Acks::All => {
            assert!(
                rt.pending_acks.len() < PENDING_MAX,
                "pending produces bounded"
            );
            rt.pending_acks.push(PendingAck {
                leader,
                records: run,
            });
        }
    }
    // appendRecordsToLeader: an ISR of one moves the high watermark at once.
    maybe_increment_leader_hw(c, p);
    Ok(())
}

/// After every event: each waiting acks=all produce is acknowledged once its leader's high
/// watermark passes its records (with the ISR still at min.insync.replicas, else it fails
/// with NOT_ENOUGH_REPLICAS_AFTER_APPEND), and fails once that broker no longer leads.
pub fn complete_pending(c: &mut Cluster) {
    for p in 0..c.runtime.partitions.len() {
        if c.runtime.partitions[p].pending_acks.is_empty() {
            continue;
        }
        let part = &c.partitions[p];
        let rt = &mut c.runtime.partitions[p];
        // The broker leading now (after `sync`, the leader state is the registration's
        // leader's or absent) and its high watermark.
        let leading = rt.leader.as_ref().map(|l| l.broker);
        let leader_hw = leading.and_then(|b| rt.local(b)).map(|l| l.hw);
        // `checkEnoughReplicasReachOffset` judges the effective min ISR too.
        let enough = part.isr.len() as i64 >= crate::model::builder::effective_min_isr(part);
        let mut acked = Vec::new();
        let mut kept = Vec::new();
        for pending in &rt.pending_acks {
            if leading != Some(pending.leader) {
                continue; // NOT_LEADER_OR_FOLLOWER: the producer is told it failed
            }
            match leader_hw {
                Some(hw) if hw >= pending.records.end => {
                    if enough {
                        acked.push(pending.records);
                    }
                }
                _ => kept.push(*pending),
            }
        }
        rt.pending_acks = kept;
        c.ghosts[p].acked.extend(acked);
    }
}

/// The leader's high watermark moved from `from` to `to`: every record it passed can be
/// read by a consumer now. Extends `Ghost::read` with the leader's records from where it
/// ends (a record is read once, the first time a high watermark passes it).
pub(super) fn note_reads(ghost: &mut Ghost, leader: &Log, to: i64) {
    let from = ghost.read_end.max(leader.start());
    let to = to.min(leader.end());
    if to <= from {
        ghost.read_end = ghost.read_end.max(to);
        return;
    }
    let entries = leader.entries();
    for (i, e) in entries.iter().enumerate() {
        let next = entries.get(i + 1).map_or(leader.end(), |n| n.start_offset);
        let (lo, hi) = (e.start_offset.max(from), next.min(to));
        if lo >= hi {
            continue;
        }
        let full = ghost.read.len() >= READ_RUNS_MAX;
        match ghost.read.last_mut() {
            Some(last) if last.epoch == e.epoch && last.end == lo => last.end = hi,
            _ if full => return,
            _ => ghost.read.push(AckedRun {
                epoch: e.epoch,
                start: lo,
                end: hi,
            }),
        }
    }
    ghost.read_end = to;
}

/// DeleteRecords on classic partition `p` (`Partition.deleteRecordsOnLeader` with
/// `UnifiedLog.maybeIncrementLogStartOffset`, confluentinc/kafka 06d492d813): the leader's
/// log start moves to `offset` (-1, `DeleteRecordsRequest.HIGH_WATERMARK`: to its high
/// watermark). Beyond the high watermark, or below -1: OFFSET_OUT_OF_RANGE. Followers take
/// the new start from their next fetch answer. Diskless topics are not modelled here.
pub fn delete_records(
    c: &mut Cluster,
    rules: &dyn Rules,
    p: usize,
    offset: i64,
) -> Result<(), (ErrorCode, &'static str)> {
    let part = &c.partitions[p];
    if part.diskless {
        return Err((
            ErrorCode::InvalidRequest,
            "DeleteRecords is modelled on classic topics only",
        ));
    }
    let leader = part.leader;
    let active = c.is_active(leader);
    let rt = &mut c.runtime.partitions[p];
    let serving = active && rt.leader.as_ref().is_some_and(|l| l.broker == leader);
    let Some(local) = rt.local_mut(leader).filter(|_| serving) else {
        return Err((ErrorCode::NotLeaderOrFollower, "no live leader"));
    };
    super::tell(rules, || super::BrokerCall::DeleteRecords {
        partition: p,
        broker: leader,
        offset,
    });
    let to = if offset == -1 { local.hw } else { offset };
    if to < 0 || to > local.hw {
        return Err((
            ErrorCode::OffsetOutOfRange,
            "the offset is beyond the leader's high watermark",
        ));
    }
    // Only the log start moves, never an end: no fetch offset is touched, here or when a
    // follower takes the start from an answer (upstream the same).
    local.log.increment_start(to);
    let ghost = &mut c.ghosts[p];
    ghost.deleted_below = ghost.deleted_below.max(to);
    Ok(())
}

/// The broker flushes every local log (`UnifiedLog.flush`): its recovery points reach the
/// log ends.
pub fn flush_broker(c: &mut Cluster, broker: BrokerId) {
    for rt in &mut c.runtime.partitions {
        if let Some(l) = rt.local_mut(broker) {
            l.log.flush();
        }
    }
}
