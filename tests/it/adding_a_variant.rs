//! docs/adding-a-variant.md still fits the sources, for both walk-throughs (KRaft
//! `completion`, Inkless `lag`): each patch applies to the current rule file, each swap
//! undoes a line the patch adds, the example variants and tests are still hypothetical, and
//! the KRaft rule's tables gain exactly the rows the guide shows. The guide's full steps
//! (build, test, swap, hunt, promote on a scratch copy) run in ci/adding-a-variant.sh; this
//! is the fast part every `cargo test` runs.

use std::path::Path;

fn read(path: &str) -> String {
    let full = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()))
}

/// The fenced block after the line `<!-- adding-a-variant: NAME -->` (what the script
/// extracts with awk).
fn block(guide: &str, name: &str) -> Vec<String> {
    let marker = format!("<!-- adding-a-variant: {name} -->");
    assert!(guide.lines().any(|l| l == marker), "no marker {marker}");
    let mut lines = guide.lines().skip_while(|l| *l != marker).skip(1);
    let fence = lines.next().unwrap_or_default();
    assert!(fence.starts_with("```"), "no fenced block after {marker}");
    let out: Vec<String> = lines
        .take_while(|l| !l.starts_with("```"))
        .map(str::to_string)
        .collect();
    assert!(!out.is_empty(), "empty block after {marker}");
    out
}

/// Each hunk's lines on one side: `old` (context and removed) or new (context and added).
fn hunk_sides(patch: &[String], old: bool) -> Vec<Vec<String>> {
    let changed = if old { '-' } else { '+' };
    let mut hunks: Vec<Vec<String>> = Vec::new();
    for line in patch {
        if line.starts_with("@@") {
            hunks.push(Vec::new());
        } else if let (Some(hunk), Some(rest)) = (
            hunks.last_mut(),
            line.strip_prefix(' ')
                .or_else(|| line.strip_prefix(changed)),
        ) {
            hunk.push(rest.to_string());
        }
    }
    hunks
}

fn contains_run(lines: &[String], run: &[String]) -> bool {
    lines.windows(run.len()).any(|w| w == run)
}

/// The file a patch edits, from its `--- a/PATH` line.
fn patched_file(patch: &[String]) -> &str {
    patch[0]
        .strip_prefix("--- a/")
        .expect("a patch starts with --- a/PATH")
}

/// Each walk-through: its marker prefix, its rule file and its test file.
const WALK_THROUGHS: [(&str, &str, &str); 2] = [
    ("kraft", "src/rules/completion.rs", "tests/it/scenarios.rs"),
    ("inkless", "src/rules/lag.rs", "tests/it/inkless.rs"),
];

#[test]
fn each_patch_applies_to_its_rule_file_and_each_swap_to_the_patched_file() {
    let guide = read("docs/adding-a-variant.md");
    for (family, rule_file, _) in WALK_THROUGHS {
        let patch = block(&guide, &format!("{family}-patch"));
        assert_eq!(patched_file(&patch), rule_file, "{family}-patch");
        let lines: Vec<String> = read(rule_file).lines().map(str::to_string).collect();
        let hunks = hunk_sides(&patch, true);
        assert!(!hunks.is_empty(), "{family}-patch has hunks");
        for old in hunks {
            assert!(
                contains_run(&lines, &old),
                "docs/adding-a-variant.md: a hunk of {family}-patch no longer matches \
                 {rule_file}; update the guide (ci/adding-a-variant.sh checks it end to \
                 end):\n{}",
                old.join("\n")
            );
        }
        // The swap edits what the patch wrote: every line it removes is one the patch adds.
        let swap = block(&guide, &format!("{family}-swap"));
        assert_eq!(patched_file(&swap), rule_file, "{family}-swap");
        let added: Vec<&str> = patch.iter().filter_map(|l| l.strip_prefix('+')).collect();
        let removed: Vec<&str> = swap
            .iter()
            .filter(|l| !l.starts_with("---"))
            .filter_map(|l| l.strip_prefix('-'))
            .collect();
        assert!(
            !removed.is_empty(),
            "{family}-swap removes the variant's arm"
        );
        for line in removed {
            assert!(
                added.contains(&line),
                "{family}-swap removes a line {family}-patch does not add: {line}"
            );
        }
    }
}

#[test]
fn the_guides_examples_are_still_hypothetical() {
    let guide = read("docs/adding-a-variant.md");
    for (family, rule_file, test_file) in WALK_THROUGHS {
        // The variant's enum arm, e.g. `+            SealOnly {`.
        let patch = block(&guide, &format!("{family}-patch"));
        let arm = patch
            .iter()
            .find_map(|l| {
                let l = l.strip_prefix('+')?.trim();
                l.strip_suffix(" {")
                    .filter(|n| n.chars().all(char::is_alphanumeric))
            })
            .unwrap_or_else(|| panic!("{family}-patch declares a variant"));
        assert!(!read(rule_file).contains(arm), "{rule_file} has {arm}");
        let test = block(&guide, &format!("{family}-test")).join("\n");
        let name = test
            .split("fn ")
            .nth(1)
            .and_then(|rest| rest.split('(').next())
            .expect("the test block defines a test function");
        assert!(!read(test_file).contains(&format!("fn {name}(")), "{name}");
        for kind in ["rules", "verdicts"] {
            block(&guide, &format!("{family}-{kind}"));
        }
    }
}

/// Every snapshot table in completion.rs has one row per `Completion::ALL` entry, so the
/// new variant adds one row to each: the guide must show as many rows as there are tables,
/// each of the new variant.
#[test]
fn the_guide_shows_one_new_row_per_completion_table() {
    let guide = read("docs/adding-a-variant.md");
    let rows = block(&guide, "kraft-tables");
    let tables = read("src/rules/completion.rs").matches("expect![[").count();
    assert_eq!(
        rows.len(),
        tables,
        "kraft-tables: one row per expect![[ table"
    );
    let arm = "RemovalAtOnce: ";
    assert!(
        rows.iter().all(|r| r.trim_start().starts_with(arm)),
        "{rows:?}"
    );
}

/// The guide's `check_rule_sets` exists in tests/it/scenarios.rs with the arguments it uses.
#[test]
fn the_kraft_test_calls_the_scenario_helper_the_file_has() {
    let guide = read("docs/adding-a-variant.md");
    let test = block(&guide, "kraft-test").join("\n");
    assert!(test.contains("check_rule_sets(\n"), "{test}");
    assert!(read("tests/it/scenarios.rs")
        .contains("fn check_rule_sets(history: &str, rule_sets: &[&str], expect: Expect)"));
}
