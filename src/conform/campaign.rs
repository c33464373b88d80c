//! Conformance runs over many histories: files or generated ones, disagreements
//! minimized and written through the findings sink (the folder's lock, one file per
//! history, never over an existing file), the violations the real controller shows
//! triaged as every engine's (expected, known, new) into the one summary type, and the
//! tally a run prints.

use super::driver::Driver;
use super::release::Release;
use super::replay::{conform_history, expressible, Conformance, Disagreement};
use crate::check::history::History;
use crate::check::oracle;
use crate::error::Error;
use crate::findings::finding::Sink;
use crate::findings::minimize::minimize;
use crate::findings::summary::{Matched, Summary};
use crate::rules::RuleSet;
use crate::search::generate::{decode, Decode, ElrMode};
use crate::search::rng::Rng;
use crate::search::stop;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// How often [`Tally::mark`] keeps a mark, and how many it keeps (a day's run).
const MARK_EVERY: Duration = Duration::from_secs(1);
const MARKS_MAX: usize = 100_000;

/// What a run did, for its closing lines.
#[derive(Default, Debug)]
pub struct Tally {
    pub histories: u64,
    /// Histories not replayed, by reason.
    pub skipped: BTreeMap<String, u64>,
    pub requests: u64,
    pub not_upstream: u64,
    /// Calls performed on the real brokers (`--brokers`).
    pub broker_calls: u64,
    /// Steps after which every real replica was compared with the model's (`--brokers`).
    pub broker_steps: u64,
    /// (time into the run, histories by then), at most one a second: the rate once the
    /// JVM is warm.
    pub marks: Vec<(Duration, u64)>,
    /// Disagreements by class (`isr+partition_epoch`).
    pub by_class: BTreeMap<String, u64>,
    /// Histories judged only up to a step beyond the model, by reason.
    pub stopped: BTreeMap<String, u64>,
    /// Histories the real controller judged alone under `--brokers`, by reason.
    pub brokers_not_judged: BTreeMap<String, u64>,
    /// Steps of Inkless histories not judged, by reason.
    pub unjudged_steps: BTreeMap<String, u64>,
    /// Control-plane violations the real controller showed: per (rule set, invariant) and
    /// class, as every engine's summary.
    pub shown: Summary,
    /// Per history given as a file (by content hash, hex): the invariants the real
    /// controller showed on it, possibly none (what a ticket quotes as affected versions).
    pub by_history: BTreeMap<String, Vec<&'static str>>,
    pub elapsed: Duration,
    /// Time into the run of the first history that disagreed (what the mutation
    /// benchmark reports as time to detection).
    pub first_disagreement: Option<Duration>,
}

impl Tally {
    pub fn add(&mut self, c: &Conformance) {
        self.histories += 1;
        self.requests += c.requests as u64;
        self.not_upstream += c.not_upstream as u64;
        self.broker_calls += c.broker_calls as u64;
        self.broker_steps += c.broker_steps as u64;
        if let Some(d) = &c.disagreement {
            *self.by_class.entry(d.class.clone()).or_default() += 1;
        }
        for why in &c.unjudged {
            *self.unjudged_steps.entry(why.clone()).or_default() += 1;
        }
        if let Some(reason) = &c.brokers_not_judged {
            *self.brokers_not_judged.entry(reason.clone()).or_default() += 1;
        }
        if let Some(reason) = c.stopped {
            *self.stopped.entry(reason.to_string()).or_default() += 1;
        }
    }

    /// Histories every judge asked took whole: under `--brokers`, those the controller
    /// judged alone are left out (they cost the JVM a fraction of a brokers history, so
    /// counting them would flatter the brokers judge's rate).
    pub fn judged_whole(&self) -> u64 {
        self.histories - self.brokers_not_judged.values().sum::<u64>()
    }

    /// Note the histories done `at` into the run (kept when a second passed since the
    /// last): [`Tally::judged_whole`], what the warm rate counts.
    pub fn mark(&mut self, at: Duration) {
        let due = (self.marks.last()).is_none_or(|(t, _)| at >= *t + MARK_EVERY);
        if due && self.marks.len() < MARKS_MAX {
            self.marks.push((at, self.judged_whole()));
        }
    }

    /// Histories judged whole ([`Tally::judged_whole`]) per second over the second half of
    /// the run (the JIT compiles the real classes for tens of seconds after the JVM
    /// starts); None for a run under 2 marks.
    pub fn warm_rate(&self) -> Option<f64> {
        let half = self.elapsed / 2;
        let &(t, n) = self.marks.iter().find(|(t, _)| *t >= half)?;
        let secs = (self.elapsed.checked_sub(t)?).as_secs_f64();
        (secs >= 1.0).then(|| (self.judged_whole() - n) as f64 / secs)
    }

