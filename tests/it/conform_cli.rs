//! `isrfuzz conform`'s failures as a user meets them, without a JVM: each is one line on
//! stderr, never a panic; exit 2 for the user's, exit 5 for the judge's (a JVM that dies
//! or answers nonsense). The JVM itself is replaced by scripts named `java`.

use crate::common::scratch;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `isrfuzz conform ARGS`, each run with a findings folder of its own (the folder is
/// locked for a run: parallel tests must not share the default one).
fn conform(args: &[&str], path: Option<&Path>) -> Output {
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let run = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let out = scratch("conform-out", &format!("run-{run}"));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_isrfuzz"));
    cmd.arg("conform").args(args).arg("--out").arg(out);
    if let Some(p) = path {
        cmd.env("PATH", p);
    }
    cmd.output().expect("binary runs")
}

fn assert_usage_error(out: &Output, needle: &str) {
    assert_one_line_error(out, 2, needle);
}

fn assert_one_line_error(out: &Output, code: i32, needle: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(code),
        "status {:?}, stderr: {stderr}",
        out.status
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    assert!(stderr.contains(needle), "`{needle}` not in: {stderr}");
}

const HISTORY: &str = "corpus/regressions/kafka-21419-repro.json";

/// A driver folder whose build is cached (so Maven is not asked) and a `java` on PATH
/// that runs `script` instead of a JVM.
fn fake_driver(name: &str, script: &str) -> (PathBuf, PathBuf) {
    crate::common::fake_driver(&scratch("conform", name), script)
}

#[test]
fn a_release_the_driver_does_not_run_is_a_usage_error() {
    for bad in ["3.9", "5.0", "4.x", "four"] {
        assert_usage_error(&conform(&["--kafka", bad, HISTORY], None), "--kafka");
    }
}

#[test]
fn nothing_to_run_is_a_usage_error() {
    assert_usage_error(&conform(&["--kafka", "4.0"], None), "FILES|DIRS");
}

#[test]
fn no_java_is_one_line_and_exit_2() {
    let empty = scratch("conform", "conform-no-java");
    let out = conform(&["--kafka", "4.0", HISTORY], Some(&empty));
    assert_usage_error(&out, "Java runtime");
}

#[test]
fn a_folder_without_the_driver_is_named() {
    let empty = scratch("conform", "conform-no-driver");
    let dir = empty.to_string_lossy().into_owned();
    let out = conform(&["--kafka", "4.0", "--driver", &dir, HISTORY], None);
    assert_usage_error(&out, "no conformance driver here");
}

/// `java -version` answers (so Java is "there"), the driver then dies at once.
#[test]
fn a_jvm_that_dies_mid_history_is_one_line_and_exit_5() {
    let script = r#"[ "$1" = -version ] && exit 0; echo 'Error: boom' >&2; exit 3"#;
    let (driver, bin) = fake_driver("conform-jvm-dies", script);
    let path = format!("{}:/usr/bin:/bin", bin.display());
    let d = driver.to_string_lossy().into_owned();
    let out = conform(
        &["--kafka", "4.0", "--driver", &d, HISTORY],
        Some(Path::new(&path)),
    );
    assert_one_line_error(&out, 5, "died");
    assert!(String::from_utf8_lossy(&out.stderr).contains("Error: boom"));
}

/// A driver that answers what is not the protocol is named, not a panic.
#[test]
fn an_answer_that_is_not_the_protocol_is_one_line_and_exit_5() {
    let script = r#"[ "$1" = -version ] && exit 0; while read l; do echo 'not json'; done"#;
    let (driver, bin) = fake_driver("conform-bad-answer", script);
    let path = format!("{}:/usr/bin:/bin", bin.display());
    let d = driver.to_string_lossy().into_owned();
    let out = conform(
        &["--kafka", "4.0", "--driver", &d, HISTORY],
        Some(Path::new(&path)),
    );
    assert_one_line_error(&out, 5, "cannot read");
}

/// Histories the release cannot take (Inkless topics, or a flag 4.0 cannot carry) are
/// refused before any JVM starts, naming the first reason.
#[test]
fn histories_the_release_cannot_take_are_refused_before_any_jvm() {
    let empty = scratch("conform", "conform-inkless-only");
    let inkless = "corpus/regressions/f4-born-diskless-follower-diverted-for-good.json";
    let out = conform(&["--kafka", "4.4", inkless], Some(&empty));
    assert_usage_error(&out, "Inkless-only");
    let dir = scratch("conform", "conform-keep-rf");
    let keep_rf = dir.join("keep-rf.json");
    std::fs::write(
        &keep_rf,
        r#"{"format":4,"brokers":[1,2],"events":[{"op":"create_partition","replicas":[1]},
        {"op":"reassign","target":[1,2],"allow_replication_factor_change":false}]}"#,
    )
    .unwrap();
    let path = keep_rf.to_string_lossy().into_owned();
    assert_usage_error(
        &conform(&["--kafka", "4.0", &path], Some(&empty)),
        "cannot carry",
    );
}

/// `--json` prints one object even when the run cannot start: its `error` is the line
/// stderr shows.
#[test]
fn json_is_one_object_even_without_java() {
    let empty = scratch("conform", "conform-json-no-java");
    let out = conform(&["--kafka", "4.0", "--json", HISTORY], Some(&empty));
    assert_usage_error(&out, "Java runtime");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.lines().count(), 1, "one line: {stdout}");
    let object: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert!(object["error"].as_str().unwrap().contains("Java runtime"));
}
