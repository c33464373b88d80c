//! Rule sets: one variant per rule, picked by name. Every rule lives in its own module
//! with its variants side by side; this module holds the registry (names, summaries,
//! provenance) and the named presets.
//!
//! Syntax of a rule set on the command line: a preset, optionally followed by
//! `+rule=variant` overrides, e.g. `trunk+completion=3.8-4.2`. A pair is `A:B`.

pub mod completion;
pub mod derivation;
pub mod lag;
pub mod leader_change;
pub mod seal_admission;
pub mod seal_fetch;
pub mod shrink;
pub mod switched_reassignment;
pub mod unfence_expansion;

pub use completion::Completion;
pub use derivation::Derivation;
pub use lag::Lag;
pub use leader_change::LeaderChange;
pub use seal_admission::SealAdmission;
pub use seal_fetch::SealFetch;
pub use shrink::Shrink;
pub use switched_reassignment::SwitchedReassignment;
pub use unfence_expansion::UnfenceExpansion;

use crate::model::{self, AlterPlan, BrokerId, Partition, ReplicaState, Rules};
use std::fmt;

/// One variant per rule: the KRaft controller's two, then Inkless's seven.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct RuleSet {
    pub derivation: Derivation,
    pub completion: Completion,
    pub shrink: Shrink,
    pub lag: Lag,
    pub leader_change: LeaderChange,
    pub seal_fetch: SealFetch,
    pub seal_admission: SealAdmission,
    pub switched_reassignment: SwitchedReassignment,
    pub unfence_expansion: UnfenceExpansion,
}

/// Registry entry for one variant.
pub struct VariantInfo {
    pub name: &'static str,
    pub summary: &'static str,
    pub provenance: &'static str,
}

/// The rule families: a preset sets the rules of its family only.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Family {
    Kraft,
    Inkless,
}

/// Registry entry for one rule.
pub struct RuleInfo {
    pub id: &'static str,
    pub family: Family,
    pub summary: &'static str,
    pub variants: &'static [VariantInfo],
}

const fn v(name: &'static str, summary: &'static str, provenance: &'static str) -> VariantInfo {
    VariantInfo {
        name,
        summary,
        provenance,
    }
}

