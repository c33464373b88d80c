//! The admin commands of an operator script (operator.rs) as text: the topic, creating
//! it and its partitions, a reassignment's JSON file and call, a backlog of records, a
//! pause for what no command does, and the `--describe` line a check waits for.

use crate::findings::plan::{Act, Line, Manual};
use crate::model::{BrokerId, Cluster, Event, Partition};

/// The topic every script uses.
pub const TOPIC: &str = "t";
/// The admin tools' bootstrap flag, the server taken from the script's `$BS`.
pub const BS: &str = "--bootstrap-server \"$BS\"";
/// The backlog produced for a throttled follower: 4 MB, as records and bytes per record.
const BACKLOG_RECORDS: u64 = 40_000;
const BACKLOG_RECORD_BYTES: u32 = 100;

/// A backlog of 4 MB for a throttled follower, produced for `why`.
pub fn backlog(why: &str) -> Vec<Line> {
    vec![
        Line::note(format!("# A backlog ({why}): 4 MB.")),
        Line::run(
            format!("kafka-producer-perf-test.sh --topic {TOPIC} --num-records {BACKLOG_RECORDS} --record-size {BACKLOG_RECORD_BYTES} --throughput -1 --producer-props bootstrap.servers=\"$BS\" acks=all"),
            Act::Produce { records: BACKLOG_RECORDS, record_bytes: BACKLOG_RECORD_BYTES, acks_all: true },
        ),
    ]
}

/// A pause for what no command does (`manual`: what the cluster judge does instead).
pub fn by_hand(what: &str, manual: Manual) -> Line {
    Line::run(
        format!("by_hand '{}'", what.replace('\'', "'\\''")),
        Act::Hand(manual),
    )
}

pub fn list(ids: &[BrokerId]) -> String {
    let v: Vec<String> = ids.iter().map(|b| b.to_string()).collect();
    v.join(", ")
}

pub fn csv(ids: &[BrokerId]) -> String {
    let v: Vec<String> = ids.iter().map(|b| b.to_string()).collect();
    v.join(",")
}

/// The extended regex of partition `i`'s `--describe` line (tabs as spaces): leader,
/// replicas, ISR, the reassignment's lists while there is one, and the ELR when it is on.
pub fn describe_regex(i: usize, p: &Partition, elr: bool) -> String {
    let leader = if p.leader < 0 {
        "none".to_string()
    } else {
        p.leader.to_string()
    };
    let mut text = format!(
        "Partition: {i} Leader: {leader} Replicas: {} Isr: {}",
        csv(&p.replicas),
        csv(&p.isr)
    );
    if !p.adding_replicas.is_empty() || !p.removing_replicas.is_empty() {
        text.push_str(&format!(
            " Adding Replicas: {} Removing Replicas: {}",
            csv(&p.adding_replicas),
            csv(&p.removing_replicas)
        ));
    }
    if elr {
        text.push_str(&format!(
            " Elr: {} LastKnownElr: {}$",
            csv(&p.elr),
            csv(&p.last_known_elr)
        ));
    } else {
        text.push_str("( Elr:.*)?$");
    }
    text
}

/// The topic configs of a create (`event`), as name and value.
fn topic_configs(event: &Event) -> Vec<(String, String)> {
    let Event::CreatePartition {
        unclean_leader_election_enable,
        min_insync_replicas,
        diskless,
        remote_storage,
        ..
    } = event
    else {
        return Vec::new();
    };
    let mut configs: Vec<(String, String)> = Vec::new();
    let mut config = |k: &str, v: String| configs.push((k.to_string(), v));
    if *unclean_leader_election_enable {
        config("unclean.leader.election.enable", "true".into());
    }
    // 1 is the broker default (`min.insync.replicas`), so it needs no config.
    if *min_insync_replicas != 1 {
        config("min.insync.replicas", min_insync_replicas.to_string());
    }
    if *diskless {
        config("diskless.enable", "true".into());
    }
    if *remote_storage {
        config("remote.storage.enable", "true".into());
    }
    configs
}

