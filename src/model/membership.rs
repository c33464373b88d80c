//! The controller's answers to broker registration events: fencing, controlled shutdown,
//! an unclean shutdown found at re-registration (ELR only), unfencing.
//! Upstream: metadata/src/main/java/org/apache/kafka/controller/ReplicationControlManager.java
//! at apache trunk d79bd502ec (`handleBrokerFenced`, `handleBrokerInControlledShutdown`,
//! `handleBrokerShutdown`, `handleBrokerUnfenced`, `generateLeaderAndIsrUpdates`), and
//! aiven/inkless for the diskless ISR expansion on unfencing.

use super::builder::{Acceptor, ChangeBuilder};
use super::controller::{acceptor, commit, fault, Rejection};
use super::{
    BrokerId, BrokerState, Cluster, ErrorCode, Outcome, PartitionEffect, Rules, NO_LEADER,
};

/// `handleBrokerFenced` / `handleBrokerInControlledShutdown`: the broker leaves every
/// ISR it is in (unless it is the last member) and is never an acceptable leader.
/// Partitions where it is only an adding replica are not touched. A broker asking for a
/// controlled shutdown while it leads no partition is granted an immediate shutdown
/// instead, and fenced (`BrokerHeartbeatManager.calculateNextBrokerState`, SHUTDOWN_NOW
/// when `hasLeaderships` is false, handled as `handleBrokerFenced` by
/// `ReplicationControlManager.processBrokerHeartbeat`, apache trunk d79bd502ec and
/// releases 4.0 to 4.4, shown by conformance).
pub(crate) fn broker_leaves(
    c: &mut Cluster,
    rules: &dyn Rules,
    broker: BrokerId,
    to: BrokerState,
) -> Result<Outcome, Rejection> {
    let from = c.broker_state(broker);
    let allowed = match to {
        BrokerState::Fenced => from.is_some_and(BrokerState::is_up),
        _ => from == Some(BrokerState::Active),
    };
    if !allowed {
        return Err((
            ErrorCode::BrokerStateMismatch,
            "the broker is not in a state this event applies to",
        ));
    }
    let leads = c.partitions.iter().any(|p| p.leader == broker);
    let to = if to == BrokerState::ControlledShutdown && !leads {
        BrokerState::Fenced
    } else {
        to
    };
    atomically(c, |c| {
        set_broker_state(c, broker, to);
        let effects = leave_partitions(c, rules, broker, false, false)?;
        Ok(Outcome::accepted(effects))
    })
}

/// Run `f`; when it fails, put back what it changed: upstream replays no record of a
/// request whose handler threw.
fn atomically<T>(
    c: &mut Cluster,
    f: impl FnOnce(&mut Cluster) -> Result<T, Rejection>,
) -> Result<T, Rejection> {
    let saved = (
        c.brokers.clone(),
        c.partitions.clone(),
        c.reassigning.clone(),
    );
    let result = f(c);
    if result.is_err() {
        (c.brokers, c.partitions, c.reassigning) = saved;
    }
    result
}

/// `handleBrokerShutdown`, which every registration of a new incarnation runs
/// (`ClusterControlManager.registerBroker`, apache trunk d79bd502ec): with ELR on and an
/// unclean shutdown (the previous broker epoch does not match), `generateLeaderAndIsrUpdates`
/// with `brokerWithUncleanShutdown`, over the partitions with the broker in the ISR, then
/// those with it in the ELR (disjoint sets, so one record at a time equals upstream's
/// batch); otherwise as if the broker were fenced, over the partitions with it in the ISR
/// (a fenced broker is left only where it was the last member, ELR off, and an unclean
/// topic then elects another replica). Found by conformance: the model ran nothing here
/// with ELR off or after a clean shutdown.
pub(crate) fn broker_registers(
    c: &mut Cluster,
    rules: &dyn Rules,
    broker: BrokerId,
    unclean: bool,
) -> Result<Vec<PartitionEffect>, Rejection> {
    atomically(c, |c| {
        if !(c.elr && unclean) {
            return leave_partitions(c, rules, broker, false, false);
        }
        let mut effects = leave_partitions(c, rules, broker, true, false)?;
        effects.extend(leave_partitions(c, rules, broker, true, true)?);
        Ok(effects)
    })
}

