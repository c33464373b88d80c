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
    let v: serde_json::Value = serde_json::from_slice(&run.stdout).expect("one JSON object");
    // Every row of these 2,000 default histories is a preset's own bug or a hole of the
    // fixes: nothing new, so exit 0 (a rare unexplained row would make it 1 and be listed).
    assert_eq!(
        (run.status.code(), &v["new"]),
        (Some(0), &serde_json::json!(0)),
        "{v}"
    );
    assert_eq!(v["histories"], 2000);
    let rows = v["rows"].as_array().unwrap();
    assert!(rows.len() > 10, "{rows:?}");
    let mut keys: Vec<String> = Vec::new();
    for r in rows {
        let key = format!("{} {} {}", r["rules"], r["invariant"], r["finding"]);
        assert!(!keys.contains(&key), "two rows for {key}");
        keys.push(key);
        let rules = r["rules"].as_str().unwrap();
        assert!(
            rules == "complete" || rules.starts_with("complete+"),
            "{rules}"
        );
        let class = r["class"].as_str().unwrap();
        assert_eq!(r["finding"].is_null(), class == "new", "{r}");
        // Every row, expected and known ones too, has a witness of its own rule set.
        let w = r["witness"].as_str().expect("every row has a witness");
        let h = isrfuzz::check::history::History::load(std::path::Path::new(w)).unwrap();
        let sides: Vec<&str> = h.rules.as_deref().unwrap().split(':').collect();
        assert!(
            if class == "new" {
                sides.contains(&rules)
            } else {
                sides[0] == rules
            },
            "{w}"
        );
        let folder = std::path::Path::new(w).parent().unwrap();
        assert_eq!(folder.ends_with(class), class != "new", "{w}");
    }
    // The default pairs show their presets' own bugs as expected, not new.
    let expected = rows.iter().filter(|r| r["class"] == "expected").count();
    assert!(expected >= 5, "{rows:?}");
    let kafka_21419_new = rows.iter().any(|r| {
        r["rules"] == "complete+trunk"
            && r["class"] == "new"
            && ["G2", "G5"].contains(&r["invariant"].as_str().unwrap())
    });
    assert!(!kafka_21419_new, "{rows:?}");
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
    // Per rule set: its name, then indented rows, each new, expected or known; the last
    // line says what to do.
    let (last, body) = tail[1..].split_last().unwrap();
    for l in body {
        let ok = match l.strip_prefix("  ") {
            Some(row) => ["new ", "expected ", "known "]
                .iter()
                .any(|c| row.starts_with(c)),
            None => ["trunk+inkless-main", "complete"].contains(l),
        };
        assert!(ok, "{l}\n{stdout}");
    }
    assert!(
        body.iter()
            .any(|l| l.starts_with("  expected  KAFKA-21419")),
        "{stdout}"
    );
    assert!(
        last.starts_with("no new findings") || last.contains("new finding"),
        "{stdout}"
    );
    let ex = isrfuzz(&[
        "exhaust", "--rules", "complete", "--start", "switched", "--depth", "4", "--out", &out,
    ]);
    let stdout = String::from_utf8_lossy(&ex.stdout);
    assert!(stdout.contains("summary: 0 new"), "{stdout}");
    let _ = std::fs::remove_dir_all(&out);
}

/// The known findings are built in: out of a checkout (no corpus/known.json in the working
/// directory) `hunt --rules complete` still counts F17 and the others as known.
#[test]
fn out_of_a_checkout_known_findings_stay_known() {
    let dir = scratch("elsewhere");
    std::fs::create_dir_all(&dir).unwrap();
    let run = Command::new(env!("CARGO_BIN_EXE_isrfuzz"))
        .args([
            "hunt",
            "--rules",
            "complete",
            "--seed",
            "7",
            "--max-histories",
            "3000",
        ])
        .args(["--elr", "on", "--json", "--out", "findings"])
        .current_dir(&dir)
        .output()
        .expect("the binary runs");
    assert!(!std::path::Path::new(&dir).join("corpus").exists());
    let v: serde_json::Value = serde_json::from_slice(&run.stdout).expect("one JSON object");
    assert_eq!(v["new"], 0, "{v}");
    let f17 = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["class"] == "known" && r["finding"] == "F17");
    assert!(f17, "{v}");
    assert_eq!(run.status.code(), Some(0));
    let _ = std::fs::remove_dir_all(&dir);
}
