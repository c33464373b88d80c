//! The JVM that runs one release's controller: building the driver and its classpath with
//! Maven (cached in `conformance/target/`), starting it (a [`Jvm`]), and one
//! request/answer exchange per line. Every failure is one line: no Java, no Maven, a build
//! that fails (bad usage, exit 2); a JVM that dies, stalls or answers what cannot be read
//! (a harness failure, exit 5).

use super::jvm::{Jvm, Launch, QUIT_WAIT_MS};
use super::protocol::{kind_of, Answer};
use super::release::{Release, RELEASES};
use crate::error::Error;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The driver's main class (conformance/src/main/java).
const MAIN_CLASS: &str = "org.apache.kafka.controller.ConformanceDriver";

/// The driver JVM's options; `ISRFUZZ_JVM_OPTIONS` (split at whitespace) adds to them,
/// later ones winning. One thread does the work: the serial collector keeps the core for
/// it. The compiler depends on the run's length ([`Jit`]).
const JVM_OPTIONS: &[&str] = &["-XX:+UseSerialGC", "-Xss4m"];

/// A run of at least this many seconds (or histories) gets [`Jit::Peak`].
pub const PEAK_JIT_SECONDS_MIN: f64 = 120.0;
pub const PEAK_JIT_HISTORIES_MIN: u64 = 6_000;

/// Which compilers the driver JVM runs. Each history reaches new paths through the
/// release's classes, so C2 is still compiling for a minute or two on one core; after
/// that its code runs the brokers judge about 1.7x as fast as C1's (docs/benchmarks.md,
/// the brokers judge: 240 s runs, warm half).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Jit {
    /// C1 alone: the most histories in a run of a minute or less (the corpus, CI).
    Quick,
    /// C1 then C2 (the JVM's default): the most histories in a long campaign.
    Peak,
}

impl Jit {
    /// The compiler for a run of `seconds` or `histories` (none: the corpus, short).
    pub fn for_run(seconds: Option<f64>, histories: Option<u64>) -> Jit {
        let long = seconds.is_some_and(|s| s >= PEAK_JIT_SECONDS_MIN)
            || histories.is_some_and(|h| h >= PEAK_JIT_HISTORIES_MIN);
        if long {
            Jit::Peak
        } else {
            Jit::Quick
        }
    }

    fn options(self) -> &'static [&'static str] {
        match self {
            Jit::Quick => &["-XX:TieredStopAtLevel=1"],
            // C2 inlines less deep and smaller callees than by default (15, 325, 2500).
            // On one core its compiles of the release's classes are a third of the JVM's
            // time in a run of 6,000 histories; these limits cut them by 40-60 % and the
            // driver's thread runs as fast (tighter ones, 6/100/1000, ran it slower):
            // docs/benchmarks.md, the brokers judge.
            Jit::Peak => &[
                "-XX:MaxInlineLevel=9",
                "-XX:FreqInlineSize=150",
                "-XX:InlineSmallCode=1500",
            ],
        }
    }
}

/// One running JVM with one release's jars.
pub struct Driver {
    pub release: Release,
    jvm: Jvm,
    /// Requests sent, for the throughput figures.
    pub requests: u64,
    /// Time spent waiting for the JVM's answers.
    pub waited: Duration,
    /// Requests sent by kind and option (`protocol::kind_of`).
    pub sent: BTreeMap<String, u64>,
    /// The kinds of the requests posted and not yet answered, oldest first (the JVM
    /// answers in order).
    posted: std::collections::VecDeque<String>,
}

/// The Maven project: `--driver DIR`, else `ISRFUZZ_CONFORMANCE_DIR`, else the checkout
/// this binary was built from. Made absolute: Maven runs inside it, so a relative path
/// handed to Maven (the classpath file) would otherwise name a file under itself.
pub fn project_dir(explicit: Option<&Path>) -> PathBuf {
    let dir = explicit
        .map(Path::to_path_buf)
        .or_else(|| std::env::var_os("ISRFUZZ_CONFORMANCE_DIR").map(PathBuf::from))
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance"));
    std::path::absolute(&dir).unwrap_or(dir)
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
            "conform and cluster need {what} (`{program}` not found or failing on PATH); the model's own commands do not"
        )))
    }
}

/// Build the driver and resolve the release's classpath unless both are cached; the
/// classpath file's path. Maven downloads the release's jars the first time.
pub fn build(dir: &Path, release: &Release) -> Result<PathBuf, Error> {
    build_with(dir, release, None)
}

