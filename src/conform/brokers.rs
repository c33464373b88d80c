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
use crate::model::{Acks, BrokerId, Survives};
use serde::Deserialize;
use serde_json::{json, Value};
use std::cell::RefCell;

pub use super::replicas::{
    class_of, differences, inside_a_batch, BrokerStep, Proposal, RealReplica, MID_BATCH_DELETE,
};

/// Fetch rounds a catch-up may take before the judge says the follower did not catch up
/// (each round moves at least one batch, and histories append a few batches).
const CATCH_UP_ROUNDS_MAX: usize = 64;

/// The leader's answer to one fetch round, and the follower after it.
#[derive(Clone, PartialEq, Eq, Debug, Deserialize)]
pub struct FetchAnswer {
    pub error: String,
    pub diverging_epoch: i32,
    pub diverging_end_offset: i64,
    pub records: i64,
    pub hw: i64,
    pub log_start: i64,
}

/// One answer line of a `broker_*` op.
#[derive(Clone, Debug, Deserialize)]
pub struct BrokerAnswer {
    pub error: String,
    #[serde(default)]
    pub fault: Option<String>,
    #[serde(default)]
    pub fetch: Option<FetchAnswer>,
    #[serde(default)]
    pub proposals: Vec<Proposal>,
    #[serde(default)]
    pub replicas: Vec<RealReplica>,
}

/// The driver's JSON line for one call; a catch-up is sent as fetch rounds.
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
        } => {
            let acks = if *acks == Acks::All { -1 } else { 1 };
            json!({"op":"broker_produce","partition":partition,"broker":broker,
                "records":records,"acks":acks,"min_isr":min_insync_replicas})
        }
        BrokerCall::Fetch {
            partition,
            follower,
            leader,
            now_ms,
        } => fetch(*partition, *follower, *leader, Some(*now_ms)),
        BrokerCall::CatchUp {
            partition,
            follower,
            leader,
        } => fetch(*partition, *follower, *leader, None),
        BrokerCall::Expire { now_ms, brokers } => {
            json!({"op":"broker_expire","now_ms":now_ms,"brokers":brokers})
        }
        BrokerCall::AlterAnswer {
            partition,
            broker,
            error,
            isr,
            leader_epoch,
            partition_epoch,
            ..
        } => json!({"op":"broker_alter_answer","partition":partition,"broker":broker,
            "error":error,"isr":isr,"leader_epoch":leader_epoch,
            "partition_epoch":partition_epoch,"leader_recovery_state":0}),
        BrokerCall::Restart { broker, survives } => {
            json!({"op":"broker_restart","broker":broker,"survives":survives_name(*survives)})
        }
        BrokerCall::Flush { broker } => json!({"op":"broker_flush","broker":broker}),
        BrokerCall::DeleteRecords {
            partition,
            broker,
            offset,
        } => json!({"op":"broker_delete_records","partition":partition,"broker":broker,
            "offset":offset}),
    }
}

/// What a restart keeps, as the protocol names it.
fn survives_name(survives: Option<Survives>) -> &'static str {
    match survives {
        None => "clean",
        Some(Survives::Flushed) => "flushed",
        Some(Survives::HighWatermark) => "hw",
    }
}

fn fetch(partition: usize, follower: BrokerId, leader: BrokerId, now_ms: Option<i64>) -> Value {
    let mut v = json!({"op":"broker_fetch","partition":partition,"follower":follower,
        "leader":leader});
    if let Some(now) = now_ms {
        v["now_ms"] = json!(now);
    }
    v
}

/// The real brokers, sharing the driver's JVM with the controller judge.
pub struct Brokers<'a, 'd> {
    pub driver: &'a RefCell<&'d mut Driver>,
    /// The replicas as the last answer had them.
    pub last: Vec<RealReplica>,
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

