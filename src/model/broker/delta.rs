//! Metadata deltas on the broker side (`ReplicaManager.applyDelta`): every live broker
//! applies the newest registration of each partition, as leader (`makeLeader`) or follower
//! (`applyLocalFollowersDelta`, rule `leader-change`; routing by rule `seal-admission`).

use super::{
    consolidating, maybe_increment_leader_hw, refresh_in_sync, truncate_to_seal, BrokerConfig,
    LeaderState, Local, PartitionRuntime,
};
use crate::model::{BrokerId, BrokerState, Cluster, Partition, Rules, NO_LEADER};

/// Apply the newest registrations on every live broker (fenced brokers are down and catch
/// up when unfenced). Creates the local replica of a new assignment, drops removed ones.
pub fn sync(c: &mut Cluster, rules: &dyn Rules) {
    while c.runtime.partitions.len() < c.partitions.len() {
        c.runtime.partitions.push(PartitionRuntime::default());
    }
    // One broker-side entry per partition, never more: the two sides compare runtimes.
    assert_eq!(c.runtime.partitions.len(), c.partitions.len());
    super::tell(rules, || image(c));
    for p in 0..c.partitions.len() {
        sync_partition(c, rules, p);
    }
    refresh_in_sync(c);
}

/// The registrations as the brokers' metadata image holds them now.
fn image(c: &Cluster) -> super::BrokerCall {
    let with = |state: BrokerState| -> Vec<BrokerId> {
        c.brokers
            .iter()
            .filter(|&&(_, s)| s == state)
            .map(|&(b, _)| b)
            .collect()
    };
    super::BrokerCall::Image {
        fenced: with(BrokerState::Fenced),
        shutting_down: with(BrokerState::ControlledShutdown),
    }
}

fn sync_partition(c: &mut Cluster, rules: &dyn Rules, p: usize) {
    // Fast path (this runs after every event, for every partition): every replica has
    // already applied the current registration, so there is nothing to play.
    let (part, rt) = (&c.partitions[p], &c.runtime.partitions[p]);
    let settled = rt.locals.len() == part.replicas.len()
        && rt.locals.iter().all(|l| {
            l.applied_partition_epoch == part.partition_epoch && part.replicas.contains(&l.broker)
        });
    if settled {
        return;
    }
    let now = c.runtime.now_ms;
    // The registration as it is now (the deltas below run no controller request, but the
    // loop keeps to what it started from).
    let part = &c.partitions[p];
    let (leader, leader_epoch, partition_epoch) =
        (part.leader, part.leader_epoch, part.partition_epoch);
    reshape_locals(c, rules, p, now);
    let brokers = c.partitions[p].replicas;
    for &b in &brokers {
        if !c.is_up(b) {
            continue;
        }
        let local = c.runtime.partitions[p].local(b).expect("created above");
        if local.applied_partition_epoch == partition_epoch {
            continue;
        }
        let new_leader_epoch = leader_epoch > local.applied_leader_epoch;
        super::tell(rules, || {
            let part = &c.partitions[p];
            super::BrokerCall::Delta {
                broker: b,
                partition: p,
                replicas: part.replicas.to_vec(),
                isr: part.isr.to_vec(),
                leader,
                leader_epoch,
                partition_epoch,
                min_insync_replicas: part.min_insync_replicas,
                now_ms: now,
            }
        });
        if leader == b {
            make_leader(c, p, b, new_leader_epoch);
        } else {
            follower_delta(c, rules, p, b, new_leader_epoch);
        }
        let local = c.runtime.partitions[p].local_mut(b).expect("created above");
        local.previous_leader = Some(leader);
        local.applied_leader_epoch = leader_epoch;
        local.applied_partition_epoch = partition_epoch;
    }
}

/// The partition's local replicas made the registration's: removed replicas dropped (each
/// told), new ones created fresh, sorted by broker; a leader state that is no longer the
/// registration's leader's dropped.
fn reshape_locals(c: &mut Cluster, rules: &dyn Rules, p: usize, now: i64) {
    let part = &c.partitions[p];
    let leader = part.leader;
    let rt = &mut c.runtime.partitions[p];
    for l in rt
        .locals
        .iter()
        .filter(|l| !part.replicas.contains(&l.broker))
    {
        let broker = l.broker;
        super::tell(rules, || super::BrokerCall::Remove {
            broker,
            partition: p,
        });
    }
    rt.locals.retain(|l| part.replicas.contains(&l.broker));
    for &b in &part.replicas {
        if rt.local(b).is_none() {
            rt.locals.push(Local::fresh(b, now));
        }
    }
    rt.locals.sort_unstable_by_key(|l| l.broker);
    // A registration with no leader takes the slot from nobody: the old leader keeps its
    // state until it applies a delta itself (a fenced one applies none until it is back,
    // and then, leading again, is no new leader and keeps what it recorded of each
    // follower: `Partition.makeLeader`, `isNewLeader` false). Found by the real brokers of
    // 4.4.0 (`broker:hw`). An old leader a registration replaced by another broker keeps
    // it aside while its replica still leads (it applies the delta that demotes it only
    // when it is up: `make_follower` drops it then); leading again without having applied
    // one, it takes it back. Found by the real brokers of 4.2.2 (`broker:hw`).
    let replaced = |l: &LeaderState| {
        (leader != NO_LEADER && l.broker != leader) || !part.replicas.contains(&l.broker)
    };
    if rt.leader.as_ref().is_some_and(replaced) {
        let old = rt.leader.take().expect("replaced");
        if (rt.local(old.broker)).is_some_and(|l| l.is_leader) {
            rt.stale_leaders.retain(|l| l.broker != old.broker);
            rt.stale_leaders.push(old);
            rt.stale_leaders.sort_unstable_by_key(|l| l.broker);
        }
    }
    rt.stale_leaders
        .retain(|l| part.replicas.contains(&l.broker));
}

