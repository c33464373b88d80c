//! Conformance runs over many histories: files or generated ones, disagreements
//! minimized and written as conformance findings (never over an existing file), and the
//! tally a run prints.

use super::driver::Driver;
use super::release::Release;
use super::replay::{conform_history, expressible, Conformance, Disagreement};
use crate::check::history::History;
use crate::error::Error;
use crate::findings::finding::write_finding;
use crate::findings::minimize::minimize;
use crate::rules::RuleSet;
use crate::search::generate::{decode, Decode, ElrMode};
use crate::search::rng::Rng;
use crate::search::stop;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What a run did, for its closing lines.
#[derive(Default, Debug)]
pub struct Tally {
    pub histories: u64,
    /// Histories not replayed, by reason.
    pub skipped: BTreeMap<String, u64>,
    pub requests: u64,
    pub not_upstream: u64,
    /// Disagreements by class (`isr+partition_epoch`).
    pub by_class: BTreeMap<String, u64>,
    /// Control-plane violations the real controller showed, by invariant.
    pub shown: BTreeMap<&'static str, u64>,
    /// Per history given as a file (by content hash, hex): the invariants the real
    /// controller showed on it, possibly none (what a ticket quotes as affected versions).
    pub by_history: BTreeMap<String, Vec<&'static str>>,
    pub elapsed: Duration,
}

impl Tally {
    pub fn add(&mut self, c: &Conformance) {
        self.histories += 1;
        self.requests += c.requests as u64;
        self.not_upstream += c.not_upstream as u64;
        if let Some(d) = &c.disagreement {
            *self.by_class.entry(d.class.clone()).or_default() += 1;
        }
        for (id, _, _) in &c.shown {
            *self.shown.entry(id).or_default() += 1;
        }
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
) -> Result<History, Error> {
    let driver = RefCell::new(driver);
    let failure = RefCell::new(None);
    let small = minimize(history, |h| {
        if failure.borrow().is_some() || stop::requested() || driver.borrow().past_deadline() {
            return false;
        }
        match conform_history(h, rules, &mut driver.borrow_mut()) {
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

/// Write a disagreement as a conformance finding in `out`: the minimized history, named
/// `<preset>--conform-<version>-<class>--<hash>.json`; an existing file is never replaced.
pub fn write_disagreement(
    out: &Path,
    history: &History,
    rules: &RuleSet,
    version: &str,
    d: &Disagreement,
) -> Result<PathBuf, Error> {
    let mut h = history.clone();
    h.description = Some(format!(
        "conformance: Apache Kafka {version} answers step {} otherwise than {rules}: {}",
        d.step,
        d.differences.join("; ")
    ));
    h.rules = Some(rules.to_string());
    h.expect.clear();
    std::fs::create_dir_all(out).map_err(Error::io(out))?;
    let label = format!("conform-{version}-{}", d.class.replace('+', "-"));
    write_finding(out, &h, rules, &label).map(|(path, _)| path)
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
}

impl Generated {
    pub fn new(
        release: Release,
        seed: u64,
        guide: RuleSet,
        elr: ElrMode,
        seconds: f64,
    ) -> Generated {
        Generated {
            release,
            rng: Rng::new(seed),
            guide,
            elr,
            deadline: Instant::now() + Duration::from_secs_f64(seconds),
            buf: Vec::new(),
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
            ..Decode::guided(self.guide)
        };
        let drawn = decode(&self.buf, options);
        Some(expressible(&drawn, &self.release))
    }
}
