//! The byte-level entry points of the coverage-guided targets: libFuzzer (fuzz/) and AFL++
//! (fuzz/afl/) call [`run_target`] with raw bytes and nothing else, so a crash file means
//! the same history under both engines and under `isrfuzz replay` / `isrfuzz promote`
//! (bytes that are a JSON history are taken as that history, as `replay` does).
//!
//! A target panics (the engines' crash signal) only on what it exists to find:
//! - `kraft-diff`, `inkless-diff`, `cluster`: the left rule set violates an invariant that
//!   the right one does not (a divergence that breaks a property);
//! - `fixed-holds`: the complete rule set violates any invariant not listed as known;
//! - `decode`: the harness itself panicked (a model bug).
//!
//! `ISRFUZZ_RULES=A:B` (or `A`) overrides the pair without recompiling, and
//! `ISRFUZZ_UNTIL=G5,INV-4` reports only those invariants (the benchmark times one bug).
//! `ISRFUZZ_PLANTED_FIX=rule=variant` names the fix of the bug a benchmark planted: a
//! violation is then reported only when it is that bug's own (gone when the same history
//! runs with the fix), known or not, so a planted bug whose invariant the rule set's known
//! holes share is measured again (CE-c2's INV-4 is also F6's, F10's and F12's).
//! `trivial` runs nothing: its exec/s is the engine's own per-execution cost.
//!
//! State feedback (`ISRFUZZ_STATE_FEEDBACK=1`, IJON-style): every step's abstract
//! transition (see [`state_features`]) is also reported to the engine as coverage, so an
//! input that reaches a new controller or broker situation is kept even when it runs no
//! new code. The sink is the engine's: with the crate feature `libfuzzer-counters` a
//! `__libfuzzer_extra_counters` array, with `afl-map` the AFL++ shared map.

use crate::check::history::History;
use crate::check::oracle::{self, Verdict};
use crate::check::verdict::Violation;
use crate::findings::report;
use crate::findings::triage::{self, AfterFix, Known, Mechanism};
use crate::model::Cluster;
use crate::rules::{RuleSet, PRESETS};
use crate::search::generate::{decode, Decode};
use std::sync::OnceLock;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Target {
    KraftDiff,
    InklessDiff,
    Cluster,
    FixedHolds,
    Decode,
    /// The engine baseline: takes the bytes and does nothing.
    Trivial,
}

impl Target {
    pub const ALL: [Target; 5] = [
        Target::KraftDiff,
        Target::InklessDiff,
        Target::Cluster,
        Target::FixedHolds,
        Target::Decode,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Target::KraftDiff => "kraft_diff",
            Target::InklessDiff => "inkless_diff",
            Target::Cluster => "cluster",
            Target::FixedHolds => "fixed_holds",
            Target::Decode => "decode",
            Target::Trivial => "trivial",
        }
    }

    /// The rule sets compared by default (`cluster` picks one pair per input).
    pub fn default_rules(self) -> &'static str {
        match self {
            // Only the KRaft rules differ between the sides, so does anything found.
            Target::KraftDiff => "trunk+inkless-complete:complete",
            Target::InklessDiff => "transients-tracked+inkless-main:complete",
            Target::Cluster | Target::FixedHolds => "complete",
            Target::Decode | Target::Trivial => "trunk",
        }
    }
}

/// The known findings committed with this build (corpus/known.json), without the
/// expected ones: a fuzz target's pair is chosen to show a variant's bug, so its own bug
/// is a crash (the engines' planted-bug benchmark counts on it).
pub fn embedded_known() -> &'static [Known] {
    static KNOWN: OnceLock<Vec<Known>> = OnceLock::new();
    KNOWN.get_or_init(|| {
        let known = triage::embedded()
            .iter()
            .filter(|k| k.kind == triage::Kind::Known);
        known.cloned().collect()
    })
}

fn env_rules() -> Option<Vec<RuleSet>> {
    env_rules_parsed().map(|r| r.unwrap_or_else(|e| panic!("{e}")))
}

