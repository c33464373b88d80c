//! The `isrfuzz` command line. Exit codes: 0 nothing violated, 1 something violated or
//! found, 2 bad usage or input, 3 harness bug (the model panicked).

use clap::{Parser, Subcommand};
use isrfuzz::check::history::History;
use isrfuzz::check::invariants::{Check, INVARIANTS};
use isrfuzz::check::oracle;
use isrfuzz::error::Error;
use isrfuzz::findings::report;
use isrfuzz::rules::{RuleSet, COMPLETE_INKLESS, COMPLETE_KRAFT, PRESETS, RULES};
use isrfuzz::search::hunt::{self, Config};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

#[derive(Parser)]
#[command(
    name = "isrfuzz",
    version,
    about = "Differential fuzzing of Kafka KRaft and Inkless replication rules"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Search random histories for invariant violations, minimize and save each finding.
    Hunt {
        /// Rule-set pair A:B (repeatable). Default: every preset against the complete fix.
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
        /// Known findings to count instead of report (default: corpus/known.json when it
        /// exists here; `--known none` for none).
        #[arg(long, value_name = "FILE")]
        known: Option<PathBuf>,
        /// Stop at the first finding of this invariant (time-to-detection measurements).
        #[arg(long, value_name = "INVARIANT")]
        until: Option<String>,
    },
    /// Run histories (JSON files or folders of them) and print step tables and verdicts.
    Replay {
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
        /// Rule sets A:B or A (default: the file's own `rules`, else trunk against the complete fix).
        #[arg(long = "rules", value_name = "A:B")]
        rules: Option<String>,
        /// Print one machine-readable verdict per file instead of tables.
        #[arg(long)]
        json: bool,
        /// Run every history twice and fail (exit 3) if the two traces differ.
        #[arg(long)]
        check_determinism: bool,
    },
    /// Explore every history up to a depth (breadth-first, equal states merged): shortest
    /// counterexamples, or a bound to which a rule set holds.
    Exhaust {
        /// Rule sets A or A:B (each side explored on its own).
        #[arg(long = "rules", value_name = "A[:B]", default_value = "complete")]
        rules: String,
        /// Operations after the starting state.
        #[arg(long, default_value_t = 3)]
        depth: usize,
        /// Starting cluster: `kraft` (replicas [1,2,3] on brokers 1..5) or `switched`
        /// (a consolidating partition switched at seal 10 on brokers 1..3).
        #[arg(long, default_value = "kraft")]
        start: String,
        /// Brokers in the starting cluster (3..=7; default 5 for `kraft`, 3 for `switched`).
        #[arg(long)]
        brokers: Option<usize>,
        /// Largest reassignment target.
        #[arg(long, default_value_t = 4)]
        max_target: usize,
        /// Stop once this many distinct states are stored (memory bound).
        #[arg(long, default_value_t = 2_000_000)]
        states_max: usize,
        /// Folder for the shortest counterexamples.
        #[arg(long, default_value = "findings/exhaust")]
        out: PathBuf,
    },
    /// Turn fuzzer artifacts or histories into minimized regression histories.
    Promote {
        #[arg(required = true, value_name = "ARTIFACT")]
        files: Vec<PathBuf>,
        /// Rule sets A:B or A (default: the history's own, else trunk against complete).
        #[arg(long = "rules", value_name = "A:B")]
        rules: Option<String>,
        /// Where regressions go.
        #[arg(long, default_value = "corpus/regressions")]
        out: PathBuf,
        /// Judge raw artifacts with this fuzz target's rule sets (e.g. `cluster`, whose
        /// pair depends on the input's first byte), instead of `--rules`.
        #[arg(long, value_name = "TARGET")]
        target: Option<String>,
    },
    /// Planted-bug benchmark, in-process part: model throughput per family, and time to
    /// detection of every planted bug by `hunt` and `exhaust`. Appends rows to a CSV
    /// (ci/bench.sh adds libFuzzer and AFL++; `bench-report` renders the table and plot).
    Bench {
        /// hunt trials (seeds 1..=N) per bug.
        #[arg(long, default_value_t = 10)]
        trials: u32,
        /// Budget per hunt trial.
        #[arg(long, default_value_t = 20)]
        budget_seconds: u64,
        /// Seconds per throughput run (3 runs per family).
        #[arg(long, default_value_t = 3)]
        throughput_seconds: u64,
        /// Which parts to run.
        #[arg(long, value_delimiter = ',', default_value = "throughput,hunt,exhaust")]
        parts: Vec<String>,
        /// Only these bugs (names as in `--list-bugs`).
        #[arg(long, value_delimiter = ',')]
        bugs: Vec<String>,
        /// CSV to append to (created with a header if missing); none: print only.
        #[arg(long)]
        csv: Option<PathBuf>,
        /// Print `name|rules|invariant|start` per planted bug and exit.
        #[arg(long)]
        list_bugs: bool,
    },
    /// Render a benchmark CSV as a Markdown table and an SVG plot.
    BenchReport {
        #[arg(long, default_value = "docs/benchmarks.csv")]
        csv: PathBuf,
        #[arg(long, default_value = "docs/benchmarks.md")]
        md: PathBuf,
        #[arg(long, default_value = "docs/benchmarks.svg")]
        svg: PathBuf,
    },
    /// List rules, their variants with provenance, and the presets.
    Rules,
    /// List every invariant with its kind, rationale and source.
    Invariants,
}

