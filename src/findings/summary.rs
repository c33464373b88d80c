//! The one summary an engine prints at the end of a run: per (rule set, invariant,
//! class) how many histories showed it, when it was first met, and the shortest witness
//! written for it; as a table for people and as JSON for tools.
//!
//! Three classes, said plainly: *expected* (the documented upstream bug a rule variant
//! exists to show, `KAFKA-21419` on `trunk`), *known* (a documented hole of `complete` or
//! upstream, `F17`), and *new*: everything else, and only that.

use crate::findings::triage::{Kind, Known};
use crate::rules::RuleSet;
use serde_json::json;
use std::path::PathBuf;
use std::time::Duration;

/// What a row's violations were matched to: an expected or known finding, by its id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Matched {
    pub kind: Kind,
    pub id: String,
}

/// A [`Matched`] by reference: what the hot path counts with (no allocation per history).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatchedRef<'a> {
    pub kind: Kind,
    pub id: &'a str,
}

impl<'a> From<&'a Known> for MatchedRef<'a> {
    fn from(k: &'a Known) -> Self {
        MatchedRef {
            kind: k.kind,
            id: k.display_id(),
        }
    }
}

impl From<&Known> for Matched {
    fn from(k: &Known) -> Self {
        Matched {
            kind: k.kind,
            id: k.display_id().to_string(),
        }
    }
}

impl Matched {
    pub fn as_ref(&self) -> MatchedRef<'_> {
        MatchedRef {
            kind: self.kind,
            id: &self.id,
        }
    }
}

/// One row: a violation of `invariant` under `rules`, expected, known or new.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub rules: RuleSet,
    pub invariant: &'static str,
    /// The expected or known finding it is, `None` for a new one.
    pub matched: Option<Matched>,
    /// Histories that showed it (for `exhaust`: 1, its shortest counterexample).
    pub count: u64,
    /// When it was first met, from the start of the run (`None` where not measured).
    pub first: Option<Duration>,
    /// The shortest witness written under this rule set, and its number of events.
    pub witness: Option<(PathBuf, usize)>,
}

impl Row {
    /// `new`, `expected` or `known`.
    pub fn class(&self) -> &'static str {
        self.matched.as_ref().map_or("new", |m| m.kind.name())
    }
}

/// Every row of a run, in the order first met.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub rows: Vec<Row>,
}

/// Rows shown per group line before the rest is folded into "and N more".
const GROUP_INVARIANTS_MAX: usize = 12;

impl Summary {
    /// Count one more history showing (`rules`, `invariant`, `matched`), met at `at`.
    /// Returns whether this is the row's first history.
    pub fn count(
        &mut self,
        rules: RuleSet,
        invariant: &'static str,
        matched: Option<MatchedRef>,
        at: Duration,
    ) -> bool {
        let key = |r: &Row| {
            r.rules == rules
                && r.invariant == invariant
                && r.matched.as_ref().map(Matched::as_ref) == matched
        };
        match self.rows.iter_mut().find(|r| key(r)) {
            Some(r) => {
                r.count += 1;
                false
            }
            None => {
                self.rows.push(Row {
                    rules,
                    invariant,
                    matched: matched.map(|m| Matched {
                        kind: m.kind,
                        id: m.id.to_string(),
                    }),
                    count: 1,
                    first: Some(at),
                    witness: None,
                });
                true
            }
        }
    }

    /// Add another run's rows (a `hunt` worker's): counts summed, the earlier first time
    /// kept; then every row in the order first met.
    pub fn merge(&mut self, other: Summary) {
        for row in other.rows {
            let same = self.rows.iter_mut().find(|r| {
                r.rules == row.rules && r.invariant == row.invariant && r.matched == row.matched
            });
            match same {
                Some(r) => {
                    r.count += row.count;
                    r.first = r.first.into_iter().chain(row.first).min();
                }
                None => self.rows.push(row),
            }
        }
        self.rows.sort_by_key(|r| r.first);
    }

    /// Record the (current, shortest) witness of a row.
    pub fn witness(
        &mut self,
        rules: RuleSet,
        invariant: &str,
        matched: Option<&Matched>,
        path: Option<PathBuf>,
        events: usize,
    ) {
        let row = self.rows.iter_mut().find(|r| {
            r.rules == rules && r.invariant == invariant && r.matched.as_ref() == matched
        });
        if let (Some(row), Some(path)) = (row, path) {
            row.witness = Some((path, events));
        }
    }

    pub fn new_count(&self) -> usize {
        self.class_count("new")
    }

    fn class_count(&self, class: &str) -> usize {
        self.rows.iter().filter(|r| r.class() == class).count()
    }

    /// The rule sets in the order to print them: those with new rows first, then as met.
    fn rule_sets(&self) -> Vec<RuleSet> {
        let mut sets: Vec<RuleSet> = Vec::new();
        for r in &self.rows {
            if !sets.contains(&r.rules) {
                sets.push(r.rules);
            }
        }
        let has_new = |s: &RuleSet| {
            self.rows
                .iter()
                .any(|r| r.rules == *s && r.matched.is_none())
        };
        sets.sort_by_key(|s| !has_new(s));
        sets
    }