/// In `RuleSet` field order; each rule's variants in its enum's `ALL` order.
pub const RULES: &[RuleInfo] = &[
    RuleInfo {
        id: "derivation",
        family: Family::Kraft,
        summary: "how an alter-reassignment call derives adding/removing replicas (spec kafka-reassignment.md §2)",
        variants: &[
            v("trunk", "adding = target − current replicas, removing = current − target; an empty derived set keeps the old one (KAFKA-21419)", "metadata/.../controller/PartitionReassignmentReplicas.java constructor + ReplicationControlManager.changePartitionReassignment, apache trunk d79bd502ec (unchanged since KAFKA-12803, 3.0)"),
            v("kafka-21419", "the report's fix: adding = target − (replicas − adding); keep-if-empty guards kept", "KAFKA-21419 report (shared/seeds/002); no upstream commit as of d79bd502ec"),
            v("kafka-21419-always-write", "the report's fix plus always writing adding and removing, even when empty", "spec kafka-reassignment.md §2.3 (required companion of the KAFKA-21419 fix)"),
            v("zk-style", "design A: drop transients from replicas and ISR at once; adding = target − O, removing = O − target", "spec §2.3 design A, after ZK ControllerContext.ReplicaAssignment.reassignTo + KafkaController.updateCurrentReassignment (apache 1eb7644349)"),
            v("transients-tracked", "design B: transients stay in adding and removing; completion uses adding − removing and removing − adding", "spec kafka-reassignment.md §2.3 design B"),
            v("previous-target", "WRONG on purpose: adding = target − (replicas − removing), the previous target instead of O; always written", "planted bug for G3 (no upstream source); tests/witnesses.rs"),
        ],
    },
    RuleInfo {
        id: "completion",
        family: Family::Kraft,
        summary: "when completeReassignmentIfNeeded finishes a reassignment (spec §3.1)",
        variants: &[
            v("3.0-3.7", "adding ⊆ ISR − removing", "PartitionReassignmentReplicas.maybeCompleteReassignment at tag 3.7.0 (inline in PartitionChangeBuilder in 3.0–3.4)"),
            v("3.8-4.2", "replicas − removing ⊆ ISR − removing", "KAFKA-15665, commit 756f44a3e5 (first in 3.8.0)"),
            v("4.3+", "adding ⊆ ISR − removing, plus the RF-reduction guard: if |adding| < |removing| then replicas − removing ⊆ ISR − removing", "KAFKA-19975, commit 3d267d4536 (branch 4.3); apache trunk d79bd502ec"),
            v("keep-isr", "WRONG on purpose: the 4.3+ test, but the record keeps removed replicas in the ISR", "planted bug for G9 (no upstream source); tests/witnesses.rs"),
        ],
    },
    RuleInfo {
        id: "shrink",
        family: Family::Inkless,
        summary: "which partitions the isr-expiration task evaluates, and the cap it uses (spec inkless-isr.md §2(a))",
        variants: &[
            v("inkless-main", "skip every diskless topic", "aiven/inkless ReplicaManager.maybeShrinkIsr at main b1fcb5f6f7 (and #756 base a5128f5095)"),
            v("pr756", "skip only diskless topics with seal -1; cap = committed seal", "aiven/inkless #756 commit 150ec6ed61, ReplicaManager.maybeShrinkIsr"),
            v("all-diskless", "WRONG on purpose: no diskless skip at all, born-diskless and aborted partitions shrunk too", "planted bug for INV-7 (no upstream source); tests/witnesses.rs"),
        ],
    },
    RuleInfo {
        id: "lag",
        family: Family::Inkless,
        summary: "when a follower in the ISR is out of sync (spec §2(b))",
        variants: &[
            v("uncapped", "not (rec.leo = LEO_L or now − lcu ≤ lag)", "Partition.isFollowerOutOfSync at a5128f5095; ReplicaState.isCaughtUp"),
            v("leader-cap", "compare rec.leo with min(LEO_L, seal)", "aiven/inkless #756 commit 150ec6ed61, Partition.getOutOfSyncReplicas(leaderEndOffsetCap)"),
            v("both-caps", "leader cap, and rec.leo ≥ seal is always in sync", "aiven/inkless #756 commit 5f22fac12b, Partition.isFollowerOutOfSync"),
        ],
    },
    RuleInfo {
        id: "leader-change",
        family: Family::Inkless,
        summary: "what a follower of a switched partition does on a metadata delta (spec §2(c))",
        variants: &[
            v("none", "no catch-up fetch, no diversion", "ReplicaManager.applyLocalFollowersDelta at a5128f5095"),
            v("catch-up-fetch", "a non-consolidating follower fetches once when the leader moved", "aiven/inkless #756 commit 150ec6ed61 (leaderChanged)"),
            v("diversion", "also divert consolidating followers to the classic fetcher, evicting consolidation", "aiven/inkless #756 commit 5f22fac12b (consolidationLeaderEvidenceFetch)"),
            v("epoch-bump", "WRONG on purpose: keyed on a new leader epoch instead of a leader move", "argued against in #756 (spec CE-c4)"),
            v("diversion-no-evict", "WRONG on purpose: divert without evicting the consolidation fetcher", "argued against in #756 commit 5f22fac12b (spec CE-c3)"),
        ],
    },
    RuleInfo {
        id: "seal-fetch",
        family: Family::Inkless,
        summary: "whether a follower fetch at or above the seal on a consolidating leader reads the local log (spec §2(d))",
        variants: &[
            v("local-log", "any fetch below the leader's LEO reads the local log", "ReplicaManager.fetchMessages at main and 5f22fac12b"),
            v("at-seal-exclusion", "a follower at or above a committed seal gets the at-seal answer", "aiven/inkless #760 commit 13ae69df5c"),
        ],
    },
    RuleInfo {
        id: "seal-admission",
        family: Family::Inkless,
        summary: "how a switched follower at the seal re-enters the ISR and leaves the classic fetcher (spec §2(d), §2(f))",
        variants: &[
            v("generic", "Partition.maybeExpandIsr only; consolidating followers evict at the seal regardless of ISR", "Partition.maybeExpandIsr / ReplicaFetcherThread.processPartitionData at 5f22fac12b"),
            v("pr760", "maybeExpandIsrAtSeal (rec.leo ≥ seal, leader holds the prefix); ISR-gated routing and eviction", "aiven/inkless #760 82c0e1a2e5 (e74ed8ba0d, 79cd459a1d, 7c1ded7742)"),
        ],
    },
    RuleInfo {
        id: "switched-reassignment",
        family: Family::Inkless,
        summary: "whether reassigning a diskless topic sets replicas and ISR at once (spec §2(e))",
        variants: &[
            v("one-step", "every diskless topic goes one step", "ReplicationControlManager.changePartitionReassignment before #757"),
            v("staged", "only born-diskless (seal -1) goes one step", "aiven/inkless #757 9082a19e2f (isBornDiskless)"),
        ],
    },
    RuleInfo {
        id: "unfence-expansion",
        family: Family::Inkless,
        summary: "whether unfencing adds the broker to diskless ISRs (spec §2(f))",
        variants: &[
            v("pre-754", "every diskless partition listing the broker", "ReplicationControlManager.expandIsrForDisklessManagedPartitions before #754"),
            v("pr754", "only diskless partitions with seal -1", "aiven/inkless #754, merged as 43b016f6ec"),
        ],
    },
];

