//! What a broker's log directories are to the controller and to the broker itself: the
//! registration's listed directories, a replica's directory, the default for a new
//! replica, and which replicas sit in a failed directory. Below the builder and the
//! requests (dirs.rs), which both read it. Upstream: metadata/src/main/java/org/apache/
//! kafka/controller/ClusterControlManager.java (`defaultDir`, `hasOnlineDir`) and
//! server-common/.../common/DirectoryId.java (`isOnline`), confluentinc/kafka 26b251a451.

use super::{BrokerId, BrokerState, Cluster, Partition};

/// The directories every broker registers (the conformance driver's `logDirs`). Two, so
/// that a replica can be placed, a directory can fail with another left, and a new
/// replica starts unassigned.
pub const DIRS_PER_BROKER: u8 = 2;
/// `DirectoryId.UNASSIGNED`: the broker has not said where the replica lives.
pub const UNASSIGNED: BrokerId = -1;
/// `DirectoryId.MIGRATING`: the default of a broker that registered no directory online.
pub const MIGRATING: BrokerId = -2;

pub(crate) const ALL_DIRS: u8 = (1 << DIRS_PER_BROKER) - 1;

/// `broker`'s directories its registration no longer lists (a mask).
pub(crate) fn unlisted_in(offline: &[(BrokerId, u8, u8)], broker: BrokerId) -> u8 {
    (offline.iter().find(|&&(b, _, _)| b == broker)).map_or(0, |&(_, m, _)| m)
}

/// `ClusterControlManager.defaultDir`: unregistered or several directories online:
/// UNASSIGNED; exactly one: that one; none (every one reported offline): MIGRATING.
pub fn default_dir_in(
    brokers: &[(BrokerId, BrokerState)],
    offline: &[(BrokerId, u8, u8)],
    broker: BrokerId,
) -> BrokerId {
    if !brokers.iter().any(|&(b, _)| b == broker) {
        return UNASSIGNED;
    }
    let mask = unlisted_in(offline, broker);
    match DIRS_PER_BROKER - mask.count_ones() as u8 {
        0 => MIGRATING,
        1 => (0..DIRS_PER_BROKER)
            .find(|d| mask & (1 << d) == 0)
            .map_or(MIGRATING, BrokerId::from),
        _ => UNASSIGNED,
    }
}

pub(crate) fn default_dir(c: &Cluster, broker: BrokerId) -> BrokerId {
    default_dir_in(&c.brokers, &c.offline_dirs, broker)
}

/// `DirectoryId.isOnline` over the directories the broker's registration lists: a reserved
/// id is online, another must still be listed. (An empty list would count every directory
/// online, KAFKA-16162; a registration never gets one here: see `log_dir_offline`.)
pub fn has_online_dir(offline: &[(BrokerId, u8, u8)], broker: BrokerId, dir: BrokerId) -> bool {
    dir < 0 || unlisted_in(offline, broker) & (1 << dir) == 0
}

impl Cluster {
    /// The replica of partition `p` on `broker` lives in a directory that failed (the
    /// broker's own view, whatever its registration lists): its log is neither served nor
    /// fetched until the broker restarts.
    pub fn dir_failed(&self, p: usize, broker: BrokerId) -> bool {
        let failed =
            (self.offline_dirs.iter().find(|&&(b, _, _)| b == broker)).map_or(0, |&(_, _, f)| f);
        failed != 0
            && (self.partitions[p].dir_of(broker)).is_some_and(|d| d >= 0 && failed & (1 << d) != 0)
    }
}

impl Partition {
    /// `PartitionRegistration.directory` of a replica (None: not a replica, where upstream
    /// throws).
    pub fn dir_of(&self, replica: BrokerId) -> Option<BrokerId> {
        let at = self.replicas.iter().position(|&r| r == replica)?;
        self.dirs.get(at).copied()
    }
}
