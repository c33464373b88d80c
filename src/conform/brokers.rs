//! The real brokers of one release, as a judge (conformance/BROKERS.md): at each step the
//! driver performs on real `Partition`s and logs the calls the model's broker side made,
//! and answers each with what the real classes did. After the step every replica is
//! compared with the model's: log end, log start, high watermark, the leader-epoch cache,
//! each record's epoch; and the AlterPartition proposals the real Partitions sent with the
//! ones the model sent.
//!
//! The registrations the brokers apply are the model's; while the controller judge agrees
//! (it runs beside this one), they are the real controller's too.

use super::driver::Driver;
use crate::check::judge::{Ask, Judge, Start};
use crate::error::Error;
use crate::model::broker::BrokerCall;
use crate::model::{Acks, BrokerId, Event, Survives};
use serde::Deserialize;
use serde_json::{json, Value};
use std::cell::RefCell;

pub use super::replicas::{
    class_of, differences, BrokerStep, Proposal, RealReplica, MID_BATCH_DELETE, MID_BATCH_FETCH,
    MID_BATCH_TRUNCATE, RECOVERY_BELOW_START,
};

/// One answer line of a `broker_*` op (its `fetch`, `produce` and `proposals` are read by
/// the driver's own tests; a step reads `batch` and `replicas`).
#[derive(Clone, Debug, Deserialize)]
pub struct BrokerAnswer {
    pub error: String,
    #[serde(default)]
    pub fault: Option<String>,
    #[serde(default)]
    pub replicas: Vec<RealReplica>,
    /// A `broker_batch`'s step.
    #[serde(default)]
    pub batch: Option<BatchAnswer>,
}

/// What the driver did with one step's calls (`broker_batch`).
#[derive(Clone, Debug, Deserialize)]
pub struct BatchAnswer {
    /// Calls performed (a catch-up counts its rounds).
    pub sent: usize,
    pub proposals: Vec<Proposal>,
    /// Of those, the ones a history's own AlterPartition answered.
    pub asserted: Vec<Proposal>,
    /// The first call a real class threw on (its index in the step; -1: none).
    pub fault_at: i64,
    pub fault_text: Option<String>,
    pub beyond_model: Option<String>,
}

/// The driver's JSON for one call; a catch-up is a fetch the driver repeats until the
/// follower is at the leader's end (`catch_up`).
pub fn encode(call: &BrokerCall) -> Value {
    match call {
        BrokerCall::Delta {
            broker,
            partition,
            replicas,
            isr,
            leader,
            leader_epoch,
            partition_epoch,
            min_insync_replicas,
            now_ms,
        } => json!({"op":"broker_delta","broker":broker,"partition":partition,
            "replicas":replicas,"isr":isr,"leader":leader,"leader_epoch":leader_epoch,
            "partition_epoch":partition_epoch,"min_isr":min_insync_replicas,"now_ms":now_ms}),
        BrokerCall::Image {
            fenced,
            shutting_down,
        } => json!({"op":"broker_image","fenced":fenced,"shutting_down":shutting_down}),
        BrokerCall::Remove { broker, partition } => {
            json!({"op":"broker_remove","broker":broker,"partition":partition})
        }
        BrokerCall::Produce {
            partition,
            broker,
            records,
            acks,
            min_insync_replicas,
            now_ms,
        } => json!({"op":"broker_produce","partition":partition,"broker":broker,
            "records":records,"acks":acks_code(*acks),"min_isr":min_insync_replicas,
            "now_ms":now_ms}),
        BrokerCall::Fetch {
            partition,
            follower,
            leader,
            now_ms,
        } => fetch(*partition, *follower, *leader, *now_ms, false),
        BrokerCall::CatchUp {
            partition,
            follower,
            leader,
            now_ms,
        } => fetch(*partition, *follower, *leader, *now_ms, true),
        BrokerCall::Expire { now_ms, brokers } => {
            json!({"op":"broker_expire","now_ms":now_ms,"brokers":brokers})
        }
        BrokerCall::AlterAnswer { .. } => alter_answer(call),
        BrokerCall::Restart { broker, survives } => {
            json!({"op":"broker_restart","broker":broker,"survives":survives_name(*survives)})
        }
        BrokerCall::Flush { broker } => json!({"op":"broker_flush","broker":broker}),
        BrokerCall::TopicConfig {
            partition,
            min_insync_replicas,
        } => json!({"op":"broker_config","partition":partition,"min_isr":min_insync_replicas}),
        BrokerCall::DeleteRecords {
            partition,
            broker,
            offset,
        } => json!({"op":"broker_delete_records","partition":partition,"broker":broker,
            "offset":offset}),
    }
}

