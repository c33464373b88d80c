//! `isrfuzz cluster` as a user meets it without a JVM: bad input is one line and exit 2;
//! histories no in-process cluster can run are named and counted without starting one
//! (exit 1); a cluster whose JVM dies at its start is one line and exit 3. The JVM is
//! replaced by scripts named `java` where one is needed.

use crate::common::scratch;
use std::path::Path;
use std::process::{Command, Output};

fn cluster(args: &[&str], path: Option<&Path>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_isrfuzz"));
    cmd.arg("cluster").args(args);
    if let Some(p) = path {
        cmd.env("PATH", p);
    }
    cmd.output().expect("binary runs")
}

fn assert_one_line_error(out: &Output, code: i32, needle: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "stderr: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    assert!(stderr.contains(needle), "`{needle}` not in: {stderr}");
}

const HISTORY: &str = "corpus/regressions/kafka-21419-repro.json";
/// Fenced brokers (a kill -9) and an unclean restart: nothing of it runs in-process.
const BEYOND: &str = "corpus/regressions/elr5-every-candidate-gone-keeps-the-last-leader.json";

#[test]
fn bad_arguments_are_one_line_and_exit_2() {
    for bad in ["3.9", "5.0", "four"] {
        assert_one_line_error(&cluster(&["--kafka", bad, HISTORY], None), 2, "--kafka");
    }
    assert_one_line_error(&cluster(&[HISTORY], None), 2, "--kafka");
    let zero = cluster(
        &["--kafka", "4.3", "--check-deadline-ms", "0", HISTORY],
        None,
    );
    assert_one_line_error(&zero, 2, "--check-deadline-ms");
    assert_one_line_error(
        &cluster(&["--kafka", "4.3", "/nonexistent.json"], None),
        2,
        "nonexistent",
    );
    let rules = cluster(&["--kafka", "4.3", "--rules", "nonsense", HISTORY], None);
    assert_eq!(rules.status.code(), Some(2));
}

/// No Java on PATH: a plan that cannot run in-process needs no cluster.
#[test]
fn histories_beyond_a_cluster_are_named_without_starting_one() {
    let empty = scratch("cluster", "no-java");
    let out = cluster(&["--kafka", "4.3", BEYOND], Some(&empty));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("not expressible in-process: broker"),
        "{stdout}"
    );
    assert!(stdout.contains("no cluster started"), "{stdout}");
    assert!(
        stdout.contains("0 confirmed, 0 not confirmed, 1 not expressible"),
        "{stdout}"
    );
    let json = cluster(&["--kafka", "4.3", "--json", BEYOND], Some(&empty));
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["histories"][0]["verdict"], "not expressible in-process");
    assert_eq!(v["not_expressible"], 1);
}

/// `java -version` answers, the driver then dies at once: the cluster failed to start.
#[cfg(unix)]
#[test]
fn a_cluster_that_cannot_start_is_one_line_and_exit_3() {
    let script = r#"[ "$1" = -version ] && exit 0; echo 'Error: no room' >&2; exit 1"#;
    let (driver, bin) = crate::common::fake_driver(&scratch("cluster", "dies"), script);
    std::fs::write(driver.join("target/classpath-cluster-4.0.2.txt"), "none").unwrap();
    let path = format!("{}:/usr/bin:/bin", bin.display());
    let d = driver.to_string_lossy().into_owned();
    let out = cluster(
        &["--kafka", "4.0", "--driver", &d, HISTORY],
        Some(Path::new(&path)),
    );
    assert_one_line_error(&out, 3, "failed to start");
}
