//! One real Apache Kafka cluster in a JVM (the driver's `cluster_*` ops, PROTOCOL.md):
//! built with the release's test kit on the classpath (the pom's `cluster` profile),
//! started once per run, asked one request at a time, closed at the end. What a partition
//! shows (describeTopics with the listed reassignment), in the history's broker ids.

use super::driver::{build_with, Driver, Jit};
use super::release::Release;
use crate::error::Error;
use crate::model::{BrokerId, Partition};
use serde::Deserialize;
use serde_json::{json, Value};
use std::path::Path;
use std::time::Duration;

/// The pom's profile that adds kafka-test-common-runtime, and with it the one that adds
/// the test classes a release's kit needs and the release does not publish.
const PROFILE: &str = "cluster";
const PROFILE_SSL_HELPERS: &str = "cluster,cluster-ssl-helpers";
/// The wait for one answer: the slowest op is a broker's start (about 10 s) or a
/// produce of 4 MB; every Admin call in the JVM is bounded by 30 s, a read-back by 60 s.
const ANSWER_TIMEOUT_MS: u64 = 120_000;
/// After the quit request, the JVM closes the cluster (about 2 s; more on a busy machine).
const QUIT_WAIT_MS: u64 = 20_000;

/// A running cluster.
pub struct Cluster {
    driver: Driver,
    /// The test kit's broker ids, ascending (0..n).
    pub brokers: Vec<i64>,
    /// How long `cluster_start` took in the JVM.
    pub start_ms: u64,
}

/// A partition as the cluster shows it (the JVM's `cluster_state` entry).
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
pub struct Shown {
    pub partition: usize,
    pub leader: BrokerId,
    pub replicas: Vec<BrokerId>,
    pub isr: Vec<BrokerId>,
    pub elr: Vec<BrokerId>,
    pub last_known_elr: Vec<BrokerId>,
    /// listPartitionReassignments names it.
    pub listed: bool,
    pub listed_replicas: Vec<BrokerId>,
    pub adding: Vec<BrokerId>,
    pub removing: Vec<BrokerId>,
}

/// How a start failed: bad input (a release with no test kit: exit 2), or the cluster
/// itself (exit 3).
pub enum StartError {
    Usage(Error),
    Failed(String),
}

impl Cluster {
    /// Resolve the release's test kit, start the JVM and a cluster of `brokers` brokers
    /// and one controller with `configs` on every node.
    pub fn start(
        dir: &Path,
        release: Release,
        brokers: usize,
        configs: &[(String, String)],
    ) -> Result<Cluster, StartError> {
        let profile = if release.kit_ssl_helpers {
            PROFILE_SSL_HELPERS
        } else {
            PROFILE
        };
        let classpath = build_with(dir, &release, Some(profile)).map_err(|e| {
            let text = e.to_string();
            if text.contains("kafka-test-common-runtime") {
                StartError::Usage(Error::Usage(format!(
                    "Kafka {} has no test kit on Maven Central (org.apache.kafka:kafka-test-common-runtime:{}): the cluster command cannot run it",
                    release.version, release.version
                )))
            } else {
                StartError::Usage(e)
            }
        })?;
        let log = format!("cluster-{}.log", release.version);
        let timeout = Duration::from_millis(ANSWER_TIMEOUT_MS);
        let driver = Driver::start_with(
            dir,
            release,
            timeout,
            (classpath, log),
            (QUIT_WAIT_MS, Jit::Quick),
        )
        .map_err(|e| StartError::Failed(e.to_string()))?;
        let mut cluster = Cluster {
            driver,
            brokers: Vec::new(),
            start_ms: 0,
        };
        let configs: serde_json::Map<String, Value> = (configs.iter())
            .map(|(k, v)| (k.clone(), json!(v)))
            .collect();
        let answer = (cluster
            .call(json!({"op": "cluster_start", "brokers": brokers, "configs": configs})))
        .map_err(|e| StartError::Failed(e.to_string()))?;
        match answer["error"].as_str() {
            Some("NONE") => {}
            Some("NO_TEST_KIT") => {
                return Err(StartError::Usage(Error::Usage(format!(
                    "Kafka {}: no test kit on the classpath (KafkaClusterTestKit): the cluster command cannot run it",
                    release.version
                ))))
            }
            _ => return Err(StartError::Failed(failure(&answer))),
        }
        cluster.brokers = serde_json::from_value(answer["brokers"].clone()).unwrap_or_default();
        cluster.start_ms = answer["start_ms"].as_u64().unwrap_or(0);
        Ok(cluster)
    }

