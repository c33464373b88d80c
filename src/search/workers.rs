//! `hunt`'s workers: how the threads share one run (a stop flag, the counters behind the
//! one progress bar, the watched rows) and how their reports become one.
//!
//! Architecture invariant: a worker's findings depend only on the run's seed, its job
//! count and the worker's index. Workers never read each other's findings; the merge at
//! the end picks, per row, the shortest witness (the lowest worker on a tie), so the same
//! seed and job count give the same findings in any schedule.

use crate::findings::{Finding, Sink};
use crate::rules::RuleSet;
use crate::search::report::{MatchedEntry, Report};
use crate::search::rng::Rng;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How often the progress callback runs.
const PROGRESS_EVERY: Duration = Duration::from_millis(100);

/// What the progress bar shows: histories run and distinct new rows found, over all
/// workers, and the time since the start.
#[derive(Clone, Copy, Debug, Default)]
pub struct Progress {
    pub histories: u64,
    pub findings: u64,
    pub elapsed: Duration,
}

/// One worker's place among `jobs`.
#[derive(Clone, Copy, Debug)]
pub struct Turn {
    pub worker: usize,
    pub jobs: usize,
}

impl Turn {
    /// The worker's seed: worker 0 runs the run's seed itself (one job is the
    /// single-threaded search); the others a SplitMix64 draw from it and their index.
    pub fn seed(self, seed: u64) -> u64 {
        if self.worker == 0 {
            return seed;
        }
        Rng::new(seed ^ (self.worker as u64).wrapping_mul(0xd134_2543_de82_ef95)).next_u64()
    }

    /// This worker's part of `total` histories: the global indices `worker`, `worker +
    /// jobs`, … below `total`.
    pub fn share_of(self, total: u64) -> u64 {
        let (w, jobs) = (self.worker as u64, self.jobs as u64);
        total.saturating_sub(w).div_ceil(jobs)
    }

    /// The run-wide index of this worker's `local`-th history (1-based counts stay
    /// 1-based): what a finding's `histories` says once merged.
    fn global(self, local: u64) -> u64 {
        match local {
            0 => 0,
            n => (n - 1) * self.jobs as u64 + self.worker as u64 + 1,
        }
    }
}

/// What the workers share while they run.
pub struct Shared {
    stop: AtomicBool,
    histories: AtomicU64,
    /// Distinct (rule set, invariant) rows with a new finding, over all workers.
    rows: Mutex<Vec<(RuleSet, &'static str)>>,
    /// The rows to watch (`Config::watch`), and when a worker first met each.
    watch: Vec<(String, String)>,
    watched: Mutex<Vec<Option<Duration>>>,
}

impl Shared {
    pub fn new(watch: &[(String, String)]) -> Shared {
        Shared {
            stop: AtomicBool::new(false),
            histories: AtomicU64::new(0),
            rows: Mutex::new(Vec::new()),
            watch: watch.to_vec(),
            watched: Mutex::new(vec![None; watch.len()]),
        }
    }

    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    pub fn count_history(&self) {
        self.histories.fetch_add(1, Ordering::Relaxed);
    }

    /// A worker found a new row (for the progress bar's count).
    pub fn found(&self, rules: RuleSet, invariant: &'static str) {
        let mut rows = self.rows.lock().unwrap_or_else(|e| e.into_inner());
        if !rows.contains(&(rules, invariant)) {
            rows.push((rules, invariant));
        }
    }

    /// A worker met the expected or known row (`id`, `invariant`) for the first time:
    /// record it if watched, and stop the run once every watched row has been met.
    pub fn met(&self, id: &str, invariant: &str, at: Duration) {
        if self.watch.is_empty() {
            return;
        }
        let mut seen = self.watched.lock().unwrap_or_else(|e| e.into_inner());
        for (k, (wid, winv)) in self.watch.iter().enumerate() {
            if wid == id && winv == invariant && seen[k].is_none_or(|t| at < t) {
                seen[k] = Some(at);
            }
        }
        if seen.iter().all(Option::is_some) {
            self.stop();
        }
    }

    pub fn into_watched(self) -> Vec<Option<Duration>> {
        self.watched.into_inner().unwrap_or_else(|e| e.into_inner())
    }

