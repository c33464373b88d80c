//! The affected versions of a ticket, per consequence: one history often breaks several
//! invariants, each on its own releases (KAFKA-21419's repro breaks G2 on every release
//! and G5 only from 4.3), so a single list would contradict the reproducer it comes with.
//! What a release showed comes from its real controller (`conformance/measured.json`,
//! written by `ci/conformance.sh --record`); a history never measured gets the release
//! presets' prediction, named as one.

use crate::check::history::History;
use crate::check::oracle::{self, SideRun};
use crate::rules::{all_presets, Family, RuleSet, RELEASE_PRESETS, RULES};

/// The longest history a ticket replays under other rule sets to find the culprit rule and
/// the affected releases (each one more run): a generated finding has at most a few dozen
/// events, while a history at the input limits takes seconds per run. Longer ones get
/// every differing rule and the measured releases only, and say so.
pub const SEARCH_EVENTS_MAX: usize = 128;

/// What the conformance suite measured, per release: which corpus histories (by content
/// hash) the real controller showed which invariants on (`ci/conformance.sh --record`).
const MEASURED: &str = include_str!("../../conformance/measured.json");

/// The releases that show each consequence: for the reported invariant first, then every
/// other invariant the history violates, the releases that showed it and those that did
/// not. One history often breaks several invariants on different releases (KAFKA-21419's
/// repro: G2 on every release, G5 only from 4.3), so one list for all would contradict the
/// reproducer. Measured on the real controller when the history was
/// (`conformance/measured.json`), else predicted by the release presets, and said so.
/// Returns the line and the first release that shows the reported invariant (the
/// reproducer's).
pub fn affected(
    history: &History,
    side: &SideRun,
    invariant: &str,
    family: Family,
) -> (String, Option<String>) {
    let rules = side.rules;
    if family == Family::Inkless {
        let preset = all_presets().find(|p| {
            p.family == Family::Inkless && p.rules.same_rules_of(&rules, Family::Inkless)
        });
        let line = preset.map_or(
            "the Inkless rules of this rule set (no released branch)".into(),
            |p| format!("aiven/inkless `{}`: {}", p.name, p.summary),
        );
        return (line, None);
    }
    // A hole of the complete rules is shared code: the releases may have it too. A rule
    // set whose KRaft rules differ from complete's and from every release's is a proposal.
    let complete = RuleSet::complete().same_rules_of(&rules, Family::Kraft);
    let released = RELEASE_PRESETS
        .iter()
        .any(|p| p.rules.same_rules_of(&rules, Family::Kraft));
    if !released && !complete {
        return ("no Apache Kafka release: the rule set's KRaft rules are a proposed variant, not those of any release 4.0-4.4".into(), None);
    }
    let mut ids = vec![invariant.to_string()];
    for v in &side.violations {
        if !ids.iter().any(|i| i == v.invariant) {
            ids.push(v.invariant.to_string());
        }
    }
    if let Some(m) = measured(history) {
        return shown_line(ids, invariant, &m);
    }
    if history.events.len() > SEARCH_EVENTS_MAX {
        return (format!(
            "not predicted for a history of more than {SEARCH_EVENTS_MAX} events: run `isrfuzz conform --kafka VERSION FILE`"
        ), None);
    }
    predicted_line(history, rules, &ids, invariant)
}

/// The line from what the real controllers showed; what they showed beyond the model's
/// violations is a consequence too.
fn shown_line(mut ids: Vec<String>, invariant: &str, m: &Measured) -> (String, Option<String>) {
    for r in &m.releases {
        for i in &r.1 {
            if !ids.contains(i) {
                ids.push(i.clone());
            }
        }
    }
    let names: Vec<String> = m.releases.iter().map(|r| r.0.clone()).collect();
    let shows = |id: &str| -> Vec<bool> {
        m.releases
            .iter()
            .map(|r| r.1.iter().any(|i| i == id))
            .collect()
    };
    let line = format!(
        "{} (shown by the real controller: isrfuzz conform, recorded at {})",
        consequences(&ids, invariant, &names, shows),
        m.commit
    );
    (line, first_showing(&names, &shows(invariant)))
}

