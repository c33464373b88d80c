//! The operation table: for each operation, when it applies in the guide model's state
//! and how it draws its event from the bytes, declared side by side in [`OPS`].
//!
//! Each precondition is written once. A precondition on one partition (or one broker
//! state) is a named item: the row's `applies` asks whether any partition satisfies it,
//! and the constructor draws among those that do, so the two cannot drift apart.

use super::{Draw, Guide, GEN_BROKERS_MAX, GEN_PARTITIONS_MAX, GEN_TARGET_MAX};
use crate::model::broker::Local;
use crate::model::dirs::{self, DIRS_PER_BROKER};
use crate::model::{
    Acks, BrokerId, BrokerState, Cluster, ElectionType, Event, LeaderRecoveryState, Partition,
    Survives, SEAL_NONE, SEAL_PENDING,
};
use arbitrary::Unstructured;

/// One operation of the generator.
pub(super) struct OpSpec {
    /// The `op` tag of the events it builds, as in history files (the tests hold each
    /// constructor to it).
    pub name: &'static str,
    /// Whether it makes sense in the guide model's current state. Only applicable
    /// operations are drawn, so a constructor may rely on its precondition.
    pub applies: fn(&Guide) -> bool,
    /// Draws the event; `None` when the state leaves nothing to draw (then no event).
    pub build: fn(&mut Guide, &mut Unstructured) -> Option<Event>,
}

/// Every operation, in draw order: a byte's meaning depends on this order, so append
/// new operations rather than insert them. Index 0 must stay the harmless
/// `list_reassignments`: it is always applicable, and a draw past the end of the input
/// picks it. One line per row, unformatted, so that it reads as a table.
#[rustfmt::skip]
pub(super) const OPS: &[OpSpec] = &[
    // name                 applies when                                       constructor
    op("list_reassignments",    |_| true,                                          list),
    op("reassign",              |g| !g.cluster().partitions.is_empty(),            reassign),
    op("cancel_reassignment",   |g| g.any_partition(reassigning),                  cancel),
    op("alter_partition",       |g| g.any_partition(has_leader),                   alter_partition),
    op("fence_broker",          |g| g.faults_left() && g.any_broker_in(FENCEABLE), fence),
    op("unfence_broker",        |g| g.any_broker_in(FENCED),                       unfence),
    op("controlled_shutdown",   |g| g.faults_left() && g.any_broker_in(ACTIVE),    shutdown),
    op("elect_leaders",         |g| g.any_partition(election_needed),              elect),
    op("create_partition",      |g| g.creations() < GEN_PARTITIONS_MAX,            create),
    op("produce",               |g| g.any_partition(accepts_produce),              produce),
    op("advance_time",          |_| true,                                          advance_time),
    op("follower_fetch",        |g| g.any_local(fetching_classic),                 fetch),
    op("switch_start",          |g| g.any_partition(switchable),                   switch_start),
    op("seal_commit",           |g| g.any_partition(seal_pending),                 seal_commit),
    op("alter_diskless_switch", |g| g.any_partition(switching_diskless),           alter_switch),
    op("stall_broker",          |g| g.faults_left(),                               stall),
    op("resume_broker",         |g| !g.cluster().runtime.stalled.is_empty(),         resume),
    op("restart_broker",        |g| g.faults_left(),                               restart),
    op("delete_records",        |g| g.any_partition(deletable),                    delete_records),
    op("flush_broker",          |_| true,                                          flush),
    op("alter_topic_config",    |g| g.any_partition(|_, _| true),                  alter_config),
    op("lagging_heartbeat",     |g| g.any_broker_in(FENCED),                       lagging),
    op("unregister_broker",     |g| g.faults_left() && g.any_broker_in(FENCED),    unregister),
    op("create_partitions",     |g| g.creations() <= GEN_PARTITIONS_MAX && g.any_partition(classic_topic), add_partition),
    op("delete_topic",          |g| g.topics() >= 2,                               delete_topic),
    op("update_features",       |g| g.feature_change_left(),                       update_features),
    op("assign_replica_dir",    |g| g.any_partition(placeable),                    assign_dir),
    op("log_dir_offline",       |g| g.faults_left() && !failing_dirs(g).is_empty(), dir_offline),
];

