//! Faults a run must survive, without Java: a judge that stalls, never answers or is
//! killed mid-run, and the signals a terminal or GNU `timeout` sends. Every test bounds
//! its own run (a wait loop with a deadline, never a blocking wait), and checks that the
//! summary is printed, the documented exit code, and that no process is left behind.
//!
//! The JVM is a shell script named `java` first on PATH, in a driver folder whose build
//! looks cached (so Maven is never asked); it writes its PID to a file.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_isrfuzz");
/// Every faulty run ends within this after its fault or signal.
const END_WAIT_MAX: Duration = Duration::from_secs(10);
/// `--answer-timeout` in these tests, seconds.
const ANSWER_TIMEOUT_S: &str = "1";
/// Exit code of a judge's failure (src/cli/mod.rs).
const EXIT_HARNESS: i32 = 5;

/// A fake judge: the driver folder and the PATH that runs `body` as `java` (after
/// answering `java -version` and writing its PID to `<dir>/java.pid`).
struct Fake {
    dir: PathBuf,
    driver: PathBuf,
    path: String,
}

impl Fake {
    fn new(name: &str, body: &str) -> Fake {
        let dir = crate::common::scratch("faults", name);
        let pid = dir.join("java.pid");
        let script = format!(
            "[ \"$1\" = -version ] && exit 0\necho $$ > {}\n{body}",
            pid.display()
        );
        let (driver, bin) = crate::common::fake_driver(&dir, &script);
        let path = format!("{}:/usr/bin:/bin", bin.display());
        Fake { dir, driver, path }
    }

    /// `isrfuzz conform --kafka 4.0 --driver <fake> --answer-timeout 1 <args>`.
    fn conform(&self, args: &[&str]) -> Child {
        let out = self.dir.join("findings");
        Command::new(BIN)
            .args(["conform", "--kafka", "4.0", "--driver"])
            .arg(&self.driver)
            .args(["--answer-timeout", ANSWER_TIMEOUT_S, "--out"])
            .arg(&out)
            .args(args)
            .env("PATH", &self.path)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary runs")
    }

