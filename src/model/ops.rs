//! The dispatcher: an event goes to the controller (`controller.rs`) or to the broker side
//! (`broker.rs`), then the new registrations are played on every live broker.

use super::broker::{self, Note};
use super::controller::{apply_controller, commit_seal, partition, switch_start, Rejection};
use super::membership::broker_registers;
use super::request::{self, Request};
use super::PartitionEffect;
use super::{
    Acks, BrokerId, BrokerState, Cluster, ErrorCode, Event, Outcome, Rules, Survives, SEAL_NONE,
    SEAL_PENDING,
};

/// Apply one event to the cluster under a rule set, then play the resulting metadata on
/// the brokers. Pure: the same inputs always give the same state and outcome.
pub fn apply(c: &mut Cluster, event: &Event, rules: &dyn Rules) -> Outcome {
    let mut notes = Vec::new();
    let result = match *event {
        Event::Produce {
            partition,
            records,
            acks,
        } => produce(c, rules, partition, records, acks),
        Event::AdvanceTime { ms } => {
            broker::advance_time(c, rules, ms, &mut notes);
            Ok(Outcome::accepted(Vec::new()))
        }
        Event::FollowerFetch { partition, broker } => {
            follower_fetch(c, rules, partition, broker, &mut notes)
        }
        Event::SwitchStart {
            partition,
            consolidating,
        } => switch_start(c, partition, consolidating),
        Event::SealCommit { partition } => seal_commit(c, partition),
        Event::AlterDisklessSwitch { partition, seal } => alter_diskless_switch(c, partition, seal),
        Event::StallBroker { broker } => set_stalled(c, broker, true),
        Event::ResumeBroker { broker } => set_stalled(c, broker, false),
        Event::RestartBroker {
            broker,
            unclean,
            survives,
        } => restart_broker(
            c,
            rules,
            broker,
            unclean.then(|| survives.unwrap_or_default()),
        ),
        Event::DeleteRecords { partition, offset } => delete_records(c, rules, partition, offset),
        Event::FlushBroker { broker } => {
            broker::tell(rules, || broker::BrokerCall::Flush { broker });
            broker::flush_broker(c, broker);
            Ok(Outcome::accepted(Vec::new()))
        }
        Event::AlterPartition { partition, .. } => Ok(alter_partition(c, event, rules, partition)),
        Event::FenceBroker { broker } => Ok(fence_broker(c, event, rules, broker)),
        Event::AlterTopicConfig { partition, .. } => {
            Ok(alter_topic_config(c, event, rules, partition))
        }
        Event::ControlledShutdown { broker } => Ok(controlled_shutdown(c, event, rules, broker)),
        _ => Ok(apply_controller(c, event, rules)),
    };
    let mut outcome = result.unwrap_or_else(|(error, reason)| Outcome::rejected(error, reason));
    if !outcome.is_rejected() {
        broker::sync(c, rules);
        note_unclean_elections(c, &outcome);
        broker::complete_pending(c);
    }
    if let Outcome::Accepted { notes: n, .. } = &mut outcome {
        // Most outcomes carry no notes of their own: hand over the buffer, not its contents.
        if n.is_empty() {
            std::mem::swap(n, &mut notes);
        } else {
            n.append(&mut notes);
        }
    }
    outcome
}

/// An explicit AlterPartition, then the broker side made to agree with it.
fn alter_partition(c: &mut Cluster, event: &Event, rules: &dyn Rules, partition: usize) -> Outcome {
    let empty = (super::IdList::EMPTY, super::IdList::EMPTY, super::NO_LEADER);
    let (replicas_before, before, leader_before) =
        (c.partitions.get(partition)).map_or(empty, |p| (p.replicas, p.isr, p.leader));
    let outcome = apply_controller(c, event, rules);
    if !outcome.is_rejected() {
        let applied = broker::Applied {
            replicas: &replicas_before,
            isr: &before,
            leader: leader_before,
        };
        broker::caught_up_by_assertion(c, rules, partition, applied);
        broker::tell(rules, || {
            broker::BrokerCall::alter_answer(c, leader_before, true, event, &outcome)
        });
    }
    outcome
}

