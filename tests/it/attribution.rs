//! The attribution rules (issue 12): the default pairs isolate one family at a time, the
//! names of rule sets say which rules run and parse back, a violation both sides show is
//! not blamed on the left one, and a run writes each witness history once, listing every
//! rule set of the run that breaks on it.

use isrfuzz::check::history::History;
use isrfuzz::check::oracle;
use isrfuzz::findings::attribution::{default_pairs, differing_families};
use isrfuzz::findings::triage::load_known;
use isrfuzz::findings::Sink;
use isrfuzz::rules::{Family, RuleSet, PRESETS};
use isrfuzz::search::hunt::{hunt, Config};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

fn presets_of(family: Family) -> Vec<&'static str> {
    PRESETS
        .iter()
        .filter(|p| p.family == family)
        .map(|p| p.name)
        .collect()
}

#[test]
fn default_pairs_isolate_one_family_each() {
    let complete = RuleSet::complete();
    let pairs = default_pairs();
    let names: Vec<String> = pairs.iter().map(|[a, _]| a.to_string()).collect();
    expect_test::expect!["complete+trunk complete+3.8-4.2 complete+3.0-3.7 complete+kafka-21419 complete+kafka-21419-always-write complete+zk-style complete+inkless-main complete+pr756-commit1 complete+pr756 complete+pr756+pr760 complete+leader-change=none complete+last-known-leader=4.0"]
    .assert_eq(&names.join(" "));
    for [a, b] in &pairs {
        assert_eq!(*b, complete);
        let families = differing_families(a);
        assert_eq!(families.len(), 1, "{a} differs from complete in one family");
        // The name mentions only presets of the differing family (and `complete`).
        let other = match families[0] {
            Family::Kraft => Family::Inkless,
            Family::Inkless => Family::Kraft,
        };
        let name = a.to_string();
        for p in presets_of(other) {
            let items: Vec<&str> = name.split('+').collect();
            assert!(!items.contains(&p), "{name} names {p} of the other family");
        }
        assert_eq!(RuleSet::parse(&name).unwrap(), *a, "{name} round-trips");
    }
}

#[test]
fn a_shared_violation_belongs_to_the_later_side() {
    // F4's history breaks INV-9 under complete; the KRaft variant on the left does not
    // change that, so the violation is complete's, not `complete+trunk`'s.
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/corpus/regressions/f4-born-diskless-follower-diverted-for-good.json"
    );
    let h = History::load(std::path::Path::new(path)).unwrap();
    let pair = [
        RuleSet::parse("complete+trunk").unwrap(),
        RuleSet::complete(),
    ];
    let verdict = oracle::run(&h, &pair, false);
    assert!(verdict.sides[0].violates("INV-9") && verdict.sides[1].violates("INV-9"));
    assert!(!isrfuzz::findings::attribution::attributed(
        &verdict, 0, "INV-9"
    ));
    assert!(isrfuzz::findings::attribution::attributed(
        &verdict, 1, "INV-9"
    ));
    let found = Sink::memory().promote_all(pair, &h).unwrap();
    assert!(
        found.iter().all(|f| f.side == 1),
        "{:?}",
        found
            .iter()
            .map(|f| (f.side, f.invariant))
            .collect::<Vec<_>>()
    );
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("isrfuzz-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn a_default_hunt_blames_one_family_and_writes_each_witness_once() {
    let out = scratch("attribution");
    let pairs = default_pairs();
    let cfg = Config {
        budget: Duration::from_secs(600),
        histories_max: Some(3000),
        ..Config::new(pairs.clone(), 7)
    };
    let known = load_known(std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/corpus/known.json"
    )))
    .unwrap()
    .into_iter()
    // The expected section would leave few new findings to check attribution on.
    .filter(|k| k.kind == isrfuzz::findings::triage::Kind::Known)
    .collect();
    let sink = Sink::new(Some(out.clone()), known, "test").listing(pairs.iter().flatten().copied());
    let report = hunt(&cfg, &sink, |_| {}).unwrap();
    assert!(report.findings.len() >= 10, "{}", report.findings.len());
    // One file per history and rule set (each rule set's row has a witness of its own).
    let mut by_hash: BTreeMap<(u64, Option<String>), PathBuf> = BTreeMap::new();
    for entry in std::fs::read_dir(&out).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|x| x != "json") {
            continue; // the run's lock file
        }
        let h = History::load(&path).unwrap();
        if let Some(other) = by_hash.insert((h.content_hash(), h.rules.clone()), path.clone()) {
            panic!(
                "{} and {} hold the same history",
                other.display(),
                path.display()
            );
        }
    }
    for f in &report.findings {
        assert!(
            differing_families(&f.side_rules).len() <= 1,
            "{}",
            f.side_rules
        );
        let path = f.path.as_ref().expect("written");
        let h = History::load(path).unwrap();
        // The witness breaks the finder's rule set and says so; the other side holds it.
        let name = f.side_rules.to_string();
        let listed = h.expect.iter().find(|e| e.rules == name);
        assert!(
            listed.is_some_and(|e| e.violations.iter().any(|v| v.invariant == f.invariant)),
            "{} does not list {name} violating {}",
            path.display(),
            f.invariant
        );
        let verdict = oracle::run(&h, &f.pair, false);
        assert!(
            isrfuzz::findings::attribution::attributed(&verdict, f.side, f.invariant),
            "{}",
            path.display()
        );
    }
    let _ = std::fs::remove_dir_all(&out);
}