const fn op(
    name: &'static str,
    applies: fn(&Guide) -> bool,
    build: fn(&mut Guide, &mut Unstructured) -> Option<Event>,
) -> OpSpec {
    OpSpec {
        name,
        applies,
        build,
    }
}

/// Swarm testing: a weight per operation (0 disables it), drawn once per history.
/// `list_reassignments` keeps weight 1 so some operation is always applicable.
pub(super) fn swarm_weights(u: &mut Unstructured) -> [u32; OPS.len()] {
    let mut w = [0u32; OPS.len()];
    w[0] = 1;
    for slot in w.iter_mut().skip(1) {
        *slot = u.int(0, 3) as u32;
    }
    if w[1..].iter().all(|&x| x == 0) {
        w[1..].fill(1);
    }
    w
}

/// Index into [`OPS`] of an applicable operation, drawn by weight.
pub(super) fn pick_op(g: &Guide, u: &mut Unstructured, weights: &[u32; OPS.len()]) -> usize {
    // Each draw's weights on the stack (this runs once per event): an operation that does
    // not apply weighs 0, which the walk below skips as the filtered list did.
    let mut live = [0u32; OPS.len()];
    for (i, w) in live.iter_mut().enumerate() {
        if weights[i] > 0 && (OPS[i].applies)(g) {
            *w = weights[i];
        }
    }
    let total: u32 = live.iter().sum();
    let mut pick = u.int(0, total as usize - 1) as u32;
    for (i, &w) in live.iter().enumerate().filter(|(_, &w)| w > 0) {
        if pick < w {
            return i;
        }
        pick -= w;
    }
    0
}

// Preconditions on one partition.

fn reassigning(_: &Cluster, p: &Partition) -> bool {
    p.is_reassigning()
}

fn has_leader(_: &Cluster, p: &Partition) -> bool {
    p.leader >= 0
}

/// ElectLeaders would do something: a leaderless partition with an active replica
/// (unclean), or an in-sync, active preferred replica that does not lead (preferred).
fn election_needed(c: &Cluster, p: &Partition) -> bool {
    if p.leader < 0 {
        return p.replicas.iter().any(|&r| c.is_active(r));
    }
    p.replicas
        .first()
        .is_some_and(|&r| r != p.leader && p.isr.contains(&r) && c.is_active(r))
}

/// A leader that is not waiting for a seal to commit.
fn accepts_produce(_: &Cluster, p: &Partition) -> bool {
    p.leader >= 0 && p.seal != SEAL_PENDING
}

/// A led classic partition with no diskless switch under way.
fn switchable(_: &Cluster, p: &Partition) -> bool {
    !p.diskless && p.seal == SEAL_NONE && p.leader >= 0
}

fn seal_pending(_: &Cluster, p: &Partition) -> bool {
    p.seal == SEAL_PENDING
}

/// Diskless with a seal pending or committed: the switch can still be altered.
fn switching_diskless(_: &Cluster, p: &Partition) -> bool {
    p.diskless && p.seal != SEAL_NONE
}

/// A classic partition whose leader's high watermark is past its log start: DeleteRecords
/// has something to delete.
fn deletable(c: &Cluster, p: &Partition) -> bool {
    !p.diskless && leader_log(c, p).is_some_and(|l| l.hw > l.log.start())
}

/// The leader's local replica of `p` (which must be one of `c`'s partitions).
fn leader_log<'a>(c: &'a Cluster, p: &Partition) -> Option<&'a Local> {
    let i = c.partitions.iter().position(|q| std::ptr::eq(q, p))?;
    c.runtime.partitions[i].local(p.leader)
}

// Preconditions on one broker or one replica.