/// A topic config change, then a new `min.insync.replicas` reaches the brokers (the leader's
/// high watermark reads it at its next move), for every partition of the topic.
fn alter_topic_config(
    c: &mut Cluster,
    event: &Event,
    rules: &dyn Rules,
    partition: usize,
) -> Outcome {
    let before = c.partitions.get(partition).map(|p| p.min_insync_replicas);
    let outcome = apply_controller(c, event, rules);
    let after = c.partitions.get(partition).map(|p| p.min_insync_replicas);
    if let (false, Some(min_insync_replicas)) = (before == after, after) {
        for p in c.topic_partitions(c.topic_of[partition]) {
            broker::tell(rules, || broker::BrokerCall::TopicConfig {
                partition: p,
                min_insync_replicas,
            });
        }
    }
    outcome
}

/// A broker that finishes its controlled shutdown exits cleanly: it comes back as a new
/// process.
fn fence_broker(c: &mut Cluster, event: &Event, rules: &dyn Rules, broker: BrokerId) -> Outcome {
    let was = c.broker_state(broker);
    let mut outcome = apply_controller(c, event, rules);
    if !outcome.is_rejected() && was == Some(BrokerState::ControlledShutdown) {
        broker::reset_process(c, rules, broker, None);
        registers_again(c, rules, broker, &mut outcome);
    }
    outcome
}

/// The new process of a broker that shut down cleanly registers at once (still fenced,
/// its previous broker epoch matching), handled as a fencing; a registration that throws
/// leaves the broker out for good (`Note::ControllerFault`).
fn registers_again(c: &mut Cluster, rules: &dyn Rules, broker: BrokerId, outcome: &mut Outcome) {
    match register(c, rules, broker, false) {
        Ok(effects) => {
            if let Outcome::Accepted { effects: all, .. } = outcome {
                all.extend(effects);
            }
        }
        Err((error, _)) => {
            *outcome = faulted(outcome.effects().to_vec(), broker, registration(error))
        }
    }
}

/// A registration of a new incarnation, through the tap. One that throws leaves the
/// broker fenced for good: it retries and never gets in, so it is never unfenced.
fn register(
    c: &mut Cluster,
    rules: &dyn Rules,
    broker: BrokerId,
    unclean: bool,
) -> Result<Vec<PartitionEffect>, Rejection> {
    let registered = broker_registers(c, rules, broker, unclean);
    if let Some(tap) = rules.tap() {
        let request = Request::Register {
            broker,
            clean: !unclean,
        };
        let outcome = match &registered {
            Ok(effects) => Outcome::accepted(effects.clone()),
            Err((error, reason)) => Outcome::rejected(*error, reason),
        };
        tap.record(request::exchange(request, &outcome, c));
    }
    if registered.is_err() {
        c.runtime.unregistered.push(broker);
        c.runtime.unregistered.sort_unstable();
    }
    registered
}

/// A broker that leads nothing is granted its shutdown at once (fenced, not in controlled
/// shutdown): its process exits cleanly, as after a completed controlled shutdown.
fn controlled_shutdown(
    c: &mut Cluster,
    event: &Event,
    rules: &dyn Rules,
    broker: BrokerId,
) -> Outcome {
    let mut outcome = apply_controller(c, event, rules);
    if !outcome.is_rejected() && c.broker_state(broker) == Some(BrokerState::Fenced) {
        broker::reset_process(c, rules, broker, None);
        registers_again(c, rules, broker, &mut outcome);
    }
    outcome
}

/// An unclean election gives up what was acknowledged on that partition (ghost).
fn note_unclean_elections(c: &mut Cluster, outcome: &Outcome) {
    for e in outcome.effects() {
        if e.unclean_election {
            if let Some(g) = c.ghosts.get_mut(e.partition) {
                g.unclean_election = true;
            }
        }
    }
}

