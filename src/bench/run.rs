//! `isrfuzz bench`: the planted-bug benchmark's in-process part (model throughput, time to
//! detection by `hunt` and `exhaust`, and time to rediscovery), one CSV row per
//! measurement, printed as it is measured.

use crate::bench::planted::{self, Bug, BUGS};
use crate::bench::rediscover;
use crate::bench::row::{machine, today, CsvSink, Row, RowFn};
use crate::error::Error;
use std::path::PathBuf;
use std::time::Duration;

/// The parts `bench` can run.
pub const PARTS: [&str; 5] = ["throughput", "hunt", "exhaust", "micro", "rediscover"];
const MICRO_HISTORIES_MAX: u32 = 1_000_000;
const TRIALS_MAX: u32 = 1000;
/// Throughput runs per family; the report quotes their median.
const THROUGHPUT_RUNS: u32 = 3;

/// What to run (the command line's `bench` arguments, checked by [`run`]).
pub struct Plan {
    /// hunt trials (seeds 1..=N) per bug.
    pub trials: u32,
    /// Budget per hunt trial.
    pub budget_seconds: u64,
    /// Seconds per throughput run.
    pub throughput_seconds: u64,
    /// Fixed-seed histories the micro-benchmarks run.
    pub micro_histories: u32,
    /// Which parts to run (of [`PARTS`]).
    pub parts: Vec<String>,
    /// Only these bugs (all when empty).
    pub bugs: Vec<String>,
    /// CSV to append to; none: print only.
    pub csv: Option<PathBuf>,
    /// Worker counts the hunt and rediscover parts run at, each in turn.
    pub jobs: Vec<usize>,
    /// Budget per rediscovery trial.
    pub rediscover_seconds: u64,
}

/// Runs the parts `plan` names, in a fixed order (throughput, micro, rediscover, then per
/// bug hunt and exhaust), each row appended to the CSV as it is measured.
pub fn run(plan: &Plan) -> Result<(), Error> {
    check(plan)?;
    let mut sink = CsvSink::open(plan.csv.as_deref())?;
    let (date, machine) = (today(), machine());
    let row = |engine: &str, bug: &str, invariant: &str, trial: u32| Row {
        date: date.clone(),
        machine: machine.clone(),
        engine: engine.into(),
        bug: bug.into(),
        invariant: invariant.into(),
        trial,
        result: String::new(),
        seconds: 0.0,
        execs: 0,
        triggered_s: None,
    };
    let wants = |part: &str| plan.parts.iter().any(|p| p == part);
    println!("machine: {machine}; date: {date}");
    if wants("throughput") {
        throughput(plan, &mut sink, &row)?;
    }
    if wants("micro") {
        micro(plan.micro_histories);
    }
    if wants("rediscover") {
        rediscover::run(&plan.rediscover(), &mut |r| sink.push(&r), &row)?;
    }
    let selected = BUGS
        .iter()
        .filter(|b| plan.bugs.is_empty() || plan.bugs.iter().any(|n| n == b.name));
    for b in selected {
        if wants("hunt") {
            for &jobs in &plan.jobs {
                hunt_trials(plan, b, jobs, &mut sink, &row)?;
            }
        }
        if wants("exhaust") {
            exhaust_trial(b, &mut sink, &row)?;
        }
    }
    Ok(())
}

fn check(plan: &Plan) -> Result<(), Error> {
    for part in &plan.parts {
        if !PARTS.contains(&part.as_str()) {
            return Err(Error::Usage(format!(
                "unknown part `{part}` (throughput, hunt, exhaust, micro, rediscover)"
            )));
        }
    }
    for name in &plan.bugs {
        if !BUGS.iter().any(|b| b.name == name) {
            return Err(Error::Usage(format!(
                "unknown bug `{name}` (see --list-bugs)"
            )));
        }
    }
    if plan.trials == 0 || plan.trials > TRIALS_MAX {
        return Err(Error::Usage("--trials must be 1..=1000".into()));
    }
    if plan.micro_histories == 0 || plan.micro_histories > MICRO_HISTORIES_MAX {
        return Err(Error::Usage("--micro-histories must be 1..=1000000".into()));
    }
    Ok(())
}