/// `ISRFUZZ_RULES` parsed once: unset is `None`, a malformed value an error line.
fn env_rules_parsed() -> Option<Result<Vec<RuleSet>, String>> {
    static RULES: OnceLock<Option<Result<Vec<RuleSet>, String>>> = OnceLock::new();
    RULES
        .get_or_init(|| {
            let text = std::env::var_os("ISRFUZZ_RULES")?;
            let Some(text) = text.to_str() else {
                return Some(Err("ISRFUZZ_RULES: not valid UTF-8".to_string()));
            };
            Some(RuleSet::parse_pair(text).map_err(|e| format!("ISRFUZZ_RULES: {e}")))
        })
        .clone()
}

/// Check the environment a target reads (`ISRFUZZ_RULES`, `ISRFUZZ_PLANTED_FIX`), so a command line fails with
/// one line where a fuzz target would panic.
pub fn check_env() -> Result<(), String> {
    if let Some(Err(e)) = env_rules_parsed() {
        return Err(e);
    }
    match env_planted_fix_parsed() {
        Some(Err(e)) => Err(e.clone()),
        _ => Ok(()),
    }
}

/// The sides a target runs for this input.
pub fn sides_for(target: Target, data: &[u8]) -> Vec<RuleSet> {
    if let Some(rules) = env_rules() {
        return rules;
    }
    if target == Target::Cluster {
        let preset = &PRESETS[usize::from(data.first().copied().unwrap_or(0)) % PRESETS.len()];
        return vec![
            RuleSet::parse(preset.name).expect("presets parse"),
            RuleSet::complete(),
        ];
    }
    RuleSet::parse_pair(target.default_rules()).expect("default rules parse")
}

/// `ISRFUZZ_UNTIL`: the only invariants a target reports (all when unset).
fn env_until() -> Option<&'static [String]> {
    static UNTIL: OnceLock<Option<Vec<String>>> = OnceLock::new();
    UNTIL
        .get_or_init(|| {
            let text = std::env::var("ISRFUZZ_UNTIL").ok()?;
            Some(text.split(',').map(|s| s.trim().to_string()).collect())
        })
        .as_deref()
}

fn state_feedback_enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("ISRFUZZ_STATE_FEEDBACK").is_some_and(|v| v != "0"))
}

/// What a target reports: the violating side, the invariant and its step.
pub struct Crash {
    pub side: RuleSet,
    pub invariant: &'static str,
    pub step: usize,
}

/// Judge one input; `None` when the target has nothing to report.
pub fn judge(target: Target, history: &History, sides: &[RuleSet]) -> (Verdict, Option<Crash>) {
    let verdict = oracle::run(history, sides, false);
    let crash = classify(target, history, sides, &verdict);
    (verdict, crash)
}

/// What `target` reports for a verdict already computed.
fn classify(
    target: Target,
    history: &History,
    sides: &[RuleSet],
    verdict: &Verdict,
) -> Option<Crash> {
    if verdict.harness_bug.is_some() {
        Some(Crash {
            side: sides[0],
            invariant: "harness-bug",
            step: 0,
        })
    } else if target == Target::Decode {
        None
    } else {
        new_violation(history, verdict)
    }
}

fn new_violation(history: &History, verdict: &Verdict) -> Option<Crash> {
    let until = env_until();
    if let Some(fix) = env_planted_fix() {
        return planted_violation(history, verdict, fix, until);
    }
    let (known, left) = (embedded_known(), &verdict.sides[0]);
    first_reported(verdict, until, |v| {
        !triage::is_known(known, history, left, v)
    })
}

/// The planted bug's own violation of the left side, if any: one the right side does not
/// share, among `until`'s, that is gone when the history runs again with `fix` (the
/// planted bug's fix) set on the left. Known findings are not consulted: this is what
/// tells the planted bug apart from the holes its rule set shares with `complete`.
pub fn planted_violation(
    history: &History,
    verdict: &Verdict,
    fix: &Mechanism,
    until: Option<&[String]>,
) -> Option<Crash> {
    let rules = &verdict.sides[0].rules;
    first_reported(verdict, until, |v| {
        fix.after_fix(history, rules, v, &[]) == AfterFix::Gone
    })
}

