//! README's everyday commands work as written after its set-up commands: each is run, in
//! order, in a scratch folder, with durations and depths cut down. A path pattern naming a
//! folder the findings sink never writes (the top folder holds only new findings; expected
//! and known witnesses go to `findings/expected/` and `findings/known/`) or a flag that
//! moved fails here instead of on a reader.

use crate::common::scratch;
use std::path::Path;
use std::process::Command;

const README: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");
/// What a `--seconds` of the README becomes here: long enough to find KAFKA-21419.
const SECONDS_CUT: &str = "3";
/// What an `exhaust --depth` of the README becomes here (depth 5 takes tens of seconds).
const DEPTH_CUT: &str = "3";

/// The lines of the first `sh` block after `heading`, comments dropped.
fn block(readme: &str, heading: &str) -> Vec<String> {
    let after = &readme[readme.find(heading).expect("heading in README")..];
    let body = &after[after.find("```sh\n").expect("an sh block") + 6..];
    let body = &body[..body.find("```").expect("the block ends")];
    body.lines()
        .map(|l| l.split("  #").next().unwrap_or("").trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

/// Shell words: split on blanks, single quotes kept together (all the README uses).
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '\'' => quoted = !quoted,
            ' ' if !quoted => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            _ => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// A `*` in the last component matched in `cwd`, as the shell would; it must match.
fn expand(arg: &str, cwd: &Path) -> Vec<String> {
    if !arg.contains('*') {
        return vec![arg.to_string()];
    }
    let (dir, pattern) = arg.rsplit_once('/').unwrap_or((".", arg));
    let (head, tail) = pattern.split_once('*').unwrap();
    let mut found: Vec<String> = std::fs::read_dir(cwd.join(dir))
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with(head) && n.ends_with(tail))
                .map(|n| format!("{dir}/{n}"))
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    assert!(
        !found.is_empty(),
        "`{arg}` matches nothing after the set-up commands"
    );
    found
}

/// `args` with the README's long runs cut down and its globs expanded.
fn runnable(args: &[String], cwd: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for (i, a) in args.iter().enumerate() {
        match args.get(i.wrapping_sub(1)).map(String::as_str) {
            Some("--seconds") => out.push(SECONDS_CUT.to_string()),
            Some("--depth") => out.push(DEPTH_CUT.to_string()),
            _ if a.starts_with("corpus/") => {
                out.push(format!("{}/{a}", env!("CARGO_MANIFEST_DIR")))
            }
            _ => out.extend(expand(a, cwd)),
        }
    }
    out
}

fn run(args: &[String], cwd: &Path, line: &str) {
    let out = Command::new(env!("CARGO_BIN_EXE_isrfuzz"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("the binary runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let code = out.status.code();
    // 0, 1 (found something), 4 (exhaust cut short), 6 (promote: only known): not a
    // usage error, a harness bug or a judge's failure.
    assert!(
        matches!(code, Some(0 | 1 | 4 | 6)),
        "`{line}` exits {code:?}: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "`{line}`: {stderr}");
}

#[test]
fn everyday_commands_run_as_written_after_the_set_up() {
    let readme = std::fs::read_to_string(README).unwrap();
    let cwd = scratch("readme", "everyday");
    let setup = block(&readme, "## Set-up");
    let hunt = setup
        .iter()
        .find(|l| l.starts_with("cargo run --release -- hunt"))
        .expect("the set-up hunt");
    let mut args = words(hunt)[4..].to_vec();
    args.extend(["--seconds".to_string(), SECONDS_CUT.to_string()]);
    run(&args, &cwd, hunt);
    let everyday = block(&readme, "## Everyday commands");
    assert!(everyday.len() >= 5, "{everyday:?}");
    for line in &everyday {
        let w = words(line);
        assert_eq!(
            w[0], "isrfuzz",
            "an everyday command is `isrfuzz ...`: {line}"
        );
        run(&runnable(&w[1..], &cwd), &cwd, line);
    }
}
