//! The architecture, checked: the layers import only downwards (and embed only the data of
//! their own layer or below), no two files use each other, files (the Java driver's too)
//! and functions stay short, comments cite only what a clone has, and ARCHITECTURE.md's
//! code map names every folder and file of `src/` (and nothing that is gone).

use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
/// A file longer than this must say it is a data table (a `// data table` comment).
const FILE_LINES_MAX: usize = 600;
const FN_LINES_MAX: usize = 70;
/// The Java driver's files (`conformance/src`): longer, as Java is, but bounded too.
const JAVA_FILE_LINES_MAX: usize = 900;

/// The repository data a source file may embed (`include_str!`, `include_bytes!`) outside
/// its own folder, and the lowest layer that may: the known findings and what conformance
/// measured are the findings' (triage, tickets) and above, never the model's or the
/// rules' (they must not learn from what was found); the docs only the benchmarks'.
const EMBEDDED: [(&str, &str); 3] = [
    ("corpus/", "findings"),
    ("conformance/", "findings"),
    ("docs/", "bench"),
];

/// Bottom to top. A layer may use the layers before it, never those after it.
const LAYERS: [&str; 7] = [
    "model", "rules", "check", "findings", "search", "conform", "bench",
];

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

/// What `rel` embeds against [`EMBEDDED`]: each problem in words.
fn embedding_problems(rel: &str, text: &str) -> Vec<String> {
    let own = layer_of(rel).unwrap_or(LAYERS.len());
    let dir = Path::new(rel).parent().unwrap();
    let mut bad = Vec::new();
    for mac in ["include_str!(\"", "include_bytes!(\""] {
        for piece in text.split(mac).skip(1) {
            let target = piece.split('"').next().unwrap_or("");
            // The path as the repository names it: `..` resolved against the file's folder.
            let mut parts: Vec<&str> = dir.iter().map(|p| p.to_str().unwrap()).collect();
            for seg in target.split('/') {
                match seg {
                    ".." => {
                        parts.pop();
                    }
                    "." => {}
                    s => parts.push(s),
                }
            }
            let path = parts.join("/");
            if Path::new(&path).parent() == Some(dir) {
                continue;
            }
            match EMBEDDED.iter().find(|(root, _)| path.starts_with(root)) {
                None => bad.push(format!("{rel} embeds {path}, outside {EMBEDDED:?}")),
                Some((root, lowest)) => {
                    let lowest_at = LAYERS.iter().position(|l| l == lowest).unwrap();
                    if own < lowest_at {
                        bad.push(format!(
                            "{rel} (layer {}) embeds {path}: {root} is for {lowest} and above",
                            LAYERS[own]
                        ));
                    }
                }
            }
        }
    }
    bad
}

#[test]
fn layers_embed_only_their_own_data() {
    let bad: Vec<String> = (all_sources().iter())
        .flat_map(|(rel, text)| embedding_problems(rel, text))
        .collect();
    assert!(bad.is_empty(), "embedded data:\n{}", bad.join("\n"));
}

#[test]
fn the_embedding_check_sees_the_model_embed_the_known_findings() {
    let text = "const K: &str = include_str!(\"../../corpus/known.json\");";
    assert_eq!(embedding_problems("src/model/x.rs", text).len(), 1);
    assert_eq!(
        embedding_problems("src/findings/x.rs", text),
        Vec::<String>::new()
    );
    let own = "const T: &[u8] = include_bytes!(\"table.bin\");";
    assert_eq!(
        embedding_problems("src/model/x.rs", own),
        Vec::<String>::new()
    );
    let outside = "const C: &str = include_str!(\"../../Cargo.toml\");";
    assert_eq!(embedding_problems("src/cli/x.rs", outside).len(), 1);
}

