//! `isrfuzz hunt`: in-process random search over rule-set pairs. Each iteration draws
//! random bytes, decodes them into a history, runs the oracle, and minimizes every new
//! (rule set, invariant) violation into a JSON history written to the findings folder.
//!
//! Deterministic for a given seed and iteration count; time only decides when to stop.

use crate::check::history::{Expectation, History};
use crate::check::invariants::INVARIANTS;
use crate::check::oracle::{self, Verdict};
use crate::error::Error;
use crate::findings::minimize::minimize;
use crate::rules::RuleSet;
use crate::search::generate::{decode_bounded, decode_guided};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Random input length per iteration, in bytes.
const INPUT_BYTES_MAX: usize = 512;

pub struct Config {
    pub pairs: Vec<[RuleSet; 2]>,
    pub budget: Duration,
    /// Stop after this many histories even if time is left (for tests and benchmarks).
    pub histories_max: Option<u64>,
    pub seed: u64,
    /// `None`: do not write files.
    pub out: Option<PathBuf>,
    /// Findings already understood and accepted: counted, not promoted.
    pub known: Vec<Known>,
    /// Stop as soon as a finding of this invariant is recorded (for time-to-detection runs).
    pub until: Option<String>,
    /// How a written finding says it was found (default: the hunt and its seed).
    pub origin: Option<String>,
}

/// A finding that is understood and accepted (a documented upstream hole): hunts count
/// it instead of reporting it as new. Matched by (rule set, invariant), which is coarse on
/// purpose: a second, different hole behind the same pair stays hidden until the first one
/// is fixed, so keep this list short and every entry backed by a regression.
#[derive(Clone, PartialEq, Eq, Debug, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Known {
    pub rules: String,
    pub invariant: String,
    /// Only violations whose detail contains this text (narrows the match).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// Where it is written up (e.g. `docs/findings.md F4`) and why it is accepted.
    pub reason: String,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct KnownFile {
    format: u32,
    known: Vec<Known>,
}

impl Known {
    /// Whether a violation of `invariant` with `detail` under `rules` is this finding.
    pub fn matches(&self, rules: &RuleSet, invariant: &str, detail: &str) -> bool {
        self.invariant == invariant
            && self.detail.as_deref().is_none_or(|d| detail.contains(d))
            && RuleSet::parse(&self.rules).is_ok_and(|r| r == *rules)
    }
}

/// Read a known-findings file (`corpus/known.json`); rule sets must parse.
pub fn load_known(path: &Path) -> Result<Vec<Known>, Error> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    parse_known(&text).map_err(|message| Error::Input {
        path: path.to_path_buf(),
        message,
    })
}

/// Parse the text of a known-findings file.
pub fn parse_known(text: &str) -> Result<Vec<Known>, String> {
    let file: KnownFile =
        serde_json::from_str(text).map_err(|e| format!("malformed known-findings file: {e}"))?;
    if file.format != 1 {
        return Err(format!(
            "unknown format version {} (this isrfuzz reads version 1)",
            file.format
        ));
    }
    for k in &file.known {
        RuleSet::parse(&k.rules)?;
        if crate::check::invariants::by_id(&k.invariant).is_none() {
            return Err(format!("unknown invariant `{}`", k.invariant));
        }
    }
    Ok(file.known)
}

fn is_known(cfg: &Config, rules: &RuleSet, invariant: &str, detail: &str) -> bool {
    cfg.known
        .iter()
        .any(|k| k.matches(rules, invariant, detail))
}

#[derive(Clone, Debug)]
pub struct Finding {
    pub side_rules: RuleSet,
    pub pair: [RuleSet; 2],
    /// Index of the violating side in `sides_of(pair)`.
    pub side: usize,
    pub invariant: &'static str,
    pub history: History,
    pub elapsed: Duration,
    pub histories: u64,
    pub path: Option<PathBuf>,
    /// This run wrote `path` (it did not exist before).
    pub created: bool,
}

#[derive(Default, Debug)]
pub struct Report {
    pub histories: u64,
    pub elapsed: Duration,
    pub findings: Vec<Finding>,
    pub harness_bugs: Vec<(History, String)>,
    /// Per `INVARIANTS` index: steps on which a `Sometimes` property fired.
    pub sometimes: Vec<u64>,
    /// Known findings met, with how many histories hit each.
    pub known: Vec<((RuleSet, &'static str), u64)>,
    /// When the two sides' states first differed (the bug was *triggered*), and after
    /// how many histories; a detection needs an invariant to fail as well.
    pub first_divergence: Option<(Duration, u64)>,
}

/// SplitMix64: small, fast, and the same on every platform.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn fill(&mut self, buf: &mut Vec<u8>) {
        let len = (self.next_u64() as usize) % INPUT_BYTES_MAX + 1;
        buf.clear();
        while buf.len() < len {
            buf.extend_from_slice(&self.next_u64().to_le_bytes());
        }
        buf.truncate(len);
    }
}

