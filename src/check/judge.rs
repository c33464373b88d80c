//! One interface for every judge of a history, and the one loop that runs any of them.
//!
//! A judge is reset to a history's start, takes the history one step at a time, and
//! answers each step. The model under one rule set is a judge ([`ModelJudge`]); so is the
//! oracle's two-sided run (`check::lockstep`); above this layer, the real controller over
//! a JVM (`conform`) answers the requests the model made at each step, and the real
//! brokers will answer the broker steps. [`drive`] is the loop every caller goes
//! through: the oracle, the focused run minimization uses, conformance, the benchmarks.
//!
//! "This judge cannot express that step" is an answer of its own
//! ([`Judge::cannot_express`]), asked of the whole history before the run starts, so one
//! a judge cannot take is counted with its reason and never half-run (as wasmtime's
//! differential engines answer `Ok(None)` for what they cannot evaluate).
//!
//! After cedar-spec's differential harness: each implementation behind one trait, one
//! shared loop.

use crate::check::history::History;
use crate::model::broker::BrokerCall;
use crate::model::log::Log;
use crate::model::request::{Exchange, RequestTap};
use crate::model::{
    apply, AlterPlan, AtSealAnswer, BrokerConfig, BrokerId, Cluster, Event, Outcome, Partition,
    ReplicaState, Rules,
};
use crate::rules::RuleSet;
use std::cell::RefCell;
use std::ops::ControlFlow;

/// Where every run of a history starts: its brokers, all registered and active, their
/// configuration, and whether eligible leader replicas are on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Start<'a> {
    pub brokers: &'a [BrokerId],
    pub config: BrokerConfig,
    pub elr: bool,
}

impl Start<'_> {
    pub fn of(history: &History) -> Start<'_> {
        Start {
            brokers: &history.brokers,
            config: history.broker_config,
            elr: history.eligible_leader_replicas,
        }
    }

    /// The model's cluster at the start: the one place a run's first state is built.
    pub fn cluster(&self) -> Cluster {
        Cluster::new(self.brokers, self.config).with_elr(self.elr)
    }
}

/// One step put to a judge.
#[derive(Clone, Copy, Debug)]
pub struct Ask<'a> {
    /// Index into the history's events.
    pub index: usize,
    pub event: &'a Event,
    /// The controller requests the reference judge (the model) made at this step, each
    /// with the model's answer: what a judge of the real controller is asked. Empty for
    /// the reference itself.
    pub requests: &'a [Exchange],
    /// The calls the reference's broker side made on brokers at this step: what a judge
    /// of real brokers is asked. Empty for the reference itself.
    pub calls: &'a [BrokerCall],
}

/// A judge of histories (see the module docs).
pub trait Judge {
    /// What it says about one step.
    type Answer;
    /// Why it could not go on: a harness failure (a process that died or stalled), never
    /// a verdict on the history.
    type Error;

    /// The first step of `events` this judge cannot express, and why; `None` when it can
    /// take them all. Asked of the whole history before the run starts.
    fn cannot_express(&self, events: &[Event]) -> Option<(usize, String)> {
        let _ = events;
        None
    }

    /// Back to a history's start.
    fn reset(&mut self, start: &Start) -> Result<(), Self::Error>;

    /// Take one step and answer it.
    fn step(&mut self, ask: &Ask) -> Result<Self::Answer, Self::Error>;
}

/// How a driven run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ended {
    /// Every step was taken (`steps` = the history's length), or the caller stopped after
    /// step `steps - 1`.
    Ran { steps: usize },
    /// A judge cannot express step `step`: no step was taken.
    CannotExpress { step: usize, why: String },
}

/// The one run loop: reset `judge` to the history's start, then put each step to it and
/// hand the answer to `each`, which may stop the run (a violation found, a disagreement).
pub fn drive<J: Judge>(
    history: &History,
    judge: &mut J,
    mut each: impl FnMut(&mut J, &Ask, J::Answer) -> ControlFlow<()>,
) -> Result<Ended, J::Error> {
    let events = &history.events;
    if let Some((step, why)) = judge.cannot_express(events) {
        return Ok(Ended::CannotExpress { step, why });
    }
    judge.reset(&Start::of(history))?;
    for (index, event) in events.iter().enumerate() {
        let ask = Ask {
            index,
            event,
            requests: &[],
            calls: &[],
        };
        let answer = judge.step(&ask)?;
        if each(judge, &ask, answer).is_break() {
            return Ok(Ended::Ran { steps: index + 1 });
        }
    }
    Ok(Ended::Ran {
        steps: events.len(),
    })
}

/// What a reference judge's answer hands the second judge of a [`Pair`].
pub trait Reference {
    /// The controller requests the reference made at the step.
    fn requests(&self) -> &[Exchange];
    /// The calls its broker side made on brokers at the step.
    fn calls(&self) -> &[BrokerCall];
}

/// A pair's answer hands on its first judge's.
impl<A: Reference, B> Reference for (A, B) {
    fn requests(&self) -> &[Exchange] {
        self.0.requests()
    }
    fn calls(&self) -> &[BrokerCall] {
        self.0.calls()
    }
}

