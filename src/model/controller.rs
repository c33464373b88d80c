//! The controller's operations: one function per request or cluster event, each validating
//! first (a rejected request changes nothing) and then going through the change builder.
//! Upstream: metadata/src/main/java/org/apache/kafka/controller/ReplicationControlManager.java
//! at apache trunk d79bd502ec, and aiven/inkless for the switch records (method named on
//! each function). Nothing here touches the broker side: `ops::apply` plays the result on
//! the brokers, and the broker side calls `apply_controller` for its own requests.

use super::admin::{alter_topic_config, elect_leaders, elect_many};
use super::builder::ChangeBuilder;
pub(crate) use super::commit::{
    acceptor, caught, commit, fault, partition, push_partition, validate_assignment, Rejection,
    TopicConfig,
};
use super::membership::{broker_leaves, lagging_heartbeat, unfence, unregister};
use super::{
    has_duplicates, sorted_difference, without, BrokerId, BrokerState, Cluster, ErrorCode, Event,
    Ghost, IdList, LeaderRecoveryState, Outcome, Partition, Rules, NO_LEADER, PARTITIONS_MAX,
    SEAL_NONE, SEAL_PENDING,
};

/// The controller's part of an event: requests and cluster events, without the brokers'
/// reaction (the broker side calls this for its own AlterPartition requests).
pub(crate) fn apply_controller(c: &mut Cluster, event: &Event, rules: &dyn Rules) -> Outcome {
    let Some(tap) = rules.tap() else {
        return answer(c, event, rules);
    };
    let request = super::request::Request::Event(super::request::resolve(c, event));
    let outcome = answer(c, event, rules);
    tap.record(super::request::exchange(request, &outcome, c));
    outcome
}

/// The controller's answer to one request (`apply_controller` without the tap).
fn answer(c: &mut Cluster, event: &Event, rules: &dyn Rules) -> Outcome {
    let result = match *event {
        Event::CreatePartition { .. } => create_partition(c, event),
        Event::Reassign {
            partition,
            ref target,
            allow_replication_factor_change,
        } => reassign(c, rules, partition, target, allow_replication_factor_change),
        Event::CancelReassignment { partition } => cancel(c, rules, partition),
        Event::AlterPartition {
            partition,
            ref isr,
            broker,
            leader_epoch,
            partition_epoch,
            leader_recovery_state,
            stale_epoch,
        } => {
            let request = AlterPartitionRequest {
                isr,
                broker,
                leader_epoch,
                partition_epoch,
                leader_recovery_state,
                stale_epoch,
            };
            alter_partition(c, rules, partition, request)
        }
        Event::FenceBroker { broker } => broker_leaves(c, rules, broker, BrokerState::Fenced),
        Event::ControlledShutdown { broker } => {
            broker_leaves(c, rules, broker, BrokerState::ControlledShutdown)
        }
        Event::UnfenceBroker { broker } => unfence(c, rules, broker),
        Event::ElectLeaders {
            partition,
            election,
        } => elect_leaders(c, rules, partition, election),
        Event::ElectLeadersMany { .. }
        | Event::AlterTopicConfig { .. }
        | Event::LaggingHeartbeat { .. }
        | Event::UnregisterBroker { .. }
        | Event::UpdateFeatures { .. }
        | Event::CreatePartitions { .. }
        | Event::DeleteTopic { .. } => answer_format_5(c, event, rules),
        Event::AssignReplicaDir {
            partition,
            broker,
            dir,
        } => super::dirs::assign_replica_dir(c, rules, partition, broker, dir),
        Event::LogDirOffline { broker, dir } => super::dirs::log_dir_offline(c, rules, broker, dir),
        Event::ListReassignments => Ok(Outcome::Accepted {
            effects: Vec::new(),
            new_leader_elected: false,
            listed: Some(c.reassigning.clone()),
            elected: None,
            notes: Vec::new(),
        }),
        _ => Err((ErrorCode::InvalidRequest, "not a controller event")),
    };
    result.unwrap_or_else(|(error, reason)| Outcome::rejected(error, reason))
}

