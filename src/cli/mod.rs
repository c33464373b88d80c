//! The `isrfuzz` command line: one module per command, each an argument struct and a
//! `run` that calls the library. Exit codes: 0 nothing violated, 1 something violated or
//! found, 2 bad usage or input, 3 harness bug (the model panicked), 4 `exhaust` stopped by
//! its memory budget before the depth asked (nothing violated in what it explored), 5 a judge
//! failed (`conform`: a JVM died, stalled or answered nonsense; the summary of what was
//! found before is printed first), 6 `promote` wrote nothing because every violation is an
//! expected or known finding (each named; `--known none` promotes them). `promote` exits 0
//! when it wrote (or found already there) a regression and 1 when nothing violated.
//! `cluster` exits 0 when every history was confirmed, 1 when one was not confirmed or
//! not expressible in-process, 3 when the cluster failed to start.

mod bench;
mod bench_report;
mod cluster;
mod conform;
mod conform_epoch;
mod exhaust;
mod hunt;
mod input;
mod listing;
mod promote;
mod replay;
mod speed_report;

use clap::{Parser, Subcommand};
use isrfuzz::error::{inert, Error};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "isrfuzz",
    version,
    about = "Differential fuzzing of Kafka KRaft and Inkless replication rules"
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Search random histories for invariant violations, minimize and save each finding.
    Hunt(hunt::HuntArgs),
    /// Run histories (JSON files or folders of them) and print step tables and verdicts.
    Replay(replay::ReplayArgs),
    /// Explore every history up to a depth (breadth-first, equal states merged): shortest
    /// counterexamples, or a bound to which a rule set holds.
    Exhaust(exhaust::ExhaustArgs),
    /// Replay histories against Apache Kafka's real controller (one release per run) and
    /// compare every controller request's answer with the model's (needs Java and Maven).
    Conform(conform::ConformArgs),
    /// Run histories' operator plans on a real in-process cluster of one Apache Kafka
    /// release (its test kit; needs Java and Maven): each confirmed, not confirmed or not
    /// expressible in-process.
    Cluster(cluster::ClusterArgs),
    /// Turn fuzzer artifacts or histories into minimized regression histories.
    Promote(promote::PromoteArgs),
    /// Planted-bug benchmark, in-process part: model throughput per family, and time to
    /// detection of every planted bug by `hunt` and `exhaust`. Appends rows to a CSV
    /// (ci/bench.sh adds libFuzzer and AFL++; `bench-report` renders the table and plot).
    Bench(bench::BenchArgs),
    /// Render a benchmark CSV as a Markdown table and an SVG plot.
    BenchReport(bench_report::BenchReportArgs),
    /// Render ci/bench-speed.sh's CSV (model speed, a base revision against the current
    /// tree) as the generated part of docs/benchmarks.md's "Model speed" and an SVG plot.
    SpeedReport(speed_report::SpeedReportArgs),
    /// List rules, their variants with provenance, and the presets.
    Rules,
    /// List every invariant with its kind, rationale and source.
    Invariants,
}

/// Parse the command line. Help and version print as usual (exit 0); a usage error prints
/// as one line (clap's first line, plus where to look) and exits 2.
pub fn parse() -> Result<Cli, ExitCode> {
    use clap::error::ErrorKind;
    match Cli::try_parse() {
        Ok(cli) => Ok(cli),
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            let _ = e.print();
            Err(ExitCode::SUCCESS)
        }
        Err(e) if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            eprintln!("error: a command is required (see `isrfuzz --help`)");
            Err(ExitCode::from(2))
        }
        Err(e) => {
            let text = e.render().to_string();
            // The message is clap's first paragraph; a value it quotes may hold newlines,
            // kept (escaped) rather than cut there.
            let message = text.split("\n\n").next().unwrap_or_default().trim();
            let mut lines = message.lines().map(str::trim).filter(|l| !l.is_empty());
            let mut first = lines.next().unwrap_or("bad usage").to_string();
            if first.ends_with(':') {
                // "the following required arguments were not provided:" and the list.
                let rest: Vec<&str> = lines.take_while(|l| !l.starts_with("Usage:")).collect();
                first = format!("{first} {}", rest.join(", "));
            } else {
                first = message.to_string();
            }
            let first = first.strip_prefix("error: ").unwrap_or(&first);
            eprintln!("error: {} (see `isrfuzz --help`)", inert(first));
            Err(ExitCode::from(2))
        }
    }
}

/// Run one command; an error is printed as one line and exits 2 (a user's) or 5 (a
/// judge's).
pub fn run(cli: Cli) -> ExitCode {
    let result = match cli.command {
        Command::Hunt(args) => hunt::run(args),
        Command::Replay(args) => replay::run(args),
        Command::Exhaust(args) => exhaust::run(args),
        Command::Promote(args) => promote::run(args),
        Command::Conform(args) => conform::run(args),
        Command::Cluster(args) => cluster::run(args),
        Command::Bench(args) => bench::run(args),
        Command::BenchReport(args) => bench_report::run(args),
        Command::SpeedReport(args) => speed_report::run(args),
        Command::Rules => {
            listing::print_rules();
            Ok(ExitCode::SUCCESS)
        }
        Command::Invariants => {
            listing::print_invariants();
            Ok(ExitCode::SUCCESS)
        }
    };
    result.unwrap_or_else(|e: Error| {
        // The one place errors are printed: whatever user text they quote stays inert.
        eprintln!("error: {}", inert(&e.to_string()));
        match e {
            Error::Harness(_) => ExitCode::from(5),
            _ => ExitCode::from(2),
        }
    })
}
