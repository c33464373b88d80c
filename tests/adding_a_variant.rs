//! docs/adding-a-variant.md still fits the sources: its patch applies to the current
//! src/rules/lag.rs and its example variant and test are still hypothetical. The guide's
//! full steps (build, test, hunt, promote on a scratch copy) run in ci/adding-a-variant.sh;
//! this is the fast part every `cargo test` runs.

use std::path::Path;

fn read(path: &str) -> String {
    let full = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()))
}

/// The fenced block after the line `<!-- adding-a-variant: NAME -->` (what the script
/// extracts with awk).
fn block(guide: &str, name: &str) -> Vec<String> {
    let marker = format!("<!-- adding-a-variant: {name} -->");
    let mut lines = guide.lines().skip_while(|l| *l != marker).skip(1);
    let fence = lines.next().unwrap_or_default();
    assert!(fence.starts_with("```"), "no fenced block after {marker}");
    lines
        .take_while(|l| !l.starts_with("```"))
        .map(str::to_string)
        .collect()
}

/// Each hunk's old side (context and removed lines) as it must appear in the file.
fn hunks_old_sides(patch: &[String]) -> Vec<Vec<String>> {
    let mut hunks: Vec<Vec<String>> = Vec::new();
    for line in patch {
        if line.starts_with("@@") {
            hunks.push(Vec::new());
        } else if let (Some(hunk), Some(rest)) = (
            hunks.last_mut(),
            line.strip_prefix(' ').or_else(|| line.strip_prefix('-')),
        ) {
            hunk.push(rest.to_string());
        }
    }
    hunks
}

#[test]
fn the_guides_patch_applies_to_the_current_rule_file() {
    let guide = read("docs/adding-a-variant.md");
    let patch = block(&guide, "patch");
    assert_eq!(
        patch[0], "--- a/src/rules/lag.rs",
        "the patch edits src/rules/lag.rs"
    );
    let lag = read("src/rules/lag.rs");
    let lines: Vec<String> = lag.lines().map(str::to_string).collect();
    let hunks = hunks_old_sides(&patch);
    assert!(!hunks.is_empty(), "the patch has hunks");
    for old in hunks {
        assert!(
            lines.windows(old.len()).any(|w| w == old.as_slice()),
            "docs/adding-a-variant.md: a hunk no longer matches src/rules/lag.rs; update the \
             guide (ci/adding-a-variant.sh checks it end to end):\n{}",
            old.join("\n")
        );
    }
}

#[test]
fn the_guides_example_is_still_hypothetical() {
    let guide = read("docs/adding-a-variant.md");
    assert!(!read("src/rules/lag.rs").contains("SealOnly"));
    let test = block(&guide, "test").join("\n");
    let name = test
        .split("fn ")
        .nth(1)
        .and_then(|rest| rest.split('(').next())
        .expect("the test block defines a test function");
    assert!(!read("tests/inkless.rs").contains(&format!("fn {name}(")));
    for name in ["rules", "verdicts"] {
        assert!(!block(&guide, name).is_empty(), "block {name}");
    }
}
