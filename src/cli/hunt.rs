//! `isrfuzz hunt`: the in-process search, with a progress bar and a summary.

use crate::cli::input::{parse_elr, parse_jobs, parse_pair};
use clap::Args;
use isrfuzz::check::invariants::{self, Check, INVARIANTS};
use isrfuzz::error::Error;
use isrfuzz::findings::attribution;
use isrfuzz::findings::triage::load_known_or_default;
use isrfuzz::findings::Sink;
use isrfuzz::search::generate::ElrMode;
use isrfuzz::search::hunt::{self, Config, Report};
use isrfuzz::search::stop;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Longest budget accepted: a week.
const SECONDS_MAX: f64 = 7.0 * 86400.0;

#[derive(Args)]
pub struct HuntArgs {
    /// Rule-set pair A:B (repeatable). Default: every preset against `complete`, the other
    /// family at its complete setting on both sides (`complete+trunk:complete`, ...).
    #[arg(long = "rules", value_name = "A:B")]
    rules: Vec<String>,
    /// Time budget in seconds.
    #[arg(long, default_value_t = 60.0)]
    seconds: f64,
    /// Random seed (default: from the clock; printed so the run can be repeated).
    #[arg(long)]
    seed: Option<u64>,
    /// Folder for minimized findings (JSON histories).
    #[arg(long, default_value = "findings")]
    out: PathBuf,
    /// Stop after this many histories.
    #[arg(long, value_name = "N")]
    max_histories: Option<u64>,
    /// Expected and known findings to count instead of report (default: those built in,
    /// from corpus/known.json; `--known none` for none).
    #[arg(long, value_name = "FILE")]
    known: Option<PathBuf>,
    /// Stop at the first finding of this invariant (time-to-detection measurements).
    #[arg(long, value_name = "INVARIANT")]
    until: Option<String>,
    /// Print only the summary, as one JSON object (for tools).
    #[arg(long)]
    json: bool,
    /// Eligible leader replicas (KIP-966) in every history: `on`, `off`, or `drawn` per
    /// history from its input (half on).
    #[arg(long, value_name = "on|off|drawn", default_value = "drawn", value_parser = parse_elr)]
    elr: ElrMode,
    /// Worker threads: `all` (every core) or a count. Each worker draws from its own seed,
    /// derived from `--seed`; the same seed and count find the same findings.
    #[arg(long, value_name = "N|all", default_value = "all", value_parser = parse_jobs)]
    jobs: usize,
}

pub fn run(args: HuntArgs) -> Result<ExitCode, Error> {
    let cfg = config(&args)?;
    let names: Vec<String> = cfg.pairs.iter().map(|[a, b]| format!("{a}:{b}")).collect();
    if !args.json {
        println!(
            "hunt: seed {}, {} job(s), {} s, elr {}, pairs {}",
            cfg.seed,
            cfg.jobs,
            args.seconds,
            elr_name(cfg.elr),
            names.join(" ")
        );
        if args.rules.is_empty() {
            for (pair, why) in attribution::REACH_PAIRS {
                println!("  {pair}:complete is a default pair for {why}");
            }
        }
    }
    // What reproduces a finding: the seed, and the job count when it is not one (the
    // other workers' seeds derive from both).
    let origin = match cfg.jobs {
        1 => format!("found by `isrfuzz hunt --seed {}`", cfg.seed),
        n => format!("found by `isrfuzz hunt --seed {} --jobs {n}`", cfg.seed),
    };
    let known = load_known_or_default(args.known.as_deref())?;
    let sink =
        Sink::new(Some(args.out), known, origin).listing(cfg.pairs.iter().flatten().copied());
    let bar = indicatif::ProgressBar::new((args.seconds * 10.0) as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:30} {elapsed}/{duration} {msg}")
            .expect("valid template"),
    );
    stop::install();
    let report = hunt::hunt(&cfg, &sink, |p| {
        let rate = p.histories as f64 / p.elapsed.as_secs_f64().max(1e-9);
        bar.set_position((p.elapsed.as_secs_f64() * 10.0) as u64);
        bar.set_message(format!(
            "{} histories, {rate:.0}/s, {} findings",
            p.histories, p.findings
        ));
    })?;
    bar.finish_and_clear();
    print_report(&report, args.json);
    if let Some(signal) = stop::stopped_by().filter(|_| !args.json) {
        println!("stopped by {signal} after {} histories", report.histories);
    }
    if let Some(e) = report.write_error {
        println!("stopped: a finding could not be written (the error below carries it)");
        // The report above holds everything written; the error carries the finding that
        // was not.
        return Err(e);
    }
    Ok(if !report.harness_bugs.is_empty() {
        ExitCode::from(3)
    } else if report.findings.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn elr_name(elr: ElrMode) -> &'static str {
    match elr {
        ElrMode::On => "on",
        ElrMode::Off => "off",
        ElrMode::Drawn => "drawn",
    }
}

