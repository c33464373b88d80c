//! Running one history's operator plan (findings/plan.rs, the lines `replay --operator`
//! prints) on the cluster: each command through the Admin API, a producer or a broker's
//! stop and start; each check polled until the cluster shows the state or its deadline
//! passes. A consequence (a violation the plan's side claims at step N) is confirmed when
//! every check of step N was seen: the cluster showed the very state the model judged
//! violating, leader, replicas, ISR and listed reassignment alike.

use super::cluster::{describe_expected, describe_shown, failure, shows, Cluster, Ids, Shown};
use super::cluster_report::{Consequence, HistoryResult, Records, Verdict};
use crate::check::oracle::SideRun;
use crate::error::Error;
use crate::findings::plan::{Act, Line, Manual};
use crate::model::{BrokerId, Outcome, Partition};
use crate::search::stop;
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::time::{Duration, Instant};

/// The bounds of a run's waits.
#[derive(Clone, Copy, Debug)]
pub struct Bounds {
    /// How long a check waits for its state (the script's `see` waits 60 s).
    pub check_deadline_ms: u64,
    /// How often a check looks.
    pub poll_ms: u64,
}

/// How long a throttle's check waits for the broker's config to read back.
const CONFIG_DEADLINE_MS: u64 = 10_000;
/// The longest pause a plan's `sleep` may ask for.
const SLEEP_MAX_MS: u64 = 600_000;

/// The first event of `plan` no in-process cluster performs, and how many there are.
pub fn beyond(plan: &[Line]) -> Option<(String, usize)> {
    let events: Vec<&str> = plan
        .iter()
        .filter_map(|l| l.act.as_ref()?.beyond())
        .collect();
    events.first().map(|e| (e.to_string(), events.len()))
}

/// The invariants a client sees: replicas, ISR, leader, the listed reassignment and the
/// ELR lists in a state, and a controller's exception (S4) as the command's
/// UNKNOWN_SERVER_ERROR. Not the others: the partition epoch (S3), what holds once every
/// broker is back (E1, E2), records (D*), the Inkless fetchers and seals (INV-*).
const OBSERVABLE: [&str; 17] = [
    "S0", "S1", "S2", "S4", "G1", "G2", "G3", "G4", "G5", "G6", "G7", "G8", "G9", "ELR1", "ELR2",
    "ELR3", "ELR5",
];

/// The violations `side` claims, none confirmed yet.
fn claimed(side: &SideRun) -> Vec<Consequence> {
    (side.violations.iter())
        .map(|v| Consequence {
            invariant: v.invariant.to_string(),
            step: v.step,
            confirmed: false,
            observable: OBSERVABLE.contains(&v.invariant),
        })
        .collect()
}

/// The result of a plan that holds an event no in-process cluster performs (nothing is
/// run); `None` for a plan the cluster can run.
pub fn not_expressible(file: &str, side: &SideRun, plan: &[Line]) -> Option<HistoryResult> {
    let (event, count) = beyond(plan)?;
    Some(HistoryResult {
        file: file.to_string(),
        verdict: Verdict::NotExpressible { event, count },
        consequences: claimed(side),
        seconds: 0.0,
        records: None,
    })
}

/// Where a history stopped short: its step, the plan's expectation, what was shown.
struct Miss {
    step: usize,
    expected: String,
    shown: String,
}

struct Runner<'a> {
    cluster: &'a mut Cluster,
    topic: &'a str,
    ids: Ids,
    side: &'a SideRun,
    bounds: Bounds,
    /// The step the commands now belong to (the one after the last checked).
    step: usize,
    /// Steps with a check seen.
    seen: BTreeSet<usize>,
    /// Steps whose command failed with the error the model answers (S4's evidence: the
    /// controller threw, the client got UNKNOWN_SERVER_ERROR).
    failed_as_expected: BTreeSet<usize>,
    /// Records acknowledged with acks=all, and whether anything was produced.
    acked: u64,
    produced: bool,
}

