//! The affected versions of a ticket, per consequence: one history often breaks several
//! invariants, each on its own releases (KAFKA-21419's repro breaks the listing on every
//! release and completes early only from 4.3), so a single list would contradict the
//! reproducer it comes with. Each consequence is said for what judged it:
//! - the controller's (control plane): "shown by Apache Kafka X" only when that release's
//!   real controller showed it on this very history (`conformance/measured.json`, written
//!   by `ci/conformance.sh --record`); else what the release presets predict, said so;
//! - the brokers' replication (data plane): no real broker judged it yet; the model's
//!   truncation rule names the Apache Kafka generations that had it;
//! - Inkless: the fork commits and pull requests whose rules show it in the model (no
//!   Inkless build is published to run).

use crate::check::history::History;
use crate::check::invariants::{self, Plane};
use crate::check::oracle::{self, SideRun};
use crate::rules::{Family, RuleSet, Truncation, PRESETS, RELEASE_PRESETS, RULES};

/// The longest history a ticket replays under other rule sets to find the culprit rule and
/// the affected releases (each one more run): a generated finding has at most a few dozen
/// events, while a history at the input limits takes seconds per run. Longer ones get
/// every differing rule and the measured releases only, and say so.
pub const SEARCH_EVENTS_MAX: usize = 128;

/// What the conformance suite measured, per release: which corpus histories (by content
/// hash) the real controller showed which invariants on (`ci/conformance.sh --record`).
const MEASURED: &str = include_str!("../../conformance/measured.json");

/// Each Inkless preset as the fork's commits and pull requests it stands for.
const INKLESS_UPSTREAM: [(&str, &str); 5] = [
    ("inkless-main", "aiven/inkless main (https://github.com/aiven/inkless/commit/b1fcb5f6f7)"),
    ("pr756-commit1", "aiven/inkless PR #756 at its first commit (https://github.com/aiven/inkless/commit/150ec6ed61)"),
    ("pr756", "aiven/inkless PR #756 at its head (https://github.com/aiven/inkless/commit/5f22fac12b)"),
    ("pr756+pr760", "aiven/inkless PR #756 with PR #760 (https://github.com/aiven/inkless/commit/82c0e1a2e5) applied, a combination no upstream commit has"),
    ("inkless-complete", "aiven/inkless PRs #756, #760, #757 (https://github.com/aiven/inkless/commit/9082a19e2f) and #754 (https://github.com/aiven/inkless/commit/43b016f6ec) together, every fix proposed so far"),
];

/// One consequence: the invariant and the versions it is known or expected on, in words.
pub struct Consequence {
    pub invariant: String,
    pub versions: String,
}

/// A ticket's affected versions: every consequence, the reported one first; and the first
/// release that shows the reported one on its controller (the reproducer's).
pub struct Affected {
    pub consequences: Vec<Consequence>,
    pub first: Option<String>,
}

/// The consequences of `side` on `history` (the reported `invariant` first) and the
/// versions each is known or expected on.
pub fn affected(history: &History, side: &SideRun, invariant: &str, family: Family) -> Affected {
    let mut ids = vec![invariant.to_string()];
    for v in &side.violations {
        if !ids.iter().any(|i| i == v.invariant) {
            ids.push(v.invariant.to_string());
        }
    }
    let measured = measured(history);
    if let (Family::Kraft, Some(m)) = (family, &measured) {
        for r in &m.releases {
            for i in &r.1 {
                if !ids.contains(i) {
                    ids.push(i.clone());
                }
            }
        }
    }
    let short = history.events.len() <= SEARCH_EVENTS_MAX;
    let inkless = (family == Family::Inkless || ids.iter().any(|i| plane(i) == Plane::Inkless))
        .then(|| short.then(|| inkless_runs(history, side.rules)));
    let controller = Controller::of(history, side.rules, measured.as_ref(), short);
    let mut first = None;
    let consequences = ids
        .iter()
        .map(|id| {
            let versions = match (family, plane(id)) {
                (Family::Inkless, _) | (_, Plane::Inkless) => inkless_versions(id, &inkless),
                (Family::Kraft, Plane::Data) => match shown_by_brokers(measured.as_ref(), id) {
                    Some(text) => text,
                    None => data_versions(side.rules.truncation),
                },
                (Family::Kraft, Plane::Control) => {
                    let (text, shows) = controller.versions(id);
                    if id == invariant {
                        first = shows;
                    }
                    text
                }
            };
            Consequence {
                invariant: id.clone(),
                versions,
            }
        })
        .collect();
    Affected {
        consequences,
        first,
    }
}