/// A named rule set. It sets the rules of its family and leaves the other family's alone.
pub struct Preset {
    pub name: &'static str,
    pub family: Family,
    pub summary: &'static str,
    pub rules: RuleSet,
}

/// The base every rule set starts from: apache trunk with Inkless main.
const BASE: RuleSet = RuleSet {
    derivation: Derivation::Trunk,
    completion: Completion::V4_3Plus,
    shrink: Shrink::InklessMain,
    lag: Lag::Uncapped,
    leader_change: LeaderChange::None,
    seal_fetch: SealFetch::LocalLog,
    seal_admission: SealAdmission::Generic,
    switched_reassignment: SwitchedReassignment::OneStep,
    unfence_expansion: UnfenceExpansion::Pr754,
};

const fn kraft(derivation: Derivation, completion: Completion) -> RuleSet {
    RuleSet {
        derivation,
        completion,
        ..BASE
    }
}

const fn kp(name: &'static str, summary: &'static str, rules: RuleSet) -> Preset {
    Preset {
        name,
        family: Family::Kraft,
        summary,
        rules,
    }
}

const fn ip(name: &'static str, summary: &'static str, rules: RuleSet) -> Preset {
    Preset {
        name,
        family: Family::Inkless,
        summary,
        rules,
    }
}

const PR756_COMMIT1: RuleSet = RuleSet {
    shrink: Shrink::Pr756,
    lag: Lag::LeaderCap,
    leader_change: LeaderChange::CatchUpFetch,
    ..BASE
};
const PR756: RuleSet = RuleSet {
    lag: Lag::BothCaps,
    leader_change: LeaderChange::Diversion,
    ..PR756_COMMIT1
};
const PR756_PR760: RuleSet = RuleSet {
    seal_fetch: SealFetch::AtSealExclusion,
    seal_admission: SealAdmission::Pr760,
    ..PR756
};
const INKLESS_COMPLETE: RuleSet = RuleSet {
    switched_reassignment: SwitchedReassignment::Staged,
    ..PR756_PR760
};