/// `hunt` on one worker, `hunt-j2` on two.
pub fn engine_name(base: &str, jobs: usize) -> String {
    match jobs {
        1 => base.to_string(),
        n => format!("{base}-j{n}"),
    }
}

impl Plan {
    fn rediscover(&self) -> rediscover::Plan {
        rediscover::Plan {
            trials: self.trials,
            budget: Duration::from_secs(self.rediscover_seconds),
            jobs: self.jobs.clone(),
            bugs: self.bugs.clone(),
        }
    }
}

fn throughput(plan: &Plan, sink: &mut CsvSink, row: &RowFn) -> Result<(), Error> {
    let budget = Duration::from_secs(plan.throughput_seconds);
    for family in ["kraft", "inkless", "mixed"] {
        for run in 0..THROUGHPUT_RUNS {
            let (n, secs) =
                planted::throughput(family, budget, u64::from(run) + 1).map_err(Error::Usage)?;
            println!(
                "throughput {family:<8} run {run}: {:.0} histories/s",
                n as f64 / secs
            );
            sink.push(&Row {
                result: "throughput".into(),
                seconds: secs,
                execs: n,
                ..row("model", family, "", run)
            })?;
        }
    }
    Ok(())
}

/// Printed only: the figures are per operation, not rows of the detection CSV.
fn micro(histories: u32) {
    for m in planted::micro(histories, 1) {
        println!(
            "micro   {:<10} {:>9.0} ns/op ({} ops, {:.3} s)",
            m.name,
            m.seconds * 1e9 / m.ops.max(1) as f64,
            m.ops,
            m.seconds
        );
    }
}

fn hunt_trials(
    plan: &Plan,
    b: &Bug,
    jobs: usize,
    sink: &mut CsvSink,
    row: &RowFn,
) -> Result<(), Error> {
    let budget = Duration::from_secs(plan.budget_seconds);
    let engine = engine_name("hunt", jobs);
    for seed in 1..=plan.trials {
        let t = planted::hunt_trial(b, u64::from(seed), budget, jobs).map_err(Error::Usage)?;
        let result = if t.detected.is_some() {
            "detected"
        } else {
            "timeout"
        };
        sink.push(&Row {
            result: result.into(),
            seconds: t.seconds,
            execs: t.execs,
            triggered_s: t.triggered,
            ..row(&engine, b.name, b.invariant, seed)
        })?;
        println!(
            "{engine:<7} {:<15} {:<6} seed {seed:>2}: {}",
            b.name,
            b.invariant,
            t.detected.map_or("timeout".into(), |s| format!("{s:.3} s"))
        );
    }
    Ok(())
}

fn exhaust_trial(b: &Bug, sink: &mut CsvSink, row: &RowFn) -> Result<(), Error> {
    // The depth each start's bugs need (the data start's two need 7 operations).
    let depth = match b.start {
        "kraft" => 5,
        "switched" => 6,
        _ => 8,
    };
    let (secs, ops, transitions) = planted::exhaust_trial(b, depth).map_err(Error::Usage)?;
    let result = if ops.is_some() {
        "detected"
    } else {
        "unreachable"
    };
    sink.push(&Row {
        result: result.into(),
        seconds: secs,
        execs: ops.map_or(0, |o| o as u64),
        ..row("exhaust", b.name, b.invariant, 1)
    })?;
    println!(
        "exhaust {:<15} {:<6}: {} ({transitions} transitions, {secs:.2} s)",
        b.name,
        b.invariant,
        ops.map_or(format!("not within depth {depth}"), |o| format!(
            "{o} operations"
        ))
    );
    Ok(())
}