/// [`build`] with a Maven profile of the pom (`cluster`: the test kit too), its classpath
/// in `classpath-<profile>-<version>.txt`.
pub fn build_with(dir: &Path, release: &Release, profile: Option<&str>) -> Result<PathBuf, Error> {
    if !dir.join("pom.xml").is_file() {
        return Err(Error::Usage(format!(
            "{}: no conformance driver here (pom.xml missing; pass --driver DIR)",
            dir.display()
        )));
    }
    require("java", "a Java runtime (17 or newer)")?;
    let name = match profile {
        Some(p) => format!(
            "target/classpath-{}-{}.txt",
            p.replace(',', "+"),
            release.version
        ),
        None => format!("target/classpath-{}.txt", release.version),
    };
    let classpath = dir.join(name);
    let classes = dir.join("target/classes/org/apache/kafka/controller/ConformanceDriver.class");
    // The classpath file is per release and the classes are shared: a pom changed after
    // this release's classpath was resolved (a dependency added) resolves it again.
    let fresh = |built: &Path| !sources_newer(dir, built);
    if classpath.is_file() && classes.is_file() && fresh(&classes) && fresh(&classpath) {
        return Ok(classpath);
    }
    require("mvn", "Maven (3.8 or newer)")?;
    if release.is_snapshot() {
        require_local_snapshot(release.version)?;
    }
    let mut command = Command::new("mvn");
    if let Some(p) = profile {
        command.arg(format!("-P{p}"));
    }
    command.args(repository_option());
    let out = command
        .current_dir(dir)
        .args([
            "-q",
            "-B",
            "-Dstyle.color=never",
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
        return Err(maven_failure(release, &text));
    }
    Ok(classpath)
}

/// Maven's failure as one line: a release no repository serves, a snapshot not published
/// whole, else Maven's first error.
fn maven_failure(release: &Release, text: &str) -> Error {
    let first = text
        .lines()
        .find(|l| l.contains("ERROR"))
        .unwrap_or("no output");
    if first.contains("could not be resolved") && release.is_snapshot() {
        // A module the published ones depend on, not published with them.
        let which = first
            .split("resolved: ")
            .nth(1)
            .and_then(|r| r.split([',', ':']).nth(1));
        return Error::Usage(format!(
            "Kafka {}: a jar it needs is not in the local Maven repository ({}); publish the whole build with ./gradlew publishToMavenLocal",
            release.version,
            which.unwrap_or("see mvn's output").trim()
        ));
    }
    if first.contains("could not be resolved") && first.contains("org.apache.kafka:") {
        let known: Vec<_> = RELEASES.iter().map(|r| r.version).collect();
        return Error::Usage(format!(
            "Kafka {} is not in the Maven repositories (its jars could not be resolved); the driver runs {}, or a local X.Y.Z-SNAPSHOT",
            release.version,
            known.join(", ")
        ));
    }
    Error::Usage(format!(
        "building the conformance driver for Kafka {} failed: {}",
        release.version,
        first.trim()
    ))
}

/// The Kafka artifacts the driver's pom depends on (conformance/pom.xml).
pub const KAFKA_ARTIFACTS: &[&str] = &[
    "kafka-metadata",
    "kafka-server-common",
    "kafka-clients",
    "kafka-raft",
    "kafka-storage",
    "kafka-storage-api",
    "kafka_2.13",
    "kafka-server",
];

/// Maven's option naming `ISRFUZZ_MAVEN_REPOSITORY` as its local repository, when set,
/// so that Maven reads and writes where isrfuzz looks.
pub fn repository_option() -> Option<String> {
    std::env::var_os("ISRFUZZ_MAVEN_REPOSITORY")
        .map(|r| format!("-Dmaven.repo.local={}", Path::new(&r).display()))
}

/// The local Maven repository: `ISRFUZZ_MAVEN_REPOSITORY`, else `~/.m2/repository`.
pub fn local_repository() -> PathBuf {
    std::env::var_os("ISRFUZZ_MAVEN_REPOSITORY")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let home = std::env::var_os("HOME").unwrap_or_default();
            Path::new(&home).join(".m2/repository")
        })
}

