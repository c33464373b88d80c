//! `isrfuzz replay`: run histories and print step tables and verdicts (or JSON verdicts).

use crate::cli::input::{check_rules, load_all, sides_for};
use clap::Args;
use isrfuzz::check::oracle::{self, Verdict};
use isrfuzz::conform::junit_upstream::ticket_reproducer;
use isrfuzz::error::{inert, inert_json, Error};
use isrfuzz::findings::{operator, report, svg, ticket};
use isrfuzz::History;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Args)]
pub struct ReplayArgs {
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
    /// Write the counterexample as an SVG timeline to FILE (one history only).
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,
    /// Print the history as the commands an operator runs on a real cluster.
    #[arg(long)]
    operator: bool,
    /// Print the finding as a ticket to file: `jira` (JIRA wiki markup, for
    /// issues.apache.org) or `md` (GitHub Markdown).
    #[arg(long, value_name = "FORMAT")]
    report: Option<String>,
}

pub fn run(args: ReplayArgs) -> Result<ExitCode, Error> {
    check_rules(args.rules.as_deref())?;
    if let Some(f) = args
        .report
        .as_deref()
        .filter(|f| ticket::Format::parse(f).is_none())
    {
        return Err(Error::Usage(format!(
            "--report: unknown format `{}` (known: jira, md)",
            inert(f)
        )));
    }
    let histories = load_all(&args.files)?;
    // Every file's rule sets resolved before any is run: bad input fails before output.
    let all_sides = histories
        .iter()
        .map(|(path, h)| sides_for(h, path, args.rules.as_deref()))
        .collect::<Result<Vec<_>, Error>>()?;
    if args.svg.is_some() && histories.len() != 1 {
        return Err(Error::Usage(format!(
            "--svg draws one history, got {}",
            histories.len()
        )));
    }
    let (mut violated, mut bug) = (false, false);
    for ((path, history), sides) in histories.iter().zip(all_sides) {
        let verdict = oracle::run(history, &sides, true);
        if args.check_determinism
            && oracle::run(history, &sides, true).fingerprint() != verdict.fingerprint()
        {
            eprintln!(
                "error: {}: two runs of the same history differ (harness bug)",
                shown(path)
            );
            bug = true;
        }
        violated |= verdict.any_violation();
        bug |= verdict.harness_bug.is_some();
        print_outputs(&args, path, history, &verdict)?;
        violated |= !expect_holds(path, history, &verdict);
    }
    Ok(if bug {
        ExitCode::from(3)
    } else if violated {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// What `replay` prints for one history: the SVG file, operator steps, a bug report, or
/// the step tables (or JSON verdict).
fn print_outputs(
    args: &ReplayArgs,
    path: &Path,
    history: &History,
    verdict: &Verdict,
) -> Result<(), Error> {
    if let Some(file) = &args.svg {
        std::fs::write(file, svg::timeline(history, verdict)).map_err(Error::io(file))?;
        // Say where it went; with --json stdout holds the verdict alone.
        let wrote = format!("wrote {}", shown(file));
        if args.json {
            eprintln!("{wrote}");
        } else {
            println!("{wrote}");
        }
    }
    if args.operator {
        let side = &verdict.sides[0];
        println!(
            "# {}: the states to see are those of isrfuzz rule set {}",
            shown(path),
            side.rules
        );
        print!("{}", operator::operator_steps(history, side));
    } else if let Some(format) = args.report.as_deref().and_then(ticket::Format::parse) {
        print!(
            "{}",
            ticket::ticket(&shown(path), history, verdict, format, ticket_reproducer)
        );
    } else if args.svg.is_none() || args.json {
        print_verdict(path, history, verdict, args.json);
    }
    Ok(())
}

fn print_verdict(path: &Path, history: &History, verdict: &Verdict, json: bool) {
    if json {
        // The name stays exact for a reader of the JSON, and inert on a terminal.
        println!(
            "{}",
            inert_json(&report::verdict_json(&path.display().to_string(), verdict))
        );
        return;
    }
    println!("== {}", shown(path));
    if let Some(d) = &history.description {
        println!("   {}", inert(d));
    }
    for side in &verdict.sides {
        print!("{}", report::step_table(history, side));
    }
    println!("verdict: {}\n", report::verdict_line(verdict));
}

/// A file name as printed: inert, so a hostile name cannot reach the terminal raw.
fn shown(path: &Path) -> String {
    inert(&path.display().to_string())
}

/// Compare the file's `expect` block with the verdict, for every side it names; print one
/// line per side where the recorded expectation is not what happened.
fn expect_holds(path: &Path, history: &History, verdict: &Verdict) -> bool {
    let mut holds = true;
    for e in &history.expect {
        let Ok(rules) = isrfuzz::rules::RuleSet::parse(&e.rules) else {
            eprintln!(
                "expect: {}: unknown rule set `{}` in `expect`",
                shown(path),
                inert(&e.rules)
            );
            holds = false;
            continue;
        };
        let Some(side) = verdict.sides.iter().find(|s| s.rules == rules) else {
            continue;
        };
        let mut recorded = e.violations.clone();
        recorded.sort();
        let actual = side.expected();
        if recorded != actual {
            let show = |v: &[isrfuzz::check::history::ExpectedViolation]| {
                let list: Vec<String> = v
                    .iter()
                    .map(|v| format!("{}@{}", v.invariant, v.step))
                    .collect();
                if list.is_empty() {
                    "none".to_string()
                } else {
                    list.join(" ")
                }
            };
            eprintln!(
                "expect: {}: the file expects {} under {}, the verdict is {}",
                shown(path),
                show(&recorded),
                inert(&e.rules),
                show(&actual)
            );
            holds = false;
        }
    }
    holds
}
