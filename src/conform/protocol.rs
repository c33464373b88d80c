//! The two sides of conformance/PROTOCOL.md: a model request as the driver's JSON line,
//! the driver's answer, and the field-by-field comparison of the answer with the model's.

use crate::model::request::{Exchange, Request};
use crate::model::{
    BrokerId, BrokerState, ElectionType, ErrorCode, Event, LeaderRecoveryState, Partition,
};
use serde::Deserialize;
use serde_json::{json, Value};

/// A partition registration as the real controller stores it (`PartitionRegistration`).
#[derive(Clone, PartialEq, Eq, Debug, Deserialize)]
pub struct Registration {
    pub partition: usize,
    pub replicas: Vec<BrokerId>,
    pub isr: Vec<BrokerId>,
    pub adding: Vec<BrokerId>,
    pub removing: Vec<BrokerId>,
    pub leader: BrokerId,
    pub leader_epoch: i32,
    pub partition_epoch: i32,
    pub leader_recovery_state: i8,
    pub elr: Vec<BrokerId>,
    pub last_known_elr: Vec<BrokerId>,
    /// `directories`, one per replica: the replica's broker's directory index, -1
    /// UNASSIGNED, -2 MIGRATING, -3 LOST, -4 a directory of another broker. Compared when
    /// the answer has it (the controller driver's; a real cluster's directories are its own).
    #[serde(default)]
    pub dirs: Option<Vec<BrokerId>>,
}

/// A broker as `ClusterControlManager` registers it.
#[derive(Clone, PartialEq, Eq, Debug, Deserialize)]
pub struct RealBroker {
    pub id: BrokerId,
    pub fenced: bool,
    pub in_controlled_shutdown: bool,
    /// The directories the registration lists online, by index (compared when given).
    #[serde(default)]
    pub dirs: Option<Vec<BrokerId>>,
}

/// One answer line.
#[derive(Clone, PartialEq, Eq, Debug, Deserialize)]
pub struct Answer {
    pub error: String,
    #[serde(default)]
    pub fault: Option<String>,
    #[serde(default)]
    pub listed: Option<Vec<usize>>,
    /// ElectLeaders over several partitions: each partition's answer, ascending.
    #[serde(default)]
    pub elected: Option<Vec<(usize, String)>>,
    #[serde(default)]
    pub partitions: Vec<Registration>,
    #[serde(default)]
    pub brokers: Vec<RealBroker>,
    #[serde(default)]
    pub release: Option<String>,
}

/// The driver's JSON line for a model request; `Err` names what the real controller has no
/// request for (an Inkless topic config).
pub fn encode(request: &Request) -> Result<Value, &'static str> {
    Ok(match request {
        Request::Register { broker, clean } => {
            json!({"op":"register","broker":broker,"clean":clean})
        }
        Request::Event(event) => encode_event(event)?,
    })
}

fn encode_event(event: &Event) -> Result<Value, &'static str> {
    Ok(match event {
        Event::CreatePartition { diskless: true, .. }
        | Event::CreatePartition {
            remote_storage: true,
            ..
        } => return Err("a diskless or remote-storage topic (Inkless)"),
        Event::CreatePartition {
            replicas,
            unclean_leader_election_enable,
            min_insync_replicas,
            ..
        } => json!({"op":"create","replicas":replicas,"min_isr":min_insync_replicas,
                    "unclean":unclean_leader_election_enable}),
        Event::Reassign {
            partition,
            target,
            allow_replication_factor_change,
        } => json!({"op":"reassign","partition":partition,"target":target,
                    "allow_rf_change":allow_replication_factor_change}),
        Event::CancelReassignment { partition } => json!({"op":"cancel","partition":partition}),
        Event::AlterPartition {
            partition,
            isr,
            broker,
            leader_epoch,
            partition_epoch,
            leader_recovery_state,
            stale_epoch,
        } => {
            let mut line = json!({"op":"alter_partition","partition":partition,"isr":isr,
                "broker":broker,"leader_epoch":leader_epoch,"partition_epoch":partition_epoch,
                "leader_recovery_state":lrs(*leader_recovery_state)});
            if let Some(b) = stale_epoch {
                line["stale_epoch"] = json!(b);
            }
            line
        }
        Event::FenceBroker { broker } => json!({"op":"fence","broker":broker}),
        Event::UnfenceBroker { broker } => json!({"op":"unfence","broker":broker}),
        Event::ControlledShutdown { broker } => json!({"op":"controlled_shutdown","broker":broker}),
        Event::ElectLeaders {
            partition,
            election,
        } => json!({"op":"elect","partition":partition,"election":election_name(*election)}),
        Event::ElectLeadersMany {
            partitions,
            election,
        } => json!({"op":"elect_many","partitions":partitions,"election":election_name(*election)}),
        _ => encode_format_5(event)?,
    })
}