/// Inkless presets apply each PR's rule changes on top of main (b1fcb5f6f7, which has
/// #754). The #756 branch's own base lacks #754: add `+unfence-expansion=pre-754` to
/// reproduce that branch exactly.
pub const PRESETS: &[Preset] = &[
    kp(
        "trunk",
        "apache trunk / 4.3+: buggy derivation, KAFKA-19975 completion",
        kraft(Derivation::Trunk, Completion::V4_3Plus),
    ),
    kp(
        "3.8-4.2",
        "releases 3.8 to 4.2",
        kraft(Derivation::Trunk, Completion::V3_8To4_2),
    ),
    kp(
        "3.0-3.7",
        "releases 3.0 to 3.7",
        kraft(Derivation::Trunk, Completion::V3_0To3_7),
    ),
    kp(
        "kafka-21419",
        "trunk with the fix proposed in KAFKA-21419",
        kraft(Derivation::Kafka21419, Completion::V4_3Plus),
    ),
    kp(
        "kafka-21419-always-write",
        "the proposed fix plus always-write",
        kraft(Derivation::Kafka21419AlwaysWrite, Completion::V4_3Plus),
    ),
    kp(
        "zk-style",
        "design A: drop transients at once",
        kraft(Derivation::ZkStyle, Completion::V4_3Plus),
    ),
    kp(
        "transients-tracked",
        "design B: transients in both lists",
        kraft(Derivation::TransientsTracked, Completion::V4_3Plus),
    ),
    ip(
        "inkless-main",
        "aiven/inkless main b1fcb5f6f7: diskless topics never shrunk",
        BASE,
    ),
    ip(
        "pr756-commit1",
        "#756 commit 150ec6ed61: shrink switched partitions, leader cap, catch-up fetch",
        PR756_COMMIT1,
    ),
    ip(
        "pr756",
        "#756 head 5f22fac12b: both caps, diversion of consolidating followers",
        PR756,
    ),
    ip(
        "pr756+pr760",
        "#756 with #760 (82c0e1a2e5): at-seal exclusion and at-seal admission",
        PR756_PR760,
    ),
    ip(
        "inkless-complete",
        "#756 + #760 + #757 staged reassignment + #754",
        INKLESS_COMPLETE,
    ),
];

/// The most complete fixes this tool knows, one per family; `complete` names both, and it
/// is the default right-hand side of `hunt`.
pub const COMPLETE_KRAFT: &str = "transients-tracked";
pub const COMPLETE_INKLESS: &str = "inkless-complete";

fn preset_named(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.name == name)
}

impl RuleSet {
    pub fn trunk() -> RuleSet {
        BASE
    }