const FENCEABLE: &[BrokerState] = &[BrokerState::Active, BrokerState::ControlledShutdown];
const ACTIVE: &[BrokerState] = &[BrokerState::Active];
const FENCED: &[BrokerState] = &[BrokerState::Fenced];

fn fetching_classic(l: &Local) -> bool {
    l.fetchers.classic.is_some()
}

// Constructors, in table order.

fn list(_: &mut Guide, _: &mut Unstructured) -> Option<Event> {
    Some(Event::ListReassignments)
}

fn reassign(g: &mut Guide, u: &mut Unstructured) -> Option<Event> {
    let partition = g.partition(u, |_, _| true)?;
    let size = u.int(1, GEN_TARGET_MAX.min(g.brokers.len()));
    let mut target = u.distinct(&g.brokers, size);
    let mut allow_replication_factor_change = true;
    if g.invalid_on_purpose(u) {
        match u.int(0, 3) {
            0 => target.clear(),
            1 => target.push(target[0]),
            2 => target.push(GEN_BROKERS_MAX + 1),
            _ => allow_replication_factor_change = false,
        }
    }
    Some(Event::Reassign {
        partition,
        target,
        allow_replication_factor_change,
    })
}

/// The invalid draw comes first: an invalid request may cancel any partition.
fn cancel(g: &mut Guide, u: &mut Unstructured) -> Option<Event> {
    let invalid = g.invalid_on_purpose(u);
    let partition = g.partition(u, |c, p| invalid || reassigning(c, p))?;
    Some(Event::CancelReassignment { partition })
}

/// Valid: the leader plus any active replicas; "everyone caught up" is a likely pick. A
/// leader still recovering from an unclean election asks as RECOVERING with itself alone
/// half the time (upstream's leader keeps RECOVERING until its log is recovered, then asks
/// RECOVERED; the controller takes RECOVERING only with an ISR of one,
/// `ReplicationControlManager.validateAlterPartitionData`). Invalid on purpose also: the
/// ISR without the leader or with a stranger, a stale leader epoch, a sender that is not
/// the leader, or RECOVERING where that is refused (after recovery, or with a larger ISR).
fn alter_partition(g: &mut Guide, u: &mut Unstructured) -> Option<Event> {
    let partition = g.partition(u, has_leader)?;
    let p = g.cluster().partitions[partition].clone();
    let caught_up = u.int(0, 3) == 0;
    let mut isr = vec![p.leader];
    for &r in &p.replicas {
        if r != p.leader && g.cluster().is_active(r) && (caught_up || u.flag()) {
            isr.push(r);
        }
    }
    let mut leader_recovery_state = LeaderRecoveryState::Recovered;
    if p.leader_recovery_state == LeaderRecoveryState::Recovering && u.flag() {
        leader_recovery_state = LeaderRecoveryState::Recovering;
        isr.truncate(1);
    }
    let (mut broker, mut leader_epoch, mut stale_epoch) = (None, None, None);
    if g.invalid_on_purpose(u) {
        match u.int(0, 6) {
            0 => isr.retain(|&r| r != p.leader),
            1 => isr.push(u.pick(&g.brokers)),
            2 => leader_epoch = Some(p.leader_epoch - 1),
            3 => broker = Some(u.pick(&g.brokers)),
            4 => leader_recovery_state = LeaderRecoveryState::Recovering,
            // A broker epoch one behind: the sender's, or an ISR member's.
            5 => stale_epoch = Some(p.leader),
            _ => stale_epoch = u.one_of(&isr),
        }
    }
    Some(Event::AlterPartition {
        partition,
        isr,
        broker,
        leader_epoch,
        partition_epoch: None,
        leader_recovery_state,
        stale_epoch,
    })
}

fn fence(g: &mut Guide, u: &mut Unstructured) -> Option<Event> {
    let broker = g.broker_in(u, FENCEABLE)?;
    g.faults += 1;
    Some(Event::FenceBroker { broker })
}