/// The requests of history formats 5 to 7: topic configs, heartbeats, unregistration,
/// features, partitions added and topics deleted, log directories.
fn encode_format_5(event: &Event) -> Result<Value, &'static str> {
    Ok(match event {
        Event::AlterTopicConfig {
            partition,
            min_insync_replicas,
            unclean_leader_election_enable,
        } => json!({"op":"alter_config","partition":partition,"min_isr":min_insync_replicas,
                    "unclean":unclean_leader_election_enable}),
        Event::LaggingHeartbeat { broker } => json!({"op":"lagging_heartbeat","broker":broker}),
        Event::UnregisterBroker { broker } => json!({"op":"unregister","broker":broker}),
        Event::UpdateFeatures {
            eligible_leader_replicas,
        } => json!({"op":"update_features","elr":eligible_leader_replicas}),
        Event::CreatePartitions {
            partition,
            replicas,
        } => json!({"op":"add_partition","partition":partition,"replicas":replicas}),
        Event::DeleteTopic { partition } => json!({"op":"delete","partition":partition}),
        Event::ListReassignments => json!({"op":"list"}),
        Event::AssignReplicaDir {
            partition,
            broker,
            dir,
        } => json!({"op":"assign_dir","partition":partition,"broker":broker,"dir":dir}),
        Event::LogDirOffline { broker, dir } => {
            json!({"op":"dir_offline","broker":broker,"dir":dir})
        }
        _ => return Err("not a controller request"),
    })
}

/// A request line's kind and the option that selects its path, for the tally of what a
/// run sent (`reassign(rf fixed)`, `elect(unclean)`, `alter_partition(recovering)`).
pub fn kind_of(line: &Value) -> String {
    let op = line["op"].as_str().unwrap_or("?");
    let option = match op {
        "elect" => line["election"].as_str(),
        "elect_many" if line["partitions"].is_null() => {
            return format!(
                "elect_many(all, {})",
                line["election"].as_str().unwrap_or("?")
            )
        }
        "elect_many" => line["election"].as_str(),
        "alter_partition" if !line["stale_epoch"].is_null() => {
            let sender = line["stale_epoch"] == line["broker"];
            Some(if sender {
                "stale sender epoch"
            } else {
                "stale member epoch"
            })
        }
        "update_features" if line["elr"] == json!(true) => Some("elr on"),
        "update_features" => Some("elr off"),
        "alter_config" => match (line["min_isr"].is_null(), line["unclean"].is_null()) {
            (false, false) => Some("min isr and unclean"),
            (false, true) => Some("min isr"),
            _ => Some("unclean"),
        },
        "reassign" if line["allow_rf_change"] == json!(false) => Some("rf fixed"),
        "alter_partition" if line["leader_recovery_state"] == json!(1) => Some("recovering"),
        "create" if line["unclean"] == json!(true) => Some("unclean enabled"),
        "register" if line["clean"] == json!(false) => Some("unclean shutdown"),
        _ => None,
    };
    match option {
        Some(o) => format!("{op}({o})"),
        None => op.to_string(),
    }
}

fn election_name(election: ElectionType) -> &'static str {
    match election {
        ElectionType::Preferred => "preferred",
        ElectionType::Unclean => "unclean",
    }
}

fn lrs(s: LeaderRecoveryState) -> i8 {
    match s {
        LeaderRecoveryState::Recovered => 0,
        LeaderRecoveryState::Recovering => 1,
    }
}

/// The model's partition as the driver would print it.
pub fn registration(partition: usize, p: &Partition) -> Registration {
    Registration {
        partition,
        replicas: p.replicas.to_vec(),
        isr: p.isr.to_vec(),
        adding: p.adding_replicas.to_vec(),
        removing: p.removing_replicas.to_vec(),
        leader: p.leader,
        leader_epoch: p.leader_epoch,
        partition_epoch: p.partition_epoch,
        leader_recovery_state: lrs(p.leader_recovery_state),
        elr: p.elr.to_vec(),
        last_known_elr: p.last_known_elr.to_vec(),
        dirs: Some(p.dirs.to_vec()),
    }
}

