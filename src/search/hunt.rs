//! `isrfuzz hunt`: in-process random search over rule-set pairs. Each iteration draws
//! random bytes, decodes them into a history and runs the oracle; every new (rule set,
//! invariant) violation goes to the findings pipeline ([`Sink`]: triage, minimize, write).
//!
//! Runs on `jobs` worker threads ([`crate::search::workers`]), each a deterministic
//! stream of its own: for a given seed, job count and iteration count the findings are
//! the same whatever the scheduling; time only decides when to stop.

use crate::check::history::History;
use crate::check::invariants::INVARIANTS;
use crate::check::oracle::Verdict;
use crate::error::Error;
use crate::findings::attribution::attributed;
use crate::findings::finding::sides_of;
use crate::findings::summary::Matched;
use crate::findings::{Finding, Sink};
use crate::rules::RuleSet;
use crate::search::generate::{decode, Decode, ElrMode, GEN_EVENTS_MAX, GEN_SPLICED_EVENTS_MAX};
use crate::search::judged::decode_judged;
pub use crate::search::report::{MatchedEntry, Report};
use crate::search::rng::Rng;
use crate::search::share::Shares;
use crate::search::splice::{Pool, SPLICED_BYTES_MAX};
use crate::search::stop;
pub use crate::search::workers::Progress;
use crate::search::workers::{merge, run_workers, Shared, Turn};
use crate::search::JOBS_MAX;
use std::time::{Duration, Instant};

/// What to search and when to stop. Where findings go is the [`Sink`]'s business.
pub struct Config {
    pub pairs: Vec<[RuleSet; 2]>,
    pub budget: Duration,
    /// Stop after this many histories even if time is left (for tests and benchmarks),
    /// counted over all workers.
    pub histories_max: Option<u64>,
    pub seed: u64,
    /// Stop as soon as a finding of this invariant is recorded (for time-to-detection runs).
    pub until: Option<String>,
    /// Stop once every one of these rows has been met: (expected or known finding id,
    /// invariant), as the summary names them (time-to-rediscovery runs).
    pub watch: Vec<(String, String)>,
    /// ELR on or off in every history, or drawn per history (the default).
    pub elr: ElrMode,
    /// Worker threads, each with its own seed derived from `seed` (worker 0 runs `seed`
    /// itself, so one job is the single-threaded search). The findings depend on `seed`
    /// and `jobs` only, never on how the threads were scheduled.
    pub jobs: usize,
}

impl Config {
    /// A search of `pairs` from `seed` on one worker: a minute, no history bound, no stop
    /// condition, ELR drawn per history. Callers set what they need on top.
    pub fn new(pairs: Vec<[RuleSet; 2]>, seed: u64) -> Config {
        Config {
            pairs,
            budget: Duration::from_secs(60),
            histories_max: None,
            seed,
            until: None,
            watch: Vec::new(),
            elr: ElrMode::Drawn,
            jobs: 1,
        }
    }
}

/// One iteration in `SHORTEN_EVERY` looks for a shorter witness of a known finding.
const SHORTEN_EVERY: u64 = 4;

/// Run the hunt on `cfg.jobs` workers. `progress` is called about every 100 ms.
pub fn hunt(cfg: &Config, sink: &Sink, progress: impl FnMut(&Progress)) -> Result<Report, Error> {
    sink.create_dir()?;
    let _lock = sink.lock_exclusive()?;
    let start = Instant::now();
    let jobs = cfg.jobs.clamp(1, JOBS_MAX);
    let shared = Shared::new(&cfg.watch);
    let reports = run_workers(jobs, &shared, start, progress, |w| {
        worker(cfg, sink, &shared, Turn { worker: w, jobs }, start)
    });
    let mut report = merge(sink, reports, jobs);
    report.elapsed = start.elapsed();
    report.watched = shared.into_watched();
    if report.write_error.is_none() {
        if let Err(e) = witness_matched(sink, &mut report) {
            report.write_error = Some(e);
        }
    }
    for f in &report.findings {
        let events = f.history.events.len();
        (report.summary).witness(f.side_rules, f.invariant, None, f.path.clone(), events);
    }
    Ok(report)
}

/// One worker's search: its own random stream, its own report; only the stop flag and
/// the progress counters are shared.
fn worker(cfg: &Config, sink: &Sink, shared: &Shared, turn: Turn, start: Instant) -> Report {
    let mut report = Report {
        sometimes: vec![0; INVARIANTS.len()],
        ..Report::default()
    };
    let mut rng = Rng::new(turn.seed(cfg.seed));
    let mut pool = Pool::new(turn.seed(cfg.seed));
    let histories_max = cfg.histories_max.map(|m| turn.share_of(m));
    let mut buf = Vec::with_capacity(SPLICED_BYTES_MAX);
    let mut shares = Shares::new(&cfg.pairs, sink.known());
    loop {
        let out_of_time =
            report.histories % 64 == 0 && (start.elapsed() >= cfg.budget || stop::requested());
        if out_of_time || shared.stopped() {
            break;
        }
        if histories_max.is_some_and(|m| report.histories >= m) {
            break;
        }
        let n = report.histories;
        report.histories += 1;
        shared.count_history();
        if n % SHORTEN_EVERY == SHORTEN_EVERY - 1 && !report.findings.is_empty() {
            rng.fill(&mut buf);
            if let Err(e) = shorten(sink, &mut report, &buf, n / SHORTEN_EVERY, cfg.elr) {
                report.write_error = Some(e);
                shared.stop();
                break;
            }
            continue;
        }
        let spliced = if Pool::turn(n) {
            pool.splice(&mut buf)
        } else {
            None
        };
        let (p, guide, events_max, continue_at) = match spliced {
            Some(s) => (s.pair, s.guide, GEN_SPLICED_EVENTS_MAX, Some(s.cut)),
            None => {
                rng.fill(&mut buf);
                // The history is judged as it is drawn (the guide reads its side of the run).
                let t = shares.next();
                (t.pair, t.guide, GEN_EVENTS_MAX, None)
            }
        };
        let pair = cfg.pairs[p];
        let sides = sides_of(&pair);
        let guide = guide.min(sides.len() - 1);
        let (history, verdict, read) =
            decode_judged(&buf, sides, guide, events_max, cfg.elr, continue_at);
        let at = Found { cfg, shared, start };
        match absorb(sink, &mut report, pair, history, verdict, at, &mut shares) {
            Ok(true) => pool.add(&buf, read, p, guide),
            Ok(false) => {}
            Err(e) => {
                report.write_error = Some(e);
                shared.stop();
                break;
            }
        }
    }
    report
}