    /// The table: per rule set, its new rows one per line (with their witness), then one
    /// line per expected or known finding listing the invariants it showed; and the line a
    /// person acts on.
    pub fn table(&self, histories: u64, elapsed: Duration) -> String {
        let mut out = format!(
            "summary: {} new, {} expected, {} known (rule set × invariant) in {histories} histories, {:.1} s\n",
            self.new_count(),
            self.class_count("expected"),
            self.class_count("known"),
            elapsed.as_secs_f64()
        );
        for rules in self.rule_sets() {
            out.push_str(&format!("{rules}\n"));
            let rows: Vec<&Row> = self.rows.iter().filter(|r| r.rules == rules).collect();
            for r in rows.iter().filter(|r| r.matched.is_none()) {
                out.push_str(&format!(
                    "  new       {:<9} {:>9} histories, first {:>7.3} s  {}\n",
                    r.invariant,
                    r.count,
                    r.first.map_or(0.0, |d| d.as_secs_f64()),
                    witness_text(r)
                ));
            }
            out.push_str(&self.group_lines(&rows, Kind::Expected));
            out.push_str(&known_line(&rows));
        }
        out.push_str(&self.action_line());
        out
    }

    /// One line per finding of `kind` among `rows`: its id, the invariants it showed, the
    /// histories, and its shortest witness.
    fn group_lines(&self, rows: &[&Row], kind: Kind) -> String {
        let mut ids: Vec<&str> = Vec::new();
        for r in rows {
            if let Some(m) = r.matched.as_ref().filter(|m| m.kind == kind) {
                if !ids.contains(&m.id.as_str()) {
                    ids.push(&m.id);
                }
            }
        }
        let mut out = String::new();
        for id in ids {
            let group: Vec<&&Row> = rows
                .iter()
                .filter(|r| {
                    r.matched
                        .as_ref()
                        .is_some_and(|m| m.kind == kind && m.id == id)
                })
                .collect();
            let mut invariants: Vec<&str> = group.iter().map(|r| r.invariant).collect();
            let more = invariants.len().saturating_sub(GROUP_INVARIANTS_MAX);
            invariants.truncate(GROUP_INVARIANTS_MAX);
            let mut names = invariants.join(" ");
            if more > 0 {
                names.push_str(&format!(" and {more} more"));
            }
            let count: u64 = group.iter().map(|r| r.count).sum();
            let shortest = group
                .iter()
                .filter(|r| r.witness.is_some())
                .min_by_key(|r| r.witness.as_ref().map(|(_, n)| *n));
            out.push_str(&format!(
                "  {:<9} {id:<11} {names}: {count} histories  {}\n",
                kind.name(),
                shortest.map_or("-".to_string(), |r| witness_text(r))
            ));
        }
        out
    }
}

/// The known rows of one rule set on one line: they are documented holes of the fixes the
/// rule set reaches too, the same on every rule set (their witnesses are in the JSON
/// summary and under OUT/known).
fn known_line(rows: &[&Row]) -> String {
    let mut ids: Vec<(&str, Vec<&str>)> = Vec::new();
    let mut count = 0;
    for r in rows {
        let Some(m) = r.matched.as_ref().filter(|m| m.kind == Kind::Known) else {
            continue;
        };
        count += r.count;
        match ids.iter_mut().find(|(id, _)| *id == m.id) {
            Some((_, invs)) => invs.push(r.invariant),
            None => ids.push((&m.id, vec![r.invariant])),
        }
    }
    if ids.is_empty() {
        return String::new();
    }
    let list: Vec<String> = ids
        .iter()
        .map(|(id, invs)| format!("{id} ({})", invs.join(" ")))
        .collect();
    format!("  known     {}: {count} histories\n", list.join(", "))
}

impl Summary {
    /// The last line: what to do now.
    fn action_line(&self) -> String {
        let new: Vec<String> = self
            .rows
            .iter()
            .filter(|r| r.matched.is_none())
            .map(|r| format!("{} {}", r.rules, r.invariant))
            .collect();
        if new.is_empty() {
            return format!(
                "no new findings ({} expected, {} known rows: documented, see docs/findings.md)\n",
                self.class_count("expected"),
                self.class_count("known")
            );
        }
        let shown = new.len().min(GROUP_INVARIANTS_MAX);
        let more = if new.len() > shown {
            format!(" and {} more", new.len() - shown)
        } else {
            String::new()
        };
        format!(
            "{} new finding{}: {}{more}; replay one with `isrfuzz replay FILE`, file it with `isrfuzz replay --report jira FILE`\n",
            new.len(),
            if new.len() == 1 { "" } else { "s" },
            new[..shown].join(", ")
        )
    }

    /// One JSON object: `histories`, `seconds`, `new`, `expected`, `known`, `rows` (rules,
    /// invariant, class, finding, count, first_seconds, witness, witness_events).
    pub fn json(&self, histories: u64, elapsed: Duration) -> String {
        let rows: Vec<_> = self
            .rows
            .iter()
            .map(|r| {
                json!({
                    "rules": r.rules.to_string(),
                    "invariant": r.invariant,
                    "class": r.class(),
                    "finding": r.matched.as_ref().map(|m| m.id.clone()),
                    "count": r.count,
                    "first_seconds": r.first.map(|d| d.as_secs_f64()),
                    "witness": r.witness.as_ref().map(|(p, _)| p.display().to_string()),
                    "witness_events": r.witness.as_ref().map(|(_, n)| n),
                })
            })
            .collect();
        json!({
            "histories": histories,
            "seconds": elapsed.as_secs_f64(),
            "new": self.new_count(),
            "expected": self.class_count("expected"),
            "known": self.class_count("known"),
            "rows": rows,
        })
        .to_string()
    }
}

fn witness_text(r: &Row) -> String {
    r.witness.as_ref().map_or("-".to_string(), |(p, n)| {
        format!(
            "{} ({n} events)",
            crate::error::inert(&p.display().to_string())
        )
    })
}
