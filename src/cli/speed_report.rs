//! `isrfuzz speed-report`: the model-speed comparison of ci/bench-speed.sh rendered
//! (`isrfuzz::bench::speed_report`).

use clap::Args;
use isrfuzz::bench::speed_report;
use isrfuzz::error::Error;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct SpeedReportArgs {
    #[arg(long, default_value = "docs/benchmarks-speed.csv")]
    csv: PathBuf,
    #[arg(long, default_value = "docs/benchmarks.md")]
    md: PathBuf,
    #[arg(long, default_value = "docs/benchmarks-speed.svg")]
    svg: PathBuf,
    /// The command that measured the rows, quoted in the report.
    #[arg(long, default_value = "ci/bench.sh speed BASE_REV")]
    command: String,
    /// The core the runs were pinned to, quoted in the report.
    #[arg(long, default_value_t = 1)]
    cpu: u32,
}

pub fn run(args: SpeedReportArgs) -> Result<ExitCode, Error> {
    let files = speed_report::render(&args.csv, &args.md, &args.svg, &args.command, args.cpu)?;
    super::bench_report::write(&files)
}
