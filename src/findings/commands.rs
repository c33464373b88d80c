//! The admin commands of an operator script (operator.rs) as text: the topic, creating
//! it and its partitions, a reassignment's JSON file and call, a backlog of records, a
//! pause for what no command does, and the `--describe` line a check waits for.

use crate::model::{BrokerId, Cluster, Event, Partition};

/// The topic every script uses.
pub const TOPIC: &str = "t";
/// The admin tools' bootstrap flag, the server taken from the script's `$BS`.
pub const BS: &str = "--bootstrap-server \"$BS\"";
/// The backlog produced for a throttled follower: 4 MB.
const BACKLOG: &str = "--num-records 40000 --record-size 100";

/// A backlog of 4 MB for a throttled follower, produced for `why`.
pub fn backlog(why: &str) -> Vec<String> {
    vec![
        format!("# A backlog ({why}): 4 MB."),
        format!("kafka-producer-perf-test.sh --topic {TOPIC} {BACKLOG} --throughput -1 --producer-props bootstrap.servers=\"$BS\" acks=all"),
    ]
}

/// A pause for what no command does.
pub fn by_hand(what: &str) -> String {
    format!("by_hand '{}'", what.replace('\'', "'\\''"))
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

/// Step `i`, creating a partition (`event`): the topic with its configs for the first,
/// more partitions after; its title first.
pub fn create_lines(i: usize, event: &Event, before: Option<&Cluster>) -> Vec<String> {
    let Event::CreatePartition {
        replicas,
        unclean_leader_election_enable,
        min_insync_replicas,
        diskless,
        remote_storage,
    } = event
    else {
        return Vec::new();
    };
    let n = before.map_or(0, |c| c.partitions.len());
    let on = if replicas.len() == 1 {
        "broker"
    } else {
        "brokers"
    };
    let mut out = vec![format!(
        "# step {i}: create partition {n} of {TOPIC} on {on} {}",
        list(replicas)
    )];
    let mut configs = Vec::new();
    if *unclean_leader_election_enable {
        configs.push("unclean.leader.election.enable=true".to_string());
    }
    // 1 is the broker default (`min.insync.replicas`), so it needs no config.
    if *min_insync_replicas != 1 {
        configs.push(format!("min.insync.replicas={min_insync_replicas}"));
    }
    if *diskless {
        configs.push("diskless.enable=true".to_string());
    }
    if *remote_storage {
        configs.push("remote.storage.enable=true".to_string());
    }
    let assignment = |ids: &[BrokerId]| csv(ids).replace(',', ":");
    if n == 0 {
        let flags: String = configs.iter().map(|c| format!(" --config {c}")).collect();
        out.push(format!(
            "kafka-topics.sh {BS} --create --topic {TOPIC} --replica-assignment {}{flags}",
            assignment(replicas)
        ));
        return out;
    }
    let existing = before.map(|c| c.partitions.as_slice()).unwrap_or_default();
    let mut all: Vec<String> = existing.iter().map(|p| assignment(&p.replicas)).collect();
    all.push(assignment(replicas));
    out.push(format!(
        "kafka-topics.sh {BS} --alter --topic {TOPIC} --partitions {} --replica-assignment {}",
        n + 1,
        all.join(",")
    ));
    if !configs.is_empty() {
        out.push("# Kafka keeps these configs per topic, the history per partition:".to_string());
        out.push(format!(
            "kafka-configs.sh {BS} --alter --entity-type topics --entity-name {TOPIC} --add-config {}",
            configs.join(",")
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
) -> Vec<String> {
    let rf = if allow_rf_change {
        ""
    } else {
        " --disallow-replication-factor-change"
    };
    vec![
        format!("# step {n}: reassign {TOPIC}-{partition} to [{}]", list(target)),
        format!("cat > reassign-{n}.json <<'EOF'\n{{\"version\":1,\"partitions\":[{{\"topic\":\"{TOPIC}\",\"partition\":{partition},\"replicas\":[{}]}}]}}\nEOF", csv(target)),
        format!("kafka-reassign-partitions.sh {BS} --reassignment-json-file reassign-{n}.json --execute --additional{rf}"),
    ]
}
