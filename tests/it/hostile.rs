//! Hostile input: generated cases per class (runaway time steps, huge rule strings, bad
//! environment, special files, name collisions, write failures, cut-short exhaustion,
//! usage errors), each run as a subprocess of the built binary under a memory and CPU
//! bound (`prlimit --as=512MiB --cpu=10`, else a plain 10 s timeout). Each must end with a
//! documented exit code and, on error, exactly one line on stderr, leaving no temp file.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_isrfuzz");

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("hostile")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn has_prlimit() -> bool {
    Command::new("prlimit").arg("--version").output().is_ok()
}

/// Run the binary bounded (512 MiB, 10 s of CPU; 10 s of wall time without prlimit).
fn bounded(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = if has_prlimit() {
        let mut c = Command::new("prlimit");
        c.args(["--as=536870912", "--cpu=10", "--"]).arg(BIN);
        c
    } else {
        let mut c = Command::new("timeout");
        c.args(["10", BIN]);
        c
    };
    cmd.args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("the binary runs")
}

/// Exit code among `codes`; on exit 2 exactly one line on stderr.
fn assert_ends(out: &Output, codes: &[i32], what: &str) {
    let code = out.status.code();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        code.is_some_and(|c| codes.contains(&c)),
        "{what}: exit {code:?} (want {codes:?}), stderr: {}",
        err.chars().take(400).collect::<String>()
    );
    if code == Some(2) {
        assert_eq!(err.lines().count(), 1, "{what}: not one line: {err}");
    }
}

fn no_temp_files(dir: &Path) {
    let left: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".tmp-"))
        .collect();
    assert!(left.is_empty(), "temp files left: {left:?}");
}

