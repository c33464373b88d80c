//! One history judged by the real controller: the model runs it under the release's
//! preset with a tap on its controller requests, each request goes to the driver, and the
//! two answers are compared after every request. The first difference ends the run.
//! While they agree, the model's state *is* the real controller's (every compared field),
//! so a control-plane violation found then is shown by that release; at the differing
//! request, the real registrations are judged themselves.

use super::brokers::{
    class_of as broker_class, differences as broker_differences, not_expressible, BrokerStep,
    Brokers,
};
use super::driver::Driver;
use super::protocol::{class_of, differences, encode, Answer, Registration};
use super::release::Release;
use crate::check::history::History;
use crate::check::invariants::{is_control_plane, step_violations, StepView};
use crate::check::judge::{drive, Ask, Ended, Judge, ModelJudge, ModelStep, Pair, Start};
use crate::error::Error;
use crate::model::broker::BrokerCall;
use crate::model::request::{Exchange, Request};
use crate::model::{BrokerId, BrokerState, Cluster, Event, IdList, LeaderRecoveryState, Partition};
use crate::rules::RuleSet;
use serde_json::json;
use std::cell::RefCell;
use std::ops::ControlFlow;

/// Why a history is not replayed: the real controller has no request for one of its
/// events (Inkless topics and switches live in aiven/inkless, not in these jars).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Skip(pub String);

impl Skip {
    /// The reason without the step it names, for counting skips by reason: every Inkless
    /// event is one reason, whichever it is.
    pub fn kind(&self) -> String {
        if self.0.contains("Inkless-only") {
            return "Inkless-only events".into();
        }
        let without_step = (self.0.strip_prefix("step "))
            .and_then(|t| t.split_once(' '))
            .map_or(self.0.as_str(), |(_, reason)| reason);
        without_step.to_string()
    }
}

/// The first request where the real controller answered otherwise, or the first step
/// after which the real brokers' replicas differ from the model's.
#[derive(Clone, Debug)]
pub struct Disagreement {
    /// The history event whose request differed (0-based).
    pub step: usize,
    pub what: Differed,
    pub differences: Vec<String>,
    /// `error`, `fault`, or the differing fields (`isr+partition_epoch`); for the
    /// brokers, `broker:` and the differing replica fields (`broker:hw+leo`).
    pub class: String,
}

/// Which real judge differed, with what it was asked.
#[derive(Clone, Debug)]
pub enum Differed {
    /// The controller, on one request.
    Controller {
        request: Request,
        model: Exchange,
        real: Answer,
    },
    /// The brokers, after the step's calls.
    Brokers { calls: Vec<BrokerCall> },
}