fn unfence(g: &mut Guide, u: &mut Unstructured) -> Option<Event> {
    let broker = g.broker_in(u, FENCED)?;
    Some(Event::UnfenceBroker { broker })
}

fn shutdown(g: &mut Guide, u: &mut Unstructured) -> Option<Event> {
    let broker = g.broker_in(u, ACTIVE)?;
    g.faults += 1;
    Some(Event::ControlledShutdown { broker })
}

/// The invalid draw comes first: an invalid request may target any partition. The
/// election type follows the partition: unclean if it has no leader, else preferred.
/// One request in four names several partitions: every one, or this one among others in
/// a drawn order.
fn elect(g: &mut Guide, u: &mut Unstructured) -> Option<Event> {
    let invalid = g.invalid_on_purpose(u);
    let partition = g.partition(u, |c, p| invalid || election_needed(c, p))?;
    let election = if g.cluster().partitions[partition].leader < 0 {
        ElectionType::Unclean
    } else {
        ElectionType::Preferred
    };
    if u.int(0, 3) != 0 {
        return Some(Event::ElectLeaders {
            partition,
            election,
        });
    }
    let count = g.cluster().partitions.len();
    let partitions = (!u.flag()).then(|| {
        let all: Vec<BrokerId> = (0..count as BrokerId).collect();
        let k = u.int(1, count);
        let mut list: Vec<usize> = u
            .distinct(&all, k)
            .into_iter()
            .map(|p| p as usize)
            .collect();
        if !list.contains(&partition) {
            list[0] = partition;
        }
        list
    });
    Some(Event::ElectLeadersMany {
        partitions,
        election,
    })
}

/// `min.insync.replicas` 1 to 3, the unclean setting, or both, on any partition's topic.
fn alter_config(g: &mut Guide, u: &mut Unstructured) -> Option<Event> {
    let partition = g.partition(u, |_, _| true)?;
    let what = u.int(0, 2);
    Some(Event::AlterTopicConfig {
        partition,
        min_insync_replicas: (what != 1).then(|| u.int(1, 3) as i32),
        unclean_leader_election_enable: (what != 0).then(|| u.flag()),
    })
}

fn lagging(g: &mut Guide, u: &mut Unstructured) -> Option<Event> {
    let broker = g.broker_in(u, FENCED)?;
    Some(Event::LaggingHeartbeat { broker })
}

/// The operator decommissions a broker that is down; a later restart brings it back.
fn unregister(g: &mut Guide, u: &mut Unstructured) -> Option<Event> {
    let broker = g.broker_in(u, FENCED)?;
    g.faults += 1;
    Some(Event::UnregisterBroker { broker })
}

/// A classic topic that never started a switch: Inkless leaves createPartitions on a
/// diskless or switched topic unstated, and the model follows the classic rules only.
fn classic_topic(_: &Cluster, p: &Partition) -> bool {
    !p.diskless && !p.remote_storage && p.seal == SEAL_NONE
}

/// One more partition for a classic topic: as many replicas as the topic's first
/// partition has, among the active brokers; an invalid request (1 in 16) draws any count
/// from 1 to 3 on any broker. At most one partition beyond the creations' limit.
fn add_partition(g: &mut Guide, u: &mut Unstructured) -> Option<Event> {
    let partition = g.partition(u, classic_topic)?;
    let c = g.cluster();
    let first = c.topic_partitions(c.topic_of[partition]).next()?;
    let rf = c.partitions[first].replicas.len();
    let active: Vec<BrokerId> = (g.brokers.iter().copied())
        .filter(|&b| c.is_active(b))
        .collect();
    let (pool, rf) = if active.len() < rf || g.invalid_on_purpose(u) {
        (g.brokers.clone(), u.int(1, 3.min(g.brokers.len())))
    } else {
        (active, rf)
    };
    let replicas = u.distinct(&pool, rf);
    Some(Event::CreatePartitions {
        partition,
        replicas,
    })
}

