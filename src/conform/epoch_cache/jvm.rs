//! The JVM side of the epoch-cache comparison: the driver process, one line out and one
//! in per sequence, shrinking one example per disagreement class, and the report.

use super::{compare, generate, Disagreement, Mapping, Op, Sequence, MAIN_CLASS};
use crate::error::Error;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};

/// A running driver JVM.
pub struct EpochCacheJvm {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    stdout: BufReader<std::process::ChildStdout>,
}

impl EpochCacheJvm {
    /// `java -cp <conformance>/target/classes:<classpath file> EpochCacheDriver`.
    pub fn start(conformance_dir: &Path, classpath_file: &Path) -> Result<EpochCacheJvm, Error> {
        let deps = std::fs::read_to_string(classpath_file).map_err(Error::io(classpath_file))?;
        let classpath = format!(
            "{}:{}",
            conformance_dir.join("target/classes").display(),
            deps.trim()
        );
        let mut java = Command::new("java");
        // The cache writes (and fsyncs) its checkpoint file on every change: on tmpfs.
        if Path::new("/dev/shm").is_dir() {
            java.arg("-Djava.io.tmpdir=/dev/shm");
        }
        let mut child = java
            .args(["-XX:+UseSerialGC", "-cp"])
            .arg(classpath)
            .arg(MAIN_CLASS)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(Error::io(conformance_dir))?;
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("piped"));
        Ok(EpochCacheJvm {
            child,
            stdin,
            stdout,
        })
    }

    /// Send every line, read as many answers (a writer thread keeps the pipes flowing).
    pub fn exchange(&mut self, lines: &[String]) -> Result<Vec<String>, Error> {
        let died = |what: &str| Error::Usage(format!("the epoch-cache driver {what}"));
        let stdin = self.stdin.as_mut().ok_or_else(|| died("has no stdin"))?;
        std::thread::scope(|s| {
            let writer = s.spawn(move || -> std::io::Result<()> {
                let mut w = std::io::BufWriter::new(stdin);
                for l in lines {
                    w.write_all(l.as_bytes())?;
                    w.write_all(b"\n")?;
                }
                w.flush()
            });
            let mut answers = Vec::with_capacity(lines.len());
            for _ in lines {
                let mut a = String::new();
                match self.stdout.read_line(&mut a) {
                    Ok(0) | Err(_) => return Err(died("died before answering")),
                    Ok(_) => answers.push(a.trim_end().to_string()),
                }
            }
            writer
                .join()
                .expect("writer thread")
                .map_err(|e| died(&format!("stopped reading ({e})")))?;
            Ok(answers)
        })
    }
}

impl Drop for EpochCacheJvm {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

/// The counts of one run and each disagreement class with its smallest example.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub sequences: usize,
    pub operations: usize,
    /// Operations whose query answers were compared (`end_offset_for`, `epoch_at`).
    pub queries: usize,
    pub disagreements: usize,
    /// Class → (count, the shrunk example).
    pub classes: BTreeMap<String, (usize, Disagreement)>,
}

/// Drop operations from `d` one at a time while the same class still shows at the last
/// one, asking the driver each round.
pub fn shrink(
    jvm: &mut EpochCacheJvm,
    d: &Disagreement,
    mapping: Mapping,
) -> Result<Disagreement, Error> {
    let mut best = d.clone();
    loop {
        let candidates: Vec<Sequence> = (0..best.ops.len())
            .filter_map(|i| {
                let mut ops = best.ops.clone();
                ops.remove(i);
                (!ops.is_empty())
                    .then(|| Sequence::of(ops, mapping))
                    .flatten()
            })
            .collect();
        let lines: Vec<String> = candidates.iter().map(|s| s.line.clone()).collect();
        let answers = jvm.exchange(&lines)?;
        let found = compare(&candidates, &answers)
            .into_iter()
            .find(|c| c.class == best.class && c.step + 1 == candidates[c.sequence].ops.len());
        match found {
            Some(c) => best = c,
            None => return Ok(best),
        }
    }
}

/// Generate `count` sequences from `seed`, run them on the driver with the release's
/// classpath file, compare, and shrink one example per disagreement class.
pub fn run(
    conformance_dir: &Path,
    classpath_file: &Path,
    seed: u64,
    count: usize,
    mapping: Mapping,
) -> Result<Report, Error> {
    let seqs = generate(seed, count, mapping);
    let mut jvm = EpochCacheJvm::start(conformance_dir, classpath_file)?;
    let lines: Vec<String> = seqs.iter().map(|s| s.line.clone()).collect();
    let answers = jvm.exchange(&lines)?;
    let found = compare(&seqs, &answers);
    let mut report = Report {
        sequences: seqs.len(),
        operations: seqs.iter().map(|s| s.ops.len()).sum(),
        queries: seqs
            .iter()
            .flat_map(|s| &s.ops)
            .filter(|o| matches!(o, Op::EndOffsetFor { .. } | Op::EpochAt { .. }))
            .count(),
        disagreements: found.len(),
        classes: BTreeMap::new(),
    };
    let mut firsts: BTreeMap<String, (usize, Disagreement)> = BTreeMap::new();
    for d in found {
        let e = firsts.entry(d.class.clone()).or_insert((0, d.clone()));
        e.0 += 1;
        if d.ops.len() < e.1.ops.len() {
            e.1 = d;
        }
    }
    for (class, (n, d)) in firsts {
        let small = shrink(&mut jvm, &d, mapping)?;
        report.classes.insert(class, (n, small));
    }
    Ok(report)
}

/// The report as text: counts, then each class with its example.
pub fn render(report: &Report) -> String {
    let mut out = format!(
        "sequences {}  operations {}  queries {}  disagreeing sequences {}\n",
        report.sequences, report.operations, report.queries, report.disagreements
    );
    for (class, (n, d)) in &report.classes {
        out += &format!("{class}: {n}\n  ops:");
        for op in &d.ops {
            out += &format!(" {}", serde_json::to_string(op).expect("plain"));
        }
        out += &format!("\n  model: {}\n  kafka: {}\n", d.model, d.real);
    }
    out
}
