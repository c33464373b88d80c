//! The one kind of process every Java judge runs in: the controller driver and the
//! epoch-cache driver both start, talk to and end their JVM through [`Jvm`], so a fault
//! is handled the same way whichever judge has it.
//!
//! A JVM can die, stall (stopped, deadlocked, swapping) or answer nonsense, and a run must
//! survive each: its summary printed, the fault named in one line, the JVM gone. So:
//! - it runs in its own process group (a terminal's Ctrl-C does not kill it mid-exchange;
//!   isrfuzz ends it) with stderr in a log file under `target/`, quoted when it dies;
//! - its pipes are non-blocking and waited on with `poll` from the caller's thread
//!   ([`Pipes`]), so the caller never blocks on I/O: an answer that does not come within
//!   the answer timeout is a stall ([`Error::Harness`]), and a stop request or the run's
//!   deadline ends the wait ([`Error::Stopped`]) after a short grace that lets a healthy
//!   JVM finish the exchange at hand;
//! - an answer line is bounded ([`ANSWER_BYTES_MAX`]);
//! - it is reaped on every exit path: asked to quit, waited for a bounded time, then its
//!   whole group killed. A second Ctrl-C, which ends isrfuzz without unwinding, kills the
//!   group from the signal handler ([`stop::guard_group`]).

use super::pipes::{Line, Pipes};
use crate::error::Error;
use crate::search::stop;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// An answer line longer than this is refused (a controller answer for eight partitions
/// and sixteen brokers fits in 4 KiB; an epoch-cache answer of thirty steps in 8 KiB).
pub const ANSWER_BYTES_MAX: usize = 1 << 20;
/// The default wait for one answer before the JVM counts as stalled.
pub const ANSWER_TIMEOUT_MS: u64 = 20_000;
/// Added to the first answer's wait: the JVM starts and loads the release's classes.
const START_ALLOWANCE_MS: u64 = 30_000;
/// After a stop request or the deadline, how long an answer is still waited for.
const STOP_GRACE_MS: u64 = 1_000;
/// How often a wait looks at stop requests and the deadline.
const POLL_MS: u64 = 50;
/// After the quit request, how long the JVM has to exit before its group is killed (a
/// JVM running a cluster is given longer: [`Launch::quit_wait_ms`]).
pub const QUIT_WAIT_MS: u64 = 2_000;
/// After its stdout closed, how long the JVM's exit status is waited for (for the message).
const DEATH_WAIT_MS: u64 = 500;

/// What starts a JVM: the driver's Maven project, its classpath file, the main class.
pub struct Launch<'a> {
    /// The Maven project (`target/classes` and the log file are under it).
    pub dir: &'a Path,
    pub classpath_file: &'a Path,
    pub main_class: &'a str,
    /// JVM options before `-cp`.
    pub options: &'a [&'a str],
    /// The log file's name in `target/` (the JVM's stderr).
    pub log_name: String,
    /// The line that asks the driver to end, if it has one (else stdin is closed).
    pub quit: Option<&'static str>,
    /// After the quit request, how long the JVM has to exit before its group is killed.
    pub quit_wait_ms: u64,
    /// What the JVM is, for messages: `the JVM running Kafka 4.0.2`.
    pub name: String,
}

/// A running driver JVM.
pub struct Jvm {
    name: String,
    child: Child,
    /// Its stdin and stdout.
    pipes: Pipes,
    log: PathBuf,
    quit: Option<&'static str>,
    quit_wait_ms: u64,
    answer_timeout: Duration,
    /// No answer has come yet: the first wait includes the JVM's start.
    first: bool,
    /// It stalled, died or was cut off mid-answer: no quit is waited for at the end.
    failed: bool,
    /// The run's end: a wait past it ends as a stop.
    pub deadline: Option<Instant>,
    guard: Option<usize>,
    /// `ISRFUZZ_JVM_TRANSCRIPT`: every line sent (`> `) and received (`< `), for comparing
    /// two drivers' answers byte for byte and for replaying a run under a profiler.
    transcript: Option<std::io::BufWriter<std::fs::File>>,
}

impl Jvm {
    /// `java <options> -cp <dir>/target/classes:<classpath file> <main class>`.
    pub fn start(launch: Launch, answer_timeout: Duration) -> Result<Jvm, Error> {
        let file = launch.classpath_file;
        let deps = std::fs::read_to_string(file).map_err(Error::io(file))?;
        let classes = launch.dir.join("target/classes");
        let classpath = format!("{}:{}", classes.display(), deps.trim());
        let log = launch.dir.join("target").join(&launch.log_name);
        let stderr = std::fs::File::create(&log).map_err(Error::io(&log))?;
        let mut command = Command::new("java");
        // Its own process group: Ctrl-C at a terminal signals the whole foreground group,
        // and a JVM killed by it would end the run before its summary.
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command
            .args(launch.options)
            .arg("-cp")
            .arg(&classpath)
            .arg(launch.main_class)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .map_err(Error::io(launch.dir))?;
        let guard = stop::guard_group(child.id() as libc::pid_t);
        let transcript = match std::env::var_os("ISRFUZZ_JVM_TRANSCRIPT") {
            Some(path) => {
                let path = PathBuf::from(format!(
                    "{}.{}",
                    PathBuf::from(path).display(),
                    launch.log_name
                ));
                let file = std::fs::File::create(&path).map_err(Error::io(&path))?;
                Some(std::io::BufWriter::new(file))
            }
            None => None,
        };
        let stdin = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        Ok(Jvm {
            name: launch.name,
            child,
            pipes: Pipes::new(stdin, stdout, ANSWER_BYTES_MAX),
            log,
            quit: launch.quit,
            quit_wait_ms: launch.quit_wait_ms,
            answer_timeout,
            first: true,
            failed: false,
            deadline: None,
            guard,
            transcript,
        })
    }

