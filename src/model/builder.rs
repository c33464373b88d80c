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

        // tryElection
        let mut record_leader: Option<BrokerId> = None;
        let mut record_isr: Option<Vec<BrokerId>> = None;
        let mut record_lrs: Option<LeaderRecoveryState> = None;
        let (leader, unclean) = self.elect();
        let unclean_election = leader != part.leader && unclean;
        if leader != part.leader {
            record_leader = Some(leader);
            if unclean {
                // An unclean election forcibly sets the ISR to the new leader alone.
                record_isr = Some(vec![leader]);
                if part.leader_recovery_state != LeaderRecoveryState::Recovering {
                    record_lrs = Some(LeaderRecoveryState::Recovering);
                }
            }
        }
        // triggerLeaderEpochBumpForReplicaReassignmentIfNeeded
        if record_leader.is_none() && !contains_all(&self.target_replicas, &part.replicas) {
            record_leader = Some(part.leader);
        }
        if record_isr.is_none() && !self.target_isr.is_empty() && self.target_isr != part.isr {
            record_isr = Some(std::mem::take(&mut self.target_isr));
        }
        // setAssignmentChanges
        let record_replicas = (!self.target_replicas.is_empty()
            && self.target_replicas != part.replicas)
            .then(|| std::mem::take(&mut self.target_replicas));
        let record_removing = (self.target_removing != part.removing_replicas)
            .then(|| std::mem::take(&mut self.target_removing));
        let record_adding = (self.target_adding != part.adding_replicas)
            .then(|| std::mem::take(&mut self.target_adding));
        if self.target_lrs != part.leader_recovery_state {
            record_lrs = Some(self.target_lrs);
        }

        let no_op = record_leader.is_none()
            && record_isr.is_none()
            && record_replicas.is_none()
            && record_removing.is_none()
            && record_adding.is_none()
            && record_lrs.is_none();
        if no_op {
            return None;
        }
        // PartitionRegistration.merge: a set leader bumps leaderEpoch; partitionEpoch always +1.
        let mut next = part.clone();
        if let Some(l) = record_leader {
            next.leader = l;
            next.leader_epoch += 1;
        }
        next.partition_epoch += 1;
        if let Some(v) = record_isr {
            next.isr = v;
        }
        if let Some(v) = record_replicas {
            next.replicas = v;
        }
        if let Some(v) = record_removing {
            next.removing_replicas = v;
        }
        if let Some(v) = record_adding {
            next.adding_replicas = v;
        }
        if let Some(s) = record_lrs {
            next.leader_recovery_state = s;
        }
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
