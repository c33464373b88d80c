//! `replay --report md`: a self-contained Markdown bug report for one counterexample, to
//! paste into JIRA or GitHub: summary, rule variants, step table, each violated invariant
//! with its rationale and upstream source, the operator steps and the replay command.

use crate::check::history::History;
use crate::check::invariants;
use crate::check::oracle::Verdict;
use crate::findings::attribution::responsible_variants;
use crate::findings::operator::operator_steps;
use crate::findings::report::{step_table, verdict_line};
use std::fmt::Write;

/// The report for `history` judged as `verdict` (recorded), read from `file`.
pub fn markdown(file: &str, history: &History, verdict: &Verdict) -> String {
    let mut out = String::new();
    let title = history.description.as_deref().unwrap_or("counterexample");
    let _ = writeln!(out, "# {}\n", first_sentence(title));
    let _ = writeln!(
        out,
        "## Summary\n\n{title}\n\nVerdict: {}\n",
        verdict_line(verdict)
    );
    let _ = writeln!(out, "## Rule variants\n");
    for side in &verdict.sides {
        let differ = responsible_variants(&side.rules);
        let detail = if differ.is_empty() {
            "every rule at its most complete fix".to_string()
        } else {
            format!("differs from `complete` in {}", differ.join(", "))
        };
        let _ = writeln!(out, "- `{}`: {detail}", side.rules);
    }
    let _ = writeln!(out, "\n## Steps\n");
    for side in &verdict.sides {
        let _ = writeln!(out, "```text\n{}```\n", step_table(history, side));
    }
    let _ = writeln!(out, "## Invariants violated\n");
    for side in &verdict.sides {
        for v in &side.violations {
            let Some(inv) = invariants::by_id(v.invariant) else {
                continue;
            };
            let _ = writeln!(
                out,
                "- **{}** under `{}` at step {}: {}\n  - Statement: {}\n  - Why: {}\n  - Source: {}",
                inv.id, side.rules, v.step, v.detail, inv.statement, inv.rationale, inv.source
            );
        }
    }
    if let Some(side) = verdict.sides.first() {
        let _ = writeln!(
            out,
            "\n## Operator steps (under `{}`)\n\n```sh\n{}```\n",
            side.rules,
            operator_steps(history, side)
        );
    }
    let rules: Vec<String> = verdict.sides.iter().map(|s| s.rules.to_string()).collect();
    let _ = writeln!(
        out,
        "## Replay\n\n```sh\nisrfuzz replay {file} --rules '{}'\n```",
        rules.join(":")
    );
    out
}

fn first_sentence(text: &str) -> &str {
    text.split([':', ';']).next().unwrap_or(text).trim()
}