/// The model's broker as the driver would print it, with the directories `offline_dirs`
/// (`Cluster::offline_dirs`) leaves online.
pub fn real_broker(
    &(id, state): &(BrokerId, BrokerState),
    offline_dirs: &[(BrokerId, u8, u8)],
) -> RealBroker {
    use crate::model::dirs::{has_online_dir, DIRS_PER_BROKER};
    let dirs =
        (0..BrokerId::from(DIRS_PER_BROKER)).filter(|&d| has_online_dir(offline_dirs, id, d));
    RealBroker {
        id,
        fenced: state == BrokerState::Fenced,
        in_controlled_shutdown: state == BrokerState::ControlledShutdown,
        dirs: Some(dirs.collect()),
    }
}

/// Every field where the answer differs from the model's exchange, as `name: model ≠ real`
/// (`p0.isr: [1, 2] ≠ [1]`). Empty when they agree.
pub fn differences(model: &Exchange, real: &Answer) -> Vec<String> {
    let mut out = Vec::new();
    // The model names an uncaught exception CONTROLLER_FAULT(_…); the driver reports it
    // as a fault with the exception (its error is then UNKNOWN_SERVER_ERROR). A predicted
    // fault is compared by its exception class (the fault reads `class: message`).
    let model_fault = ErrorCode::FAULTS.iter().find(|f| model.error == f.name());
    let model_faults = model_fault.is_some();
    let predicted = model_fault.and_then(|f| f.fault_class()).unwrap_or("?");
    match (&real.fault, model_faults) {
        (Some(fault), false) => out.push(format!("fault: none ≠ {fault}")),
        (None, true) => out.push(format!("fault: {predicted} ≠ none")),
        (Some(fault), true) if fault.split(':').next() != Some(predicted) => {
            out.push(format!("fault: {predicted} ≠ {fault}"))
        }
        _ => {}
    }
    if !model_faults && model.error != real.error {
        out.push(format!("error: {} ≠ {}", model.error, real.error));
    }
    if model.listed.is_some() && model.listed != real.listed {
        out.push(format!("listed: {:?} ≠ {:?}", model.listed, real.listed));
    }
    if let Some(elected) = &model.elected {
        // The driver answers in ascending partition order; the request's order is the
        // model's, and no partition is named twice.
        let mut ours: Vec<(usize, String)> =
            elected.iter().map(|&(p, e)| (p, e.to_string())).collect();
        ours.sort_unstable();
        if real.elected.as_ref() != Some(&ours) {
            out.push(format!("elected: {:?} ≠ {:?}", ours, real.elected));
        }
    }
    let ours: Vec<_> = model
        .partitions
        .iter()
        .enumerate()
        .map(|(i, p)| registration(i, p))
        .collect();
    if ours.len() != real.partitions.len() {
        out.push(format!(
            "partitions: {} ≠ {}",
            ours.len(),
            real.partitions.len()
        ));
    }
    for (a, b) in ours.iter().zip(&real.partitions) {
        registration_differences(a, b, &mut out);
    }
    broker_differences(model, real, &mut out);
    out
}

/// The brokers' differences: state, and the directories listed online when the answer has them.
fn broker_differences(model: &Exchange, real: &Answer, out: &mut Vec<String>) {
    let brokers: Vec<_> = (model.brokers.iter())
        .map(|b| real_broker(b, &model.offline_dirs))
        .collect();
    for (a, b) in brokers.iter().zip(&real.brokers) {
        if b.dirs.is_some() && a.dirs != b.dirs {
            out.push(format!(
                "broker {}.dirs: {:?} ≠ {:?}",
                a.id,
                a.dirs.as_deref().unwrap_or_default(),
                b.dirs.as_deref().unwrap_or_default()
            ));
        }
        // A fenced broker keeps `inControlledShutdown` until it registers again; fencing
        // decides what the controller does with it (`ClusterControlManager.isActive`).
        if a.id != b.id || broker_state(a) != broker_state(b) {
            out.push(format!(
                "broker {}: {} ≠ {}",
                a.id,
                broker_state(a),
                broker_state(b)
            ));
        }
    }
    if brokers.len() != real.brokers.len() {
        out.push(format!(
            "brokers: {} ≠ {}",
            brokers.len(),
            real.brokers.len()
        ));
    }
}

fn broker_state(b: &RealBroker) -> &'static str {
    match (b.fenced, b.in_controlled_shutdown) {
        (true, _) => "fenced",
        (false, true) => "in controlled shutdown",
        (false, false) => "active",
    }
}