    /// One request; its answer object (`error` NONE, an Errors name, or DRIVER with a
    /// `fault`). Only a JVM that died, stalled or answered nonsense is an error.
    pub fn call(&mut self, request: Value) -> Result<Value, Error> {
        let answer: Value = self.driver.exchange_as(&request)?;
        if !answer.is_object() || !answer["error"].is_string() {
            return Err(Error::Harness(format!(
                "the cluster's JVM answered what isrfuzz cannot read: {}",
                answer.to_string().chars().take(200).collect::<String>()
            )));
        }
        Ok(answer)
    }

    /// Every partition of `topic` as shown, in the kit's broker ids.
    pub fn state(&mut self, topic: &str) -> Result<Result<Vec<Shown>, String>, Error> {
        let answer = self.call(json!({"op": "cluster_state", "topic": topic}))?;
        if answer["error"] != "NONE" {
            return Ok(Err(failure(&answer)));
        }
        serde_json::from_value(answer["partitions"].clone())
            .map(Ok)
            .map_err(|e| {
                Error::Harness(format!(
                    "the cluster's JVM answered a state isrfuzz cannot read: {e}"
                ))
            })
    }

    /// Close the cluster (bounded by the answer timeout); how long it took.
    pub fn close(mut self) -> Result<u64, Error> {
        let answer = self.call(json!({"op": "cluster_close"}))?;
        Ok(answer["close_ms"].as_u64().unwrap_or(0))
    }
}

/// An answer's failure as one line: its error name and message (or the fault).
pub fn failure(answer: &Value) -> String {
    let error = answer["error"].as_str().unwrap_or("?");
    let detail = answer["message"]
        .as_str()
        .or(answer["fault"].as_str())
        .unwrap_or("");
    if detail.is_empty() {
        error.to_string()
    } else {
        format!("{error}: {detail}")
    }
}

/// The history's broker ids as the kit's (0..n, in ascending order of the history's).
#[derive(Clone, Debug)]
pub struct Ids(Vec<BrokerId>);

impl Ids {
    pub fn new(brokers: &[BrokerId]) -> Ids {
        let mut v = brokers.to_vec();
        v.sort_unstable();
        v.dedup();
        Ids(v)
    }

    pub fn count(&self) -> usize {
        self.0.len()
    }

    /// The kit's id of the history's broker `b` (-1 for none, or a broker not in it).
    pub fn kit(&self, b: BrokerId) -> i64 {
        self.0.iter().position(|x| *x == b).map_or(-1, |i| i as i64)
    }

    pub fn kits(&self, bs: &[BrokerId]) -> Vec<i64> {
        bs.iter().map(|b| self.kit(*b)).collect()
    }

    /// The history's id of the kit's broker `id` (-1 stays -1: no leader).
    pub fn history(&self, id: BrokerId) -> BrokerId {
        usize::try_from(id)
            .ok()
            .and_then(|i| self.0.get(i).copied())
            .unwrap_or(-1)
    }

    /// A shown partition in the history's ids.
    pub fn shown(&self, s: &Shown) -> Shown {
        let map = |v: &[BrokerId]| v.iter().map(|b| self.history(*b)).collect::<Vec<_>>();
        let sorted = |v: &[BrokerId]| {
            let mut v = map(v);
            v.sort_unstable();
            v
        };
        Shown {
            partition: s.partition,
            leader: self.history(s.leader),
            replicas: map(&s.replicas),
            isr: map(&s.isr),
            elr: map(&s.elr),
            last_known_elr: map(&s.last_known_elr),
            listed: s.listed,
            listed_replicas: map(&s.listed_replicas),
            adding: sorted(&s.adding),
            removing: sorted(&s.removing),
        }
    }
}

/// Whether the cluster shows `expect` (history ids): leader, replicas and ISR (as a set)
/// as describeTopics gives them, the adding and removing replicas as the listing gives them
/// (listed exactly while the model has a reassignment), the two agreeing on the replicas,
/// and the ELR lists when they count.
pub fn shows(s: &Shown, expect: &Partition, elr: bool) -> bool {
    let moving = !expect.adding_replicas.is_empty() || !expect.removing_replicas.is_empty();
    s.leader == expect.leader
        && s.replicas == expect.replicas.as_slice()
        && same_set(&s.isr, &expect.isr)
        && s.listed == moving
        && (!s.listed || s.listed_replicas == s.replicas)
        && s.adding == expect.adding_replicas.as_slice()
        && s.removing == expect.removing_replicas.as_slice()
        && (!elr
            || (same_set(&s.elr, &expect.elr)
                && same_set(&s.last_known_elr, &expect.last_known_elr)))
}

/// The ISR and the ELR lists are sets: their order is the order of the AlterPartition
/// that wrote them, which a real leader chooses (the replicas' order is the assignment's,
/// the preferred leader first, and counts).
fn same_set(a: &[BrokerId], b: &[BrokerId]) -> bool {
    let sorted = |v: &[BrokerId]| {
        let mut v = v.to_vec();
        v.sort_unstable();
        v
    };
    sorted(a) == sorted(b)
}