/// Run `plan` (of `side`, for a history of `brokers`) on `cluster` in a topic of its own;
/// the topic is deleted, throttles lifted and brokers started again afterwards.
pub fn run(
    cluster: &mut Cluster,
    (file, topic): (&str, &str),
    brokers: &[BrokerId],
    side: &SideRun,
    plan: &[Line],
    bounds: Bounds,
) -> Result<HistoryResult, Error> {
    if let Some(r) = not_expressible(file, side, plan) {
        return Ok(r);
    }
    let started = Instant::now();
    let mut r = Runner {
        cluster,
        topic,
        ids: Ids::new(brokers),
        side,
        bounds,
        step: 0,
        seen: BTreeSet::new(),
        failed_as_expected: BTreeSet::new(),
        acked: 0,
        produced: false,
    };
    // A history without ELR runs with the feature off (a new 4.1+ cluster has it on; the
    // plan's own line turns it on where the history has it).
    let off = r
        .cluster
        .call(json!({"op": "cluster_elr_feature", "level": 0}))?;
    let mut miss = r.judge_answer(&off);
    for line in plan {
        if miss.is_some() {
            break;
        }
        if let Some(act) = &line.act {
            miss = r.act(act)?;
        }
    }
    let records = r.finish(miss.is_none(), file)?;
    let seconds = started.elapsed().as_secs_f64();
    let mut consequences = claimed(side);
    for c in &mut consequences {
        let failed = c.invariant != "S4" || r.failed_as_expected.contains(&c.step);
        c.confirmed = c.observable && r.seen.contains(&c.step) && failed;
    }
    let verdict = verdict(miss, &consequences);
    Ok(HistoryResult {
        file: file.to_string(),
        verdict,
        consequences,
        seconds,
        records,
    })
}

/// The history's verdict: the check it stopped at, else a consequence no check observes,
/// else confirmed.
fn verdict(miss: Option<Miss>, consequences: &[Consequence]) -> Verdict {
    if let Some(m) = miss {
        return Verdict::NotConfirmed {
            step: m.step,
            expected: m.expected,
            shown: m.shown,
        };
    }
    match consequences.iter().find(|c| !c.confirmed) {
        Some(c) if !c.observable => Verdict::NotConfirmed {
            step: c.step,
            expected: String::new(),
            shown: format!("{} is not observable through the Admin API (the states before it were seen)", c.invariant),
        },
        Some(c) if c.invariant == "S4" => Verdict::NotConfirmed {
            step: c.step,
            expected: String::new(),
            shown: "S4: the command of this step did not fail as the model's controller did (the states were seen)".to_string(),
        },
        Some(c) => Verdict::NotConfirmed {
            step: c.step,
            expected: String::new(),
            shown: format!("{} has no check in the plan (its state passes by itself, or it is judged once every broker is back)", c.invariant),
        },
        None => Verdict::Confirmed,
    }
}

