//! The command line as a user meets it: exit codes, one-line errors, no panics, and
//! findings written without ever overwriting.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn isrfuzz(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_isrfuzz"))
        .args(args)
        .output()
        .expect("binary runs")
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

/// Exit code 2 with exactly one line on stderr that contains `needle`, and no panic.
fn assert_usage_error(out: &Output, needle: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(
        stderr.trim_end().lines().count(),
        1,
        "one line expected: {stderr}"
    );
    assert!(stderr.contains(needle), "`{needle}` not in: {stderr}");
}

const GOOD: &str = r#"{"format":1,"brokers":[1,2,3,4,5],"events":[
  {"op":"create_partition","replicas":[1,2,3]},
  {"op":"reassign","target":[1,2,4]},
  {"op":"reassign","target":[1,2,4,5]},
  {"op":"alter_partition","isr":[1,2,3,5]}]}"#;

#[test]
fn replay_prints_table_and_verdict_and_exits_1_on_violation() {
    let dir = scratch("replay_ok");
    let f = write(&dir, "h.json", GOOD);
    let out = isrfuzz(&["replay", &f]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout.contains(
            "verdict: trunk+inkless-main violates G2@2 G5@3; complete holds; states differ from step 2"
        ),
        "{stdout}"
    );
    assert!(stdout.contains("alter_partition p0 isr=[1,2,3,5]"));
}

