//! What `exhaust`'s shortest counterexamples become: each is triaged against the known
//! findings, annotated and written through the findings pipeline (not minimized: a
//! breadth-first counterexample is already as short as any), and, when two rule sets were
//! given, judged under the other side too.

use crate::check::oracle;
use crate::error::Error;
use crate::findings::Sink;
use crate::rules::RuleSet;
use crate::search::exhaust::{Report, Start};
use std::path::PathBuf;

/// One shortest counterexample of one invariant.
pub struct Counterexample {
    pub invariant: &'static str,
    /// Operations after the start's setup.
    pub ops: usize,
    /// The expected or known finding it matched: not written.
    pub known: Option<crate::findings::summary::Matched>,
    pub path: Option<PathBuf>,
    /// With a second rule set: whether it violates the invariant on the same history.
    pub other_violates: Option<(RuleSet, bool)>,
}

/// Triage, annotate and write every counterexample of `report` (found under `rules`).
pub fn record(
    sink: &Sink,
    start: &Start,
    rules: RuleSet,
    other: Option<RuleSet>,
    report: &Report,
) -> Result<Vec<Counterexample>, Error> {
    let mut out = Vec::new();
    for (invariant, history) in &report.violations {
        let run = oracle::run(history, &[rules], false);
        let side = &run.sides[0];
        let violation = side.violations.iter().find(|v| v.invariant == *invariant);
        let ops = history.events.len() - start.setup.len();
        if let Some(m) = violation.and_then(|v| sink.classify(history, side, v)) {
            out.push(Counterexample {
                invariant,
                ops,
                known: Some(m),
                path: None,
                other_violates: None,
            });
            continue;
        }
        let finding = sink.record([rules, rules], 0, invariant, history.clone())?;
        let other_violates = other.map(|b| {
            let also = oracle::run(history, &[b], false).sides[0].violates(invariant);
            (b, also)
        });
        out.push(Counterexample {
            invariant,
            ops,
            known: None,
            path: finding.path,
            other_violates,
        });
    }
    Ok(out)
}