/// The module path of a source file (`src/a/b.rs` and `src/a/b/mod.rs`: `a::b`).
fn module_of(rel: &str) -> Vec<String> {
    let stem = rel
        .strip_prefix("src/")
        .unwrap()
        .strip_suffix(".rs")
        .unwrap();
    let mut parts: Vec<String> = stem.split('/').map(String::from).collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The files `text` (the file `rel`) uses by `crate::`, `isrfuzz::`, `super::` and
/// `self::` paths, each path (and each item of a `{…}` group) resolved to the longest
/// module that is a file of `files`.
fn uses(rel: &str, text: &str, files: &[(Vec<String>, String)]) -> Vec<String> {
    let me = module_of(rel);
    let mut out = Vec::new();
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    for head in ["crate::", "isrfuzz::", "super::", "self::"] {
        for (at, _) in text.match_indices(head) {
            if text[..at].chars().next_back().is_some_and(ident) {
                continue;
            }
            let mut base: Vec<String> = match head {
                "super::" => me[..me.len().saturating_sub(1)].to_vec(),
                "self::" => me.clone(),
                _ => Vec::new(),
            };
            let rest = &text[at + head.len()..];
            let path: String = rest.chars().take_while(|&c| ident(c) || c == ':').collect();
            let mut segs: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
            while segs.first() == Some(&"super") {
                base.pop();
                segs.remove(0);
            }
            base.extend(segs.iter().map(|s| s.to_string()));
            let mut candidates = vec![base.clone()];
            if let Some(group) = rest[path.len()..].strip_prefix('{') {
                let group = group.split('}').next().unwrap_or("");
                for item in group.split(',') {
                    let first = item.trim().split("::").next().unwrap_or("").trim();
                    if !first.is_empty() && first != "self" {
                        candidates.push([base.clone(), vec![first.to_string()]].concat());
                    }
                }
            }
            for c in candidates {
                let found = (1..=c.len())
                    .rev()
                    .find_map(|n| files.iter().find(|(m, _)| m[..] == c[..n]));
                if let Some((_, file)) = found {
                    if file != rel && !out.contains(file) {
                        out.push(file.clone());
                    }
                }
            }
        }
    }
    out
}

#[test]
fn no_two_files_use_each_other() {
    let sources = all_sources();
    let files: Vec<(Vec<String>, String)> = (sources.iter())
        .map(|(rel, _)| (module_of(rel), rel.clone()))
        .collect();
    let used: Vec<(String, Vec<String>)> = (sources.iter())
        .map(|(rel, text)| (rel.clone(), uses(rel, text, &files)))
        .collect();
    let mut circles = Vec::new();
    for (a, a_uses) in &used {
        for b in a_uses {
            let b_uses = &used.iter().find(|(r, _)| r == b).unwrap().1;
            if a < b && b_uses.contains(a) {
                circles.push(format!("{a} <-> {b}"));
            }
        }
    }
    assert!(
        circles.is_empty(),
        "files that use each other (move what both need where both can use it):\n{}",
        circles.join("\n")
    );
}

#[test]
fn the_circle_check_sees_a_pair() {
    let files = vec![
        (
            vec!["a".to_string(), "x".to_string()],
            "src/a/x.rs".to_string(),
        ),
        (
            vec!["a".to_string(), "y".to_string()],
            "src/a/y.rs".to_string(),
        ),
    ];
    let x = "use super::y::Thing;\nuse crate::a::{y::Other, x::Mine};";
    assert_eq!(
        uses("src/a/x.rs", x, &files),
        vec!["src/a/y.rs".to_string()]
    );
    assert_eq!(
        uses("src/a/y.rs", "use crate::a::x;", &files),
        vec!["src/a/x.rs".to_string()]
    );
}

#[test]
fn java_files_are_short() {
    fn java(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                java(&p, out);
            } else if p.extension().is_some_and(|x| x == "java") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    java(&Path::new(ROOT).join("conformance/src"), &mut files);
    assert!(
        !files.is_empty(),
        "the Java driver's sources are in conformance/src"
    );
    for p in files {
        let n = std::fs::read_to_string(&p).unwrap().lines().count();
        assert!(
            n <= JAVA_FILE_LINES_MAX,
            "{}: {n} lines (at most {JAVA_FILE_LINES_MAX})",
            p.display()
        );
    }
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

/// Every file of tests/it/ is a module of the one test binary: a file main.rs does not
/// name would never compile, and its tests would silently not run.
#[test]
fn every_test_file_is_a_module_of_the_test_binary() {
    let dir = Path::new(ROOT).join("tests/it");
    let main = std::fs::read_to_string(dir.join("main.rs")).unwrap();
    let mut missing = Vec::new();
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        let Some(module) = name.strip_suffix(".rs") else {
            continue;
        };
        if module != "main" && !main.lines().any(|l| l.trim() == format!("mod {module};")) {
            missing.push(name);
        }
    }
    assert!(missing.is_empty(), "not in tests/it/main.rs: {missing:?}");
}

/// The binary builds no unit-test harness (`test = false` in Cargo.toml), so a test in
/// the command line would never run: its tests belong to the library or to tests/it/.
#[test]
fn the_command_line_holds_no_tests() {
    let with_tests: Vec<String> = all_sources()
        .into_iter()
        .filter(|(rel, _)| rel == "src/main.rs" || rel.starts_with("src/cli/"))
        .filter(|(_, text)| text.contains("#[test]") || text.contains("#[cfg(test)]"))
        .map(|(rel, _)| rel)
        .collect();
    assert!(
        with_tests.is_empty(),
        "tests that would never run: {with_tests:?}"
    );
}
