//! A counterexample as the steps an operator runs on a real cluster, each with what to
//! check after it: the admin tools for what has a command (topic creation,
//! reassignments, elections, configs, the Inkless switch tool), and the concrete means for
//! what has none: a follower throttle to keep a broker out of the ISR, `kill -9` for a
//! session expiry, a power cut for an unclean restart, a wait for the clock. The last
//! line says what is wrong.

use crate::check::history::History;
use crate::check::oracle::{SideRun, StepRecord};
use crate::model::{BrokerId, Event, Outcome, Partition};
use std::fmt::Write;

const TOPIC: &str = "t";
const BS: &str = "--bootstrap-server $BS";

/// One operator step: what to do, and what to check once it is done.
pub struct OpStep {
    pub action: String,
    pub check: String,
}

/// The numbered operator steps replaying `history`, judged on `side` (recorded, for the
/// state before and after each step), then what is wrong.
pub fn operator_steps(history: &History, side: &SideRun) -> String {
    let mut out = preamble(history);
    for (i, s) in steps(history, side).iter().enumerate() {
        let _ = writeln!(out, "{}. {}", i + 1, s.action);
        if !s.check.is_empty() {
            let _ = writeln!(out, "   check: {}", s.check);
        }
    }
    for line in wrong_lines(side) {
        let _ = writeln!(out, "{line}");
    }
    out
}

/// The cluster the steps assume.
pub fn preamble(history: &History) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Brokers {:?}; `$BS` is a bootstrap server. Topic `{TOPIC}`, one partition per create; replica.lag.time.max.ms={}.",
        history.brokers, history.broker_config.replica_lag_time_max_ms
    );
    if history.eligible_leader_replicas {
        let _ = writeln!(
            out,
            "# ELR on: kafka-features.sh {BS} upgrade --feature eligible.leader.replicas.version=1 (the default of new 4.1+ clusters)"
        );
    }
    out
}

/// Each event as an operator step with its check, then `--verify` of the last
/// reassignment (when there was one).
pub fn steps(history: &History, side: &SideRun) -> Vec<OpStep> {
    let mut out = Vec::new();
    let mut last = None;
    for (i, event) in history.events.iter().enumerate() {
        let before = i
            .checked_sub(1)
            .and_then(|j| side.steps.get(j))
            .map(|s| &s.state);
        let isr_before = |p: usize| before.and_then(|c| c.partitions.get(p)).cloned();
        let action = step(event, i, last.unwrap_or(0), isr_before);
        let check = side.steps.get(i).map_or(String::new(), |r| check(event, r));
        out.push(OpStep { action, check });
        if matches!(event, Event::Reassign { .. }) {
            last = Some(i);
        }
    }
    if let Some(last) = last {
        out.push(OpStep {
            action: format!(
                "kafka-reassign-partitions.sh {BS} --verify --reassignment-json-file reassign-{last}.json"
            ),
            check: String::new(),
        });
    }
    out
}

/// `What is wrong:` lines, one per violation of `side`.
pub fn wrong_lines(side: &SideRun) -> Vec<String> {
    side.violations
        .iter()
        .map(|v| {
            let when = if v.step < side.steps.len() {
                format!("after step {}", v.step + 1)
            } else {
                "once the cluster is healthy again".to_string()
            };
            let statement = crate::check::invariants::by_id(v.invariant)
                .map_or(String::new(), |i| {
                    format!(" (it must hold: {})", i.statement)
                });
            format!(
                "# What is wrong {when}: {}, {}{statement}",
                v.invariant, v.detail
            )
        })
        .collect()
}

/// What to check after a step: the command's error, the partitions as `--describe` and
/// `--list` show them, and the switch state of a diskless topic.
fn check(event: &Event, r: &StepRecord) -> String {
    if let Outcome::Rejected { error, .. } = &r.outcome {
        return format!("the request fails with {}", error.name());
    }
    let parts: Vec<usize> = match event.partition() {
        Some(p) => vec![p],
        None => (0..r.state.partitions.len()).collect(),
    };
    let mut out: Vec<String> = Vec::new();
    for i in parts {
        let Some(p) = r.state.partitions.get(i) else {
            continue;
        };
        out.push(describe(i, p));
    }
    out.join("; ")
}

