//! The JVM that runs one release's controller: building the driver and its classpath with
//! Maven (cached in `conformance/target/`), starting it, and one request/answer exchange
//! per line. Every failure is one line: no Java, no Maven, a build that fails, a JVM that
//! dies or answers what cannot be read.

use super::protocol::Answer;
use super::release::Release;
use crate::error::Error;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// The driver's main class (conformance/src/main/java).
const MAIN_CLASS: &str = "org.apache.kafka.controller.ConformanceDriver";
/// An answer longer than this is refused (eight partitions and sixteen brokers fit in 4 KiB).
const ANSWER_BYTES_MAX: usize = 1 << 20;

/// One running JVM with one release's jars.
pub struct Driver {
    pub release: Release,
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    stderr_path: PathBuf,
    line: String,
    /// Requests sent, for the throughput figures.
    pub requests: u64,
    /// Time spent waiting for the JVM's answers.
    pub waited: std::time::Duration,
}

/// The Maven project: `--driver DIR`, else `ISRFUZZ_CONFORMANCE_DIR`, else the checkout
/// this binary was built from.
pub fn project_dir(explicit: Option<&Path>) -> PathBuf {
    explicit
        .map(Path::to_path_buf)
        .or_else(|| std::env::var_os("ISRFUZZ_CONFORMANCE_DIR").map(PathBuf::from))
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance"))
}

/// `program --version` runs: the tool is there.
fn require(program: &str, what: &str) -> Result<(), Error> {
    let found = Command::new(program)
        .arg(if program == "java" {
            "-version"
        } else {
            "--version"
        })
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if found {
        Ok(())
    } else {
        Err(Error::Usage(format!(
            "conform needs {what} (`{program}` not found or failing on PATH); the model's own commands do not"
        )))
    }
}

/// Build the driver and resolve the release's classpath unless both are cached; the
/// classpath file's path. Maven downloads the release's jars the first time.
pub fn build(dir: &Path, release: &Release) -> Result<PathBuf, Error> {
    if !dir.join("pom.xml").is_file() {
        return Err(Error::Usage(format!(
            "{}: no conformance driver here (pom.xml missing; pass --driver DIR)",
            dir.display()
        )));
    }
    require("java", "a Java runtime (17 or newer)")?;
    let classpath = dir.join(format!("target/classpath-{}.txt", release.version));
    let classes = dir.join("target/classes/org/apache/kafka/controller/ConformanceDriver.class");
    if classpath.is_file() && classes.is_file() && !sources_newer(dir, &classes) {
        return Ok(classpath);
    }
    require("mvn", "Maven (3.8 or newer)")?;
    let out = Command::new("mvn")
        .current_dir(dir)
        .args([
            "-q",
            "-B",
            "-DskipTests",
            "compile",
            "dependency:build-classpath",
        ])
        .arg(format!("-Dkafka.version={}", release.version))
        .arg(format!("-Dmdep.outputFile={}", classpath.display()))
        .output()
        .map_err(Error::io(dir))?;
    if !out.status.success() || !classpath.is_file() {
        let text = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        let first = text
            .lines()
            .find(|l| l.contains("ERROR"))
            .unwrap_or("no output");
        return Err(Error::Usage(format!(
            "building the conformance driver for Kafka {} failed: {}",
            release.version,
            first.trim()
        )));
    }
    Ok(classpath)
}

/// A source file changed after the driver was compiled.
fn sources_newer(dir: &Path, compiled: &Path) -> bool {
    let Ok(built) = compiled.metadata().and_then(|m| m.modified()) else {
        return true;
    };
    let mut stack = vec![dir.join("src/main"), dir.join("pom.xml")];
    while let Some(p) = stack.pop() {
        if p.is_dir() {
            stack.extend(
                std::fs::read_dir(&p)
                    .into_iter()
                    .flatten()
                    .flatten()
                    .map(|e| e.path()),
            );
        } else if p
            .metadata()
            .and_then(|m| m.modified())
            .is_ok_and(|t| t > built)
        {
            return true;
        }
    }
    false
}

impl Driver {
    /// Build if needed, start the JVM, and check it runs the release asked for.
    pub fn start(dir: &Path, release: Release) -> Result<Driver, Error> {
        let classpath_file = build(dir, &release)?;
        let deps = std::fs::read_to_string(&classpath_file).map_err(Error::io(&classpath_file))?;
        let classpath = format!("{}:{}", dir.join("target/classes").display(), deps.trim());
        let stderr_path = dir.join(format!("target/driver-{}.log", release.version));
        let stderr = std::fs::File::create(&stderr_path).map_err(Error::io(&stderr_path))?;
        let mut command = Command::new("java");
        // Its own process group: Ctrl-C at a terminal signals the whole foreground group,
        // and a JVM killed by it would end the run before its summary and mid-way through
        // a disagreement's minimization. isrfuzz stops it (quit, then kill) when it ends.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command
            .args([
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=4",
                "-Xss4m",
                "-cp",
            ])
            .arg(&classpath)
            .arg(MAIN_CLASS)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .map_err(Error::io(dir))?;
        let stdin = child.stdin.take().expect("piped");
        let stdout = BufReader::new(child.stdout.take().expect("piped"));
        Ok(Driver {
            release,
            child,
            stdin,
            stdout,
            stderr_path,
            line: String::new(),
            requests: 0,
            waited: std::time::Duration::ZERO,
        })
    }

    /// Send one request line, read its answer.
    pub fn exchange(&mut self, request: &serde_json::Value) -> Result<Answer, Error> {
        let started = std::time::Instant::now();
        let mut text = request.to_string();
        text.push('\n');
        if self.send(text.as_bytes()).is_err() {
            return Err(self.died("while taking a request"));
        }
        self.line.clear();
        let read = std::io::Read::take(&mut self.stdout, ANSWER_BYTES_MAX as u64)
            .read_line(&mut self.line);
        self.requests += 1;
        self.waited += started.elapsed();
        match read {
            Ok(0) | Err(_) => Err(self.died("before answering")),
            Ok(_) => serde_json::from_str(&self.line).map_err(|e| {
                Error::Usage(format!(
                    "the Kafka {} driver answered what isrfuzz cannot read ({e}): {}",
                    self.release.version,
                    self.line.trim().chars().take(200).collect::<String>()
                ))
            }),
        }
    }

    /// Write to the JVM with SIGPIPE ignored: the binary restores its default disposition
    /// (so that `isrfuzz ... | head` ends quietly), under which a JVM that died would kill
    /// isrfuzz at the write instead of letting it report the death.
    fn send(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        // SAFETY: the disposition is swapped and restored around one write on this thread;
        // isrfuzz conform starts no other thread.
        let old = unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
        let result = self.stdin.write_all(bytes).and_then(|_| self.stdin.flush());
        unsafe { libc::signal(libc::SIGPIPE, old) };
        result
    }

    /// The JVM went away: say so with its exit status and its last words.
    fn died(&mut self, when: &str) -> Error {
        let status = self.child.wait().map(|s| s.to_string()).unwrap_or_default();
        let log = std::fs::read_to_string(&self.stderr_path).unwrap_or_default();
        let last = log
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("no output");
        Error::Usage(format!(
            "the JVM running Kafka {} died {when} ({status}; last line of {}: {})",
            self.release.version,
            self.stderr_path.display(),
            last.trim()
        ))
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.send(b"{\"op\":\"quit\"}\n");
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