/// Every row has a witness of its own rule set, expected and known ones too (minimized,
/// written under OUT/expected and OUT/known). Done once the search is over, so that it
/// costs the search nothing: about a hundred rows, each minimized once.
fn witness_matched(sink: &Sink, report: &mut Report) -> Result<(), Error> {
    for (pair, side, invariant, m, history) in std::mem::take(&mut report.matched) {
        let f = sink.promote_matched(pair, side, invariant, &m, &history)?;
        let n = f.history.events.len();
        (report.summary).witness(pair[side], invariant, Some(&m), f.path, n);
    }
    Ok(())
}

/// Deletion-only minimization stops at local minima (an unclean election standing in for
/// an ISR change, say). So spend some iterations generating histories strictly shorter
/// than a known finding; a new witness that minimizes shorter replaces the old one (its
/// file, written by this run, is removed only after the new one is safely written).
fn shorten(
    sink: &Sink,
    report: &mut Report,
    buf: &[u8],
    turn: u64,
    elr: ElrMode,
) -> Result<(), Error> {
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
    let options = Decode {
        events_max: len - 1,
        elr,
        ..Decode::guided(*guide)
    };
    let history = decode(buf, options);
    if !sink.is_new(pair, side, invariant, &history) {
        return Ok(());
    }
    let better = sink.promote(pair, side, invariant, &history)?;
    if better.history.events.len() >= len {
        // Not shorter after all: its file (if this made one) goes, one witness per row.
        sink.retire(&better);
        return Ok(());
    }
    let better = Finding {
        elapsed,
        histories,
        ..better
    };
    // The old witness goes only once its replacement is safely written, and only if no
    // other finding holds the same file (`Sink::retire`).
    let old = std::mem::replace(&mut report.findings[k], better);
    sink.retire(&old);
    Ok(())
}

/// Where a worker stands when it meets a violation: the run's configuration, what the
/// workers share, and the run's start.
#[derive(Clone, Copy)]
struct Found<'a> {
    cfg: &'a Config,
    shared: &'a Shared,
    start: Instant,
}

fn absorb(
    sink: &Sink,
    report: &mut Report,
    pair: [RuleSet; 2],
    history: History,
    verdict: Verdict,
    at: Found,
    shares: &mut Shares,
) -> Result<bool, Error> {
    let start = at.start;
    // Whether this history met a row this worker had not met: a parent for chains.
    let mut first_row = false;
    for side in &verdict.sides {
        for (total, n) in report.sometimes.iter_mut().zip(&side.sometimes) {
            *total += u64::from(*n);
        }
    }
    if let Some(bug) = verdict.harness_bug {
        report.harness_bugs.push((history, bug));
        return Ok(false);
    }
    if verdict.first_divergence.is_some() && report.first_divergence.is_none() {
        report.first_divergence = Some((start.elapsed(), report.histories));
    }
    for (s, side) in verdict.sides.iter().enumerate() {
        for v in &side.violations {
            // A violation the other side shows too is the shared rules' (attribution).
            if !attributed(&verdict, s, v.invariant) {
                continue;
            }
            let elapsed = start.elapsed();
            if let Some(k) = sink.known_as(&history, side, v) {
                let first =
                    (report.summary).count(side.rules, v.invariant, Some(k.into()), elapsed);
                first_row |= first;
                if first {
                    at.shared.met(k.display_id(), v.invariant, elapsed);
                    shares.met(k.display_id(), v.invariant);
                    // Its witness is minimized and written after the search (`witness_matched`).
                    let m = Matched::from(k);
                    report
                        .matched
                        .push((pair, s, v.invariant, m, history.clone()));
                }
                continue;
            }
            first_row |= report.summary.count(side.rules, v.invariant, None, elapsed);
            let found = report
                .findings
                .iter()
                .any(|f| f.side_rules == side.rules && f.invariant == v.invariant);
            if found {
                continue;
            }
            let finding = sink.promote(pair, s, v.invariant, &history)?;
            report.findings.push(Finding {
                elapsed,
                histories: report.histories,
                ..finding
            });
            at.shared.found(side.rules, v.invariant);
            if at.cfg.until.as_deref() == Some(v.invariant) {
                at.shared.stop();
            }
        }
    }
    Ok(first_row)
}
