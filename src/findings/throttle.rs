//! The holds of a reproduction on a real cluster: the replicas a history keeps out of the
//! ISR while they are running, each from the step it must be held before to the step it
//! joins; and the follower throttles that hold them, set and lifted in the script's order.
//!
//! A real follower that is running joins the ISR as soon as it has caught up; the model
//! keeps it out until the history's AlterPartition says otherwise. A follower throttle
//! (the broker's `follower.replication.throttled.rate` with the topic's
//! `follower.replication.throttled.replicas`) is what holds it back, with two limits the
//! script respects: it only slows a replica outside the ISR, and only while there is a
//! backlog to fetch. So the throttle is set before the step that puts the replica out (a
//! reassignment that adds it, its return after a stop), with records produced first, and
//! lifted only where it was set.

use crate::check::history::History;
use crate::check::oracle::SideRun;
use crate::findings::plan::{Act, Line};
use crate::model::{BrokerId, Cluster};

/// One replica held out of the ISR of `partition` from step `from` (the throttle is set
/// before it) until step `join`, where it joins (the throttle is lifted in it); `None`:
/// it never joins while running, or leaves the replicas first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hold {
    pub partition: usize,
    pub broker: BrokerId,
    pub from: usize,
    pub join: Option<usize>,
    /// The broker was a replica of the partition before `from` (it has the partition's
    /// older records: only records produced while it is out are a backlog for it).
    pub had_replica: bool,
}

/// Whether `b` runs and is a replica of partition `p` outside its ISR in `c`.
fn held_in(c: &Cluster, p: usize, b: BrokerId) -> bool {
    c.is_active(b)
        && c.partitions
            .get(p)
            .is_some_and(|x| x.replicas.iter().any(|r| *r == b) && !x.isr.iter().any(|r| *r == b))
}

fn in_isr(c: &Cluster, p: usize, b: BrokerId) -> bool {
    (c.partitions.get(p)).is_some_and(|x| x.isr.iter().any(|r| *r == b))
}

fn replica_of(c: &Cluster, p: usize, b: BrokerId) -> bool {
    (c.partitions.get(p)).is_some_and(|x| x.replicas.iter().any(|r| *r == b))
}

/// Every hold of `history` as `side` ran it (recorded), by the step it starts.
pub fn holds(history: &History, side: &SideRun) -> Vec<Hold> {
    let states: Vec<&Cluster> = side.steps.iter().map(|s| &s.state).collect();
    let partitions = states.last().map_or(0, |c| c.partitions.len());
    let mut out = Vec::new();
    for p in 0..partitions {
        for &b in &history.brokers {
            let mut i = 0;
            while i < states.len() {
                if !held_in(states[i], p, b) {
                    i += 1;
                    continue;
                }
                let from = i;
                while i < states.len() && held_in(states[i], p, b) {
                    i += 1;
                }
                let join = (i < states.len() && in_isr(states[i], p, b)).then_some(i);
                let had_replica = from > 0 && replica_of(states[from - 1], p, b);
                out.push(Hold {
                    partition: p,
                    broker: b,
                    from,
                    join,
                    had_replica,
                });
            }
        }
    }
    out.sort_by_key(|h| (h.from, h.partition, h.broker));
    out
}

const BS: &str = "--bootstrap-server \"$BS\"";
/// The broker's follower throttle (bytes per second) and the topic's throttled followers.
pub const RATE: &str = "follower.replication.throttled.rate";
const REPLICAS: &str = "follower.replication.throttled.replicas";

/// The follower throttles set so far, to set and lift them in order: each broker's rate
/// and the topic's throttled replicas (`partition:broker`).
#[derive(Default)]
pub struct Throttles {
    replicas: Vec<(usize, BrokerId)>,
    rated: Vec<BrokerId>,
}

impl Throttles {
    /// Throttle `broker`'s fetches of `partition` of `topic`: the commands.
    pub fn set(&mut self, topic: &str, partition: usize, broker: BrokerId) -> Vec<Line> {
        let mut out = Vec::new();
        if !self.rated.contains(&broker) {
            self.rated.push(broker);
            out.push(Line::run(format!(
                "kafka-configs.sh {BS} --alter --entity-type brokers --entity-name {broker} --add-config {RATE}=1"
            ), Act::BrokerConfig { broker, set: vec![(RATE.to_string(), "1".to_string())], delete: Vec::new() }));
        }
        if !self.replicas.contains(&(partition, broker)) {
            self.replicas.push((partition, broker));
            out.push(self.topic_config(topic));
        }
        out
    }

    /// Lift the throttle of `broker` on `partition`, if this script set it: the commands
    /// (none when it was never set).
    pub fn lift(&mut self, topic: &str, partition: usize, broker: BrokerId) -> Vec<Line> {
        let Some(at) = self.replicas.iter().position(|r| *r == (partition, broker)) else {
            return Vec::new();
        };
        self.replicas.remove(at);
        let mut out = vec![self.topic_config(topic)];
        if !self.replicas.iter().any(|r| r.1 == broker) {
            self.rated.retain(|b| *b != broker);
            out.push(Line::run(format!(
                "kafka-configs.sh {BS} --alter --entity-type brokers --entity-name {broker} --delete-config {RATE}"
            ), Act::BrokerConfig { broker, set: Vec::new(), delete: vec![RATE.to_string()] }));
        }
        out
    }

    /// Lift every throttle still set.
    pub fn lift_all(&mut self, topic: &str) -> Vec<Line> {
        let mut out = Vec::new();
        while let Some(&(p, b)) = self.replicas.first() {
            out.extend(self.lift(topic, p, b));
        }
        out
    }

    pub fn is_set(&self, partition: usize, broker: BrokerId) -> bool {
        self.replicas.contains(&(partition, broker))
    }

    /// The topic's throttled replicas as they now are (deleted when none is left).
    fn topic_config(&self, topic: &str) -> Line {
        let alter =
            format!("kafka-configs.sh {BS} --alter --entity-type topics --entity-name {topic}");
        if self.replicas.is_empty() {
            return Line::run(
                format!("{alter} --delete-config {REPLICAS}"),
                Act::TopicConfig {
                    set: Vec::new(),
                    delete: vec![REPLICAS.to_string()],
                },
            );
        }
        let list: Vec<String> = (self.replicas.iter())
            .map(|(p, b)| format!("{p}:{b}"))
            .collect();
        let value = list.join(",");
        Line::run(
            format!("{alter} --add-config '{REPLICAS}=[{value}]'"),
            Act::TopicConfig {
                set: vec![(REPLICAS.to_string(), value)],
                delete: Vec::new(),
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_throttle_is_lifted_only_where_it_was_set() {
        let mut t = Throttles::default();
        assert!(t.lift("t", 0, 4).is_empty());
        assert_eq!(t.set("t", 0, 4).len(), 2);
        assert_eq!(t.set("t", 1, 4).len(), 1, "the broker's rate is set once");
        let lifted = t.lift("t", 0, 4);
        assert_eq!(
            lifted.len(),
            1,
            "broker 4 is still throttled on partition 1"
        );
        assert!(lifted[0].text.contains("replicas=[1:4]"), "{lifted:?}");
        let rest = crate::findings::plan::texts(&t.lift_all("t"));
        assert!(rest
            .iter()
            .any(|l| l.contains("--delete-config follower.replication.throttled.rate")));
        assert!(rest
            .iter()
            .any(|l| l.contains("--delete-config follower.replication.throttled.replicas")));
        assert!(t.lift_all("t").is_empty());
    }
}