/// The requests history formats 5 and 6 added: elections over several partitions, topic
/// config changes, a heartbeat that lags, unregistration, feature updates; partitions
/// added to a topic, topic deletion.
fn answer_format_5(
    c: &mut Cluster,
    event: &Event,
    rules: &dyn Rules,
) -> Result<Outcome, Rejection> {
    match *event {
        Event::ElectLeadersMany {
            ref partitions,
            election,
        } => elect_many(c, rules, partitions.as_deref(), election),
        Event::AlterTopicConfig {
            partition,
            min_insync_replicas,
            unclean_leader_election_enable,
        } => alter_topic_config(
            c,
            partition,
            min_insync_replicas,
            unclean_leader_election_enable,
        ),
        Event::LaggingHeartbeat { broker } => lagging_heartbeat(c, broker),
        Event::UnregisterBroker { broker } => unregister(c, rules, broker),
        // `FeatureControlManager.updateFeatures`: a FeatureLevelRecord, nothing else the
        // model holds (turning ELR on also writes a cluster-level min.insync.replicas
        // ConfigRecord, which every topic's own config overrides).
        Event::UpdateFeatures {
            eligible_leader_replicas,
        } => {
            c.elr = eligible_leader_replicas;
            Ok(Outcome::accepted(Vec::new()))
        }
        Event::CreatePartitions {
            partition,
            ref replicas,
        } => super::topics::create_partitions(c, partition, replicas),
        Event::DeleteTopic { partition } => super::topics::delete_topic(c, partition),
        _ => Err((ErrorCode::InvalidRequest, "not a format 5 or 6 request")),
    }
}

/// `createTopics` with a manual assignment for one partition, on a new topic.
fn create_partition(c: &mut Cluster, event: &Event) -> Result<Outcome, Rejection> {
    let Event::CreatePartition {
        ref replicas,
        unclean_leader_election_enable,
        diskless,
        remote_storage,
        min_insync_replicas,
    } = *event
    else {
        return Err((ErrorCode::InvalidRequest, "not a topic creation"));
    };
    let config = TopicConfig {
        unclean_leader_election_enable,
        diskless,
        remote_storage,
        min_insync_replicas,
        replication_factor: replicas.len() as u32,
    };
    if c.partitions.len() >= PARTITIONS_MAX {
        return Err((
            ErrorCode::InvalidRequest,
            "partition limit of the model reached",
        ));
    }
    validate_assignment(c, replicas)?;
    let topic = c.new_topic_id();
    push_partition(
        c,
        replicas,
        topic,
        config,
        "every replica is fenced or shutting down",
    )
}

/// `alterPartitionReassignment` → `changePartitionReassignment`, with the derivation rule.
fn reassign(
    c: &mut Cluster,
    rules: &dyn Rules,
    index: usize,
    target: &[BrokerId],
    allow_replication_factor_change: bool,
) -> Result<Outcome, Rejection> {
    let part = partition(c, index)?;
    validate_assignment(c, target)?;
    if !allow_replication_factor_change {
        // `validatePartitionReplicationFactorUnchanged`: during a reassignment the current
        // RF is |(replicas ∪ adding) − removing|.
        let current_rf = if part.is_reassigning() {
            let mut all = part.replicas;
            all.extend(sorted_difference(&part.adding_replicas, &part.replicas));
            without(&all, &part.removing_replicas).len()
        } else {
            part.replicas.len()
        };
        if current_rf != target.len() {
            return Err((
                ErrorCode::InvalidReplicationFactor,
                "the target changes the replication factor",
            ));
        }
    }
    if part.diskless && rules.one_step_reassignment(part) {
        return one_step_reassignment(c, rules, index, target);
    }
    let plan = rules.plan_reassignment(part, target);
    let mut builder = ChangeBuilder::new(part, rules, acceptor(c), c.elr);
    if plan.replicas != part.replicas {
        builder.target_replicas = plan.replicas.into();
    }
    if let Some(adding) = plan.adding {
        builder.target_adding = adding.into();
    }
    if let Some(removing) = plan.removing {
        builder.target_removing = removing.into();
    }
    if !plan.drop_now.is_empty() {
        builder.target_isr.retain(|b| !plan.drop_now.contains(b));
    }
    let was_reassigning = part.is_reassigning();
    let original = part.replicas;
    let built = builder.build().map_err(caught)?;
    update_ghost(&mut c.ghosts[index], was_reassigning, original, target);
    Ok(Outcome::accepted(commit(c, index, built)))
}

/// O is set when a chain of alter calls starts on a quiet partition; T on every call.
fn update_ghost(ghost: &mut Ghost, was_reassigning: bool, original: IdList, target: &[BrokerId]) {
    if !was_reassigning {
        ghost.original = original;
        ghost.ever_targeted.clear();
    }
    ghost.target = target.into();
    // The sorted union, without ever holding a broker twice (the list is inline).
    for &b in target {
        if !ghost.ever_targeted.contains(&b) {
            ghost.ever_targeted.push(b);
        }
    }
    ghost.ever_targeted.sort_unstable();
}

