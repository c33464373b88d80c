//! The architecture, checked: the layers import only downwards, files and functions stay
//! short, comments cite only what a clone has, and ARCHITECTURE.md's code map names every
//! folder and file of `src/` (and nothing that is gone).

use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
/// A file longer than this must say it is a data table (a `// data table` comment).
const FILE_LINES_MAX: usize = 600;
const FN_LINES_MAX: usize = 70;

/// Bottom to top. A layer may use the layers before it, never those after it.
const LAYERS: [&str; 6] = ["model", "rules", "check", "findings", "search", "conform"];

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn all_sources() -> Vec<(String, String)> {
    let mut files = Vec::new();
    sources(&Path::new(ROOT).join("src"), &mut files);
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(ROOT).unwrap().display().to_string();
            (rel, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

/// The layer a file is in: its first folder under `src/` (`None` for lib.rs, error.rs,
/// main.rs and `cli/`, which sit outside the layers).
fn layer_of(rel: &str) -> Option<usize> {
    let first = rel.strip_prefix("src/")?.split('/').next()?;
    LAYERS.iter().position(|l| *l == first)
}

#[test]
fn layers_import_only_downwards() {
    let mut bad = Vec::new();
    for (rel, text) in all_sources() {
        let Some(own) = layer_of(&rel) else { continue };
        for (above, name) in LAYERS.iter().enumerate().skip(own + 1) {
            if text.contains(&format!("crate::{name}")) {
                bad.push(format!(
                    "{rel} (layer {}) uses crate::{name} (layer {above})",
                    LAYERS[own]
                ));
            }
        }
        if text.contains("crate::cli") {
            bad.push(format!("{rel} uses the command line"));
        }
    }
    assert!(bad.is_empty(), "upward imports:\n{}", bad.join("\n"));
}

#[test]
fn the_model_does_no_io() {
    for (rel, text) in all_sources() {
        if layer_of(&rel) != Some(0) {
            continue;
        }
        for banned in ["std::fs", "std::time", "std::env", "std::net", "println!"] {
            assert!(!text.contains(banned), "{rel} uses {banned}");
        }
    }
}

#[test]
fn files_are_short_unless_data_tables() {
    for (rel, text) in all_sources() {
        let n = text.lines().count();
        assert!(
            n <= FILE_LINES_MAX || text.contains("// data table"),
            "{rel}: {n} lines (at most {FILE_LINES_MAX}, or say it is a data table)"
        );
    }
}

/// The body lengths of the functions in `text`: a `fn` line up to the closing brace at
/// the same indentation.
fn function_lengths(text: &str) -> Vec<(String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        let is_fn = [
            "fn ",
            "pub fn ",
            "pub(crate) fn ",
            "pub(super) fn ",
            "const fn ",
            "pub const fn ",
        ]
        .iter()
        .any(|p| trimmed.starts_with(p));
        // A trait method without a body: its signature ends with `;` before any `{`.
        let signature_end = lines[i..]
            .iter()
            .map(|l| l.trim_end())
            .find(|l| l.ends_with('{') || l.ends_with(';'));
        if !is_fn || signature_end.is_none_or(|l| l.ends_with(';')) {
            continue;
        }
        let close = " ".repeat(indent) + "}";
        let Some(len) = lines[i..].iter().position(|l| *l == close) else {
            continue;
        };
        let name: String = trimmed
            .split("fn ")
            .nth(1)
            .unwrap_or("")
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        out.push((name, len + 1));
    }
    out
}

#[test]
fn functions_are_short() {
    let mut long = Vec::new();
    for (rel, text) in all_sources() {
        for (name, n) in function_lengths(&text) {
            if n > FN_LINES_MAX {
                long.push(format!("{rel}: fn {name} is {n} lines"));
            }
        }
    }
    assert!(
        long.is_empty(),
        "over {FN_LINES_MAX} lines:\n{}",
        long.join("\n")
    );
}

#[test]
fn the_length_check_sees_long_functions() {
    let body = "    x();\n".repeat(80);
    let text = format!(
        "trait T {{\n    fn declared(\n        &self,\n    ) -> bool;\n}}\n\
         fn short() {{\n}}\n\npub fn long() {{\n{body}}}\n"
    );
    assert_eq!(
        function_lengths(&text),
        vec![("short".to_string(), 2), ("long".to_string(), 82)]
    );
}

#[test]
fn comments_cite_only_what_the_repository_has() {
    for (rel, text) in all_sources() {
        for outside in [
            "kafka-reassignment.md",
            "inkless-isr.md",
            "shared/spec",
            "shared/seeds",
            "spec §",
            "spec CE-",
        ] {
            assert!(
                !text.contains(outside),
                "{rel} cites `{outside}`, which a clone does not have"
            );
        }
    }
}

#[test]
fn the_code_map_matches_the_tree() {
    let arch = std::fs::read_to_string(Path::new(ROOT).join("ARCHITECTURE.md")).unwrap();
    let map = arch
        .split("## Code map")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("ARCHITECTURE.md has a code map");
    let mut missing = Vec::new();
    for (rel, _) in all_sources() {
        let parent = Path::new(&rel).parent().unwrap().display().to_string();
        let file = Path::new(&rel)
            .file_name()
            .unwrap()
            .to_string_lossy()
            .to_string();
        // A folder is named with its trailing slash; a file by its path or, inside a
        // folder's entry, by its name.
        if parent != "src" && !map.contains(&format!("`{parent}/`")) {
            missing.push(format!("folder {parent}/"));
        }
        if !map.contains(&format!("`{rel}`")) && !map.contains(&format!("`{file}`")) {
            missing.push(rel.clone());
        }
    }
    missing.sort();
    missing.dedup();
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md's code map does not name:\n{}",
        missing.join("\n")
    );
    for word in map.split('`').skip(1).step_by(2) {
        if word.starts_with("src/") {
            assert!(
                Path::new(ROOT).join(word).exists(),
                "the code map names `{word}`, which does not exist"
            );
        }
    }
}
