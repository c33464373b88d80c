//! Verdict fingerprints for refactors: proves a change altered no behaviour.
//!
//! Prints one line per (history, rule-set pair): the history's content hash, the pair, the
//! oracle's fingerprint (every step's outcome and state, the violations, the divergence)
//! and the machine-readable verdict. Histories: every JSON file under `corpus/`, judged
//! under its own `rules` (else `trunk:complete`), and 10,000 histories decoded from fixed
//! seeds, each judged under every preset against `complete`.
//!
//! Run before and after a change and compare: `ci/fingerprints.sh` does both.
use isrfuzz::check::oracle;
use isrfuzz::findings::report;
use isrfuzz::rules::{RuleSet, PRESETS};
use isrfuzz::{decode, History};
use std::path::{Path, PathBuf};

const GENERATED: u64 = 10_000;
const INPUT_BYTES: usize = 256;

fn line(name: &str, h: &History, sides: &[RuleSet]) {
    let v = oracle::run(h, sides, true);
    let pair: Vec<String> = sides.iter().map(RuleSet::to_string).collect();
    println!(
        "{name} {:016x} {} {:016x} {}",
        h.content_hash(),
        pair.join(":"),
        v.fingerprint(),
        report::verdict_json(name, &v)
    );
}

fn json_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            json_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "json")
            && p.file_name() != Some("known.json".as_ref())
        {
            out.push(p);
        }
    }
}

fn main() {
    let mut files = Vec::new();
    json_files(Path::new("corpus"), &mut files);
    files.sort();
    for p in &files {
        let h = History::load(p).expect("corpus histories load");
        let sides = RuleSet::parse_pair(h.rules.as_deref().unwrap_or("trunk:complete"))
            .expect("corpus rules parse");
        line(&p.display().to_string(), &h, &sides);
    }
    let complete = RuleSet::complete();
    let mut pairs: Vec<[RuleSet; 2]> = Vec::new();
    for p in PRESETS {
        let a = RuleSet::parse(p.name).expect("presets parse");
        if !pairs.iter().any(|[x, _]| *x == a) {
            pairs.push([a, complete]);
        }
    }
    for seed in 1..=GENERATED {
        // xorshift64: a fixed byte stream per seed, independent of the library's RNG.
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let data: Vec<u8> = (0..INPUT_BYTES)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 24) as u8
            })
            .collect();
        let h = decode(&data, Default::default());
        for pair in &pairs {
            line(&format!("seed-{seed}"), &h, pair);
        }
    }
}
