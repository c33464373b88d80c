//! Rule sets: one variant per rule, picked by name. Every rule lives in its own module
//! with its variants side by side; this module holds the registry (names, summaries,
//! provenance) and the named presets.
//!
//! Syntax of a rule set on the command line: a preset, optionally followed by
//! `+rule=variant` overrides, e.g. `trunk+completion=3.8-4.2`. A pair is `A:B`.

pub mod completion;
pub mod derivation;

pub use completion::Completion;
pub use derivation::Derivation;

use crate::model::{AlterPlan, BrokerId, Partition, Rules};
use std::fmt;

/// One variant per rule.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct RuleSet {
    pub derivation: Derivation,
    pub completion: Completion,
}

/// Registry entry for one variant.
pub struct VariantInfo {
    pub name: &'static str,
    pub summary: &'static str,
    pub provenance: &'static str,
}

/// Registry entry for one rule.
pub struct RuleInfo {
    pub id: &'static str,
    pub summary: &'static str,
    pub variants: &'static [VariantInfo],
}

pub const RULES: &[RuleInfo] = &[
    RuleInfo {
        id: "derivation",
        summary: "how an alter-reassignment call derives adding/removing replicas (spec kafka-reassignment.md §2)",
        variants: &[
            VariantInfo {
                name: "trunk",
                summary: "adding = target − current replicas, removing = current − target; an empty derived set keeps the old one (KAFKA-21419)",
                provenance: "metadata/.../controller/PartitionReassignmentReplicas.java constructor + ReplicationControlManager.changePartitionReassignment, apache trunk d79bd502ec (unchanged since KAFKA-12803, 3.0)",
            },
            VariantInfo {
                name: "kafka-21419",
                summary: "the report's fix: adding = target − (replicas − adding); keep-if-empty guards kept",
                provenance: "KAFKA-21419 report (shared/seeds/002); no upstream commit as of d79bd502ec",
            },
            VariantInfo {
                name: "kafka-21419-always-write",
                summary: "the report's fix plus always writing adding and removing, even when empty",
                provenance: "spec kafka-reassignment.md §2.3 (required companion of the KAFKA-21419 fix)",
            },
            VariantInfo {
                name: "zk-style",
                summary: "design A: drop transients from replicas and ISR at once; adding = target − O, removing = O − target",
                provenance: "spec §2.3 design A, after ZK ControllerContext.ReplicaAssignment.reassignTo + KafkaController.updateCurrentReassignment (apache 1eb7644349)",
            },
            VariantInfo {
                name: "transients-tracked",
                summary: "design B: transients stay in adding and removing; completion uses adding − removing and removing − adding",
                provenance: "spec kafka-reassignment.md §2.3 design B",
            },
        ],
    },
    RuleInfo {
        id: "completion",
        summary: "when completeReassignmentIfNeeded finishes a reassignment (spec §3.1)",
        variants: &[
            VariantInfo {
                name: "3.0-3.7",
                summary: "adding ⊆ ISR − removing",
                provenance: "PartitionReassignmentReplicas.maybeCompleteReassignment at tag 3.7.0 (inline in PartitionChangeBuilder in 3.0–3.4)",
            },
            VariantInfo {
                name: "3.8-4.2",
                summary: "replicas − removing ⊆ ISR − removing",
                provenance: "KAFKA-15665, commit 756f44a3e5 (first in 3.8.0)",
            },
            VariantInfo {
                name: "4.3+",
                summary: "adding ⊆ ISR − removing, plus the RF-reduction guard: if |adding| < |removing| then replicas − removing ⊆ ISR − removing",
                provenance: "KAFKA-19975, commit 3d267d4536 (branch 4.3); apache trunk d79bd502ec",
            },
        ],
    },
];

/// A named rule set.
pub struct Preset {
    pub name: &'static str,
    pub summary: &'static str,
    pub rules: RuleSet,
}

const fn preset(derivation: Derivation, completion: Completion) -> RuleSet {
    RuleSet {
        derivation,
        completion,
    }
}

pub const PRESETS: &[Preset] = &[
    Preset {
        name: "trunk",
        summary: "apache trunk / 4.3+: buggy derivation, KAFKA-19975 completion",
        rules: preset(Derivation::Trunk, Completion::V4_3Plus),
    },
    Preset {
        name: "3.8-4.2",
        summary: "releases 3.8 to 4.2",
        rules: preset(Derivation::Trunk, Completion::V3_8To4_2),
    },
    Preset {
        name: "3.0-3.7",
        summary: "releases 3.0 to 3.7",
        rules: preset(Derivation::Trunk, Completion::V3_0To3_7),
    },
    Preset {
        name: "kafka-21419",
        summary: "trunk with the fix proposed in KAFKA-21419",
        rules: preset(Derivation::Kafka21419, Completion::V4_3Plus),
    },
    Preset {
        name: "kafka-21419-always-write",
        summary: "the proposed fix plus always-write",
        rules: preset(Derivation::Kafka21419AlwaysWrite, Completion::V4_3Plus),
    },
    Preset {
        name: "zk-style",
        summary: "design A: drop transients at once",
        rules: preset(Derivation::ZkStyle, Completion::V4_3Plus),
    },
    Preset {
        name: "transients-tracked",
        summary: "design B: transients in both lists",
        rules: preset(Derivation::TransientsTracked, Completion::V4_3Plus),
    },
];

