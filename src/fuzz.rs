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
//! `ISRFUZZ_RULES=A:B` (or `A`) overrides the pair without recompiling.

use crate::generate::decode;
use crate::history::History;
use crate::hunt::Known;
use crate::oracle::{self, Verdict};
use crate::report;
use crate::rules::{RuleSet, PRESETS};
use std::sync::OnceLock;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Target {
    KraftDiff,
    InklessDiff,
    Cluster,
    FixedHolds,
    Decode,
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
        }
    }

    /// The rule sets compared by default (`cluster` picks one pair per input).
    pub fn default_rules(self) -> &'static str {
        match self {
            // Only the KRaft rules differ between the sides, so does anything found.
            Target::KraftDiff => "trunk+inkless-complete:complete",
            Target::InklessDiff => "transients-tracked+inkless-main:complete",
            Target::Cluster | Target::FixedHolds => "complete",
            Target::Decode => "trunk",
        }
    }
}

/// The known findings committed with this build (corpus/known.json).
pub fn embedded_known() -> &'static [Known] {
    static KNOWN: OnceLock<Vec<Known>> = OnceLock::new();
    KNOWN.get_or_init(|| {
        crate::hunt::parse_known(include_str!("../corpus/known.json"))
            .expect("corpus/known.json is valid")
    })
}

fn env_rules() -> Option<Vec<RuleSet>> {
    static RULES: OnceLock<Option<Vec<RuleSet>>> = OnceLock::new();
    RULES
        .get_or_init(|| {
            let text = std::env::var("ISRFUZZ_RULES").ok()?;
            Some(RuleSet::parse_pair(&text).unwrap_or_else(|e| panic!("ISRFUZZ_RULES: {e}")))
        })
        .clone()
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

/// What a target reports: the violating side, the invariant and its step.
pub struct Crash {
    pub side: RuleSet,
    pub invariant: &'static str,
    pub step: usize,
}

/// Judge one input; `None` when the target has nothing to report.
pub fn judge(target: Target, history: &History, sides: &[RuleSet]) -> (Verdict, Option<Crash>) {
    let verdict = oracle::run(history, sides, false);
    let crash = if verdict.harness_bug.is_some() {
        Some(Crash {
            side: sides[0],
            invariant: "harness-bug",
            step: 0,
        })
    } else if target == Target::Decode {
        None
    } else {
        new_violation(&verdict)
    };
    (verdict, crash)
}

fn new_violation(verdict: &Verdict) -> Option<Crash> {
    let known = embedded_known();
    let left = &verdict.sides[0];
    let right = verdict.sides.get(1);
    left.violations.iter().find_map(|v| {
        let also_right = right.is_some_and(|r| r.violates(v.invariant));
        let is_known = known
            .iter()
            .any(|k| k.matches(&left.rules, v.invariant, &v.detail));
        (!also_right && !is_known).then_some(Crash {
            side: left.rules,
            invariant: v.invariant,
            step: v.step,
        })
    })
}

/// The history an input stands for: a JSON history when the bytes are one (so the seed
/// corpora can hold the spec's counterexamples as written), else the decoded bytes.
pub fn input_history(data: &[u8]) -> History {
    let json = (data.first() == Some(&b'{'))
        .then(|| {
            std::str::from_utf8(data)
                .ok()
                .and_then(|text| History::from_json(text).ok())
        })
        .flatten();
    json.unwrap_or_else(|| decode(data))
}

/// The entry point both engines call. Panics with a readable report on a finding.
pub fn run_target(target: Target, data: &[u8]) {
    let history = input_history(data);
    let sides = sides_for(target, data);
    let (verdict, crash) = judge(target, &history, &sides);
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
