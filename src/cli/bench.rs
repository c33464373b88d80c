//! `isrfuzz bench`: the planted-bug benchmark's in-process part (model throughput, time to
//! detection by `hunt` and `exhaust`), one CSV row per measurement.

use crate::cli::bench_report::{machine, today, Row, CSV_HEADER};
use crate::cli::input::parse_jobs;
use clap::Args;
use isrfuzz::error::Error;
use isrfuzz::search::bench::{self, Bug, BUGS};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

const PARTS: [&str; 5] = ["throughput", "hunt", "exhaust", "micro", "rediscover"];
const MICRO_HISTORIES_MAX: u32 = 1_000_000;
const TRIALS_MAX: u32 = 1000;
/// Throughput runs per family; the report quotes their median.
const THROUGHPUT_RUNS: u32 = 3;

#[derive(Args)]
pub struct BenchArgs {
    /// hunt trials (seeds 1..=N) per bug.
    #[arg(long, default_value_t = 10)]
    trials: u32,
    /// Budget per hunt trial.
    #[arg(long, default_value_t = 20)]
    budget_seconds: u64,
    /// Seconds per throughput run (3 runs per family).
    #[arg(long, default_value_t = 3)]
    throughput_seconds: u64,
    /// Fixed-seed histories (seed 1) the micro-benchmarks run.
    #[arg(long, default_value_t = 10_000)]
    micro_histories: u32,
    /// Which parts to run (`micro` and `rediscover` only when named: `rediscover` takes
    /// about 13 minutes per worker count).
    #[arg(long, value_delimiter = ',', default_value = "throughput,hunt,exhaust")]
    parts: Vec<String>,
    /// Only these bugs (names as in `--list-bugs`).
    #[arg(long, value_delimiter = ',')]
    bugs: Vec<String>,
    /// CSV to append to (created with a header if missing); none: print only.
    #[arg(long)]
    csv: Option<PathBuf>,
    /// Worker counts the hunt and rediscover parts run at, each in turn (`all`: every
    /// core). A count other than 1 shows as engine `hunt-jN` / `rediscover-jN`.
    #[arg(long, value_delimiter = ',', default_value = "1", value_parser = parse_jobs)]
    jobs: Vec<usize>,
    /// Budget per rediscovery trial (the part's hit rate is within this).
    #[arg(long, default_value_t = 60)]
    rediscover_seconds: u64,
    /// Print `name|rules|invariant|start` per planted bug and exit.
    #[arg(long)]
    list_bugs: bool,
}

pub fn run(args: BenchArgs) -> Result<ExitCode, Error> {
    if args.list_bugs {
        for b in BUGS {
            println!("{}|{}|{}|{}", b.name, b.rules, b.invariant, b.start);
        }
        return Ok(ExitCode::SUCCESS);
    }
    check(&args)?;
    let mut sink = CsvSink::open(args.csv.as_deref())?;
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
    let wants = |part: &str| args.parts.iter().any(|p| p == part);
    println!("machine: {machine}; date: {date}");
    if wants("throughput") {
        throughput(&args, &mut sink, &row)?;
    }
    if wants("micro") {
        micro(args.micro_histories);
    }
    if wants("rediscover") {
        crate::cli::rediscover::run(&args.rediscover(), &mut |r| sink.push(&r), &row)?;
    }
    let selected = BUGS
        .iter()
        .filter(|b| args.bugs.is_empty() || args.bugs.iter().any(|n| n == b.name));
    for b in selected {
        if wants("hunt") {
            for &jobs in &args.jobs {
                hunt_trials(&args, b, jobs, &mut sink, &row)?;
            }
        }
        if wants("exhaust") {
            exhaust_trial(b, &mut sink, &row)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn check(args: &BenchArgs) -> Result<(), Error> {
    for part in &args.parts {
        if !PARTS.contains(&part.as_str()) {
            return Err(Error::Usage(format!(
                "unknown part `{part}` (throughput, hunt, exhaust, micro, rediscover)"
            )));
        }
    }
    for name in &args.bugs {
        if !BUGS.iter().any(|b| b.name == name) {
            return Err(Error::Usage(format!(
                "unknown bug `{name}` (see --list-bugs)"
            )));
        }
    }
    if args.trials == 0 || args.trials > TRIALS_MAX {
        return Err(Error::Usage("--trials must be 1..=1000".into()));
    }
    if args.micro_histories == 0 || args.micro_histories > MICRO_HISTORIES_MAX {
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

impl BenchArgs {
    fn rediscover(&self) -> crate::cli::rediscover::Plan {
        crate::cli::rediscover::Plan {
            trials: self.trials,
            budget: Duration::from_secs(self.rediscover_seconds),
            jobs: self.jobs.clone(),
            bugs: self.bugs.clone(),
        }
    }
}

pub type RowFn<'a> = dyn Fn(&str, &str, &str, u32) -> Row + 'a;

fn throughput(args: &BenchArgs, sink: &mut CsvSink, row: &RowFn) -> Result<(), Error> {
    let budget = Duration::from_secs(args.throughput_seconds);
    for family in ["kraft", "inkless", "mixed"] {
        for run in 0..THROUGHPUT_RUNS {
            let (n, secs) =
                bench::throughput(family, budget, u64::from(run) + 1).map_err(Error::Usage)?;
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
    for m in bench::micro(histories, 1) {
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
    args: &BenchArgs,
    b: &Bug,
    jobs: usize,
    sink: &mut CsvSink,
    row: &RowFn,
) -> Result<(), Error> {
    let budget = Duration::from_secs(args.budget_seconds);
    let engine = engine_name("hunt", jobs);
    for seed in 1..=args.trials {
        let t = bench::hunt_trial(b, u64::from(seed), budget, jobs).map_err(Error::Usage)?;
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
    let (secs, ops, transitions) = bench::exhaust_trial(b, depth).map_err(Error::Usage)?;
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

/// Appends rows to the CSV as they are measured, so an interrupted run keeps them.
struct CsvSink {
    file: Option<(PathBuf, std::fs::File)>,
}

impl CsvSink {
    fn open(path: Option<&Path>) -> Result<CsvSink, Error> {
        use std::io::Write;
        let Some(path) = path else {
            return Ok(CsvSink { file: None });
        };
        let fresh = !path.exists();
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(Error::io(path))?;
        if fresh {
            writeln!(file, "{CSV_HEADER}").map_err(Error::io(path))?;
        }
        Ok(CsvSink {
            file: Some((path.to_path_buf(), file)),
        })
    }

    fn push(&mut self, row: &Row) -> Result<(), Error> {
        use std::io::Write;
        if let Some((path, file)) = &mut self.file {
            writeln!(file, "{}", row.csv()).map_err(Error::io(path))?;
        }
        Ok(())
    }
}
