//! The model's `PartitionChangeBuilder` (metadata/src/main/java/org/apache/kafka/controller/
//! PartitionChangeBuilder.java at apache trunk d79bd502ec, `build()`).
//!
//! Setters not called keep the current value (the constructor seeds every target from the
//! registration). `build` runs, in upstream's order: completion (rule `completion`),
//! election, the leader-epoch bump for a replica that left, the ISR field, the assignment
//! fields, the leader recovery state, and returns `None` for a no-op record.
//! ELR is off: an ISR that would become empty is not written.

use super::{
    contains_all, BrokerId, BrokerState, CompletionInfo, LeaderRecoveryState, Partition, Rules,
    NO_LEADER,
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
    /// Never acceptable (the broker being fenced or shut down).
    pub remove: BrokerId,
    /// Acceptable even though still fenced (the broker being unfenced).
    pub add: BrokerId,
}

impl Acceptor<'_> {
    pub fn accepts(&self, replica: BrokerId) -> bool {
        if replica == self.remove {
            return false;
        }
        replica == self.add
            || self
                .brokers
                .iter()
                .any(|&(b, s)| b == replica && s == BrokerState::Active)
    }
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
    isr: Option<Vec<BrokerId>>,
    replicas: Option<Vec<BrokerId>>,
    removing: Option<Vec<BrokerId>>,
    adding: Option<Vec<BrokerId>>,
    leader_recovery_state: Option<LeaderRecoveryState>,
}

impl ChangeRecord {
    /// A record that sets nothing is not written (`build` returns `None`).
    fn is_empty(&self) -> bool {
        self.leader.is_none()
            && self.isr.is_none()
            && self.replicas.is_none()
            && self.removing.is_none()
            && self.adding.is_none()
            && self.leader_recovery_state.is_none()
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
        if let Some(v) = self.removing {
            next.removing_replicas = v;
        }
        if let Some(v) = self.adding {
            next.adding_replicas = v;
        }
        if let Some(s) = self.leader_recovery_state {
            next.leader_recovery_state = s;
        }
        next
    }
}

pub struct ChangeBuilder<'a> {
    part: &'a Partition,
    rules: &'a dyn Rules,
    acceptor: Acceptor<'a>,
    pub election: Election,
    pub target_isr: Vec<BrokerId>,
    pub target_replicas: Vec<BrokerId>,
    pub target_adding: Vec<BrokerId>,
    pub target_removing: Vec<BrokerId>,
    pub target_lrs: LeaderRecoveryState,
}

impl<'a> ChangeBuilder<'a> {
    pub fn new(part: &'a Partition, rules: &'a dyn Rules, acceptor: Acceptor<'a>) -> Self {
        ChangeBuilder {
            part,
            rules,
            acceptor,
            election: Election::Online,
            target_isr: part.isr.clone(),
            target_replicas: part.replicas.clone(),
            target_adding: part.adding_replicas.clone(),
            target_removing: part.removing_replicas.clone(),
            target_lrs: part.leader_recovery_state,
        }
    }

    /// UNCLEAN when the topic allows it, the way every caller upstream decides it.
    pub fn with_topic_election(mut self) -> Self {
        if self.part.unclean_leader_election_enable {
            self.election = Election::Unclean;
        }
        self
    }

    fn is_valid_new_leader(&self, replica: BrokerId) -> bool {
        self.target_isr.contains(&replica) && self.acceptor.accepts(replica)
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
                None => (NO_LEADER, false),
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
        if self.election == Election::Unclean {
            if let Some(&r) = self
                .target_replicas
                .iter()
                .find(|&&r| self.acceptor.accepts(r))
            {
                return (r, true);
            }
        }
        (NO_LEADER, false)
    }

    pub fn build(mut self) -> Option<Built> {
        let part = self.part;
        let completion = self.complete_reassignment_if_needed();
        let (mut record, unclean_election) = self.try_election();
        // triggerLeaderEpochBumpForReplicaReassignmentIfNeeded
        if record.leader.is_none() && !contains_all(&self.target_replicas, &part.replicas) {
            record.leader = Some(part.leader);
        }
        if record.isr.is_none() && !self.target_isr.is_empty() && self.target_isr != part.isr {
            record.isr = Some(std::mem::take(&mut self.target_isr));
        }
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
    fn try_election(&self) -> (ChangeRecord, bool) {
        let part = self.part;
        let mut record = ChangeRecord::default();
        let (leader, unclean) = self.elect();
        if leader == part.leader {
            return (record, false);
        }
        record.leader = Some(leader);
        if unclean {
            // An unclean election forcibly sets the ISR to the new leader alone.
            record.isr = Some(vec![leader]);
            if part.leader_recovery_state != LeaderRecoveryState::Recovering {
                record.leader_recovery_state = Some(LeaderRecoveryState::Recovering);
            }
        }
        (record, unclean)
    }

    /// `setAssignmentChanges`: replicas (unless empty), removing and adding, when changed.
    fn set_assignment_changes(&mut self, record: &mut ChangeRecord) {
        let part = self.part;
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
            replicas_before: std::mem::replace(&mut self.target_replicas, replicas),
            isr_before: std::mem::replace(&mut self.target_isr, isr),
            removing: std::mem::take(&mut self.target_removing),
            record: Box::new(self.part.clone()),
        };
        self.target_adding.clear();
        Some(info)
    }
}