fn history(brokers: &[i32], lag: Option<i64>, events: &[serde_json::Value]) -> String {
    let mut h = serde_json::json!({"format": 1, "brokers": brokers, "events": events});
    if let Some(lag) = lag {
        h["broker_config"] = serde_json::json!({ "replica_lag_time_max_ms": lag });
    }
    h.to_string()
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

#[test]
fn runaway_time_steps_are_bounded_or_refused() {
    let dir = scratch("time");
    let create = |r: &[i32]| serde_json::json!({"op": "create_partition", "replicas": r});
    let day = serde_json::json!({"op": "advance_time", "ms": 86_400_000});
    let all: Vec<i32> = (1..=16).collect();
    let mut cases = Vec::new();
    // Item 1: a tiny lag and a day-long step, at each small lag.
    for lag in [2, 3, 4, 10] {
        cases.push(history(
            &[1, 2, 3],
            Some(lag),
            &[create(&[1, 2, 3]), day.clone()],
        ));
    }
    // Item 2: many day-long steps on the default config, small and widest clusters.
    let mut many = vec![create(&[1, 2, 3])];
    many.extend(std::iter::repeat_n(day.clone(), 1000));
    cases.push(history(&[1, 2, 3], None, &many));
    let mut wide: Vec<_> = (0..8).map(|_| create(&all)).collect();
    wide.extend(std::iter::repeat_n(day.clone(), 1000));
    cases.push(history(&all, None, &wide));
    // Just under the work budget on the widest cluster: runs, within the bounds.
    let mut under: Vec<_> = (0..8).map(|_| create(&all)).collect();
    under.extend(std::iter::repeat_n(day, 5));
    cases.push(history(&all, None, &under));
    for (i, text) in cases.iter().enumerate() {
        let f = write(&dir, &format!("t{i}.json"), text);
        for json in [false, true] {
            let mut args = vec!["replay", f.as_str()];
            if json {
                args.push("--json");
            }
            let out = bounded(&args, &[]);
            assert_ends(&out, &[0, 1, 2], &format!("time case {i} json={json}"));
            // The step table stays bounded in size too.
            assert!(
                out.stdout.len() < 8 << 20,
                "case {i}: {} bytes",
                out.stdout.len()
            );
        }
    }
}

#[test]
fn huge_rule_strings_and_bad_environment_end_with_one_line() {
    let dir = scratch("rules");
    let f = write(
        &dir,
        "h.json",
        &history(
            &[1, 2, 3],
            None,
            &[serde_json::json!({"op": "create_partition", "replicas": [1, 2, 3]})],
        ),
    );
    // One argument is at most 128 KiB on Linux; the file's own `rules` field goes further.
    let many = vec!["complete"; 8_000].join("+");
    let long = "x".repeat(60_000);
    let pluses = "+".repeat(60_000);
    for rules in [
        many.as_str(),
        long.as_str(),
        pluses.as_str(),
        "a:b:c",
        ":",
        "complete+",
    ] {
        let out = bounded(&["replay", &f, "--rules", rules], &[]);
        assert_ends(&out, &[2], "huge --rules");
    }
    let in_file = [vec!["complete"; 80_000].join("+"), "y".repeat(2 << 20)];
    for (i, rules) in in_file.iter().enumerate() {
        let text = std::fs::read_to_string(&f).unwrap();
        let mut h: serde_json::Value = serde_json::from_str(&text).unwrap();
        h["rules"] = serde_json::json!(rules);
        let g = write(&dir, &format!("r{i}.json"), &h.to_string());
        assert_ends(&bounded(&["replay", &g], &[]), &[2], "huge `rules` field");
    }
    for env in ["nope", "trunk:", "completion=9+", &many] {
        let out = bounded(
            &[
                "promote",
                "--target",
                "cluster",
                &f,
                "--out",
                dir.to_str().unwrap(),
            ],
            &[("ISRFUZZ_RULES", env)],
        );
        assert_ends(&out, &[2], "ISRFUZZ_RULES");
    }
}

#[test]
fn special_files_are_refused_without_blocking() {
    let dir = scratch("special");
    let fifo = dir.join("fifo.json");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let zero = dir.join("zero.json");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    let empty = dir.join("empty");
    std::fs::create_dir(&empty).unwrap();
    let dup = write(
        &dir,
        "dup.json",
        r#"{"format":1,"brokers":[1],"brokers":[2],"events":[{"op":"list_reassignments"}]}"#,
    );
    let big = dir.join("big.json");
    std::fs::write(&big, vec![b' '; (4 << 20) + 1]).unwrap();
    for p in [
        fifo.as_path(),
        zero.as_path(),
        Path::new("/dev/zero"),
        empty.as_path(),
        Path::new(&dup),
        big.as_path(),
    ] {
        for cmd in ["replay", "promote"] {
            let out = bounded(
                &[cmd, p.to_str().unwrap(), "--out", dir.to_str().unwrap()],
                &[],
            );
            assert_ends(&out, &[2], &format!("{cmd} {}", p.display()));
        }
    }
}

#[test]
fn a_name_collision_never_drops_a_finding() {
    let dir = scratch("collision");
    let out_dir = dir.join("out");
    let src = "corpus/regressions/trunk--G4--56267fc605ad76f8.json";
    let args = [
        "promote",
        src,
        "--rules",
        "trunk",
        // trunk's G4 is KAFKA-21419, expected: promote it anyway.
        "--known",
        "none",
        "--out",
        out_dir.to_str().unwrap(),
    ];
    assert_ends(&bounded(&args, &[]), &[0], "first promote");
    let names = |d: &Path| {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    let first = names(&out_dir);
    // Same again: every name already holds the same text; nothing new.
    assert_ends(&bounded(&args, &[]), &[0], "second promote");
    assert_eq!(names(&out_dir), first);
    // Other content under every name: each finding takes a new name.
    for n in &first {
        std::fs::write(out_dir.join(n), "not this finding").unwrap();
    }
    assert_ends(&bounded(&args, &[]), &[0], "promote over foreign files");
    let after = names(&out_dir);
    assert_eq!(after.len(), 2 * first.len(), "{after:?}");
    for n in &first {
        assert_eq!(
            std::fs::read_to_string(out_dir.join(n)).unwrap(),
            "not this finding"
        );
    }
    no_temp_files(&out_dir);
}

#[test]
fn a_write_failure_keeps_the_report_and_leaves_no_temp_file() {
    if !has_prlimit() {
        return; // the file-size limit below needs prlimit
    }
    let dir = scratch("full");
    // A 200-byte file-size limit makes the first finding's write fail, as a full disk does.
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "prlimit --fsize=200 --cpu=10 -- {BIN} hunt --seconds 3 --seed 1 --out {} 2>&1 | cat",
            dir.display()
        ))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("histories in"), "no report: {text}");
    let error = text
        .lines()
        .find(|l| l.starts_with("error: "))
        .expect("an error line");
    assert!(error.contains("not written, its history: {"), "{error}");
    no_temp_files(&dir);
}

#[test]
fn a_hunt_does_not_share_its_folder() {
    let dir = scratch("concurrent");
    let d = dir.to_str().unwrap();
    let mut first = Command::new(BIN)
        .args(["hunt", "--seconds", "3", "--seed", "1", "--out", d])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(500));
    let second = bounded(&["hunt", "--seconds", "1", "--seed", "2", "--out", d], &[]);
    first.wait().unwrap();
    assert_ends(&second, &[2], "second hunt on one folder");
    assert!(String::from_utf8_lossy(&second.stderr).contains("another run"));
}