fn main() -> ExitCode {
    // Like other command-line tools, end quietly when the reader goes away (`| head`)
    // instead of panicking on a write to a closed pipe.
    #[cfg(unix)]
    // SAFETY: restoring the default disposition of SIGPIPE before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Hunt {
            rules,
            seconds,
            seed,
            out,
            max_histories,
            known,
            until,
        } => cmd_hunt(&rules, seconds, seed, out, max_histories, known, until),
        Command::Replay {
            files,
            rules,
            json,
            check_determinism,
        } => cmd_replay(&files, rules.as_deref(), json, check_determinism),
        Command::Promote {
            files,
            rules,
            out,
            target,
        } => cmd_promote(&files, rules.as_deref(), out, target.as_deref()),
        Command::Exhaust {
            rules,
            depth,
            start,
            brokers,
            max_target,
            states_max,
            out,
        } => cmd_exhaust(&rules, depth, &start, brokers, max_target, states_max, out),
        Command::Bench {
            trials,
            budget_seconds,
            throughput_seconds,
            parts,
            bugs,
            csv,
            list_bugs,
        } => {
            if list_bugs {
                for b in isrfuzz::search::bench::BUGS {
                    println!("{}|{}|{}|{}", b.name, b.rules, b.invariant, b.start);
                }
                Ok(ExitCode::SUCCESS)
            } else {
                let opts = BenchOpts {
                    trials,
                    budget: Duration::from_secs(budget_seconds),
                    throughput: Duration::from_secs(throughput_seconds),
                    parts,
                    bugs,
                };
                cmd_bench(&opts, csv.as_deref())
            }
        }
        Command::BenchReport { csv, md, svg } => cmd_bench_report(&csv, &md, &svg),
        Command::Rules => {
            print_rules();
            Ok(ExitCode::SUCCESS)
        }
        Command::Invariants => {
            print_invariants();
            Ok(ExitCode::SUCCESS)
        }
    };
    result.unwrap_or_else(|e| {
        eprintln!("error: {e}");
        ExitCode::from(2)
    })
}

fn default_pairs() -> Vec<[RuleSet; 2]> {
    let complete = RuleSet::complete();
    // `inkless-main` on the trunk base is `trunk` itself: each rule set once.
    let mut pairs: Vec<[RuleSet; 2]> = Vec::new();
    for p in PRESETS {
        let rules = RuleSet::parse(p.name).expect("presets parse");
        if !pairs.iter().any(|[a, _]| *a == rules) {
            pairs.push([rules, complete]);
        }
    }
    pairs
}