/// The left side's first violation among `until`'s that the right side does not share and
/// `reported` keeps (asked last: it may replay the history).
fn first_reported(
    verdict: &Verdict,
    until: Option<&[String]>,
    reported: impl Fn(&Violation) -> bool,
) -> Option<Crash> {
    let left = &verdict.sides[0];
    let right = verdict.sides.get(1);
    left.violations.iter().find_map(|v| {
        let also_right = right.is_some_and(|r| r.violates(v.invariant));
        let wanted = until.is_none_or(|u| u.iter().any(|id| id == v.invariant));
        (!also_right && wanted && reported(v)).then_some(Crash {
            side: left.rules,
            invariant: v.invariant,
            step: v.step,
        })
    })
}

/// `ISRFUZZ_PLANTED_FIX` as the mechanism it names (`fixed_by`), checked once.
fn env_planted_fix() -> Option<&'static Mechanism> {
    env_planted_fix_parsed()
        .as_ref()
        .map(|r| r.as_ref().unwrap_or_else(|e| panic!("{e}")))
}

fn env_planted_fix_parsed() -> &'static Option<Result<Mechanism, String>> {
    static FIX: OnceLock<Option<Result<Mechanism, String>>> = OnceLock::new();
    FIX.get_or_init(|| {
        let text = std::env::var("ISRFUZZ_PLANTED_FIX").ok()?;
        Some(planted_fix(&text))
    })
}

/// A planted bug's fix, `rule=variant`, as a mechanism; an error line if this build has no
/// such rule or variant.
pub fn planted_fix(text: &str) -> Result<Mechanism, String> {
    let bad = || format!("ISRFUZZ_PLANTED_FIX `{text}`: not a rule=variant of this build");
    let (id, variant) = text.split_once('=').ok_or_else(bad)?;
    let rule = crate::rules::RULES
        .iter()
        .find(|r| r.id == id)
        .ok_or_else(bad)?;
    rule.position(variant).ok_or_else(bad)?;
    Ok(Mechanism {
        fixed_by: Some(text.to_string()),
        ..Mechanism::default()
    })
}

/// The history an input stands for: a JSON history when the bytes are one (so the seed
/// corpora can hold the counterexample histories of docs/model/reassignment.md#histories and docs/model/inkless.md#counterexamples as written), else the decoded bytes, padded as
/// `hunt` would draw them (`generate::Decode::padded`).
pub fn input_history(data: &[u8]) -> History {
    let json = (data.first() == Some(&b'{'))
        .then(|| {
            std::str::from_utf8(data)
                .ok()
                .and_then(|text| History::from_json(text).ok())
        })
        .flatten();
    json.unwrap_or_else(|| {
        let padded = Decode {
            padded: true,
            ..Decode::default()
        };
        decode(data, padded)
    })
}

/// The entry point both engines call. Panics with a readable report on a finding.
pub fn run_target(target: Target, data: &[u8]) {
    if target == Target::Trivial {
        std::hint::black_box(data);
        return;
    }
    let history = input_history(data);
    let sides = sides_for(target, data);
    // With state feedback the run records its steps, and the same verdict is judged.
    let verdict = oracle::run(&history, &sides, state_feedback_enabled());
    if state_feedback_enabled() {
        state_features(&history, &verdict, &mut feedback::hit);
    }
    let crash = classify(target, &history, &sides, &verdict);
    if let Some(crash) = crash {
        panic!(
            "{}",
            crash_report(target, &history, &sides, &verdict, &crash)
        );
    }
}

fn crash_report(
    target: Target,
    history: &History,
    sides: &[RuleSet],
    verdict: &Verdict,
    crash: &Crash,
) -> String {
    let rules: Vec<String> = sides.iter().map(RuleSet::to_string).collect();
    let rules = rules.join(":");
    let recorded = oracle::run(history, sides, true);
    let mut tables = String::new();
    for side in &recorded.sides {
        tables.push_str(&report::step_table(history, side));
    }
    let name = target.name();
    format!(
        "isrfuzz {name}: {} violates {} at step {}\n{}\n{}verdict: {}\n\n\
         replay:   cargo run --release -- replay ARTIFACT --rules '{rules}'\n\
         minimize: cargo fuzz tmin --sanitizer none {name} ARTIFACT   (then promote)\n\
         promote:  cargo run --release -- promote ARTIFACT --rules '{rules}'\n",
        crash.side,
        crash.invariant,
        crash.step,
        verdict.harness_bug.as_deref().unwrap_or(""),
        tables,
        report::verdict_line(verdict)
    )
}