/// E1: produce. A classic topic appends on its leader; a switched or born-diskless topic
/// appends to the diskless log; a pending switch is sealed and rejects it.
fn produce(
    c: &mut Cluster,
    rules: &dyn Rules,
    index: usize,
    records: i64,
    acks: Acks,
) -> Result<Outcome, Rejection> {
    let part = partition(c, index)?;
    if part.seal == SEAL_PENDING {
        return Err((
            ErrorCode::InvalidRequest,
            "the partition is sealed for the switch",
        ));
    }
    if part.diskless {
        let end = &mut c.runtime.partitions[index].diskless_end;
        if *end == broker::NO_DISKLESS_LOG {
            return Err((
                ErrorCode::UnknownTopicOrPartition,
                "an aborted switch has no diskless log",
            ));
        }
        *end += records;
        return Ok(Outcome::accepted(Vec::new()));
    }
    broker::append(c, rules, index, records, acks)?;
    Ok(Outcome::accepted(Vec::new()))
}

/// DeleteRecords on a classic partition's leader.
fn delete_records(
    c: &mut Cluster,
    rules: &dyn Rules,
    index: usize,
    offset: i64,
) -> Result<Outcome, Rejection> {
    partition(c, index)?;
    broker::delete_records(c, rules, index, offset)?;
    Ok(Outcome::accepted(Vec::new()))
}

fn follower_fetch(
    c: &mut Cluster,
    rules: &dyn Rules,
    index: usize,
    broker: BrokerId,
    notes: &mut Vec<Note>,
) -> Result<Outcome, Rejection> {
    partition(c, index)?;
    let on_classic = c.runtime.partitions[index]
        .local(broker)
        .is_some_and(|l| l.fetchers.classic.is_some());
    if !on_classic {
        return Err((
            ErrorCode::InvalidRequest,
            "the broker has no classic fetcher for the partition",
        ));
    }
    broker::follower_fetch(c, rules, index, broker, notes);
    Ok(Outcome::accepted(Vec::new()))
}

/// E2b: the sealed leader's InitDisklessLog (`initDisklessLog`), sent once its HW equals
/// its LEO (`InitDisklessLogState.WaitingForReplication`). The seal becomes that HW.
fn seal_commit(c: &mut Cluster, index: usize) -> Result<Outcome, Rejection> {
    let part = partition(c, index)?;
    if part.seal != SEAL_PENDING {
        return Err((ErrorCode::InvalidRequest, "no switch is pending"));
    }
    let leader = part.leader;
    let local = c.runtime.partitions[index]
        .local(leader)
        .filter(|l| l.is_leader && c.is_active(leader));
    let Some(local) = local else {
        return Err((ErrorCode::InvalidRequest, "no live leader to seal"));
    };
    if local.hw != local.leo() {
        return Err((
            ErrorCode::WaitingForReplication,
            "the leader's high watermark has not reached its log end",
        ));
    }
    let seal = local.hw;
    let epoch = part.leader_epoch;
    c.runtime.partitions[index].diskless_end = seal;
    commit_seal(c, index, seal, epoch, false);
    Ok(Outcome::accepted(Vec::new()))
}

/// Operator `AlterDisklessSwitch` (`alterDisklessSwitch`): abort (-2 → -1), re-arm (-2 → -2,
/// leader epoch +1), seal (-2 → s ≥ 0, no HW check), re-seal lower (s → s' ≤ s).
fn alter_diskless_switch(c: &mut Cluster, index: usize, seal: i64) -> Result<Outcome, Rejection> {
    let part = partition(c, index)?;
    let invalid = |why| Err((ErrorCode::InvalidRequest, why));
    if !part.diskless || seal < SEAL_PENDING {
        return invalid("not a diskless topic, or a seal below -2");
    }
    let (current, epoch) = (part.seal, part.leader_epoch);
    // The admin tool reads the leader's log end and refuses a seal beyond it.
    let leader_leo = c.runtime.partitions[index]
        .local(part.leader)
        .filter(|_| c.is_active(part.leader))
        .map(|l| l.leo());
    if seal >= 0 && leader_leo.is_none_or(|leo| seal > leo) {
        return invalid("the tool needs a live leader and a seal within its log");
    }
    match (current, seal) {
        (SEAL_NONE, _) => return invalid("the partition is not part of a switch"),
        (SEAL_PENDING, SEAL_NONE) => {
            c.runtime.partitions[index].diskless_end = broker::NO_DISKLESS_LOG;
            commit_seal(c, index, SEAL_NONE, -1, false);
        }
        (SEAL_PENDING, SEAL_PENDING) => commit_seal(c, index, SEAL_PENDING, -1, true),
        (SEAL_PENDING, s) => {
            c.runtime.partitions[index].diskless_end = s;
            commit_seal(c, index, s, epoch, false);
        }
        (old, s) if s >= 0 && s <= old => {
            let end = &mut c.runtime.partitions[index].diskless_end;
            *end = (*end).max(s);
            commit_seal(c, index, s, epoch, false);
        }
        _ => return invalid("a committed seal can only move down"),
    }
    Ok(Outcome::accepted(Vec::new()))
}

