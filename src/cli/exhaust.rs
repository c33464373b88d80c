//! `isrfuzz exhaust`: every history to a depth from a fixed start; shortest
//! counterexamples, or the depth to which a rule set holds.

use clap::Args;
use isrfuzz::error::Error;
use isrfuzz::findings::summary::{Row, Summary};
use isrfuzz::findings::triage::load_known_or_default;
use isrfuzz::findings::Sink;
use isrfuzz::rules::RuleSet;
use isrfuzz::search::counterexamples::{self, Counterexample};
use isrfuzz::search::{exhaust, stop};
use std::path::PathBuf;
use std::process::ExitCode;

/// Exit code when the memory budget (`--memory-max`, `--states-max`) cut the exploration
/// short and nothing was violated in what was explored (no claim is made for the depth
/// asked).
pub const EXIT_BOUND_NOT_REACHED: u8 = 4;

/// Deepest exploration accepted: the state count grows about tenfold per level.
const DEPTH_MAX: usize = 8;

#[derive(Args)]
pub struct ExhaustArgs {
    /// Expected and known findings to count instead of report (default: those built in,
    /// from corpus/known.json; `--known none` for none).
    #[arg(long, value_name = "FILE")]
    known: Option<PathBuf>,
    /// Rule sets A or A:B (each side explored on its own).
    #[arg(long = "rules", value_name = "A[:B]", default_value = "complete")]
    rules: String,
    /// Operations after the starting state.
    #[arg(long, default_value_t = 3)]
    depth: usize,
    /// Starting cluster: `kraft` (replicas [1,2,3] on brokers 1..5), `switched`
    /// (a consolidating partition switched at seal 10 on brokers 1..3) or `data` (a classic
    /// partition on brokers 1..3 with produce, fetch, fence and unclean-restart moves).
    #[arg(long, default_value = "kraft")]
    start: String,
    /// Brokers in the starting cluster (3..=7; default 5 for `kraft`, 3 for `switched`).
    #[arg(long)]
    brokers: Option<usize>,
    /// Largest reassignment target.
    #[arg(long, default_value_t = 4)]
    max_target: usize,
    /// Memory budget: stop before the stored states outgrow it (bytes, or with a K, M or G
    /// suffix, powers of 1024). A state costs 48 bytes beyond a 256 MiB working set.
    #[arg(long, value_name = "SIZE", default_value = "4G", value_parser = parse_size)]
    memory_max: u64,
    /// Stop once this many distinct states are stored (default: what `--memory-max` holds).
    #[arg(long, value_name = "N")]
    states_max: Option<usize>,
    /// Folder for the shortest counterexamples.
    #[arg(long, default_value = "findings/exhaust")]
    out: PathBuf,
    /// Print only the summary, as one JSON object (for tools).
    #[arg(long)]
    json: bool,
    /// Threads that compute transitions (1..=64; default: the machine's cores). The result
    /// does not depend on it.
    #[arg(long)]
    jobs: Option<usize>,
    /// Eligible leader replicas (KIP-966) on in the starting cluster.
    #[arg(long)]
    elr: bool,
    /// `min.insync.replicas` of the start's partition (1..=3; default 1).
    #[arg(long, value_name = "N")]
    min_isr: Option<i32>,
}

/// The exploration's bounds, checked.
fn limits(args: &ExhaustArgs) -> Result<exhaust::Limits, Error> {
    if args.depth > DEPTH_MAX {
        return Err(Error::Usage(format!(
            "--depth {}: at most {DEPTH_MAX}",
            args.depth
        )));
    }
    Ok(exhaust::Limits {
        depth: args.depth,
        max_target: args.max_target,
        states_max: states_max(args),
        jobs: jobs(args.jobs)?,
    })
}

/// The states the budget holds: `--memory-max`'s, or `--states-max` if smaller.
fn states_max(args: &ExhaustArgs) -> usize {
    let by_memory = exhaust::states_for_budget(args.memory_max);
    args.states_max.map_or(by_memory, |n| n.min(by_memory))
}

/// A size in bytes: digits, then K, M or G (powers of 1024; `KiB` and the like too).
fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    let unit: u32 = match t[digits..].to_ascii_uppercase().as_str() {
        "" | "B" => 0,
        "K" | "KB" | "KIB" => 10,
        "M" | "MB" | "MIB" => 20,
        "G" | "GB" | "GIB" => 30,
        _ => return Err(format!("`{text}`: a size is digits then K, M or G")),
    };
    t[..digits]
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(1u64 << unit))
        .ok_or_else(|| format!("`{text}`: a size is digits then K, M or G, below 16 EiB"))
}

/// `--jobs`, checked; by default the machine's cores.
fn jobs(asked: Option<usize>) -> Result<usize, Error> {
    match asked {
        Some(n) if !(1..=isrfuzz::search::JOBS_MAX).contains(&n) => Err(Error::Usage(format!(
            "--jobs {n}: must be 1..={}",
            isrfuzz::search::JOBS_MAX
        ))),
        Some(n) => Ok(n),
        None => Ok(isrfuzz::search::default_jobs()),
    }
}