    fn reset(&mut self, start: &Start) -> Result<(), Error> {
        let lag = start.config.replica_lag_time_max_ms;
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

    fn step(&mut self, ask: &Ask) -> Result<BrokerStep, Error> {
        let mut out = BrokerStep::default();
        let mut last: Option<Vec<RealReplica>> = None;
        // The proposals of this step not answered yet, by index into `out.proposals`.
        let mut outstanding: Vec<usize> = Vec::new();
        for (i, call) in ask.calls.iter().enumerate() {
            if !match_answer(call, &mut out, &mut outstanding) {
                continue;
            }
            if let BrokerCall::DeleteRecords {
                partition,
                broker,
                offset,
            } = *call
            {
                let now = last.as_deref().unwrap_or(&self.last);
                if inside_a_batch(now, partition, broker, offset) {
                    out.beyond_model = Some(MID_BATCH_DELETE);
                    out.replicas = now.to_vec();
                    return Ok(out);
                }
            }
            let rounds = match call {
                BrokerCall::CatchUp { .. } => CATCH_UP_ROUNDS_MAX,
                _ => 1,
            };
            let request = encode(call);
            for _ in 0..rounds {
                let answer = self.send(&request)?;
                out.sent += 1;
                outstanding
                    .extend(out.proposals.len()..out.proposals.len() + answer.proposals.len());
                out.proposals.extend(answer.proposals.iter().cloned());
                // A request the driver could not take is a fault too: the model asked for
                // something the real brokers' state does not allow.
                let fault = match (answer.error.as_str(), &answer.fault) {
                    ("DRIVER", f) => Some(format!("DRIVER {}", f.clone().unwrap_or_default())),
                    (_, f) => f.clone(),
                };
                if let (None, Some(fault)) = (&out.fault, fault) {
                    out.fault = Some((i, fault));
                }
                let done = caught_up(call, &answer);
                last = Some(answer.replicas);
                if done {
                    break;
                }
            }
        }
        out.replicas = match last {
            Some(r) => r,
            None => self.send(&json!({"op":"broker_state"}))?.replicas,
        };
        self.last.clone_from(&out.replicas);
        Ok(out)
    }
}

/// Before an AlterPartition's answer is sent: take the outstanding proposal it answers.
/// False when the call is not to be sent: a history's own AlterPartition that no real
/// Partition proposed has no future to complete.
fn match_answer(call: &BrokerCall, out: &mut BrokerStep, outstanding: &mut Vec<usize>) -> bool {
    let BrokerCall::AlterAnswer {
        partition,
        broker,
        asserted,
        ..
    } = call
    else {
        return true;
    };
    let at = (outstanding.iter()).position(|&k| {
        let p = &out.proposals[k];
        p.partition == *partition && p.broker == *broker
    });
    match at {
        Some(at) => {
            let k = outstanding.remove(at);
            if *asserted {
                // The history's own AlterPartition: what the real Partition proposed on the
                // catch-up is that request, not one of its own.
                out.asserted.push(out.proposals[k].clone());
            }
            true
        }
        None => !*asserted,
    }
}

/// Whether a call's rounds are over: every call but a catch-up takes one; a catch-up ends
/// once a round fetched at the leader's end (the follower's log reaches it and the answer
/// moved no record: the leader has recorded the follower there, as it had when it sent the
/// expansion the history asserts), or a round gets an error it does not fetch on from.
fn caught_up(call: &BrokerCall, answer: &BrokerAnswer) -> bool {
    let BrokerCall::CatchUp {
        partition,
        follower,
        leader,
    } = call
    else {
        return true;
    };
    let leo = |b: BrokerId| {
        (answer.replicas.iter())
            .find(|r| r.broker == b && r.partition == *partition)
            .map_or(0, |r| r.leo)
    };
    // OFFSET_OUT_OF_RANGE is not the end: the fetcher has reset its offset and fetches on
    // (`fetchOffsetAndTruncate`). A diverging epoch is not recorded by the leader
    // (`Partition.fetchRecords` updates the follower's state only without one).
    let stuck = (answer.fetch.as_ref())
        .is_none_or(|f| f.error != "NONE" && f.error != "OFFSET_OUT_OF_RANGE");
    let at_end = (answer.fetch.as_ref())
        .is_some_and(|f| f.error == "NONE" && f.records == 0 && f.diverging_epoch < 0);
    (leo(*follower) >= leo(*leader) && at_end) || stuck
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
}