/// Deletes the topic of any partition, while another topic is left: a history whose last
/// topic is gone has nothing more to judge (and the hunt's search would be diluted).
fn delete_topic(g: &mut Guide, u: &mut Unstructured) -> Option<Event> {
    let partition = g.partition(u, |_, _| true)?;
    Some(Event::DeleteTopic { partition })
}

/// The operator turns ELR off when it is on, on when it is off
/// (`kafka-features.sh downgrade|upgrade --feature eligible.leader.replicas.version=0|1`);
/// nothing when the campaign forces the feature's setting.
fn update_features(g: &mut Guide, _: &mut Unstructured) -> Option<Event> {
    if !g.toggles {
        return None;
    }
    Some(Event::UpdateFeatures {
        eligible_leader_replicas: !g.cluster().elr,
    })
}

/// Replicas among the active brokers; an invalid request (drawn only if some broker is
/// active) may place them on any broker.
fn create(g: &mut Guide, u: &mut Unstructured) -> Option<Event> {
    let active: Vec<BrokerId> = g
        .brokers
        .iter()
        .copied()
        .filter(|&b| g.cluster().is_active(b))
        .collect();
    let pool = if active.is_empty() || g.invalid_on_purpose(u) {
        g.brokers.clone()
    } else {
        active
    };
    let rf = u.int(1, 3.min(pool.len()));
    let replicas = u.distinct(&pool, rf);
    // Classic, born diskless, or born diskless and consolidating.
    let kind = u.int(0, 2);
    Some(Event::CreatePartition {
        replicas,
        unclean_leader_election_enable: kind == 0 && u.flag(),
        diskless: kind > 0,
        remote_storage: kind == 2,
        min_insync_replicas: u.pick(&[1, 2]),
    })
}

fn produce(g: &mut Guide, u: &mut Unstructured) -> Option<Event> {
    let partition = g.partition(u, accepts_produce)?;
    Some(Event::Produce {
        partition,
        records: u.pick(&[10, 1, 5, 100]),
        acks: if u.flag() { Acks::All } else { Acks::One },
    })
}

/// Steps around the follower lag limit, so ISR shrinks happen and sometimes do not.
fn advance_time(g: &mut Guide, u: &mut Unstructured) -> Option<Event> {
    let lag = g.cluster().runtime.config.replica_lag_time_max_ms;
    Some(Event::AdvanceTime {
        ms: u.pick(&[lag / 2, lag, 2 * lag, lag / 4]).max(1),
    })
}

fn fetch(g: &mut Guide, u: &mut Unstructured) -> Option<Event> {
    let partition = u.one_of(&g.partitions_with_local(fetching_classic))?;
    let fetchers: Vec<BrokerId> = g.cluster().runtime.partitions[partition]
        .locals
        .iter()
        .filter(|l| fetching_classic(l))
        .map(|l| l.broker)
        .collect();
    let broker = u.pick(&fetchers);
    Some(Event::FollowerFetch { partition, broker })
}

fn switch_start(g: &mut Guide, u: &mut Unstructured) -> Option<Event> {
    let partition = g.partition(u, switchable)?;
    Some(Event::SwitchStart {
        partition,
        consolidating: u.flag(),
    })
}

fn seal_commit(g: &mut Guide, u: &mut Unstructured) -> Option<Event> {
    let partition = g.partition(u, seal_pending)?;
    Some(Event::SealCommit { partition })
}

/// Moves the seal to none, pending, half the current seal, or the leader's log end.
fn alter_switch(g: &mut Guide, u: &mut Unstructured) -> Option<Event> {
    let partition = g.partition(u, switching_diskless)?;
    let current = g.cluster().partitions[partition].seal;
    let leader_leo = g.cluster().runtime.partitions[partition]
        .locals
        .iter()
        .map(|l| l.leo())
        .max()
        .unwrap_or(0);
    let seal = match u.int(0, 3) {
        0 => SEAL_NONE,
        1 => SEAL_PENDING,
        2 if current >= 0 => current / 2,
        _ => leader_leo,
    };
    Some(Event::AlterDisklessSwitch { partition, seal })
}

