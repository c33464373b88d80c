//! The controller's answers to broker registration events: fencing, controlled shutdown,
//! an unclean shutdown found at re-registration (ELR only), unfencing, a heartbeat that
//! lags the metadata log, unregistration.
//! Upstream: metadata/src/main/java/org/apache/kafka/controller/ReplicationControlManager.java
//! at apache trunk d79bd502ec (`handleBrokerFenced`, `handleBrokerInControlledShutdown`,
//! `handleBrokerShutdown`, `handleBrokerUnfenced`, `generateLeaderAndIsrUpdates`), and
//! aiven/inkless for the diskless ISR expansion on unfencing.

use super::builder::{Acceptor, Built, ChangeBuilder};
use super::commit::{acceptor, commit, fault, Rejection};
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
    let records = leave_records(c, rules, broker, false, false)?;
    set_broker_state(c, broker, to);
    Ok(Outcome::accepted(commit_all(c, records)))
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
    // A broker with no registration (unregistered) has no stored epoch to match: its
    // shutdown counts as unclean (`registerBroker` compares the previous epoch with -2).
    let new = !c.is_registered(broker);
    let unclean = c.elr && (unclean || new);
    let mut records = leave_records(c, rules, broker, unclean, false)?;
    if unclean {
        records.extend(leave_records(c, rules, broker, true, true)?);
    }
    let effects = commit_all(c, records);
    // The new incarnation registers every directory it has (`logDirs`): all online.
    c.offline_dirs.retain(|&(b, _, _)| b != broker);
    if new {
        // `RegisterBrokerRecord`: registered fenced.
        let at = c.brokers.partition_point(|&(b, _)| b < broker);
        c.brokers.insert(at, (broker, BrokerState::Fenced));
        c.runtime.decommissioned.retain(|&b| b != broker);
    }
    Ok(effects)
}

/// A handler's records, each built before any is stored, so that a build that throws
/// fails the whole request with nothing written (upstream replays no record of a request
/// whose handler threw). Each build reads only its own partition and the brokers, which
/// the records stored before it do not change, so building them all first equals
/// upstream's build-and-append loop.
pub(crate) type Records = Vec<(usize, Built)>;

/// Store the records in order. A partition the request built two records for (the ELR
/// index listed it again, or in both passes) gets the same record merged twice:
/// `PartitionRegistration.merge` bumps the partition epoch again, and the leader epoch
/// again when the record names a leader (it did if the first bumped it).
pub(crate) fn commit_all(c: &mut Cluster, records: Records) -> Vec<PartitionEffect> {
    let mut effects = Vec::with_capacity(records.len());
    let mut before: Vec<(usize, i32)> = Vec::new();
    for (index, built) in records {
        match before.iter().find(|&&(i, _)| i == index) {
            Some(&(_, leader_epoch)) => {
                let mut again = c.partitions[index].clone();
                again.partition_epoch += 1;
                if built.partition.leader_epoch != leader_epoch {
                    again.leader_epoch += 1;
                }
                let built = Built {
                    partition: again,
                    ..built
                };
                effects.extend(commit(c, index, Some(built)));
            }
            None => {
                before.push((index, c.partitions[index].leader_epoch));
                effects.extend(commit(c, index, Some(built)));
            }
        }
    }
    effects
}

/// `generateLeaderAndIsrUpdates` removing `broker` (never an acceptable leader, out of the
/// ISR; with `unclean_shutdown`, kept out of the ELR too) over the partitions that list it
/// in the ISR, or, with `in_elr`, over those the ELR index lists it under (once per
/// entry: `Cluster::elr_index` may list a partition whose ELR no longer holds the broker,
/// or list it twice). Every record is built from the state before the request.
fn leave_records(
    c: &Cluster,
    rules: &dyn Rules,
    broker: BrokerId,
    unclean_shutdown: bool,
    in_elr: bool,
) -> Result<Records, Rejection> {
    let mut records = Vec::new();
    let listed: Vec<usize> = if in_elr {
        let entries = c.elr_index.iter().filter(|&&(b, _)| b == broker);
        let listed: Vec<usize> = entries.map(|&(_, p)| p).collect();
        // Upstream walks the index in its maps' order and throws at the deleted topic's
        // entry; every record is discarded with the request, so where it throws does not
        // matter (unless a live entry's build throws first: both are faults).
        if listed.contains(&super::DELETED_PARTITION) {
            return Err((
                ErrorCode::DeletedTopicFault,
                "the ELR index lists the broker under a deleted topic",
            ));
        }
        listed
    } else {
        (0..c.partitions.len())
            .filter(|&p| c.partitions[p].isr.contains(&broker))
            .collect()
    };
    for index in listed {
        records.extend(remove_record(c, rules, broker, unclean_shutdown, index)?);
    }
    Ok(records)
}

