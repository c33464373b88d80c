//! `isrfuzz bench --parts rediscover`: time to rediscovery of every known mechanism and
//! planted bug (`isrfuzz::search::rediscover`), seeds 1..=trials, at each worker count;
//! one CSV row per (target, worker count, seed).

use crate::cli::bench::RowFn;
use crate::cli::bench_report::Row;
use isrfuzz::error::Error;
use isrfuzz::search::bench::BUGS;
use isrfuzz::search::rediscover::{self, Sightings, Target};
use std::time::Duration;

/// What to run.
pub struct Plan {
    pub trials: u32,
    pub budget: Duration,
    pub jobs: Vec<usize>,
    /// Only these planted bugs (all when empty); the known mechanisms always run.
    pub bugs: Vec<String>,
}

pub fn run(
    plan: &Plan,
    push: &mut dyn FnMut(Row) -> Result<(), Error>,
    row: &RowFn,
) -> Result<(), Error> {
    let known = rediscover::known_targets();
    let planted = rediscover::planted_targets();
    for &jobs in &plan.jobs {
        let engine = format!("rediscover-j{jobs}");
        for seed in 1..=plan.trials {
            let s = rediscover::known_trial(&known, u64::from(seed), jobs, plan.budget)
                .map_err(Error::Usage)?;
            print_trial(&engine, seed, &known, &s, plan.budget);
            push_rows(push, row, &engine, seed, &known, &s, plan.budget)?;
        }
        for (b, t) in BUGS.iter().zip(&planted) {
            if !(plan.bugs.is_empty() || plan.bugs.iter().any(|n| n == b.name)) {
                continue;
            }
            for seed in 1..=plan.trials {
                let s = rediscover::planted_trial(b, u64::from(seed), jobs, plan.budget)
                    .map_err(Error::Usage)?;
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
