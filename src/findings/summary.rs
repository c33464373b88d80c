//! The one summary an engine prints at the end of a run: per (rule set, invariant,
//! finding) how many histories showed it, when it was first met, and the shortest witness
//! written for it; as a table for people and as JSON for tools.

use crate::rules::RuleSet;
use serde_json::json;
use std::path::PathBuf;
use std::time::Duration;

/// One row: a violation of `invariant` under `rules`, either a known finding (its id) or
/// new (with its witness).
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub rules: RuleSet,
    pub invariant: &'static str,
    /// The known finding's id (`F6`), `None` for a new one.
    pub known: Option<String>,
    /// Histories that showed it (for `exhaust`: 1, its shortest counterexample).
    pub count: u64,
    /// When it was first met, from the start of the run (`None` where not measured).
    pub first: Option<Duration>,
    /// The shortest witness written, and its number of events.
    pub witness: Option<(PathBuf, usize)>,
}

/// Every row of a run, in the order first met.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub rows: Vec<Row>,
}

impl Summary {
    /// Count one more history showing (`rules`, `invariant`, `known`), met at `at`.
    pub fn count(
        &mut self,
        rules: RuleSet,
        invariant: &'static str,
        known: Option<&str>,
        at: Duration,
    ) {
        let key =
            |r: &Row| r.rules == rules && r.invariant == invariant && r.known.as_deref() == known;
        match self.rows.iter_mut().find(|r| key(r)) {
            Some(r) => r.count += 1,
            None => self.rows.push(Row {
                rules,
                invariant,
                known: known.map(str::to_string),
                count: 1,
                first: Some(at),
                witness: None,
            }),
        }
    }

    /// Record the (current, shortest) witness of a new (`rules`, `invariant`).
    pub fn witness(
        &mut self,
        rules: RuleSet,
        invariant: &str,
        path: Option<PathBuf>,
        events: usize,
    ) {
        let row = self
            .rows
            .iter_mut()
            .find(|r| r.rules == rules && r.invariant == invariant && r.known.is_none());
        if let (Some(row), Some(path)) = (row, path) {
            row.witness = Some((path, events));
        }
    }

    pub fn new_count(&self) -> usize {
        self.rows.iter().filter(|r| r.known.is_none()).count()
    }

    /// The table: one line per row, new findings first.
    pub fn table(&self, histories: u64, elapsed: Duration) -> String {
        let known = self.rows.len() - self.new_count();
        let mut out = format!(
            "summary: {} new, {known} known in {histories} histories, {:.1} s\n",
            self.new_count(),
            elapsed.as_secs_f64()
        );
        if self.rows.is_empty() {
            return out;
        }
        out.push_str(&format!(
            "  {:<34} {:<9} {:<9} {:>10} {:>9}  shortest witness\n",
            "rule set", "invariant", "finding", "histories", "first s"
        ));
        let mut rows: Vec<&Row> = self.rows.iter().collect();
        rows.sort_by_key(|r| r.known.is_some());
        for r in rows {
            out.push_str(&format!(
                "  {:<34} {:<9} {:<9} {:>10} {:>9}  {}\n",
                r.rules.to_string(),
                r.invariant,
                r.known
                    .as_deref()
                    .map_or("new".to_string(), |k| format!("known {k}")),
                r.count,
                r.first
                    .map_or("-".to_string(), |d| format!("{:.3}", d.as_secs_f64())),
                r.witness.as_ref().map_or("-".to_string(), |(p, n)| format!(
                    "{} ({n} events)",
                    p.display()
                )),
            ));
        }
        out
    }

    /// One JSON object: `histories`, `seconds`, `rows` (rules, invariant, known, count,
    /// first_seconds, witness, witness_events).
    pub fn json(&self, histories: u64, elapsed: Duration) -> String {
        let rows: Vec<_> = self
            .rows
            .iter()
            .map(|r| {
                json!({
                    "rules": r.rules.to_string(),
                    "invariant": r.invariant,
                    "known": r.known,
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
            "rows": rows,
        })
        .to_string()
    }
}
