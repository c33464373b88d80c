//! The leader's high watermark (`Partition.maybeIncrementLeaderHW`): which followers it
//! waits for, and when it moves.

use super::ReplicaState;
use crate::model::{BrokerId, Cluster};

/// `Partition.maybeIncrementLeaderHW` for classic and pending partitions: the smallest
/// recorded offset over the leader's end and every follower of the assignment in the ISR
/// or waited for ([`waits_for`]); no record counts as -1. Never moves down, and not at all
/// under the effective min ISR (`isUnderMinIsr`, docs/model/brokers.md#high-watermark).
pub(super) fn maybe_increment_leader_hw(c: &mut Cluster, p: usize) {
    let (replicas, isr) = (c.partitions[p].replicas, c.partitions[p].isr);
    maybe_increment_leader_hw_in(c, p, &replicas, &isr, &isr);
}

/// [`maybe_increment_leader_hw`] over the assignment and ISR the leader has applied (a
/// history's AlterPartition, before the leader has its answer: a completion in it may have
/// dropped a replica that holds the high watermark), waiting for `maximal` (`maximalIsr`:
/// with an expansion sent and not answered); the min-ISR check reads the committed `isr`.
pub(super) fn maybe_increment_leader_hw_in(
    c: &mut Cluster,
    p: usize,
    replicas: &[BrokerId],
    isr: &[BrokerId],
    maximal: &[BrokerId],
) {
    let part = &c.partitions[p];
    if part.diskless && part.seal != -2 {
        return; // switched: the seal and consolidation own the high watermark
    }
    // `effectiveMinIsr`: min.insync.replicas capped at the replication factor.
    let min_isr = i64::from(part.min_insync_replicas).min(replicas.len() as i64);
    if (isr.len() as i64) < min_isr {
        return;
    }
    let rt = &c.runtime.partitions[p];
    let Some(state) = rt.leader.as_ref() else {
        return;
    };
    let Some(lead) = rt.local(state.broker) else {
        return;
    };
    let leader_leo = lead.leo();
    let mut hw = leader_leo;
    for &r in replicas.iter().filter(|&&r| r != state.broker) {
        let rec = state.rec(r);
        if maximal.contains(&r) || rec.is_some_and(|s| waits_for(c, r, s, leader_leo)) {
            hw = hw.min(rec.map_or(-1, |s| s.leo));
        }
    }
    let (classic, leader) = (!part.diskless, state.broker);
    let lead = c.runtime.partitions[p].local_mut(leader).expect("listed");
    if hw > lead.hw {
        lead.hw = hw;
        if classic {
            // Records below the leader's high watermark are readable by consumers.
            super::produce::note_reads(&mut c.ghosts[p], &lead.log, hw);
        }
    }
}

/// `shouldWaitForReplicaToJoinIsr` in `maybeIncrementLeaderHW`: a follower outside the
/// ISR still holds the high watermark while it is caught up (`ReplicaState.isCaughtUp`:
/// at the leader's end, or caught up within `replica.lag.time.max.ms`) and ISR-eligible
/// (`isReplicaIsrEligible`: not fenced, not in controlled shutdown, and the broker epoch
/// stored by its fetches is its current one, `isBrokerEpochIsrEligible`). Upstream
/// core/src/main/scala/kafka/cluster/Partition.scala at confluentinc/kafka `06d492d813`
/// (the wait came with KAFKA-15021, `8ad0ed3e61`, which stopped bumping the leader epoch
/// on an ISR shrink). Upstream's reason: a follower catching up to a leader alone in the
/// ISR would otherwise keep falling behind a HW that follows the leader's end, and never
/// rejoin. Found by the real brokers of 4.4.0 (`broker:hw`).
fn waits_for(c: &Cluster, r: BrokerId, s: &ReplicaState, leader_leo: i64) -> bool {
    let lag = c.runtime.config.replica_lag_time_max_ms;
    s.is_caught_up(leader_leo, c.runtime.now_ms, lag) && c.is_active(r) && s.epoch_current
}