    fn progress(&self, start: Instant) -> Progress {
        Progress {
            histories: self.histories.load(Ordering::Relaxed),
            findings: self.rows.lock().map_or(0, |r| r.len() as u64),
            elapsed: start.elapsed(),
        }
    }
}

/// Run `work` on `jobs` scoped threads, calling `progress` from this one until they end.
/// Reports come back in worker order.
pub fn run_workers(
    jobs: usize,
    shared: &Shared,
    start: Instant,
    mut progress: impl FnMut(&Progress),
    work: impl Fn(usize) -> Report + Sync,
) -> Vec<Report> {
    std::thread::scope(|scope| {
        let work = &work;
        let handles: Vec<_> = (0..jobs).map(|w| scope.spawn(move || work(w))).collect();
        let mut last = Instant::now();
        while !handles.iter().all(|h| h.is_finished()) {
            std::thread::sleep(Duration::from_millis(10));
            if last.elapsed() >= PROGRESS_EVERY {
                progress(&shared.progress(start));
                last = Instant::now();
            }
        }
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

/// The workers' reports as one: counts added, each row's witness the shortest any worker
/// found (the lowest worker on a tie; the others' files are let go), rows in the order
/// first met.
pub fn merge(sink: &Sink, reports: Vec<Report>, jobs: usize) -> Report {
    let mut out = Report::default();
    for (w, mut r) in reports.into_iter().enumerate() {
        let turn = Turn { worker: w, jobs };
        out.histories += r.histories;
        add_counts(&mut out.sometimes, &r.sometimes);
        out.harness_bugs.append(&mut r.harness_bugs);
        if out.write_error.is_none() {
            out.write_error = r.write_error.take();
        }
        for f in r.findings {
            let f = Finding {
                histories: turn.global(f.histories),
                ..f
            };
            keep_shorter(sink, &mut out.findings, f);
        }
        out.summary.merge(r.summary);
        for m in r.matched {
            if !out.matched.iter().any(|o| same_matched(o, &m)) {
                out.matched.push(m);
            }
        }
        let first = r.first_divergence.map(|(t, n)| (t, turn.global(n)));
        out.first_divergence = out
            .first_divergence
            .into_iter()
            .chain(first)
            .min_by_key(|d| d.0);
    }
    out.findings.sort_by_key(|f| f.elapsed);
    out
}

fn add_counts(total: &mut Vec<u64>, counts: &[u64]) {
    total.resize(total.len().max(counts.len()), 0);
    for (t, n) in total.iter_mut().zip(counts) {
        *t += n;
    }
}

/// Add `f` to `findings`, or let the longer of it and the same row's witness go.
fn keep_shorter(sink: &Sink, findings: &mut Vec<Finding>, f: Finding) {
    let same = findings
        .iter()
        .position(|o| o.side_rules == f.side_rules && o.invariant == f.invariant);
    match same {
        None => findings.push(f),
        Some(k) if f.history.events.len() < findings[k].history.events.len() => {
            let old = std::mem::replace(&mut findings[k], f);
            sink.retire(&old);
        }
        Some(_) => sink.retire(&f),
    }
}

/// The same row (rule set, invariant, finding) as the summary keys it.
fn same_matched(a: &MatchedEntry, b: &MatchedEntry) -> bool {
    a.0[a.1] == b.0[b.1] && a.2 == b.2 && a.3 == b.3
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worker_zero_runs_the_seed_and_the_shares_add_up() {
        let turn = |worker| Turn { worker, jobs: 3 };
        assert_eq!(
            turn(0).seed(11),
            11,
            "one job is the single-threaded search"
        );
        let seeds: Vec<u64> = (0..3).map(|w| turn(w).seed(11)).collect();
        assert!(
            seeds[1] != seeds[2] && !seeds[1..].contains(&11),
            "{seeds:?}"
        );
        for total in [0, 1, 2, 3, 900, 901, 902] {
            let shares: Vec<u64> = (0..3).map(|w| turn(w).share_of(total)).collect();
            assert_eq!(shares.iter().sum::<u64>(), total, "{total}: {shares:?}");
            assert!(
                shares[0] >= shares[2] && shares[0] - shares[2] <= 1,
                "{shares:?}"
            );
        }
        // Worker 1's 2nd history is the run's 5th of 3 workers (1-based).
        assert_eq!(turn(1).global(2), 5);
    }
}
