//! The model's `PartitionChangeBuilder` (metadata/src/main/java/org/apache/kafka/controller/
//! PartitionChangeBuilder.java at apache trunk d79bd502ec, `build()`).
//!
//! Setters not called keep the current value (the constructor seeds every target from the
//! registration). `build` runs, in upstream's order: completion (rule `completion`),
//! election, the leader-epoch bump for a replica that left, the ISR field, the assignment
//! fields, the leader recovery state, and returns `None` for a no-op record.
//! With ELR off (the feature `eligible.leader.replicas.version` at 0) an ISR that would
//! become empty is not written. With ELR on, `maybePopulateTargetElr` runs after completion,
//! the election may take an ELR member or the last known leader, `maybeUpdateRecordElr` and
//! `maybeUpdateLastKnownLeader` write the ELR fields, and the ISR may become empty
//! (docs/model/reassignment.md#eligible-leader-replicas).

use std::cell::Cell;

use super::{
    contains_all, BrokerId, BrokerState, CompletionInfo, IdList, LeaderRecoveryState, Partition,
    Rules, NO_LEADER,
};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Election {
    Online,
    Preferred,
    Unclean,
}

/// `LeaderAcceptor` plus `generateLeaderAndIsrUpdates`'s brokerToRemove / brokerToAdd.
#[derive(Clone, Copy)]
pub struct Acceptor<'a> {
    pub brokers: &'a [(BrokerId, BrokerState)],
    /// `Cluster::offline_dirs`: `hasOnlineDir` and the default directory read it.
    pub offline_dirs: &'a [(BrokerId, u8, u8)],
    /// Never acceptable (the broker being fenced or shut down).
    pub remove: BrokerId,
    /// Acceptable even though still fenced (the broker being unfenced).
    pub add: BrokerId,
}

impl Acceptor<'_> {
    pub fn accepts(&self, replica: BrokerId) -> bool {
        // Upstream's predicate excludes brokerToRemove and brokerWithUncleanShutdown, one of
        // which is NO_LEADER whenever the other is not, so -1 (a last known ELR of [-1],
        // which 4.0 can record) is never acceptable, though `add` may be NO_LEADER.
        if replica == self.remove || replica == NO_LEADER {
            return false;
        }
        replica == self.add
            || self
                .brokers
                .iter()
                .any(|&(b, s)| b == replica && s == BrokerState::Active)
    }
}

/// The builder threw: `LeaderAcceptor.test` asked `PartitionRegistration.directory` for a
/// broker that is not one of the registration's replicas, which throws
/// IllegalArgumentException (metadata/.../controller/ReplicationControlManager.java,
/// `LeaderAcceptor`, and metadata/.../metadata/PartitionRegistration.java, `directory`, at
/// apache trunk d79bd502ec; the same in releases 4.0 to 4.4, shown by conformance). No
/// record of the request is written.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Thrown;

/// What `maybeUpdateLastKnownLeader` does to the last known ELR (rule `last-known-leader`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum LastKnownUpdate {
    Keep,
    /// Record this broker (the partition's leader before the change) alone.
    Record(BrokerId),
    Clear,
}

/// The result of a build that produced a record: the merged partition and what happened.
pub struct Built {
    pub partition: Partition,
    pub completion: Option<CompletionInfo>,
    pub unclean_election: bool,
}

/// A `PartitionChangeRecord`: each field `None` when the record leaves it as it is.
#[derive(Default)]
struct ChangeRecord {
    leader: Option<BrokerId>,
    isr: Option<IdList>,
    replicas: Option<IdList>,
    dirs: Option<IdList>,
    removing: Option<IdList>,
    adding: Option<IdList>,
    leader_recovery_state: Option<LeaderRecoveryState>,
    elr: Option<IdList>,
    last_known_elr: Option<IdList>,
}

impl ChangeRecord {
    /// A record that sets nothing is not written (`build` returns `None`).
    fn is_empty(&self) -> bool {
        self.leader.is_none()
            && self.isr.is_none()
            && self.replicas.is_none()
            && self.dirs.is_none()
            && self.removing.is_none()
            && self.adding.is_none()
            && self.leader_recovery_state.is_none()
            && self.elr.is_none()
            && self.last_known_elr.is_none()
    }

