//! `isrfuzz bench-report`: the benchmark's CSV rendered as docs/benchmarks.md and its plots
//! (`isrfuzz::bench::report`).

use clap::Args;
use isrfuzz::bench::report;
use isrfuzz::error::Error;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Args)]
pub struct BenchReportArgs {
    #[arg(long, default_value = "docs/benchmarks.csv")]
    csv: PathBuf,
    #[arg(long, default_value = "docs/benchmarks.md")]
    md: PathBuf,
    #[arg(long, default_value = "docs/benchmarks.svg")]
    svg: PathBuf,
    /// Rows of `bench --parts rediscover`, rendered (with the plot beside it and the notes
    /// `NAME-notes.md`, if any) when the file exists.
    #[arg(long, default_value = "docs/rediscovery.csv")]
    rediscovery: PathBuf,
}

pub fn run(args: BenchReportArgs) -> Result<ExitCode, Error> {
    let files = report::render(&args.csv, &args.md, &args.svg, &args.rediscovery)?;
    write(&files)
}

/// Writes a report's files in order, naming each once written.
pub fn write(files: &[(PathBuf, String)]) -> Result<ExitCode, Error> {
    for (path, body) in files {
        std::fs::write(path, body).map_err(Error::io(path))?;
        println!(
            "wrote {}",
            isrfuzz::error::inert(&path.display().to_string())
        );
    }
    Ok(ExitCode::SUCCESS)
}
