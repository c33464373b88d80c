//! `isrfuzz conform --epoch-cache N`: the model's leader-epoch cache against the
//! release's `LeaderEpochFileCache` on generated operation sequences.

use isrfuzz::conform::driver::{build, project_dir};
use isrfuzz::conform::epoch_cache::{jvm, Mapping};
use isrfuzz::conform::Release;
use isrfuzz::error::{inert_json, stopped_is_fine, Error};
use isrfuzz::search::stop;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

/// What the run takes from `conform`'s arguments.
pub struct Options<'a> {
    pub driver: Option<&'a Path>,
    pub seed: Option<u64>,
    pub json: bool,
}

/// Sequences at most: a million takes a few minutes.
const EPOCH_CACHE_SEQUENCES_MAX: usize = 1_000_000;

/// `--epoch-cache N`: generated operation sequences on both caches, until done or asked
/// to stop; the report of what was compared, whatever ended the run.
pub fn epoch_cache(
    args: &Options,
    release: Release,
    (count, timeout): (usize, Duration),
    printed: &mut bool,
) -> Result<ExitCode, Error> {
    if count == 0 || count > EPOCH_CACHE_SEQUENCES_MAX {
        return Err(Error::Usage(format!(
            "--epoch-cache must be in 1..={EPOCH_CACHE_SEQUENCES_MAX}"
        )));
    }
    let dir = project_dir(args.driver);
    let classpath = build(&dir, &release)?;
    let seed = args.seed.unwrap_or(1);
    let (report, outcome) = jvm::run(
        &dir,
        &classpath,
        (seed, count),
        Mapping::UnifiedLog,
        timeout,
    );
    let outcome = stopped_is_fine(outcome);
    if args.json {
        let classes: std::collections::BTreeMap<&String, usize> =
            report.classes.iter().map(|(c, (n, _))| (c, *n)).collect();
        let mut object = serde_json::json!({
            "release": release.version,
            "seed": seed,
            "sequences": report.sequences,
            "operations": report.operations,
            "queries": report.queries,
            "disagreements": report.disagreements,
            "classes": classes,
            "stopped_by": stop::stopped_by(),
        });
        if let Err(e) = &outcome {
            object["error"] = serde_json::json!(e.to_string());
        }
        println!("{}", inert_json(&object));
        *printed = true;
    } else {
        println!(
            "epoch cache against Kafka {} (seed {seed}):",
            release.version
        );
        print!("{}", jvm::render(&report));
        if let Some(signal) = stop::stopped_by() {
            println!("stopped by {signal} after {} sequences", report.sequences);
        }
    }
    outcome?;
    Ok(if report.disagreements == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
