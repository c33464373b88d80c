//! Rule sets by name: parsing `item(+item)*` and `A:B`, and the short display name.
//! Every rule is read and set through its registry entry (`RuleInfo::get` / `set`).

use super::presets::{
    all_presets, preset_named, Preset, BASE, COMPLETE_INKLESS, COMPLETE_KRAFT, PRESETS,
};
use super::{Family, RuleSet, RULES};
use crate::error::inert;
use std::fmt;

impl RuleSet {
    /// Take the rules of `family` from `other`.
    fn take_family(&mut self, other: &RuleSet, family: Family) {
        for rule in RULES.iter().filter(|r| r.family == family) {
            (rule.set)(self, (rule.get)(other));
        }
    }

    /// Take a preset's rules: those of its family.
    fn take_preset(&mut self, preset: &Preset) {
        self.take_family(&preset.rules, preset.family);
    }

    /// How many rules of `family` differ between the two.
    fn differences(&self, other: &RuleSet, family: Family) -> usize {
        RULES
            .iter()
            .filter(|r| r.family == family && (r.get)(self) != (r.get)(other))
            .count()
    }

    /// Whether the two run the same rules of `family`.
    pub fn same_rules_of(&self, other: &RuleSet, family: Family) -> bool {
        self.differences(other, family) == 0
    }

    /// `derivation=trunk completion=4.3+ ...`: every rule with its variant.
    pub fn describe(&self) -> String {
        let names: Vec<String> = RULES
            .iter()
            .map(|r| format!("{}={}", r.id, r.variant_of(self).name))
            .collect();
        names.join(" ")
    }

    /// Parse `item(+item)*`, where an item is a preset (which sets its family's rules),
    /// `complete`, or `rule=variant`. Preset names may themselves contain `+`
    /// (`pr756+pr760`): the longest matching run of items wins. Starts from trunk +
    /// inkless-main.
    pub fn parse(text: &str) -> Result<RuleSet, String> {
        check_size(text)?;
        let items: Vec<&str> = text.split('+').map(str::trim).collect();
        if items.len() > ITEMS_MAX {
            return Err(format!(
                "{} items in a rule set, more than the limit of {ITEMS_MAX}",
                items.len()
            ));
        }
        let mut rules = BASE;
        let mut i = 0;
        while i < items.len() {
            i = match longest_preset_run(&items, i) {
                Some((j, name)) => {
                    rules.take_named(&name);
                    j
                }
                None => rules.take_override(&items, i)?,
            };
        }
        Ok(rules)
    }

    /// Take `complete` (both complete presets) or the preset `name`, which exists.
    fn take_named(&mut self, name: &str) {
        if name == "complete" {
            for part in [COMPLETE_KRAFT, COMPLETE_INKLESS] {
                self.take_preset(preset_named(part).expect("complete presets exist"));
            }
        } else {
            self.take_preset(preset_named(name).expect("matched"));
        }
    }

    /// Set the `rule=variant` override that starts at `items[i]`, and return where the
    /// next item starts. Variant names may contain `+` too (`completion=4.3+`): the
    /// longest run of items that names a variant wins.
    fn take_override(&mut self, items: &[&str], i: usize) -> Result<usize, String> {
        let j = (i + 1..=items.len().min(i + run_max()))
            .rev()
            .find(|&j| {
                let mut probe = *self;
                probe.set(&items[i..j].join("+")).is_ok()
            })
            .unwrap_or(i + 1);
        self.set(&items[i..j].join("+"))?;
        Ok(j)
    }

    fn set(&mut self, item: &str) -> Result<(), String> {
        let Some((rule, variant)) = item.split_once('=') else {
            let names: Vec<_> = PRESETS.iter().map(|p| p.name).collect();
            return Err(format!(
                "unknown preset `{}` (known: {}, complete)",
                inert(item),
                names.join(", ")
            ));
        };
        let Some(r) = RULES.iter().find(|r| r.id == rule) else {
            let ids: Vec<_> = RULES.iter().map(|r| r.id).collect();
            return Err(format!(
                "unknown rule `{}` (known: {})",
                inert(rule),
                ids.join(", ")
            ));
        };
        let Some(v) = r.position(variant) else {
            let names: Vec<_> = r.variants.iter().map(|v| v.name).collect();
            return Err(format!(
                "unknown variant `{}` of rule `{rule}` (known: {})",
                inert(variant),
                names.join(", ")
            ));
        };
        (r.set)(self, v);
        Ok(())
    }

