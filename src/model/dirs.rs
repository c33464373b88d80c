//! Log directories (JBOD, KIP-858): each broker registers `DIRS_PER_BROKER` directories,
//! each replica of a registration names the one it lives in, and the controller takes
//! a directory's failure from a heartbeat and a replica's placement from
//! AssignReplicasToDirs. Upstream: metadata/src/main/java/org/apache/kafka/controller/
//! ReplicationControlManager.java (`handleAssignReplicasToDirs`, `handleDirectoriesOffline`,
//! `LeaderAcceptor`), ClusterControlManager.java (`defaultDir`, `hasOnlineDir`) and
//! server-common/.../common/DirectoryId.java (`isOnline`), confluentinc/kafka 26b251a451
//! (Apache 4.3.1); the same in releases 4.0 to 4.4, shown by conformance
//! (docs/model/reassignment.md#log-directories).

use super::commit::{acceptor, fault, partition, Rejection};
use super::dir_state::ALL_DIRS;
pub use super::dir_state::{
    default_dir_in, has_online_dir, DIRS_PER_BROKER, MIGRATING, UNASSIGNED,
};
use super::membership::{commit_all, remove_record};
use super::{BrokerId, BrokerState, Cluster, ErrorCode, Outcome, PartitionEffect, Rules};

/// AssignReplicasToDirs from `broker` (its current epoch) for one partition:
/// `handleAssignReplicasToDirs`. A full PartitionChangeBuilder with `setDirectory` (so it
/// may also elect or complete a reassignment), its acceptor reading the registration's
/// old directories; a directory that is not online then adds `generateLeaderAndIsrUpdates`
/// removing the broker, built from the same state before the request and stored after it.
pub(crate) fn assign_replica_dir(
    c: &mut Cluster,
    rules: &dyn Rules,
    index: usize,
    broker: BrokerId,
    dir: BrokerId,
) -> Result<Outcome, Rejection> {
    if !c.is_registered(broker) {
        return Err((ErrorCode::StaleBrokerEpoch, "no broker registration found"));
    }
    known_dir(dir)?;
    let part = partition(c, index)?;
    if !part.replicas.contains(&broker) {
        return Err((
            ErrorCode::NotLeaderOrFollower,
            "the broker is not a replica of the partition",
        ));
    }
    let elr = rules.assignment_elr(c.elr);
    let mut builder = super::builder::ChangeBuilder::new(part, rules, acceptor(c), elr);
    builder.target_dir = Some((broker, dir));
    let assigned = builder.build().map_err(fault)?;
    let removed = if has_online_dir(&c.offline_dirs, broker, dir) {
        None
    } else {
        remove_record(c, rules, broker, false, index)?
    };
    let before = c.partitions[index].clone();
    let mut effects = commit_all(c, assigned.map(|b| (index, b)).into_iter().collect());
    if let Some((_, mut built)) = removed {
        built.partition = overlay(&before, &c.partitions[index], built.partition);
        effects.extend(commit_all(c, vec![(index, built)]));
    }
    Ok(Outcome::accepted(effects))
}

/// History validation keeps a directory to 0 or 1; a history built in code is refused the
/// same way rather than indexing past a broker's directories.
fn known_dir(dir: BrokerId) -> Result<(), Rejection> {
    match (0..BrokerId::from(DIRS_PER_BROKER)).contains(&dir) {
        true => Ok(()),
        false => Err((
            ErrorCode::InvalidRequest,
            "the broker has no such directory",
        )),
    }
}

/// A record built from `before` (merged into `built`), replayed after another record made
/// `now`: the fields the record sets replace `now`'s. Each builder field is written only
/// when it differs from `before`, and a set leader shows as a leader epoch bump.
fn overlay(
    before: &super::Partition,
    now: &super::Partition,
    built: super::Partition,
) -> super::Partition {
    let mut out = now.clone();
    out.partition_epoch = now.partition_epoch + 1;
    if built.leader_epoch != before.leader_epoch {
        out.leader = built.leader;
        out.leader_epoch = now.leader_epoch + 1;
    }
    macro_rules! take_changed {
        ($($f:ident),*) => {$(
            if built.$f != before.$f {
                out.$f = built.$f;
            }
        )*};
    }
    take_changed!(
        isr,
        replicas,
        dirs,
        adding_replicas,
        removing_replicas,
        leader_recovery_state,
        elr,
        last_known_elr
    );
    out
}

/// A heartbeat from an active broker, caught up and asking for no change of state, that
/// reports directory `dir` offline: `handleDirectoriesOffline`. While the registration
/// lists the directory, `generateLeaderAndIsrUpdates` removes the broker from every
/// partition placed there (`directoriesToPartitions`), then a BrokerRegistrationChangeRecord
/// lists the rest. Its replay ignores an empty list (`ClusterControlManager.replay`), so the
/// last listed directory stays listed, online to the controller, and each later report
/// of it runs the removal again; a directory no longer listed changes nothing. The model
/// sends it only from a broker that runs and is not shutting down, the one whose process
/// found the failure. (A real broker halts when its last directory fails; the model's
/// broker stops only the replicas there.)
pub(crate) fn log_dir_offline(
    c: &mut Cluster,
    rules: &dyn Rules,
    broker: BrokerId,
    dir: BrokerId,
) -> Result<Outcome, Rejection> {
    match c.broker_state(broker) {
        None => return Err((ErrorCode::StaleBrokerEpoch, "no broker registration found")),
        Some(BrokerState::Active) if !c.runtime.unregistered.contains(&broker) => {}
        Some(_) => {
            return Err((
                ErrorCode::BrokerStateMismatch,
                "only a running broker that is not shutting down reports a failed directory",
            ))
        }
    }
    known_dir(dir)?;
    let bit = 1u8 << dir;
    let at = c.offline_dirs.partition_point(|&(b, _, _)| b < broker);
    let new_entry = c.offline_dirs.get(at).is_none_or(|&(b, _, _)| b != broker);
    if new_entry {
        c.offline_dirs.insert(at, (broker, 0, 0));
    }
    let failed_before = c.offline_dirs[at].2;
    c.offline_dirs[at].2 |= bit;
    let unlisted = c.offline_dirs[at].1;
    if unlisted & bit != 0 {
        return Ok(Outcome::accepted(Vec::new()));
    }
    let mut records = Vec::new();
    for index in 0..c.partitions.len() {
        if c.partitions[index].dir_of(broker) == Some(dir) {
            match remove_record(c, rules, broker, false, index) {
                Ok(r) => records.extend(r),
                Err(e) => {
                    // A report the controller throws on is not an answer: nothing of it
                    // stands (`Outcome::Rejected`), the failure noted above included.
                    if new_entry {
                        c.offline_dirs.remove(at);
                    } else {
                        c.offline_dirs[at].2 = failed_before;
                    }
                    return Err(e);
                }
            }
        }
    }
    let effects: Vec<PartitionEffect> = commit_all(c, records);
    if unlisted | bit != ALL_DIRS {
        c.offline_dirs[at].1 |= bit;
    }
    Ok(Outcome::accepted(effects))
}