fn registration_differences(a: &Registration, b: &Registration, out: &mut Vec<String>) {
    let p = a.partition;
    let mut field = |name: &str, x: String, y: String| {
        if x != y {
            out.push(format!("p{p}.{name}: {x} ≠ {y}"));
        }
    };
    field(
        "replicas",
        format!("{:?}", a.replicas),
        format!("{:?}", b.replicas),
    );
    field("isr", format!("{:?}", a.isr), format!("{:?}", b.isr));
    field(
        "adding",
        format!("{:?}", a.adding),
        format!("{:?}", b.adding),
    );
    field(
        "removing",
        format!("{:?}", a.removing),
        format!("{:?}", b.removing),
    );
    field("leader", a.leader.to_string(), b.leader.to_string());
    field(
        "leader_epoch",
        a.leader_epoch.to_string(),
        b.leader_epoch.to_string(),
    );
    field(
        "partition_epoch",
        a.partition_epoch.to_string(),
        b.partition_epoch.to_string(),
    );
    field(
        "leader_recovery_state",
        a.leader_recovery_state.to_string(),
        b.leader_recovery_state.to_string(),
    );
    field("elr", format!("{:?}", a.elr), format!("{:?}", b.elr));
    field(
        "last_known_elr",
        format!("{:?}", a.last_known_elr),
        format!("{:?}", b.last_known_elr),
    );
    if let Some(real) = &b.dirs {
        let model = a.dirs.as_deref().unwrap_or_default();
        field("dirs", format!("{model:?}"), format!("{real:?}"));
    }
}

/// The class of a disagreement, for grouping and file names: `fault`, `error`, or the
/// differing fields without their partition (`isr+leader`).
pub fn class_of(differences: &[String]) -> String {
    let mut names: Vec<&str> = differences
        .iter()
        .map(|d| {
            let name = d.split(':').next().unwrap_or(d);
            let name = name.split_once('.').map_or(name, |(_, f)| f);
            if name.starts_with("broker ") {
                "broker"
            } else {
                name
            }
        })
        .collect();
    names.sort_unstable();
    names.dedup();
    names.join("+")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_predicted_fault_is_compared_by_its_exception_class() {
        use crate::model::request::{Exchange, Request};
        let model = Exchange {
            request: Request::Event(Event::ListReassignments),
            error: ErrorCode::ControllerFault.name(),
            not_upstream: false,
            partitions: Vec::new(),
            brokers: Vec::new(),
            offline_dirs: Vec::new(),
            listed: None,
            elected: None,
        };
        let real = |fault: Option<&str>| Answer {
            error: "UNKNOWN_SERVER_ERROR".into(),
            fault: fault.map(str::to_string),
            listed: None,
            elected: None,
            partitions: Vec::new(),
            brokers: Vec::new(),
            release: None,
        };
        let same = real(Some(
            "java.lang.IllegalArgumentException: Replica 4 is not assigned",
        ));
        assert!(differences(&model, &same).is_empty());
        let other = real(Some(
            "java.lang.RuntimeException: Broker 4 has no isrMembers",
        ));
        assert_eq!(
            differences(&model, &other),
            ["fault: java.lang.IllegalArgumentException ≠ java.lang.RuntimeException: Broker 4 has no isrMembers"]
        );
        assert_eq!(
            differences(&model, &real(None)),
            ["fault: java.lang.IllegalArgumentException ≠ none"]
        );
    }

    #[test]
    fn a_request_kind_names_the_option_that_selects_its_path() {
        let kinds: Vec<String> = [
            json!({"op":"elect","partition":0,"election":"unclean"}),
            json!({"op":"reassign","partition":0,"target":[1],"allow_rf_change":false}),
            json!({"op":"reassign","partition":0,"target":[1],"allow_rf_change":true}),
            json!({"op":"alter_partition","leader_recovery_state":1}),
            json!({"op":"alter_partition","leader_recovery_state":0}),
            json!({"op":"create","unclean":true}),
            json!({"op":"register","clean":false}),
            json!({"op":"list"}),
        ]
        .iter()
        .map(kind_of)
        .collect();
        assert_eq!(
            kinds,
            [
                "elect(unclean)",
                "reassign(rf fixed)",
                "reassign",
                "alter_partition(recovering)",
                "alter_partition",
                "create(unclean enabled)",
                "register(unclean shutdown)",
                "list"
            ]
        );
    }
}
