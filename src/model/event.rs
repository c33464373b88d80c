//! The operations alphabet: every event a history can contain. The serde form of this
//! enum *is* the history format's event list (see docs/history-format.md).

use super::{BrokerId, LeaderRecoveryState};
use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ElectionType {
    Preferred,
    Unclean,
}

fn yes() -> bool {
    true
}
fn is_true(b: &bool) -> bool {
    *b
}
fn is_false(b: &bool) -> bool {
    !*b
}
fn is_zero(p: &usize) -> bool {
    *p == 0
}
fn recovered() -> LeaderRecoveryState {
    LeaderRecoveryState::Recovered
}
fn is_recovered(s: &LeaderRecoveryState) -> bool {
    *s == LeaderRecoveryState::Recovered
}

/// One step of a history. `partition` is the index of the partition in creation order
/// (the n-th `create_partition` made partition n); it defaults to 0.
#[derive(Clone, PartialEq, Eq, Debug, Hash, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum Event {
    /// CreateTopics with a manual assignment for one partition.
    CreatePartition {
        replicas: Vec<BrokerId>,
        #[serde(default, skip_serializing_if = "is_false")]
        unclean_leader_election_enable: bool,
    },
    /// AlterPartitionReassignments with a target: starts or overrides a reassignment.
    Reassign {
        #[serde(default, skip_serializing_if = "is_zero")]
        partition: usize,
        target: Vec<BrokerId>,
        /// KIP-860's `allowReplicationFactorChange`.
        #[serde(default = "yes", skip_serializing_if = "is_true")]
        allow_replication_factor_change: bool,
    },
    /// AlterPartitionReassignments with a null target.
    CancelReassignment {
        #[serde(default, skip_serializing_if = "is_zero")]
        partition: usize,
    },
    /// AlterPartition from a broker (by default the current leader, with the current epochs).
    AlterPartition {
        #[serde(default, skip_serializing_if = "is_zero")]
        partition: usize,
        isr: Vec<BrokerId>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        broker: Option<BrokerId>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        leader_epoch: Option<i32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        partition_epoch: Option<i32>,
        #[serde(default = "recovered", skip_serializing_if = "is_recovered")]
        leader_recovery_state: LeaderRecoveryState,
    },
    /// The broker's session expired (`handleBrokerFenced`).
    FenceBroker { broker: BrokerId },
    /// The broker caught up with the metadata log again (`handleBrokerUnfenced`).
    UnfenceBroker { broker: BrokerId },
    /// The broker asked for a controlled shutdown (`handleBrokerInControlledShutdown`).
    ControlledShutdown { broker: BrokerId },
    /// ElectLeaders for one partition.
    ElectLeaders {
        #[serde(default, skip_serializing_if = "is_zero")]
        partition: usize,
        election: ElectionType,
    },
    /// ListPartitionReassignments over every partition: an observation, changes nothing.
    ListReassignments,
}

impl Event {
    /// The partition the event addresses, if it addresses one.
    pub fn partition(&self) -> Option<usize> {
        match *self {
            Event::Reassign { partition, .. }
            | Event::CancelReassignment { partition }
            | Event::AlterPartition { partition, .. }
            | Event::ElectLeaders { partition, .. } => Some(partition),
            _ => None,
        }
    }

    pub fn partition_mut(&mut self) -> Option<&mut usize> {
        match self {
            Event::Reassign { partition, .. }
            | Event::CancelReassignment { partition }
            | Event::AlterPartition { partition, .. }
            | Event::ElectLeaders { partition, .. } => Some(partition),
            _ => None,
        }
    }

    /// The broker a cluster event is about.
    pub fn broker(&self) -> Option<BrokerId> {
        match *self {
            Event::FenceBroker { broker }
            | Event::UnfenceBroker { broker }
            | Event::ControlledShutdown { broker } => Some(broker),
            _ => None,
        }
    }

    /// Every broker id the event names, for renumbering during minimization.
    pub fn broker_ids_mut(&mut self) -> Vec<&mut BrokerId> {
        match self {
            Event::CreatePartition { replicas, .. } => replicas.iter_mut().collect(),
            Event::Reassign { target, .. } => target.iter_mut().collect(),
            Event::AlterPartition { isr, broker, .. } => {
                let mut ids: Vec<_> = isr.iter_mut().collect();
                ids.extend(broker.as_mut());
                ids
            }
            Event::FenceBroker { broker }
            | Event::UnfenceBroker { broker }
            | Event::ControlledShutdown { broker } => vec![broker],
            _ => Vec::new(),
        }
    }
}

pub struct Ids<'a>(pub &'a [BrokerId]);

impl fmt::Display for Ids<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, id) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{id}")?;
        }
        f.write_str("]")
    }
}

/// A short form for step tables, e.g. `reassign p0 [1,2,4]`.
impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Event::CreatePartition {
                replicas,
                unclean_leader_election_enable,
            } => {
                write!(f, "create {}", Ids(replicas))?;
                if *unclean_leader_election_enable {
                    f.write_str(" unclean.enable")?;
                }
                Ok(())
            }
            Event::Reassign {
                partition,
                target,
                allow_replication_factor_change,
            } => {
                write!(f, "reassign p{partition} {}", Ids(target))?;
                if !allow_replication_factor_change {
                    f.write_str(" keep-rf")?;
                }
                Ok(())
            }
            Event::CancelReassignment { partition } => write!(f, "cancel p{partition}"),
            Event::AlterPartition {
                partition,
                isr,
                broker,
                leader_epoch,
                partition_epoch,
                leader_recovery_state,
            } => {
                write!(f, "alter_partition p{partition} isr={}", Ids(isr))?;
                if let Some(b) = broker {
                    write!(f, " from={b}")?;
                }
                if let Some(e) = leader_epoch {
                    write!(f, " le={e}")?;
                }
                if let Some(e) = partition_epoch {
                    write!(f, " pe={e}")?;
                }
                if *leader_recovery_state == LeaderRecoveryState::Recovering {
                    f.write_str(" recovering")?;
                }
                Ok(())
            }
            Event::FenceBroker { broker } => write!(f, "fence {broker}"),
            Event::UnfenceBroker { broker } => write!(f, "unfence {broker}"),
            Event::ControlledShutdown { broker } => write!(f, "shutdown {broker}"),
            Event::ElectLeaders {
                partition,
                election,
            } => {
                let kind = match election {
                    ElectionType::Preferred => "preferred",
                    ElectionType::Unclean => "unclean",
                };
                write!(f, "elect p{partition} {kind}")
            }
            Event::ListReassignments => f.write_str("list"),
        }
    }
}