/// A snapshot comes only from the local repository (no repository the driver reaches
/// serves Kafka snapshots): every artifact must be there, else one line saying which.
fn require_local_snapshot(version: &str) -> Result<(), Error> {
    let repo = local_repository();
    let missing: Vec<&str> = KAFKA_ARTIFACTS
        .iter()
        .copied()
        .filter(|a| {
            !repo
                .join(format!("org/apache/kafka/{a}/{version}/{a}-{version}.jar"))
                .is_file()
        })
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(Error::Usage(format!(
        "Kafka {version} is not in the local Maven repository {} ({} missing); publish it from your Kafka checkout with ./gradlew publishToMavenLocal",
        repo.display(),
        missing.join(", ")
    )))
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
    /// Start the JVM on a classpath file (the release's, from [`build`], or a change's,
    /// from `sut::prepare`).
    pub fn start(
        dir: &Path,
        release: Release,
        answer_timeout: Duration,
        jit: Jit,
        classpath_file: PathBuf,
    ) -> Result<Driver, Error> {
        let log_name = format!("driver-{}.log", release.version);
        Driver::start_with(
            dir,
            release,
            answer_timeout,
            (classpath_file, log_name),
            (QUIT_WAIT_MS, jit),
        )
    }

    /// Start the JVM over a classpath file (resolved by [`build_with`]) with its stderr in
    /// a log file of that name in `target/`; `quit_wait_ms`: how long it may take to end
    /// once asked to.
    pub fn start_with(
        dir: &Path,
        release: Release,
        answer_timeout: Duration,
        (classpath_file, log_name): (PathBuf, String),
        (quit_wait_ms, jit): (u64, Jit),
    ) -> Result<Driver, Error> {
        let extra = std::env::var("ISRFUZZ_JVM_OPTIONS").unwrap_or_default();
        let mut options = JVM_OPTIONS.to_vec();
        options.extend(jit.options());
        options.extend(extra.split_whitespace());
        let launch = Launch {
            dir,
            classpath_file: &classpath_file,
            main_class: MAIN_CLASS,
            options: &options,
            log_name,
            quit: Some("{\"op\":\"quit\"}"),
            quit_wait_ms,
            name: format!("the JVM running {}", release.code()),
        };
        Ok(Driver {
            release,
            jvm: Jvm::start(launch, answer_timeout)?,
            requests: 0,
            waited: Duration::ZERO,
            sent: BTreeMap::new(),
            posted: Default::default(),
        })
    }

    /// The run's end: an answer still awaited past it ends the run ([`Error::Stopped`]).
    pub fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.jvm.deadline = deadline;
    }

    /// The run's deadline has passed (a minimization ends at the smallest found so far).
    pub fn past_deadline(&self) -> bool {
        self.jvm.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Send one controller request line, read its answer.
    pub fn exchange(&mut self, request: &serde_json::Value) -> Result<Answer, Error> {
        self.exchange_as(request)
    }

    /// Send one request line, read its answer as `T` (a controller or a broker answer).
    pub fn exchange_as<T: serde::de::DeserializeOwned>(
        &mut self,
        request: &serde_json::Value,
    ) -> Result<T, Error> {
        self.post(request);
        self.answer_as()
    }

    /// Send one request line now; its answer is read by [`Driver::answer_as`], after those
    /// of the requests posted before it. Two requests posted before the first answer is
    /// read cost one wake-up of each process instead of two (on one core, each exchange is
    /// two context switches).
    pub fn post(&mut self, request: &serde_json::Value) {
        self.jvm.send(&request.to_string());
        self.posted.push_back(kind_of(request));
    }

    /// Read the answer to the oldest request posted and not yet answered, as `T`.
    pub fn answer_as<T: serde::de::DeserializeOwned>(&mut self) -> Result<T, Error> {
        let started = Instant::now();
        let line = self.jvm.receive();
        self.requests += 1;
        let kind = self.posted.pop_front().unwrap_or_default();
        *self.sent.entry(kind).or_default() += 1;
        self.waited += started.elapsed();
        let line = line?;
        serde_json::from_str(&line).map_err(|e| self.jvm.nonsense(&e.to_string(), &line))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_relative_driver_folder_is_made_absolute_before_maven_runs_inside_it() {
        let dir = project_dir(Some(Path::new("campaign/conformance")));
        assert!(dir.is_absolute(), "{}", dir.display());
        assert!(dir.ends_with("campaign/conformance"));
    }

    #[test]
    fn the_artifacts_checked_for_a_snapshot_are_every_kafka_artifact_of_the_pom() {
        // The main dependencies: the profiles (the cluster's test kit) are not the driver's.
        let pom = include_str!("../../conformance/pom.xml")
            .split("<profiles>")
            .next()
            .unwrap();
        let mut in_pom: Vec<&str> = pom
            .split("<groupId>org.apache.kafka</groupId>")
            .skip(1)
            .filter_map(|rest| {
                rest.split("<artifactId>")
                    .nth(1)?
                    .split("</artifactId>")
                    .next()
            })
            .collect();
        in_pom.sort_unstable();
        let mut checked = KAFKA_ARTIFACTS.to_vec();
        checked.sort_unstable();
        assert_eq!(in_pom, checked);
    }

    #[test]
    fn a_snapshot_missing_from_the_local_repository_is_one_line_naming_the_gradle_task() {
        let e = require_local_snapshot("0.0.1-SNAPSHOT")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("publishToMavenLocal") && e.contains("kafka-metadata") && !e.contains('\n'),
            "{e}"
        );
    }
}