impl Runner<'_> {
    /// After the plan: the records read back (when it ran through and produced any),
    /// then the cluster cleaned for the next history.
    fn finish(&mut self, ran: bool, file: &str) -> Result<Option<Records>, Error> {
        let topic = self.topic;
        let records = if self.produced && ran {
            let answer = self
                .cluster
                .call(json!({"op": "cluster_read", "topic": topic}))?;
            Some(Records {
                acknowledged: self.acked,
                read: answer["read"].as_u64().unwrap_or(0),
                end: answer["end"].as_u64().unwrap_or(0),
            })
        } else {
            None
        };
        let clean = self
            .cluster
            .call(json!({"op": "cluster_clean", "topic": topic}))?;
        if clean["error"] != "NONE" {
            return Err(Error::Harness(format!(
                "the cluster could not be cleaned after {file}: {}",
                failure(&clean)
            )));
        }
        Ok(records)
    }

    /// Do one action; `Some` where the history stops short.
    fn act(&mut self, act: &Act) -> Result<Option<Miss>, Error> {
        let topic = self.topic;
        let request = match act {
            Act::Shell | Act::Hand(Manual::Beyond { .. }) => return Ok(None),
            Act::See {
                step,
                partition,
                expect,
                elr,
            } => return self.see(*step, *partition, expect, *elr),
            Act::Glance { step, .. } => {
                // Only looked at: the next step may already have changed it.
                self.step = step + 1;
                self.cluster.state(topic)?.ok();
                return Ok(None);
            }
            Act::List => {
                self.cluster.state(topic)?.ok();
                return Ok(None);
            }
            Act::BrokerConfigIs {
                broker,
                name,
                value,
            } => return self.config_is(*broker, name, value),
            Act::Sleep { ms } => {
                pause(*ms);
                stopped()?;
                return Ok(None);
            }
            Act::Hand(manual) => return self.by_hand(manual),
            other => self.request(other),
        };
        let answer = self.cluster.call(request)?;
        if let Act::Produce { acks_all, .. } = act {
            self.produced = true;
            if *acks_all {
                self.acked += answer["acked"].as_u64().unwrap_or(0);
            }
        }
        Ok(self.judge_answer(&answer))
    }

    /// The request of a command (one Admin call or a producer).
    fn request(&self, act: &Act) -> Value {
        let (topic, ids) = (self.topic, &self.ids);
        let pairs = |v: &[(String, String)]| -> serde_json::Map<String, Value> {
            v.iter().map(|(k, x)| (k.clone(), json!(x))).collect()
        };
        match act {
            Act::ElrFeature => json!({"op": "cluster_elr_feature", "level": 1}),
            Act::Create { replicas, configs } => json!({"op": "cluster_create", "topic": topic,
                "replicas": ids.kits(replicas), "configs": pairs(configs)}),
            Act::AddPartition { total, replicas } => json!({"op": "cluster_add_partition",
                "topic": topic, "total": total, "replicas": ids.kits(replicas)}),
            Act::TopicConfig { set, delete } => json!({"op": "cluster_topic_config",
                "topic": topic, "set": pairs(&self.kit_configs(set)), "delete": delete}),
            Act::BrokerConfig {
                broker,
                set,
                delete,
            } => json!({"op": "cluster_broker_config",
                "broker": ids.kit(*broker), "set": pairs(set), "delete": delete}),
            Act::Reassign {
                partition,
                target,
                allow_rf_change,
            } => json!({"op": "cluster_reassign",
                "topic": topic, "partition": partition, "target": ids.kits(target),
                "allow_rf_change": allow_rf_change}),
            Act::Cancel { partition } => json!({"op": "cluster_reassign", "topic": topic,
                "partition": partition, "target": null, "allow_rf_change": true}),
            Act::Elect { partition, unclean } => json!({"op": "cluster_elect", "topic": topic,
                "partition": partition, "unclean": unclean}),
            Act::Produce {
                records,
                record_bytes,
                acks_all,
            } => json!({"op": "cluster_produce",
                "topic": topic, "records": records, "record_bytes": record_bytes,
                "acks_all": acks_all}),
            Act::DeleteRecords { partition, offset } => json!({"op": "cluster_delete_records",
                "topic": topic, "partition": partition, "offset": offset}),
            // Answered in `act`; never sent.
            _ => json!({"op": "cluster_noop"}),
        }
    }

    /// Topic configs in the kit's ids: the throttled-replicas list names brokers.
    fn kit_configs(&self, set: &[(String, String)]) -> Vec<(String, String)> {
        let map = |v: &str| -> String {
            (v.split(',').filter_map(|pb| {
                let (p, b) = pb.split_once(':')?;
                Some(format!("{p}:{}", self.ids.kit(b.parse().ok()?)))
            }))
            .collect::<Vec<_>>()
            .join(",")
        };
        (set.iter())
            .map(|(k, v)| match k.as_str() {
                "follower.replication.throttled.replicas" => (k.clone(), map(v)),
                _ => (k.clone(), v.clone()),
            })
            .collect()
    }

    /// A command's answer: a failure the model did not have at this step stops the
    /// history (the cluster has left the plan); one it had is what the plan expects.
    fn judge_answer(&mut self, answer: &Value) -> Option<Miss> {
        if answer["error"] == "NONE" {
            return None;
        }
        let expected = match self.side.steps.get(self.step).map(|s| &s.outcome) {
            Some(Outcome::Rejected { error, .. }) => Some(error.name()),
            _ => None,
        };
        if expected.is_some_and(|e| answer["error"] == e) {
            self.failed_as_expected.insert(self.step);
        }
        expected.is_none().then(|| Miss {
            step: self.step,
            expected: "the command succeeds".to_string(),
            shown: failure(answer),
        })
    }

    fn by_hand(&mut self, manual: &Manual) -> Result<Option<Miss>, Error> {
        let ops: Vec<(&str, BrokerId)> = match manual {
            Manual::Stop { broker } => vec![("cluster_stop_broker", *broker)],
            Manual::Start { broker } => vec![("cluster_start_broker", *broker)],
            Manual::Restart { broker } => vec![
                ("cluster_stop_broker", *broker),
                ("cluster_start_broker", *broker),
            ],
            Manual::Beyond { .. } => Vec::new(),
        };
        for (op, broker) in ops {
            let answer = (self.cluster).call(json!({"op": op, "broker": self.ids.kit(broker)}))?;
            if let Some(miss) = self.judge_answer(&answer) {
                return Ok(Some(miss));
            }
        }
        Ok(None)
    }

    /// Wait until the broker's dynamic config `name` reads `value`.
    fn config_is(
        &mut self,
        broker: BrokerId,
        name: &str,
        value: &str,
    ) -> Result<Option<Miss>, Error> {
        let deadline = Instant::now() + Duration::from_millis(CONFIG_DEADLINE_MS);
        let request = json!({"op": "cluster_broker_config_get", "broker": self.ids.kit(broker), "name": name});
        let mut last = String::new();
        while Instant::now() < deadline {
            stopped()?;
            let answer = self.cluster.call(request.clone())?;
            last = answer["value"]
                .as_str()
                .map_or_else(|| failure(&answer), str::to_string);
            if answer["value"] == value {
                return Ok(None);
            }
            pause(self.bounds.poll_ms);
        }
        Ok(Some(Miss {
            step: self.step,
            expected: format!("broker {broker} with {name}={value}"),
            shown: format!("{name}: {last}"),
        }))
    }

    /// Poll the partition until it shows `expect` or the check's deadline passes.
    fn see(
        &mut self,
        step: usize,
        p: usize,
        expect: &Partition,
        elr: bool,
    ) -> Result<Option<Miss>, Error> {
        self.step = step + 1;
        let deadline = Instant::now() + Duration::from_millis(self.bounds.check_deadline_ms);
        let mut last: String;
        loop {
            match self.cluster.state(self.topic)? {
                Ok(parts) => {
                    let shown: Option<Shown> = parts
                        .iter()
                        .find(|s| s.partition == p)
                        .map(|s| self.ids.shown(s));
                    if let Some(s) = &shown {
                        if shows(s, expect, elr) {
                            self.seen.insert(step);
                            return Ok(None);
                        }
                        last = describe_shown(s, elr);
                    } else {
                        last = format!("no partition {p}");
                    }
                }
                Err(e) => last = e,
            }
            stopped()?;
            if Instant::now() >= deadline {
                self.seen.remove(&step);
                return Ok(Some(Miss {
                    step,
                    expected: describe_expected(p, expect, elr),
                    shown: last,
                }));
            }
            pause(self.bounds.poll_ms);
        }
    }
}

/// A stop request (SIGINT, SIGTERM) ends the run, not the history with a verdict: what
/// the cluster shows at that moment proves nothing.
fn stopped() -> Result<(), Error> {
    match stop::stopped_by() {
        Some(signal) => Err(Error::Stopped(format!("stopped by {signal}"))),
        None => Ok(()),
    }
}

/// Sleep `ms` (at most [`SLEEP_MAX_MS`]), ending early on a stop request.
fn pause(ms: u64) {
    let end = Instant::now() + Duration::from_millis(ms.min(SLEEP_MAX_MS));
    while Instant::now() < end && !stop::requested() {
        std::thread::sleep(Duration::from_millis(50).min(end - Instant::now()));
    }
}