/// What replaying one history showed.
#[derive(Clone, Debug, Default)]
pub struct Conformance {
    /// Requests sent to the real controller and compared.
    pub requests: usize,
    /// Requests the model says no upstream controller receives in that state (not sent).
    pub not_upstream: usize,
    /// Calls performed on the real brokers (when they are judged).
    pub broker_calls: usize,
    /// Steps after which the real replicas were compared with the model's.
    pub broker_steps: usize,
    /// Why the judging stopped before the history's end without a disagreement: a step
    /// asked the real brokers for something the model leaves out (the steps before it were
    /// compared).
    pub stopped: Option<&'static str>,
    pub disagreement: Option<Disagreement>,
    /// Why the real brokers did not judge this history although asked (`--brokers`): the
    /// real controller judged it alone. The reason without its step ([`Skip::kind`]).
    pub brokers_not_judged: Option<String>,
    /// Control-plane violations on the real controller's states: (invariant, step, detail),
    /// the first of each invariant.
    pub shown: Vec<(&'static str, usize, String)>,
    /// Steps of an Inkless history not judged (from its first Inkless-only step on), each
    /// as its one-line reason.
    pub unjudged: Vec<String>,
}

/// An event only Inkless has ([`Event::is_inkless_only`]).
fn is_inkless(e: &Event) -> bool {
    e.is_inkless_only()
}

/// The part of `history` a release judges, and why each step after it is not: an Inkless
/// history is judged up to its first Inkless-only step (a switch, a seal, a diskless or
/// remote-storage topic). From there the model's state has no Apache Kafka counterpart,
/// so the classic steps after it are not judged either. A history that starts with one
/// is not cut (nothing would be judged): it is skipped whole, as before.
pub fn judged_part(history: &History) -> (std::borrow::Cow<'_, History>, Vec<String>) {
    let Some(i) = (history.events.iter().position(is_inkless)).filter(|&i| i > 0) else {
        return (std::borrow::Cow::Borrowed(history), Vec::new());
    };
    let mut h = history.clone();
    let rest = h.events.split_off(i);
    let first = rest[0].op();
    let why = |e: &Event| match is_inkless(e) {
        true => format!("{}: Inkless-only, no Apache Kafka release has it", e.op()),
        false => format!("{}: after an Inkless-only step ({first})", e.op()),
    };
    let reasons = rest.iter().map(why).collect();
    (std::borrow::Cow::Owned(h), reasons)
}

/// Every event of `history` is one the release's controller can take (or the model's
/// broker side answers alone), else why not.
pub fn check_expressible(history: &History, release: &Release) -> Result<(), Skip> {
    check_expressible_events(&history.events, release).map_err(|(_, skip)| skip)
}

/// `check_expressible` on a list of events; the step that cannot be taken with the reason.
fn check_expressible_events(events: &[Event], release: &Release) -> Result<(), (usize, Skip)> {
    if let Some(i) = events.iter().position(is_inkless) {
        let op = events[i].op();
        return Err((i, Skip(format!("step {i} ({op}) is Inkless-only"))));
    }
    let keeps_rf = |e: &Event| {
        matches!(
            e,
            Event::Reassign {
                allow_replication_factor_change: false,
                ..
            }
        )
    };
    match events.iter().position(keeps_rf) {
        Some(i) if !release.rf_change_flag => Err((
            i,
            Skip(format!(
                "step {i} asks allowReplicationFactorChange=false, which Kafka {} cannot carry",
                release.version
            )),
        )),
        _ => Ok(()),
    }
}

/// The history as the release can take it: switch events dropped, topics classic, and
/// before 4.1 every reassignment allowing a replication-factor change. Generated histories
/// draw from one operation table for both families and every release.
pub fn expressible(history: &History, release: &Release) -> History {
    let mut h = history.clone();
    h.events
        .retain(|e| !is_inkless(e) || matches!(e, Event::CreatePartition { .. }));
    for e in &mut h.events {
        match e {
            Event::CreatePartition {
                diskless,
                remote_storage,
                ..
            } => {
                *diskless = false;
                *remote_storage = false;
            }
            Event::Reassign {
                allow_replication_factor_change,
                ..
            } if !release.rf_change_flag => *allow_replication_factor_change = true,
            _ => {}
        }
    }
    h
}

/// The controller requests the model makes on `history` under `rules`, each with the
/// step that made it and the model's answer: what `conform_history` sends, without a JVM.
pub fn model_requests(history: &History, rules: &RuleSet) -> Vec<(usize, Exchange)> {
    model_run(history, rules).0
}

/// `model_requests` with the model's state around every step: `states[0]` is the starting
/// cluster and `states[i + 1]` the one step `i` left (what a reproducer's assertion reads
/// its original and target replicas from).
pub fn model_run(history: &History, rules: &RuleSet) -> (Vec<(usize, Exchange)>, Vec<Cluster>) {
    let mut model = ModelJudge::new(rules, false, true);
    let (mut out, mut states) = (Vec::new(), vec![Start::of(history).cluster()]);
    let Ok(_) = drive(history, &mut model, |model, ask, step| {
        out.extend(step.requests.into_iter().map(|e| (ask.index, e)));
        states.push(model.state().clone());
        ControlFlow::Continue(())
    });
    (out, states)
}

/// The calls the model's broker side makes at each step of `history` under `rules`, and
/// the model's states (the start, then one after each step), for a brokers reproducer.
pub fn model_calls(history: &History, rules: &RuleSet) -> (Vec<Vec<BrokerCall>>, Vec<Cluster>) {
    let mut model = ModelJudge::new(rules, false, true);
    let (mut out, mut states) = (Vec::new(), vec![Start::of(history).cluster()]);
    let Ok(_) = drive(history, &mut model, |model, _ask, step| {
        out.push(step.calls);
        states.push(model.state().clone());
        ControlFlow::Continue(())
    });
    (out, states)
}

/// The real controller of one release, as a judge: at each step it is sent the
/// controller requests the model made, in order, until the first whose answer differs
/// from the model's (a real controller cannot be rewound: the run ends there).
pub struct Controller<'a, 'd> {
    pub driver: &'a RefCell<&'d mut Driver>,
}

/// The real controller's answer to one step.
#[derive(Clone, Debug, Default)]
pub struct ControllerStep {
    /// Requests sent and compared.
    pub sent: usize,
    /// Requests the model says no upstream controller receives in that state (not sent).
    pub not_upstream: usize,
    /// The first request answered otherwise: the model's exchange, the real answer, and
    /// the fields that differ.
    pub differing: Option<(Exchange, Answer, Vec<String>)>,
}

impl Judge for Controller<'_, '_> {
    type Answer = ControllerStep;
    type Error = Error;

