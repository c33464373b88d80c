//! `isrfuzz promote`: fuzzer artifacts or histories → minimized regression histories.
//!
//! Only new violations become regressions: an expected or known one is already pinned by
//! its own regression and written up. An artifact that shows nothing else (a `cargo fuzz`
//! crash of `kraft_diff` is often KAFKA-21419 itself) is not an error: each violation is
//! named with the finding it is and where that is written up, `--known none` keeps them
//! anyway, and the exit code (6) tells a script that nothing new was there.

use crate::cli::input::{check_rules, load_all, pair_of, sides_for};
use clap::Args;
use isrfuzz::error::{inert, Error};
use isrfuzz::findings::skipped::Skipped;
use isrfuzz::findings::triage::{load_known_or_default, Known};
use isrfuzz::findings::{Finding, Sink};
use isrfuzz::rules::RuleSet;
use isrfuzz::search::fuzz::{self, Target};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Args)]
pub struct PromoteArgs {
    /// Expected and known findings to count instead of report (default: those built in,
    /// from corpus/known.json; `--known none` for none: every violation is promoted).
    #[arg(long, value_name = "FILE")]
    known: Option<PathBuf>,
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
}

/// Exit code when nothing was promoted because every violation is an expected or known
/// finding (`--known none` promotes them).
pub const ONLY_KNOWN: u8 = 6;

pub fn run(args: PromoteArgs) -> Result<ExitCode, Error> {
    let target = args.target.as_deref().map(target_named).transpose()?;
    check_rules(args.rules.as_deref())?;
    if target.is_some() {
        fuzz::check_env().map_err(Error::Usage)?;
    }
    let inputs = load_all(&args.files)?;
    let mut known = load_known_or_default(args.known.as_deref())?;
    let mut written = 0;
    let mut only_known = false;
    for (path, history) in &inputs {
        let sides = match target {
            Some(t) => fuzz::sides_for(t, &isrfuzz::check::history::read_limited(path)?),
            None => sides_for(history, path, args.rules.as_deref())?,
        };
        let pair = pair_of(&sides);
        let origin = format!("promoted from {}", path.display());
        let sink = Sink::new(Some(args.out.clone()), known.clone(), origin);
        sink.create_dir()?;
        let findings = sink.promote_all(pair, history)?;
        // A violation is new (promoted) or expected/known (named here), never both.
        let skipped: Vec<Skipped> = sink.skipped_all(pair, history)?;
        for k in &skipped {
            print_skipped(path, k);
        }
        let pair_name = pair
            .iter()
            .map(RuleSet::to_string)
            .collect::<Vec<_>>()
            .join(":");
        if findings.is_empty() && skipped.is_empty() {
            println!(
                "{}: no violation under {pair_name}",
                inert(&path.display().to_string())
            );
        } else if findings.is_empty() {
            only_known = true;
            println!(
                "{}: no new violation under {pair_name}, only expected or known ones; `--known none` promotes them anyway",
                inert(&path.display().to_string())
            );
        }
        for f in findings {
            // Triage: one regression per (rule set, invariant) per invocation; later
            // artifacts showing the same pair are treated as known.
            known.push(promoted_known(&f, path));
            print_finding(&f);
            written += 1;
        }
    }
    Ok(if written > 0 {
        ExitCode::SUCCESS
    } else if only_known {
        ExitCode::from(ONLY_KNOWN)
    } else {
        ExitCode::from(1)
    })
}

/// One violation left out: which finding it is and where it is written up.
fn print_skipped(path: &Path, k: &Skipped) {
    if k.known.id.is_empty() {
        // Promoted from an earlier artifact of this invocation.
        println!(
            "{}: {} violates {}: {}",
            inert(&path.display().to_string()),
            k.side_rules,
            k.invariant,
            k.known.reason
        );
        return;
    }
    println!(
        "{}: {} violates {}: {} {} ({} under {}), documented in {}; not promoted",
        inert(&path.display().to_string()),
        k.side_rules,
        k.invariant,
        k.known.kind.name(),
        k.known.id,
        k.known.invariant,
        k.known.rules,
        k.documented_in()
    );
}

fn target_named(name: &str) -> Result<Target, Error> {
    Target::ALL
        .into_iter()
        .find(|t| t.name() == name)
        .ok_or_else(|| {
            let names: Vec<_> = Target::ALL.iter().map(|t| t.name()).collect();
            Error::Usage(format!(
                "unknown target `{name}` (known: {})",
                names.join(", ")
            ))
        })
}

fn promoted_known(f: &Finding, path: &Path) -> Known {
    // In memory only: matched by (rule set, invariant), so one regression per pair.
    Known {
        kind: Default::default(),
        through: None,
        id: String::new(),
        rules: f.side_rules.to_string(),
        invariant: f.invariant.to_string(),
        scope: None,
        mechanism: Default::default(),
        reason: format!("promoted in this run from {}", path.display()),
    }
}

fn print_finding(f: &Finding) {
    let file = f
        .path
        .as_deref()
        .map_or_else(String::new, |p| inert(&p.display().to_string()));
    let state = if f.created { "wrote" } else { "already there" };
    println!(
        "{} violates {}: {} events, {state}: {file}",
        f.side_rules,
        f.invariant,
        f.history.events.len()
    );
}