fn plane(id: &str) -> Plane {
    invariants::by_id(id).map_or(Plane::Control, |i| i.plane)
}

/// A data-plane consequence the real brokers showed on this very history (the corpus is
/// recorded with `conform --brokers`): the releases that showed it. `None` when none did,
/// or nothing was recorded: absence is not claimed from the record.
fn shown_by_brokers(measured: Option<&Measured>, id: &str) -> Option<String> {
    let m = measured?;
    let names: Vec<&str> = m.releases.iter().map(|r| r.0.as_str()).collect();
    let shown: Vec<bool> = (m.releases.iter())
        .map(|r| r.1.iter().any(|i| i == id))
        .collect();
    shown.contains(&true).then(|| {
        format!(
            "{} (each release's real brokers and controller, replaying this history in-process)",
            split_releases(&names, &shown, "shown by", "not by")
        )
    })
}

/// The Apache Kafka generations whose brokers truncate as `t` does.
fn data_versions(t: Truncation) -> String {
    let generation = match t {
        Truncation::Hw => "Apache Kafka before 0.11.0, whose followers truncated to their own high watermark on a leader change (the rule KIP-101 replaced)",
        Truncation::Kip101 => "Apache Kafka 0.11.0 to 1.1: KIP-101's truncation to the leader's end offset for the follower's latest epoch, before KIP-279",
        Truncation::Kip279 => "Apache Kafka 2.0 to 2.6: KIP-279's truncation, repeated until leader and follower agree on an epoch, before the divergence check on every fetch",
        Truncation::FetchDivergence => "Apache Kafka 2.7 and later, up to apache/kafka trunk: the divergence check on every fetch",
    };
    format!("not yet reproduced on real Apache Kafka brokers; the model's rule for this path stands for {generation}")
}

/// What the controller's consequences are judged against: the real controllers' results
/// for this history, else the release presets' runs.
enum Controller {
    /// The rule set's controller rules are no release's and not the fullest fix's.
    Proposal,
    /// What the real controllers showed; whether the rule set's own controller rules are a
    /// proposal (a consequence no release shows then needs it).
    Measured(Measured, bool),
    Predicted(Vec<(String, SideRun)>),
    TooLong,
}

impl Controller {
    fn of(history: &History, rules: RuleSet, measured: Option<&Measured>, short: bool) -> Self {
        // The brokers' truncation is no controller rule: compare the controller's only.
        let controller_of = |r: &RuleSet| RuleSet {
            truncation: rules.truncation,
            ..*r
        };
        let fullest = controller_of(&RuleSet::complete()).same_rules_of(&rules, Family::Kraft);
        let released = (RELEASE_PRESETS.iter())
            .any(|p| controller_of(&p.rules).same_rules_of(&rules, Family::Kraft));
        // What the real controllers did on this very history is a fact whatever rules the
        // finding's own side runs.
        let proposal = !released && !fullest;
        if let Some(m) = measured {
            return Controller::Measured(m.clone(), proposal);
        }
        if proposal {
            return Controller::Proposal;
        }
        if !short {
            return Controller::TooLong;
        }
        let runs = RELEASE_PRESETS
            .iter()
            .map(|p| {
                let mut r = rules;
                for rule in RULES.iter().filter(|r| r.family == Family::Kraft) {
                    (rule.set)(&mut r, (rule.get)(&controller_of(&p.rules)));
                }
                let run = oracle::run(history, &[r], false).sides.swap_remove(0);
                (p.name.trim_start_matches("kafka-").to_string(), run)
            })
            .collect();
        Controller::Predicted(runs)
    }

    /// The versions of consequence `id`, and the first release that shows it.
    fn versions(&self, id: &str) -> (String, Option<String>) {
        match self {
            Controller::Proposal => ("no Apache Kafka release: it needs the proposed controller change named under Suggested fix, which no release has".into(), None),
            Controller::TooLong => (format!("not predicted for a history of more than {SEARCH_EVENTS_MAX} events: run `isrfuzz conform --kafka VERSION` on the attached history"), None),
            Controller::Measured(m, proposal) => {
                let names: Vec<&str> = m.releases.iter().map(|r| r.0.as_str()).collect();
                let shown: Vec<bool> = (m.releases.iter())
                    .map(|r| r.1.iter().any(|i| i == id))
                    .collect();
                let needs = if *proposal && !shown.contains(&true) {
                    "; it needs the proposed controller change named under Suggested fix"
                } else {
                    ""
                };
                let text = format!(
                    "{} (each release's real controller, replaying this history in-process){needs}",
                    split_releases(&names, &shown, "shown by", "not by")
                );
                (text, first_showing(&names, &shown))
            }
            Controller::Predicted(runs) => {
                let names: Vec<&str> = runs.iter().map(|r| r.0.as_str()).collect();
                let shown: Vec<bool> = runs.iter().map(|r| r.1.violates(id)).collect();
                let text = format!(
                    "{} by the model of each release's controller (not yet replayed on the real controller: `isrfuzz conform --kafka VERSION` does)",
                    split_releases(&names, &shown, "expected on", "not on")
                );
                (text, first_showing(&names, &shown))
            }
        }
    }
}

