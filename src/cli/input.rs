//! What the commands read: history files and folders of them, fuzzer artifacts, and the
//! rule sets to judge them with.

use isrfuzz::check::history::History;
use isrfuzz::error::Error;
use isrfuzz::rules::RuleSet;
use isrfuzz::search;
use isrfuzz::search::generate::ElrMode;
use std::path::{Path, PathBuf};

/// `A:B` as a pair; `A` alone is the pair `A:A` (a single-sided run).
pub fn parse_pair(text: &str) -> Result<[RuleSet; 2], Error> {
    let sides = RuleSet::parse_pair(text).map_err(Error::Usage)?;
    Ok(pair_of(&sides))
}

/// One or two sides as a pair.
pub fn pair_of(sides: &[RuleSet]) -> [RuleSet; 2] {
    match sides[..] {
        [a, b] => [a, b],
        [a] => [a, a],
        _ => unreachable!("parse_pair returns one or two sides"),
    }
}

/// Fail early on a malformed `--rules`, before any input is read.
pub fn check_rules(rules: Option<&str>) -> Result<(), Error> {
    match rules {
        Some(r) => RuleSet::parse_pair(r).map(drop).map_err(Error::Usage),
        None => Ok(()),
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
    if path.extension().is_some_and(|x| x == "json") {
        return History::load(path);
    }
    // Exactly what the fuzz targets do with the same bytes (read with the same limit).
    let bytes = isrfuzz::check::history::read_limited(path)?;
    Ok(isrfuzz::search::fuzz::input_history(&bytes))
}

/// Expand folders into their history files (sorted), keep files as given.
fn expand(files: &[PathBuf]) -> Result<Vec<PathBuf>, Error> {
    let mut out = Vec::new();
    for f in files {
        if f.is_dir() {
            let entries = std::fs::read_dir(f).map_err(Error::io(f))?;
            let mut found: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| is_history_file(p))
                .collect();
            found.sort();
            if found.is_empty() {
                return Err(Error::input(f)(
                    "no history in this folder (`*.json`, `crash-*`, `oom-*`, `timeout-*`, `id:*`)"
                        .to_string(),
                ));
            }
            out.extend(found);
        } else {
            out.push(f.clone());
        }
    }
    Ok(out)
}

/// Every input named (folders expanded), all loaded before any is run, so bad input fails
/// before any output.
pub fn load_all(files: &[PathBuf]) -> Result<Vec<(PathBuf, History)>, Error> {
    expand(files)?
        .into_iter()
        .map(|p| load_input(&p).map(|h| (p, h)))
        .collect()
}

/// The sides to judge `history` with: `--rules`, else the file's own, else trunk against
/// the complete fix.
pub fn sides_for(
    history: &History,
    path: &Path,
    rules: Option<&str>,
) -> Result<Vec<RuleSet>, Error> {
    let text = match (rules, history.rules.as_deref()) {
        (Some(r), _) => r.to_string(),
        (None, Some(r)) => r.to_string(),
        (None, None) => "trunk:complete".to_string(),
    };
    RuleSet::parse_pair(&text).map_err(Error::input(path))
}

/// `--elr`'s value.
pub fn parse_elr(s: &str) -> Result<ElrMode, String> {
    match s {
        "on" => Ok(ElrMode::On),
        "off" => Ok(ElrMode::Off),
        "drawn" => Ok(ElrMode::Drawn),
        _ => Err(format!("expected on, off or drawn, got `{s}`")),
    }
}

/// `--jobs`'s value for the random searches: `all` (every core this process may use) or
/// a count, 1..=[`search::JOBS_MAX`].
pub fn parse_jobs(s: &str) -> Result<usize, String> {
    if s == "all" {
        return Ok(search::default_jobs());
    }
    match s.parse::<usize>() {
        Ok(n) if (1..=search::JOBS_MAX).contains(&n) => Ok(n),
        _ => Err(format!(
            "expected `all` or a count 1..={}, got `{s}`",
            search::JOBS_MAX
        )),
    }
}