/// Two judges stepped together: the first, the reference (the model), takes each step,
/// and the second is asked the same step with the requests the first made.
pub struct Pair<A, B> {
    pub first: A,
    pub second: B,
}

impl<A, B> Judge for Pair<A, B>
where
    A: Judge,
    A::Answer: Reference,
    B: Judge,
    B::Error: From<A::Error>,
{
    type Answer = (A::Answer, B::Answer);
    type Error = B::Error;

    fn cannot_express(&self, events: &[Event]) -> Option<(usize, String)> {
        (self.first.cannot_express(events)).or_else(|| self.second.cannot_express(events))
    }

    fn reset(&mut self, start: &Start) -> Result<(), B::Error> {
        self.first.reset(start)?;
        self.second.reset(start)
    }

    fn step(&mut self, ask: &Ask) -> Result<Self::Answer, B::Error> {
        let first = self.first.step(ask)?;
        let second = self.second.step(&Ask {
            requests: first.requests(),
            calls: first.calls(),
            ..*ask
        })?;
        Ok((first, second))
    }
}

/// The model under one rule set, as a judge. It keeps the state before each step only
/// when asked to (what reads it: the step invariants that compare, the vacuity counters),
/// and the controller requests it makes only when tapped.
pub struct ModelJudge<'r> {
    rules: Tapped<'r>,
    state: Cluster,
    prev: Option<Cluster>,
}

/// The model's answer to a step.
#[derive(Clone, Debug)]
pub struct ModelStep {
    pub outcome: Outcome,
    /// The controller requests made at the step (tapped judges only).
    pub requests: Vec<Exchange>,
    /// The calls on brokers made at the step (tapped judges only).
    pub calls: Vec<BrokerCall>,
}

impl Reference for ModelStep {
    fn requests(&self) -> &[Exchange] {
        &self.requests
    }
    fn calls(&self) -> &[BrokerCall] {
        &self.calls
    }
}

impl<'r> ModelJudge<'r> {
    /// `keep_prev`: keep the state before each step; `tap`: record each step's requests.
    pub fn new(rules: &'r RuleSet, keep_prev: bool, tap: bool) -> ModelJudge<'r> {
        ModelJudge {
            rules: Tapped {
                rules,
                log: tap.then(|| RefCell::new(Vec::new())),
                calls: RefCell::new(Vec::new()),
                image: RefCell::new(BrokerCall::EVERY_BROKER_UP),
            },
            state: Cluster::default(),
            prev: keep_prev.then(Cluster::default),
        }
    }

    /// The state after the steps taken.
    pub fn state(&self) -> &Cluster {
        &self.state
    }

    /// The state before the last step (`None` unless kept).
    pub fn prev(&self) -> Option<&Cluster> {
        self.prev.as_ref()
    }

    /// The state, for a caller that judges the real system's answer on it.
    pub fn into_state(self) -> Cluster {
        self.state
    }
}

impl Judge for ModelJudge<'_> {
    type Answer = ModelStep;
    type Error = std::convert::Infallible;

    fn reset(&mut self, start: &Start) -> Result<(), Self::Error> {
        self.state = start.cluster();
        if let Some(prev) = &mut self.prev {
            prev.clone_from(&self.state);
        }
        self.rules.image.replace(BrokerCall::EVERY_BROKER_UP);
        Ok(())
    }

    fn step(&mut self, ask: &Ask) -> Result<ModelStep, Self::Error> {
        if let Some(prev) = &mut self.prev {
            prev.clone_from(&self.state);
        }
        let outcome = apply(&mut self.state, ask.event, &self.rules);
        let requests = match &self.rules.log {
            Some(log) => std::mem::take(&mut *log.borrow_mut()),
            None => Vec::new(),
        };
        let calls = std::mem::take(&mut *self.rules.calls.borrow_mut());
        Ok(ModelStep {
            outcome,
            requests,
            calls,
        })
    }
}

/// The rule set with a tap that keeps every exchange of the current step (when `log` is
/// there; untapped, the model is asked no tap and records nothing).
struct Tapped<'a> {
    rules: &'a RuleSet,
    log: Option<RefCell<Vec<Exchange>>>,
    /// Filled only when tapped (`log` there): untapped, no call is built.
    calls: RefCell<Vec<BrokerCall>>,
    /// The last metadata image kept: the broker side tells one before every event's
    /// deltas, and only a change reaches the judges (a history starts with every broker
    /// registered and unfenced, as the real brokers' reset does).
    image: RefCell<BrokerCall>,
}

impl RequestTap for Tapped<'_> {
    fn record(&self, exchange: Exchange) {
        if let Some(log) = &self.log {
            log.borrow_mut().push(exchange);
        }
    }
    fn broker_call(&self, call: BrokerCall) {
        if matches!(call, BrokerCall::Image { .. }) {
            if *self.image.borrow() == call {
                return;
            }
            self.image.replace(call.clone());
        }
        self.calls.borrow_mut().push(call);
    }
}