    /// `PartitionRegistration.merge`: a set leader bumps leaderEpoch; partitionEpoch
    /// always +1.
    fn merge(self, part: &Partition) -> Partition {
        let mut next = part.clone();
        if let Some(l) = self.leader {
            next.leader = l;
            next.leader_epoch += 1;
        }
        next.partition_epoch += 1;
        if let Some(v) = self.isr {
            next.isr = v;
        }
        if let Some(v) = self.replicas {
            next.replicas = v;
        }
        if let Some(v) = self.dirs {
            next.dirs = v;
        }
        if let Some(v) = self.removing {
            next.removing_replicas = v;
        }
        if let Some(v) = self.adding {
            next.adding_replicas = v;
        }
        if let Some(s) = self.leader_recovery_state {
            next.leader_recovery_state = s;
        }
        if let Some(v) = self.elr {
            next.elr = v;
        }
        if let Some(v) = self.last_known_elr {
            next.last_known_elr = v;
        }
        next
    }
}

pub struct ChangeBuilder<'a> {
    part: &'a Partition,
    rules: &'a dyn Rules,
    acceptor: Acceptor<'a>,
    pub election: Election,
    pub target_isr: IdList,
    pub target_replicas: IdList,
    pub target_adding: IdList,
    pub target_removing: IdList,
    pub target_lrs: LeaderRecoveryState,
    /// `setDirectory`: the one replica whose directory the change sets (AssignReplicasToDirs).
    pub target_dir: Option<(BrokerId, BrokerId)>,
    /// `eligibleLeaderReplicasEnabled`: the cluster's ELR feature.
    elr_enabled: bool,
    target_elr: IdList,
    target_last_known_elr: IdList,
    /// `setUncleanShutdownReplicas`: a broker that restarted after an unclean shutdown
    /// (`NO_LEADER`: none), which `maybePopulateTargetElr` keeps out of the ELR.
    pub unclean_shutdown: BrokerId,
    /// `useLastKnownLeaderInBalancedRecovery`: true in every controller path upstream
    /// (its default); only upstream's builder tests turn it off.
    pub use_last_known_leader: bool,
    /// The leader acceptor threw ([`Thrown`]).
    threw: Cell<bool>,
}

impl<'a> ChangeBuilder<'a> {
    /// A builder seeded from `part`; `elr_enabled` is the cluster's ELR feature.
    pub fn new(
        part: &'a Partition,
        rules: &'a dyn Rules,
        acceptor: Acceptor<'a>,
        elr_enabled: bool,
    ) -> Self {
        ChangeBuilder {
            part,
            rules,
            acceptor,
            election: Election::Online,
            target_isr: part.isr,
            target_replicas: part.replicas,
            target_adding: part.adding_replicas,
            target_removing: part.removing_replicas,
            target_lrs: part.leader_recovery_state,
            target_dir: None,
            elr_enabled,
            target_elr: part.elr,
            target_last_known_elr: part.last_known_elr,
            unclean_shutdown: NO_LEADER,
            use_last_known_leader: true,
            threw: Cell::new(false),
        }
    }

    /// UNCLEAN when the topic allows it, the way every caller upstream decides it.
    pub fn with_topic_election(mut self) -> Self {
        if self.part.unclean_leader_election_enable {
            self.election = Election::Unclean;
        }
        self
    }

    /// `LeaderAcceptor.test`: the broker is acceptable, and then its directory is looked up
    /// on the registration the builder started from, which throws for a broker that is not
    /// one of its replicas (a stale ELR or last-known-ELR member, an adding replica in an
    /// unclean election): the build fails with [`Thrown`]. Upstream stops at that call; the
    /// calls after it here are never used. Inkless gives diskless topics an acceptor with no
    /// directory lookup (`leaderAcceptorFor`, aiven/inkless b1fcb5f6f7), which never throws.
    fn acceptable(&self, replica: BrokerId) -> bool {
        if !self.acceptor.accepts(replica) {
            return false;
        }
        if self.part.diskless {
            return true;
        }
        let Some(dir) = self.part.dir_of(replica) else {
            self.threw.set(true);
            return false;
        };
        // `ClusterControlManager.hasOnlineDir` on the directory the registration the
        // builder started from gives (not the one a `setDirectory` is moving it to).
        super::dir_state::has_online_dir(self.acceptor.offline_dirs, replica, dir)
    }

