//! The one summary at the end of `hunt` and `exhaust` (issue 12): one row per (rule set,
//! invariant, finding), the human table last, `--json` for tools.

use std::process::Command;

fn isrfuzz(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_isrfuzz"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs")
}

fn scratch(name: &str) -> String {
    let dir = std::env::temp_dir().join(format!("isrfuzz-summary-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir.display().to_string()
}

#[test]
fn hunt_json_summary_has_one_row_per_variant_invariant_and_finding() {
    let out = scratch("json");
    let args = [
        "hunt",
        "--seed",
        "7",
        "--max-histories",
        "2000",
        "--json",
        "--out",
        &out,
    ];
    let run = isrfuzz(&args);
    assert_eq!(run.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&run.stdout).expect("one JSON object");
    assert_eq!(v["histories"], 2000);
    let rows = v["rows"].as_array().unwrap();
    assert!(rows.len() > 10, "{rows:?}");
    let mut keys: Vec<String> = Vec::new();
    for r in rows {
        let key = format!("{} {} {}", r["rules"], r["invariant"], r["known"]);
        assert!(!keys.contains(&key), "two rows for {key}");
        keys.push(key);
        let rules = r["rules"].as_str().unwrap();
        assert!(
            rules == "complete" || rules.starts_with("complete+"),
            "{rules}"
        );
        if r["known"].is_null() {
            let w = r["witness"].as_str().expect("a new finding has a witness");
            assert!(std::path::Path::new(w).exists(), "{w}");
        }
    }
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn hunt_and_exhaust_end_with_the_summary() {
    let out = scratch("table");
    let run = isrfuzz(&[
        "hunt",
        "--rules",
        "trunk:complete",
        "--seed",
        "7",
        "--max-histories",
        "500",
        "--out",
        &out,
    ]);
    let stdout = String::from_utf8_lossy(&run.stdout);
    let tail: Vec<&str> = stdout
        .lines()
        .skip_while(|l| !l.starts_with("summary:"))
        .collect();
    assert!(tail.len() > 2, "{stdout}");
    assert!(tail[1].contains("rule set") && tail[1].contains("shortest witness"));
    assert!(
        tail[2..]
            .iter()
            .all(|l| l.trim_start().starts_with("trunk+inkless-main ")
                || l.trim_start().starts_with("complete ")),
        "{stdout}"
    );
    let ex = isrfuzz(&[
        "exhaust", "--rules", "complete", "--start", "switched", "--depth", "4", "--out", &out,
    ]);
    let stdout = String::from_utf8_lossy(&ex.stdout);
    assert!(stdout.contains("summary: 0 new"), "{stdout}");
    let _ = std::fs::remove_dir_all(&out);
}
