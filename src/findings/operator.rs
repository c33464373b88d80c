//! A KRaft counterexample as the steps an operator runs on a real cluster: the admin
//! tools for what has a command (topic creation, reassignments, elections, broker stop and
//! start), and the events that have none (an ISR change, a session expiry) written as
//! conditions to bring about, as the KAFKA-21419 report does.

use crate::check::history::History;
use crate::check::oracle::SideRun;
use crate::model::{BrokerId, ElectionType, Event, Partition};
use std::fmt::Write;

const TOPIC: &str = "t";
const BS: &str = "--bootstrap-server $BS";

/// The numbered operator steps replaying `history`, judged on `side` (recorded, for the
/// ISR before each change).
pub fn operator_steps(history: &History, side: &SideRun) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Brokers {:?}; `$BS` is a bootstrap server. Topic `{TOPIC}`, one partition per create.",
        history.brokers
    );
    if history.eligible_leader_replicas {
        let _ = writeln!(
            out,
            "# ELR on: kafka-features.sh {BS} upgrade --feature eligible.leader.replicas.version=1 (the default of new 4.1+ clusters)"
        );
    }
    let mut last = 0;
    for (i, event) in history.events.iter().enumerate() {
        let before = i
            .checked_sub(1)
            .and_then(|j| side.steps.get(j))
            .map(|s| &s.state);
        let isr_before = |p: usize| before.and_then(|c| c.partitions.get(p)).cloned();
        let _ = writeln!(out, "{}. {}", i + 1, step(event, i, last, isr_before));
        if matches!(event, Event::Reassign { .. }) {
            last = i;
        }
    }
    let _ = writeln!(
        out,
        "{}. kafka-reassign-partitions.sh {BS} --verify --reassignment-json-file reassign-{last}.json",
        history.events.len() + 1
    );
    out
}

fn json_file(n: usize, partition: usize, target: &[BrokerId]) -> String {
    format!(
        "reassign-{n}.json = {{\"version\":1,\"partitions\":[{{\"topic\":\"{TOPIC}\",\"partition\":{partition},\"replicas\":{target:?}}}]}}"
    )
}

/// Step `n`; `last` is the step of the latest reassignment (its JSON file).
/// Creating the topic with its assignment and the topic configs the history sets.
fn create_text(replicas: &[BrokerId], unclean: bool, min_insync_replicas: i32) -> String {
    let assignment: Vec<String> = replicas.iter().map(|b| b.to_string()).collect();
    let unclean = if unclean {
        " --config unclean.leader.election.enable=true"
    } else {
        ""
    };
    // 1 is the broker default (`min.insync.replicas`), so it needs no config.
    let min_isr = if min_insync_replicas != 1 {
        format!(" --config min.insync.replicas={min_insync_replicas}")
    } else {
        String::new()
    };
    format!(
        "kafka-topics.sh {BS} --create --topic {TOPIC} --replica-assignment {}{unclean}{min_isr}",
        assignment.join(":")
    )
}

/// Restarting a broker, cleanly or by a power cut.
fn restart_text(broker: BrokerId, unclean: bool) -> String {
    let how = if unclean {
        "cut its power (a kill -9 keeps the page cache) instead of "
    } else {
        ""
    };
    format!("restart broker {broker} ({how}kafka-server-stop.sh, then kafka-server-start.sh)")
}

fn step(
    event: &Event,
    n: usize,
    last: usize,
    isr_before: impl Fn(usize) -> Option<Partition>,
) -> String {
    match event {
        Event::CreatePartition {
            replicas,
            unclean_leader_election_enable,
            min_insync_replicas,
            ..
        } => create_text(replicas, *unclean_leader_election_enable, *min_insync_replicas),
        Event::Reassign {
            partition, target, ..
        } => format!(
            "write {}; kafka-reassign-partitions.sh {BS} --reassignment-json-file reassign-{n}.json --execute --additional; kafka-reassign-partitions.sh {BS} --list",
            json_file(n, *partition, target)
        ),
        Event::CancelReassignment { .. } => format!(
            "kafka-reassign-partitions.sh {BS} --cancel --reassignment-json-file reassign-{last}.json"
        ),
        Event::ListReassignments => format!("kafka-reassign-partitions.sh {BS} --list"),
        Event::ElectLeaders {
            partition,
            election,
        } => {
            let kind = match election {
                ElectionType::Preferred => "PREFERRED",
                ElectionType::Unclean => "UNCLEAN",
            };
            format!(
                "kafka-leader-election.sh {BS} --election-type {kind} --topic {TOPIC} --partition {partition}"
            )
        }
        Event::AlterPartition { partition, isr, .. } => {
            isr_condition(*partition, isr, isr_before(*partition))
        }
        Event::FenceBroker { broker } => format!(
            "condition: broker {broker}'s session expires (e.g. stop it hard: kill -9 the broker process, or pause it past broker.session.timeout.ms)"
        ),
        Event::UnfenceBroker { broker } => {
            format!("start broker {broker} (kafka-server-start.sh) and let it catch up with the metadata log")
        }
        Event::ControlledShutdown { broker } => {
            format!("stop broker {broker} cleanly (kafka-server-stop.sh: controlled shutdown)")
        }
        Event::RestartBroker {
            broker, unclean, ..
        } => restart_text(*broker, *unclean),
        Event::DeleteRecords { partition, offset } => format!(
            "delete the records of partition {partition} below offset {offset} (kafka-delete-records.sh {BS} --offset-json-file with offset {offset})"
        ),
        Event::Produce { records, .. } => format!(
            "produce {records} records to {TOPIC} (kafka-producer-perf-test.sh --topic {TOPIC} --num-records {records} --record-size 100 --throughput -1 --producer-props bootstrap.servers=$BS)"
        ),
        other => format!("condition: {other} (no admin command; see the step table)"),
    }
}

/// An ISR change has no command: say which brokers must fall out or catch up.
fn isr_condition(partition: usize, isr: &[BrokerId], part: Option<Partition>) -> String {
    let before = part.as_ref().map(|p| p.isr).unwrap_or_default();
    let replicas = part.map(|p| p.replicas).unwrap_or_default();
    // Falling out of the ISR, or replicas kept out of it while others join.
    let mut out: Vec<BrokerId> = before
        .iter()
        .chain(&replicas)
        .filter(|b| !isr.contains(b))
        .copied()
        .collect();
    out.sort_unstable();
    out.dedup();
    let join: Vec<BrokerId> = isr
        .iter()
        .filter(|b| !before.contains(b))
        .copied()
        .collect();
    let mut parts = Vec::new();
    for b in &out {
        parts.push(format!(
            "hold broker {b} out of the ISR, e.g. with a 1 B/s follower throttle (kafka-configs.sh {BS} --alter --entity-type brokers --entity-name {b} --add-config follower.replication.throttled.rate=1; kafka-configs.sh {BS} --alter --entity-type topics --entity-name {TOPIC} --add-config follower.replication.throttled.replicas={partition}:{b})"
        ));
    }
    for b in &join {
        parts.push(format!(
            "let broker {b} catch up and join the ISR (remove its throttle if any)"
        ));
    }
    if parts.is_empty() {
        parts.push("the leader rewrites the ISR unchanged (nothing to do)".to_string());
    }
    format!(
        "condition: ISR of {TOPIC}-{partition} becomes {isr:?}: {}",
        parts.join("; ")
    )
}