/// `broker_alter_answer`: the controller's answer to an AlterPartition, at the history's time.
fn alter_answer(call: &BrokerCall) -> Value {
    let BrokerCall::AlterAnswer {
        partition,
        broker,
        error,
        isr,
        leader_epoch,
        partition_epoch,
        asserted,
        now_ms,
        ..
    } = call
    else {
        unreachable!("an AlterPartition answer")
    };
    json!({"op":"broker_alter_answer","partition":partition,"broker":broker,
        "error":error,"isr":isr,"leader_epoch":leader_epoch,
        "partition_epoch":partition_epoch,"leader_recovery_state":0,"asserted":asserted,
        "now_ms":now_ms})
}

/// The produce request's `acks`: -1 for all, else 1.
pub(super) fn acks_code(acks: Acks) -> i32 {
    if acks == Acks::All {
        -1
    } else {
        1
    }
}

/// What a restart keeps, as the protocol names it.
pub(super) fn survives_name(survives: Option<Survives>) -> &'static str {
    match survives {
        None => "clean",
        Some(Survives::Flushed) => "flushed",
        Some(Survives::HighWatermark) => "hw",
    }
}

fn fetch(
    partition: usize,
    follower: BrokerId,
    leader: BrokerId,
    now_ms: i64,
    catch_up: bool,
) -> Value {
    let mut v = json!({"op":"broker_fetch","partition":partition,"follower":follower,
        "leader":leader,"now_ms":now_ms});
    if catch_up {
        // The driver fetches until the follower is at the leader's end.
        v["catch_up"] = json!(true);
    }
    v
}

/// The operations the brokers judge cannot take (`not_expressible`), by `op` name: a
/// generated `--brokers` campaign does not draw them, so that the brokers judge every
/// history it runs (the controller-only campaigns draw them).
pub const NOT_JUDGED_OPS: &[&str] = &[
    "unregister_broker",
    "create_partitions",
    "delete_topic",
    "assign_replica_dir",
    "log_dir_offline",
];

/// The first step the brokers judge cannot take, and why.
/// An unregistered broker leaves the metadata image: the real brokers' view of it (absent,
/// not fenced) is one the driver's image request cannot set.
/// The broker side names each partition as topic `t<n>`, partition 0: a topic of several
/// partitions or a deleted one (format 6) is not judged on the brokers yet, nor are log
/// directories (format 7).
/// Either way the real controller still judges the history (`conform_history`).
pub fn not_expressible(events: &[Event]) -> Option<(usize, String)> {
    let i = events.iter().position(|e| {
        matches!(e, Event::UnregisterBroker { .. }) || e.is_format_6() || e.is_format_7()
    })?;
    let why = match events[i] {
        Event::UnregisterBroker { .. } => {
            "unregisters a broker, which the brokers' metadata image cannot show"
        }
        Event::DeleteTopic { .. } => "deletes a topic, which the brokers judge does not follow yet",
        Event::AssignReplicaDir { .. } | Event::LogDirOffline { .. } => {
            "places a replica in a log directory or fails one: the brokers judge runs one directory per broker"
        }
        _ => "adds a partition to a topic, which the brokers judge does not follow yet",
    };
    Some((i, format!("step {i} {why}")))
}

/// The real brokers, sharing the driver's JVM with the controller judge.
pub struct Brokers<'a, 'd> {
    pub driver: &'a RefCell<&'d mut Driver>,
    /// The replicas of this history's last step answered with no fault: a step with no
    /// call is answered with them again, unsent. The driver would perform nothing, run no
    /// task and render the replicas it kept from that answer (a fault-free answer rendered
    /// every broker), so its answer is known; a quarter of the steps have no call.
    pub kept: Option<Vec<RealReplica>>,
}

impl<'a, 'd> Brokers<'a, 'd> {
    pub fn new(driver: &'a RefCell<&'d mut Driver>) -> Self {
        Brokers { driver, kept: None }
    }
}

