//! Ctrl-C keeps what was found: a `hunt` or `exhaust` ended by SIGINT or SIGTERM exits
//! soon, as a normal end with findings would, prints its summary with the stop in it, and
//! every witness the summary names is on disk and reads as a history.

use std::path::Path;
use std::process::Child;
use std::time::{Duration, Instant};

/// A stopped run ends within this (minimizing the finding at hand, writing, printing).
const EXIT_WAIT_MAX: Duration = Duration::from_secs(5);
/// A finding of `complete+trunk:complete` turns up well within this.
const FINDING_WAIT_MAX: Duration = Duration::from_secs(20);

fn has_json(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.path().extension().is_some_and(|x| x == "json"))
    })
}

/// Send `signal`, then wait for the exit: its code, stdout and stderr.
fn stop(mut child: Child, signal: libc::c_int) -> (Option<i32>, String, String) {
    // SAFETY: kill on the pid of a child this test spawned and has not yet reaped.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, signal) }, 0);
    let sent = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if sent.elapsed() > EXIT_WAIT_MAX {
            let _ = child.kill();
            panic!("still running {EXIT_WAIT_MAX:?} after the signal");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (out.status.code(), text(out.stdout), text(out.stderr))
}

/// Every path under `dir` that `stdout` names exists and parses as a history; how many.
fn witnesses_hold(stdout: &str, dir: &Path) -> usize {
    let prefix = dir.to_str().unwrap();
    let named: Vec<&str> = stdout
        .split_whitespace()
        .filter(|w| w.starts_with(prefix))
        .collect();
    for p in &named {
        let history = isrfuzz::History::load(Path::new(p));
        assert!(
            history.is_ok(),
            "witness {p}: {:?}\n{stdout}",
            history.err()
        );
    }
    named.len()
}

fn hunt_stopped_by(signal: libc::c_int, name: &str) {
    let dir = crate::common::scratch("interrupt", name);
    let out = dir.join("findings");
    let child = crate::common::spawn(&[
        "hunt",
        "--seconds",
        "60",
        "--seed",
        "7",
        "--known",
        "none",
        "--rules",
        "complete+trunk:complete",
        "--out",
        out.to_str().unwrap(),
    ]);
    let started = Instant::now();
    while !has_json(&out) {
        assert!(started.elapsed() < FINDING_WAIT_MAX, "no finding written");
        std::thread::sleep(Duration::from_millis(20));
    }
    let (code, stdout, stderr) = stop(child, signal);
    assert_eq!(code, Some(1), "stdout: {stdout}\nstderr: {stderr}");
    assert!(stdout.contains("summary: "), "{stdout}");
    assert!(stdout.contains("new finding"), "{stdout}");
    assert!(
        stdout.contains(&format!("stopped by {name} after ")),
        "{stdout}"
    );
    assert!(witnesses_hold(&stdout, &out) > 0, "{stdout}");
}

#[test]
fn sigint_ends_a_hunt_with_its_summary_and_findings() {
    hunt_stopped_by(libc::SIGINT, "SIGINT");
}

#[test]
fn sigterm_ends_a_hunt_with_its_summary_and_findings() {
    hunt_stopped_by(libc::SIGTERM, "SIGTERM");
}

#[test]
fn sigint_ends_an_exhaust_with_its_counterexamples() {
    let dir = crate::common::scratch("interrupt", "exhaust");
    let out = dir.join("findings");
    // Depth 8 takes minutes; trunk's shortest counterexamples are 2 and 3 operations deep.
    let child = crate::common::spawn(&[
        "exhaust",
        "--rules",
        "trunk",
        "--known",
        "none",
        "--depth",
        "8",
        "--jobs",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    std::thread::sleep(Duration::from_secs(3));
    let (code, stdout, stderr) = stop(child, libc::SIGINT);
    assert_eq!(code, Some(1), "stdout: {stdout}\nstderr: {stderr}");
    assert!(
        stdout.contains("INCOMPLETE: stopped by SIGINT during depth"),
        "{stdout}"
    );
    assert!(stdout.contains("summary: "), "{stdout}");
    assert!(witnesses_hold(&stdout, &out) > 0, "{stdout}");
}
