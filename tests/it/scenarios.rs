//! Scenario tests: the histories of docs/model/reassignment.md#histories and #worked-derivations and the
//! upstream tests it lists (§6), each run under every preset. The expected text is the
//! final state and verdict per preset; a variant swapped for a sibling changes it.

use crate::common;

use common::{outcome, ALL};
use expect_test::{expect, Expect};

/// `history` under every preset.
fn check(history: &str, expect: Expect) {
    check_rule_sets(history, ALL, expect);
}

/// `history` under the given rule sets: a variant that no preset uses yet is told from its
/// siblings as `complete+RULE=VARIANT` beside `complete+RULE=SIBLING` for each sibling.
fn check_rule_sets(history: &str, rule_sets: &[&str], expect: Expect) {
    expect.assert_eq(&outcome(history, rule_sets));
}

#[test]
fn kafka_21419_repro() {
    check(
        "create 1,2,3; reassign 1,2,4; reassign 1,2,4,5; isr 1,2,3,5",
        expect![[r#"
            trunk: p0 replicas=[1,2,4,5] isr=[1,2,5] adding=[] removing=[] leader=1 le=1 pe=3 | violates G2@2 G5@3
            3.8-4.2: p0 replicas=[1,2,4,5,3] isr=[1,2,3,5] adding=[5] removing=[3] leader=1 le=0 pe=3 | violates G2@2
            3.0-3.7: p0 replicas=[1,2,4,5] isr=[1,2,5] adding=[] removing=[] leader=1 le=1 pe=3 | violates G2@2 G5@3
            kafka-21419: p0 replicas=[1,2,4,5,3] isr=[1,2,3,5] adding=[4,5] removing=[3] leader=1 le=0 pe=3 | holds
            kafka-21419-always-write: p0 replicas=[1,2,4,5,3] isr=[1,2,3,5] adding=[4,5] removing=[3] leader=1 le=0 pe=3 | holds
            zk-style: p0 replicas=[1,2,4,5,3] isr=[1,2,3,5] adding=[4,5] removing=[3] leader=1 le=0 pe=3 | holds
            transients-tracked: p0 replicas=[1,2,4,5,3] isr=[1,2,3,5] adding=[4,5] removing=[3] leader=1 le=0 pe=3 | holds
        "#]],
    );
}

/// History 2: cancel after the override keeps the promoted replica 4 (G6, all versions).
#[test]
fn history_2_cancel_after_override() {
    check(
        "create 1,2,3; reassign 1,2,4; reassign 1,2,4,5; cancel",
        expect![[r#"
            trunk: p0 replicas=[1,2,4,3] isr=[1,2,3] adding=[] removing=[] leader=1 le=1 pe=3 | violates G2@2 G6@3
            3.8-4.2: p0 replicas=[1,2,4,3] isr=[1,2,3] adding=[] removing=[] leader=1 le=1 pe=3 | violates G2@2 G6@3
            3.0-3.7: p0 replicas=[1,2,4,3] isr=[1,2,3] adding=[] removing=[] leader=1 le=1 pe=3 | violates G2@2 G6@3
            kafka-21419: p0 replicas=[1,2,3] isr=[1,2,3] adding=[] removing=[] leader=1 le=1 pe=3 | holds
            kafka-21419-always-write: p0 replicas=[1,2,3] isr=[1,2,3] adding=[] removing=[] leader=1 le=1 pe=3 | holds
            zk-style: p0 replicas=[1,2,3] isr=[1,2,3] adding=[] removing=[] leader=1 le=1 pe=3 | holds
            transients-tracked: p0 replicas=[1,2,3] isr=[1,2,3] adding=[] removing=[] leader=1 le=1 pe=3 | holds
        "#]],
    );
}

/// History 3: override back to the original is stuck on trunk and ≤3.7 (S1, G7, E1).
#[test]
fn history_3_override_back_to_original() {
    check(
        "create 1,2,3; reassign 1,2,4; reassign 1,2,3; isr 1,2,3",
        expect![[r#"
            trunk: p0 replicas=[1,2,3,4] isr=[1,2,3] adding=[4] removing=[4] leader=1 le=0 pe=2 | violates S1@2 G7@2 E1@4
            3.8-4.2: p0 replicas=[1,2,3] isr=[1,2,3] adding=[] removing=[] leader=1 le=1 pe=2 | holds
            3.0-3.7: p0 replicas=[1,2,3,4] isr=[1,2,3] adding=[4] removing=[4] leader=1 le=0 pe=2 | violates S1@2 G7@2 E1@4
            kafka-21419: p0 replicas=[1,2,3,4] isr=[1,2,3] adding=[4] removing=[4] leader=1 le=0 pe=2 | violates S1@2 G7@2 E1@4
            kafka-21419-always-write: p0 replicas=[1,2,3] isr=[1,2,3] adding=[] removing=[] leader=1 le=1 pe=2 | holds
            zk-style: p0 replicas=[1,2,3] isr=[1,2,3] adding=[] removing=[] leader=1 le=1 pe=2 | holds
            transients-tracked: p0 replicas=[1,2,3] isr=[1,2,3] adding=[] removing=[] leader=1 le=1 pe=2 | holds
        "#]],
    );
}

/// History 3, the ways out: a cancel clears the stuck state.
#[test]
fn history_3_cancel_clears_it() {
    check(
        "create 1,2,3; reassign 1,2,4; reassign 1,2,3; cancel",
        expect![[r#"
            trunk: p0 replicas=[1,2,3] isr=[1,2,3] adding=[] removing=[] leader=1 le=1 pe=3 | violates S1@2 G7@2
            3.8-4.2: p0 replicas=[1,2,3] isr=[1,2,3] adding=[] removing=[] leader=1 le=1 pe=2 step3=NO_REASSIGNMENT_IN_PROGRESS | holds
            3.0-3.7: p0 replicas=[1,2,3] isr=[1,2,3] adding=[] removing=[] leader=1 le=1 pe=3 | violates S1@2 G7@2
            kafka-21419: p0 replicas=[1,2,3] isr=[1,2,3] adding=[] removing=[] leader=1 le=1 pe=3 | violates S1@2 G7@2
            kafka-21419-always-write: p0 replicas=[1,2,3] isr=[1,2,3] adding=[] removing=[] leader=1 le=1 pe=2 step3=NO_REASSIGNMENT_IN_PROGRESS | holds
            zk-style: p0 replicas=[1,2,3] isr=[1,2,3] adding=[] removing=[] leader=1 le=1 pe=2 step3=NO_REASSIGNMENT_IN_PROGRESS | holds
            transients-tracked: p0 replicas=[1,2,3] isr=[1,2,3] adding=[] removing=[] leader=1 le=1 pe=2 step3=NO_REASSIGNMENT_IN_PROGRESS | holds
        "#]],
    );
}

/// History 3: resubmitting [1,2,3,4] is a no-op on trunk (no record, pe unchanged).
#[test]
fn history_3_resubmit_is_a_no_op() {
    check(
        "create 1,2,3; reassign 1,2,4; reassign 1,2,3; reassign 1,2,3,4",
        expect![[r#"
            trunk: p0 replicas=[1,2,3,4] isr=[1,2,3] adding=[4] removing=[4] leader=1 le=0 pe=2 | violates S1@2 G7@2 G1@3 E1@4
            3.8-4.2: p0 replicas=[1,2,3,4] isr=[1,2,3] adding=[4] removing=[] leader=1 le=1 pe=3 | holds
            3.0-3.7: p0 replicas=[1,2,3,4] isr=[1,2,3] adding=[4] removing=[4] leader=1 le=0 pe=2 | violates S1@2 G7@2 G1@3 E1@4
            kafka-21419: p0 replicas=[1,2,3,4] isr=[1,2,3] adding=[4] removing=[4] leader=1 le=0 pe=2 | violates S1@2 G7@2 G1@3 E1@4
            kafka-21419-always-write: p0 replicas=[1,2,3,4] isr=[1,2,3] adding=[4] removing=[] leader=1 le=1 pe=3 | holds
            zk-style: p0 replicas=[1,2,3,4] isr=[1,2,3] adding=[4] removing=[] leader=1 le=1 pe=3 | holds
            transients-tracked: p0 replicas=[1,2,3,4] isr=[1,2,3] adding=[4] removing=[] leader=1 le=1 pe=3 | holds
        "#]],
    );
}

/// History 4: RF-up override keeps removing [3]; completion drops 3 (G1, G4).
#[test]
fn history_4_rf_up_override() {
    check(
        "create 1,2,3; reassign 1,2,4; reassign 1,2,3,4; isr 1,2,3,4",
        expect![[r#"
            trunk: p0 replicas=[1,2,4] isr=[1,2,4] adding=[] removing=[] leader=1 le=1 pe=3 | violates G1@2 G4@3
            3.8-4.2: p0 replicas=[1,2,4] isr=[1,2,4] adding=[] removing=[] leader=1 le=1 pe=3 | violates G1@2 G4@3
            3.0-3.7: p0 replicas=[1,2,4] isr=[1,2,4] adding=[] removing=[] leader=1 le=1 pe=3 | violates G1@2 G4@3
            kafka-21419: p0 replicas=[1,2,4] isr=[1,2,4] adding=[] removing=[] leader=1 le=1 pe=3 | violates G1@2 G4@3
            kafka-21419-always-write: p0 replicas=[1,2,3,4] isr=[1,2,3,4] adding=[] removing=[] leader=1 le=0 pe=3 | holds
            zk-style: p0 replicas=[1,2,3,4] isr=[1,2,3,4] adding=[] removing=[] leader=1 le=0 pe=3 | holds
            transients-tracked: p0 replicas=[1,2,3,4] isr=[1,2,3,4] adding=[] removing=[] leader=1 le=0 pe=3 | holds
        "#]],
    );
}

/// History 5: drop-then-re-add defeats the proposed fix (G2, G5).
#[test]
fn history_5_drop_then_readd() {
    check(
        "create 1,2,3; reassign 1,2,4; reassign 1,2,5; reassign 1,2,4,5; isr 1,2,3,5",
        expect![[r#"
            trunk: p0 replicas=[1,2,4,5] isr=[1,2,5] adding=[] removing=[] leader=1 le=1 pe=4 | violates G2@3 G5@4
            3.8-4.2: p0 replicas=[1,2,4,5,3] isr=[1,2,3,5] adding=[5] removing=[3] leader=1 le=0 pe=4 | violates G2@3
            3.0-3.7: p0 replicas=[1,2,4,5] isr=[1,2,5] adding=[] removing=[] leader=1 le=1 pe=4 | violates G2@3 G5@4
            kafka-21419: p0 replicas=[1,2,4,5] isr=[1,2,5] adding=[] removing=[] leader=1 le=1 pe=4 | violates G2@3 G5@4
            kafka-21419-always-write: p0 replicas=[1,2,4,5] isr=[1,2,5] adding=[] removing=[] leader=1 le=1 pe=4 | violates G2@3 G5@4
            zk-style: p0 replicas=[1,2,4,5,3] isr=[1,2,3,5] adding=[4,5] removing=[3] leader=1 le=1 pe=4 | holds
            transients-tracked: p0 replicas=[1,2,4,5,3] isr=[1,2,3,5] adding=[4,5] removing=[3] leader=1 le=0 pe=4 | holds
        "#]],
    );
}

/// History 5, alternative ending: cancel after [1,2,5] restores [1,2,3,4] (G6).
#[test]
fn history_5_cancel_after_drop() {
    check(
        "create 1,2,3; reassign 1,2,4; reassign 1,2,5; cancel",
        expect![[r#"
            trunk: p0 replicas=[1,2,3,4] isr=[1,2,3] adding=[] removing=[] leader=1 le=1 pe=3 | violates G6@3
            3.8-4.2: p0 replicas=[1,2,3,4] isr=[1,2,3] adding=[] removing=[] leader=1 le=1 pe=3 | violates G6@3
            3.0-3.7: p0 replicas=[1,2,3,4] isr=[1,2,3] adding=[] removing=[] leader=1 le=1 pe=3 | violates G6@3
            kafka-21419: p0 replicas=[1,2,3,4] isr=[1,2,3] adding=[] removing=[] leader=1 le=1 pe=3 | violates G6@3
            kafka-21419-always-write: p0 replicas=[1,2,3,4] isr=[1,2,3] adding=[] removing=[] leader=1 le=1 pe=3 | violates G6@3
            zk-style: p0 replicas=[1,2,3] isr=[1,2,3] adding=[] removing=[] leader=1 le=2 pe=3 | holds
            transients-tracked: p0 replicas=[1,2,3] isr=[1,2,3] adding=[] removing=[] leader=1 le=1 pe=3 | holds
        "#]],
    );
}

/// Review finding: the literal G5 fails on 3.8–4.2 through G4 (docs/model/reassignment.md#g5).
#[test]
fn g5_on_3_8_via_keep_old_removing() {
    check(
        "create 1,2,3; reassign 1,2,4; reassign 1,2,5; reassign 1,2,3,4,5; isr 1,2,5",
        expect![[r#"
            trunk: p0 replicas=[1,2,5] isr=[1,2,5] adding=[] removing=[] leader=1 le=1 pe=4 | violates G1@3 G4@4 G5@4
            3.8-4.2: p0 replicas=[1,2,5] isr=[1,2,5] adding=[] removing=[] leader=1 le=1 pe=4 | violates G1@3 G4@4 G5@4
            3.0-3.7: p0 replicas=[1,2,5] isr=[1,2,5] adding=[] removing=[] leader=1 le=1 pe=4 | violates G1@3 G4@4 G5@4
            kafka-21419: p0 replicas=[1,2,5] isr=[1,2,5] adding=[] removing=[] leader=1 le=1 pe=4 | violates G1@3 G4@4 G5@4
            kafka-21419-always-write: p0 replicas=[1,2,3,4,5] isr=[1,2,5] adding=[] removing=[] leader=1 le=0 pe=4 | violates G2@3 G5@4
            zk-style: p0 replicas=[1,2,3,4,5] isr=[1,2,5] adding=[4,5] removing=[] leader=1 le=1 pe=4 | holds
            transients-tracked: p0 replicas=[1,2,3,4,5] isr=[1,2,5] adding=[4,5] removing=[] leader=1 le=0 pe=4 | holds
        "#]],
    );
}

/// §2.4 last row: an RF-down override [1,2,4] → [1,4] (all variants agree on the sets).
#[test]
fn derivation_rf_down_override() {
    check(
        "create 1,2,3; reassign 1,2,4; reassign 1,4",
        expect![[r#"
        trunk: p0 replicas=[1,4,2,3] isr=[1,2,3] adding=[4] removing=[2,3] leader=1 le=0 pe=2 | holds
        3.8-4.2: p0 replicas=[1,4,2,3] isr=[1,2,3] adding=[4] removing=[2,3] leader=1 le=0 pe=2 | holds
        3.0-3.7: p0 replicas=[1,4,2,3] isr=[1,2,3] adding=[4] removing=[2,3] leader=1 le=0 pe=2 | holds
        kafka-21419: p0 replicas=[1,4,2,3] isr=[1,2,3] adding=[4] removing=[2,3] leader=1 le=0 pe=2 | holds
        kafka-21419-always-write: p0 replicas=[1,4,2,3] isr=[1,2,3] adding=[4] removing=[2,3] leader=1 le=0 pe=2 | holds
        zk-style: p0 replicas=[1,4,2,3] isr=[1,2,3] adding=[4] removing=[2,3] leader=1 le=0 pe=2 | holds
        transients-tracked: p0 replicas=[1,4,2,3] isr=[1,2,3] adding=[4] removing=[2,3] leader=1 le=0 pe=2 | holds
    "#]],
    );
}

/// §5: a pure reorder completes in the same record, with no leader-epoch bump.
#[test]
fn reorder_only_completes_at_once() {
    check(
        "create 1,2,3; reassign 3,2,1",
        expect![[r#"
        trunk: p0 replicas=[3,2,1] isr=[1,2,3] adding=[] removing=[] leader=1 le=0 pe=1 | holds
        3.8-4.2: p0 replicas=[3,2,1] isr=[1,2,3] adding=[] removing=[] leader=1 le=0 pe=1 | holds
        3.0-3.7: p0 replicas=[3,2,1] isr=[1,2,3] adding=[] removing=[] leader=1 le=0 pe=1 | holds
        kafka-21419: p0 replicas=[3,2,1] isr=[1,2,3] adding=[] removing=[] leader=1 le=0 pe=1 | holds
        kafka-21419-always-write: p0 replicas=[3,2,1] isr=[1,2,3] adding=[] removing=[] leader=1 le=0 pe=1 | holds
        zk-style: p0 replicas=[3,2,1] isr=[1,2,3] adding=[] removing=[] leader=1 le=0 pe=1 | holds
        transients-tracked: p0 replicas=[3,2,1] isr=[1,2,3] adding=[] removing=[] leader=1 le=0 pe=1 | holds
    "#]],
    );
}

/// §5: removal only completes at once when the survivors are in sync...
#[test]
fn removal_only_completes_when_survivors_in_sync() {
    check(
        "create 1,2,3; reassign 1,2",
        expect![[r#"
        trunk: p0 replicas=[1,2] isr=[1,2] adding=[] removing=[] leader=1 le=1 pe=1 | holds
        3.8-4.2: p0 replicas=[1,2] isr=[1,2] adding=[] removing=[] leader=1 le=1 pe=1 | holds
        3.0-3.7: p0 replicas=[1,2] isr=[1,2] adding=[] removing=[] leader=1 le=1 pe=1 | holds
        kafka-21419: p0 replicas=[1,2] isr=[1,2] adding=[] removing=[] leader=1 le=1 pe=1 | holds
        kafka-21419-always-write: p0 replicas=[1,2] isr=[1,2] adding=[] removing=[] leader=1 le=1 pe=1 | holds
        zk-style: p0 replicas=[1,2] isr=[1,2] adding=[] removing=[] leader=1 le=1 pe=1 | holds
        transients-tracked: p0 replicas=[1,2] isr=[1,2] adding=[] removing=[] leader=1 le=1 pe=1 | holds
    "#]],
    );
}

/// ...and waits with adding = [] when they are not; 3.0–3.7 completes anyway.
#[test]
fn removal_only_waits_for_survivors() {
    check(
        "create 1,2,3; isr 1,3; reassign 1,2",
        expect![[r#"
        trunk: p0 replicas=[1,2,3] isr=[1,3] adding=[] removing=[3] leader=1 le=0 pe=2 | holds
        3.8-4.2: p0 replicas=[1,2,3] isr=[1,3] adding=[] removing=[3] leader=1 le=0 pe=2 | holds
        3.0-3.7: p0 replicas=[1,2] isr=[1] adding=[] removing=[] leader=1 le=1 pe=2 | violates G8@2
        kafka-21419: p0 replicas=[1,2,3] isr=[1,3] adding=[] removing=[3] leader=1 le=0 pe=2 | holds
        kafka-21419-always-write: p0 replicas=[1,2,3] isr=[1,3] adding=[] removing=[3] leader=1 le=0 pe=2 | holds
        zk-style: p0 replicas=[1,2,3] isr=[1,3] adding=[] removing=[3] leader=1 le=0 pe=2 | holds
        transients-tracked: p0 replicas=[1,2,3] isr=[1,3] adding=[] removing=[3] leader=1 le=0 pe=2 | holds
    "#]],
    );
}

/// Upstream PartitionReassignmentReplicasTest
/// `testCanCompleteReassignmentIfIsrDoesNotHaveBothExistingTargetReplica`, as a history:
/// [0,1,2] → [0,1,3] completes with ISR [2,3] to replicas [0,1,3], ISR [3] on 4.3+.
#[test]
fn upstream_completes_with_out_of_isr_survivors() {
    check(
        "brokers 0,1,2,3; create 2,0,1; reassign 0,1,3; isr 2,3",
        expect![[r#"
            trunk: p0 replicas=[0,1,3] isr=[3] adding=[] removing=[] leader=3 le=1 pe=2 | holds
            3.8-4.2: p0 replicas=[0,1,3,2] isr=[2,3] adding=[3] removing=[2] leader=2 le=0 pe=2 | holds
            3.0-3.7: p0 replicas=[0,1,3] isr=[3] adding=[] removing=[] leader=3 le=1 pe=2 | holds
            kafka-21419: p0 replicas=[0,1,3] isr=[3] adding=[] removing=[] leader=3 le=1 pe=2 | holds
            kafka-21419-always-write: p0 replicas=[0,1,3] isr=[3] adding=[] removing=[] leader=3 le=1 pe=2 | holds
            zk-style: p0 replicas=[0,1,3] isr=[3] adding=[] removing=[] leader=3 le=1 pe=2 | holds
            transients-tracked: p0 replicas=[0,1,3] isr=[3] adding=[] removing=[] leader=3 le=1 pe=2 | holds
        "#]],
    );
}

/// Upstream PartitionChangeBuilderTest `testIsrEnlargementCompletesReassignment`:
/// replicas [2,3,4,1], removing [1], adding [4]; ISR grows to all → replicas [2,3,4], leader 2.
#[test]
fn upstream_isr_enlargement_completes_reassignment() {
    check(
        "create 1,2,3; reassign 2,3,4; isr 1,2,3,4",
        expect![[r#"
        trunk: p0 replicas=[2,3,4] isr=[2,3,4] adding=[] removing=[] leader=2 le=1 pe=2 | holds
        3.8-4.2: p0 replicas=[2,3,4] isr=[2,3,4] adding=[] removing=[] leader=2 le=1 pe=2 | holds
        3.0-3.7: p0 replicas=[2,3,4] isr=[2,3,4] adding=[] removing=[] leader=2 le=1 pe=2 | holds
        kafka-21419: p0 replicas=[2,3,4] isr=[2,3,4] adding=[] removing=[] leader=2 le=1 pe=2 | holds
        kafka-21419-always-write: p0 replicas=[2,3,4] isr=[2,3,4] adding=[] removing=[] leader=2 le=1 pe=2 | holds
        zk-style: p0 replicas=[2,3,4] isr=[2,3,4] adding=[] removing=[] leader=2 le=1 pe=2 | holds
        transients-tracked: p0 replicas=[2,3,4] isr=[2,3,4] adding=[] removing=[] leader=2 le=1 pe=2 | holds
    "#]],
    );
}

/// Upstream ReplicationControlManagerTest
/// `testReassignPartitionsHandlesNewReassignmentThatRemovesPreviouslyAddingReplicas`:
/// [0,1] → [2,3] → [4,5]; trunk lists removing [0,1,2,3], adding [4,5], replicas
/// [4,5,0,1,2,3], and the transient leader 2 keeps leadership. Design A changes this.
#[test]
fn upstream_override_removes_previously_adding_replicas() {
    check(
        "brokers 0,1,2,3,4,5; create 0,1; reassign 2,3; isr 0,1,2; elect preferred; reassign 4,5",
        expect![[r#"
            trunk: p0 replicas=[4,5,0,1,2,3] isr=[0,1,2] adding=[4,5] removing=[0,1,2,3] leader=2 le=1 pe=4 | holds
            3.8-4.2: p0 replicas=[4,5,0,1,2,3] isr=[0,1,2] adding=[4,5] removing=[0,1,2,3] leader=2 le=1 pe=4 | holds
            3.0-3.7: p0 replicas=[4,5,0,1,2,3] isr=[0,1,2] adding=[4,5] removing=[0,1,2,3] leader=2 le=1 pe=4 | holds
            kafka-21419: p0 replicas=[4,5,0,1,2,3] isr=[0,1,2] adding=[4,5] removing=[0,1,2,3] leader=2 le=1 pe=4 | holds
            kafka-21419-always-write: p0 replicas=[4,5,0,1,2,3] isr=[0,1,2] adding=[4,5] removing=[0,1,2,3] leader=2 le=1 pe=4 | holds
            zk-style: p0 replicas=[4,5,0,1] isr=[0,1] adding=[4,5] removing=[0,1] leader=0 le=2 pe=4 | holds
            transients-tracked: p0 replicas=[4,5,0,1,2,3] isr=[0,1,2] adding=[2,3,4,5] removing=[0,1,2,3] leader=2 le=1 pe=4 | holds
        "#]],
    );
}

/// Upstream `testCancelReassignPartitions` (shape): cancel drops adding replicas from
/// replicas and ISR, with a leader-epoch bump; the leader moves off an adding replica.
#[test]
fn upstream_cancel_moves_leader_off_adding_replica() {
    check(
        "brokers 0,1,2,3,4; create 2,3,4; reassign 0,1,2,3,4; isr 2,3,4,0; elect preferred; cancel",
        expect![[r#"
            trunk: p0 replicas=[2,3,4] isr=[2,3,4] adding=[] removing=[] leader=2 le=2 pe=4 | holds
            3.8-4.2: p0 replicas=[2,3,4] isr=[2,3,4] adding=[] removing=[] leader=2 le=2 pe=4 | holds
            3.0-3.7: p0 replicas=[2,3,4] isr=[2,3,4] adding=[] removing=[] leader=2 le=2 pe=4 | holds
            kafka-21419: p0 replicas=[2,3,4] isr=[2,3,4] adding=[] removing=[] leader=2 le=2 pe=4 | holds
            kafka-21419-always-write: p0 replicas=[2,3,4] isr=[2,3,4] adding=[] removing=[] leader=2 le=2 pe=4 | holds
            zk-style: p0 replicas=[2,3,4] isr=[2,3,4] adding=[] removing=[] leader=2 le=2 pe=4 | holds
            transients-tracked: p0 replicas=[2,3,4] isr=[2,3,4] adding=[] removing=[] leader=2 le=2 pe=4 | holds
        "#]],
    );
}

/// Validation (§1.4): empty, unregistered, duplicate targets; KIP-860; cancel with none
/// in progress; fenced targets accepted.
#[test]
fn reassignment_validation() {
    check(
        "create 1,2,3; reassign -; reassign 1,2,9; reassign 1,1,2; reassign 1,2 keep-rf; cancel; fence 4; reassign 1,2,4 keep-rf",
        expect![[r#"
            trunk: p0 replicas=[1,2,4,3] isr=[1,2,3] adding=[4] removing=[3] leader=1 le=0 pe=1 step1=INVALID_REPLICA_ASSIGNMENT step2=INVALID_REPLICA_ASSIGNMENT step3=INVALID_REPLICA_ASSIGNMENT step4=INVALID_REPLICATION_FACTOR step5=NO_REASSIGNMENT_IN_PROGRESS | holds
            3.8-4.2: p0 replicas=[1,2,4,3] isr=[1,2,3] adding=[4] removing=[3] leader=1 le=0 pe=1 step1=INVALID_REPLICA_ASSIGNMENT step2=INVALID_REPLICA_ASSIGNMENT step3=INVALID_REPLICA_ASSIGNMENT step4=INVALID_REPLICATION_FACTOR step5=NO_REASSIGNMENT_IN_PROGRESS | holds
            3.0-3.7: p0 replicas=[1,2,4,3] isr=[1,2,3] adding=[4] removing=[3] leader=1 le=0 pe=1 step1=INVALID_REPLICA_ASSIGNMENT step2=INVALID_REPLICA_ASSIGNMENT step3=INVALID_REPLICA_ASSIGNMENT step4=INVALID_REPLICATION_FACTOR step5=NO_REASSIGNMENT_IN_PROGRESS | holds
            kafka-21419: p0 replicas=[1,2,4,3] isr=[1,2,3] adding=[4] removing=[3] leader=1 le=0 pe=1 step1=INVALID_REPLICA_ASSIGNMENT step2=INVALID_REPLICA_ASSIGNMENT step3=INVALID_REPLICA_ASSIGNMENT step4=INVALID_REPLICATION_FACTOR step5=NO_REASSIGNMENT_IN_PROGRESS | holds
            kafka-21419-always-write: p0 replicas=[1,2,4,3] isr=[1,2,3] adding=[4] removing=[3] leader=1 le=0 pe=1 step1=INVALID_REPLICA_ASSIGNMENT step2=INVALID_REPLICA_ASSIGNMENT step3=INVALID_REPLICA_ASSIGNMENT step4=INVALID_REPLICATION_FACTOR step5=NO_REASSIGNMENT_IN_PROGRESS | holds
            zk-style: p0 replicas=[1,2,4,3] isr=[1,2,3] adding=[4] removing=[3] leader=1 le=0 pe=1 step1=INVALID_REPLICA_ASSIGNMENT step2=INVALID_REPLICA_ASSIGNMENT step3=INVALID_REPLICA_ASSIGNMENT step4=INVALID_REPLICATION_FACTOR step5=NO_REASSIGNMENT_IN_PROGRESS | holds
            transients-tracked: p0 replicas=[1,2,4,3] isr=[1,2,3] adding=[4] removing=[3] leader=1 le=0 pe=1 step1=INVALID_REPLICA_ASSIGNMENT step2=INVALID_REPLICA_ASSIGNMENT step3=INVALID_REPLICA_ASSIGNMENT step4=INVALID_REPLICATION_FACTOR step5=NO_REASSIGNMENT_IN_PROGRESS | holds
        "#]],
    );
}

/// AlterPartition validation: non-replica, missing leader, fenced member (INELIGIBLE_REPLICA).
#[test]
fn alter_partition_validation() {
    check(
        "create 1,2,3; isr 1,2,4; isr 2,3; fence 3; isr 1,2,3; isr 1,2",
        expect![[r#"
        trunk: p0 replicas=[1,2,3] isr=[1,2] adding=[] removing=[] leader=1 le=0 pe=1 step1=INVALID_REQUEST step2=INVALID_REQUEST step4=INELIGIBLE_REPLICA | holds
        3.8-4.2: p0 replicas=[1,2,3] isr=[1,2] adding=[] removing=[] leader=1 le=0 pe=1 step1=INVALID_REQUEST step2=INVALID_REQUEST step4=INELIGIBLE_REPLICA | holds
        3.0-3.7: p0 replicas=[1,2,3] isr=[1,2] adding=[] removing=[] leader=1 le=0 pe=1 step1=INVALID_REQUEST step2=INVALID_REQUEST step4=INELIGIBLE_REPLICA | holds
        kafka-21419: p0 replicas=[1,2,3] isr=[1,2] adding=[] removing=[] leader=1 le=0 pe=1 step1=INVALID_REQUEST step2=INVALID_REQUEST step4=INELIGIBLE_REPLICA | holds
        kafka-21419-always-write: p0 replicas=[1,2,3] isr=[1,2] adding=[] removing=[] leader=1 le=0 pe=1 step1=INVALID_REQUEST step2=INVALID_REQUEST step4=INELIGIBLE_REPLICA | holds
        zk-style: p0 replicas=[1,2,3] isr=[1,2] adding=[] removing=[] leader=1 le=0 pe=1 step1=INVALID_REQUEST step2=INVALID_REQUEST step4=INELIGIBLE_REPLICA | holds
        transients-tracked: p0 replicas=[1,2,3] isr=[1,2] adding=[] removing=[] leader=1 le=0 pe=1 step1=INVALID_REQUEST step2=INVALID_REQUEST step4=INELIGIBLE_REPLICA | holds
    "#]],
    );
}

/// A fenced adding replica cannot join the ISR; the reassignment waits, is not cancelled.
#[test]
fn fenced_adding_replica_waits() {
    check(
        "create 1,2,3; reassign 1,2,4; fence 4; isr 1,2,3,4; unfence 4; isr 1,2,3,4",
        expect![[r#"
        trunk: p0 replicas=[1,2,4] isr=[1,2,4] adding=[] removing=[] leader=1 le=1 pe=2 step3=INELIGIBLE_REPLICA | holds
        3.8-4.2: p0 replicas=[1,2,4] isr=[1,2,4] adding=[] removing=[] leader=1 le=1 pe=2 step3=INELIGIBLE_REPLICA | holds
        3.0-3.7: p0 replicas=[1,2,4] isr=[1,2,4] adding=[] removing=[] leader=1 le=1 pe=2 step3=INELIGIBLE_REPLICA | holds
        kafka-21419: p0 replicas=[1,2,4] isr=[1,2,4] adding=[] removing=[] leader=1 le=1 pe=2 step3=INELIGIBLE_REPLICA | holds
        kafka-21419-always-write: p0 replicas=[1,2,4] isr=[1,2,4] adding=[] removing=[] leader=1 le=1 pe=2 step3=INELIGIBLE_REPLICA | holds
        zk-style: p0 replicas=[1,2,4] isr=[1,2,4] adding=[] removing=[] leader=1 le=1 pe=2 step3=INELIGIBLE_REPLICA | holds
        transients-tracked: p0 replicas=[1,2,4] isr=[1,2,4] adding=[] removing=[] leader=1 le=1 pe=2 step3=INELIGIBLE_REPLICA | holds
    "#]],
    );
}

/// Fencing the leader moves leadership; fencing the last ISR member leaves leader -1 with
/// the ISR unchanged (ELR off); unfencing it elects it again.
#[test]
fn fencing_and_unfencing_leaders() {
    check(
        "create 1,2; isr 1; fence 1; unfence 1; shutdown 1",
        expect![[r#"
        trunk: p0 replicas=[1,2] isr=[1] adding=[] removing=[] leader=-1 le=3 pe=4 | holds
        3.8-4.2: p0 replicas=[1,2] isr=[1] adding=[] removing=[] leader=-1 le=3 pe=4 | holds
        3.0-3.7: p0 replicas=[1,2] isr=[1] adding=[] removing=[] leader=-1 le=3 pe=4 | holds
        kafka-21419: p0 replicas=[1,2] isr=[1] adding=[] removing=[] leader=-1 le=3 pe=4 | holds
        kafka-21419-always-write: p0 replicas=[1,2] isr=[1] adding=[] removing=[] leader=-1 le=3 pe=4 | holds
        zk-style: p0 replicas=[1,2] isr=[1] adding=[] removing=[] leader=-1 le=3 pe=4 | holds
        transients-tracked: p0 replicas=[1,2] isr=[1] adding=[] removing=[] leader=-1 le=3 pe=4 | holds
    "#]],
    );
}

/// Unclean election: allowed on the topic, fencing the sole ISR member elects an out-of-sync replica.
#[test]
fn unclean_election_on_fence() {
    check(
        "create 1,2 unclean; isr 1; fence 1; elect unclean",
        expect![[r#"
        trunk: p0 replicas=[1,2] isr=[2] adding=[] removing=[] leader=2 le=1 pe=2 step3=ELECTION_NOT_NEEDED | holds
        3.8-4.2: p0 replicas=[1,2] isr=[2] adding=[] removing=[] leader=2 le=1 pe=2 step3=ELECTION_NOT_NEEDED | holds
        3.0-3.7: p0 replicas=[1,2] isr=[2] adding=[] removing=[] leader=2 le=1 pe=2 step3=ELECTION_NOT_NEEDED | holds
        kafka-21419: p0 replicas=[1,2] isr=[2] adding=[] removing=[] leader=2 le=1 pe=2 step3=ELECTION_NOT_NEEDED | holds
        kafka-21419-always-write: p0 replicas=[1,2] isr=[2] adding=[] removing=[] leader=2 le=1 pe=2 step3=ELECTION_NOT_NEEDED | holds
        zk-style: p0 replicas=[1,2] isr=[2] adding=[] removing=[] leader=2 le=1 pe=2 step3=ELECTION_NOT_NEEDED | holds
        transients-tracked: p0 replicas=[1,2] isr=[2] adding=[] removing=[] leader=2 le=1 pe=2 step3=ELECTION_NOT_NEEDED | holds
    "#]],
    );
}

/// §5: a leader that is a removing replica is demoted at completion.
#[test]
fn removing_leader_demoted_at_completion() {
    check(
        "create 1,2,3; reassign 2,3,4; isr 1,2,3,4",
        expect![[r#"
        trunk: p0 replicas=[2,3,4] isr=[2,3,4] adding=[] removing=[] leader=2 le=1 pe=2 | holds
        3.8-4.2: p0 replicas=[2,3,4] isr=[2,3,4] adding=[] removing=[] leader=2 le=1 pe=2 | holds
        3.0-3.7: p0 replicas=[2,3,4] isr=[2,3,4] adding=[] removing=[] leader=2 le=1 pe=2 | holds
        kafka-21419: p0 replicas=[2,3,4] isr=[2,3,4] adding=[] removing=[] leader=2 le=1 pe=2 | holds
        kafka-21419-always-write: p0 replicas=[2,3,4] isr=[2,3,4] adding=[] removing=[] leader=2 le=1 pe=2 | holds
        zk-style: p0 replicas=[2,3,4] isr=[2,3,4] adding=[] removing=[] leader=2 le=1 pe=2 | holds
        transients-tracked: p0 replicas=[2,3,4] isr=[2,3,4] adding=[] removing=[] leader=2 le=1 pe=2 | holds
    "#]],
    );
}

/// Cancel when every ISR member is an adding replica needs unclean election on the topic.
#[test]
fn cancel_needing_unclean_election() {
    check(
        "create 1,2,3; reassign 4,5; isr 1,4; elect preferred; isr 4; cancel",
        expect![[r#"
            trunk: p0 replicas=[4,5,1,2,3] isr=[4] adding=[4,5] removing=[1,2,3] leader=4 le=1 pe=4 step5=INVALID_REPLICA_ASSIGNMENT | holds
            3.8-4.2: p0 replicas=[4,5,1,2,3] isr=[4] adding=[4,5] removing=[1,2,3] leader=4 le=1 pe=4 step5=INVALID_REPLICA_ASSIGNMENT | holds
            3.0-3.7: p0 replicas=[4,5,1,2,3] isr=[4] adding=[4,5] removing=[1,2,3] leader=4 le=1 pe=4 step5=INVALID_REPLICA_ASSIGNMENT | holds
            kafka-21419: p0 replicas=[4,5,1,2,3] isr=[4] adding=[4,5] removing=[1,2,3] leader=4 le=1 pe=4 step5=INVALID_REPLICA_ASSIGNMENT | holds
            kafka-21419-always-write: p0 replicas=[4,5,1,2,3] isr=[4] adding=[4,5] removing=[1,2,3] leader=4 le=1 pe=4 step5=INVALID_REPLICA_ASSIGNMENT | holds
            zk-style: p0 replicas=[4,5,1,2,3] isr=[4] adding=[4,5] removing=[1,2,3] leader=4 le=1 pe=4 step5=INVALID_REPLICA_ASSIGNMENT | holds
            transients-tracked: p0 replicas=[4,5,1,2,3] isr=[4] adding=[4,5] removing=[1,2,3] leader=4 le=1 pe=4 step5=INVALID_REPLICA_ASSIGNMENT | holds
        "#]],
    );
}
