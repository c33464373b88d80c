//! What a run of the oracle hands over: each side's violations and vacuity counts, the
//! first step where the sides differ, and a harness bug if the model panicked. Shared by
//! the oracle's runs (`lockstep`, `focused`) and everything that reads a verdict.

use crate::check::history::ExpectedViolation;
use crate::check::invariants::{IdSet, INVARIANTS};
use crate::model::{Cluster, Outcome};
use crate::rules::RuleSet;

#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Violation {
    pub invariant: &'static str,
    /// Index into the history's events; `events.len()` means "at quiescence".
    pub step: usize,
    pub detail: String,
}

/// One step as recorded for a step table.
#[derive(Clone, Debug)]
pub struct StepRecord {
    pub outcome: Outcome,
    pub state: Cluster,
}

#[derive(Clone, Debug)]
pub struct SideRun {
    pub rules: RuleSet,
    /// First violation of each invariant, in the order found.
    pub violations: Vec<Violation>,
    /// How many steps each `Sometimes` property fired on (indexed like `INVARIANTS`).
    pub sometimes: Vec<u32>,
    /// The step each `Sometimes` property first fired on (`u32::MAX`: never), so triage
    /// reads the decisions up to a step off the run instead of replaying it.
    pub first_fired: Vec<u32>,
    /// Filled only when recording.
    pub steps: Vec<StepRecord>,
    /// The step invariants `violations` names, as a set of list entries (the step loop
    /// skips them without comparing ids; quiescence, judged once at the end, is not in it).
    pub(crate) violated: IdSet,
}

impl SideRun {
    /// Back to a side before its first step, keeping its buffers.
    pub fn clear(&mut self) {
        self.violations.clear();
        self.sometimes.fill(0);
        self.first_fired.fill(u32::MAX);
        self.steps.clear();
        self.violated = 0;
    }

    pub fn violates(&self, id: &str) -> bool {
        self.violations.iter().any(|v| v.invariant == id)
    }

    pub fn expected(&self) -> Vec<ExpectedViolation> {
        let mut v: Vec<_> = self
            .violations
            .iter()
            .map(|v| ExpectedViolation {
                invariant: v.invariant.to_string(),
                step: v.step,
            })
            .collect();
        v.sort();
        v
    }
}

#[derive(Clone, Debug)]
pub struct Verdict {
    pub sides: Vec<SideRun>,
    /// The first step after which the sides' controller states (or outcomes) differ.
    pub first_divergence: Option<usize>,
    pub harness_bug: Option<String>,
}

impl Verdict {
    /// A 64-bit fingerprint of everything a run produced (every step's outcome and state,
    /// the violations, the divergence), for determinism checks.
    pub fn fingerprint(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        for side in &self.sides {
            for step in &side.steps {
                format!("{:?}", step.outcome).hash(&mut h);
                step.state.hash(&mut h);
            }
            for v in &side.violations {
                (v.invariant, v.step, &v.detail).hash(&mut h);
            }
            side.sometimes.hash(&mut h);
        }
        (self.first_divergence, &self.harness_bug).hash(&mut h);
        h.finish()
    }

    pub fn any_violation(&self) -> bool {
        self.sides.iter().any(|s| !s.violations.is_empty())
    }
}

/// A side before its first step.
pub fn empty_side(rules: RuleSet) -> SideRun {
    SideRun {
        rules,
        violations: Vec::new(),
        sometimes: vec![0; INVARIANTS.len()],
        first_fired: vec![u32::MAX; INVARIANTS.len()],
        steps: Vec::new(),
        violated: 0,
    }
}

pub(crate) fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with a non-string payload".to_string()
    }
}