/// The line the release presets predict, said so: a history no release replayed.
fn predicted_line(
    history: &History,
    rules: RuleSet,
    ids: &[String],
    invariant: &str,
) -> (String, Option<String>) {
    let mut names = Vec::new();
    let mut runs = Vec::new();
    for p in RELEASE_PRESETS {
        let mut r = rules;
        for rule in RULES.iter().filter(|r| r.family == Family::Kraft) {
            (rule.set)(&mut r, (rule.get)(&p.rules));
        }
        names.push(p.name.trim_start_matches("kafka-").to_string());
        runs.push(oracle::run(history, &[r], false).sides.swap_remove(0));
    }
    let shows = |id: &str| -> Vec<bool> { runs.iter().map(|r| r.violates(id)).collect() };
    let first = first_showing(&names, &shows(invariant));
    if first.is_none() {
        return ("no Apache Kafka release 4.0-4.4 by their release presets: the bug is in a proposed variant".into(), None);
    }
    let line = format!(
        "{} (predicted by isrfuzz's release presets, which agreed with each release's controller on every request measured; confirm with `isrfuzz conform --kafka VERSION FILE`)",
        consequences(ids, invariant, &names, shows)
    );
    (line, first)
}

/// Every consequence in turn, the reported one first (and marked when there are others).
fn consequences(
    ids: &[String],
    invariant: &str,
    names: &[String],
    shows: impl Fn(&str) -> Vec<bool>,
) -> String {
    let per: Vec<String> = ids
        .iter()
        .map(|id| per_invariant(id, id == invariant && ids.len() > 1, names, &shows(id)))
        .collect();
    per.join("; ")
}

/// `G5 (reported): Apache Kafka 4.3.1, 4.4.0, not 4.0.2, 4.1.2, 4.2.2`: one consequence,
/// the releases that showed it and those that did not.
fn per_invariant(id: &str, reported: bool, names: &[String], shown: &[bool]) -> String {
    let pick = |want: bool| -> Vec<&str> {
        names
            .iter()
            .zip(shown)
            .filter(|(_, &s)| s == want)
            .map(|(n, _)| n.as_str())
            .collect()
    };
    let (yes, no) = (pick(true), pick(false));
    let label = if reported {
        format!("{id} (reported)")
    } else {
        id.to_string()
    };
    match (yes.is_empty(), no.is_empty()) {
        (true, _) => format!("{label}: none of Apache Kafka {}", no.join(", ")),
        (false, true) => format!("{label}: Apache Kafka {}", yes.join(", ")),
        (false, false) => format!(
            "{label}: Apache Kafka {}, not {}",
            yes.join(", "),
            no.join(", ")
        ),
    }
}

fn first_showing(names: &[String], shown: &[bool]) -> Option<String> {
    names
        .iter()
        .zip(shown)
        .find(|(_, &s)| s)
        .map(|(n, _)| n.clone())
}

/// What `ci/conformance.sh --record` measured for this very history: per release that
/// replayed it, the invariants its real controller showed.
struct Measured {
    commit: String,
    releases: Vec<(String, Vec<String>)>,
}

fn measured(history: &History) -> Option<Measured> {
    let m: serde_json::Value = serde_json::from_str(MEASURED).ok()?;
    let key = format!("{:016x}", history.content_hash());
    let mut releases = Vec::new();
    for r in m["releases"].as_array()? {
        // A release that did not replay this history says nothing either way.
        let Some(ids) = r["shown_by_history"].get(&key).and_then(|v| v.as_array()) else {
            continue;
        };
        let Some(release) = r["release"].as_str() else {
            continue;
        };
        let ids = ids
            .iter()
            .filter_map(|i| i.as_str().map(str::to_string))
            .collect();
        releases.push((release.to_string(), ids));
    }
    if releases.is_empty() {
        return None;
    }
    Some(Measured {
        commit: m["commit"].as_str().unwrap_or("?").to_string(),
        releases,
    })
}