/// `Partition.makeLeader` + `ReplicaManager.applyLocalLeadersDelta`: reset the recorded
/// state when the leader epoch rises, reconcile a switched leader, (re)start the leader's
/// own consolidation on a consolidating topic.
fn make_leader(c: &mut Cluster, p: usize, b: BrokerId, new_leader_epoch: bool) {
    let now = c.runtime.now_ms;
    let part = &c.partitions[p];
    let config = c.runtime.config;
    let rt = &mut c.runtime.partitions[p];
    let local = rt.local_mut(b).expect("leader hosts a replica");
    let is_new_leader = !local.is_leader;
    local.is_leader = true;
    local.stop_classic();
    let leo = local.leo();
    if new_leader_epoch || rt.leader.is_none() {
        // A leader that applied no delta since a registration replaced it.
        let kept = (rt.stale_leaders.iter()).position(|s| s.broker == b && !is_new_leader);
        let mut state = match (rt.leader.take(), kept) {
            // Only the broker that leads now can have state here (`sync_partition` drops
            // any other's; demotion and restart drop it too), so it is never a new leader.
            (Some(s), _) => {
                assert!(
                    !is_new_leader,
                    "p{p}: leader state left over for new leader {b}"
                );
                s
            }
            (None, Some(at)) => rt.stale_leaders.remove(at),
            (None, None) => LeaderState {
                broker: b,
                leader_epoch: part.leader_epoch,
                leader_epoch_start_offset: leo,
                since_ms: now,
                epoch_since_ms: now,
                recorded: Vec::new(),
            },
        };
        state.epoch_since_ms = now;
        state.leader_epoch = part.leader_epoch;
        state.leader_epoch_start_offset = leo;
        // makeLeader: the new epoch starts at the log end (`maybeAssignEpochStartOffset`).
        let local = rt.local_mut(b).expect("leader hosts a replica");
        local.log.assign(part.leader_epoch, leo);
        local.clear_truncating();
        if is_new_leader {
            state.since_ms = now;
        }
        for &r in part.replicas.iter().filter(|&&r| r != b) {
            state
                .rec_mut(r)
                .reset(now, leo, is_new_leader, part.isr.contains(&r));
        }
        state.recorded.retain(|(r, _)| part.replicas.contains(r));
        rt.leader = Some(state);
    }
    let local = rt.local_mut(b).expect("leader hosts a replica");
    reconcile_switched_leader(&config, part, local);
    // makeLeader ends with maybeIncrementLeaderHW: a leader alone in the ISR owns its end.
    maybe_increment_leader_hw(c, p);
}

/// `maybeReconcileSwitchedLeader` and the leader's own consolidation: a log past a committed
/// seal is cut to it unless the part above is consolidated data, the high watermark is
/// raised to the seal; a consolidating leader consolidates unless the seal is pending.
fn reconcile_switched_leader(config: &BrokerConfig, part: &Partition, local: &mut Local) {
    // `applyLocalLeadersDelta` removes every partition the delta leads here from both
    // fetcher managers first (the classic one `make_leader` stopped), and the reconciler adds
    // a consolidating one again after the cut: its consolidation fetch state starts over at
    // the new end on every leader delta, and a failed mark goes (aiven/inkless 5f22fac12b).
    local.stop_consolidation();
    if part.seal >= 0 {
        truncate_to_seal(config, part, local);
        local.hw = local.hw.max(part.seal).min(local.leo());
    }
    let seal_ready = part.seal == -1 || part.seal >= 0;
    if consolidating(config, part) && seal_ready {
        local.start_consolidation();
    }
}

/// What a follower's delta is judged on: the new registration as the follower sees it,
/// and how it differs from the last one it applied.
struct FollowerView {
    leader: BrokerId,
    leader_epoch: i32,
    seal: i64,
    in_isr: bool,
    consolidating: bool,
    controlled_shutdown: bool,
    /// `previousLeaderId` was set and differs from the new leader.
    leader_moved: bool,
    /// The delta raises the leader epoch this follower applied.
    new_leader_epoch: bool,
}