/// Run the hunt. `progress` is called about every 100 ms with the report so far.
/// One iteration in `SHORTEN_EVERY` looks for a shorter witness of a known finding.
const SHORTEN_EVERY: u64 = 4;

pub fn hunt(cfg: &Config, mut progress: impl FnMut(&Report)) -> Result<Report, Error> {
    if let Some(out) = &cfg.out {
        std::fs::create_dir_all(out).map_err(|e| Error::Io {
            path: out.clone(),
            message: e.to_string(),
        })?;
    }
    let start = Instant::now();
    let mut report = Report {
        sometimes: vec![0; INVARIANTS.len()],
        ..Report::default()
    };
    let mut rng = Rng::new(cfg.seed);
    let mut buf = Vec::with_capacity(INPUT_BYTES_MAX);
    let mut last_tick = start;
    loop {
        if report.histories % 64 == 0 {
            let now = Instant::now();
            if now - start >= cfg.budget {
                break;
            }
            if now - last_tick >= Duration::from_millis(100) {
                report.elapsed = now - start;
                progress(&report);
                last_tick = now;
            }
        }
        if cfg.histories_max.is_some_and(|m| report.histories >= m) {
            break;
        }
        if cfg
            .until
            .as_deref()
            .is_some_and(|id| report.findings.iter().any(|f| f.invariant == id))
        {
            break;
        }
        rng.fill(&mut buf);
        let n = report.histories;
        report.histories += 1;
        if n % SHORTEN_EVERY == SHORTEN_EVERY - 1 && !report.findings.is_empty() {
            shorten(cfg, &mut report, &buf, n / SHORTEN_EVERY)?;
            continue;
        }
        let pair = cfg.pairs[(n as usize) % cfg.pairs.len()];
        // Alternate the guide so each side's reachable states get explored.
        let guide = &pair[((n / cfg.pairs.len() as u64) % 2) as usize];
        let history = decode_guided(&buf, guide);
        let verdict = oracle::run(&history, sides_of(&pair), false);
        absorb(cfg, &mut report, pair, history, verdict, start)?;
    }
    report.elapsed = start.elapsed();
    Ok(report)
}

/// Deletion-only minimization stops at local minima (an unclean election standing in for
/// an ISR change, say). So spend some iterations generating histories strictly shorter
/// than a known finding; a new witness that minimizes shorter replaces the old one (its
/// file, written by this run, is removed only after the new one is safely written).
fn shorten(cfg: &Config, report: &mut Report, buf: &[u8], turn: u64) -> Result<(), Error> {
    // Half the turns go round-robin, half to the longest finding, which has most to gain.
    let longest =
        (0..report.findings.len()).max_by_key(|&i| report.findings[i].history.events.len());
    let k = if turn % 2 == 0 {
        (turn as usize / 2) % report.findings.len()
    } else {
        longest.unwrap_or(0)
    };
    let f = &report.findings[k];
    let len = f.history.events.len();
    if len <= 2 {
        return Ok(());
    }
    let (pair, side, invariant, elapsed, histories) =
        (f.pair, f.side, f.invariant, f.elapsed, f.histories);
    let guide = &pair[(turn / report.findings.len() as u64 % 2) as usize];
    let history = decode_bounded(buf, guide, len - 1);
    if !oracle::run(&history, sides_of(&pair), false).sides[side].violates(invariant) {
        return Ok(());
    }
    let better = promote(
        cfg,
        pair,
        side,
        invariant,
        &history,
        Instant::now(),
        report.histories,
    )?;
    if better.history.events.len() >= len {
        return Ok(());
    }
    let better = Finding {
        elapsed,
        histories,
        ..better
    };
    let old = std::mem::replace(&mut report.findings[k], better);
    // Only a file this run created is removed, and only once its replacement exists.
    if let (true, Some(old_path)) = (old.created, &old.path) {
        if report.findings[k].path.as_ref() != Some(old_path) {
            let _ = std::fs::remove_file(old_path);
        }
    }
    Ok(())
}

fn absorb(
    cfg: &Config,
    report: &mut Report,
    pair: [RuleSet; 2],
    history: History,
    verdict: Verdict,
    start: Instant,
) -> Result<(), Error> {
    for side in &verdict.sides {
        for (total, n) in report.sometimes.iter_mut().zip(&side.sometimes) {
            *total += u64::from(*n);
        }
    }
    if let Some(bug) = verdict.harness_bug {
        report.harness_bugs.push((history, bug));
        return Ok(());
    }
    if verdict.first_divergence.is_some() && report.first_divergence.is_none() {
        report.first_divergence = Some((start.elapsed(), report.histories));
    }
    for (s, side) in verdict.sides.iter().enumerate() {
        for v in &side.violations {
            let known = report
                .findings
                .iter()
                .any(|f| f.side_rules == side.rules && f.invariant == v.invariant);
            if known {
                continue;
            }
            if is_known(cfg, &side.rules, v.invariant, &v.detail) {
                let key = (side.rules, v.invariant);
                match report.known.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, n)) => *n += 1,
                    None => report.known.push((key, 1)),
                }
                continue;
            }
            let finding = promote(cfg, pair, s, v.invariant, &history, start, report.histories)?;
            report.findings.push(finding);
        }
    }
    Ok(())
}

