//! Output is inert: a history's description and a file's name are the user's text, and
//! whatever `replay` (tables, `--operator`, `--report`, `--json`) and `conform` print of
//! them must not carry a raw escape sequence, newline or bidirectional override to the
//! terminal (a cleared screen, a forged line, reordered text).

use crate::common::{fake_driver, scratch};
use std::path::Path;
use std::process::{Command, Output};

/// A description and a file name that would clear the screen, forge a line starting
/// with `INJECTED` and reverse what follows, were they printed raw.
const HOSTILE: &str = "x\u{1b}[2J\nINJECTED\u{202e}gnp.exe";

fn isrfuzz(args: &[&str], path_env: Option<&str>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_isrfuzz"));
    cmd.args(args);
    if let Some(p) = path_env {
        cmd.env("PATH", p);
    }
    cmd.output().expect("the binary runs")
}

/// A history file named and described with [`HOSTILE`]; `events` as JSON.
fn hostile_history(dir: &Path, events: &str) -> String {
    let text = format!(
        r#"{{"format":1,"description":{},"brokers":[1,2,3,4,5],"events":{events}}}"#,
        serde_json::to_string(HOSTILE).unwrap()
    );
    let path = dir.join(format!("{HOSTILE}.json"));
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
}

fn assert_inert(what: &str, out: &Output) {
    for (stream, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        let text = String::from_utf8_lossy(bytes);
        assert!(
            !text.contains('\u{1b}'),
            "{what}: raw ESC on {stream}: {text}"
        );
        assert!(
            !text.contains('\u{202e}'),
            "{what}: raw RLO on {stream}: {text}"
        );
        assert!(
            !text.lines().any(|l| l.starts_with("INJECTED")),
            "{what}: a raw newline forged a line on {stream}: {text}"
        );
        assert!(!text.contains("panicked"), "{what}: {text}");
    }
}

const KAFKA_21419: &str = r#"[
  {"op":"create_partition","replicas":[1,2,3]},
  {"op":"reassign","target":[1,2,4]},
  {"op":"reassign","target":[1,2,4,5]},
  {"op":"alter_partition","isr":[1,2,3,5]}]"#;

#[test]
fn replay_prints_a_hostile_description_and_file_name_inert() {
    let dir = scratch("inert_output", "replay");
    let file = hostile_history(&dir, KAFKA_21419);
    let svg = dir.join(format!("{HOSTILE}.svg"));
    let svg = svg.to_str().unwrap();
    let runs: [(&str, Vec<&str>); 6] = [
        ("replay", vec!["replay", &file]),
        ("replay --operator", vec!["replay", "--operator", &file]),
        (
            "replay --report md",
            vec!["replay", "--report", "md", &file],
        ),
        ("replay --json", vec!["replay", "--json", &file]),
        ("replay --svg", vec!["replay", "--svg", svg, &file]),
        (
            "replay --check-determinism",
            vec!["replay", "--check-determinism", &file],
        ),
    ];
    for (what, args) in runs {
        let out = isrfuzz(&args, None);
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{what}: {:?} {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        assert_inert(what, &out);
    }
    // The plain table shows the description, escaped rather than dropped.
    let table = isrfuzz(&["replay", &file], None);
    let stdout = String::from_utf8_lossy(&table.stdout);
    assert!(
        stdout.contains("\\u{1b}[2J\\u{a}INJECTED\\u{202e}"),
        "{stdout}"
    );
    // --json keeps the exact name for a program: the escapes are JSON's own.
    let json = isrfuzz(&["replay", "--json", &file], None);
    let verdict: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(verdict["file"].as_str(), Some(file.as_str()));
}

#[cfg(unix)]
#[test]
fn conform_prints_a_hostile_file_name_inert() {
    // An Inkless history is skipped, and named, before any request, so `java` need only
    // start; a KRaft history follows so that not all are skipped (the `java`, which dies at
    // once, then ends the run).
    let dir = scratch("inert_output", "conform");
    let events = r#"[
      {"op":"create_partition","replicas":[1,2,3],"diskless":true},
      {"op":"switch_start","consolidating":true}]"#;
    let file = hostile_history(&dir, events);
    let (driver, bin) = fake_driver(&dir, r#"[ "$1" = -version ] && exit 0; exit 3"#);
    let path_env = format!("{}:/usr/bin:/bin", bin.display());
    let d = driver.to_str().unwrap();
    // Its own findings folder: the default one's lock is shared with other tests.
    let findings = dir.join("findings").to_str().unwrap().to_string();
    let out = isrfuzz(
        &[
            "conform",
            "--kafka",
            "4.0",
            "--driver",
            d,
            "--verbose",
            "--out",
            &findings,
            &file,
            "corpus/regressions/kafka-21419-repro.json",
        ],
        Some(&path_env),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("skip"),
        "{stdout} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_inert("conform --verbose", &out);
}