/// `cancelPartitionReassignment` with `PartitionReassignmentRevert`: replicas − adding,
/// ISR − adding; an emptied ISR becomes [first remaining replica] and needs unclean
/// election to be enabled on the topic.
fn cancel(c: &mut Cluster, rules: &dyn Rules, index: usize) -> Result<Outcome, Rejection> {
    let part = partition(c, index)?;
    if !part.is_reassigning() {
        return Err((
            ErrorCode::NoReassignmentInProgress,
            "no reassignment in progress",
        ));
    }
    let replicas = without(&part.replicas, &part.adding_replicas);
    let Some(&first) = replicas.first() else {
        return Err((
            ErrorCode::InvalidReplicaAssignment,
            "reverting would leave no replica",
        ));
    };
    let mut isr = without(&part.isr, &part.adding_replicas);
    let unclean_revert = isr.is_empty();
    if unclean_revert {
        if !part.unclean_leader_election_enable {
            return Err((
                ErrorCode::InvalidReplicaAssignment,
                "cancel would need an unclean leader election",
            ));
        }
        isr = vec![first];
    }
    let mut builder = ChangeBuilder::new(part, rules, acceptor(c), c.elr).with_topic_election();
    builder.target_isr = isr.into();
    builder.target_replicas = replicas.into();
    builder.target_adding.clear();
    builder.target_removing.clear();
    let built = builder.build().map_err(caught)?;
    let mut effects = commit(c, index, built);
    if unclean_revert {
        // An unclean revert (`PartitionReassignmentRevert.unclean`, allowed only by the
        // topic's unclean setting): what the ISR held may be gone, as after an unclean
        // election (ghost), and the step is one (INV-2 does not judge its join).
        c.ghosts[index].unclean_election = true;
        effects.iter_mut().for_each(|e| e.unclean_election = true);
    }
    Ok(Outcome::accepted(effects))
}

struct AlterPartitionRequest<'a> {
    isr: &'a [BrokerId],
    broker: Option<BrokerId>,
    leader_epoch: Option<i32>,
    partition_epoch: Option<i32>,
    leader_recovery_state: LeaderRecoveryState,
    stale_epoch: Option<BrokerId>,
}

/// `alterPartition` with `validateAlterPartitionData`, in upstream's check order.
fn alter_partition(
    c: &mut Cluster,
    rules: &dyn Rules,
    index: usize,
    request: AlterPartitionRequest<'_>,
) -> Result<Outcome, Rejection> {
    let part = partition(c, index)?;
    let from = request.broker.unwrap_or(part.leader);
    // `ClusterControlManager.checkBrokerEpoch` runs before any partition is looked at: a
    // sender that is not registered (no leader, -1, included), or whose epoch is not its
    // registration's, is a stale broker epoch.
    if !c.is_registered(from) || request.stale_epoch == Some(from) {
        return Err((
            ErrorCode::StaleBrokerEpoch,
            "the sender is not a registered broker",
        ));
    }
    let leader_epoch = request.leader_epoch.unwrap_or(part.leader_epoch);
    let partition_epoch = request.partition_epoch.unwrap_or(part.partition_epoch);
    validate_alter_partition(c, part, from, leader_epoch, partition_epoch, &request)?;
    let mut builder = ChangeBuilder::new(part, rules, acceptor(c), c.elr).with_topic_election();
    builder.target_isr = request.isr.into();
    builder.target_lrs = request.leader_recovery_state;
    let built = builder.build().map_err(fault)?;
    let new_leader_elected = built
        .as_ref()
        .is_some_and(|b| b.partition.leader != from && b.partition.leader != part.leader);
    let effects = commit(c, index, built);
    Ok(Outcome::Accepted {
        effects,
        new_leader_elected,
        listed: None,
        elected: None,
        notes: Vec::new(),
    })
}

