//! Which of a generated conform campaign's histories a model change touches.
//!
//! A campaign's verdicts (agreement with a release's real controller and brokers) depend on
//! the history, on what the model sends the judges and on the model states compared. The
//! generated stream depends only on the release, the seed, the preset and the ELR mode
//! (`isrfuzz::conform::campaign::Generated`). So this prints, for the first N histories of
//! a seed, one digest per history over every step's controller requests, broker calls and
//! model state. Run it on the commit a campaign ran and on a later one: a history whose
//! digest is unchanged gets the same verdict from the same release, without a JVM; only
//! the changed ones need judging again.
//!
//! Usage: `cargo run --release --example model_drift -- VERSION SEED N > digests.txt`;
//! with `--write DIR I...` after N, it also writes histories I... of the stream as
//! `DIR/VERSION-sSEED-I.json`, for `isrfuzz conform` to judge again.
use isrfuzz::conform::campaign::Generated;
use isrfuzz::conform::release::Release;
use isrfuzz::conform::replay::{model_calls, model_run};
use isrfuzz::rules::RuleSet;
use isrfuzz::search::generate::ElrMode;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::io::Write;

/// Long enough that the count, not the clock, ends the stream.
const SECONDS_MAX: f64 = 1e9;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: model_drift VERSION SEED N [--write DIR I...]";
    let (Some([version, seed, count]), rest) = (args.get(..3), args.get(3..).unwrap_or(&[])) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let (dir, wanted): (Option<&String>, Vec<usize>) = match rest {
        [] => (None, Vec::new()),
        [flag, dir, indexes @ ..] if flag == "--write" => {
            let Ok(wanted) = indexes.iter().map(|i| i.parse()).collect() else {
                eprintln!("model_drift: I is a whole number");
                std::process::exit(2);
            };
            (Some(dir), wanted)
        }
        _ => {
            eprintln!("{usage}");
            std::process::exit(2);
        }
    };
    let (Ok(seed), Ok(count)) = (seed.parse::<u64>(), count.parse::<usize>()) else {
        eprintln!("model_drift: SEED and N are whole numbers");
        std::process::exit(2);
    };
    let release = match Release::parse(version) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("model_drift: {e}");
            std::process::exit(2);
        }
    };
    let rules = RuleSet::parse(release.preset).expect("a release's preset parses");
    let generated = Generated::new(release, seed, rules, ElrMode::Drawn, SECONDS_MAX, &[]);
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    for (i, h) in generated.take(count).enumerate() {
        let mut hasher = DefaultHasher::new();
        let (requests, _) = model_run(&h, &rules);
        format!("{requests:?}").hash(&mut hasher);
        let (calls, states) = model_calls(&h, &rules);
        format!("{calls:?}").hash(&mut hasher);
        states.hash(&mut hasher);
        writeln!(out, "{i} {:016x}", hasher.finish()).expect("stdout");
        if let Some(dir) = dir.filter(|_| wanted.contains(&i)) {
            let path = format!("{dir}/{version}-s{seed}-{i}.json");
            if let Err(e) = std::fs::write(&path, h.to_json()) {
                eprintln!("model_drift: {path}: {e}");
                std::process::exit(1);
            }
        }
    }
}
