//! `isrfuzz conform`: histories judged by Apache Kafka's real controller, one release per
//! run (files and folders, or generated for a time budget).

use crate::cli::input::{load_all, parse_elr};
use clap::Args;
use isrfuzz::conform::campaign::{
    minimize_disagreement, triage_shown, write_disagreement, Generated, Tally,
};
use isrfuzz::conform::driver::{project_dir, Jit};
use isrfuzz::conform::junit::{junit_reproducer, Finding};
use isrfuzz::conform::junit_brokers::{brokers_reproducer, BROKERS_ASSERTED};
use isrfuzz::conform::junit_files::{write_method, write_reproducer, Written};
use isrfuzz::conform::junit_upstream::{method_name, upstream_method};
use isrfuzz::conform::jvm::ANSWER_TIMEOUT_MS;
use isrfuzz::conform::render::describe;
use isrfuzz::conform::replay::{check_expressible, judged_part};
use isrfuzz::conform::sut::{prepare, Change};
use isrfuzz::conform::{conform_history, Conformance, Driver, Release};
use isrfuzz::error::{inert, inert_json, stopped_is_fine, Error};
use isrfuzz::findings::finding::Sink;
use isrfuzz::findings::triage::load_known_or_default;
use isrfuzz::rules::RuleSet;
use isrfuzz::search::generate::ElrMode;
use isrfuzz::search::stop;
use isrfuzz::History;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Longest budget accepted: a day.
const SECONDS_MAX: f64 = 86400.0;
/// Longest answer timeout accepted: an hour.
const ANSWER_TIMEOUT_MAX_S: f64 = 3600.0;

#[derive(Args)]
pub struct ConformArgs {
    /// The Apache Kafka release: a line (`4.3`, the newest patch the driver knows) or a
    /// version (`4.3.1`).
    #[arg(long, value_name = "VERSION")]
    kafka: String,
    /// Histories to replay (JSON files or folders of them).
    #[arg(value_name = "FILE|DIR")]
    paths: Vec<PathBuf>,
    /// Draw histories with the generator for this many seconds instead.
    #[arg(long, conflicts_with = "paths")]
    seconds: Option<f64>,
    /// Stop generating after N histories (with --seed, the same histories every run; without
    /// --seconds, no time limit).
    #[arg(long, value_name = "N", conflicts_with_all = ["paths", "epoch_cache"])]
    max_histories: Option<u64>,
    /// Seed of the generated histories (default: from the clock, printed).
    #[arg(long)]
    seed: Option<u64>,
    /// ELR in generated histories: `on`, `off` or `drawn` per history.
    #[arg(long, value_name = "on|off|drawn", default_value = "drawn", value_parser = parse_elr)]
    elr: ElrMode,
    /// The model's rule set (default: the preset that claims the release).
    #[arg(long, value_name = "RULES")]
    rules: Option<String>,
    /// Folder for minimized disagreements.
    #[arg(long, default_value = "findings/conformance")]
    out: PathBuf,
    /// Expected and known findings the real controller's violations are triaged against
    /// (default: those built in, from corpus/known.json; `--known none` for none).
    #[arg(long, value_name = "FILE|none")]
    known: Option<PathBuf>,
    /// The Maven project of the driver (default: this checkout's conformance/).
    #[arg(long, value_name = "DIR")]
    driver: Option<PathBuf>,
    /// Also judge the brokers: the calls the model's broker side makes (registrations
    /// applied, appends, fetch rounds, the ISR-expiration task, restarts) are performed on
    /// the release's real Partitions and logs, and every replica is compared after each
    /// step (conformance/BROKERS.md). Generated histories then leave out what the brokers
    /// judge cannot take (unregistration, topics of several partitions, deletion, log
    /// directories); a given history with one is judged by the controller alone.
    #[arg(long, conflicts_with = "epoch_cache")]
    brokers: bool,
    /// Judge a change to the controller: a unified diff (as `git diff` writes it, paths
    /// `metadata/src/main/java/...`) applied to the release's kafka-metadata sources jar,
    /// the changed files compiled against its jars and put first on the classpath. Repeat
    /// for several patches, applied in order. The model side stays `--rules`.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["classpath", "epoch_cache"])]
    patch: Vec<PathBuf>,
    /// Judge a build of one's own: jars or class folders (`:`-separated, one of them
    /// holding the controller, e.g. metadata/build/classes/java/main of a Gradle build) put
    /// before the release's jars.
    #[arg(long, value_name = "PATH", conflicts_with = "epoch_cache")]
    classpath: Option<String>,
    /// Print one line per history, agreeing ones included.
    #[arg(long)]
    verbose: bool,
    /// Compare the model's leader-epoch cache (src/model/log.rs) with the release's
    /// `LeaderEpochFileCache` on N generated operation sequences instead
    /// (conformance/EPOCH-CACHE.md).
    #[arg(long, value_name = "N", conflicts_with_all = ["paths", "seconds"])]
    epoch_cache: Option<usize>,
    /// Write a JUnit 5 reproducer (`<Class>.java`, on conformance/'s ReproFixture) into DIR
    /// for every violation this release shows, one per history and invariant, and the same
    /// as a method for Apache Kafka's own ReplicationControlManagerTest
    /// (`DIR/ReplicationControlManagerTest/<method>.txt`).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["seconds", "max_histories", "epoch_cache"])]
    junit: Option<PathBuf>,
    /// Print only the run's tally, as one JSON object (for scripts); always one, with an
    /// `error` field when the run failed. Disagreements are described on stderr.
    #[arg(long, conflicts_with = "verbose")]
    json: bool,
    /// A JVM that does not answer a request within this many seconds has stalled: the run
    /// ends with its summary and exit 5 (its first answer gets 30 s more, for its start).
    #[arg(long, value_name = "SECONDS", default_value_t = ANSWER_TIMEOUT_MS as f64 / 1000.0)]
    answer_timeout: f64,
}

