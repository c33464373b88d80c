//! The JVM side of the epoch-cache comparison: the driver process (a [`Jvm`]), one line
//! out and one in per sequence, in batches so that a stop request ends the run between
//! two, shrinking one example per disagreement class, and the report.

use super::{compare, sequences, Disagreement, Mapping, Op, Sequence, MAIN_CLASS};
use crate::conform::jvm::{Jvm, Launch};
use crate::error::Error;
use crate::search::stop;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

/// Sequences sent before their answers are read: a stop request is seen between batches.
const BATCH_SEQUENCES: usize = 1000;

/// A running driver JVM.
pub struct EpochCacheJvm {
    jvm: Jvm,
}

impl EpochCacheJvm {
    /// `java -cp <conformance>/target/classes:<classpath file> EpochCacheDriver`.
    pub fn start(
        conformance_dir: &Path,
        classpath_file: &Path,
        answer_timeout: Duration,
    ) -> Result<EpochCacheJvm, Error> {
        // The cache writes (and fsyncs) its checkpoint file on every change: on tmpfs.
        let options: &[&str] = if Path::new("/dev/shm").is_dir() {
            &["-Djava.io.tmpdir=/dev/shm", "-XX:+UseSerialGC"]
        } else {
            &["-XX:+UseSerialGC"]
        };
        let launch = Launch {
            dir: conformance_dir,
            classpath_file,
            main_class: MAIN_CLASS,
            options,
            log_name: "epoch-cache-driver.log".into(),
            quit: None,
            quit_wait_ms: crate::conform::jvm::QUIT_WAIT_MS,
            name: "the epoch-cache driver's JVM".into(),
        };
        Ok(EpochCacheJvm {
            jvm: Jvm::start(launch, answer_timeout)?,
        })
    }

    /// Send every line, read as many answers (the JVM's writer thread keeps the pipes
    /// flowing).
    pub fn exchange(&mut self, lines: &[String]) -> Result<Vec<String>, Error> {
        for l in lines {
            self.jvm.send(l);
        }
        lines.iter().map(|_| self.jvm.receive()).collect()
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
/// classpath file in batches until done or asked to stop, compare, and shrink one example
/// per disagreement class. The report holds what was compared even when the run failed
/// (then unshrunk: the driver is not asked again); the failure comes beside it.
pub fn run(
    conformance_dir: &Path,
    classpath_file: &Path,
    (seed, count): (u64, usize),
    mapping: Mapping,
    answer_timeout: Duration,
) -> (Report, Result<(), Error>) {
    let mut report = Report::default();
    let mut jvm = match EpochCacheJvm::start(conformance_dir, classpath_file, answer_timeout) {
        Ok(jvm) => jvm,
        Err(e) => return (report, Err(e)),
    };
    let mut drawn = sequences(seed, mapping).take(count).peekable();
    let mut firsts: BTreeMap<String, (usize, Disagreement)> = BTreeMap::new();
    let mut outcome = Ok(());
    while drawn.peek().is_some() && !stop::requested() {
        let batch: Vec<Sequence> = drawn.by_ref().take(BATCH_SEQUENCES).collect();
        let batch = &batch[..];
        let lines: Vec<String> = batch.iter().map(|s| s.line.clone()).collect();
        let answers = match jvm.exchange(&lines) {
            Ok(a) => a,
            Err(e) => {
                outcome = Err(e);
                break;
            }
        };
        count_batch(&mut report, batch);
        for d in compare(batch, &answers) {
            report.disagreements += 1;
            let e = firsts.entry(d.class.clone()).or_insert((0, d.clone()));
            e.0 += 1;
            if d.ops.len() < e.1.ops.len() {
                e.1 = d;
            }
        }
    }
    for (class, (n, d)) in firsts {
        let small = match outcome {
            Ok(()) => shrink(&mut jvm, &d, mapping).unwrap_or_else(|e| {
                outcome = Err(e);
                d
            }),
            Err(_) => d,
        };
        report.classes.insert(class, (n, small));
    }
    (report, outcome)
}

fn count_batch(report: &mut Report, batch: &[Sequence]) {
    report.sequences += batch.len();
    report.operations += batch.iter().map(|s| s.ops.len()).sum::<usize>();
    report.queries += batch
        .iter()
        .flat_map(|s| &s.ops)
        .filter(|o| matches!(o, Op::EndOffsetFor { .. } | Op::EpochAt { .. }))
        .count();
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