/// `generateLeaderAndIsrUpdates` removing `broker` (never an acceptable leader, out of the
/// ISR; with `unclean_shutdown`, kept out of the ELR too) over the partitions that list it
/// in the ISR (or, with `in_elr`, in the ELR).
fn leave_partitions(
    c: &mut Cluster,
    rules: &dyn Rules,
    broker: BrokerId,
    unclean_shutdown: bool,
    in_elr: bool,
) -> Result<Vec<PartitionEffect>, Rejection> {
    let mut effects = Vec::new();
    for index in 0..c.partitions.len() {
        let part = &c.partitions[index];
        if !(if in_elr { &part.elr } else { &part.isr }).contains(&broker) {
            continue;
        }
        let acceptor = Acceptor {
            brokers: &c.brokers,
            remove: broker,
            add: NO_LEADER,
        };
        let mut builder = ChangeBuilder::new(part, rules, acceptor, c.elr).with_topic_election();
        if unclean_shutdown {
            builder.unclean_shutdown = broker;
        }
        builder.target_isr.retain(|&b| b != broker);
        let built = builder.build().map_err(fault)?;
        effects.extend(commit(c, index, built));
    }
    Ok(effects)
}

/// `handleBrokerUnfenced`: elections for the partitions that have no leader.
pub(crate) fn unfence(
    c: &mut Cluster,
    rules: &dyn Rules,
    broker: BrokerId,
) -> Result<Outcome, Rejection> {
    if c.broker_state(broker) != Some(BrokerState::Fenced) {
        return Err((ErrorCode::BrokerStateMismatch, "the broker is not fenced"));
    }
    if c.runtime.unregistered.contains(&broker) {
        return Err((
            ErrorCode::BrokerStateMismatch,
            "the broker's registration failed: it sends no heartbeat",
        ));
    }
    atomically(c, |c| unfence_partitions(c, rules, broker))
}

/// `handleBrokerUnfenced`'s records: the elections, the broker active, then Inkless's
/// diskless ISR expansion.
fn unfence_partitions(
    c: &mut Cluster,
    rules: &dyn Rules,
    broker: BrokerId,
) -> Result<Outcome, Rejection> {
    let mut effects = Vec::new();
    for index in 0..c.partitions.len() {
        let part = &c.partitions[index];
        if part.leader != NO_LEADER {
            continue;
        }
        let acceptor = Acceptor {
            brokers: &c.brokers,
            remove: NO_LEADER,
            add: broker,
        };
        let built = ChangeBuilder::new(part, rules, acceptor, c.elr)
            .with_topic_election()
            .build()
            .map_err(fault)?;
        effects.extend(commit(c, index, built));
    }
    set_broker_state(c, broker, BrokerState::Active);
    // `expandIsrForDisklessManagedPartitions` (#754): rule `unfence-expansion`.
    for index in 0..c.partitions.len() {
        let part = &c.partitions[index];
        let lists = part.replicas.contains(&broker) && !part.isr.contains(&broker);
        if !(part.diskless && lists && rules.unfence_adds_to_isr(part)) {
            continue;
        }
        let mut builder = ChangeBuilder::new(part, rules, acceptor(c), c.elr).with_topic_election();
        builder.target_isr.push(broker);
        let built = builder.build().map_err(fault)?;
        effects.extend(commit(c, index, built));
    }
    Ok(Outcome::accepted(effects))
}

fn set_broker_state(c: &mut Cluster, broker: BrokerId, to: BrokerState) {
    if let Some(entry) = c.brokers.iter_mut().find(|(b, _)| *b == broker) {
        entry.1 = to;
    }
}
