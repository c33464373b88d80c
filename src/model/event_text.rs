//! The step tables' short form of an event (`reassign p0 [1,2,4]`), `Event`'s Display.

use super::event::{Acks, Event, Ids, Survives};
use super::LeaderRecoveryState;
use std::fmt;

/// `create [1,2,3] unclean.enable diskless remote min.isr=2`.
fn fmt_create(e: &Event, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let Event::CreatePartition {
        replicas,
        unclean_leader_election_enable,
        diskless,
        remote_storage,
        min_insync_replicas,
    } = e
    else {
        unreachable!("called for create_partition only")
    };
    write!(f, "create {}", Ids(replicas))?;
    flag(f, *unclean_leader_election_enable, " unclean.enable")?;
    flag(f, *diskless, " diskless")?;
    flag(f, *remote_storage, " remote")?;
    if *min_insync_replicas != 1 {
        write!(f, " min.isr={min_insync_replicas}")?;
    }
    Ok(())
}

/// A short form for step tables, e.g. `reassign p0 [1,2,4]`.
impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Event::CreatePartition { .. } => fmt_create(self, f),
            Event::Reassign {
                partition,
                target,
                allow_replication_factor_change,
            } => {
                write!(f, "reassign p{partition} {}", Ids(target))?;
                flag(f, !allow_replication_factor_change, " keep-rf")
            }
            Event::CancelReassignment { partition } => write!(f, "cancel p{partition}"),
            Event::AlterPartition { .. } => fmt_alter_partition(self, f),
            Event::FenceBroker { broker } => write!(f, "fence {broker}"),
            Event::UnfenceBroker { broker } => write!(f, "unfence {broker}"),
            Event::ControlledShutdown { broker } => write!(f, "shutdown {broker}"),
            Event::ElectLeaders {
                partition,
                election,
            } => write!(f, "elect p{partition} {}", election.name()),
            Event::ElectLeadersMany { .. }
            | Event::AlterTopicConfig { .. }
            | Event::LaggingHeartbeat { .. }
            | Event::UnregisterBroker { .. }
            | Event::UpdateFeatures { .. } => fmt_format_5(self, f),
            Event::CreatePartitions {
                partition,
                replicas,
            } => write!(f, "add_partition to p{partition}'s topic {}", Ids(replicas)),
            Event::DeleteTopic { partition } => write!(f, "delete p{partition}'s topic"),
            Event::AssignReplicaDir {
                partition,
                broker,
                dir,
            } => write!(f, "assign p{partition} on {broker} to dir{dir}"),
            Event::LogDirOffline { broker, dir } => write!(f, "dir{dir} of {broker} fails"),
            Event::ListReassignments => f.write_str("list"),
            Event::Produce {
                partition,
                records,
                acks,
            } => {
                write!(f, "produce p{partition} +{records}")?;
                flag(f, *acks == Acks::All, " acks=all")
            }
            Event::AdvanceTime { ms } => write!(f, "time +{ms}ms"),
            Event::FollowerFetch { partition, broker } => {
                write!(f, "fetch p{partition} by {broker}")
            }
            Event::SwitchStart {
                partition,
                consolidating,
            } => {
                write!(f, "switch p{partition}")?;
                flag(f, *consolidating, " consolidating")
            }
            Event::SealCommit { partition } => write!(f, "seal_commit p{partition}"),
            Event::AlterDisklessSwitch { partition, seal } => {
                write!(f, "alter_switch p{partition} seal={seal}")
            }
            Event::StallBroker { broker } => write!(f, "stall {broker}"),
            Event::ResumeBroker { broker } => write!(f, "resume {broker}"),
            Event::RestartBroker { .. } => fmt_restart(self, f),
            Event::DeleteRecords { partition, offset } => match offset {
                -1 => write!(f, "delete_records p{partition} to the hw"),
                _ => write!(f, "delete_records p{partition} below {offset}"),
            },
            Event::FlushBroker { broker } => write!(f, "flush {broker}"),
        }
    }
}

/// `alter_partition p0 isr=[1,2] from=1 le=3 pe=4 recovering stale-epoch=2`.
fn fmt_alter_partition(e: &Event, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let Event::AlterPartition {
        partition,
        isr,
        broker,
        leader_epoch,
        partition_epoch,
        leader_recovery_state,
        stale_epoch,
    } = e
    else {
        unreachable!("called for alter_partition only")
    };
    write!(f, "alter_partition p{partition} isr={}", Ids(isr))?;
    optional(f, " from=", broker)?;
    optional(f, " le=", leader_epoch)?;
    optional(f, " pe=", partition_epoch)?;
    let recovering = *leader_recovery_state == LeaderRecoveryState::Recovering;
    flag(f, recovering, " recovering")?;
    optional(f, " stale-epoch=", stale_epoch)
}

/// The operations format 5 added: `elect p0 p2 unclean`, `elect all preferred`,
/// `config p0 min.isr=2 unclean.enable=true`, `lagging heartbeat 2`, `unregister 2`.
fn fmt_format_5(e: &Event, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    match e {
        Event::ElectLeadersMany {
            partitions: Some(list),
            election,
        } => {
            f.write_str("elect")?;
            for p in list {
                write!(f, " p{p}")?;
            }
            write!(f, " {}", election.name())
        }
        Event::ElectLeadersMany {
            partitions: None,
            election,
        } => write!(f, "elect all {}", election.name()),
        Event::AlterTopicConfig {
            partition,
            min_insync_replicas,
            unclean_leader_election_enable,
        } => {
            write!(f, "config p{partition}")?;
            optional(f, " min.isr=", min_insync_replicas)?;
            optional(f, " unclean.enable=", unclean_leader_election_enable)
        }
        Event::LaggingHeartbeat { broker } => write!(f, "lagging heartbeat {broker}"),
        Event::UnregisterBroker { broker } => write!(f, "unregister {broker}"),
        Event::UpdateFeatures {
            eligible_leader_replicas,
        } => write!(f, "features elr={}", u8::from(*eligible_leader_replicas)),
        _ => unreachable!("called for the operations of format 5 only"),
    }
}

/// `restart 2 unclean survives=hw`.
fn fmt_restart(e: &Event, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let Event::RestartBroker {
        broker,
        unclean,
        survives,
    } = e
    else {
        unreachable!("called for restart_broker only")
    };
    write!(f, "restart {broker}")?;
    flag(f, *unclean, " unclean")?;
    flag(
        f,
        *survives == Some(Survives::HighWatermark),
        " survives=hw",
    )
}

/// A step table's optional flag: `text` when `on`.
fn flag(f: &mut fmt::Formatter<'_>, on: bool, text: &str) -> fmt::Result {
    if on {
        f.write_str(text)?;
    }
    Ok(())
}

/// A step table's optional field: `prefix` and the value, when there is one.
fn optional<T: fmt::Display>(
    f: &mut fmt::Formatter<'_>,
    prefix: &str,
    value: &Option<T>,
) -> fmt::Result {
    match value {
        Some(v) => write!(f, "{prefix}{v}"),
        None => Ok(()),
    }
}