impl Brokers<'_, '_> {
    fn send(&self, request: &Value) -> Result<BrokerAnswer, Error> {
        self.driver
            .borrow_mut()
            .exchange_as::<BrokerAnswer>(request)
    }
}

impl Judge for Brokers<'_, '_> {
    type Answer = BrokerStep;
    type Error = Error;

    fn cannot_express(&self, events: &[Event]) -> Option<(usize, String)> {
        not_expressible(events)
    }

    fn reset(&mut self, start: &Start) -> Result<(), Error> {
        let lag = start.config.replica_lag_time_max_ms;
        self.kept = None;
        let reset = json!({"op":"broker_reset","brokers":start.brokers,"lag_max_ms":lag});
        let answer = self.send(&reset)?;
        if answer.error == "NONE" {
            return Ok(());
        }
        Err(Error::Harness(format!(
            "the brokers' driver refused brokers {:?}: {} {}",
            start.brokers,
            answer.error,
            answer.fault.unwrap_or_default()
        )))
    }

    /// The step's calls as one `broker_batch` (see [`Brokers::request`]).
    fn step(&mut self, ask: &Ask) -> Result<BrokerStep, Error> {
        let request = self.request(ask);
        self.answer(request, false)
    }
}

impl Brokers<'_, '_> {
    /// The `broker_batch` a step sends: the driver performs the calls in order as the
    /// single ops do, decides what depends on the state between them (which proposal an
    /// asserted AlterPartition answers, when a catch-up is over, a DeleteRecords inside a
    /// batch), and renders the replicas once, after the step. None: the step has no call
    /// and its answer is known ([`Brokers::kept`]).
    pub fn request(&self, ask: &Ask) -> Option<Value> {
        if ask.calls.is_empty() && self.kept.is_some() {
            return None;
        }
        let calls: Vec<Value> = ask.calls.iter().map(encode).collect();
        Some(json!({"op":"broker_batch","calls":calls}))
    }