/// Any broker; stalling one that is already stalled resumes it (still counted as a fault).
fn stall(g: &mut Guide, u: &mut Unstructured) -> Option<Event> {
    let broker = u.pick(&g.brokers);
    g.faults += 1;
    Some(if g.cluster().runtime.stalled.contains(&broker) {
        Event::ResumeBroker { broker }
    } else {
        Event::StallBroker { broker }
    })
}

fn resume(g: &mut Guide, u: &mut Unstructured) -> Option<Event> {
    let broker = u.pick(&g.cluster().runtime.stalled);
    Some(Event::ResumeBroker { broker })
}

fn restart(g: &mut Guide, u: &mut Unstructured) -> Option<Event> {
    g.faults += 1;
    let broker = u.pick(&g.brokers);
    let unclean = u.flag();
    // A power loss keeps the flushed prefix, or sometimes what the HW covers too.
    let survives = (unclean && u.int(0, 3) == 0).then_some(Survives::HighWatermark);
    Some(Event::RestartBroker {
        broker,
        unclean,
        survives,
    })
}

/// Up to the high watermark (-1), half of it, or (invalid on purpose) past it.
fn delete_records(g: &mut Guide, u: &mut Unstructured) -> Option<Event> {
    let invalid = g.invalid_on_purpose(u);
    let partition = g.partition(u, deletable)?;
    let hw = leader_log(g.cluster(), &g.cluster().partitions[partition]).map_or(0, |l| l.hw);
    let offset = if invalid {
        hw + 1
    } else {
        u.pick(&[-1, hw / 2, hw])
    };
    Some(Event::DeleteRecords { partition, offset })
}

fn flush(g: &mut Guide, u: &mut Unstructured) -> Option<Event> {
    Some(Event::FlushBroker {
        broker: u.pick(&g.brokers),
    })
}

/// A running replica of a classic topic says which of its broker's two directories holds
/// it (a broker places each replica the controller left unassigned, and again after a
/// directory fails). Diskless topics are left out: Inkless leaves their directories
/// unstated.
fn assign_dir(g: &mut Guide, u: &mut Unstructured) -> Option<Event> {
    let partition = g.partition(u, placeable)?;
    let c = g.cluster();
    let up: Vec<BrokerId> = (c.partitions[partition].replicas.iter())
        .copied()
        .filter(|&b| c.is_up(b))
        .collect();
    let broker = u.one_of(&up)?;
    Some(Event::AssignReplicaDir {
        partition,
        broker,
        dir: u.int(0, usize::from(DIRS_PER_BROKER) - 1) as BrokerId,
    })
}

/// A classic topic's partition with a replica whose broker runs.
fn placeable(c: &Cluster, p: &Partition) -> bool {
    classic_topic(c, p) && p.replicas.iter().any(|&b| c.is_up(b))
}

/// (broker, directory) pairs that may fail: a running broker that is not shutting down,
/// and a directory its registration lists with another listed beside it. A real broker
/// halts when its last directory fails instead of reporting it, so that is not drawn.
fn failing_dirs(g: &Guide) -> Vec<(BrokerId, BrokerId)> {
    let c = g.cluster();
    let mut out = Vec::new();
    for b in g.brokers_in(ACTIVE) {
        if c.runtime.unregistered.contains(&b) {
            continue;
        }
        let listed: Vec<BrokerId> = (0..BrokerId::from(DIRS_PER_BROKER))
            .filter(|&d| dirs::has_online_dir(&c.offline_dirs, b, d))
            .collect();
        if listed.len() >= 2 {
            out.extend(listed.iter().map(|&d| (b, d)));
        }
    }
    out
}

fn dir_offline(g: &mut Guide, u: &mut Unstructured) -> Option<Event> {
    let (broker, dir) = u.one_of(&failing_dirs(g))?;
    g.faults += 1;
    Some(Event::LogDirOffline { broker, dir })
}