/// One partition's record of `generateLeaderAndIsrUpdates` removing `broker` (with
/// `unclean_shutdown`, as `brokerWithUncleanShutdown`), built from the current state.
pub(crate) fn remove_record(
    c: &Cluster,
    rules: &dyn Rules,
    broker: BrokerId,
    unclean_shutdown: bool,
    index: usize,
) -> Result<Option<(usize, Built)>, Rejection> {
    let part = &c.partitions[index];
    let acceptor = Acceptor {
        remove: broker,
        ..acceptor(c)
    };
    let mut builder = ChangeBuilder::new(part, rules, acceptor, c.elr).with_topic_election();
    if unclean_shutdown {
        builder.unclean_shutdown = broker;
    }
    builder.target_isr.retain(|&b| b != broker);
    Ok(builder.build().map_err(fault)?.map(|b| (index, b)))
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
    let mut records = Vec::new();
    for index in 0..c.partitions.len() {
        let part = &c.partitions[index];
        if part.leader != NO_LEADER {
            continue;
        }
        let acceptor = Acceptor {
            add: broker,
            ..acceptor(c)
        };
        let built = ChangeBuilder::new(part, rules, acceptor, c.elr)
            .with_topic_election()
            .build()
            .map_err(fault)?;
        records.extend(built.map(|b| (index, b)));
    }
    let mut effects = commit_all(c, records);
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
        // A diskless topic's acceptor has no directory lookup: this build never throws.
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

/// A heartbeat whose current metadata offset is behind the broker's own registration
/// record (`BrokerHeartbeatManager.calculateNextBrokerState`): a fenced broker that has
/// not caught up stays fenced, and nothing is written. Only a fenced broker can lag so:
/// once unfenced, its offset has passed its registration.
pub(crate) fn lagging_heartbeat(c: &Cluster, broker: BrokerId) -> Result<Outcome, Rejection> {
    if c.broker_state(broker) != Some(BrokerState::Fenced)
        || c.runtime.unregistered.contains(&broker)
    {
        return Err((
            ErrorCode::BrokerStateMismatch,
            "only a fenced broker that heartbeats can lag its registration",
        ));
    }
    Ok(Outcome::accepted(Vec::new()))
}

/// `unregisterBroker` (`handleBrokerUnregistered`): `generateLeaderAndIsrUpdates` removing
/// the broker over the partitions with it in the ISR, then over those with it in the ELR
/// (disjoint sets, ELR2; no unclean shutdown, so an ELR member stays in the ELR unless the
/// change moves it), then the registration is gone. The model unregisters only a broker
/// that is down (fenced), as an operator decommissions one; a live broker's process would
/// heartbeat on against a removed registration, which the model does not follow.
pub(crate) fn unregister(
    c: &mut Cluster,
    rules: &dyn Rules,
    broker: BrokerId,
) -> Result<Outcome, Rejection> {
    match c.broker_state(broker) {
        None => {
            return Err((
                ErrorCode::BrokerIdNotRegistered,
                "the broker is not registered",
            ))
        }
        Some(BrokerState::Fenced) => {}
        Some(_) => {
            return Err((
                ErrorCode::BrokerStateMismatch,
                "the model unregisters only a broker that is down",
            ))
        }
    }
    let mut records = leave_records(c, rules, broker, false, false)?;
    records.extend(leave_records(c, rules, broker, false, true)?);
    let effects = commit_all(c, records);
    c.brokers.retain(|&(b, _)| b != broker);
    c.offline_dirs.retain(|&(b, _, _)| b != broker);
    c.runtime.decommissioned.push(broker);
    c.runtime.decommissioned.sort_unstable();
    Ok(Outcome::accepted(effects))
}
