//! The planted-bug benchmark, in-process parts: the bugs, model throughput, and time to
//! detection by `hunt` and `exhaust`. Rendering (CSV, Markdown, SVG) is `report.rs`'s.
//!
//! `isrfuzz bench` measures, on one core, the model's throughput per rule family and the
//! time to detection of every planted bug by the built-in `hunt` (≥ 10 seeds) and by
//! `exhaust` (time to its shortest counterexample). `ci/bench.sh` adds the
//! coverage-guided engines (libFuzzer, AFL++ with and without state feedback) as rows of
//! the same CSV, then `isrfuzz bench-report` turns the CSV into docs/benchmarks.md and an
//! SVG plot. Figures are never asserted in tests: they depend on the machine.

use crate::check::invariants::StepView;
use crate::check::oracle;
use crate::findings::Sink;
use crate::rules::{RuleSet, PRESETS};
use crate::search::exhaust;
use crate::search::generate::{decode, Decode};
use crate::search::hunt;
use crate::search::rng::Rng;
use std::time::{Duration, Instant};

/// A planted bug: a rule set that has it, the invariant that detects it, and where
/// `exhaust` starts looking for it.
pub struct Bug {
    pub name: &'static str,
    pub rules: &'static str,
    pub invariant: &'static str,
    pub start: &'static str,
    /// The bug's fix (`rule=variant`), given where the rule set's known holes share its
    /// invariant: the coverage-guided targets then report only the violations the fix
    /// removes (`ISRFUZZ_PLANTED_FIX`), where the known holes would hide them all.
    pub fix: Option<&'static str>,
}

impl Bug {
    const fn fixed_by(mut self, fix: &'static str) -> Bug {
        self.fix = Some(fix);
        self
    }
}

const fn bug(
    name: &'static str,
    rules: &'static str,
    invariant: &'static str,
    start: &'static str,
) -> Bug {
    Bug {
        name,
        rules,
        invariant,
        start,
        fix: None,
    }
}

/// KAFKA-21419 and its residual hole, the #756 counterexample classes (CE-c3 and CE-c4
/// are the two deliberately wrong leader-change variants), and the three planted bugs
/// that give G3, G9 and INV-7 their witnesses. Each is paired against `complete`.
pub const BUGS: &[Bug] = &[
    bug("KAFKA-21419", "trunk", "G5", "kraft"),
    bug("21419-residual", "kafka-21419-always-write", "G5", "kraft"),
    bug("CE-a", "inkless-main", "INV-1", "switched"),
    bug("CE-b1", "pr756-commit1+lag=uncapped", "INV-3", "switched"),
    bug(
        "CE-b2",
        "pr756-commit1+leader-change=diversion",
        "INV-3",
        "switched",
    ),
    bug(
        "CE-c1",
        "pr756-commit1+leader-change=none",
        "INV-4",
        "switched",
    ),
    // Its INV-4 is also F6's, F10's and F12's on this rule set, and CE-c's row names its
    // own mechanism: without the fix the targets report none of it.
    bug("CE-c2", "pr756-commit1", "INV-4", "switched").fixed_by("leader-change=diversion"),
    bug(
        "CE-c3",
        "pr756+leader-change=diversion-no-evict",
        "INV-5",
        "switched",
    ),
    bug(
        "CE-c4",
        "pr756+leader-change=epoch-bump",
        "INV-4b",
        "switched",
    ),
    bug("CE-d", "pr756", "INV-6", "switched"),
    bug("CE-e", "pr756+pr760", "INV-2", "switched"),
    bug(
        "CE-f",
        "inkless-complete+unfence-expansion=pre-754",
        "INV-2",
        "switched",
    ),
    bug(
        "planted-G3",
        "complete+derivation=previous-target",
        "G3",
        "kraft",
    ),
    bug("planted-G9", "complete+completion=keep-isr", "G9", "kraft"),
    bug(
        "planted-INV-7",
        "complete+shrink=all-diskless",
        "INV-7",
        "switched",
    ),
    // The data plane: acknowledged-record loss before KIP-101, divergence before KIP-279.
    bug("pre-KIP-101", "complete+truncation=hw", "D2", "data"),
    bug("pre-KIP-279", "complete+truncation=kip-101", "D3", "data"),
];