/// Step `i`, creating a partition (`event`): the topic with its configs for the first,
/// more partitions after; its title first.
pub fn create_lines(i: usize, event: &Event, before: Option<&Cluster>) -> Vec<Line> {
    let Event::CreatePartition { replicas, .. } = event else {
        return Vec::new();
    };
    let n = before.map_or(0, |c| c.partitions.len());
    let on = if replicas.len() == 1 {
        "broker"
    } else {
        "brokers"
    };
    let mut out = vec![Line::note(format!(
        "# step {i}: create partition {n} of {TOPIC} on {on} {}",
        list(replicas)
    ))];
    let configs = topic_configs(event);
    let pairs: Vec<String> = configs.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let assignment = |ids: &[BrokerId]| csv(ids).replace(',', ":");
    if n == 0 {
        let flags: String = pairs.iter().map(|c| format!(" --config {c}")).collect();
        out.push(Line::run(
            format!(
                "kafka-topics.sh {BS} --create --topic {TOPIC} --replica-assignment {}{flags}",
                assignment(replicas)
            ),
            Act::Create {
                replicas: replicas.to_vec(),
                configs,
            },
        ));
        return out;
    }
    let existing = before.map(|c| c.partitions.as_slice()).unwrap_or_default();
    let mut all: Vec<String> = existing.iter().map(|p| assignment(&p.replicas)).collect();
    all.push(assignment(replicas));
    out.push(Line::run(
        format!(
            "kafka-topics.sh {BS} --alter --topic {TOPIC} --partitions {} --replica-assignment {}",
            n + 1,
            all.join(",")
        ),
        Act::AddPartition {
            total: n + 1,
            replicas: replicas.to_vec(),
        },
    ));
    if !configs.is_empty() {
        out.push(Line::note(
            "# Kafka keeps these configs per topic, the history per partition:",
        ));
        out.push(Line::run(
            format!(
                "kafka-configs.sh {BS} --alter --entity-type topics --entity-name {TOPIC} --add-config {}",
                pairs.join(",")
            ),
            Act::TopicConfig {
                set: configs,
                delete: Vec::new(),
            },
        ));
    }
    out
}

/// Step `n`, a reassignment of `partition` to `target`: its title, JSON file and call.
pub fn reassign_lines(
    n: usize,
    partition: usize,
    target: &[BrokerId],
    allow_rf_change: bool,
) -> Vec<Line> {
    let rf = if allow_rf_change {
        ""
    } else {
        " --disallow-replication-factor-change"
    };
    vec![
        Line::note(format!("# step {n}: reassign {TOPIC}-{partition} to [{}]", list(target))),
        Line::run(format!("cat > reassign-{n}.json <<'EOF'\n{{\"version\":1,\"partitions\":[{{\"topic\":\"{TOPIC}\",\"partition\":{partition},\"replicas\":[{}]}}]}}\nEOF", csv(target)), Act::Shell),
        Line::run(
            format!("kafka-reassign-partitions.sh {BS} --reassignment-json-file reassign-{n}.json --execute --additional{rf}"),
            Act::Reassign { partition, target: target.to_vec(), allow_rf_change },
        ),
    ]
}