    /// `isValidNewLeader`: in the ISR, or in the ELR when the ISR is empty, and acceptable.
    fn is_valid_new_leader(&self, replica: BrokerId) -> bool {
        let in_isr = self.target_isr.contains(&replica);
        let in_elr = self.target_isr.is_empty() && self.target_elr.contains(&replica);
        (in_isr || in_elr) && self.acceptable(replica)
    }

    /// `canElectLastKnownLeader`: ELR on, ISR and ELR empty, the last known ELR holds
    /// exactly one broker, and it is acceptable.
    fn last_known_leader(&self) -> Option<BrokerId> {
        if !self.elr_enabled || !self.use_last_known_leader {
            return None;
        }
        if !self.target_elr.is_empty() || !self.target_isr.is_empty() {
            return None;
        }
        match self.part.last_known_elr[..] {
            // Asked in every release (it may throw); its answer counts from 4.1 on.
            [only] if self.acceptable(only) || !self.rules.last_known_must_be_acceptable() => {
                Some(only)
            }
            _ => None,
        }
    }

    /// `electPreferredLeader` / `electAnyLeader`: (leader, unclean).
    fn elect(&self) -> (BrokerId, bool) {
        let current = self.part.leader;
        if self.election == Election::Preferred {
            if let Some(&first) = self.target_replicas.first() {
                if self.is_valid_new_leader(first) {
                    return (first, false);
                }
            }
            if self.is_valid_new_leader(current) {
                return (current, false);
            }
            let rest = self.target_replicas.iter().skip(1);
            return match rest.copied().find(|&r| self.is_valid_new_leader(r)) {
                Some(r) => (r, false),
                None => match self.last_known_leader() {
                    Some(r) => (r, true),
                    None => (NO_LEADER, false),
                },
            };
        }
        if self.is_valid_new_leader(current) {
            return (current, false);
        }
        if let Some(&r) = self
            .target_replicas
            .iter()
            .find(|&&r| self.is_valid_new_leader(r))
        {
            return (r, false);
        }
        if let Some(r) = self.last_known_leader() {
            return (r, true);
        }
        if self.election == Election::Unclean {
            if let Some(&r) = self.target_replicas.iter().find(|&&r| self.acceptable(r)) {
                return (r, true);
            }
        }
        (NO_LEADER, false)
    }

    /// The record, `None` for a no-op, or [`Thrown`] when the leader acceptor threw.
    pub fn build(mut self) -> Result<Option<Built>, Thrown> {
        let built = self.build_record();
        if self.threw.get() {
            return Err(Thrown);
        }
        Ok(built)
    }

    fn build_record(&mut self) -> Option<Built> {
        let part = self.part;
        let completion = self.complete_reassignment_if_needed();
        self.maybe_populate_target_elr();
        let (mut record, unclean_election) = self.try_election();
        // triggerLeaderEpochBumpForReplicaReassignmentIfNeeded
        if record.leader.is_none() && !contains_all(&self.target_replicas, &part.replicas) {
            record.leader = Some(part.leader);
        }
        self.maybe_update_record_elr(&mut record);
        // With ELR on, the ISR may become empty.
        let writable = !self.target_isr.is_empty() || self.elr_enabled;
        if record.isr.is_none() && writable && self.target_isr != part.isr {
            record.isr = Some(std::mem::take(&mut self.target_isr));
        }
        self.maybe_update_last_known_leader(&mut record);
        self.set_assignment_changes(&mut record);
        if self.target_lrs != part.leader_recovery_state {
            record.leader_recovery_state = Some(self.target_lrs);
        }
        if record.is_empty() {
            return None;
        }
        let next = record.merge(part);
        let completion = completion.map(|info| CompletionInfo {
            record: Box::new(next.clone()),
            ..info
        });
        Some(Built {
            partition: next,
            completion,
            unclean_election,
        })
    }

    /// `tryElection`: the record's leader when it changes, and on an unclean election the
    /// ISR of the new leader alone and RECOVERING. Also whether the election was unclean.
    /// A leader taken from the ELR becomes the ISR alone and leaves the ELR.
    fn try_election(&mut self) -> (ChangeRecord, bool) {
        let part = self.part;
        let mut record = ChangeRecord::default();
        let (leader, unclean) = self.elect();
        if leader == part.leader {
            return (record, false);
        }
        if self.target_elr.contains(&leader) {
            self.target_isr = IdList::from([leader]);
            self.target_elr.retain(|&r| r != leader);
        }
        record.leader = Some(leader);
        if unclean {
            // An unclean election forcibly sets the ISR to the new leader alone.
            record.isr = Some(IdList::from([leader]));
            if part.leader_recovery_state != LeaderRecoveryState::Recovering {
                record.leader_recovery_state = Some(LeaderRecoveryState::Recovering);
            }
        }
        (record, unclean)
    }