/// The rule pairs a throughput family runs, round robin.
pub fn family_pairs(family: &str) -> Result<Vec<[RuleSet; 2]>, String> {
    let complete = RuleSet::complete();
    let one =
        |a: &str| -> Result<Vec<[RuleSet; 2]>, String> { Ok(vec![[RuleSet::parse(a)?, complete]]) };
    match family {
        // Only the KRaft rules differ between the sides.
        "kraft" => one("trunk+inkless-complete"),
        // Only the Inkless rules differ.
        "inkless" => one("transients-tracked+pr756"),
        "mixed" => Ok(PRESETS
            .iter()
            .map(|p| [RuleSet::parse(p.name).expect("presets parse"), complete])
            .collect()),
        _ => Err(format!("unknown family `{family}` (kraft, inkless, mixed)")),
    }
}

/// Histories per second of generation plus the two-sided model run (no minimization, no
/// files): what one fuzzing execution costs without an engine. Returns (histories, s).
pub fn throughput(family: &str, budget: Duration, seed: u64) -> Result<(u64, f64), String> {
    let pairs = family_pairs(family)?;
    let mut rng = Rng::new(seed);
    let mut buf = Vec::new();
    let start = Instant::now();
    let mut n = 0u64;
    while n % 64 != 0 || start.elapsed() < budget {
        rng.fill(&mut buf);
        let pair = &pairs[n as usize % pairs.len()];
        let guide = pair[(n / pairs.len() as u64 % 2) as usize];
        let history = decode(&buf, Decode::guided(guide));
        std::hint::black_box(oracle::run(&history, pair, false));
        n += 1;
    }
    Ok((n, start.elapsed().as_secs_f64()))
}

/// One `hunt` trial: seed `seed` on `jobs` workers, stop at the bug's invariant or at
/// `budget`.
pub fn hunt_trial(b: &Bug, seed: u64, budget: Duration, jobs: usize) -> Result<Trial, String> {
    let pairs = vec![[RuleSet::parse(b.rules)?, RuleSet::complete()]];
    let cfg = hunt::Config {
        budget,
        until: Some(b.invariant.to_string()),
        jobs,
        ..hunt::Config::new(pairs, seed)
    };
    let report = hunt::hunt(&cfg, &Sink::memory(), |_| {}).map_err(|e| e.to_string())?;
    let found = report.findings.iter().find(|f| f.invariant == b.invariant);
    Ok(Trial {
        detected: found.map(|f| f.elapsed.as_secs_f64()),
        seconds: found.map_or(report.elapsed.as_secs_f64(), |f| f.elapsed.as_secs_f64()),
        execs: found.map_or(report.histories, |f| f.histories),
        triggered: report.first_divergence.map(|(t, _)| t.as_secs_f64()),
    })
}

pub struct Trial {
    pub detected: Option<f64>,
    pub seconds: f64,
    pub execs: u64,
    pub triggered: Option<f64>,
}

/// `exhaust` from the bug's start, deepening until the invariant is violated or
/// `depth_max`: returns (seconds, Some(operations) if reached, transitions).
pub fn exhaust_trial(b: &Bug, depth_max: usize) -> Result<(f64, Option<usize>, u64), String> {
    let start = exhaust::start_named(b.start, None)?;
    let rules = RuleSet::parse(b.rules)?;
    let t0 = Instant::now();
    let report = exhaust::explore_until(&start, &rules, depth_max, 4, 2_000_000, Some(b.invariant));
    let ops = report
        .violations
        .iter()
        .find(|(id, _)| *id == b.invariant)
        .map(|(_, h)| h.events.len() - start.setup.len());
    Ok((t0.elapsed().as_secs_f64(), ops, report.transitions))
}

/// One micro-benchmark: what it timed, how many operations, total seconds.
pub struct Micro {
    pub name: &'static str,
    pub ops: u64,
    pub seconds: f64,
}

/// The micro-benchmarks, in report order.
pub const MICRO_PARTS: [&str; 6] = [
    "step",
    "clone",
    "check-step",
    "check-loop",
    "sometimes",
    "quiescent",
];

