//! `isrfuzz cluster`: the real cluster as the last judge. One in-process cluster of a
//! release (its test kit), a topic per history, each history's operator plan (exactly what
//! `replay --operator` prints) run on it; each history confirmed, not confirmed or not
//! expressible in-process. Exit codes: 0 every history confirmed, 1 one at least not
//! confirmed or not expressible, 2 bad input (a release without a test kit among it),
//! 3 the cluster failed to start, 5 its JVM died or stalled during the run.

use crate::cli::input::{check_rules, load_all, sides_for};
use clap::Args;
use isrfuzz::check::oracle;
use isrfuzz::conform::cluster::{Cluster, StartError};
use isrfuzz::conform::cluster_report::{tally, HistoryResult};
use isrfuzz::conform::cluster_run::{self, beyond, Bounds};
use isrfuzz::conform::driver::project_dir;
use isrfuzz::conform::release::Release;
use isrfuzz::error::{inert, inert_json, Error};
use isrfuzz::findings::operator;
use isrfuzz::findings::plan::Line;
use isrfuzz::search::stop;
use isrfuzz::History;
use std::path::PathBuf;
use std::process::ExitCode;

/// The longest a check may be told to wait.
const CHECK_DEADLINE_MS_MAX: u64 = 600_000;
/// Histories in one run at most (each takes seconds to minutes on the cluster).
const HISTORIES_MAX: usize = 200;
/// Brokers in one cluster at most (each is a few threads and a log directory).
const BROKERS_MAX: usize = 12;

#[derive(Args)]
pub struct ClusterArgs {
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// The Apache Kafka release whose cluster judges (4.0.2 … 4.4.0, or a line such as 4.3;
    /// its test kit, kafka-test-common-runtime, must be on Maven Central).
    #[arg(long = "kafka", value_name = "V")]
    kafka: String,
    /// Rule sets A:B or A, as for `replay`: the plan is side A's (default: the file's own).
    #[arg(long = "rules", value_name = "A:B")]
    rules: Option<String>,
    /// Print one machine-readable summary (JSON) instead of lines.
    #[arg(long)]
    json: bool,
    /// How long each check waits for the state it expects, in milliseconds.
    #[arg(long, default_value_t = 60_000, value_name = "MS")]
    check_deadline_ms: u64,
    /// The conformance driver's Maven project (default: conformance/ of this checkout).
    #[arg(long, value_name = "DIR")]
    driver: Option<PathBuf>,
}

/// One history ready to run: its name, brokers and plan (with the side it is of).
struct Job {
    file: String,
    history: History,
    side: oracle::SideRun,
    plan: Vec<Line>,
}