/// The most complete fix this tool knows; the default right-hand side of `hunt`.
pub const COMPLETE: &str = "transients-tracked";

impl RuleSet {
    pub fn trunk() -> RuleSet {
        PRESETS[0].rules
    }

    pub fn complete() -> RuleSet {
        RuleSet::parse(COMPLETE).expect("the complete preset exists")
    }

    /// `PartitionReassignmentReplicas.maybeCompleteReassignment` under this rule set.
    pub fn maybe_complete(
        &self,
        replicas: &[BrokerId],
        isr: &[BrokerId],
        adding: &[BrokerId],
        removing: &[BrokerId],
    ) -> Option<(Vec<BrokerId>, Vec<BrokerId>)> {
        if adding.is_empty() && removing.is_empty() {
            return None;
        }
        let (eff_adding, eff_removing) = self.derivation.effective_sets(adding, removing);
        self.completion
            .maybe_complete(replicas, isr, &eff_adding, &eff_removing, removing)
    }

    /// `derivation=trunk completion=4.3+`: every rule with its variant.
    pub fn describe(&self) -> String {
        let names: Vec<String> = self
            .variant_names()
            .iter()
            .map(|(r, v)| format!("{r}={v}"))
            .collect();
        names.join(" ")
    }

    fn variant_names(&self) -> [(&'static str, &'static str); 2] {
        let d = Derivation::ALL
            .iter()
            .position(|&v| v == self.derivation)
            .expect("listed");
        let c = Completion::ALL
            .iter()
            .position(|&v| v == self.completion)
            .expect("listed");
        [
            (RULES[0].id, RULES[0].variants[d].name),
            (RULES[1].id, RULES[1].variants[c].name),
        ]
    }

    /// Parse `preset(+rule=variant)*` or `rule=variant(+rule=variant)*` (starting from trunk).
    pub fn parse(text: &str) -> Result<RuleSet, String> {
        let mut items = text.split('+');
        let first = items.next().unwrap_or_default().trim();
        let mut rules = if first.contains('=') {
            let mut rules = RuleSet::trunk();
            rules.set(first)?;
            rules
        } else {
            // `complete` names the most complete fix, whichever preset that is today.
            let name = if first == "complete" { COMPLETE } else { first };
            match PRESETS.iter().find(|p| p.name == name) {
                Some(p) => p.rules,
                None => {
                    let names: Vec<_> = PRESETS.iter().map(|p| p.name).collect();
                    return Err(format!(
                        "unknown preset `{first}` (known: {})",
                        names.join(", ")
                    ));
                }
            }
        };
        for item in items {
            rules.set(item.trim())?;
        }
        Ok(rules)
    }

    fn set(&mut self, item: &str) -> Result<(), String> {
        let Some((rule, variant)) = item.split_once('=') else {
            return Err(format!("expected rule=variant, got `{item}`"));
        };
        let Some(r) = RULES.iter().position(|r| r.id == rule) else {
            let ids: Vec<_> = RULES.iter().map(|r| r.id).collect();
            return Err(format!("unknown rule `{rule}` (known: {})", ids.join(", ")));
        };
        let Some(v) = RULES[r].variants.iter().position(|v| v.name == variant) else {
            let names: Vec<_> = RULES[r].variants.iter().map(|v| v.name).collect();
            return Err(format!(
                "unknown variant `{variant}` of rule `{rule}` (known: {})",
                names.join(", ")
            ));
        };
        match r {
            0 => self.derivation = Derivation::ALL[v],
            _ => self.completion = Completion::ALL[v],
        }
        Ok(())
    }

    /// Parse `A:B` (two sides) or `A` (one side).
    pub fn parse_pair(text: &str) -> Result<Vec<RuleSet>, String> {
        let sides: Vec<&str> = text.split(':').collect();
        if sides.len() > 2 || sides.iter().any(|s| s.trim().is_empty()) {
            return Err(format!("expected A or A:B, got `{text}`"));
        }
        sides.into_iter().map(RuleSet::parse).collect()
    }
}

impl Rules for RuleSet {
    fn plan_reassignment(&self, part: &Partition, target: &[BrokerId]) -> AlterPlan {
        self.derivation.plan(part, target)
    }

    fn maybe_complete(
        &self,
        replicas: &[BrokerId],
        isr: &[BrokerId],
        adding: &[BrokerId],
        removing: &[BrokerId],
    ) -> Option<(Vec<BrokerId>, Vec<BrokerId>)> {
        RuleSet::maybe_complete(self, replicas, isr, adding, removing)
    }
}

/// The preset name when the rule set is one, else `trunk+rule=variant...`.
impl fmt::Display for RuleSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(p) = PRESETS.iter().find(|p| p.rules == *self) {
            return f.write_str(p.name);
        }
        let trunk = RuleSet::trunk().variant_names();
        f.write_str("trunk")?;
        for (i, (rule, variant)) in self.variant_names().into_iter().enumerate() {
            if variant != trunk[i].1 {
                write!(f, "+{rule}={variant}")?;
            }
        }
        Ok(())
    }
}