fn parse_pair(text: &str) -> Result<[RuleSet; 2], Error> {
    let sides = RuleSet::parse_pair(text).map_err(Error::Usage)?;
    match sides[..] {
        [a, b] => Ok([a, b]),
        [a] => Ok([a, a]),
        _ => unreachable!("parse_pair returns one or two sides"),
    }
}

fn cmd_hunt(
    rules: &[String],
    seconds: f64,
    seed: Option<u64>,
    out: PathBuf,
    max_histories: Option<u64>,
    known: Option<PathBuf>,
    until: Option<String>,
) -> Result<ExitCode, Error> {
    if let Some(id) = until
        .as_deref()
        .filter(|id| isrfuzz::check::invariants::by_id(id).is_none())
    {
        return Err(Error::Usage(format!(
            "--until: unknown invariant `{id}` (see `isrfuzz invariants`)"
        )));
    }
    if !(seconds.is_finite() && (0.0..=7.0 * 86400.0).contains(&seconds)) {
        return Err(Error::Usage(format!(
            "--seconds must be between 0 and 604800, got {seconds}"
        )));
    }
    let pairs = if rules.is_empty() {
        default_pairs()
    } else {
        rules
            .iter()
            .map(|r| parse_pair(r))
            .collect::<Result<_, _>>()?
    };
    let seed = seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    });
    let names: Vec<String> = pairs.iter().map(|[a, b]| format!("{a}:{b}")).collect();
    println!("hunt: seed {seed}, {seconds} s, pairs {}", names.join(" "));
    let cfg = Config {
        pairs,
        budget: Duration::from_secs_f64(seconds),
        histories_max: max_histories,
        seed,
        out: Some(out),
        known: load_known_default(known)?,
        until,
        origin: None,
    };
    let bar = indicatif::ProgressBar::new((seconds * 10.0) as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:30} {elapsed}/{duration} {msg}")
            .expect("valid template"),
    );
    let report = hunt::hunt(&cfg, |r| {
        let rate = r.histories as f64 / r.elapsed.as_secs_f64().max(1e-9);
        bar.set_position((r.elapsed.as_secs_f64() * 10.0) as u64);
        bar.set_message(format!(
            "{} histories, {rate:.0}/s, {} findings",
            r.histories,
            r.findings.len()
        ));
    })?;
    bar.finish_and_clear();
    print_hunt_report(&report);
    Ok(if !report.harness_bugs.is_empty() {
        ExitCode::from(3)
    } else if report.findings.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn print_hunt_report(report: &hunt::Report) {
    let secs = report.elapsed.as_secs_f64();
    println!(
        "{} histories in {secs:.1} s ({:.0}/s)",
        report.histories,
        report.histories as f64 / secs.max(1e-9)
    );
    for ((rules, invariant), n) in &report.known {
        println!("known {rules} violates {invariant}: {n} histories (see corpus/known.json)");
    }
    for f in &report.findings {
        let steps = f.history.events.len();
        let path = f
            .path
            .as_deref()
            .map_or_else(String::new, |p| p.display().to_string());
        println!(
            "FOUND {} violates {} (pair {}:{}) after {:.3} s / {} histories; minimized to {steps} events: {path}",
            f.side_rules,
            f.invariant,
            f.pair[0],
            f.pair[1],
            f.elapsed.as_secs_f64(),
            f.histories
        );
    }
    for (h, bug) in &report.harness_bugs {
        println!("HARNESS BUG: {bug}\n{}", h.to_json());
    }
    let sometimes: Vec<String> = INVARIANTS
        .iter()
        .zip(&report.sometimes)
        .filter(|(i, _)| matches!(i.check, Check::Sometimes(_)))
        .map(|(i, n)| format!("{}={n}", i.id))
        .collect();
    println!("sometimes: {}", sometimes.join(" "));
    if report.findings.is_empty() && report.harness_bugs.is_empty() {
        println!("no violation found");
    }
}

fn load_known_default(known: Option<PathBuf>) -> Result<Vec<hunt::Known>, Error> {
    let default = PathBuf::from("corpus/known.json");
    match known {
        Some(p) if p.as_os_str() == "none" => Ok(Vec::new()),
        Some(p) => hunt::load_known(&p),
        None if default.exists() => hunt::load_known(&default),
        None => Ok(Vec::new()),
    }
}

/// In a folder: JSON histories and the engines' artifacts (libFuzzer `crash-*`, `oom-*`,
/// `timeout-*`, AFL++ `id:*`).
fn is_history_file(p: &Path) -> bool {
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    p.extension().is_some_and(|x| x == "json")
        || ["crash-", "oom-", "timeout-", "id:"]
            .iter()
            .any(|prefix| name.starts_with(prefix))
}

/// A `.json` file is a history (errors are reported); any other file is an input as the
/// fuzz targets read it: a JSON history if it parses as one, else bytes to `decode`.
fn load_input(path: &Path) -> Result<History, Error> {
    let io = |e: std::io::Error| Error::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    let size = std::fs::metadata(path).map_err(io)?.len();
    if size > isrfuzz::check::history::FILE_BYTES_MAX {
        return Err(Error::Input {
            path: path.to_path_buf(),
            message: format!("{size} bytes, more than the limit"),
        });
    }
    if path.extension().is_some_and(|x| x == "json") {
        return History::load(path);
    }
    // Exactly what the fuzz targets do with the same bytes.
    let bytes = std::fs::read(path).map_err(io)?;
    Ok(isrfuzz::search::fuzz::input_history(&bytes))
}

/// Expand folders into their `*.json` files (sorted), keep files as given.
fn expand(files: &[PathBuf]) -> Result<Vec<PathBuf>, Error> {
    let mut out = Vec::new();
    for f in files {
        if f.is_dir() {
            let entries = std::fs::read_dir(f).map_err(|e| Error::Io {
                path: f.clone(),
                message: e.to_string(),
            })?;
            let mut found: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| is_history_file(p))
                .collect();
            found.sort();
            out.extend(found);
        } else {
            out.push(f.clone());
        }
    }
    Ok(out)
}