#[test]
fn exhaust_cut_short_says_so_and_exits_4() {
    let dir = scratch("exhaust");
    let out = bounded(
        &[
            "exhaust",
            "--rules",
            "complete",
            "--depth",
            "4",
            "--states-max",
            "200",
            "--out",
            dir.to_str().unwrap(),
        ],
        &[],
    );
    assert_ends(&out, &[4], "cut exhaust");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("INCOMPLETE") && text.contains("holds to depth 1"),
        "{text}"
    );
    assert!(!text.contains("holds to depth 4"), "{text}");
}

/// A memory budget below the working set holds no state beyond the start: the run ends in
/// depth 1 with the budget named, exit 4 (incomplete), no abort.
#[test]
fn exhaust_budget_too_small_for_one_depth_exits_4() {
    let dir = scratch("exhaust-budget");
    let args = ["exhaust", "--depth", "3", "--memory-max", "1K", "--out"];
    let out = bounded(&[&args[..], &[dir.to_str().unwrap()]].concat(), &[]);
    assert_ends(&out, &[4], "exhaust with 1K");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("INCOMPLETE")
            && text.contains("--memory-max 1K is too small for one depth")
            && text.contains("during depth 1"),
        "{text}"
    );
}

#[test]
fn usage_errors_are_one_line() {
    for args in [
        &["--bogus"][..],
        &["replay"],
        &[],
        &["exhaust", "--depth", "x"],
        &["hunt", "--until", "V1"],
        &["hunt", "--seconds", "NaN"],
        &["exhaust", "--depth", "99"],
        &["exhaust", "--memory-max", "12Q"],
        &["exhaust", "--memory-max", "99999999999G"],
    ] {
        assert_ends(&bounded(args, &[]), &[2], &format!("{args:?}"));
    }
}

#[test]
fn replay_says_when_an_expect_block_lies() {
    let dir = scratch("expect");
    let src =
        std::fs::read_to_string("corpus/regressions/trunk--G4--56267fc605ad76f8.json").unwrap();
    let mut h: serde_json::Value = serde_json::from_str(&src).unwrap();
    h["expect"][0]["violations"] = serde_json::json!([]);
    let f = write(&dir, "lie.json", &h.to_string());
    let out = bounded(&["replay", &f, "--json"], &[]);
    assert_ends(&out, &[1], "lying expect");
    assert!(String::from_utf8_lossy(&out.stderr).contains("the file expects none"));
}

/// Exit 2 with exactly one line on stderr, and nothing in it a terminal acts on: no
/// control byte but the final newline, no DEL, no bidirectional override.
fn assert_one_inert_line(out: &Output, what: &str) {
    assert_ends(out, &[2], what);
    let err = &out.stderr;
    assert_eq!(err.last(), Some(&b'\n'), "{what}: {err:?}");
    let body = &err[..err.len() - 1];
    assert!(
        !body.iter().any(|&b| b < 0x20 || b == 0x7f),
        "{what}: control byte in {:?}",
        String::from_utf8_lossy(err)
    );
    let text = String::from_utf8_lossy(err);
    assert!(
        !text.contains('\u{202e}'),
        "{what}: bidi override in {text:?}"
    );
}

#[test]
fn user_text_in_errors_stays_one_inert_line() {
    let dir = scratch("inert");
    let create = serde_json::json!({"op": "create_partition", "replicas": [1, 2, 3]});
    let f = write(&dir, "h.json", &history(&[1, 2, 3], None, &[create]));
    let hostile = [
        "complete\n\x1b[2Jtrunk",
        "complete\u{202e}trunk:complete",
        "complete:rule\x7f=x\r",
        "completion=\u{2066}x\u{85}",
    ];
    for rules in hostile {
        let out = bounded(&["replay", &f, "--rules", rules], &[]);
        assert_one_inert_line(&out, &format!("replay --rules {rules:?}"));
        let out = bounded(&["hunt", "--seconds", "1", "--rules", rules], &[]);
        assert_one_inert_line(&out, &format!("hunt --rules {rules:?}"));
        let text = std::fs::read_to_string(&f).unwrap();
        let mut h: serde_json::Value = serde_json::from_str(&text).unwrap();
        h["rules"] = serde_json::json!(rules);
        let g = write(&dir, "r.json", &h.to_string());
        assert_one_inert_line(&bounded(&["replay", &g], &[]), "`rules` field");
        let promote = [
            "promote",
            "--target",
            "cluster",
            &f,
            "--out",
            dir.to_str().unwrap(),
        ];
        let out = bounded(&promote, &[("ISRFUZZ_RULES", rules)]);
        assert_one_inert_line(&out, &format!("ISRFUZZ_RULES={rules:?}"));
        // A value clap refuses is quoted by clap's message.
        let out = bounded(&["hunt", "--elr", rules], &[]);
        assert_one_inert_line(&out, &format!("hunt --elr {rules:?}"));
    }
}