/// The abstract situation of one partition after a step, in a few bits: what the rules
/// branch on (reassignment phase, ISR coverage of the replicas and of the adding set,
/// where the leader is, the seal regime, which fetchers hold it). Offsets, times and
/// broker ids are left out so the number of features stays small.
fn abstract_partition(c: &Cluster, i: usize) -> u32 {
    let p = &c.partitions[i];
    let in_isr = |b: &i32| p.isr.contains(b);
    let bits = [
        !p.adding_replicas.is_empty(),
        !p.removing_replicas.is_empty(),
        p.adding_replicas.iter().all(in_isr),
        p.replicas.iter().all(in_isr),
        p.leader < 0,
        p.removing_replicas.contains(&p.leader),
        p.diskless,
        p.remote_storage,
        p.seal == crate::model::SEAL_PENDING,
        p.seal >= 0,
        c.runtime.partitions[i]
            .locals
            .iter()
            .any(|l| l.fetchers.classic.is_some()),
        c.runtime.partitions[i]
            .locals
            .iter()
            .any(|l| l.fetchers.consolidation.is_some()),
    ];
    let mut x = bits.iter().fold(0u32, |acc, &b| acc << 1 | u32::from(b));
    x = x << 3 | (p.isr.len().min(7) as u32);
    x
}

fn mix(a: u32, b: u32) -> u32 {
    (a ^ b.wrapping_mul(0x9e37_79b1))
        .rotate_left(13)
        .wrapping_mul(0x85eb_ca6b)
}

/// Report, for every side and step, the operation kind, its outcome and each partition's
/// abstract situation after it to `sink`. (Keying on the situation before as well made
/// the corpus grow faster than it found anything; measured in docs/benchmarks.md.)
/// `verdict` must come from a recording run (`oracle::run(.., true)`).
pub fn state_features(history: &History, verdict: &Verdict, sink: &mut dyn FnMut(u32)) {
    for (s, side) in verdict.sides.iter().enumerate() {
        for (step, rec) in side.steps.iter().enumerate() {
            let op = std::mem::discriminant(&history.events[step]);
            let op = {
                use std::hash::{Hash, Hasher};
                let mut h = std::collections::hash_map::DefaultHasher::new();
                op.hash(&mut h);
                h.finish() as u32
            };
            let rejected = u32::from(rec.outcome.is_rejected());
            for i in 0..rec.state.partitions.len() {
                let now = abstract_partition(&rec.state, i);
                sink(mix(mix(s as u32, op ^ rejected), now));
            }
        }
    }
}

/// The engine sinks for state feedback (see the module docs).
mod feedback {
    /// libFuzzer reads every `u8` in this section as an extra coverage counter (cleared
    /// before each run), on Linux.
    #[cfg(feature = "libfuzzer-counters")]
    #[used]
    #[link_section = "__libfuzzer_extra_counters"]
    static mut COUNTERS: [u8; 1 << 14] = [0; 1 << 14];

    #[cfg(feature = "afl-map")]
    extern "C" {
        static mut __afl_area_ptr: *mut u8;
        static __afl_map_size: u32;
    }

    #[allow(unused_variables)]
    pub fn hit(feature: u32) {
        #[cfg(feature = "libfuzzer-counters")]
        // SAFETY: single-threaded target; libFuzzer only reads the array between runs.
        unsafe {
            let counters = &mut *std::ptr::addr_of_mut!(COUNTERS);
            let slot = &mut counters[feature as usize % counters.len()];
            *slot = slot.wrapping_add(1);
        }
        #[cfg(feature = "afl-map")]
        // SAFETY: AFL++'s runtime maps `__afl_map_size` bytes at `__afl_area_ptr` before
        // `main`; IJON writes the same way (`ijon_map_inc`).
        unsafe {
            let size = __afl_map_size.max(1) as usize;
            let slot = __afl_area_ptr.add(feature as usize % size);
            *slot = (*slot).wrapping_add(1);
        }
    }
}