pub fn run(args: ClusterArgs) -> Result<ExitCode, Error> {
    check_rules(args.rules.as_deref())?;
    let release = Release::parse(&args.kafka)?;
    if !(1..=CHECK_DEADLINE_MS_MAX).contains(&args.check_deadline_ms) {
        return Err(Error::Usage(format!(
            "--check-deadline-ms must be in 1..={CHECK_DEADLINE_MS_MAX}"
        )));
    }
    let jobs = jobs(&args)?;
    let runnable: Vec<&Job> = jobs.iter().filter(|j| beyond(&j.plan).is_none()).collect();
    let brokers = (runnable.iter())
        .map(|j| j.history.brokers.len())
        .max()
        .unwrap_or(0);
    if brokers > BROKERS_MAX {
        return Err(Error::Usage(format!(
            "a history needs {brokers} brokers; the cluster runs at most {BROKERS_MAX}"
        )));
    }
    let configs = cluster_configs(&runnable)?;
    stop::install();
    let mut results = Vec::new();
    let mut start_ms = None;
    let outcome = if runnable.is_empty() {
        run_all(None, &jobs, &args, &mut results)
    } else {
        let dir = project_dir(args.driver.as_deref());
        let mut cluster = match Cluster::start(&dir, release, brokers, &configs) {
            Ok(c) => c,
            Err(StartError::Usage(e)) => return Err(e),
            Err(StartError::Failed(why)) => {
                eprintln!(
                    "error: the Kafka {} cluster failed to start: {}",
                    release.version,
                    inert(&why)
                );
                return Ok(ExitCode::from(3));
            }
        };
        start_ms = Some(cluster.start_ms);
        let ran = run_all(Some(&mut cluster), &jobs, &args, &mut results);
        // Closed on every path: here after a full run; after a stop, by the quit request
        // the JVM gets when dropped (a close here would be cut short by the stop itself);
        // a JVM that died or stalled is killed when dropped.
        let closed = match &ran {
            Ok(()) => cluster.close().map(drop),
            Err(_) => Ok(()),
        };
        ran.and(closed)
    };
    print(&args, release, brokers, start_ms, &results);
    if let Err(Error::Stopped(why)) = &outcome {
        // The results so far stand; the histories not run are not judged.
        eprintln!(
            "cluster: {why}; {} of {} histories judged",
            results.len(),
            jobs.len()
        );
        return Ok(ExitCode::from(1));
    }
    outcome?;
    let [confirmed, ..] = tally(&results);
    Ok(if confirmed == results.len() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Every history loaded, judged by the model (the plan's side recorded) and planned.
fn jobs(args: &ClusterArgs) -> Result<Vec<Job>, Error> {
    let histories = load_all(&args.files)?;
    if histories.len() > HISTORIES_MAX {
        return Err(Error::Usage(format!(
            "{} histories; a cluster run takes at most {HISTORIES_MAX}",
            histories.len()
        )));
    }
    let mut out = Vec::new();
    for (path, history) in histories {
        let sides = sides_for(&history, &path, args.rules.as_deref())?;
        let verdict = oracle::run(&history, &sides, true);
        let side = verdict.sides.into_iter().next().ok_or_else(|| {
            Error::input(&path)("the model judged no side (harness bug)".to_string())
        })?;
        let plan = operator::plan(&history, &side);
        out.push(Job {
            file: path.display().to_string(),
            history,
            side,
            plan,
        });
    }
    Ok(out)
}

/// The configs every node gets: the histories' `replica.lag.time.max.ms` (one for all: a
/// static broker config), and the fetch size a throttle needs to hold a follower long.
fn cluster_configs(jobs: &[&Job]) -> Result<Vec<(String, String)>, Error> {
    let mut lags: Vec<i64> = (jobs.iter())
        .map(|j| j.history.broker_config.replica_lag_time_max_ms)
        .collect();
    lags.sort_unstable();
    lags.dedup();
    if lags.len() > 1 {
        return Err(Error::Usage(format!(
            "the histories ask for different replica.lag.time.max.ms ({lags:?}), a static config of the one cluster: run them separately"
        )));
    }
    let mut out = vec![("replica.fetch.max.bytes".to_string(), "65536".to_string())];
    if let Some(lag) = lags.first() {
        out.push(("replica.lag.time.max.ms".to_string(), lag.to_string()));
    }
    Ok(out)
}

/// Run every job in order (the not expressible reported without running, and without a
/// cluster when none is needed); stops at a stop request or a JVM failure, the results so
/// far kept.
fn run_all(
    mut cluster: Option<&mut Cluster>,
    jobs: &[Job],
    args: &ClusterArgs,
    results: &mut Vec<HistoryResult>,
) -> Result<(), Error> {
    let bounds = Bounds {
        check_deadline_ms: args.check_deadline_ms,
        poll_ms: 200,
    };
    for (i, job) in jobs.iter().enumerate() {
        if stop::requested() {
            return Err(Error::Stopped("stopped by a signal".to_string()));
        }
        let skipped = cluster_run::not_expressible(&job.file, &job.side, &job.plan);
        let r = match (skipped, cluster.as_deref_mut()) {
            (Some(r), _) => r,
            (None, Some(c)) => {
                let topic = format!("isrfuzz-{i}");
                let brokers = &job.history.brokers;
                cluster_run::run(
                    c,
                    (&job.file, &topic),
                    brokers,
                    &job.side,
                    &job.plan,
                    bounds,
                )?
            }
            (None, None) => {
                return Err(Error::Harness(format!(
                    "{}: no cluster to run it on (harness bug)",
                    inert(&job.file)
                )))
            }
        };
        if !args.json {
            println!("{}", r.line());
        }
        results.push(r);
    }
    Ok(())
}

fn print(
    args: &ClusterArgs,
    release: Release,
    brokers: usize,
    start_ms: Option<u64>,
    results: &[HistoryResult],
) {
    let [confirmed, not_confirmed, not_expressible] = tally(results);
    let start_seconds = start_ms.map(|ms| ms as f64 / 1000.0);
    if args.json {
        let v = serde_json::json!({
            "release": release.version,
            "brokers": brokers,
            "start_seconds": start_seconds,
            "confirmed": confirmed,
            "not_confirmed": not_confirmed,
            "not_expressible": not_expressible,
            "histories": results.iter().map(HistoryResult::json).collect::<Vec<_>>(),
        });
        println!("{}", inert_json(&v));
        return;
    }
    let started = start_seconds.map_or("no cluster started (nothing to run)".to_string(), |s| {
        format!("1 controller and {brokers} brokers started in {s:.1} s")
    });
    println!(
        "cluster: Kafka {}, {started}; {confirmed} confirmed, {not_confirmed} not confirmed, {not_expressible} not expressible in-process",
        release.version
    );
}