    /// The fake JVM's PID, once it has started.
    fn pid(&self) -> libc::pid_t {
        let file = self.dir.join("java.pid");
        let started = Instant::now();
        loop {
            if let Some(pid) = std::fs::read_to_string(&file)
                .ok()
                .and_then(|t| t.trim().parse().ok())
            {
                return pid;
            }
            assert!(
                started.elapsed() < END_WAIT_MAX,
                "the fake JVM never started"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The fake JVM is gone: no such process, or a zombie left to init after its parent
    /// was killed (it runs nothing).
    fn assert_gone(&self) {
        let pid = self.pid();
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let state = stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .next();
        assert!(
            stat.is_empty() || state == Some("Z"),
            "the fake JVM {pid} is still there: {stat}"
        );
    }
}

/// The end of a run: exit code (None when killed by a signal), stdout, stderr, and how
/// long it took from `since`.
struct End {
    code: Option<i32>,
    signal: Option<i32>,
    stdout: String,
    stderr: String,
    took: Duration,
}

/// Wait for `child` at most [`END_WAIT_MAX`] after `since` (killing it and failing past
/// that), reading its output meanwhile (a full pipe would block it).
fn wait_end(mut child: Child, since: Instant) -> End {
    use std::io::Read;
    use std::os::unix::process::ExitStatusExt;
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = r.read_to_end(&mut buf);
            String::from_utf8_lossy(&buf).into_owned()
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if since.elapsed() > END_WAIT_MAX {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "still running {END_WAIT_MAX:?} on: {}",
                stdout.join().unwrap()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let took = since.elapsed();
    End {
        code: status.code(),
        signal: status.signal(),
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
        took,
    }
}

fn signal(child: &Child, sig: libc::c_int) {
    // SAFETY: kill on the pid of a child this test spawned and has not yet reaped.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, sig) }, 0);
}

/// What GNU `timeout` does: the signal to the process, then again (to its group) at once.
fn signal_twice(child: &Child, sig: libc::c_int) {
    signal(child, sig);
    signal(child, sig);
}

/// Answers every request with a plain `NONE` (the model's answers differ from it: each
/// history disagrees) until the `n`th line, then runs `then`.
fn answers_then(n: u32, then: &str) -> String {
    format!(
        "n=0\nwhile read l; do n=$((n+1)); [ $n -gt {n} ] && {then}; echo '{{\"error\":\"NONE\"}}'; done"
    )
}

fn assert_conform_summary(end: &End) {
    assert!(
        end.stdout.contains("Kafka 4.0.2 against ") && end.stdout.contains(" histories, "),
        "no summary: {}\nstderr: {}",
        end.stdout,
        end.stderr
    );
}

fn assert_harness_failure(end: &End, needle: &str) {
    assert_eq!(
        end.code,
        Some(EXIT_HARNESS),
        "stdout: {}\nstderr: {}",
        end.stdout,
        end.stderr
    );
    let last = end.stderr.trim_end().lines().last().unwrap_or("");
    assert!(
        last.starts_with("error: ") && last.contains(needle),
        "`{needle}` not in the last line of: {}",
        end.stderr
    );
    assert!(!end.stderr.contains("panicked"), "{}", end.stderr);
}

#[test]
fn a_stalled_judge_ends_the_run_with_its_summary_and_exit_5() {
    let fake = Fake::new("stalled", &answers_then(40, "kill -STOP $$"));
    let child = fake.conform(&["--seconds", "60", "--seed", "1"]);
    let end = wait_end(child, Instant::now());
    assert_conform_summary(&end);
    assert_harness_failure(&end, "stalled");
    fake.assert_gone();
    eprintln!("stalled judge: ended in {:?}", end.took);
}

#[test]
fn a_judge_killed_mid_run_keeps_the_tally_found_so_far() {
    let fake = Fake::new("killed", &answers_then(300, "kill -9 $$"));
    let child = fake.conform(&["--seconds", "60", "--seed", "1"]);
    let end = wait_end(child, Instant::now());
    assert_conform_summary(&end);
    assert!(end.stdout.contains("disagreement "), "{}", end.stdout);
    assert_harness_failure(&end, "died");
    fake.assert_gone();
    eprintln!("killed judge: ended in {:?}", end.took);
}

#[test]
fn json_is_one_object_even_when_the_judge_dies() {
    let fake = Fake::new("json", &answers_then(300, "kill -9 $$"));
    let child = fake.conform(&["--seconds", "60", "--seed", "1", "--json"]);
    let end = wait_end(child, Instant::now());
    assert_eq!(end.code, Some(EXIT_HARNESS), "{}", end.stderr);
    assert_eq!(end.stdout.lines().count(), 1, "one line: {}", end.stdout);
    let object: serde_json::Value = serde_json::from_str(&end.stdout).unwrap();
    assert!(
        object["error"].as_str().unwrap().contains("died"),
        "{object}"
    );
    assert!(object["histories"].as_u64().unwrap() > 0, "{object}");
    assert_eq!(object["seed"], 1);
    fake.assert_gone();
}

#[test]
fn a_judge_that_never_answers_is_left_on_the_first_signal() {
    let fake = Fake::new("silent", "exec sleep 1000");
    let child = fake.conform(&["--seconds", "60", "--seed", "1"]);
    fake.pid();
    std::thread::sleep(Duration::from_millis(300));
    let sent = Instant::now();
    signal(&child, libc::SIGINT);
    let end = wait_end(child, sent);
    assert_eq!(end.code, Some(0), "{}\n{}", end.stdout, end.stderr);
    assert_conform_summary(&end);
    assert!(end.stdout.contains("stopped by SIGINT"), "{}", end.stdout);
    fake.assert_gone();
    eprintln!("silent judge: ended {:?} after SIGINT", end.took);
}

#[test]
fn a_second_signal_after_the_window_ends_at_once_and_takes_the_judge_along() {
    let fake = Fake::new("twice", "exec sleep 1000");
    let child = fake.conform(&["--seconds", "60", "--seed", "1"]);
    fake.pid();
    std::thread::sleep(Duration::from_millis(300));
    let sent = Instant::now();
    signal(&child, libc::SIGINT);
    // A person pressing Ctrl-C again: past the window in which repeats are merged, before
    // the first one's grace ends the run.
    std::thread::sleep(Duration::from_millis(500));
    signal(&child, libc::SIGINT);
    let end = wait_end(child, sent);
    assert_eq!(end.signal, Some(libc::SIGINT), "{}", end.stdout);
    std::thread::sleep(Duration::from_millis(100));
    fake.assert_gone();
}

#[test]
fn timeout_s_two_sigterms_end_conform_with_its_summary() {
    let fake = Fake::new("timeout-conform", &answers_then(u32::MAX, "exit"));
    let child = fake.conform(&["--seconds", "60", "--seed", "1"]);
    fake.pid();
    std::thread::sleep(Duration::from_millis(500));
    let sent = Instant::now();
    signal_twice(&child, libc::SIGTERM);
    let end = wait_end(child, sent);
    assert!(matches!(end.code, Some(0 | 1)), "{}", end.stderr);
    assert_conform_summary(&end);
    assert!(end.stdout.contains("stopped by SIGTERM"), "{}", end.stdout);
    fake.assert_gone();
    eprintln!("conform, two SIGTERMs: ended in {:?}", end.took);
}

#[test]
fn seconds_end_the_run_even_while_a_disagreement_is_minimized() {
    let fake = Fake::new("deadline", &answers_then(u32::MAX, "exit"));
    let started = Instant::now();
    let child = fake.conform(&["--seconds", "2", "--seed", "1"]);
    let end = wait_end(child, started);
    assert_eq!(end.code, Some(1), "{}", end.stderr);
    assert_conform_summary(&end);
    assert!(end.took < Duration::from_secs(4), "{:?}", end.took);
    fake.assert_gone();
    eprintln!("--seconds 2: ended in {:?}", end.took);
}

/// Answers every epoch-cache sequence with no observations (a `driver` disagreement each).
const EPOCH_FAKE: &str = "while read l; do echo '{\"obs\":[]}'; done";

#[test]
fn sigint_ends_an_epoch_cache_run_with_its_report() {
    let fake = Fake::new("epoch-cache", EPOCH_FAKE);
    let child = fake.conform(&["--epoch-cache", "1000000"]);
    fake.pid();
    std::thread::sleep(Duration::from_millis(800));
    let sent = Instant::now();
    signal(&child, libc::SIGINT);
    let end = wait_end(child, sent);
    assert_eq!(end.code, Some(1), "{}\n{}", end.stdout, end.stderr);
    assert!(
        end.stdout.contains("disagreeing sequences"),
        "{}",
        end.stdout
    );
    assert!(
        end.stdout.contains("stopped by SIGINT after "),
        "{}",
        end.stdout
    );
    fake.assert_gone();
    eprintln!("epoch cache: ended {:?} after SIGINT", end.took);
}

#[test]
fn a_stalled_epoch_cache_judge_is_exit_5_with_the_report() {
    let body = "n=0\nwhile read l; do n=$((n+1)); [ $n -gt 1500 ] && kill -STOP $$; echo '{\"obs\":[]}'; done";
    let fake = Fake::new("epoch-cache-stalled", body);
    let child = fake.conform(&["--epoch-cache", "5000"]);
    let end = wait_end(child, Instant::now());
    assert!(end.stdout.contains("sequences 1000 "), "{}", end.stdout);
    assert_harness_failure(&end, "stalled");
    fake.assert_gone();
}

#[test]
fn max_histories_gives_the_same_tally_for_the_same_seed() {
    let fake = Fake::new("max-histories", &answers_then(u32::MAX, "exit"));
    let tally = || {
        let child = fake.conform(&["--max-histories", "12", "--seed", "5", "--json"]);
        let end = wait_end(child, Instant::now());
        assert!(matches!(end.code, Some(0 | 1)), "{}", end.stderr);
        let mut v: serde_json::Value = serde_json::from_str(&end.stdout).unwrap();
        for timing in ["seconds", "jvm_seconds", "first_disagreement_seconds"] {
            v.as_object_mut().unwrap().remove(timing);
        }
        v
    };
    let first = tally();
    assert_eq!(first["histories"], 12, "{first}");
    assert_eq!(first, tally());
}

fn hunt(name: &str) -> Child {
    let out = crate::common::scratch("faults", name).join("findings");
    let out = out.to_str().unwrap().to_string();
    crate::common::spawn(&[
        "hunt",
        "--seconds",
        "60",
        "--seed",
        "7",
        "--known",
        "none",
        "--rules",
        "trunk",
        "--out",
        &out,
    ])
}

#[test]
fn timeout_s_two_sigterms_end_a_hunt_with_its_summary_every_time() {
    for round in 0..3 {
        let child = hunt(&format!("hunt-twice-{round}"));
        std::thread::sleep(Duration::from_millis(400));
        let sent = Instant::now();
        signal_twice(&child, libc::SIGTERM);
        let end = wait_end(child, sent);
        assert!(
            matches!(end.code, Some(0 | 1)),
            "{:?}: {}",
            end.signal,
            end.stderr
        );
        assert!(end.stdout.contains("summary: "), "{}", end.stdout);
        assert!(end.stdout.contains("stopped by SIGTERM"), "{}", end.stdout);
        eprintln!("hunt, two SIGTERMs: ended in {:?}", end.took);
    }
}

fn exhaust(name: &str) -> Child {
    let out = crate::common::scratch("faults", name).join("findings");
    let out = out.to_str().unwrap().to_string();
    crate::common::spawn(&[
        "exhaust", "--rules", "trunk", "--known", "none", "--depth", "8", "--jobs", "1", "--out",
        &out,
    ])
}

#[test]
fn one_or_two_sigterms_end_an_exhaust_with_its_summary() {
    for (name, twice) in [("exhaust-once", false), ("exhaust-twice", true)] {
        let child = exhaust(name);
        std::thread::sleep(Duration::from_millis(800));
        let sent = Instant::now();
        if twice {
            signal_twice(&child, libc::SIGTERM);
        } else {
            signal(&child, libc::SIGTERM);
        }
        let end = wait_end(child, sent);
        assert!(
            matches!(end.code, Some(0 | 1)),
            "{:?}: {}",
            end.signal,
            end.stderr
        );
        assert!(end.stdout.contains("summary: "), "{}", end.stdout);
        assert!(end.stdout.contains("stopped by SIGTERM"), "{}", end.stdout);
        eprintln!("exhaust, {name}: ended in {:?}", end.took);
    }
}

#[test]
fn one_sigterm_ends_a_hunt_with_its_summary() {
    let child = hunt("hunt-once");
    std::thread::sleep(Duration::from_millis(400));
    let sent = Instant::now();
    signal(&child, libc::SIGTERM);
    let end = wait_end(child, sent);
    assert!(matches!(end.code, Some(0 | 1)), "{}", end.stderr);
    assert!(end.stdout.contains("stopped by SIGTERM"), "{}", end.stdout);
}
