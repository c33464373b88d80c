//! Attribution: which family of rules a finding is about. The default pairs isolate one
//! family at a time (the other family runs its complete fixes on both sides), so a
//! violation on the left side is caused by the one family that differs from `complete`,
//! and its rule set's name (`complete+trunk`, `complete+pr756`) says so.

use crate::check::oracle::Verdict;
use crate::rules::{Family, RuleSet, PRESETS, RULES};

/// The pairs the default hunt runs beyond the presets', against `complete`: each reaches
/// a documented mechanism that no preset pair can show, named with it. One rule each, so
/// they too blame one family.
pub const REACH_PAIRS: &[(&str, &str)] = &[
    (
        "complete+leader-change=none",
        "CE-c: main's leader change under a shrink of switched partitions, which no preset has",
    ),
    (
        "complete+last-known-leader=4.0",
        "F19b: release 4.0's last known leader, a release preset and not a default one",
    ),
];

/// Every preset that is not its family's complete fix, each with the other family at its
/// complete setting, against `complete`: KRaft presets first, then Inkless, each once;
/// then [`REACH_PAIRS`].
pub fn default_pairs() -> Vec<[RuleSet; 2]> {
    let complete = RuleSet::complete();
    let mut pairs: Vec<[RuleSet; 2]> = Vec::new();
    let names = PRESETS.iter().map(|p| format!("complete+{}", p.name));
    for name in names.chain(REACH_PAIRS.iter().map(|(n, _)| n.to_string())) {
        let rules = RuleSet::parse(&name).expect("default pairs parse");
        if rules != complete && !pairs.iter().any(|[a, _]| *a == rules) {
            pairs.push([rules, complete]);
        }
    }
    pairs
}

/// The families whose rules differ from `complete`.
pub fn differing_families(rules: &RuleSet) -> Vec<Family> {
    let complete = RuleSet::complete();
    let mut out = Vec::new();
    for family in [Family::Kraft, Family::Inkless] {
        let differs = RULES
            .iter()
            .any(|r| r.family == family && (r.get)(rules) != (r.get)(&complete));
        if differs {
            out.push(family);
        }
    }
    out
}

/// The rules of `rules` that differ from `complete`, as `rule=variant` (what a finding
/// under `rules` is attributed to). Empty for `complete` itself.
pub fn responsible_variants(rules: &RuleSet) -> Vec<String> {
    let complete = RuleSet::complete();
    RULES
        .iter()
        .filter(|r| (r.get)(rules) != (r.get)(&complete))
        .map(|r| format!("{}={}", r.id, r.variant_of(rules).name))
        .collect()
}

/// Family name as printed.
pub fn family_name(family: Family) -> &'static str {
    match family {
        Family::Kraft => "KRaft",
        Family::Inkless => "Inkless",
    }
}

/// Whether a violation of `invariant` on `side` is that side's own: no later side of the
/// same run violates it too. A violation both sides show comes from the rules they share,
/// so it belongs to the last side (in the default pairs, `complete`).
pub fn attributed(verdict: &Verdict, side: usize, invariant: &str) -> bool {
    !verdict.sides[side + 1..]
        .iter()
        .any(|s| s.violates(invariant))
}
