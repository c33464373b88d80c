//! `hunt` on several workers: the same seed and job count find the same findings in any
//! schedule, the histories are split exactly, and two workers that reach the same witness
//! write one file for it.

use isrfuzz::check::history::History;
use isrfuzz::findings::Sink;
use isrfuzz::rules::RuleSet;
use isrfuzz::search::hunt::{hunt, Config, Report};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("isrfuzz-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn config(pair: (&str, &str), histories: u64, seed: u64, jobs: usize) -> Config {
    let pairs = vec![[
        RuleSet::parse(pair.0).unwrap(),
        RuleSet::parse(pair.1).unwrap(),
    ]];
    Config {
        budget: Duration::from_secs(600),
        histories_max: Some(histories),
        jobs,
        ..Config::new(pairs, seed)
    }
}

/// What a run found: each row with its witness.
fn found(r: &Report) -> BTreeSet<(String, &'static str, String)> {
    r.findings
        .iter()
        .map(|f| (f.side_rules.to_string(), f.invariant, f.history.to_json()))
        .collect()
}

/// The top folder's finding files (the lock file and class folders aside).
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    out.sort();
    out
}

#[test]
fn the_same_seed_and_job_count_find_the_same_findings() {
    let cfg = config(("trunk", "complete"), 900, 11, 3);
    let a = hunt(&cfg, &Sink::memory(), |_| {}).unwrap();
    let b = hunt(&cfg, &Sink::memory(), |_| {}).unwrap();
    assert!(!a.findings.is_empty());
    assert_eq!(found(&a), found(&b));
    // Exactly the histories asked for, split over the workers (300 each).
    assert_eq!((a.histories, b.histories), (900, 900));
}

#[test]
fn two_workers_that_find_the_same_history_write_one_file() {
    let pair = [RuleSet::parse("trunk").unwrap(), RuleSet::complete()];
    let seed = hunt(
        &config(("trunk", "complete"), 400, 2, 1),
        &Sink::memory(),
        |_| {},
    )
    .unwrap();
    let g5 = seed
        .findings
        .iter()
        .find(|f| f.invariant == "G5")
        .expect("a G5 finding");
    let history: History = g5.history.clone();
    let out = scratch("workers-one-file");
    let sink = Sink::new(Some(out.clone()), Vec::new(), "test");
    let (a, b) = std::thread::scope(|s| {
        let one = s.spawn(|| sink.promote(pair, 0, "G5", &history).unwrap());
        let two = s.spawn(|| sink.promote(pair, 0, "G5", &history).unwrap());
        (one.join().unwrap(), two.join().unwrap())
    });
    assert_eq!(a.path, b.path);
    assert_eq!(files(&out), vec![a.path.clone().unwrap()]);
    // The file stays while either finding holds it, and goes with the last.
    sink.retire(&a);
    assert_eq!(files(&out).len(), 1);
    sink.retire(&b);
    assert!(files(&out).is_empty());
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn a_hunt_on_four_workers_writes_each_row_once() {
    let out = scratch("workers-rows");
    let sink = Sink::new(Some(out.clone()), Vec::new(), "test");
    let report = hunt(&config(("trunk", "complete"), 2000, 5, 4), &sink, |_| {}).unwrap();
    assert!(report.write_error.is_none());
    let rows: BTreeSet<_> = (report.findings.iter())
        .map(|f| (f.side_rules.to_string(), f.invariant))
        .collect();
    assert_eq!(rows.len(), report.findings.len(), "one finding per row");
    // Every finding's file exists, and nothing else was left behind: the other workers'
    // witnesses of the same rows were let go.
    let mut paths: Vec<PathBuf> = (report.findings.iter())
        .map(|f| f.path.clone().unwrap())
        .collect();
    paths.sort();
    paths.dedup();
    assert_eq!(files(&out), paths);
    let _ = std::fs::remove_dir_all(&out);
}