    fn cannot_express(&self, events: &[Event]) -> Option<(usize, String)> {
        check_expressible_events(events, &self.driver.borrow().release)
            .err()
            .map(|(step, Skip(why))| (step, why))
    }

    fn reset(&mut self, start: &Start) -> Result<(), Error> {
        let reset = json!({"op":"reset","brokers":start.brokers,"elr":start.elr});
        let answer = self.driver.borrow_mut().exchange(&reset)?;
        if answer.error == "NONE" {
            return Ok(());
        }
        Err(Error::Harness(format!(
            "the Kafka {} driver refused the cluster of brokers {:?}: {} {}",
            self.driver.borrow().release.version,
            start.brokers,
            answer.error,
            answer.fault.unwrap_or_default()
        )))
    }

    fn step(&mut self, ask: &Ask) -> Result<ControllerStep, Error> {
        Ok(self.step_then(ask, None)?.0)
    }
}

impl Controller<'_, '_> {
    /// The step, with `then` posted right behind its last request (before that answer is
    /// read), when it gets that far: the JVM receives what it would have received next
    /// anyway, in the same order. True when `then` was posted (its answer is still to
    /// be read).
    pub fn step_then(
        &mut self,
        ask: &Ask,
        then: Option<&serde_json::Value>,
    ) -> Result<(ControllerStep, bool), Error> {
        let mut out = ControllerStep::default();
        let last = ask.requests.iter().rposition(|m| !m.not_upstream);
        let mut posted = false;
        for (i, model) in ask.requests.iter().enumerate() {
            if model.not_upstream {
                out.not_upstream += 1;
                continue;
            }
            let request = encode(&model.request).map_err(|why| {
                let step = ask.index;
                Error::Usage(format!(
                    "step {step}: the real controller has no request for {why}"
                ))
            })?;
            let mut driver = self.driver.borrow_mut();
            driver.post(&request);
            if let (true, Some(then)) = (last == Some(i), then) {
                driver.post(then);
                posted = true;
            }
            let real: Answer = driver.answer_as()?;
            out.sent += 1;
            let differences = differences(model, &real);
            if !differences.is_empty() {
                out.differing = Some((model.clone(), real, differences));
                break;
            }
        }
        Ok((out, posted))
    }
}

/// Replay `history` under `rules` against the driver's release: the model and the real
/// controller as a pair of judges, every request compared, the control-plane invariants
/// judged on the real controller's states. With `brokers`, the real brokers are a third
/// judge: the calls the model's broker side made are performed on them, and every replica
/// is compared after each step.
pub fn conform_history(
    history: &History,
    rules: &RuleSet,
    driver: &mut Driver,
    brokers: bool,
) -> Result<Result<Conformance, Skip>, Error> {
    let (judged, unjudged) = judged_part(history);
    let history: &History = &judged;
    let driver = RefCell::new(driver);
    let model_judge = ModelJudge::new(rules, true, true);
    let controller = Controller { driver: &driver };
    let mut result = Conformance::default();
    // A history the brokers cannot take is still one the controller can.
    let brokers_not_judged = (brokers.then(|| not_expressible(&history.events)).flatten())
        .map(|(_, why)| Skip(why).kind());
    let ended = if brokers && brokers_not_judged.is_none() {
        let brokers = Brokers::new(&driver);
        let second = RealSide {
            controller,
            brokers,
        };
        let mut judges = Pair {
            first: model_judge,
            second,
        };
        drive(history, &mut judges, |judges, ask, (model, real)| {
            judge_brokers_step(&judges.first, rules, ask, model, real, &mut result)
        })?
    } else {
        let mut pair = Pair {
            first: model_judge,
            second: controller,
        };
        drive(history, &mut pair, |pair, ask, (model, real)| {
            let planes = Planes::Control;
            judge_step(&pair.first, rules, ask, &model, real, planes, &mut result)
        })?
    };
    match ended {
        Ended::CannotExpress { why, .. } => Ok(Err(Skip(why))),
        Ended::Ran { .. } => Ok(Ok(Conformance {
            unjudged,
            brokers_not_judged,
            ..result
        })),
    }
}

/// One step of the model, the real controller and the real brokers: the brokers' calls
/// counted, every replica compared, the invariants judged (the data plane's only while
/// the replicas are the model's).
fn judge_brokers_step(
    model_judge: &ModelJudge,
    rules: &RuleSet,
    ask: &Ask,
    model: ModelStep,
    (real, real_brokers): (ControllerStep, BrokerStep),
    result: &mut Conformance,
) -> ControlFlow<()> {
    result.broker_calls += real_brokers.sent;
    if let Some(reason) = real_brokers.beyond_model {
        result.stopped = Some(reason);
        return ControlFlow::Break(());
    }
    let differences = broker_differences(model_judge.state(), &model.calls, &real_brokers);
    result.broker_steps += 1;
    // While the real replicas are the model's, a data-plane violation on them is one the
    // real brokers show.
    let planes = if differences.is_empty() {
        Planes::Both
    } else {
        Planes::Control
    };
    let flow = judge_step(model_judge, rules, ask, &model, real, planes, result);
    if flow.is_break() || differences.is_empty() {
        return flow;
    }
    result.disagreement = Some(Disagreement {
        step: ask.index,
        class: broker_class(&differences),
        what: Differed::Brokers { calls: model.calls },
        differences,
    });
    ControlFlow::Break(())
}

/// The real controller and the real brokers of one JVM as one judge: the controller is
/// sent the step's requests, then the brokers its calls, as a pair of judges would; the
/// step's `broker_batch` goes out right behind its last controller request, so that one
/// wake-up of the JVM serves both (the calls are the model's, not the real answers').
pub struct RealSide<'a, 'd> {
    pub controller: Controller<'a, 'd>,
    pub brokers: Brokers<'a, 'd>,
}

impl Judge for RealSide<'_, '_> {
    type Answer = (ControllerStep, BrokerStep);
    type Error = Error;