fn promote(
    cfg: &Config,
    pair: [RuleSet; 2],
    side: usize,
    invariant: &'static str,
    history: &History,
    start: Instant,
    histories: u64,
) -> Result<Finding, Error> {
    let elapsed = start.elapsed();
    // Minimize towards the *new* finding: a candidate that only shows a known variant of
    // the invariant does not count.
    let fails = |h: &History| {
        let verdict = oracle::run(h, sides_of(&pair), false);
        let run = &verdict.sides[side];
        run.violations
            .iter()
            .any(|v| v.invariant == invariant && !is_known(cfg, &run.rules, v.invariant, &v.detail))
    };
    let mut minimal = minimize(history, fails);
    let origin = cfg
        .origin
        .clone()
        .unwrap_or_else(|| format!("found by `isrfuzz hunt --seed {}`", cfg.seed));
    annotate(&mut minimal, pair, side, invariant, &origin);
    let (path, created) = match &cfg.out {
        Some(dir) => {
            let (path, created) = write_finding(dir, &minimal, &pair[side], invariant)?;
            (Some(path), created)
        }
        None => (None, false),
    };
    Ok(Finding {
        side_rules: pair[side],
        pair,
        side,
        invariant,
        history: minimal,
        elapsed,
        histories,
        path,
        created,
    })
}

/// `isrfuzz promote`: every violation of `history` under `pair` that is not known, each
/// minimized and written to `cfg.out` (never overwriting). Returns what was written.
pub fn promote_all(
    cfg: &Config,
    pair: [RuleSet; 2],
    history: &History,
) -> Result<Vec<Finding>, Error> {
    let verdict = oracle::run(history, sides_of(&pair), false);
    if let Some(bug) = verdict.harness_bug {
        return Err(Error::Usage(format!(
            "harness bug (the model panicked): {bug}"
        )));
    }
    let mut out: Vec<Finding> = Vec::new();
    for (s, side) in verdict.sides.iter().enumerate() {
        for v in &side.violations {
            let seen = out
                .iter()
                .any(|f| f.side == s && f.invariant == v.invariant);
            if seen || is_known(cfg, &side.rules, v.invariant, &v.detail) {
                continue;
            }
            out.push(promote(
                cfg,
                pair,
                s,
                v.invariant,
                history,
                Instant::now(),
                0,
            )?);
        }
    }
    Ok(out)
}

/// A pair of equal rule sets is a single-sided run: no point running it twice.
fn sides_of(pair: &[RuleSet; 2]) -> &[RuleSet] {
    if pair[0] == pair[1] {
        &pair[..1]
    } else {
        pair
    }
}

/// Fill in description, rules and the expected verdict of every side.
pub fn annotate(h: &mut History, pair: [RuleSet; 2], side: usize, invariant: &str, origin: &str) {
    let sides = sides_of(&pair);
    let verdict = oracle::run(h, sides, false);
    let names: Vec<String> = sides.iter().map(RuleSet::to_string).collect();
    h.rules = Some(names.join(":"));
    h.description = Some(format!("{origin}: {} violates {invariant}", pair[side]));
    h.expect = verdict
        .sides
        .iter()
        .map(|s| Expectation {
            rules: s.rules.to_string(),
            violations: s.expected(),
        })
        .collect();
}

fn file_stem(rules: &RuleSet, invariant: &str, hash: u64) -> String {
    let rules: String = rules
        .to_string()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{rules}--{invariant}--{hash:016x}")
}

/// Write atomically and never overwrite: temp file, then a hard link that fails if the
/// name exists. Names carry the content hash, so an existing name holds the same history.
pub fn write_finding(
    dir: &Path,
    h: &History,
    rules: &RuleSet,
    invariant: &str,
) -> Result<(PathBuf, bool), Error> {
    let hash = h.content_hash();
    let path = dir.join(format!("{}.json", file_stem(rules, invariant, hash)));
    if path.exists() {
        return Ok((path, false));
    }
    let tmp = dir.join(format!(".tmp-{}-{hash:016x}", std::process::id()));
    let io = |p: &Path| {
        let p = p.to_path_buf();
        move |e: std::io::Error| Error::Io {
            path: p,
            message: e.to_string(),
        }
    };
    std::fs::write(&tmp, h.to_json()).map_err(io(&tmp))?;
    let linked = std::fs::hard_link(&tmp, &path);
    let _ = std::fs::remove_file(&tmp);
    match linked {
        Ok(()) => Ok((path, true)),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok((path, false)),
        Err(e) => Err(io(&path)(e)),
    }
}
