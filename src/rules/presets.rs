//! The named presets: per family, the rules of an upstream branch, release or proposed fix.
//! A preset sets the rules of its family and leaves the other family's alone.

use super::{
    AssignmentElr, Completion, Derivation, Family, Lag, LastKnownLeader, LeaderChange, RuleSet,
    SealAdmission, SealFetch, Shrink, SwitchedReassignment, Truncation, UnfenceExpansion,
};

/// A named rule set. It sets the rules of its family and leaves the other family's alone.
pub struct Preset {
    pub name: &'static str,
    pub family: Family,
    pub summary: &'static str,
    pub rules: RuleSet,
}

/// The base every rule set starts from: apache trunk with Inkless main.
pub(super) const BASE: RuleSet = RuleSet {
    derivation: Derivation::Trunk,
    completion: Completion::V4_3Plus,
    last_known_leader: LastKnownLeader::V4_1Plus,
    assignment_elr: AssignmentElr::Feature,
    truncation: Truncation::FetchDivergence,
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

/// A release before 4.3: a directory assignment builds with ELR off (rule `assignment-elr`).
const fn before_4_3(derivation: Derivation, completion: Completion) -> RuleSet {
    RuleSet {
        assignment_elr: AssignmentElr::Off,
        ..kraft(derivation, completion)
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
        "releases 3.8 to 4.2 (with ELR on, 4.0 elects and records the last known leader otherwise: kafka-4.0)",
        before_4_3(Derivation::Trunk, Completion::V3_8To4_2),
    ),
    kp(
        "3.0-3.7",
        "releases 3.0 to 3.7",
        before_4_3(Derivation::Trunk, Completion::V3_0To3_7),
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
        "#756 with #760 (82c0e1a2e5): at-seal exclusion and at-seal admission; a composition no upstream commit has (#760's head is based on main, without #756)",
        PR756_PR760,
    ),
    ip(
        "inkless-complete",
        "#756 + #760 + #757 staged reassignment + #754",
        INKLESS_COMPLETE,
    ),
];

/// The Apache Kafka releases, one preset each: the KRaft rules of that release as
/// conformance measured them (`isrfuzz conform --kafka X`, docs/conformance.md). Not in
/// `PRESETS`: the default pairs and the engines' preset byte keep their list; a release
/// preset equal to a preset there (4.1 and 4.2 to `3.8-4.2`, 4.3 and 4.4 to `trunk`)
/// prints under the older name.
pub const RELEASE_PRESETS: &[Preset] = &[
    kp(
        "kafka-4.0",
        "Apache Kafka 4.0.x: 3.8-4.2 completion, last known leader before KAFKA-19522",
        RuleSet {
            last_known_leader: LastKnownLeader::V4_0,
            ..before_4_3(Derivation::Trunk, Completion::V3_8To4_2)
        },
    ),
    kp(
        "kafka-4.1",
        "Apache Kafka 4.1.x: 3.8-4.2 completion, KAFKA-19522",
        before_4_3(Derivation::Trunk, Completion::V3_8To4_2),
    ),
    kp(
        "kafka-4.2",
        "Apache Kafka 4.2.x: as 4.1",
        before_4_3(Derivation::Trunk, Completion::V3_8To4_2),
    ),
    kp(
        "kafka-4.3",
        "Apache Kafka 4.3.x: KAFKA-19975 completion (as apache trunk)",
        kraft(Derivation::Trunk, Completion::V4_3Plus),
    ),
    kp(
        "kafka-4.4",
        "Apache Kafka 4.4.0: as 4.3",
        kraft(Derivation::Trunk, Completion::V4_3Plus),
    ),
];

/// Every named preset: `PRESETS`, then the releases.
pub fn all_presets() -> impl Iterator<Item = &'static Preset> {
    PRESETS.iter().chain(RELEASE_PRESETS)
}

/// The most complete fixes this tool knows, one per family; `complete` names both, and it
/// is the default right-hand side of `hunt`.
pub const COMPLETE_KRAFT: &str = "transients-tracked";
pub const COMPLETE_INKLESS: &str = "inkless-complete";

pub(super) fn preset_named(name: &str) -> Option<&'static Preset> {
    all_presets().find(|p| p.name == name)
}