/// The operations of history formats 5 to 7, as an operator does them. `isrfuzz cluster` does
/// none of them yet: each is beyond it.
pub(crate) fn format_5_action(i: usize, event: &Event) -> Vec<Line> {
    let title = |what: String| Line::note(format!("# step {i}: {what}"));
    match event {
        Event::ElectLeadersMany { partitions: None, election } => vec![
            title(format!("{} leader election for every partition", election.api_name().to_lowercase())),
            Line::run(format!("kafka-leader-election.sh {BS} --election-type {} --all-topic-partitions", election.api_name()), beyond("an election over every partition")),
        ],
        Event::ElectLeadersMany { partitions: Some(list), election } => {
            let json: Vec<String> = list.iter().map(|p| format!("{{\"topic\":\"{TOPIC}\",\"partition\":{p}}}")).collect();
            vec![
                title(format!("{} leader election for {} partitions in one request", election.api_name().to_lowercase(), list.len())),
                Line::run(format!("echo '{{\"partitions\":[{}]}}' > elect-{i}.json", json.join(",")), Act::Shell),
                Line::run(format!("kafka-leader-election.sh {BS} --election-type {} --path-to-json-file elect-{i}.json", election.api_name()), beyond("an election over several partitions")),
            ]
        }
        Event::AlterTopicConfig { partition, min_insync_replicas, unclean_leader_election_enable } => {
            let mut set = Vec::new();
            set.extend(min_insync_replicas.map(|m| format!("min.insync.replicas={m}")));
            set.extend(unclean_leader_election_enable.map(|u| format!("unclean.leader.election.enable={u}")));
            vec![
                // The script's partitions share topic t; the history's each have a topic.
                title(format!("set {} on the topic of {TOPIC}-{partition}", set.join(" and "))),
                Line::run(format!("kafka-configs.sh {BS} --alter --entity-type topics --entity-name {TOPIC} --add-config {}", set.join(",")), beyond("a topic config change")),
            ]
        }
        Event::LaggingHeartbeat { broker } => vec![
            title(format!("broker {broker} heartbeats before it has replayed its own registration")),
            by_hand(&format!("nothing to do: a restarted broker {broker} sends such heartbeats while it catches up with the metadata log"), Manual::Beyond { event: format!("a heartbeat of broker {broker} that lags the metadata log") }),
        ],
        Event::UpdateFeatures { eligible_leader_replicas } => {
            let (level, how) = if *eligible_leader_replicas { (1, "upgrade") } else { (0, "downgrade") };
            vec![
                title(format!("eligible.leader.replicas.version becomes {level}")),
                Line::run(format!("kafka-features.sh {BS} {how} --feature eligible.leader.replicas.version={level}"), beyond("a feature update")),
            ]
        }
        Event::UnregisterBroker { broker } => vec![
            title(format!("the operator unregisters broker {broker}, which is down")),
            Line::run(format!("kafka-cluster.sh unregister {BS} --id {broker}"), beyond("an unregistration")),
        ],
        // Format 6. The script's partitions share topic t, so neither maps onto it.
        Event::CreatePartitions { partition, replicas } => vec![
            title(format!("the topic of {TOPIC}-{partition} gets one more partition, on brokers {}", list(replicas))),
            Line::run(format!("kafka-topics.sh {BS} --alter --topic <the topic of {TOPIC}-{partition}> --partitions <its count + 1> --replica-assignment <its assignments>,{}", replicas.iter().map(|b| b.to_string()).collect::<Vec<_>>().join(":")), beyond("adding a partition to a topic")),
        ],
        Event::DeleteTopic { partition } => vec![
            title(format!("the topic of {TOPIC}-{partition} is deleted")),
            Line::run(format!("kafka-topics.sh {BS} --delete --topic <the topic of {TOPIC}-{partition}>"), beyond("a topic deletion")),
        ],
        // Format 7. The script's brokers run one log directory each (`log.dirs`).
        Event::AssignReplicaDir { partition, broker, dir } => vec![
            title(format!("broker {broker} reports its replica of {TOPIC}-{partition} in its log directory {dir} (AssignReplicasToDirs: a broker sends it by itself for a replica it placed, or found in a failed directory, that the controller has elsewhere)")),
            Line::run(format!("kafka-reassign-partitions.sh {BS} --execute --reassignment-json-file dirs-{i}.json  # or: {TOPIC}-{partition}'s replicas as they are, \"log_dirs\" naming directory {dir} of broker {broker} (a move that ends in the same request)"), beyond("a replica's log directory")),
        ],
        Event::LogDirOffline { broker, dir } => vec![
            title(format!("log directory {dir} of broker {broker} fails (its disk), and broker {broker} reports it offline")),
            by_hand(&format!("make log directory {dir} of broker {broker} fail, for example by unmounting its disk"), Manual::Beyond { event: format!("a failed log directory of broker {broker}") }),
        ],
        _ => vec![title(event.op().to_string())],
    }
}

pub(crate) fn beyond(event: &str) -> Act {
    Act::Hand(Manual::Beyond {
        event: event.to_string(),
    })
}