#[test]
fn replay_json_is_machine_readable() {
    let dir = scratch("replay_json");
    let f = write(&dir, "h.json", GOOD);
    let out = isrfuzz(&[
        "replay",
        &f,
        "--json",
        "--rules",
        "trunk:kafka-21419-always-write",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON verdict");
    assert_eq!(v["first_divergent_step"], 2);
    assert_eq!(v["sides"][0]["rules"], "trunk+inkless-main");
    assert_eq!(v["sides"][0]["violations"][1]["invariant"], "G5");
    assert_eq!(v["sides"][0]["violations"][1]["step"], 3);
    assert_eq!(v["sides"][1]["violations"].as_array().unwrap().len(), 0);
}

#[test]
fn replay_of_a_clean_history_exits_0() {
    let dir = scratch("replay_clean");
    let f = write(&dir, "h.json", GOOD);
    let out = isrfuzz(&["replay", &f, "--rules", "complete"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn bad_input_is_a_one_line_error_with_exit_2() {
    let dir = scratch("bad_input");
    let cases: &[(&str, &str, &str)] = &[
        ("malformed.json", "{\"format\":1,", "malformed JSON"),
        (
            "version.json",
            r#"{"format":8,"brokers":[1],"events":[]}"#,
            "unknown format version 8",
        ),
        (
            "noversion.json",
            r#"{"brokers":[1],"events":[]}"#,
            "missing or non-integer `format`",
        ),
        (
            "dup.json",
            r#"{"format":1,"brokers":[1,2,2],"events":[]}"#,
            "duplicate broker id 2",
        ),
        (
            "neg.json",
            r#"{"format":1,"brokers":[-1],"events":[]}"#,
            "invalid broker id -1",
        ),
        (
            "nobrokers.json",
            r#"{"format":1,"brokers":[],"events":[]}"#,
            "`brokers` must list",
        ),
        (
            "unknown.json",
            r#"{"format":1,"brokers":[1],"events":[{"op":"fence_broker","broker":9}]}"#,
            "broker 9 is not in `brokers`",
        ),
        (
            "partition.json",
            r#"{"format":1,"brokers":[1],"events":[{"op":"cancel_reassignment","partition":1}]}"#,
            "partition 1 is not created",
        ),
        (
            "op.json",
            r#"{"format":1,"brokers":[1],"events":[{"op":"explode"}]}"#,
            "not a history",
        ),
        (
            "field.json",
            r#"{"format":1,"brokers":[1],"events":[],"extra":1}"#,
            "unknown field",
        ),
        (
            "big.json",
            r#"{"format":1,"brokers":[1],"events":[{"op":"create_partition","replicas":[2147483648]}]}"#,
            "not a history",
        ),
    ];
    for (name, text, needle) in cases {
        let f = write(&dir, name, text);
        assert_usage_error(&isrfuzz(&["replay", &f]), needle);
    }
    assert_usage_error(
        &isrfuzz(&["replay", &dir.join("missing.json").to_string_lossy()]),
        "missing.json",
    );
}

#[test]
fn bad_rules_and_arguments_exit_2() {
    let dir = scratch("bad_rules");
    let f = write(&dir, "h.json", GOOD);
    assert_usage_error(
        &isrfuzz(&["replay", &f, "--rules", "trunk:nope"]),
        "unknown preset `nope`",
    );
    assert_usage_error(
        &isrfuzz(&["replay", &f, "--rules", "trunk+completion=9.9"]),
        "unknown variant `9.9`",
    );
    assert_usage_error(
        &isrfuzz(&["replay", &f, "--rules", "a:b:c"]),
        "expected A or A:B",
    );
    assert_usage_error(&isrfuzz(&["hunt", "--seconds", "NaN"]), "--seconds");
    assert_eq!(isrfuzz(&["hunt", "--bogus"]).status.code(), Some(2));
}

#[test]
fn hunt_output_folder_that_cannot_be_written_exits_2() {
    let dir = scratch("unwritable");
    let file = write(&dir, "a-file", "x");
    let out = isrfuzz(&["hunt", "--seconds", "1", "--out", &format!("{file}/sub")]);
    assert_usage_error(&out, "a-file");
}

#[test]
fn hunt_finds_writes_and_never_overwrites() {
    let dir = scratch("hunt");
    let out_dir = dir.join("findings");
    let args = [
        "hunt",
        "--rules",
        "trunk:complete",
        "--seconds",
        "60",
        "--max-histories",
        "3000",
        "--seed",
        "7",
        // trunk's own bug (KAFKA-21419) is expected, not new: count it as new here.
        "--known",
        "none",
        "--out",
        out_dir.to_str().unwrap(),
    ];
    let first = isrfuzz(&args);
    assert_eq!(
        first.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let mut files: Vec<_> = std::fs::read_dir(&out_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(
        files
            .iter()
            .any(|p| p.to_string_lossy().contains("trunk_inkless-main--G5--")),
        "{files:?}"
    );
    let before: Vec<_> = files.iter().map(|p| std::fs::read(p).unwrap()).collect();
    // Same seed again: same findings, same names, contents untouched, nothing added.
    assert_eq!(isrfuzz(&args).status.code(), Some(1));
    let mut again: Vec<_> = std::fs::read_dir(&out_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    again.sort();
    assert_eq!(files, again);
    let after: Vec<_> = again.iter().map(|p| std::fs::read(p).unwrap()).collect();
    assert_eq!(before, after);
    // Every finding replays to the violation its name announces.
    for f in &files {
        let out = isrfuzz(&["replay", f.to_str().unwrap(), "--json"]);
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        let invariant = name.split("--").nth(1).unwrap();
        // The violating side is the one the name is after: the left one, or `complete` when
        // it shows the violation too (then it is `complete`'s, docs/findings.md Triage).
        let found = v["sides"].as_array().unwrap().iter().any(|side| {
            side["violations"]
                .as_array()
                .unwrap()
                .iter()
                .any(|x| x["invariant"] == invariant)
        });
        assert!(found, "{name}: {v}");
    }
}

#[test]
fn hunt_on_the_complete_fix_alone_is_clean() {
    let dir = scratch("hunt_clean");
    let out = isrfuzz(&[
        "hunt",
        "--rules",
        "complete",
        "--seconds",
        "60",
        "--max-histories",
        "3000",
        "--seed",
        "1",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // Its documented holes (F17, ...) are known rows; nothing new.
    assert!(String::from_utf8_lossy(&out.stdout).contains("no new findings"));
}

#[test]
fn rules_and_invariants_list_everything() {
    let rules = String::from_utf8(isrfuzz(&["rules"]).stdout).unwrap();
    for name in [
        "trunk",
        "kafka-21419",
        "kafka-21419-always-write",
        "zk-style",
        "transients-tracked",
        "3.0-3.7",
        "3.8-4.2",
        "4.3+",
        "d79bd502ec",
        "3d267d4536",
        "756f44a3e5",
    ] {
        assert!(rules.contains(name), "{name} missing from `isrfuzz rules`");
    }
    let invariants = String::from_utf8(isrfuzz(&["invariants"]).stdout).unwrap();
    for inv in isrfuzz::check::invariants::INVARIANTS {
        assert!(
            invariants.contains(&format!("{} [{}]", inv.id, inv.kind.name())),
            "{} missing",
            inv.id
        );
    }
}

#[test]
fn raw_fuzzer_artifacts_replay_and_promote() {
    let dir = scratch("promote");
    // Any non-JSON bytes are an artifact: decoded by the engines' own `decode`.
    let artifact = dir.join("crash-0001");
    let bytes: Vec<u8> = (0u32..400)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    std::fs::write(&artifact, &bytes).unwrap();
    let a = artifact.to_str().unwrap();
    let out = isrfuzz(&["replay", a, "--rules", "trunk", "--json"]);
    let v: serde_json::Value =
        serde_json::from_slice(&out.stdout).expect("a verdict for a raw artifact");
    assert_eq!(v["sides"][0]["rules"], "trunk+inkless-main");

    // The KAFKA-21419 repro as an artifact would look after `promote`: a JSON history.
    let repro = write(&dir, "repro.json", GOOD);
    let regressions = dir.join("regressions");
    let r = regressions.to_str().unwrap();
    let promote = [
        "promote",
        &repro,
        "--rules",
        "trunk:complete",
        "--known",
        "none",
    ];
    let first = isrfuzz(&[&promote[..], &["--out", r]].concat());
    let stdout = String::from_utf8_lossy(&first.stdout);
    assert_eq!(first.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("trunk+inkless-main violates G5") && stdout.contains("wrote"),
        "{stdout}"
    );
    let files: Vec<_> = std::fs::read_dir(&regressions)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    assert!(
        files
            .iter()
            .any(|p| p.to_string_lossy().contains("trunk_inkless-main--G5--")),
        "{files:?}"
    );
    // Promoting again writes nothing new and overwrites nothing.
    let before: Vec<_> = files.iter().map(|p| std::fs::read(p).unwrap()).collect();
    let again = isrfuzz(&[&promote[..], &["--out", r]].concat());
    assert!(String::from_utf8_lossy(&again.stdout).contains("already there"));
    let after: Vec<_> = files.iter().map(|p| std::fs::read(p).unwrap()).collect();
    assert_eq!(before, after);
    assert_eq!(
        std::fs::read_dir(&regressions).unwrap().count(),
        files.len()
    );
    // A promoted file is a regression: it replays to its stored verdict.
    for f in &files {
        let h = isrfuzz::History::load(f).unwrap();
        assert!(!h.expect.is_empty());
        for e in &h.expect {
            let rules = isrfuzz::RuleSet::parse(&e.rules).unwrap();
            let verdict = isrfuzz::check::oracle::run(&h, &[rules], false);
            assert_eq!(verdict.sides[0].expected(), e.violations);
        }
    }
}

/// An artifact whose violations are all expected (the KAFKA-21419 repro under trunk, what a
/// `cargo fuzz` crash of `kraft_diff` usually is): `promote` writes nothing, names the
/// finding and where it is written up per violation, says how to keep it, and exits 6;
/// `--known none` then promotes it.
#[test]
fn promote_of_expected_violations_names_them_and_exits_6() {
    let dir = scratch("promote_expected");
    let repro = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/corpus/regressions/kafka-21419-repro.json"
    );
    let out_dir = dir.join("out");
    let o = out_dir.to_str().unwrap();
    let refused = isrfuzz(&["promote", repro, "--out", o]);
    let stdout = String::from_utf8_lossy(&refused.stdout);
    assert_eq!(refused.status.code(), Some(6), "{stdout}");
    for inv in ["G2", "G5"] {
        let line = format!(
            "trunk+inkless-main violates {inv}: expected KAFKA-21419 ({inv} under trunk), documented in docs/model/reassignment.md#kafka-21419; not promoted"
        );
        assert!(stdout.contains(&line), "{line} not in:\n{stdout}");
    }
    assert!(
        stdout.contains("`--known none` promotes them anyway"),
        "{stdout}"
    );
    let written = std::fs::read_dir(&out_dir)
        .map(|d| d.flatten().filter(|e| e.path().is_file()).count())
        .unwrap_or(0);
    assert_eq!(written, 0, "nothing promoted");
    let kept = isrfuzz(&["promote", repro, "--out", o, "--known", "none"]);
    let stdout = String::from_utf8_lossy(&kept.stdout);
    assert_eq!(kept.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("trunk+inkless-main violates G5") && stdout.contains("wrote"),
        "{stdout}"
    );
    // A history that violates nothing is still exit 1.
    let quiet = write(
        &dir,
        "quiet.json",
        r#"{"format":1,"brokers":[1,2,3],"events":[{"op":"create_partition","replicas":[1,2,3]}]}"#,
    );
    let none = isrfuzz(&["promote", &quiet, "--out", o]);
    assert_eq!(
        none.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&none.stdout)
    );
}

/// The limits: offsets and times at the integer edges, empty and huge histories, a path
/// that is not a readable file, and the benchmark and exhaust arguments.
#[test]
fn limits_and_edges_are_one_line_errors() {
    let dir = scratch("limits");
    let create = r#"{"op":"create_partition","replicas":[1]}"#;
    let with = |event: &str| format!(r#"{{"format":1,"brokers":[1],"events":[{create},{event}]}}"#);
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "records.json",
            with(r#"{"op":"produce","records":9223372036854775807}"#),
            "records 9223372036854775807 outside",
        ),
        (
            "records0.json",
            with(r#"{"op":"produce","records":-9223372036854775808}"#),
            "outside 1..=",
        ),
        (
            "time.json",
            with(r#"{"op":"advance_time","ms":9223372036854775807}"#),
            "ms 9223372036854775807 outside",
        ),
        (
            "seal.json",
            with(r#"{"op":"alter_diskless_switch","seal":-9223372036854775808}"#),
            "seal -9223372036854775808 outside",
        ),
        (
            "seal2.json",
            with(r#"{"op":"alter_diskless_switch","seal":9223372036854775807}"#),
            "outside -2..=",
        ),
        (
            "overflow.json",
            with(r#"{"op":"produce","records":9223372036854775808}"#),
            "not a history",
        ),
        (
            "empty.json",
            r#"{"format":1,"brokers":[1],"events":[]}"#.into(),
            "`events` is empty",
        ),
        ("zero.json", String::new(), "malformed JSON"),
        (
            "huge.json",
            format!(
                r#"{{"format":1,"brokers":[1],"events":[{create}{}]}}"#,
                r#",{"op":"list_reassignments"}"#.repeat(1100)
            ),
            "more than the limit of 1024",
        ),
    ];
    for (name, text, needle) in &cases {
        let f = write(&dir, name, text);
        assert_usage_error(&isrfuzz(&["replay", &f]), needle);
    }
    // A file past the size limit is refused before it is read into memory.
    let big = dir.join("big.json");
    std::fs::write(&big, vec![b' '; 5 << 20]).unwrap();
    assert_usage_error(
        &isrfuzz(&["replay", &big.to_string_lossy()]),
        "more than the limit",
    );
    // The largest broker id is fine: ids are only compared, never used in arithmetic.
    let max_id = write(
        &dir,
        "maxid.json",
        r#"{"format":1,"brokers":[2147483647],"events":[{"op":"create_partition","replicas":[2147483647]}]}"#,
    );
    assert_eq!(isrfuzz(&["replay", &max_id]).status.code(), Some(0));
    // Arguments of exhaust, bench and bench-report.
    assert_usage_error(
        &isrfuzz(&["exhaust", "--brokers", "2"]),
        "--brokers must be 3..=7",
    );
    assert_usage_error(
        &isrfuzz(&["exhaust", "--start", "moon"]),
        "unknown start `moon`",
    );
    assert_usage_error(&isrfuzz(&["exhaust", "--depth", "99"]), "at most 8");
    assert_usage_error(
        &isrfuzz(&["exhaust", "--jobs", "0"]),
        "--jobs 0: must be 1..=64",
    );
    assert_usage_error(
        &isrfuzz(&["exhaust", "--jobs", "65"]),
        "--jobs 65: must be 1..=64",
    );
    assert_usage_error(
        &isrfuzz(&["bench", "--parts", "nope"]),
        "unknown part `nope`",
    );
    assert_usage_error(&isrfuzz(&["bench", "--bugs", "nope"]), "unknown bug `nope`");
    let csv = write(&dir, "bad.csv", "date,machine\n1,2,3\n");
    let md = dir.join("out.md").to_string_lossy().into_owned();
    let svg = dir.join("out.svg").to_string_lossy().into_owned();
    assert_usage_error(
        &isrfuzz(&["bench-report", "--csv", &csv, "--md", &md, "--svg", &svg]),
        "line 1",
    );
    let missing = dir.join("none.csv").to_string_lossy().into_owned();
    assert_usage_error(
        &isrfuzz(&[
            "bench-report",
            "--csv",
            &missing,
            "--md",
            &md,
            "--svg",
            &svg,
        ]),
        "none.csv",
    );
}

/// The mode options: a bad `--elr` or `--min-isr` is one line and exit 2; `exhaust --elr`
/// names the mode in its report and writes ELR-on counterexamples.
#[test]
fn elr_options_are_checked_and_reported() {
    let out = isrfuzz(&["hunt", "--elr", "maybe", "--seconds", "0"]);
    assert_usage_error(&out, "expected on, off or drawn");
    for bad in ["0", "65", "many"] {
        let out = isrfuzz(&["hunt", "--jobs", bad, "--seconds", "0"]);
        assert_usage_error(&out, "expected `all` or a count 1..=64");
    }
    for bad in ["0", "4"] {
        let out = isrfuzz(&["exhaust", "--elr", "--min-isr", bad, "--depth", "1"]);
        assert_usage_error(&out, "--min-isr must be 1..=3");
    }
    let out = isrfuzz(&["exhaust", "--min-isr", "x"]);
    assert_usage_error(&out, "min-isr");
    let dir = scratch("exhaust_elr");
    let o = dir.to_string_lossy().into_owned();
    let args = [
        "exhaust",
        "--rules",
        "trunk",
        "--elr",
        "--min-isr",
        "2",
        "--known",
        "none",
    ];
    let out = isrfuzz(&[&args[..], &["--depth", "3", "--out", &o]].concat());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("from `kraft` --elr --min-isr 2: depth 3 of 3"),
        "{stdout}"
    );
    let written: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert!(!written.is_empty(), "{stdout}");
    for e in written {
        let text = std::fs::read_to_string(e.unwrap().path()).unwrap();
        assert!(
            text.contains("\"eligible_leader_replicas\": true"),
            "{text}"
        );
        assert!(text.contains("\"min_insync_replicas\":2"), "{text}");
    }
}

#[test]
fn replay_svg_says_where_it_wrote() {
    let dir = scratch("replay-svg");
    let svg = dir.join("timeline.svg");
    let out = isrfuzz(&[
        "replay",
        "corpus/regressions/kafka-21419-repro.json",
        "--svg",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout, format!("wrote {}\n", svg.display()));
    assert!(std::fs::read_to_string(&svg).unwrap().starts_with("<svg"));
}