fn describe(i: usize, p: &Partition) -> String {
    let list = |ids: &[BrokerId]| {
        let v: Vec<String> = ids.iter().map(|b| b.to_string()).collect();
        v.join(",")
    };
    let mut text = format!(
        "`kafka-topics.sh {BS} --describe --topic {TOPIC}` shows partition {i} Leader {} Replicas {} Isr {}",
        if p.leader < 0 { "none".to_string() } else { p.leader.to_string() },
        list(&p.replicas),
        list(&p.isr)
    );
    if !p.elr.is_empty() || !p.last_known_elr.is_empty() {
        text.push_str(&format!(
            " Elr {} LastKnownElr {}",
            list(&p.elr),
            list(&p.last_known_elr)
        ));
    }
    if !p.adding_replicas.is_empty() || !p.removing_replicas.is_empty() {
        text.push_str(&format!(
            "; `--list` shows adding [{}] removing [{}]",
            list(&p.adding_replicas),
            list(&p.removing_replicas)
        ));
    }
    if p.diskless {
        text.push_str(&format!(
            "; `kafka-topic-switch.sh state {BS} --topic {TOPIC}` shows seal {}",
            p.seal
        ));
    }
    text
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
        } => format!(
            "kafka-leader-election.sh {BS} --election-type {} --topic {TOPIC} --partition {partition}",
            election.api_name()
        ),
        Event::AlterPartition { partition, isr, .. } => {
            isr_change(*partition, isr, isr_before(*partition))
        }
        Event::FenceBroker { broker } => format!(
            "kill -9 broker {broker}'s process and wait broker.session.timeout.ms (9 s by default) until the controller fences it"
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
        other => data_step(other),
    }
}

/// The steps of the data plane and the Inkless switch: produce, time, fetches, flushes,
/// the switch tool.
fn data_step(event: &Event) -> String {
    match event {
        Event::Produce { records, acks, .. } => {
            let acks = if *acks == crate::model::event::Acks::All { "all" } else { "1" };
            format!(
                "kafka-producer-perf-test.sh --topic {TOPIC} --num-records {records} --record-size 100 --throughput -1 --producer-props bootstrap.servers=$BS acks={acks}"
            )
        }
        Event::AdvanceTime { ms } => format!(
            "wait {ms} ms (followers fetch, the ISR-expiration task runs every replica.lag.time.max.ms / 2)"
        ),
        Event::FollowerFetch { partition, broker } => format!(
            "let broker {broker} fetch {TOPIC}-{partition} once: lift its follower throttle ({}) until its next fetch is logged, then set it again",
            unthrottle(*broker)
        ),
        Event::StallBroker { broker } => format!(
            "stall broker {broker}'s fetchers while it keeps heartbeating: {}",
            throttle(*broker, None)
        ),
        Event::ResumeBroker { broker } => format!(
            "resume broker {broker}: {}",
            unthrottle(*broker)
        ),
        Event::FlushBroker { broker } => format!(
            "make broker {broker} flush its logs: kafka-configs.sh {BS} --alter --entity-type topics --entity-name {TOPIC} --add-config flush.messages=1, produce one record, then --delete-config flush.messages"
        ),
        Event::SwitchStart {
            consolidating,
            ..
        } => {
            let remote = if *consolidating { ",remote.storage.enable=true" } else { "" };
            format!(
                "start the switch to diskless: kafka-configs.sh {BS} --alter --entity-type topics --entity-name {TOPIC} --add-config diskless.enable=true{remote}"
            )
        }
        Event::SealCommit { partition } => format!(
            "wait until the leader of {TOPIC}-{partition} commits the seal (its high watermark reaches its log end; kafka-topic-switch.sh state {BS} --topic {TOPIC} shows a seal ≥ 0)"
        ),
        Event::AlterDisklessSwitch { partition, seal } => format!(
            "kafka-topic-switch.sh seal {BS} --topic {TOPIC} --partition {partition} --offset {seal}"
        ),
        // Every other event is written by `step`.
        other => format!("{other}"),
    }
}

/// An ISR change has no command: throttle the brokers that must fall out (or stay out),
/// lift the throttle of those that must catch up and join.
fn isr_change(partition: usize, isr: &[BrokerId], part: Option<Partition>) -> String {
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
            "keep broker {b} out of the ISR: {} and wait replica.lag.time.max.ms",
            throttle(*b, Some(partition))
        ));
    }
    for b in &join {
        parts.push(format!(
            "let broker {b} catch up and join the ISR ({}, if it was throttled)",
            unthrottle(*b)
        ));
    }
    if parts.is_empty() {
        parts.push("the leader rewrites the ISR unchanged (nothing to do)".to_string());
    }
    format!(
        "make the ISR of {TOPIC}-{partition} {isr:?}: {}",
        parts.join("; ")
    )
}

/// Lifting `broker`'s follower throttle.
fn unthrottle(broker: BrokerId) -> String {
    format!("kafka-configs.sh {BS} --alter --entity-type brokers --entity-name {broker} --delete-config follower.replication.throttled.rate")
}

/// A 1 B/s follower throttle on `broker` (for `partition`, or every partition of the topic).
fn throttle(broker: BrokerId, partition: Option<usize>) -> String {
    let replicas = partition.map_or_else(|| "*".to_string(), |p| format!("{p}:{broker}"));
    format!(
        "kafka-configs.sh {BS} --alter --entity-type brokers --entity-name {broker} --add-config follower.replication.throttled.rate=1; kafka-configs.sh {BS} --alter --entity-type topics --entity-name {TOPIC} --add-config follower.replication.throttled.replicas={replicas}"
    )
}