    /// `setAssignmentChanges`: replicas (unless empty), removing and adding, when changed.
    /// With directory assignment (every release modelled): `directories` too, when changed.
    /// A replica keeps its directory unless `setDirectory` names it; a new one gets the
    /// cluster describer's `defaultDir`.
    fn set_assignment_changes(&mut self, record: &mut ChangeRecord) {
        let part = self.part;
        if !self.target_replicas.is_empty() {
            let dirs: IdList = (self.target_replicas.iter())
                .map(|&r| match self.target_dir {
                    Some((b, dir)) if b == r => dir,
                    _ => part.dir_of(r).unwrap_or_else(|| {
                        let a = &self.acceptor;
                        super::dir_state::default_dir_in(a.brokers, a.offline_dirs, r)
                    }),
                })
                .collect();
            record.dirs = (dirs != part.dirs).then_some(dirs);
        }
        record.replicas = (!self.target_replicas.is_empty()
            && self.target_replicas != part.replicas)
            .then(|| std::mem::take(&mut self.target_replicas));
        record.removing = (self.target_removing != part.removing_replicas)
            .then(|| std::mem::take(&mut self.target_removing));
        record.adding = (self.target_adding != part.adding_replicas)
            .then(|| std::mem::take(&mut self.target_adding));
    }

    /// `completeReassignmentIfNeeded`, with the completion rule of this rule set.
    fn complete_reassignment_if_needed(&mut self) -> Option<CompletionInfo> {
        let (replicas, isr) = self.rules.maybe_complete(
            &self.target_replicas,
            &self.target_isr,
            &self.target_adding,
            &self.target_removing,
        )?;
        let info = CompletionInfo {
            replicas_before: std::mem::replace(&mut self.target_replicas, replicas.into()).to_vec(),
            isr_before: std::mem::replace(&mut self.target_isr, isr.into()).to_vec(),
            removing: std::mem::take(&mut self.target_removing).to_vec(),
            record: Box::new(self.part.clone()),
        };
        self.target_adding.clear();
        Some(info)
    }
}

/// The ELR steps of `build()` (PartitionChangeBuilder.java at apache trunk d79bd502ec,
/// methods named on each function). With ELR off and the ELR fields empty, as in every
/// cluster without the feature, none of them changes the record.
impl ChangeBuilder<'_> {
    /// `maybePopulateTargetElr`: an ISR at or above min ISR clears ELR and last known ELR;
    /// below it, the ELR is (current ELR ∪ current ISR) − target ISR − unclean-shutdown
    /// replicas, and the last known ELR gathers what is left of that union and the old
    /// last known ELR outside target ISR and ELR.
    fn maybe_populate_target_elr(&mut self) {
        if !self.elr_enabled {
            return;
        }
        if self.target_isr.len() as i64 >= effective_min_isr(self.part) {
            self.target_elr.clear();
            self.target_last_known_elr.clear();
            return;
        }
        let mut candidates = JavaHashSet::from_list(&self.target_elr);
        candidates.extend(&self.part.isr);
        let isr = &self.target_isr;
        let unclean = self.unclean_shutdown;
        self.target_elr = candidates
            .filtered(|r| !isr.contains(&r) && r != unclean)
            .into();
        candidates.extend(&self.target_last_known_elr);
        let elr = &self.target_elr;
        self.target_last_known_elr = candidates
            .filtered(|r| !isr.contains(&r) && !elr.contains(&r))
            .into();
    }

    /// `maybeUpdateRecordElr`: an unclean election (the record already sets the ISR) or ELR
    /// off clears both targets; the ELR field is written when it changes. With the last
    /// known leader in use, the last known ELR is written only by
    /// `maybe_update_last_known_leader`.
    fn maybe_update_record_elr(&mut self, record: &mut ChangeRecord) {
        if record.isr.is_some() || !self.elr_enabled {
            self.target_elr.clear();
            self.target_last_known_elr.clear();
        }
        if self.target_elr != self.part.elr {
            record.elr = Some(self.target_elr);
        }
        // Upstream also keeps a one-member last known ELR of a leaderless partition as the
        // target here; with the last known leader in use that target is never written, so
        // the model skips the step.
        if self.use_last_known_leader {
            return;
        }
        let part = self.part;
        if self.target_last_known_elr != part.last_known_elr {
            record.last_known_elr = Some(self.target_last_known_elr);
        }
    }

    /// `maybeUpdateLastKnownLeader`: the first time the record leaves the partition
    /// leaderless, the last known ELR becomes the old leader; a record with a leader clears it.
    fn maybe_update_last_known_leader(&self, record: &mut ChangeRecord) {
        if !self.use_last_known_leader || !self.elr_enabled {
            return;
        }
        let isr = record.isr.as_ref().map(|l| &l[..]);
        match self.rules.last_known_update(self.part, record.leader, isr) {
            LastKnownUpdate::Record(b) => record.last_known_elr = Some(IdList::from([b])),
            LastKnownUpdate::Clear => record.last_known_elr = Some(IdList::EMPTY),
            LastKnownUpdate::Keep => {}
        }
    }
}