/// `ReplicaManager.applyLocalFollowersDelta`, branches B1 and B2 (docs/model/inkless.md#leader-change).
fn follower_delta(
    c: &mut Cluster,
    rules: &dyn Rules,
    p: usize,
    r: BrokerId,
    new_leader_epoch: bool,
) {
    let part = &c.partitions[p];
    let consolidating = consolidating(&c.runtime.config, part);
    let controlled_shutdown = c.broker_state(r) == Some(BrokerState::ControlledShutdown);
    let rt = &mut c.runtime.partitions[p];
    if rt.leader.as_ref().is_some_and(|l| l.broker == r) {
        rt.leader = None;
    }
    // Applying a delta as a follower ends any leadership its Partition kept.
    rt.stale_leaders.retain(|s| s.broker != r);
    let local = rt.local_mut(r).expect("follower hosts a replica");
    let view = FollowerView {
        leader: part.leader,
        leader_epoch: part.leader_epoch,
        seal: part.seal,
        in_isr: part.isr.contains(&r),
        consolidating,
        controlled_shutdown,
        leader_moved: local
            .previous_leader
            .is_some_and(|prev| prev != part.leader),
        new_leader_epoch,
    };
    local.is_leader = false;
    if !part.diskless && part.leader != NO_LEADER {
        // A follower of a new leader (or a fresh one after a restart) finds where its log
        // parts from the leader's: at once, or before its first fetch (rule `truncation`).
        let leader_changed = local.previous_leader != Some(part.leader);
        if let Some(to) = rules.truncate_on_new_leader(leader_changed, local.hw) {
            local.log.truncate_to(to);
            local.hw = local.hw.min(local.leo());
            // Upstream (before KIP-101, `makeFollowers`): the fetcher was removed before
            // this cut and is added again after it, at the new end (a leader change is a
            // new leader epoch, so B2 below restarts or stops it here too).
            local.fetchers_follow_cut();
        }
        if rules.truncates_before_fetch(leader_changed, new_leader_epoch) {
            local.mark_truncating();
        }
    }
    // maybeTruncateSwitchedFollower, before the fetchers restart. A fetcher restarts only on
    // a new leader epoch (B1/B2 below); after a seal commit, an ISR change or an operator
    // seal (`AlterDisklessSwitch`, partition epoch only) the running fetcher keeps its old
    // position past the cut, as upstream, and its next answer meets the append check
    // (docs/model/fetcher.md).
    truncate_to_seal(&c.runtime.config, part, local);
    if part.diskless && !consolidating {
        switched_follower_delta(rules, &view, local);
    } else {
        classic_or_consolidating_follower_delta(rules, &view, local);
    }
}

/// B1: a switched, non-consolidating follower (a born-diskless one, seal -1, has no classic
/// log and neither clause below starts a fetch for it).
fn switched_follower_delta(rules: &dyn Rules, v: &FollowerView, local: &mut Local) {
    let s = v.seal;
    // A committed seal: catch up, or (per the rule) prove itself to a moved leader.
    let catch_up = s >= 0
        && !v.controlled_shutdown
        && (local.hw < s
            || !v.in_isr
            || rules.catch_up_fetch_on_delta(v.leader_moved, v.new_leader_epoch));
    // Pending (#600): restart on every new leader epoch.
    let pending_restart = s == -2 && v.new_leader_epoch;
    if catch_up || pending_restart {
        // An add without a remove: a running fetcher of the same leader epoch keeps its
        // state, offset included (`AbstractFetcherThread.partitionFetchState`).
        local.start_classic(v.leader_epoch);
    }
}

/// B2: a classic or consolidating follower restarts its fetchers on a new leader epoch
/// (with #760 also on every delta while a switched one waits for the ISR): on
/// consolidation when it is ready for it and not diverted, else on the classic fetcher.
fn classic_or_consolidating_follower_delta(rules: &dyn Rules, v: &FollowerView, local: &mut Local) {
    if v.controlled_shutdown && (v.leader == NO_LEADER || !v.in_isr) {
        local.stop_fetchers();
        return;
    }
    let s = v.seal;
    let gated = rules.isr_gated_routing();
    let held_for_isr = gated && v.consolidating && s >= 0 && !v.in_isr;
    if !(v.new_leader_epoch || held_for_isr) {
        return;
    }
    let diverted =
        v.consolidating && rules.divert_consolidating_follower(v.leader_moved, v.new_leader_epoch);
    let ready =
        v.consolidating && (s == -1 || (s >= 0 && local.leo() >= s && (!gated || v.in_isr)));
    let to_consolidation = ready && !diverted;
    // Removal before the restart: each manager drops its own subset; the fixed diversion
    // also drops diverted partitions from consolidation; #760 drops the whole set from both.
    if gated {
        local.stop_fetchers();
    } else if to_consolidation {
        local.stop_consolidation();
    } else {
        local.stop_classic();
        if diverted && rules.evicts_consolidation_on_divert() {
            local.stop_consolidation();
        }
    }
    if to_consolidation {
        local.start_consolidation();
    } else if v.leader != NO_LEADER {
        local.start_classic(v.leader_epoch);
    }
}
