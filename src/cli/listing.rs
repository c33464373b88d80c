//! `isrfuzz rules` and `isrfuzz invariants`: what this build knows, with provenance.

use isrfuzz::check::invariants::INVARIANTS;
use isrfuzz::rules::{
    Family, RuleSet, COMPLETE_INKLESS, COMPLETE_KRAFT, PRESETS, RELEASE_PRESETS, RULES,
};

/// What `ci/conformance.sh --record` measured: each release's corpus replay against its
/// preset, embedded at build time so that the listing does not depend on where it runs.
const MEASURED: &str = include_str!("../../conformance/measured.json");

/// The releases whose real controller agreed with the model at every request of the
/// corpus, each with the rule set it ran: (version, rules).
fn agreeing_releases() -> Vec<(String, RuleSet)> {
    let value: serde_json::Value = serde_json::from_str(MEASURED).unwrap_or_default();
    let releases = value["releases"].as_array().cloned().unwrap_or_default();
    releases
        .iter()
        .filter(|r| r["disagreements"].as_object().is_some_and(|d| d.is_empty()))
        .filter_map(|r| {
            let rules = RuleSet::parse(r["rules"].as_str()?).ok()?;
            Some((r["release"].as_str()?.to_string(), rules))
        })
        .collect()
}

/// The rules the real controller judges (`isrfuzz conform`): the broker-side rules are
/// not run by the controller's driver, so no release is claimed for them.
const CONTROLLER_RULES: [&str; 4] = [
    "derivation",
    "completion",
    "last-known-leader",
    "assignment-elr",
];

/// `  releases: 4.1.2, 4.2.2` for the measured releases `matches` accepts, or nothing.
fn releases_line(agreeing: &[(String, RuleSet)], matches: impl Fn(&RuleSet) -> bool) -> String {
    let names: Vec<&str> = agreeing
        .iter()
        .filter(|(_, r)| matches(r))
        .map(|(v, _)| v.as_str())
        .collect();
    if names.is_empty() {
        String::new()
    } else {
        format!(" [matches Apache Kafka {}]", names.join(", "))
    }
}

pub fn print_rules() {
    let agreeing = agreeing_releases();
    for rule in RULES {
        println!("rule {} ({:?}): {}", rule.id, rule.family, rule.summary);
        for (i, v) in rule.variants.iter().enumerate() {
            let judged = CONTROLLER_RULES.contains(&rule.id);
            let measured = releases_line(&agreeing, |r| judged && (rule.get)(r) == i);
            println!("  {:<26} {}{measured}", v.name, v.summary);
            println!("  {:<26} source: {}", "", v.provenance);
        }
        println!();
    }
    println!(
        "presets (a rule set is `item(+item)*`, an item a preset, `complete` or rule=variant;"
    );
    println!("a preset sets only its family's rules; a pair is `A:B`):");
    for p in PRESETS {
        let complete = if p.name == COMPLETE_KRAFT || p.name == COMPLETE_INKLESS {
            " [part of `complete`, the default right-hand side of hunt]"
        } else {
            ""
        };
        let kraft = RuleSet::parse(p.name)
            .ok()
            .filter(|_| p.family == Family::Kraft);
        let same = |r: &RuleSet| kraft.is_some_and(|k| k.same_rules_of(r, Family::Kraft));
        let measured = releases_line(&agreeing, same);
        println!(
            "  {:<26} {:?}: {}{complete}{measured}",
            p.name, p.family, p.summary
        );
    }
    println!(
        "\nrelease presets (each release's KRaft rules; [matches] lists the releases whose real"
    );
    println!(
        "controller agreed at every request of corpus/regressions: ci/conformance.sh --record):"
    );
    for p in RELEASE_PRESETS {
        let rules = RuleSet::parse(p.name).expect("release presets parse");
        let measured = releases_line(&agreeing, |r| rules.same_rules_of(r, Family::Kraft));
        println!("  {:<26} {}{measured}", p.name, p.summary);
    }
    println!("\ncomplete = {}", RuleSet::complete().describe());
}

pub fn print_invariants() {
    for inv in INVARIANTS {
        println!("{} [{}] {}", inv.id, inv.kind.name(), inv.statement);
        println!("   why: {}", inv.rationale);
        println!("   source: {}\n", inv.source);
    }
}