/// `Rules` for `Tapped`: every hook forwards to the rule set; `tap` is the log.
macro_rules! tapped_hooks {
    ($($hook:ident($($arg:ident: $ty:ty),*) -> $ret:ty;)*) => {
        impl Rules for Tapped<'_> {
            $(fn $hook(&self, $($arg: $ty),*) -> $ret {
                Rules::$hook(self.rules, $($arg),*)
            })*
            fn tap(&self) -> Option<&dyn RequestTap> {
                self.log.as_ref().map(|_| self as &dyn RequestTap)
            }
        }
    };
}

crate::model::with_rule_hooks!(tapped_hooks);

#[cfg(test)]
mod tests {
    use super::*;

    /// A judge that cannot express `AdvanceTime`, to show the loop asks before it runs.
    struct NoTime(usize);

    impl Judge for NoTime {
        type Answer = ();
        type Error = ();
        fn cannot_express(&self, events: &[Event]) -> Option<(usize, String)> {
            let at = |e: &Event| matches!(e, Event::AdvanceTime { .. });
            Some((events.iter().position(at)?, "no clock".to_string()))
        }
        fn reset(&mut self, _: &Start) -> Result<(), ()> {
            Ok(())
        }
        fn step(&mut self, _: &Ask) -> Result<(), ()> {
            self.0 += 1;
            Ok(())
        }
    }

    fn history(events: Vec<Event>) -> History {
        History::new(vec![1, 2, 3], events)
    }

    #[test]
    fn a_step_a_judge_cannot_express_stops_the_run_before_it_starts() {
        let h = history(vec![
            Event::create_classic(vec![1, 2, 3]),
            Event::AdvanceTime { ms: 10 },
        ]);
        let mut judge = NoTime(0);
        let ended = drive(&h, &mut judge, |_, _, _| ControlFlow::Continue(()));
        let why = "no clock".to_string();
        assert_eq!(ended, Ok(Ended::CannotExpress { step: 1, why }));
        assert_eq!(judge.0, 0, "no step taken");
    }

    #[test]
    fn the_caller_stops_the_run_and_the_model_judge_keeps_what_it_was_asked_to() {
        let h = history(vec![
            Event::create_classic(vec![1, 2, 3]),
            Event::FenceBroker { broker: 3 },
            Event::UnfenceBroker { broker: 3 },
        ]);
        let rules = RuleSet::complete();
        let mut judge = ModelJudge::new(&rules, true, true);
        let mut requests = 0;
        let ended = drive(&h, &mut judge, |j, ask, step| {
            requests += step.requests.len();
            assert_ne!(
                j.prev(),
                Some(j.state()),
                "every step here changes the state"
            );
            if ask.index == 1 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        assert_eq!(ended, Ok(Ended::Ran { steps: 2 }));
        assert_eq!(requests, 2, "a creation and a fencing, each one request");
        let untapped = &mut ModelJudge::new(&rules, false, false);
        drive(&h, untapped, |j, _, step| {
            assert!(step.requests.is_empty() && j.prev().is_none());
            ControlFlow::Continue(())
        })
        .unwrap();
    }

    /// A second judge that records the requests it is asked and refuses `AdvanceTime`.
    #[derive(Default)]
    struct Echo {
        resets: usize,
        asked: Vec<(usize, usize)>,
    }

    impl Judge for Echo {
        type Answer = usize;
        type Error = std::convert::Infallible;
        fn cannot_express(&self, events: &[Event]) -> Option<(usize, String)> {
            NoTime(0).cannot_express(events)
        }
        fn reset(&mut self, _: &Start) -> Result<(), Self::Error> {
            self.resets += 1;
            Ok(())
        }
        fn step(&mut self, ask: &Ask) -> Result<usize, Self::Error> {
            self.asked.push((ask.index, ask.requests.len()));
            Ok(ask.requests.len())
        }
    }

    #[test]
    fn a_pair_asks_the_second_judge_the_requests_the_first_made() {
        let h = history(vec![
            Event::create_classic(vec![1, 2, 3]),
            Event::ListReassignments,
            Event::FenceBroker { broker: 2 },
        ]);
        let rules = RuleSet::complete();
        let mut pair = Pair {
            first: ModelJudge::new(&rules, false, true),
            second: Echo::default(),
        };
        let mut made = Vec::new();
        let ended = drive(&h, &mut pair, |_, ask, (model, echoed)| {
            assert_eq!(model.requests.len(), echoed);
            made.push((ask.index, model.requests.len()));
            ControlFlow::Continue(())
        });
        assert_eq!(ended, Ok(Ended::Ran { steps: 3 }));
        assert_eq!(pair.second.asked, made);
        assert!(
            made.iter().all(|&(_, n)| n == 1),
            "one request a step: {made:?}"
        );
        let mut timed = h.clone();
        timed.events.push(Event::AdvanceTime { ms: 1 });
        let fresh = &mut Pair {
            first: ModelJudge::new(&rules, false, true),
            second: Echo::default(),
        };
        let ended = drive(&timed, fresh, |_, _, _| ControlFlow::Continue(()));
        let why = "no clock".to_string();
        assert_eq!(ended, Ok(Ended::CannotExpress { step: 3, why }));
        assert_eq!(fresh.second.resets, 0, "neither judge was reset");
    }
}