/// Micro-benchmarks of the oracle's parts on `histories` fixed-seed generated histories
/// under `complete` (the reference side of every pair): `step` one model step (`apply`),
/// `clone` one state copy into the previous step's copy (the oracle's per-step copy for
/// the (prev, next) checks),
/// `check-step` every step invariant on one (prev, next) pair, every partition judged (as
/// `exhaust` and the tests judge), `check-loop` the same as the oracle's step loop judges
/// one side (`step_violations_memo`: only the partitions a step touched once the state
/// before it was judged, and not the invariants the side already violated), `sometimes`
/// every vacuity counter on one pair, `quiescent` every quiescence invariant on one healed
/// state. Each history's states are computed first, then each part is timed over them.
pub fn micro(histories: u32, seed: u64) -> Vec<Micro> {
    use crate::check::invariants::{quiescent_violations, INVARIANTS};
    use crate::check::judge::{drive, ModelJudge, Start};
    use std::ops::ControlFlow;
    let rules = RuleSet::complete();
    let mut out: Vec<Micro> = MICRO_PARTS
        .iter()
        .map(|&name| Micro {
            name,
            ops: 0,
            seconds: 0.0,
        })
        .collect();
    let (mut rng, mut buf) = (Rng::new(seed), Vec::new());
    let mut counts = vec![0u32; INVARIANTS.len()];
    for _ in 0..histories {
        rng.fill(&mut buf);
        let h = decode(&buf, Decode::guided(rules));
        // Through the one run loop, as every run: the history's start (ELR included).
        let (mut states, mut outcomes) = (vec![Start::of(&h).cluster()], Vec::new());
        let mut model = ModelJudge::new(&rules, false, false);
        let Ok(_) = drive(&h, &mut model, |model, _, step| {
            outcomes.push(step.outcome);
            states.push(model.state().clone());
            ControlFlow::Continue(())
        });
        let mut c = model.into_state();
        // The same steps again, timed without recording.
        let (t, again) = (Instant::now(), &mut ModelJudge::new(&rules, false, false));
        let Ok(_) = drive(&h, again, |_, _, step| {
            std::hint::black_box(step);
            ControlFlow::Continue(())
        });
        add(&mut out[0], h.events.len(), t.elapsed());
        // As the oracle copies: into the previous step's copy.
        let mut copy = states[0].clone();
        let t = Instant::now();
        for s in &states[1..] {
            copy.clone_from(s);
            std::hint::black_box(&copy);
        }
        add(&mut out[1], h.events.len(), t.elapsed());
        let befores: Vec<_> = (h.events.iter().enumerate())
            .map(|(i, event)| {
                crate::check::invariants::before_step(&states[i], event, &outcomes[i])
            })
            .collect();
        let views: Vec<StepView> = (h.events.iter().enumerate())
            .map(|(i, event)| StepView {
                prev: &befores[i],
                next: &states[i + 1],
                event,
                outcome: &outcomes[i],
            })
            .collect();
        time_step_checks(&views, &rules, &mut out[2..5], &mut counts);
        oracle::heal(&mut c, &rules);
        let t = Instant::now();
        std::hint::black_box(quiescent_violations(&c, &rules).count());
        add(&mut out[5], 1, t.elapsed());
    }
    std::hint::black_box(counts);
    out
}

/// `check-step`, `check-loop` and `sometimes` (in that order in `out`) over one history's
/// steps.
fn time_step_checks(views: &[StepView], rules: &RuleSet, out: &mut [Micro], counts: &mut [u32]) {
    use crate::check::invariants::StepMemo;
    use crate::check::invariants::{count_sometimes, step_violations, step_violations_memo};
    let t = Instant::now();
    for v in views {
        std::hint::black_box(step_violations(v, rules).count());
    }
    add(&mut out[0], views.len(), t.elapsed());
    let (t, mut violated) = (Instant::now(), 0);
    for (i, v) in views.iter().enumerate() {
        let found = step_violations_memo(v, rules, violated, i > 0, &mut StepMemo::default());
        violated |= found.iter().fold(0, |set, &(n, ..)| set | 1 << n);
    }
    add(&mut out[1], views.len(), t.elapsed());
    let t = Instant::now();
    for v in views {
        count_sometimes(v, counts);
    }
    add(&mut out[2], views.len(), t.elapsed());
}

fn add(m: &mut Micro, ops: usize, d: Duration) {
    m.ops += ops as u64;
    m.seconds += d.as_secs_f64();
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every part ran on every step (the quiescence part once per history).
    #[test]
    fn the_micro_benchmarks_time_every_part() {
        let m = micro(3, 1);
        let names: Vec<_> = m.iter().map(|m| m.name).collect();
        assert_eq!(names, MICRO_PARTS);
        let steps = m[0].ops;
        assert!(steps >= 3, "{steps}");
        assert!(m[..5].iter().all(|m| m.ops == steps));
        assert_eq!(m[5].ops, 3);
    }

    #[test]
    fn every_bug_parses_and_names_a_known_invariant_and_start() {
        for b in BUGS {
            RuleSet::parse(b.rules).unwrap();
            assert!(
                crate::check::invariants::by_id(b.invariant).is_some(),
                "{}",
                b.invariant
            );
            exhaust::start_named(b.start, None).unwrap();
        }
    }
}