/// `--answer-timeout`, checked.
fn answer_timeout(args: &ConformArgs) -> Result<Duration, Error> {
    let s = args.answer_timeout;
    if !(s.is_finite() && s > 0.0 && s <= ANSWER_TIMEOUT_MAX_S) {
        return Err(Error::Usage(format!(
            "--answer-timeout must be in (0, {ANSWER_TIMEOUT_MAX_S}]"
        )));
    }
    Ok(Duration::from_secs_f64(s))
}

pub fn run(args: ConformArgs) -> Result<ExitCode, Error> {
    let json = args.json;
    let mut printed = false;
    let result = run_checked(args, &mut printed);
    // --json: one object on stdout whatever happened, a failure before any tally included.
    if let (true, false, Err(e)) = (json, printed, &result) {
        println!(
            "{}",
            inert_json(&serde_json::json!({ "error": e.to_string() }))
        );
    }
    result
}

/// The command; `printed` is set once the `--json` object is out.
fn run_checked(args: ConformArgs, printed: &mut bool) -> Result<ExitCode, Error> {
    let release = Release::parse(&args.kafka)?;
    let preset = args.rules.as_deref().unwrap_or(release.preset);
    let rules = RuleSet::parse(preset).map_err(Error::Usage)?;
    let (seconds, timeout) = budgets(&args)?;
    // Before any JVM starts: a stop request in the JVM's start or its first answer is
    // seen too (the JVM, in its own process group, is not signalled by the terminal).
    stop::install();
    if let Some(count) = args.epoch_cache {
        let options = super::conform_epoch::Options {
            driver: args.driver.as_deref(),
            seed: args.seed,
            json: args.json,
        };
        return super::conform_epoch::epoch_cache(&options, release, (count, timeout), printed);
    }
    if args.paths.is_empty() && seconds.is_none() && args.max_histories.is_none() {
        return Err(Error::Usage(
            "conform needs FILES|DIRS, --seconds N, --max-histories N or --epoch-cache N".into(),
        ));
    }
    let histories = load_all(&args.paths)?;
    refuse_if_none_expressible(&histories, &release)?;
    let known = load_known_or_default(args.known.as_deref())?;
    let jit = Jit::for_run(seconds, args.max_histories);
    let (release, mut driver) = start(&args, release, timeout, jit)?;
    let origin = match release.change {
        Some(c) => format!("found by isrfuzz conform --kafka {} {c}", release.version),
        None => format!("found by isrfuzz conform --kafka {}", release.version),
    };
    let sink = Sink::new(Some(args.out.clone()), known, origin);
    // The folder is this run's alone while it writes (as every engine's); taken once a
    // judge runs, so a run that cannot start leaves nothing on disk.
    sink.create_dir()?;
    let _lock = sink.lock_exclusive()?;
    let mut run = Run {
        args: &args,
        rules: &rules,
        release,
        tally: Tally::default(),
        seed: None,
        sink,
        junit_taken: BTreeSet::new(),
        methods_taken: BTreeSet::new(),
        started: Instant::now(),
    };
    let outcome = stopped_is_fine(run.all(&mut driver, seconds, &histories));
    run.tally.elapsed = run.started.elapsed();
    // The summary of what was found comes whatever ended the run (a stop request, a judge
    // that died or stalled); the error follows it.
    if args.json {
        println!("{}", inert_json(&run.json(&driver, outcome.as_ref().err())));
        *printed = true;
    } else {
        run.summary(&driver);
    }
    outcome?;
    Ok(if run.tally.disagreements() == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `--seconds` and `--answer-timeout`, checked, and `--max-histories` at least 1.
fn budgets(args: &ConformArgs) -> Result<(Option<f64>, Duration), Error> {
    let seconds = args
        .seconds
        .filter(|s| s.is_finite() && *s > 0.0 && *s <= SECONDS_MAX);
    if args.seconds.is_some() && seconds.is_none() {
        return Err(Error::Usage(format!(
            "--seconds must be in (0, {SECONDS_MAX}]"
        )));
    }
    if args.max_histories == Some(0) {
        return Err(Error::Usage("--max-histories must be at least 1".into()));
    }
    Ok((seconds, answer_timeout(args)?))
}

/// The JVM on the release's jars, or on the change `--patch` or `--classpath` names first;
/// the release labelled with that change.
fn start(
    args: &ConformArgs,
    release: Release,
    timeout: Duration,
    jit: Jit,
) -> Result<(Release, Driver), Error> {
    let change = match (&args.patch[..], args.classpath.as_deref()) {
        ([], None) => Change::Release,
        ([], Some(entries)) => Change::Classpath(entries),
        (files, _) => Change::Patches(files),
    };
    let dir = project_dir(args.driver.as_deref());
    let (release, classpath) = prepare(&dir, release, change)?;
    let driver = Driver::start(&dir, release, timeout, jit, classpath)?;
    Ok((release, driver))
}

/// Files were named and the release can take none of them: say why, before any JVM.
fn refuse_if_none_expressible(
    histories: &[(PathBuf, History)],
    release: &Release,
) -> Result<(), Error> {
    if histories.is_empty() {
        return Ok(());
    }
    let mut why = None;
    for (path, h) in histories {
        match check_expressible(&judged_part(h).0, release) {
            Ok(()) => return Ok(()),
            Err(skip) => why = why.or(Some((path, skip.0))),
        }
    }
    let (path, reason) = why.expect("at least one history");
    Err(Error::Input {
        path: path.clone(),
        message: format!(
            "Apache Kafka {} can take none of the {} histories named ({reason}); conform replays KRaft histories only",
            release.version,
            histories.len()
        ),
    })
}

fn clock_seed() -> u64 {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
    now.map(|d| d.as_nanos() as u64).unwrap_or(1)
}

struct Run<'a> {
    args: &'a ConformArgs,
    rules: &'a RuleSet,
    release: Release,
    tally: Tally,
    /// The generator's seed, for generated runs.
    seed: Option<u64>,
    /// Where disagreements are written and the real controller's violations triaged.
    sink: Sink,
    /// The reproducer classes this run wrote: a second finding mapping to one of them
    /// takes the next free name instead of replacing it.
    junit_taken: BTreeSet<String>,
    /// The same for the methods for upstream's ReplicationControlManagerTest.
    methods_taken: BTreeSet<String>,
    /// When the histories began (a summary row's first time is counted from it).
    started: Instant,
}

impl Run<'_> {
    /// Every history, generated for `seconds` or read, until done or asked to stop.
    fn all(
        &mut self,
        driver: &mut Driver,
        seconds: Option<f64>,
        histories: &[(PathBuf, History)],
    ) -> Result<(), Error> {
        if !self.args.paths.is_empty() {
            for (path, h) in histories.iter().take_while(|_| !stop::requested()) {
                // The label is printed and quoted in reproducers: a hostile file name
                // stays inert there.
                self.one(driver, &inert(&path.display().to_string()), h)?;
            }
            return Ok(());
        }
        let seed = self.args.seed.unwrap_or_else(clock_seed);
        self.seed = Some(seed);
        if !self.args.json {
            let (version, rules) = (self.release.version, self.rules);
            let budget = match (seconds, self.args.max_histories) {
                (Some(s), Some(n)) => format!("{s} s or {n} histories"),
                (Some(s), None) => format!("{s} s"),
                (None, Some(n)) => format!("{n} histories"),
                (None, None) => "no limit".into(),
            };
            println!("conform: Kafka {version} against {rules}, seed {seed}, {budget}");
        }
        if let Some(s) = seconds {
            driver.set_deadline(Some(Instant::now() + Duration::from_secs_f64(s)));
        }
        let seconds = seconds.unwrap_or(SECONDS_MAX);
        // Under --brokers, only what the brokers judge can take: each history is judged whole.
        let without = match self.args.brokers {
            true => isrfuzz::conform::brokers::NOT_JUDGED_OPS,
            false => &[],
        };
        let (rules, elr) = (*self.rules, self.args.elr);
        let generated = Generated::new(self.release, seed, rules, elr, seconds, without);
        let max = self.args.max_histories.unwrap_or(u64::MAX);
        for h in generated.take(usize::try_from(max).unwrap_or(usize::MAX)) {
            self.one(driver, "generated", &h)?;
        }
        Ok(())
    }

    /// One history: replayed, and a disagreement minimized, printed and written.
    fn one(&mut self, driver: &mut Driver, label: &str, h: &History) -> Result<(), Error> {
        let brokers = self.args.brokers;
        let c = match conform_history(h, self.rules, driver, brokers)? {
            Ok(c) => c,
            Err(skip) => {
                if self.args.verbose {
                    println!("skip   {label}: {}", skip.0);
                }
                *self.tally.skipped.entry(skip.kind()).or_default() += 1;
                return Ok(());
            }
        };
        self.tally.add(&c);
        self.tally.mark(self.started.elapsed());
        if c.disagreement.is_some() && self.tally.first_disagreement.is_none() {
            self.tally.first_disagreement = Some(self.started.elapsed());
        }
        let shown = triage_shown(&self.sink, h, self.rules, &c);
        let at = self.started.elapsed();
        self.tally.count_shown(*self.rules, &shown, at);
        if label != "generated" {
            let ids = c.shown.iter().map(|(id, _, _)| *id).collect();
            let key = format!("{:016x}", h.content_hash());
            self.tally.by_history.insert(key, ids);
        }
        self.print_shown(label, &c);
        self.write_reproducers(label, h, &c)?;
        let Some(d) = &c.disagreement else {
            if self.args.verbose {
                println!("agree  {label} ({} requests)", c.requests);
            }
            return Ok(());
        };
        let small = minimize_disagreement(h, self.rules, driver, &d.class, brokers)?;
        let shown = match conform_history(&small, self.rules, driver, brokers)? {
            Ok(Conformance {
                disagreement: Some(d),
                ..
            }) => (small, d),
            _ => (h.clone(), d.clone()),
        };
        let path = write_disagreement(&self.sink, &shown.0, self.rules, &self.release, &shown.1)?;
        let real = self.release.code();
        let text = format!(
            "DIFFER {label}: {} at step {} -> {}\n{}",
            shown.1.class,
            shown.1.step,
            inert(
                &path
                    .as_deref()
                    .unwrap_or(std::path::Path::new("-"))
                    .display()
                    .to_string()
            ),
            describe(&shown.0, &shown.1, &self.rules.to_string(), &real)
        );
        // Under --json stdout holds the one object only.
        if self.args.json {
            eprint!("{text}");
        } else {
            print!("{text}");
        }
        Ok(())
    }

    /// `--junit DIR`: a reproducer per violation shown before any disagreement (after one,
    /// the model's requests are no longer the real controller's history).
    fn write_reproducers(
        &mut self,
        label: &str,
        h: &History,
        c: &Conformance,
    ) -> Result<(), Error> {
        let Some(dir) = &self.args.junit else {
            return Ok(());
        };
        let upto = c.disagreement.as_ref().map_or(usize::MAX, |d| d.step);
        for (id, step, detail) in c.shown.iter().filter(|(_, step, _)| *step < upto) {
            let finding = Finding {
                invariant: id,
                step: *step,
                detail,
            };
            if BROKERS_ASSERTED.contains(id) {
                // A data-plane violation the real brokers showed: a PartitionTest-shaped
                // test on the brokers alone.
                match brokers_reproducer(label, h, self.rules, &self.release, &finding) {
                    Ok(r) => {
                        let w = write_reproducer(dir, &r, &mut self.junit_taken)?;
                        self.print_written(id, label, &w, w.class != r.class);
                    }
                    Err(why) if !self.args.json => println!("junit  {id} {label}: none ({why})"),
                    Err(_) => {}
                }
                continue;
            }
            match junit_reproducer(label, h, self.rules, &self.release, &finding) {
                Ok(r) => {
                    let w = write_reproducer(dir, &r, &mut self.junit_taken)?;
                    self.print_written(id, label, &w, w.class != r.class);
                    // The same finding as a method of upstream's own test class, named
                    // after the class just written so that the two stay paired.
                    match upstream_method(label, h, self.rules, &self.release, &finding) {
                        Ok(m) => {
                            let m = m.renamed(&method_name(&w.class));
                            let wm = write_method(dir, &m, &mut self.methods_taken)?;
                            self.print_written(id, label, &wm, wm.class != m.method);
                        }
                        Err(why) if !self.args.json => {
                            println!("junit  {id} {label}: no ReplicationControlManagerTest method ({why})")
                        }
                        Err(_) => {}
                    }
                }
                Err(why) if !self.args.json => println!("junit  {id} {label}: none ({why})"),
                Err(_) => {}
            }
        }
        Ok(())
    }

    fn print_written(&self, id: &str, label: &str, w: &Written, renamed: bool) {
        if self.args.json {
            return;
        }
        let note = match (w.created, renamed) {
            (false, _) => " (already there)",
            (true, true) => " (its name was taken)",
            (true, false) => "",
        };
        let path = inert(&w.path.display().to_string());
        println!("junit  {id} {label} -> {path}{note}");
    }

    fn print_shown(&self, label: &str, c: &Conformance) {
        for (id, step, detail) in &c.shown {
            let upto = c.disagreement.as_ref().map_or(usize::MAX, |d| d.step);
            let whose = if *step < upto {
                "shown by"
            } else {
                "on the real state of"
            };
            if self.args.paths.is_empty() || self.args.json {
                continue; // generated histories and --json: counted in the tally only
            }
            println!(
                "{id:<6} {whose} {} at step {step}: {label}: {detail}",
                self.release.code()
            );
        }
    }

    /// The tally as one object; `error` when the run failed.
    fn json(&self, driver: &Driver, error: Option<&Error>) -> serde_json::Value {
        let t = &self.tally;
        let waited = driver.waited.as_secs_f64();
        let mut object = serde_json::json!({
            "release": self.release.version,
            "code": self.release.code(),
            "rules": self.rules.to_string(),
            "histories": t.histories,
            "histories_judged_whole": t.judged_whole(),
            "requests": t.requests,
            "not_upstream": t.not_upstream,
            "broker_calls": t.broker_calls,
            "broker_steps": t.broker_steps,
            "skipped": t.skipped.values().sum::<u64>(),
            "skipped_by_reason": t.skipped,
            "disagreements": t.by_class,
            "stopped_by_reason": t.stopped,
            "brokers_not_judged_by_reason": t.brokers_not_judged,
            "unjudged_steps_by_reason": t.unjudged_steps,
            "shown": t.shown_by_invariant(),
            "shown_new": t.shown.new_count(),
            "shown_by_history": t.by_history,
            "seconds": t.elapsed.as_secs_f64(),
            "jvm_seconds": waited,
            "sent_by_kind": driver.sent,
            "first_disagreement_seconds": t.first_disagreement.map(|d| d.as_secs_f64()),
            "warm_histories_per_second": t.warm_rate(),
            "stopped_by": stop::stopped_by(),
        });
        if let Some(seed) = self.seed {
            object["seed"] = serde_json::json!(seed);
        }
        if let Some(e) = error {
            object["error"] = serde_json::json!(e.to_string());
        }
        object
    }

    fn summary(&self, driver: &Driver) {
        let t = &self.tally;
        let secs = t.elapsed.as_secs_f64().max(1e-9);
        let jvm = 100.0 * driver.waited.as_secs_f64() / secs;
        println!(
            "{} against {}: {} histories, {} requests compared ({} not upstream), {} disagreements, {} skipped; {:.0} histories/s, {jvm:.0} % of the time in the JVM",
            self.release.code(),
            self.rules,
            t.histories,
            t.requests,
            t.not_upstream,
            t.disagreements(),
            t.skipped.values().sum::<u64>(),
            t.histories as f64 / secs,
        );
        if self.args.brokers {
            println!(
                "  real brokers: {} calls performed, every replica compared after each of {} steps",
                t.broker_calls, t.broker_steps
            );
        }
        let sent: Vec<String> = driver
            .sent
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        println!("  sent to the JVM: {}", sent.join(", "));
        for (reason, n) in &t.skipped {
            println!("  skipped ({reason}): {n}");
        }
        for (reason, n) in &t.brokers_not_judged {
            println!("  judged by the controller alone, the brokers cannot ({reason}): {n}");
        }
        for (reason, n) in &t.unjudged_steps {
            println!("  steps not judged ({reason}): {n}");
        }
        for (class, n) in &t.by_class {
            println!("  disagreement {class}: {n}");
        }
        for (reason, n) in &t.stopped {
            println!("  stopped at a step beyond the model, the steps before it compared ({reason}): {n}");
        }
        if !t.shown.rows.is_empty() {
            println!("shown by {}:", self.release.code());
            print!("{}", t.shown.table(t.histories, t.elapsed));
        }
        if let Some(signal) = stop::stopped_by() {
            println!("stopped by {signal} after {} histories", t.histories);
        }
    }
}