fn set_stalled(c: &mut Cluster, broker: BrokerId, stalled: bool) -> Result<Outcome, Rejection> {
    let listed = c.runtime.stalled.contains(&broker);
    if !c.is_registered(broker) || listed == stalled {
        return Err((
            ErrorCode::BrokerStateMismatch,
            "the broker is already in that state",
        ));
    }
    if stalled {
        c.runtime.stalled.push(broker);
        c.runtime.stalled.sort_unstable();
    } else {
        c.runtime.stalled.retain(|&b| b != broker);
    }
    Ok(Outcome::accepted(Vec::new()))
}

/// E9: fence (if up), fresh Partition objects on the broker (a clean shutdown flushes every
/// log; a power loss loses what was not written back), then unfence (with rule
/// `unfence-expansion`).
fn restart_broker(
    c: &mut Cluster,
    rules: &dyn Rules,
    broker: BrokerId,
    loss: Option<Survives>,
) -> Result<Outcome, Rejection> {
    let mut effects = Vec::new();
    // An unregistered broker is down already and has nothing to fence.
    if c.is_up(broker) {
        let fenced = ok(apply_controller(c, &Event::FenceBroker { broker }, rules))?;
        effects.extend(fenced.effects().iter().cloned());
    }
    broker::reset_process(c, rules, broker, loss);
    c.runtime.unregistered.retain(|&b| b != broker);
    // The new incarnation registers (`handleBrokerShutdown`): with ELR on, an unclean
    // shutdown takes the broker out of every ISR and ELR; otherwise it is handled as a
    // fencing, which matters where the fenced broker was the last ISR member.
    let registered = match register(c, rules, broker, loss.is_some()) {
        Ok(registered) => registered,
        Err((error, _)) => return Ok(faulted(effects, broker, registration(error))),
    };
    effects.extend(registered);
    // An unfencing the controller cannot take (its handler throws) leaves the broker fenced.
    let unfenced = apply_controller(c, &Event::UnfenceBroker { broker }, rules);
    effects.extend(unfenced.effects().iter().cloned());
    if matches!(
        unfenced,
        Outcome::Rejected {
            error: ErrorCode::ControllerFault,
            ..
        }
    ) {
        return Ok(faulted(effects, broker, "unfencing heartbeat"));
    }
    Ok(Outcome::accepted(effects))
}

/// The registration that threw, as the S4 detail names it: the ELR index's entry of a
/// deleted topic is named, the other fault (the leader acceptor's) is not.
fn registration(error: ErrorCode) -> &'static str {
    match error {
        ErrorCode::DeletedTopicFault => "registration (its ELR index entry names a deleted topic)",
        _ => "registration",
    }
}

/// A restart whose own request threw in the controller: what happened before it stands.
fn faulted(effects: Vec<PartitionEffect>, broker: BrokerId, request: &'static str) -> Outcome {
    Outcome::Accepted {
        effects,
        new_leader_elected: false,
        listed: None,
        elected: None,
        notes: vec![Note::ControllerFault { broker, request }],
    }
}

/// A rejected outcome as the rejection it carries.
fn ok(outcome: Outcome) -> Result<Outcome, Rejection> {
    match outcome {
        Outcome::Rejected { error, reason } => Err((error, reason)),
        accepted => Ok(accepted),
    }
}