fn validate_alter_partition(
    c: &Cluster,
    part: &Partition,
    from: BrokerId,
    leader_epoch: i32,
    partition_epoch: i32,
    request: &AlterPartitionRequest<'_>,
) -> Result<(), Rejection> {
    if leader_epoch > part.leader_epoch || partition_epoch > part.partition_epoch {
        return Err((
            ErrorCode::NotController,
            "the request carries a newer epoch than the controller's",
        ));
    }
    if leader_epoch < part.leader_epoch {
        return Err((ErrorCode::FencedLeaderEpoch, "stale leader epoch"));
    }
    if from != part.leader || from == NO_LEADER {
        return Err((
            ErrorCode::InvalidRequest,
            "the sender is not the partition leader",
        ));
    }
    if partition_epoch < part.partition_epoch {
        return Err((ErrorCode::InvalidUpdateVersion, "stale partition epoch"));
    }
    let isr = request.isr;
    // `Replicas.validateIsr`: a subset of the replicas, no duplicates, no negative ids.
    if has_duplicates(isr) || isr.iter().any(|b| !part.replicas.contains(b)) {
        return Err((
            ErrorCode::InvalidRequest,
            "the ISR is not a set of replicas",
        ));
    }
    if !isr.contains(&part.leader) {
        return Err((
            ErrorCode::InvalidRequest,
            "the ISR does not include the leader",
        ));
    }
    let recovering = request.leader_recovery_state == LeaderRecoveryState::Recovering;
    if recovering && isr.len() > 1 {
        return Err((
            ErrorCode::InvalidRequest,
            "a recovering leader cannot have a larger ISR",
        ));
    }
    if recovering && part.leader_recovery_state == LeaderRecoveryState::Recovered {
        return Err((
            ErrorCode::InvalidRequest,
            "RECOVERED cannot go back to RECOVERING",
        ));
    }
    // `ineligibleReplicasForIsr`: not registered, shutting down, fenced, or a member epoch
    // (not -1) that is not its registration's.
    if isr
        .iter()
        .any(|&b| !c.is_active(b) || request.stale_epoch == Some(b))
    {
        return Err((
            ErrorCode::IneligibleReplica,
            "the ISR names a fenced, shutting-down or stale-epoch broker",
        ));
    }
    Ok(())
}

/// Pre-#757 diskless reassignment (`changePartitionReassignment`, aiven/inkless before
/// 9082a19e2f): replicas and ISR become the target at once, no adding/removing lists;
/// rejected only when no target broker is active.
fn one_step_reassignment(
    c: &mut Cluster,
    rules: &dyn Rules,
    index: usize,
    target: &[BrokerId],
) -> Result<Outcome, Rejection> {
    let part = &c.partitions[index];
    let mut builder = ChangeBuilder::new(part, rules, acceptor(c), c.elr);
    // aiven/inkless b1fcb5f6f7 ReplicationControlManager.changePartitionReassignment, the
    // diskless branch: a target equal to the current replicas sets nothing; otherwise at
    // least one target broker must be active, and replicas and ISR both become the whole
    // target (fenced brokers included: the data is in object storage). Adding and removing
    // are left as they are.
    if target != part.replicas.as_slice() {
        if !target.iter().any(|&b| c.is_active(b)) {
            return Err((
                ErrorCode::InvalidReplicaAssignment,
                "no target broker is active",
            ));
        }
        builder.target_replicas = target.into();
        builder.target_isr = target.into();
    }
    // An accepted alter call like any other: the ghosts O and T follow it.
    let was_reassigning = part.is_reassigning();
    let original = part.replicas;
    let built = builder.build().map_err(caught)?;
    update_ghost(&mut c.ghosts[index], was_reassigning, original, target);
    Ok(Outcome::accepted(commit(c, index, built)))
}

/// Store a seal change (aiven/inkless ReplicationControlManager: the switch records set only
/// the seal fields, plus the same leader when `bump_leader_epoch`). Never runs completion.
pub(crate) fn commit_seal(
    c: &mut Cluster,
    index: usize,
    seal: i64,
    diskless_leader_epoch: i32,
    bump_leader_epoch: bool,
) {
    let mut next = c.partitions[index].clone();
    next.seal = seal;
    next.diskless_leader_epoch = diskless_leader_epoch;
    next.partition_epoch += 1;
    if bump_leader_epoch {
        next.leader_epoch += 1;
    }
    c.replay(index, next);
}

/// E2a: `markClassicToDisklessSwitchStarted` with its health checks
/// (`validatePartitionsForSwitch`): a classic topic, seal -1, a leader, RECOVERED, no
/// reassignment, full ISR. Seal -2 and the same leader re-set (leader epoch +1).
pub(crate) fn switch_start(
    c: &mut Cluster,
    index: usize,
    consolidating: bool,
) -> Result<Outcome, Rejection> {
    let part = partition(c, index)?;
    let healthy = part.leader != NO_LEADER
        && part.leader_recovery_state == LeaderRecoveryState::Recovered
        && !part.is_reassigning()
        && part.isr.len() == part.replicas.len()
        && !part.unclean_leader_election_enable;
    if part.diskless || part.seal != SEAL_NONE {
        return Err((ErrorCode::InvalidRequest, "the topic is already diskless"));
    }
    if !healthy {
        return Err((
            ErrorCode::InvalidRequest,
            "the partition is not healthy enough to switch",
        ));
    }
    let mut next = part.clone();
    next.diskless = true;
    next.remote_storage = consolidating;
    c.partitions[index] = next;
    commit_seal(c, index, SEAL_PENDING, -1, true);
    Ok(Outcome::accepted(Vec::new()))
}