fn sides_for(history: &History, path: &Path, rules: Option<&str>) -> Result<Vec<RuleSet>, Error> {
    let text = match (rules, history.rules.as_deref()) {
        (Some(r), _) => r.to_string(),
        (None, Some(r)) => r.to_string(),
        (None, None) => "trunk:complete".to_string(),
    };
    RuleSet::parse_pair(&text).map_err(|m| Error::Input {
        path: path.to_path_buf(),
        message: m,
    })
}

fn cmd_replay(
    files: &[PathBuf],
    rules: Option<&str>,
    json: bool,
    check_determinism: bool,
) -> Result<ExitCode, Error> {
    if let Some(r) = rules {
        RuleSet::parse_pair(r).map_err(Error::Usage)?;
    }
    let files = expand(files)?;
    // Load everything first: bad input fails before any output.
    let histories: Vec<(PathBuf, History)> = files
        .iter()
        .map(|p| load_input(p).map(|h| (p.clone(), h)))
        .collect::<Result<_, _>>()?;
    let (mut violated, mut bug) = (false, false);
    for (path, history) in &histories {
        let sides = sides_for(history, path, rules)?;
        let verdict = oracle::run(history, &sides, true);
        if check_determinism
            && oracle::run(history, &sides, true).fingerprint() != verdict.fingerprint()
        {
            eprintln!(
                "error: {}: two runs of the same history differ (harness bug)",
                path.display()
            );
            bug = true;
        }
        violated |= verdict.any_violation();
        bug |= verdict.harness_bug.is_some();
        if json {
            println!(
                "{}",
                report::verdict_json(&path.display().to_string(), &verdict)
            );
            continue;
        }
        println!("== {}", path.display());
        if let Some(d) = &history.description {
            println!("   {d}");
        }
        for side in &verdict.sides {
            print!("{}", report::step_table(history, side));
        }
        println!("verdict: {}\n", report::verdict_line(&verdict));
    }
    Ok(if bug {
        ExitCode::from(3)
    } else if violated {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn cmd_promote(
    files: &[PathBuf],
    rules: Option<&str>,
    out: PathBuf,
    target: Option<&str>,
) -> Result<ExitCode, Error> {
    let target = match target {
        None => None,
        Some(name) => Some(
            isrfuzz::search::fuzz::Target::ALL
                .into_iter()
                .find(|t| t.name() == name)
                .ok_or_else(|| {
                    let names: Vec<_> = isrfuzz::search::fuzz::Target::ALL
                        .iter()
                        .map(|t| t.name())
                        .collect();
                    Error::Usage(format!(
                        "unknown target `{name}` (known: {})",
                        names.join(", ")
                    ))
                })?,
        ),
    };
    if let Some(r) = rules {
        RuleSet::parse_pair(r).map_err(Error::Usage)?;
    }
    let files = expand(files)?;
    let inputs: Vec<(PathBuf, History)> = files
        .iter()
        .map(|p| load_input(p).map(|h| (p.clone(), h)))
        .collect::<Result<_, _>>()?;
    let mut known = load_known_default(None)?;
    let mut written = 0;
    for (path, history) in &inputs {
        let sides = match target {
            Some(t) => {
                let bytes = std::fs::read(path).map_err(|e| Error::Io {
                    path: path.clone(),
                    message: e.to_string(),
                })?;
                isrfuzz::search::fuzz::sides_for(t, &bytes)
            }
            None => sides_for(history, path, rules)?,
        };
        let pair = match sides[..] {
            [a, b] => [a, b],
            [a] => [a, a],
            _ => unreachable!("one or two sides"),
        };
        std::fs::create_dir_all(&out).map_err(|e| Error::Io {
            path: out.clone(),
            message: e.to_string(),
        })?;
        let cfg = Config {
            pairs: vec![pair],
            budget: Duration::ZERO,
            histories_max: None,
            seed: 0,
            out: Some(out.clone()),
            known: known.clone(),
            until: None,
            origin: Some(format!("promoted from {}", path.display())),
        };
        let findings = hunt::promote_all(&cfg, pair, history)?;
        if findings.is_empty() {
            println!(
                "{}: no new violation under {}",
                path.display(),
                pair.iter()
                    .map(RuleSet::to_string)
                    .collect::<Vec<_>>()
                    .join(":")
            );
        }
        for f in findings {
            // Triage: one regression per (rule set, invariant) per invocation; later
            // artifacts showing the same pair are treated as known.
            known.push(hunt::Known {
                rules: f.side_rules.to_string(),
                invariant: f.invariant.to_string(),
                detail: None,
                reason: format!("promoted in this run from {}", path.display()),
            });
            let file = f
                .path
                .as_deref()
                .map_or_else(String::new, |p| p.display().to_string());
            let state = if f.created { "wrote" } else { "already there" };
            println!(
                "{} violates {}: {} events, {state}: {file}",
                f.side_rules,
                f.invariant,
                f.history.events.len()
            );
            written += 1;
        }
    }
    Ok(if written > 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn cmd_exhaust(
    rules: &str,
    depth: usize,
    start: &str,
    brokers: Option<usize>,
    max_target: usize,
    states_max: usize,
    out: PathBuf,
) -> Result<ExitCode, Error> {
    if depth > 8 {
        return Err(Error::Usage(format!("--depth {depth}: at most 8")));
    }
    let sides = RuleSet::parse_pair(rules).map_err(Error::Usage)?;
    let start = &isrfuzz::search::exhaust::start_named(start, brokers).map_err(Error::Usage)?;
    let known = load_known_default(None)?;
    let mut any = false;
    for (i, &rules) in sides.iter().enumerate() {
        // With A:B, each side's counterexamples are replayed under the other side too.
        let other = (sides.len() == 2).then(|| sides[1 - i]);
        let t0 = std::time::Instant::now();
        let report =
            isrfuzz::search::exhaust::explore(start, &rules, depth, max_target, states_max);
        println!(
            "{rules} from `{}`: depth {} of {depth}, {} transitions, {} distinct states, {:.1} s",
            start.name,
            report.depth_reached,
            report.transitions,
            report.states,
            t0.elapsed().as_secs_f64()
        );
        for (invariant, history) in &report.violations {
            let detail = oracle::run(history, &[rules], false).sides[0]
                .violations
                .iter()
                .find(|v| v.invariant == *invariant)
                .map(|v| v.detail.clone())
                .unwrap_or_default();
            if known.iter().any(|k| k.matches(&rules, invariant, &detail)) {
                println!("  known {invariant}");
                continue;
            }
            any = true;
            let ops = history.events.len() - start.setup.len();
            let mut h = history.clone();
            hunt::annotate(
                &mut h,
                [rules, rules],
                0,
                invariant,
                &format!("found by `isrfuzz exhaust --start {}`", start.name),
            );
            std::fs::create_dir_all(&out).map_err(|e| Error::Io {
                path: out.clone(),
                message: e.to_string(),
            })?;
            let (path, _) = hunt::write_finding(&out, &h, &rules, invariant)?;
            let versus = other.map_or(String::new(), |b| {
                let also = oracle::run(history, &[b], false).sides[0].violates(invariant);
                format!(" ({b} {})", if also { "violates it too" } else { "holds" })
            });
            println!(
                "  {invariant}: shortest counterexample {ops} operations after the start{versus}: {}",
                path.display()
            );
        }
        if report.violations.is_empty() {
            println!("  holds to depth {}", report.depth_reached);
        }
    }
    Ok(if any {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn print_rules() {
    for rule in RULES {
        println!("rule {} ({:?}): {}", rule.id, rule.family, rule.summary);
        for v in rule.variants {
            println!("  {:<26} {}", v.name, v.summary);
            println!("  {:<26} source: {}", "", v.provenance);
        }
        println!();
    }
    println!(
        "presets (a rule set is `item(+item)*`, an item a preset, `complete` or rule=variant;"
    );
    println!("a preset sets only its family's rules; a pair is `A:B`):");
    for p in PRESETS {
        let complete = if p.name == COMPLETE_KRAFT || p.name == COMPLETE_INKLESS {
            " [part of `complete`, the default right-hand side of hunt]"
        } else {
            ""
        };
        println!("  {:<26} {:?}: {}{complete}", p.name, p.family, p.summary);
    }
    println!("\ncomplete = {}", RuleSet::complete().describe());
}

fn print_invariants() {
    for inv in INVARIANTS {
        println!("{} [{}] {}", inv.id, inv.kind.name(), inv.statement);
        println!("   why: {}", inv.rationale);
        println!("   source: {}\n", inv.source);
    }
}

struct BenchOpts {
    trials: u32,
    budget: Duration,
    throughput: Duration,
    parts: Vec<String>,
    bugs: Vec<String>,
}

/// Appends rows to the CSV as they are measured, so an interrupted run keeps them.
struct CsvSink {
    file: Option<(PathBuf, std::fs::File)>,
}

impl CsvSink {
    fn open(path: Option<&Path>) -> Result<CsvSink, Error> {
        let Some(path) = path else {
            return Ok(CsvSink { file: None });
        };
        let io = |e: std::io::Error| Error::Io {
            path: path.to_path_buf(),
            message: e.to_string(),
        };
        let fresh = !path.exists();
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(io)?;
        if fresh {
            use std::io::Write;
            writeln!(file, "{}", isrfuzz::search::bench::CSV_HEADER).map_err(io)?;
        }
        Ok(CsvSink {
            file: Some((path.to_path_buf(), file)),
        })
    }

    fn push(&mut self, row: &isrfuzz::search::bench::Row) -> Result<(), Error> {
        if let Some((path, file)) = &mut self.file {
            use std::io::Write;
            writeln!(file, "{}", row.csv()).map_err(|e| Error::Io {
                path: path.clone(),
                message: e.to_string(),
            })?;
        }
        Ok(())
    }
}

fn cmd_bench(opts: &BenchOpts, csv: Option<&Path>) -> Result<ExitCode, Error> {
    use isrfuzz::search::bench::{self, Row, BUGS};
    for part in &opts.parts {
        if !["throughput", "hunt", "exhaust"].contains(&part.as_str()) {
            return Err(Error::Usage(format!(
                "unknown part `{part}` (throughput, hunt, exhaust)"
            )));
        }
    }
    for name in &opts.bugs {
        if !BUGS.iter().any(|b| b.name == name) {
            return Err(Error::Usage(format!(
                "unknown bug `{name}` (see --list-bugs)"
            )));
        }
    }
    if opts.trials == 0 || opts.trials > 1000 {
        return Err(Error::Usage("--trials must be 1..=1000".into()));
    }
    let mut sink = CsvSink::open(csv)?;
    let (date, machine) = (bench::today(), bench::machine());
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
    let wants = |part: &str| opts.parts.iter().any(|p| p == part);
    println!("machine: {machine}; date: {date}");
    if wants("throughput") {
        for family in ["kraft", "inkless", "mixed"] {
            for run in 0..3u32 {
                let (n, secs) = bench::throughput(family, opts.throughput, u64::from(run) + 1)
                    .map_err(Error::Usage)?;
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
    }
    let selected = BUGS
        .iter()
        .filter(|b| opts.bugs.is_empty() || opts.bugs.iter().any(|n| n == b.name));
    for b in selected {
        if wants("hunt") {
            for seed in 1..=opts.trials {
                let t = bench::hunt_trial(b, u64::from(seed), opts.budget).map_err(Error::Usage)?;
                sink.push(&Row {
                    result: if t.detected.is_some() {
                        "detected"
                    } else {
                        "timeout"
                    }
                    .into(),
                    seconds: t.seconds,
                    execs: t.execs,
                    triggered_s: t.triggered,
                    ..row("hunt", b.name, b.invariant, seed)
                })?;
                println!(
                    "hunt    {:<15} {:<6} seed {seed:>2}: {}",
                    b.name,
                    b.invariant,
                    t.detected.map_or("timeout".into(), |s| format!("{s:.3} s"))
                );
            }
        }
        if wants("exhaust") {
            let depth = if b.start == "kraft" { 5 } else { 6 };
            let (secs, ops, transitions) = bench::exhaust_trial(b, depth).map_err(Error::Usage)?;
            sink.push(&Row {
                result: if ops.is_some() {
                    "detected"
                } else {
                    "unreachable"
                }
                .into(),
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
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn cmd_bench_report(csv: &Path, md: &Path, svg: &Path) -> Result<ExitCode, Error> {
    let text = std::fs::read_to_string(csv).map_err(|e| Error::Io {
        path: csv.to_path_buf(),
        message: e.to_string(),
    })?;
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if i == 0 && line == isrfuzz::search::bench::CSV_HEADER || line.trim().is_empty() {
            continue;
        }
        rows.push(
            isrfuzz::search::bench::Row::parse(line).map_err(|message| Error::Input {
                path: csv.to_path_buf(),
                message: format!("line {}: {message}", i + 1),
            })?,
        );
    }
    if rows.is_empty() {
        return Err(Error::Input {
            path: csv.to_path_buf(),
            message: "no rows".into(),
        });
    }
    let command = format!(
        "isrfuzz bench-report --csv {} --md {} --svg {}",
        csv.display(),
        md.display(),
        svg.display()
    );
    for (path, body) in [
        (md, isrfuzz::search::bench::markdown(&rows, &command)),
        (svg, isrfuzz::search::bench::svg(&rows)),
    ] {
        std::fs::write(path, body).map_err(|e| Error::Io {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        println!("wrote {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}
