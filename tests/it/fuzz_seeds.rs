//! The committed seed corpora (corpus/<target>/) do what each target expects of them:
//! the diff targets' seeds are the counterexample histories of docs/model/ (reassignment.md#histories, inkless.md#counterexamples) and must still crash them (the
//! harness bites from the first input), fixed_holds' and decode's must not.

use isrfuzz::search::fuzz::{input_history, judge, sides_for, Target};
use std::path::PathBuf;

fn seeds(target: Target) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(target.name());
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{} has no seeds", dir.display());
    files
        .into_iter()
        .map(|p| {
            let b = std::fs::read(&p).unwrap();
            (p, b)
        })
        .collect()
}

#[test]
fn diff_target_seeds_are_counterexamples() {
    for target in [Target::KraftDiff, Target::InklessDiff] {
        for (path, bytes) in seeds(target) {
            let h = input_history(&bytes);
            assert!(
                bytes.first() == Some(&b'{') && h.events.len() > 1,
                "{}: not a JSON history",
                path.display()
            );
            let (_, crash) = judge(target, &h, &sides_for(target, &bytes));
            assert!(
                crash.is_some(),
                "{} no longer crashes {}",
                path.display(),
                target.name()
            );
        }
    }
}

#[test]
fn fixed_holds_and_decode_seeds_run_clean() {
    for target in [Target::FixedHolds, Target::Decode] {
        for (path, bytes) in seeds(target) {
            let h = input_history(&bytes);
            let (verdict, crash) = judge(target, &h, &sides_for(target, &bytes));
            assert!(
                crash.is_none(),
                "{} crashes {}: {}",
                path.display(),
                target.name(),
                isrfuzz::findings::report::verdict_line(&verdict)
            );
        }
    }
}
