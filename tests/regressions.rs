//! Replays every history in corpus/regressions/ as its own test and asserts its stored
//! verdict: for each `expect` entry, the rule set violates exactly the listed invariants
//! at the listed steps. So a regression fails both when a fix breaks and when a buggy
//! variant stops reproducing. A file without expectations fails: it would assert nothing.

use isrfuzz::check::history::History;
use isrfuzz::check::oracle;
use isrfuzz::rules::RuleSet;
use libtest_mimic::{Arguments, Failed, Trial};
use std::path::{Path, PathBuf};

fn check(path: &Path) -> Result<(), Failed> {
    let history = History::load(path).map_err(|e| e.to_string())?;
    if history.expect.is_empty() {
        return Err("no `expect` entry: a regression must assert a verdict".into());
    }
    for expectation in &history.expect {
        let rules = RuleSet::parse(&expectation.rules)?;
        let verdict = oracle::run(&history, &[rules], true);
        if oracle::run(&history, &[rules], true).fingerprint() != verdict.fingerprint() {
            return Err(format!(
                "{}: two runs differ (the model is not deterministic)",
                expectation.rules
            )
            .into());
        }
        if let Some(bug) = verdict.harness_bug {
            return Err(format!("harness bug under {}: {bug}", expectation.rules).into());
        }
        let mut expected = expectation.violations.clone();
        expected.sort();
        let actual = verdict.sides[0].expected();
        if actual != expected {
            return Err(format!(
                "{}: expected {expected:?}, got {actual:?}",
                expectation.rules
            )
            .into());
        }
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpus/regressions");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("corpus/regressions exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "corpus/regressions holds no history");
    let trials = files
        .into_iter()
        .map(|path| {
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            Trial::test(name, move || check(&path))
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