    fn cannot_express(&self, events: &[Event]) -> Option<(usize, String)> {
        (self.controller.cannot_express(events)).or_else(|| self.brokers.cannot_express(events))
    }

    fn reset(&mut self, start: &Start) -> Result<(), Error> {
        self.controller.reset(start)?;
        self.brokers.reset(start)
    }

    fn step(&mut self, ask: &Ask) -> Result<Self::Answer, Error> {
        let request = self.brokers.request(ask);
        let (real, posted) = self.controller.step_then(ask, request.as_ref())?;
        Ok((real, self.brokers.answer(request, posted)?))
    }
}

/// Which invariants a step's real state is judged by.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Planes {
    /// The control plane only: the brokers are not judged, or their replicas differ.
    Control,
    /// Both: the real brokers' replicas are the model's after this step.
    Both,
}

/// One step of the model and the real controller: the requests counted, a differing one
/// kept, the invariants of `planes` judged on the real state.
fn judge_step(
    model_judge: &ModelJudge,
    rules: &RuleSet,
    ask: &Ask,
    model: &ModelStep,
    real: ControllerStep,
    planes: Planes,
    result: &mut Conformance,
) -> ControlFlow<()> {
    result.requests += real.sent;
    result.not_upstream += real.not_upstream;
    let mut judged = model_judge.state().clone();
    result.disagreement = real.differing.map(|(model, real, differences)| {
        overwrite_registrations(&mut judged, &real);
        Disagreement {
            step: ask.index,
            class: class_of(&differences),
            what: Differed::Controller {
                request: model.request.clone(),
                model,
                real,
            },
            differences,
        }
    });
    let before = crate::check::invariants::before_step(
        model_judge.prev().expect("kept"),
        ask.event,
        &model.outcome,
    );
    let view = StepView {
        prev: &before,
        next: &judged,
        event: ask.event,
        outcome: &model.outcome,
    };
    for (id, detail) in step_violations(&view, rules) {
        let judged = is_control_plane(id) || planes == Planes::Both;
        if judged && !result.shown.iter().any(|(i, _, _)| *i == id) {
            result.shown.push((id, ask.index, detail));
        }
    }
    if result.disagreement.is_some() {
        ControlFlow::Break(())
    } else {
        ControlFlow::Continue(())
    }
}