pub fn run(args: ExhaustArgs) -> Result<ExitCode, Error> {
    let limits = limits(&args)?;
    let sides = RuleSet::parse_pair(&args.rules).map_err(Error::Usage)?;
    let start = &start(&args)?;
    let known = load_known_or_default(args.known.as_deref())?;
    let origin = format!(
        "found by `isrfuzz exhaust --start {}{}`",
        start.name,
        mode(&args)
    );
    let sink = Sink::new(Some(args.out.clone()), known, origin);
    stop::install();
    let (mut any, mut cut) = (false, false);
    let mut summary = Summary::default();
    let (t_run, mut transitions) = (std::time::Instant::now(), 0u64);
    for (i, &rules) in sides.iter().enumerate() {
        // With A:B, each side's counterexamples are replayed under the other side too.
        let other = (sides.len() == 2).then(|| sides[1 - i]);
        let t0 = std::time::Instant::now();
        let report = exhaust::explore_with(start, &rules, &limits, None);
        transitions += report.transitions as u64;
        say(
            !args.json,
            format!(
                "{rules} from `{}`{}: depth {} of {} explored completely, {} transitions, {} distinct states, {:.1} s",
                start.name,
                mode(&args),
                report.depth_reached,
                args.depth,
                report.transitions,
                report.states,
                t0.elapsed().as_secs_f64()
            ),
        );
        for c in counterexamples::record(&sink, start, rules, other, &report)? {
            any |= c.known.is_none();
            say(!args.json, counterexample_line(&c));
            summary.rows.push(summary_row(rules, &c));
        }
        if let Some(line) = incomplete(&args, &report) {
            cut = true;
            say(!args.json, line);
        }
        if report.violations.is_empty() {
            say(
                !args.json,
                format!(
                    "  holds to depth {} (up to fingerprint collisions: chance ≤ {:.1e} over {} states)",
                    report.depth_reached,
                    report.collision_bound(),
                    report.states
                ),
            );
        }
        if report.stopped {
            break; // the other side is not started: the user asked to stop
        }
    }
    print_summary(&summary, transitions, t_run.elapsed(), args.json);
    Ok(if any {
        ExitCode::from(1)
    } else if cut {
        ExitCode::from(EXIT_BOUND_NOT_REACHED)
    } else {
        ExitCode::SUCCESS
    })
}

/// Why the exploration did not reach the depth asked, if it did not.
fn incomplete(args: &ExhaustArgs, report: &exhaust::Report) -> Option<String> {
    let d = report.cut_at_depth?;
    Some(if report.stopped {
        format!(
            "  INCOMPLETE: stopped by {} during depth {d} after {} transitions; depth {} was not reached",
            stop::stopped_by().unwrap_or("a signal"),
            report.transitions,
            args.depth
        )
    } else {
        format!(
            "  INCOMPLETE: the memory budget ({}) stopped the exploration during depth {d}; depth {} was not reached",
            budget(args),
            args.depth
        )
    })
}

/// The budget in bytes and states, as the report states it.
fn budget(args: &ExhaustArgs) -> String {
    let n = states_max(args);
    let working = exhaust::WORKING_BYTES >> 20;
    if n < exhaust::states_for_budget(args.memory_max) {
        return format!("--states-max {n}");
    }
    let size = size_text(args.memory_max);
    if n == 0 {
        return format!(
            "--memory-max {size} is too small for one depth: the working set alone takes {working} MiB"
        );
    }
    format!(
        "--memory-max {size}: {n} states at {} B each beyond a {working} MiB working set",
        exhaust::STATE_BYTES
    )
}

/// A size as it would be typed: whole units of 1024 where it divides, else bytes.
fn size_text(bytes: u64) -> String {
    for (shift, unit) in [(30, "G"), (20, "M"), (10, "K")] {
        if bytes >= 1 << shift && bytes % (1 << shift) == 0 {
            return format!("{}{unit}", bytes >> shift);
        }
    }
    format!("{bytes}")
}

fn print_summary(summary: &Summary, transitions: u64, elapsed: std::time::Duration, json: bool) {
    if json {
        println!("{}", summary.json(transitions, elapsed));
    } else {
        print!(
            "{}",
            summary
                .table(transitions, elapsed)
                .replacen(" histories", " transitions", 1)
        );
    }
}

/// The starting cluster the options name, in the mode they ask for.
fn start(args: &ExhaustArgs) -> Result<exhaust::Start, Error> {
    exhaust::start_named(&args.start, args.brokers)
        .and_then(|s| s.with_mode(args.elr, args.min_isr))
        .map_err(Error::Usage)
}

/// The mode options as given, for the origin and the report line (empty for the default).
fn mode(args: &ExhaustArgs) -> String {
    let mut out = String::new();
    if args.elr {
        out += " --elr";
    }
    if let Some(m) = args.min_isr {
        out += &format!(" --min-isr {m}");
    }
    out
}

fn say(on: bool, line: String) {
    if on {
        println!("{line}");
    }
}

/// A counterexample as a summary row: one shortest history, no time of first meeting.
fn summary_row(rules: RuleSet, c: &Counterexample) -> Row {
    Row {
        rules,
        invariant: c.invariant,
        matched: c.known.clone(),
        count: 1,
        first: None,
        witness: c.path.clone().map(|p| (p, c.ops)),
    }
}

fn counterexample_line(c: &Counterexample) -> String {
    if let Some(m) = &c.known {
        return format!("  {} {} ({})", m.kind.name(), c.invariant, m.id);
    }
    let versus = c.other_violates.map_or(String::new(), |(b, also)| {
        format!(" ({b} {})", if also { "violates it too" } else { "holds" })
    });
    let path = c
        .path
        .as_ref()
        .map(|p| isrfuzz::error::inert(&p.display().to_string()))
        .unwrap_or_default();
    format!(
        "  {}: shortest counterexample {} operations after the start{versus}: {path}",
        c.invariant, c.ops
    )
}
