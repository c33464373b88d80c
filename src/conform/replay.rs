//! One history judged by the real controller: the model runs it under the release's
//! preset with a tap on its controller requests, each request goes to the driver, and the
//! two answers are compared after every request. The first difference ends the run.
//! While they agree, the model's state *is* the real controller's (every compared field),
//! so a control-plane violation found then is shown by that release; at the differing
//! request, the real registrations are judged themselves.

use super::driver::Driver;
use super::protocol::{class_of, differences, encode, Answer, Registration};
use super::release::Release;
use crate::check::history::History;
use crate::check::invariants::{step_violations, StepView};
use crate::error::Error;
use crate::model::log::Log;
use crate::model::request::{Exchange, Request, RequestTap};
use crate::model::{
    self, AlterPlan, AtSealAnswer, BrokerId, BrokerState, Cluster, Event, IdList,
    LeaderRecoveryState, Partition, ReplicaState, Rules,
};
use crate::rules::RuleSet;
use serde_json::json;
use std::cell::RefCell;

/// Why a history is not replayed: the real controller has no request for one of its
/// events (Inkless topics and switches live in aiven/inkless, not in these jars).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Skip(pub String);

/// The first request where the real controller answered otherwise.
#[derive(Clone, Debug)]
pub struct Disagreement {
    /// The history event whose request differed (0-based).
    pub step: usize,
    pub request: Request,
    pub model: Exchange,
    pub real: Answer,
    pub differences: Vec<String>,
    /// `error`, `fault`, or the differing fields (`isr+partition_epoch`).
    pub class: String,
}

/// What replaying one history showed.
#[derive(Clone, Debug, Default)]
pub struct Conformance {
    /// Requests sent to the real controller and compared.
    pub requests: usize,
    /// Requests the model says no upstream controller receives in that state (not sent).
    pub not_upstream: usize,
    pub disagreement: Option<Disagreement>,
    /// Control-plane violations on the real controller's states: (invariant, step, detail),
    /// the first of each invariant.
    pub shown: Vec<(&'static str, usize, String)>,
}

/// The control-plane invariants, judged on the real controller's states.
pub fn is_control_plane(id: &str) -> bool {
    crate::check::invariants::is_control_plane(id)
}

/// An event only Inkless has: a switch, or a diskless or remote-storage topic.
fn is_inkless(e: &Event) -> bool {
    match e {
        Event::CreatePartition {
            diskless,
            remote_storage,
            ..
        } => *diskless || *remote_storage,
        Event::SwitchStart { .. }
        | Event::SealCommit { .. }
        | Event::AlterDisklessSwitch { .. } => true,
        _ => false,
    }
}

/// Every event of `history` is one the release's controller can take (or the model's
/// broker side answers alone), else why not.
pub fn check_expressible(history: &History, release: &Release) -> Result<(), Skip> {
    if let Some(i) = history.events.iter().position(is_inkless) {
        let op = history.events[i].op();
        return Err(Skip(format!("step {i} ({op}) is Inkless-only")));
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
    match history.events.iter().position(keeps_rf) {
        Some(i) if !release.rf_change_flag => Err(Skip(format!(
            "step {i} asks allowReplicationFactorChange=false, which Kafka {} cannot carry",
            release.version
        ))),
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
    let (tapped, mut state) = start(history, rules);
    let mut out = Vec::new();
    for (step, event) in history.events.iter().enumerate() {
        model::apply(&mut state, event, &tapped);
        out.extend(tapped.log.borrow_mut().drain(..).map(|e| (step, e)));
    }
    out
}

/// `model_requests` with the model's state around every step: `states[0]` is the starting
/// cluster and `states[i + 1]` the one step `i` left (what a reproducer's assertion reads
/// its original and target replicas from).
pub fn model_run(history: &History, rules: &RuleSet) -> (Vec<(usize, Exchange)>, Vec<Cluster>) {
    let (tapped, mut state) = start(history, rules);
    let mut out = Vec::new();
    let mut states = vec![state.clone()];
    for (step, event) in history.events.iter().enumerate() {
        model::apply(&mut state, event, &tapped);
        out.extend(tapped.log.borrow_mut().drain(..).map(|e| (step, e)));
        states.push(state.clone());
    }
    (out, states)
}

/// Replay `history` under `rules` against the driver's release.
pub fn conform_history(
    history: &History,
    rules: &RuleSet,
    driver: &mut Driver,
) -> Result<Result<Conformance, Skip>, Error> {
    if let Err(skip) = check_expressible(history, &driver.release) {
        return Ok(Err(skip));
    }
    let reset =
        json!({"op":"reset","brokers":history.brokers,"elr":history.eligible_leader_replicas});
    let answer = driver.exchange(&reset)?;
    if answer.error != "NONE" {
        return Err(Error::Usage(format!(
            "the Kafka {} driver refused the cluster of brokers {:?}: {} {}",
            driver.release.version,
            history.brokers,
            answer.error,
            answer.fault.unwrap_or_default()
        )));
    }
    let (tapped, mut state) = start(history, rules);
    let mut result = Conformance::default();
    for (step, event) in history.events.iter().enumerate() {
        let prev = state.clone();
        let outcome = model::apply(&mut state, event, &tapped);
        let exchanges = std::mem::take(&mut *tapped.log.borrow_mut());
        let mut judged = state.clone();
        result.disagreement = compare_step(step, exchanges, driver, &mut result, &mut judged)?;
        let view = StepView {
            prev: &prev,
            next: &judged,
            event,
            outcome: &outcome,
        };
        for (id, detail) in step_violations(&view, rules) {
            if is_control_plane(id) && !result.shown.iter().any(|(i, _, _)| *i == id) {
                result.shown.push((id, step, detail));
            }
        }
        if result.disagreement.is_some() {
            break;
        }
    }
    Ok(Ok(result))
}

/// Send one step's requests in order; the first whose answer differs, with the real
/// registrations written into `judged`.
fn compare_step(
    step: usize,
    exchanges: Vec<Exchange>,
    driver: &mut Driver,
    result: &mut Conformance,
    judged: &mut Cluster,
) -> Result<Option<Disagreement>, Error> {
    for model in exchanges {
        if model.not_upstream {
            result.not_upstream += 1;
            continue;
        }
        let request = encode(&model.request).map_err(|why| {
            Error::Usage(format!(
                "step {step}: the real controller has no request for {why}"
            ))
        })?;
        let real = driver.exchange(&request)?;
        result.requests += 1;
        let differences = differences(&model, &real);
        if differences.is_empty() {
            continue;
        }
        overwrite_registrations(judged, &real);
        return Ok(Some(Disagreement {
            step,
            request: model.request.clone(),
            class: class_of(&differences),
            model,
            real,
            differences,
        }));
    }
    Ok(None)
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

/// The tapped rule set and the history's starting cluster.
fn start<'a>(history: &History, rules: &'a RuleSet) -> (Tapped<'a>, Cluster) {
    let tapped = Tapped {
        rules,
        log: RefCell::new(Vec::new()),
    };
    let state = Cluster::new(&history.brokers, history.broker_config)
        .with_elr(history.eligible_leader_replicas);
    (tapped, state)
}

/// The rule set with a tap that keeps every exchange of the current step.
struct Tapped<'a> {
    rules: &'a RuleSet,
    log: RefCell<Vec<Exchange>>,
}

impl RequestTap for Tapped<'_> {
    fn record(&self, exchange: Exchange) {
        self.log.borrow_mut().push(exchange);
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
                Some(self)
            }
        }
    };
}

crate::model::with_rule_hooks!(tapped_hooks);