/// The model's state with the real controller's registrations and broker states in it:
/// what the invariants judge at the request where the two differ.
fn overwrite_registrations(c: &mut Cluster, real: &Answer) {
    for r in &real.partitions {
        if let Some(p) = c.partitions.get_mut(r.partition) {
            set_registration(p, r);
        }
    }
    for b in &real.brokers {
        let state = match (b.fenced, b.in_controlled_shutdown) {
            (true, _) => BrokerState::Fenced,
            (false, true) => BrokerState::ControlledShutdown,
            (false, false) => BrokerState::Active,
        };
        if let Some(entry) = c.brokers.iter_mut().find(|(id, _)| *id == b.id) {
            entry.1 = state;
        }
    }
}

fn set_registration(p: &mut Partition, r: &Registration) {
    let ids = |v: &[BrokerId]| IdList::from(v);
    p.replicas = ids(&r.replicas);
    p.isr = ids(&r.isr);
    p.adding_replicas = ids(&r.adding);
    p.removing_replicas = ids(&r.removing);
    p.leader = r.leader;
    p.leader_epoch = r.leader_epoch;
    p.partition_epoch = r.partition_epoch;
    p.leader_recovery_state = if r.leader_recovery_state == 1 {
        LeaderRecoveryState::Recovering
    } else {
        LeaderRecoveryState::Recovered
    };
    p.elr = ids(&r.elr);
    p.last_known_elr = ids(&r.last_known_elr);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An Inkless history is judged up to its first Inkless-only step; every step from
    /// there is counted with its reason. One that starts Inkless is not cut.
    #[test]
    fn an_inkless_history_is_judged_up_to_its_first_inkless_step() {
        let switch: Event = serde_json::from_str(r#"{"op":"switch_start"}"#).expect("event");
        let h = History::new(
            vec![1, 2, 3],
            vec![
                Event::create_classic(vec![1, 2, 3]),
                Event::AdvanceTime { ms: 1_000 },
                switch.clone(),
                Event::FenceBroker { broker: 2 },
            ],
        );
        let (judged, unjudged) = judged_part(&h);
        assert_eq!(judged.events, h.events[..2]);
        assert_eq!(
            unjudged,
            [
                "switch_start: Inkless-only, no Apache Kafka release has it",
                "fence_broker: after an Inkless-only step (switch_start)"
            ]
        );
        let starts_inkless = History::new(vec![1], vec![switch]);
        let (judged, unjudged) = judged_part(&starts_inkless);
        assert_eq!(judged.events, starts_inkless.events);
        assert!(unjudged.is_empty());
        let classic = History::new(vec![1], vec![Event::create_classic(vec![1])]);
        assert_eq!(judged_part(&classic).0.events, classic.events);
    }

    #[test]
    fn skips_are_counted_by_their_reason_not_their_step() {
        let inkless = |i: usize, op: &str| Skip(format!("step {i} ({op}) is Inkless-only"));
        assert_eq!(
            inkless(2, "switch_start").kind(),
            inkless(7, "seal_commit").kind()
        );
        let flag = |i: usize| {
            Skip(format!(
                "step {i} asks allowReplicationFactorChange=false, which Kafka 4.0.2 cannot carry"
            ))
        };
        assert_eq!(flag(1).kind(), flag(9).kind());
        assert_ne!(flag(1).kind(), inkless(1, "switch_start").kind());
        assert!(flag(3)
            .kind()
            .starts_with("asks allowReplicationFactorChange"));
    }
}