fn csv(ids: &[BrokerId]) -> String {
    let v: Vec<String> = ids.iter().map(|b| b.to_string()).collect();
    v.join(",")
}

/// A partition in the words of `kafka-topics.sh --describe` (leader, replicas, ISR, the
/// reassignment's lists while there is one, the ELR when it counts).
pub fn describe(p: usize, leader: BrokerId, lists: [&[BrokerId]; 6], elr: bool) -> String {
    let [replicas, isr, adding, removing, e, lke] = lists;
    let leader = if leader < 0 {
        "none".to_string()
    } else {
        leader.to_string()
    };
    let mut out = format!(
        "Partition: {p} Leader: {leader} Replicas: {} Isr: {}",
        csv(replicas),
        csv(isr)
    );
    if !adding.is_empty() || !removing.is_empty() {
        out.push_str(&format!(
            " Adding Replicas: {} Removing Replicas: {}",
            csv(adding),
            csv(removing)
        ));
    }
    if elr {
        out.push_str(&format!(" Elr: {} LastKnownElr: {}", csv(e), csv(lke)));
    }
    out
}

pub fn describe_shown(s: &Shown, elr: bool) -> String {
    let lists = [
        &s.replicas[..],
        &s.isr,
        &s.adding,
        &s.removing,
        &s.elr,
        &s.last_known_elr,
    ];
    let mut out = describe(s.partition, s.leader, lists, elr);
    if s.listed && s.adding.is_empty() && s.removing.is_empty() {
        out.push_str(" (listed as reassigning)");
    }
    out
}

pub fn describe_expected(p: usize, e: &Partition, elr: bool) -> String {
    let lists = [
        &e.replicas[..],
        &e.isr,
        &e.adding_replicas,
        &e.removing_replicas,
        &e.elr,
        &e.last_known_elr,
    ];
    describe(p, e.leader, lists, elr)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::history::History;
    use crate::check::oracle;
    use crate::rules::RuleSet;

    #[test]
    fn history_ids_map_onto_the_kit_and_back() {
        let ids = Ids::new(&[5, 1, 4, 2, 3]);
        assert_eq!(ids.count(), 5);
        assert_eq!(ids.kits(&[1, 2, 4, 5]), [0, 1, 3, 4]);
        assert_eq!(ids.kit(9), -1);
        assert_eq!(
            (ids.history(3), ids.history(-1), ids.history(7)),
            (4, -1, -1)
        );
    }

    /// KAFKA-21419's state after step 2 under trunk: replicas [1,2,4,5,3], ISR [1,2,3],
    /// adding [5], removing [3].
    fn step_2() -> Partition {
        let dir = env!("CARGO_MANIFEST_DIR");
        let h = History::load(Path::new(&format!(
            "{dir}/corpus/regressions/kafka-21419-repro.json"
        )))
        .unwrap();
        let side = oracle::run(&h, &[RuleSet::parse("trunk").unwrap()], true)
            .sides
            .remove(0);
        side.steps[2].state.partitions[0].clone()
    }

    #[test]
    fn a_state_is_shown_with_the_isr_as_a_set_and_the_listing_agreeing() {
        let p = step_2();
        let kit = Shown {
            partition: 0,
            leader: 0,
            replicas: vec![0, 1, 3, 4, 2],
            isr: vec![2, 0, 1],
            elr: vec![],
            last_known_elr: vec![],
            listed: true,
            listed_replicas: vec![0, 1, 3, 4, 2],
            adding: vec![4],
            removing: vec![2],
        };
        let s = Ids::new(&[1, 2, 3, 4, 5]).shown(&kit);
        assert!(shows(&s, &p, false), "{s:?}");
        let unlisted = Shown {
            listed: false,
            ..s.clone()
        };
        assert!(
            !shows(&unlisted, &p, false),
            "a reassignment must be listed"
        );
        let disagreeing = Shown {
            listed_replicas: vec![1, 2, 4, 5],
            ..s.clone()
        };
        assert!(
            !shows(&disagreeing, &p, false),
            "describe and the listing must agree"
        );
        let both = Shown {
            adding: vec![4, 5],
            ..s.clone()
        };
        assert!(
            !shows(&both, &p, false),
            "the fixed listing is another state"
        );
        assert_eq!(
            describe_shown(&s, false),
            "Partition: 0 Leader: 1 Replicas: 1,2,4,5,3 Isr: 3,1,2 Adding Replicas: 5 Removing Replicas: 3"
        );
        assert!(describe_expected(0, &p, true).ends_with("Elr:  LastKnownElr: "));
    }
}
