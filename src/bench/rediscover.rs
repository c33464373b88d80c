//! Time to rediscovery: how long `hunt` takes to show each bug we already know is there.
//! The measure a reviewer feels: a rare hole the tool only shows after a minute is a hole
//! most reviews miss.
//!
//! Two kinds of target:
//! - every mechanism of `corpus/known.json` (expected and known, by finding and
//!   invariant): the default hunt (every preset against `complete`) runs with those
//!   findings loaded, and the first time a worker counts a violation triage assigns to
//!   the mechanism is its time. Loading them is what lets the hunt name the row; it also
//!   keeps the witnesses' minimization out of the timed search (it runs after);
//! - every planted bug of [`BUGS`], on its own pair, until its invariant shows as a new
//!   finding (what `bench --parts hunt` times).
//!
//! `bench --parts rediscover` runs both, seeds 1..=trials, at each worker count; one CSV
//! row per (target, worker count, seed).

use crate::bench::planted::{hunt_trial, Bug, BUGS};
use crate::bench::row::{Row, RowFn};
use crate::error::Error;
use crate::findings::attribution::default_pairs;
use crate::findings::triage::embedded;
use crate::findings::Sink;
use crate::search::hunt::{self, Config};
use std::time::Duration;

/// One thing to find again: its class (`expected`, `known` or `planted`), its name (the
/// finding's id, or the planted bug's), and the invariant it shows as.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    pub class: &'static str,
    pub id: String,
    pub invariant: String,
}

impl Target {
    /// As the benchmark's rows name it: `expected:KAFKA-21419`, `known:F18`, `planted:CE-a`.
    pub fn name(&self) -> String {
        format!("{}:{}", self.class, self.id)
    }
}

/// One trial's outcome per target: seconds to the first sighting, or `None` within the
/// budget; and the histories the trial ran.
pub struct Sightings {
    pub seconds: Vec<Option<f64>>,
    pub histories: u64,
}

/// Every mechanism of the embedded `corpus/known.json`, once per (finding, invariant), in
/// file order.
pub fn known_targets() -> Vec<Target> {
    let mut out: Vec<Target> = Vec::new();
    for k in embedded() {
        let t = Target {
            class: k.kind.name(),
            id: k.display_id().to_string(),
            invariant: k.invariant.clone(),
        };
        if !out.contains(&t) {
            out.push(t);
        }
    }
    out
}

/// Every planted bug, as a target.
pub fn planted_targets() -> Vec<Target> {
    BUGS.iter()
        .map(|b| Target {
            class: "planted",
            id: b.name.to_string(),
            invariant: b.invariant.to_string(),
        })
        .collect()
}

/// The default hunt with seed `seed` on `jobs` workers, until every known target has
/// been met or `budget` ran out.
pub fn known_trial(
    targets: &[Target],
    seed: u64,
    jobs: usize,
    budget: Duration,
) -> Result<Sightings, String> {
    let watch = targets
        .iter()
        .map(|t| (t.id.clone(), t.invariant.clone()))
        .collect();
    let cfg = Config {
        budget,
        watch,
        jobs,
        ..Config::new(default_pairs(), seed)
    };
    let sink = Sink::new(None, embedded().to_vec(), "");
    let report = hunt::hunt(&cfg, &sink, |_| {}).map_err(|e| e.to_string())?;
    Ok(Sightings {
        seconds: report
            .watched
            .iter()
            .map(|t| t.map(|d| d.as_secs_f64()))
            .collect(),
        histories: report.histories,
    })
}

/// A planted bug's hunt with seed `seed` on `jobs` workers: seconds to its first finding.
pub fn planted_trial(
    b: &Bug,
    seed: u64,
    jobs: usize,
    budget: Duration,
) -> Result<Sightings, String> {
    let t = hunt_trial(b, seed, budget, jobs)?;
    Ok(Sightings {
        seconds: vec![t.detected],
        histories: t.execs,
    })
}

/// What to run (`bench --parts rediscover`).
pub struct Plan {
    pub trials: u32,
    pub budget: Duration,
    pub jobs: Vec<usize>,
    /// Only these planted bugs (all when empty); the known mechanisms always run.
    pub bugs: Vec<String>,
}

/// Every target, seeds 1..=trials at each worker count; each trial printed and its rows
/// handed to `push`.
pub fn run(
    plan: &Plan,
    push: &mut dyn FnMut(Row) -> Result<(), Error>,
    row: &RowFn,
) -> Result<(), Error> {
    let known = known_targets();
    let planted = planted_targets();
    for &jobs in &plan.jobs {
        let engine = format!("rediscover-j{jobs}");
        for seed in 1..=plan.trials {
            let s =
                known_trial(&known, u64::from(seed), jobs, plan.budget).map_err(Error::Usage)?;
            print_trial(&engine, seed, &known, &s, plan.budget);
            push_rows(push, row, &engine, seed, &known, &s, plan.budget)?;
        }
        for (b, t) in BUGS.iter().zip(&planted) {
            if !(plan.bugs.is_empty() || plan.bugs.iter().any(|n| n == b.name)) {
                continue;
            }
            for seed in 1..=plan.trials {
                let s =
                    planted_trial(b, u64::from(seed), jobs, plan.budget).map_err(Error::Usage)?;
                print_trial(&engine, seed, std::slice::from_ref(t), &s, plan.budget);
                push_rows(
                    push,
                    row,
                    &engine,
                    seed,
                    std::slice::from_ref(t),
                    &s,
                    plan.budget,
                )?;
            }
        }
    }
    Ok(())
}

fn push_rows(
    push: &mut dyn FnMut(Row) -> Result<(), Error>,
    row: &RowFn,
    engine: &str,
    seed: u32,
    targets: &[Target],
    s: &Sightings,
    budget: Duration,
) -> Result<(), Error> {
    for (t, at) in targets.iter().zip(&s.seconds) {
        push(Row {
            result: if at.is_some() { "detected" } else { "timeout" }.into(),
            seconds: at.unwrap_or(budget.as_secs_f64()),
            execs: s.histories,
            ..row(engine, &t.name(), &t.invariant, seed)
        })?;
    }
    Ok(())
}

/// One line per trial: how many targets were met, the slowest, and any missed.
fn print_trial(engine: &str, seed: u32, targets: &[Target], s: &Sightings, budget: Duration) {
    let met = s.seconds.iter().flatten().count();
    let slowest = (targets.iter().zip(&s.seconds))
        .filter_map(|(t, at)| at.map(|a| (a, t)))
        .max_by(|a, b| a.0.total_cmp(&b.0));
    let missed: Vec<String> = (targets.iter().zip(&s.seconds))
        .filter(|(_, at)| at.is_none())
        .map(|(t, _)| format!("{} {}", t.name(), t.invariant))
        .collect();
    let slowest = slowest.map_or(String::new(), |(a, t)| {
        format!(", slowest {} {} at {a:.2} s", t.name(), t.invariant)
    });
    let missed = if missed.is_empty() {
        String::new()
    } else {
        format!("; not within {} s: {}", budget.as_secs(), missed.join(", "))
    };
    println!(
        "{engine} seed {seed:>2}: {met}/{} in {} histories{slowest}{missed}",
        targets.len(),
        s.histories
    );
}