/// Check the arguments and build the search's configuration.
fn config(args: &HuntArgs) -> Result<Config, Error> {
    if let Some(id) = args
        .until
        .as_deref()
        .filter(|id| invariants::by_id(id).is_none())
    {
        return Err(Error::Usage(format!(
            "--until: unknown invariant `{id}` (see `isrfuzz invariants`)"
        )));
    }
    if let Some(id) = args.until.as_deref().filter(|id| {
        invariants::by_id(id).is_some_and(|i| matches!(i.kind, invariants::Kind::Sometimes))
    }) {
        return Err(Error::Usage(format!(
            "--until: `{id}` is a sometimes-property, never a finding (choose an invariant that can be violated)"
        )));
    }
    let seconds = args.seconds;
    if !(seconds.is_finite() && (0.0..=SECONDS_MAX).contains(&seconds)) {
        return Err(Error::Usage(format!(
            "--seconds must be between 0 and 604800, got {seconds}"
        )));
    }
    let pairs = if args.rules.is_empty() {
        attribution::default_pairs()
    } else {
        args.rules
            .iter()
            .map(|r| parse_pair(r))
            .collect::<Result<_, _>>()?
    };
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    });
    Ok(Config {
        pairs,
        budget: Duration::from_secs_f64(seconds),
        histories_max: args.max_histories,
        seed,
        until: args.until.clone(),
        watch: Vec::new(),
        elr: args.elr,
        jobs: args.jobs,
    })
}

/// The end of a run: harness bugs, the sometimes counts, then the one summary (rule set
/// × invariant × finding), or with `--json` the summary alone as one JSON object.
fn print_report(report: &Report, json: bool) {
    if json {
        println!("{}", report.summary.json(report.histories, report.elapsed));
        return;
    }
    let secs = report.elapsed.as_secs_f64();
    println!(
        "{} histories in {secs:.1} s ({:.0}/s)",
        report.histories,
        report.histories as f64 / secs.max(1e-9)
    );
    for (h, bug) in &report.harness_bugs {
        println!("HARNESS BUG: {bug}\n{}", h.to_json());
    }
    // The vacuity counters: a rule decision no history made means the invariants that
    // need it were not tested (the counts are in `bench` and the JSON of `exhaust`).
    let never: Vec<&str> = INVARIANTS
        .iter()
        .zip(&report.sometimes)
        .filter(|(i, n)| matches!(i.check, Check::Sometimes(_)) && **n == 0)
        .map(|(i, _)| i.id)
        .collect();
    if !never.is_empty() {
        println!(
            "never exercised: {} (`isrfuzz invariants` says what each decision is)",
            never.join(" ")
        );
    }
    if report.summary.rows.is_empty() && report.harness_bugs.is_empty() {
        println!("no violation found");
    }
    print!("{}", report.summary.table(report.histories, report.elapsed));
}