/// `shown by Apache Kafka 4.3.1, 4.4.0; not by 4.0.2, 4.1.2, 4.2.2`, or `not shown by
/// Apache Kafka …` when no release shows it.
fn split_releases(names: &[&str], shown: &[bool], yes: &str, no: &str) -> String {
    let pick = |want: bool| -> Vec<&str> {
        (names.iter().zip(shown))
            .filter(|(_, &s)| s == want)
            .map(|(n, _)| *n)
            .collect()
    };
    let (with, without) = (pick(true), pick(false));
    match (with.is_empty(), without.is_empty()) {
        (true, _) => format!("not {yes} Apache Kafka {}", without.join(", ")),
        (false, true) => format!("{yes} Apache Kafka {}", with.join(", ")),
        (false, false) => format!(
            "{yes} Apache Kafka {}; {no} {}",
            with.join(", "),
            without.join(", ")
        ),
    }
}

fn first_showing(names: &[&str], shown: &[bool]) -> Option<String> {
    (names.iter().zip(shown))
        .find(|(_, &s)| s)
        .map(|(n, _)| n.to_string())
}

/// The fork's commits and pull requests, each with its run of `history` (the rule set's
/// KRaft rules kept).
fn inkless_runs(history: &History, rules: RuleSet) -> Vec<(&'static str, SideRun)> {
    PRESETS
        .iter()
        .filter(|p| p.family == Family::Inkless)
        .map(|p| {
            let mut r = rules;
            for rule in RULES.iter().filter(|r| r.family == Family::Inkless) {
                (rule.set)(&mut r, (rule.get)(&p.rules));
            }
            let run = oracle::run(history, &[r], false).sides.swap_remove(0);
            (inkless_upstream(p.name), run)
        })
        .collect()
}

/// The fork's commits a preset stands for (its summary when the table lacks it).
pub fn inkless_upstream(preset: &str) -> &'static str {
    (INKLESS_UPSTREAM.iter())
        .find(|(name, _)| *name == preset)
        .map_or("an aiven/inkless pull request", |(_, text)| text)
}

fn inkless_versions(id: &str, runs: &Option<Option<Vec<(&'static str, SideRun)>>>) -> String {
    let Some(Some(runs)) = runs else {
        return format!("not predicted for a history of more than {SEARCH_EVENTS_MAX} events");
    };
    let pick = |want: bool| -> Vec<&str> {
        (runs.iter())
            .filter(|r| r.1.violates(id) == want)
            .map(|r| r.0)
            .collect()
    };
    let (with, without) = (pick(true), pick(false));
    let note = "(predicted by the model: the fork is not run, as no Inkless build is published)";
    match (with.is_empty(), without.is_empty()) {
        (true, _) => format!("no aiven/inkless commit or pull request modeled: it needs the rule change named under Suggested fix {note}"),
        (false, true) => format!("{} {note}", with.join("; ")),
        (false, false) => format!("{}; not {} {note}", with.join("; "), without.join("; ")),
    }
}

/// What `ci/conformance.sh --record` measured for this very history: per release that
/// replayed it, the invariants its real controller showed.
#[derive(Clone)]
struct Measured {
    releases: Vec<(String, Vec<String>)>,
}

fn measured(history: &History) -> Option<Measured> {
    // A release judges such a history only up to its first Inkless-only step: its record
    // says nothing of the steps after it, where the violations are.
    if history
        .events
        .iter()
        .any(crate::model::Event::is_inkless_only)
    {
        return None;
    }
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
    (!releases.is_empty()).then_some(Measured { releases })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_inkless_preset_names_its_upstream() {
        for p in PRESETS.iter().filter(|p| p.family == Family::Inkless) {
            assert!(
                INKLESS_UPSTREAM.iter().any(|(name, _)| *name == p.name),
                "{}",
                p.name
            );
        }
    }
}