    /// The answer to the step's [`Brokers::request`], posted already when `posted`.
    pub fn answer(&mut self, request: Option<Value>, posted: bool) -> Result<BrokerStep, Error> {
        let Some(request) = request else {
            let replicas = self.kept.clone().unwrap_or_default();
            return Ok(BrokerStep {
                replicas,
                ..BrokerStep::default()
            });
        };
        let mut driver = self.driver.borrow_mut();
        if !posted {
            driver.post(&request);
        }
        let answer: BrokerAnswer = driver.answer_as()?;
        let Some(batch) = answer.batch else {
            return Err(Error::Harness(format!(
                "the brokers' driver did not take a step: {} {}",
                answer.error,
                answer.fault.unwrap_or_default()
            )));
        };
        let beyond_model = match batch.beyond_model.as_deref() {
            None => None,
            Some("mid_batch_delete") => Some(MID_BATCH_DELETE),
            Some("mid_batch_fetch") => Some(MID_BATCH_FETCH),
            Some("mid_batch_truncate") => Some(MID_BATCH_TRUNCATE),
            Some("recovery_below_log_start") => Some(RECOVERY_BELOW_START),
            Some(other) => {
                return Err(Error::Harness(format!(
                    "the brokers' driver stopped a step for a reason isrfuzz does not know: {other}"
                )))
            }
        };
        let fault = (batch.fault_text).map(|f| (batch.fault_at.max(0) as usize, f));
        self.kept = (fault.is_none() && beyond_model.is_none()).then(|| answer.replicas.clone());
        Ok(BrokerStep {
            sent: batch.sent,
            proposals: batch.proposals,
            asserted: batch.asserted,
            fault,
            replicas: answer.replicas,
            beyond_model,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the model's broker side tells a judge of real brokers on a small history: each
    /// replica applies the registration, the leader appends, the followers fetch, and the
    /// expiration task runs as time passes; an untapped run builds no call.
    #[test]
    fn the_model_tells_each_call_its_broker_side_makes() {
        use crate::check::history::History;
        use crate::check::judge::{drive, ModelJudge};
        use crate::model::Event;
        use crate::rules::RuleSet;
        let h = History::new(
            vec![1, 2, 3],
            vec![
                Event::create_classic(vec![1, 2, 3]),
                Event::Produce {
                    partition: 0,
                    records: 3,
                    acks: Acks::All,
                },
                Event::AdvanceTime { ms: 15_000 },
            ],
        );
        let rules = RuleSet::complete();
        let kinds = |tap: bool| {
            let mut model = ModelJudge::new(&rules, false, tap);
            let mut kinds = Vec::new();
            let _ = drive(&h, &mut model, |_, ask, step| {
                for call in &step.calls {
                    let op = encode(call)["op"].as_str().unwrap_or("").to_string();
                    kinds.push(format!("{}:{op}", ask.index));
                }
                std::ops::ControlFlow::Continue(())
            });
            kinds
        };
        let calls = kinds(true);
        let count = |k: &str| calls.iter().filter(|c| *c == k).count();
        assert_eq!(count("0:broker_delta"), 3, "{calls:?}");
        assert_eq!(count("1:broker_produce"), 1, "{calls:?}");
        assert!(count("2:broker_fetch") >= 2, "{calls:?}");
        assert_eq!(count("2:broker_expire"), 1, "{calls:?}");
        assert!(kinds(false).is_empty());
    }

    /// The brokers judge names the first step it cannot take: an unregistration, a new
    /// partition, a deletion; a history without one is taken whole.
    #[test]
    fn the_first_step_beyond_the_brokers_is_named() {
        use crate::model::Event;
        let create = Event::create_classic(vec![1, 2, 3]);
        let plain = [create.clone(), Event::FenceBroker { broker: 3 }];
        assert_eq!(not_expressible(&plain), None);
        let deleted = [
            create.clone(),
            create.clone(),
            Event::DeleteTopic { partition: 1 },
        ];
        let (step, why) = not_expressible(&deleted).expect("a deletion");
        assert_eq!((step, why.contains("deletes a topic")), (2, true), "{why}");
        let gone = [create, Event::UnregisterBroker { broker: 3 }];
        let (step, why) = not_expressible(&gone).expect("an unregistration");
        assert_eq!(
            (step, why.contains("unregisters a broker")),
            (1, true),
            "{why}"
        );
    }

    /// The metadata image reaches the judges when a registration changes, before that
    /// event's deltas, and only then (every event's sync tells one; the tap keeps changes).
    #[test]
    fn the_image_is_told_once_per_change_before_the_deltas() {
        use crate::check::history::History;
        use crate::check::judge::{drive, ModelJudge};
        use crate::model::Event;
        use crate::rules::RuleSet;
        let h = History::new(
            vec![1, 2, 3],
            vec![
                Event::create_classic(vec![1, 2, 3]),
                Event::FenceBroker { broker: 3 },
                Event::AdvanceTime { ms: 1_000 },
                Event::UnfenceBroker { broker: 3 },
            ],
        );
        let rules = RuleSet::complete();
        let mut model = ModelJudge::new(&rules, false, true);
        let mut told = Vec::new();
        let _ = drive(&h, &mut model, |_, ask, step| {
            for call in &step.calls {
                let v = encode(call);
                if v["op"] == "broker_image" {
                    told.push(format!("{}:{}", ask.index, v["fenced"]));
                } else if v["op"] == "broker_delta" && ask.index == 1 {
                    assert_eq!(told.last().map(String::as_str), Some("1:[3]"), "{told:?}");
                }
            }
            std::ops::ControlFlow::Continue(())
        });
        assert_eq!(told, ["1:[3]", "3:[]"]);
    }

    /// A generated `--brokers` campaign draws none of the operations the brokers judge
    /// cannot take, so it judges every history whole; without the mask the same seeds
    /// draw them (the mask is what keeps them out).
    #[test]
    fn generated_brokers_histories_are_judged_whole() {
        use crate::search::generate::{decode, Decode};
        use crate::search::rng::Rng;
        let (mut masked, mut unmasked) = (0, 0);
        let mut rng = Rng::new(7);
        let mut buf = Vec::new();
        for _ in 0..300 {
            rng.fill(&mut buf);
            let without = Decode {
                without: NOT_JUDGED_OPS,
                ..Decode::default()
            };
            masked += usize::from(not_expressible(&decode(&buf, without).events).is_some());
            unmasked +=
                usize::from(not_expressible(&decode(&buf, Decode::default()).events).is_some());
        }
        assert_eq!(masked, 0);
        assert!(
            unmasked > 100,
            "{unmasked} of 300 unmasked histories not judged whole"
        );
    }
}