    /// Parse `A:B` (two sides) or `A` (one side).
    pub fn parse_pair(text: &str) -> Result<Vec<RuleSet>, String> {
        check_size(text)?;
        let sides: Vec<&str> = text.split(':').collect();
        if sides.len() > 2 || sides.iter().any(|s| s.trim().is_empty()) {
            return Err(format!("expected A or A:B, got `{}`", inert(text)));
        }
        sides.into_iter().map(RuleSet::parse).collect()
    }
}

/// A rule-set string longer than this is refused (names stay short; errors quote it).
pub const TEXT_BYTES_MAX: usize = 1024;
/// A rule set of more `+`-separated items than this is refused.
pub const ITEMS_MAX: usize = 64;

fn check_size(text: &str) -> Result<(), String> {
    if text.len() > TEXT_BYTES_MAX {
        return Err(format!(
            "a rule set of {} bytes, more than the limit of {TEXT_BYTES_MAX}",
            text.len()
        ));
    }
    Ok(())
}

/// The most `+`-separated items any one name spans (a preset such as `pr756+pr760`, a
/// `rule=variant` such as `completion=4.3+`): no run longer than this can name anything,
/// so parsing is linear in the number of items.
fn run_max() -> usize {
    // Computed once: every item of every name parsed asks for it.
    static RUN_MAX: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *RUN_MAX.get_or_init(|| {
        let presets = all_presets().map(|p| p.name.split('+').count());
        let variants = RULES.iter().flat_map(|r| {
            r.variants
                .iter()
                .map(move |v| format!("{}={}", r.id, v.name).split('+').count())
        });
        presets.chain(variants).chain([1]).max().unwrap_or(1)
    })
}

/// The longest run of items from `items[i]` that names a preset or `complete`: the end of
/// the run and the name.
fn longest_preset_run(items: &[&str], i: usize) -> Option<(usize, String)> {
    (i + 1..=items.len().min(i + run_max()))
        .rev()
        .find_map(|j| {
            let name = items[i..j].join("+");
            (name == "complete" || preset_named(&name).is_some()).then_some((j, name))
        })
}

/// An unambiguous name that parses back to the same rule set: `complete`; else, per
/// family, nothing when the family runs its complete fixes, or the closest preset plus
/// `rule=variant` overrides. When only one family differs from `complete`, the name starts
/// with `complete` (`complete+trunk`, `complete+pr756`), so it never names a preset of the
/// family that is not involved; when both differ, both presets are named
/// (`trunk+inkless-main`).
impl fmt::Display for RuleSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *self == RuleSet::complete() {
            return f.write_str("complete");
        }
        let complete = RuleSet::complete();
        let k = closest_preset(self, Family::Kraft, COMPLETE_KRAFT);
        let i = closest_preset(self, Family::Inkless, COMPLETE_INKLESS);
        let mut parts: Vec<String> = Vec::new();
        let mut base = if k.name == COMPLETE_KRAFT || i.name == COMPLETE_INKLESS {
            parts.push("complete".to_string());
            complete
        } else {
            BASE
        };
        for p in [k, i] {
            if p.name != COMPLETE_KRAFT && p.name != COMPLETE_INKLESS {
                parts.push(p.name.to_string());
                base.take_preset(p);
            }
        }
        for rule in RULES.iter().filter(|r| (r.get)(&base) != (r.get)(self)) {
            parts.push(format!("{}={}", rule.id, rule.variant_of(self).name));
        }
        f.write_str(&parts.join("+"))
    }
}

/// The preset of `family` that leaves the fewest of its rules to override; on a tie the
/// family's complete preset, then the first in `PRESETS` (base presets before their
/// descendants).
fn closest_preset(rules: &RuleSet, family: Family, complete: &str) -> &'static Preset {
    all_presets()
        .filter(|p| p.family == family)
        .min_by_key(|p| (p.rules.differences(rules, family), p.name != complete))
        .expect("every family has presets")
}