/// `ReplicationControlManager.getTopicEffectiveMinIsr`: the topic's `min.insync.replicas`,
/// capped at the replication factor: the length of the topic's partition 0's stored replica
/// list, taken before the build (a partition added to a topic reads another partition's;
/// found by conformance).
pub fn effective_min_isr(part: &Partition) -> i64 {
    i64::from(part.min_insync_replicas).min(i64::from(part.topic_replication_factor))
}

/// The iteration order of a `java.util.HashSet<Integer>` built as `maybePopulateTargetElr`
/// builds its candidate set (`new HashSet<>(list)`, then `add`s): buckets in index order,
/// each bucket in insertion order (a resize splits buckets keeping that order). Upstream
/// writes its ELR lists in this order and compares them as lists, so the order decides
/// whether a record is a no-op. For ids below 16 it is ascending.
struct JavaHashSet {
    /// Distinct elements in insertion order.
    items: Vec<BrokerId>,
    capacity: usize,
}

impl JavaHashSet {
    /// `HashSet(Collection c)`: initial capacity max(|c| / 0.75 + 1, 16), rounded up to a
    /// power of two.
    fn from_list(list: &[BrokerId]) -> JavaHashSet {
        let wanted = ((list.len() as f32 / 0.75) as usize + 1).max(16);
        let mut set = JavaHashSet {
            items: Vec::new(),
            capacity: wanted.next_power_of_two(),
        };
        set.extend(list);
        set
    }

    /// `add` each element; the table doubles when the size passes 0.75 × capacity.
    fn extend(&mut self, list: &[BrokerId]) {
        for &x in list {
            if !self.items.contains(&x) {
                self.items.push(x);
                if self.items.len() * 4 > self.capacity * 3 {
                    self.capacity *= 2;
                }
            }
        }
    }

    /// The elements that pass `keep`, in iteration order (`HashMap.hash` spreads the
    /// high bits: h ^ (h >>> 16)).
    fn filtered(&self, keep: impl Fn(BrokerId) -> bool) -> Vec<BrokerId> {
        let bucket = |x: BrokerId| {
            let h = x as u32;
            ((h ^ (h >> 16)) as usize) & (self.capacity - 1)
        };
        let mut out: Vec<BrokerId> = self.items.iter().copied().filter(|&x| keep(x)).collect();
        out.sort_by_key(|&x| bucket(x));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::JavaHashSet;

    /// Orders printed by `java.util.HashSet` (OpenJDK, `System.out.println` of the set)
    /// for the same insertions: one table of 16 and one resized to 32, with collisions.
    #[test]
    fn iteration_order_matches_java() {
        let mut s = JavaHashSet::from_list(&[]);
        s.extend(&[2, 17, 5]);
        assert_eq!(s.filtered(|_| true), vec![17, 2, 5]);
        let mut t = JavaHashSet::from_list(&[]);
        t.extend(&[33, 1, 17, 49, 2, 65, 100, 3, 4, 5, 6, 7, 8, 9, 10]);
        let java = vec![33, 1, 65, 2, 3, 100, 4, 5, 6, 7, 8, 9, 10, 17, 49];
        assert_eq!(t.filtered(|_| true), java);
    }
}
