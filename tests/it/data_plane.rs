//! The data plane under each generation of the truncation rule: KIP-101's two scenarios,
//! KIP-279's corner case and the fetch-path check, one line per variant. A variant swapped
//! for a sibling changes a line here.

use crate::common;

use expect_test::{expect, Expect};
use isrfuzz::check::history::History;
use isrfuzz::check::oracle;
use isrfuzz::rules::{RuleSet, Truncation};
use std::path::Path;

fn regression(name: &str) -> History {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus/regressions")
        .join(name);
    History::load(&path).unwrap()
}

/// `variant: D2@7 D1@10` for every truncation variant, on `complete` otherwise.
fn per_variant(h: &History) -> String {
    let mut out = String::new();
    for t in Truncation::ALL {
        let rules = RuleSet::parse(&format!("complete+truncation={}", t.name())).unwrap();
        let v = oracle::run(h, &[rules], false);
        let found: Vec<String> = v.sides[0]
            .violations
            .iter()
            .map(|x| format!("{}@{}", x.invariant, x.step))
            .collect();
        out += &format!("{}: {}\n", t.name(), found.join(" "));
    }
    out
}

fn check(h: &History, expect: Expect) {
    expect.assert_eq(&per_variant(h));
}

#[test]
fn kip_101_scenario_1_only_truncating_to_the_high_watermark_loses_the_record() {
    check(
        &regression("kip-101-scenario-1-truncate-to-hw-loses-an-acked-record.json"),
        expect![[r#"
            hw: D2@7 D5@7 D1@10 D4@11
            kip-101: 
            kip-279: 
            fetch-divergence: 
        "#]],
    );
}

#[test]
fn kip_101_scenario_2_only_truncating_to_the_high_watermark_diverges() {
    check(
        &regression("kip-101-scenario-2-truncate-to-hw-diverges.json"),
        expect![[r#"
            hw: D4@15
            kip-101: 
            kip-279: 
            fetch-divergence: 
        "#]],
    );
}

#[test]
fn kip_279_corner_case_needs_the_epoch_in_the_answer() {
    check(
        &regression("kip-279-corner-case-kip-101-keeps-a-diverged-record.json"),
        expect![[r#"
            hw: 
            kip-101: D3@7 D5@7 D4@8
            kip-279: 
            fetch-divergence: 
        "#]],
    );
}

/// When the cut happens: before KIP-101 never; KIP-101 and KIP-279 in the Truncating state,
/// then the same fetch brings records; today the fetch only answers the diverging epoch and
/// the records come with the next one.
#[test]
fn a_diverged_follower_after_one_fetch() {
    // 3 takes leader 1's unreplicated record; 1 fails; 2 leads and writes 3 records of its
    // own; 3 fetches once from 2.
    let h = common::parse(
        "brokers 1,2,3; create 1,2,3; produce 1; fetch 3; fence 1; produce 3; fetch 3",
    );
    let mut out = String::new();
    for t in Truncation::ALL {
        let rules = RuleSet::parse(&format!("complete+truncation={}", t.name())).unwrap();
        let v = oracle::run(&h, &[rules], true);
        let last = &v.sides[0].steps.last().unwrap().state;
        let l3 = last.runtime.partitions[0].local(3).unwrap();
        out += &format!("{}: {}\n", t.name(), l3.log.describe());
    }
    expect![[r#"
        hw: e1@0 ..3
        kip-101: e1@0 ..3
        kip-279: e1@0 ..3
        fetch-divergence: ..0
    "#]]
    .assert_eq(&out);
}

/// acks=all needs an ISR of min.insync.replicas (NOT_ENOUGH_REPLICAS, nothing appended);
/// acks=1 does not; a waiting acks=all produce is acknowledged only once the high watermark
/// passes it, and never if its leader moves first.
#[test]
fn acks_all_needs_min_isr_and_the_high_watermark() {
    let table = |text: &str| {
        let h = common::parse(text);
        let v = oracle::run(&h, &[RuleSet::complete()], true);
        let mut out = String::new();
        for (e, step) in h.events.iter().zip(&v.sides[0].steps) {
            let g = &step.state.ghosts[0];
            let leader_leo = step.state.runtime.partitions[0]
                .local(step.state.partitions[0].leader)
                .map_or(-1, |l| l.leo());
            let result = match &step.outcome {
                isrfuzz::model::Outcome::Rejected { error, .. } => error.name().to_string(),
                _ => "ok".to_string(),
            };
            out += &format!(
                "{e}: {result}, leader LEO {leader_leo}, acked {}\n",
                g.acked.len()
            );
        }
        out
    };
    expect![[r#"
        create [1,2,3] min.isr=2: ok, leader LEO 0, acked 0
        alter_partition p0 isr=[1]: ok, leader LEO 0, acked 0
        produce p0 +5 acks=all: NOT_ENOUGH_REPLICAS, leader LEO 0, acked 0
        produce p0 +5: ok, leader LEO 5, acked 0
        alter_partition p0 isr=[1,2]: ok, leader LEO 5, acked 0
        produce p0 +5 acks=all: ok, leader LEO 10, acked 0
        fetch p0 by 2: ok, leader LEO 10, acked 0
        fetch p0 by 2: ok, leader LEO 10, acked 1
    "#]].assert_eq(&table(
        "brokers 1,2,3; create 1,2,3 min.isr=2; isr 1; produce 5 acks=all; produce 5; isr 1,2; produce 5 acks=all; fetch 2; fetch 2",
    ));
    expect![[r#"
        create [1,2] min.isr=2: ok, leader LEO 0, acked 0
        produce p0 +5 acks=all: ok, leader LEO 5, acked 0
        fetch p0 by 2: ok, leader LEO 5, acked 0
        fence 1: ok, leader LEO 5, acked 0
    "#]]
    .assert_eq(&table(
        "brokers 1,2,3; create 1,2 min.isr=2; produce 5 acks=all; fetch 2; fence 1",
    ));
}

/// KIP-101's first scenario with acks=1: nothing is acknowledged to an acks=all producer,
/// so D1 and D2 have nothing to judge, but the records were readable below the high
/// watermark before the truncation to a stale one replaced them (D5). Today's truncation
/// keeps them.
#[test]
fn consistent_read_sees_the_acks_1_records_kip_101_loses() {
    let h = common::parse(
        "brokers 1,2,3; create 1,2,3; produce 5; fetch 2; fetch 3; fetch 2; fetch 3; \
         fence 1; fence 2; produce 2",
    );
    check(
        &h,
        expect![[r#"
            hw: D5@7 D4@9
            kip-101: 
            kip-279: 
            fetch-divergence: 
        "#]],
    );
}

/// DeleteRecords is deletion on purpose: acknowledged records below the log start are on
/// no replica, and no data invariant asks for them; a follower left below the leader's
/// start fetches out of range and starts over there.
#[test]
fn deleted_acknowledged_records_are_not_lost() {
    let h = regression("delete-records-follower-starts-over-at-the-leaders-log-start.json");
    let v = oracle::run(&h, &[RuleSet::complete()], true);
    let after_oor = &v.sides[0].steps[4].state.runtime.partitions[0];
    expect!["5.. ..5"].assert_eq(&after_oor.local(2).unwrap().log.describe());
    let end = &v.sides[0].steps.last().unwrap().state;
    assert_eq!(end.ghosts[0].deleted_below, 5);
    assert!(v.sides[0].violations.is_empty());
    check(
        &h,
        expect![[r#"
            hw: 
            kip-101: 
            kip-279: 
            fetch-divergence: 
        "#]],
    );
}

/// `maybeIncrementLeaderHW` returns while the ISR is below the effective min ISR
/// (`isUnderMinIsr`, KAFKA-15583): a leader alone in a min.isr=2 ISR appends but exposes
/// nothing, and the HW catches up once the follower is back in the ISR. With min.isr=1 the
/// same leader commits at once. The effective min ISR is capped at the replication factor.
#[test]
fn the_high_watermark_stays_while_the_isr_is_below_min_isr() {
    let below = "brokers 1,2; create 1,2 min.isr=2; isr 1; produce 5; isr 1,2; fetch 2; fetch 2";
    // The follower's catch-up, which the AlterPartition asserts, is recorded by the leader:
    // the high watermark moves at the step it rejoins.
    assert_eq!(leader_hw_after(below), "0 0 0 5 5 5");
    assert_eq!(
        leader_hw_after(&below.replace("min.isr=2", "min.isr=1")),
        "0 0 5 5 5 5"
    );
    assert_eq!(
        leader_hw_after("brokers 1; create 1 min.isr=3; produce 5"),
        "0 5"
    );
}

/// The leader's HW after each step of `text` under `complete`.
fn leader_hw_after(text: &str) -> String {
    let h = common::parse(text);
    let v = oracle::run(&h, &[RuleSet::complete()], true);
    let hws: Vec<String> = v.sides[0]
        .steps
        .iter()
        .map(|s| {
            let p = &s.state.partitions[0];
            let rt = &s.state.runtime.partitions[0];
            rt.local(p.leader).map_or(-1, |l| l.hw).to_string()
        })
        .collect();
    hws.join(" ")
}

/// Leader 1 of [1,2,3]: 3 fetches once at the leader's end, stalls and leaves the ISR (an
/// ISR shrink keeps the leader epoch, so its record stays); 5 records reach 2.
const OUT_BUT_CAUGHT_UP: &str =
    "brokers 1,2,3; create 1,2,3; fetch 2; fetch 3; stall 3; isr 1,2; produce 5; fetch 2; fetch 2";

/// `shouldWaitForReplicaToJoinIsr` (`Partition.maybeIncrementLeaderHW`, KAFKA-15021): a
/// follower out of the ISR that is caught up (within `replica.lag.time.max.ms`) and
/// ISR-eligible holds the leader's HW at its end (0, not 5, after 2's fetches). Once it
/// lags past the limit it no longer does, from the next recomputation on: not on 2's
/// fetches that move nothing during `time` (`updateFollowerFetchState` recomputes only
/// when the follower's end moved), on the next append. Without the wait: 5 after the
/// second fetch of 2.
#[test]
fn a_caught_up_follower_out_of_the_isr_holds_the_high_watermark() {
    assert_eq!(
        leader_hw_after(&format!("{OUT_BUT_CAUGHT_UP}; time 30001; produce 1")),
        "0 0 0 0 0 0 0 0 0 5"
    );
}

/// Only an ISR-eligible follower is waited for (`isReplicaIsrEligible`): a fenced one is
/// not, nor one that restarted, whose new broker epoch does not match the one its last
/// fetch stored (`isBrokerEpochIsrEligible`; the model's `ReplicaState::epoch_current`),
/// until it fetches again.
#[test]
fn an_ineligible_follower_does_not_hold_the_high_watermark() {
    for ineligible in ["fence 3", "shutdown 3", "restart 3"] {
        let hws = leader_hw_after(&format!("{OUT_BUT_CAUGHT_UP}; {ineligible}; produce 1"));
        assert_eq!(hws, "0 0 0 0 0 0 0 0 0 5", "{ineligible}");
    }
    let fetched = leader_hw_after(&format!(
        "{OUT_BUT_CAUGHT_UP}; restart 3; fetch 3; produce 1"
    ));
    assert_eq!(fetched, "0 0 0 0 0 0 0 0 0 0 0", "restarted, then fetched");
}