    /// Count what [`triage_shown`] made of one history's violations, met `at` into the run.
    pub fn count_shown(
        &mut self,
        rules: RuleSet,
        shown: &[(&'static str, Option<Matched>)],
        at: Duration,
    ) {
        for (id, matched) in shown {
            let matched = matched.as_ref().map(Matched::as_ref);
            self.shown.count(rules, id, matched, at);
        }
    }

    /// Histories that showed each invariant, whatever its class.
    pub fn shown_by_invariant(&self) -> BTreeMap<&'static str, u64> {
        let mut out = BTreeMap::new();
        for row in &self.shown.rows {
            *out.entry(row.invariant).or_default() += row.count;
        }
        out
    }

    pub fn disagreements(&self) -> u64 {
        self.by_class.values().sum()
    }
}

/// The smallest history that still disagrees in the same class (a predicate that runs
/// the driver: each candidate is one more history on the JVM). A stop request or the
/// run's deadline ends the search at the smallest found so far: minimizing on a slow
/// judge can take minutes.
pub fn minimize_disagreement(
    history: &History,
    rules: &RuleSet,
    driver: &mut Driver,
    class: &str,
    brokers: bool,
) -> Result<History, Error> {
    let driver = RefCell::new(driver);
    let failure = RefCell::new(None);
    let small = minimize(history, |h| {
        if failure.borrow().is_some() || stop::requested() || driver.borrow().past_deadline() {
            return false;
        }
        match conform_history(h, rules, &mut driver.borrow_mut(), brokers) {
            Ok(Ok(c)) => c.disagreement.is_some_and(|d| d.class == class),
            Ok(Err(_)) => false,
            Err(e) => {
                *failure.borrow_mut() = Some(e);
                false
            }
        }
    });
    match failure.into_inner() {
        Some(e) => Err(e),
        None => Ok(small),
    }
}

/// The violations the real controller showed on `history` (`c.shown`), each triaged as
/// the hunt triages the model's: up to a disagreement the model's run *is* the real
/// controller's, so its side run (decisions included) is what triage reads; a violation on
/// the real registrations at a disagreement is one the model does not make: new.
pub fn triage_shown(
    sink: &Sink,
    history: &History,
    rules: &RuleSet,
    c: &Conformance,
) -> Vec<(&'static str, Option<Matched>)> {
    if c.shown.is_empty() {
        return Vec::new();
    }
    let verdict = oracle::run(history, &[*rules], false);
    let side = &verdict.sides[0];
    let upto = c.disagreement.as_ref().map_or(usize::MAX, |d| d.step);
    let classify = |id: &str, step: usize| {
        let v = side.violations.iter().find(|v| v.invariant == id)?;
        (step < upto && v.step == step).then(|| sink.classify(history, side, v))?
    };
    (c.shown.iter())
        .map(|(id, step, _)| (*id, classify(id, *step)))
        .collect()
}

/// Write a disagreement as a conformance finding through the sink: the minimized history,
/// named `<preset>--conform-<version>[-changed]-<class>--<hash>.json`, never over an existing file.
pub fn write_disagreement(
    sink: &Sink,
    history: &History,
    rules: &RuleSet,
    release: &Release,
    d: &Disagreement,
) -> Result<Option<PathBuf>, Error> {
    let mut h = history.clone();
    h.description = Some(format!(
        "conformance: {} answers step {} otherwise than {rules}: {}",
        release.code(),
        d.step,
        d.differences.join("; ")
    ));
    h.rules = Some(rules.to_string());
    h.expect.clear();
    // A changed controller's findings are told apart from the release's by name too.
    let changed = if release.change.is_some() {
        "-changed"
    } else {
        ""
    };
    let label = format!(
        "conform-{}{changed}-{}",
        release.version,
        d.class.replace('+', "-")
    );
    sink.write_labelled(&h, rules, &label)
}

/// Generated histories for `seconds` (or until a stop request): the generator's draws, as
/// the release can take them.
pub struct Generated {
    release: Release,
    rng: Rng,
    guide: RuleSet,
    elr: ElrMode,
    deadline: Instant,
    buf: Vec<u8>,
    /// Operations never drawn ([`Decode::without`]).
    without: &'static [&'static str],
}

impl Generated {
    pub fn new(
        release: Release,
        seed: u64,
        guide: RuleSet,
        elr: ElrMode,
        seconds: f64,
        without: &'static [&'static str],
    ) -> Generated {
        Generated {
            release,
            rng: Rng::new(seed),
            guide,
            elr,
            deadline: Instant::now() + Duration::from_secs_f64(seconds),
            buf: Vec::new(),
            without,
        }
    }
}

impl Iterator for Generated {
    type Item = History;

    fn next(&mut self) -> Option<History> {
        if Instant::now() >= self.deadline || stop::requested() {
            return None;
        }
        self.rng.fill(&mut self.buf);
        let options = Decode {
            elr: self.elr,
            without: self.without,
            ..Decode::guided(self.guide)
        };
        let drawn = decode(&self.buf, options);
        Some(expressible(&drawn, &self.release))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The warm rate counts only the histories after the first mark in the run's second
    /// half, over the time since that mark; marks come at most once a second.
    #[test]
    fn the_warm_rate_is_the_second_half_of_the_run() {
        let mut t = Tally::default();
        for s in 0..10u64 {
            // A slow start (1 history a second), then 10 a second.
            t.histories += if s < 5 { 1 } else { 10 };
            t.mark(Duration::from_millis(s * 1_000));
            t.mark(Duration::from_millis(s * 1_000 + 500));
        }
        assert_eq!(t.marks.len(), 10, "{:?}", t.marks);
        t.elapsed = Duration::from_secs(10);
        // The mark at 5 s saw 15 histories; 55 by 10 s: 40 in 5 s.
        assert_eq!(t.warm_rate(), Some(8.0));
        t.elapsed = Duration::from_millis(1_500);
        assert_eq!(t.warm_rate(), None, "under a second after the first mark");
    }
}
