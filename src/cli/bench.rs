//! `isrfuzz bench`: the planted-bug benchmark's in-process part (`isrfuzz::bench::run`).

use crate::cli::input::parse_jobs;
use clap::Args;
use isrfuzz::bench::planted::BUGS;
use isrfuzz::bench::run::{self, Plan};
use isrfuzz::error::Error;
use std::path::PathBuf;
use std::process::ExitCode;

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
            let fix = b.fix.unwrap_or("");
            println!("{}|{}|{}|{}|{fix}", b.name, b.rules, b.invariant, b.start);
        }
        return Ok(ExitCode::SUCCESS);
    }
    run::run(&Plan {
        trials: args.trials,
        budget_seconds: args.budget_seconds,
        throughput_seconds: args.throughput_seconds,
        micro_histories: args.micro_histories,
        parts: args.parts,
        bugs: args.bugs,
        csv: args.csv,
        jobs: args.jobs,
        rediscover_seconds: args.rediscover_seconds,
    })?;
    Ok(ExitCode::SUCCESS)
}