    pub fn complete() -> RuleSet {
        RuleSet::parse("complete").expect("the complete presets exist")
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

    fn variant(&self, rule: usize) -> usize {
        fn at<T: PartialEq>(all: &[T], x: &T) -> usize {
            all.iter()
                .position(|v| v == x)
                .expect("every variant is listed")
        }
        match rule {
            0 => at(&Derivation::ALL, &self.derivation),
            1 => at(&Completion::ALL, &self.completion),
            2 => at(&Shrink::ALL, &self.shrink),
            3 => at(&Lag::ALL, &self.lag),
            4 => at(&LeaderChange::ALL, &self.leader_change),
            5 => at(&SealFetch::ALL, &self.seal_fetch),
            6 => at(&SealAdmission::ALL, &self.seal_admission),
            7 => at(&SwitchedReassignment::ALL, &self.switched_reassignment),
            _ => at(&UnfenceExpansion::ALL, &self.unfence_expansion),
        }
    }

    fn set_variant(&mut self, rule: usize, v: usize) {
        match rule {
            0 => self.derivation = Derivation::ALL[v],
            1 => self.completion = Completion::ALL[v],
            2 => self.shrink = Shrink::ALL[v],
            3 => self.lag = Lag::ALL[v],
            4 => self.leader_change = LeaderChange::ALL[v],
            5 => self.seal_fetch = SealFetch::ALL[v],
            6 => self.seal_admission = SealAdmission::ALL[v],
            7 => self.switched_reassignment = SwitchedReassignment::ALL[v],
            _ => self.unfence_expansion = UnfenceExpansion::ALL[v],
        }
    }

    /// Take the rules of `family` from `other`.
    fn take_family(&mut self, other: &RuleSet, family: Family) {
        for (i, rule) in RULES.iter().enumerate() {
            if rule.family == family {
                self.set_variant(i, other.variant(i));
            }
        }
    }

    /// How many rules of `family` differ between the two.
    fn differences(&self, other: &RuleSet, family: Family) -> usize {
        RULES
            .iter()
            .enumerate()
            .filter(|(i, r)| r.family == family && self.variant(*i) != other.variant(*i))
            .count()
    }

    /// `derivation=trunk completion=4.3+ ...`: every rule with its variant.
    pub fn describe(&self) -> String {
        let names: Vec<String> = RULES
            .iter()
            .enumerate()
            .map(|(i, r)| format!("{}={}", r.id, r.variants[self.variant(i)].name))
            .collect();
        names.join(" ")
    }

    /// Parse `item(+item)*`, where an item is a preset (which sets its family's rules),
    /// `complete`, or `rule=variant`. Preset names may themselves contain `+`
    /// (`pr756+pr760`): the longest matching run of items wins. Starts from trunk +
    /// inkless-main.
    pub fn parse(text: &str) -> Result<RuleSet, String> {
        let items: Vec<&str> = text.split('+').map(str::trim).collect();
        let mut rules = BASE;
        let mut i = 0;
        while i < items.len() {
            let matched = (i + 1..=items.len()).rev().find_map(|j| {
                let name = items[i..j].join("+");
                (name == "complete" || preset_named(&name).is_some()).then_some((j, name))
            });
            match matched {
                Some((j, name)) if name == "complete" => {
                    for part in [COMPLETE_KRAFT, COMPLETE_INKLESS] {
                        let p = preset_named(part).expect("complete presets exist");
                        rules.take_family(&p.rules, p.family);
                    }
                    i = j;
                }
                Some((j, name)) => {
                    let p = preset_named(&name).expect("matched");
                    rules.take_family(&p.rules, p.family);
                    i = j;
                }
                None => {
                    // Variant names may contain `+` too (`completion=4.3+`): the longest
                    // run of items that names a variant wins.
                    let j = (i + 1..=items.len())
                        .rev()
                        .find(|&j| {
                            let mut probe = rules;
                            probe.set(&items[i..j].join("+")).is_ok()
                        })
                        .unwrap_or(i + 1);
                    rules.set(&items[i..j].join("+"))?;
                    i = j;
                }
            }
        }
        Ok(rules)
    }

    fn set(&mut self, item: &str) -> Result<(), String> {
        let Some((rule, variant)) = item.split_once('=') else {
            let names: Vec<_> = PRESETS.iter().map(|p| p.name).collect();
            return Err(format!(
                "unknown preset `{item}` (known: {}, complete)",
                names.join(", ")
            ));
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
        self.set_variant(r, v);
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

    fn isr_shrink_cap(&self, part: &Partition) -> Option<i64> {
        self.shrink.cap(part)
    }

    fn out_of_sync(
        &self,
        rec: &ReplicaState,
        leader_leo: i64,
        cap: i64,
        now_ms: i64,
        lag_max_ms: i64,
    ) -> bool {
        self.lag
            .out_of_sync(rec, leader_leo, cap, now_ms, lag_max_ms)
    }

    fn leader_change(&self) -> model::LeaderChange {
        self.leader_change.knobs()
    }

    fn follower_reads_local_log(
        &self,
        consolidating: bool,
        seal: i64,
        fetch_offset: i64,
        leader_leo: i64,
    ) -> bool {
        self.seal_fetch
            .reads_local_log(consolidating, seal, fetch_offset, leader_leo)
    }

    fn seal_admission(&self) -> model::SealAdmission {
        self.seal_admission.knobs()
    }

    fn one_step_reassignment(&self, part: &Partition) -> bool {
        self.switched_reassignment.one_step(part)
    }

    fn unfence_adds_to_isr(&self, part: &Partition) -> bool {
        self.unfence_expansion.adds_to_isr(part)
    }
}

/// A short name: `complete`, or per family the closest preset (the KRaft one omitted when
/// it is `trunk`, the Inkless one when it is `inkless-main`), plus `+rule=variant`
/// overrides for what still differs.
impl fmt::Display for RuleSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *self == RuleSet::complete() {
            return f.write_str("complete");
        }
        // Per family, the preset that leaves the fewest rules to override (the first
        // one on a tie, so the base presets win over their descendants).
        let pick = |family| {
            PRESETS
                .iter()
                .filter(|p| p.family == family)
                .min_by_key(|p| p.rules.differences(self, family))
        };
        let (k, i) = (
            pick(Family::Kraft).expect("trunk"),
            pick(Family::Inkless).expect("inkless-main"),
        );
        let mut base = BASE;
        base.take_family(&k.rules, Family::Kraft);
        base.take_family(&i.rules, Family::Inkless);
        let mut parts: Vec<String> = Vec::new();
        if k.name != "trunk" || i.name == "inkless-main" {
            parts.push(k.name.to_string());
        }
        if i.name != "inkless-main" {
            parts.push(i.name.to_string());
        }
        for (r, rule) in RULES.iter().enumerate() {
            if base.variant(r) != self.variant(r) {
                parts.push(format!(
                    "{}={}",
                    rule.id,
                    rule.variants[self.variant(r)].name
                ));
            }
        }
        f.write_str(&parts.join("+"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variant_names_with_a_plus_parse() {
        let r = RuleSet::parse("3.0-3.7+completion=4.3+").unwrap();
        assert_eq!(r.completion, Completion::V4_3Plus);
        let r = RuleSet::parse("trunk+completion=4.3++shrink=pr756").unwrap();
        assert_eq!(
            (r.completion, r.shrink),
            (Completion::V4_3Plus, Shrink::Pr756)
        );
        let r = RuleSet::parse("complete+completion=3.8-4.2").unwrap();
        assert_eq!(r.completion, Completion::V3_8To4_2);
        // The negative space: a dangling `+` after a variant without one is an error.
        assert!(RuleSet::parse("completion=3.8-4.2+").is_err());
        assert!(RuleSet::parse("completion=4.3").is_err());
    }

    /// Names are the shortest spelling and parse back to the same rule set, for every
    /// preset with every single rule swapped to every variant.
    #[test]
    fn display_names_are_short_and_round_trip() {
        for (text, name) in [
            ("trunk", "trunk"),
            ("3.8-4.2", "3.8-4.2"),
            ("pr756", "pr756"),
            ("transients-tracked+inkless-complete", "complete"),
            (
                "pr756+leader-change=epoch-bump",
                "pr756+leader-change=epoch-bump",
            ),
            ("trunk+completion=3.8-4.2", "3.8-4.2"),
            ("zk-style+pr756", "zk-style+pr756"),
        ] {
            assert_eq!(RuleSet::parse(text).unwrap().to_string(), name, "{text}");
        }
        for p in PRESETS {
            for (r, rule) in RULES.iter().enumerate() {
                for v in 0..rule.variants.len() {
                    let mut rs = p.rules;
                    rs.set_variant(r, v);
                    assert_eq!(RuleSet::parse(&rs.to_string()).unwrap(), rs, "{rs}");
                }
            }
        }
    }

    #[test]
    fn describe_lists_every_rule_with_its_variant() {
        expect_test::expect![[r#"derivation=transients-tracked completion=4.3+ shrink=pr756 lag=both-caps leader-change=diversion seal-fetch=at-seal-exclusion seal-admission=pr760 switched-reassignment=staged unfence-expansion=pr754"#]]
            .assert_eq(&RuleSet::complete().describe());
    }
}