    /// Queue `line` (a newline is added) for the JVM; never blocks.
    pub fn send(&mut self, line: &str) {
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        if let Some(t) = &mut self.transcript {
            let _ = t.write_all(b"> ").and_then(|_| t.write_all(&bytes));
        }
        // A JVM that stopped reading shows as a death when its answer is read.
        self.pipes.send(&bytes);
    }

    /// The next answer line, without its newline. Waits at most the answer timeout, less
    /// when a stop is asked for or the deadline passes.
    pub fn receive(&mut self) -> Result<String, Error> {
        let mut timeout = self.answer_timeout;
        if self.first {
            timeout += Duration::from_millis(START_ALLOWANCE_MS);
        }
        let started = Instant::now();
        let mut cut: Option<Instant> = None;
        loop {
            match self.pipes.next_line(Duration::from_millis(POLL_MS)) {
                Some(Line::Text(text)) => {
                    self.first = false;
                    if let Some(t) = &mut self.transcript {
                        let _ = writeln!(t, "< {text}");
                    }
                    return Ok(text);
                }
                Some(Line::Eof) => return Err(self.died("before answering")),
                Some(Line::TooLong) => {
                    self.failed = true;
                    return Err(Error::Harness(format!(
                        "{} answered a line longer than {ANSWER_BYTES_MAX} bytes",
                        self.name
                    )));
                }
                None => {}
            }
            let over = self.deadline.is_some_and(|d| Instant::now() >= d);
            if stop::requested() || over {
                let since = *cut.get_or_insert_with(Instant::now);
                if since.elapsed() >= Duration::from_millis(STOP_GRACE_MS) {
                    self.failed = true;
                    return Err(Error::Stopped(format!(
                        "{} was still working when the run ended",
                        self.name
                    )));
                }
            }
            if started.elapsed() >= timeout {
                self.failed = true;
                return Err(Error::Harness(format!(
                    "{} stalled: no answer in {} s (stopped, hung or overloaded; its log: {})",
                    self.name,
                    timeout.as_secs_f64(),
                    self.log.display()
                )));
            }
        }
    }

    /// A harness failure for an answer that is not the protocol.
    pub fn nonsense(&mut self, why: &str, line: &str) -> Error {
        self.failed = true;
        Error::Harness(format!(
            "{} answered what isrfuzz cannot read ({why}): {}",
            self.name,
            line.trim().chars().take(200).collect::<String>()
        ))
    }

    /// The JVM went away: say so with its exit status and its last words.
    fn died(&mut self, when: &str) -> Error {
        self.failed = true;
        let waited = Instant::now();
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(s)) => break s.to_string(),
                Ok(None) if waited.elapsed() < Duration::from_millis(DEATH_WAIT_MS) => {
                    std::thread::sleep(Duration::from_millis(10));
                }
                _ => break "its stdout closed".to_string(),
            }
        };
        let log = std::fs::read_to_string(&self.log).unwrap_or_default();
        let last = log
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("no output");
        Error::Harness(format!(
            "{} died {when} ({status}; last line of {}: {})",
            self.name,
            self.log.display(),
            last.trim()
        ))
    }

    /// Quit (when healthy), a bounded wait, then the whole group killed and reaped.
    fn end(&mut self) {
        if let (Some(quit), false) = (self.quit, self.failed) {
            self.send(quit);
        }
        let waited = Instant::now();
        let patience = if self.failed { 0 } else { self.quit_wait_ms };
        // The quit line is written before stdin closes (a JVM reading it exits either way).
        while !self.pipes.flushed() && waited.elapsed() < Duration::from_millis(patience) {
            self.pipes.drain(Duration::from_millis(10));
        }
        self.pipes.close_input();
        while waited.elapsed() < Duration::from_millis(patience) {
            if !matches!(self.child.try_wait(), Ok(None)) {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        // The group, not just the JVM: anything it started goes too. SIGKILL also ends a
        // stopped process.
        // SAFETY: killpg on the group this child led. Its id is not given to a new process
        // while the group has members, and a reaped leader's id coming back as a new
        // group's within these milliseconds is not a practical concern.
        unsafe { libc::killpg(self.child.id() as libc::pid_t, libc::SIGKILL) };
        let _ = self.child.wait();
        stop::release_group(self.guard.take());
    }
}

impl Drop for Jvm {
    fn drop(&mut self) {
        self.end();
    }
}
