//! Eligible leader replicas with the data plane: what ELR is for. With ELR on, a broker that
//! shut down uncleanly leaves the ISR and the ELR when it registers again
//! (`ReplicationControlManager.handleBrokerUncleanShutdown`, apache trunk d79bd502ec), so
//! the next clean election picks a replica that holds every acknowledged record; with ELR
//! off the last ISR member stays in the ISR and comes back as leader with what its power
//! loss kept. ELR4 (candidate completeness) and ELR5 (recovery set) are judged here on
//! histories, their corrupted-state cases are in `invariant_checks.rs`.

use crate::common;

use expect_test::{expect, Expect};
use isrfuzz::check::invariants::{step_violations, StepView};
use isrfuzz::check::oracle;
use isrfuzz::findings::report::verdict_line;
use isrfuzz::model::{apply, Cluster, LeaderRecoveryState, NO_LEADER};
use isrfuzz::rules::RuleSet;

/// Partition 0 at the end of `history` under `complete`: leader, ISR, ELR, last known ELR,
/// each replica's log end / high watermark, then the verdict.
fn check(history: &str, expect: Expect) {
    let h = common::parse(history);
    let verdict = oracle::run(&h, &[RuleSet::complete()], true);
    let last = &verdict.sides[0].steps.last().expect("a step").state;
    let p = &last.partitions[0];
    let rt = &last.runtime.partitions[0];
    let logs: Vec<String> = rt
        .locals
        .iter()
        .map(|l| format!("{}:{}/{}", l.broker, l.log.end(), l.hw))
        .collect();
    let line = verdict_line(&verdict);
    let verdict = line.split_once(' ').map_or("", |(_, v)| v);
    expect.assert_eq(&format!(
        "leader={} {:?} isr={:?} elr={:?} last_known_elr={:?} logs={}\n{verdict}",
        p.leader,
        p.leader_recovery_state,
        p.isr,
        p.elr,
        p.last_known_elr,
        logs.join(" ")
    ));
}

/// Five acknowledged records on all three replicas, then 3 and 2 fenced (ISR [1], ELR
/// [2]) and the leader loses power with nothing flushed.
const LAST_ISR_MEMBER_LOSES_POWER: &str = "brokers 1,2,3; create 1,2,3 min.isr=2; \
    produce 5 acks=all; fetch 2; fetch 3; fetch 2; fetch 3; fence 3; fence 2; restart 1 unclean";

/// ELR on: 1 leaves the ISR at re-registration (the ISR is empty, 1 keeps no ELR place),
/// and unfencing 2 elects it from the ELR with all five records: no acknowledged record is
/// lost, and ELR4 holds although a power loss cut 1's log.
#[test]
fn elr_on_the_last_isr_member_losing_power_is_not_elected() {
    check(
        &format!("elr; {LAST_ISR_MEMBER_LOSES_POWER}; unfence 2"),
        expect![[r#"
            leader=2 Recovered isr=[2] elr=[] last_known_elr=[] logs=1:0/0 2:5/0 3:5/0
            holds"#]],
    );
}

/// ELR off: the last ISR member stays in the ISR through its power loss and leads again
/// with an empty log; the acknowledged records survive only on replicas the controller will
/// not elect. Kafka accepts this (no fsync), so the data invariants stop judging the
/// partition (`Ghost::committed_lost`) and nothing is reported.
#[test]
fn elr_off_the_last_isr_member_losing_power_leads_again() {
    check(
        &format!("{LAST_ISR_MEMBER_LOSES_POWER}; unfence 2"),
        expect![[r#"
            leader=1 Recovered isr=[1] elr=[] last_known_elr=[] logs=1:0/0 2:5/0 3:5/0
            holds"#]],
    );
}

/// ELR5: every clean candidate gone and the last leader fenced, the partition has no
/// leader, no ISR and no ELR, and keeps 1, its last leader, as the last known ELR. 1 left
/// the ELR by restarting uncleanly while 2 was still in it (so it was not elected then),
/// then was fenced again; 2's unclean restart emptied the ELR.
#[test]
fn the_last_leader_is_kept_when_every_candidate_is_gone() {
    check(
        "elr; brokers 1,2,3; create 1,2,3 min.isr=2; fence 3; fence 2; fence 1; \
         restart 1 unclean; fence 1; restart 2 unclean",
        expect![[r#"
            leader=-1 Recovered isr=[] elr=[] last_known_elr=[1] logs=1:0/0 2:0/0 3:0/0
            holds"#]],
    );
}

/// Observation (docs/findings.md F20): ELR does not help when the ELR empties too. The last
/// leader, 2, loses power after being elected from the ELR; with ISR and ELR empty the
/// controller elects the last known leader as soon as it is back (`electAnyLeader`, with no
/// topic config asked), although it has just found 2 shut down uncleanly. 2 leads with an
/// empty log, RECOVERING, while 3, fenced, holds the five records; back, 3 follows 2 and
/// truncates them. Kafka's documentation
/// describes this as the pre-4.0 behaviour, so the data invariants stop judging after this
/// unclean election and nothing is reported.
#[test]
fn the_last_known_leader_is_elected_right_after_its_power_loss() {
    check(
        &format!(
            "elr; {LAST_ISR_MEMBER_LOSES_POWER}; unfence 2; restart 2 unclean; unfence 3; fetch 3"
        ),
        expect![[r#"
            leader=2 Recovering isr=[2] elr=[] last_known_elr=[] logs=1:0/0 2:0/0 3:0/0
            holds"#]],
    );
}

/// The step invariants that fire on the last step of `history` under `complete` once
/// `corrupt` changed the states before and after it; the uncorrupted step must be clean.
fn fired(history: &str, corrupt: impl FnOnce(&mut Cluster, &mut Cluster)) -> String {
    let h = common::parse(history);
    let rules = RuleSet::complete();
    let (last, before) = h.events.split_last().unwrap();
    let mut prev = common::cluster_after(&h, before, &rules);
    let mut next = prev.clone();
    let outcome = apply(&mut next, last, &rules);
    let view = |prev: &Cluster, next: &Cluster| -> String {
        let v = StepView {
            prev,
            next,
            event: last,
            outcome: &outcome,
        };
        let fired: Vec<String> = step_violations(&v, &rules)
            .map(|(id, d)| format!("{id} ({d})"))
            .collect();
        fired.join("\n")
    };
    assert_eq!(view(&prev, &next), "", "the uncorrupted step is clean");
    corrupt(&mut prev, &mut next);
    view(&prev, &next)
}

/// ISR [1,2] after 3 was fenced, five records acknowledged on all three.
const ACKED: &str = "brokers 1,2,3; create 1,2,3 min.isr=2; produce 5 acks=all; fetch 2; fetch 3; \
    fetch 2; fetch 3; fence 3";

/// ELR4 on each kind of candidate, and the cases it must leave alone.
#[test]
fn elr4_each_candidate_and_each_exemption() {
    let cut = |c: &mut Cluster, b: i32| common::local(c, b).log.truncate_to(2);
    let on = format!("elr; {ACKED}");
    // An ISR member without the records (a follower's log, so D2 stays quiet).
    expect!["ELR4 (p0: isr member 2 lacks acknowledged record 2 (epoch 0); its log e0@0 ..2)"]
        .assert_eq(&fired(&on, |_, n| cut(n, 2)));
    // An ELR member that is a replica: 2 in the ELR after 2 is fenced.
    let elr = format!("{on}; fence 2");
    expect!["ELR4 (p0: elr member 2 lacks acknowledged record 2 (epoch 0); its log e0@0 ..2)"]
        .assert_eq(&fired(&elr, |_, n| cut(n, 2)));
    // An ELR member that is no replica is ELR1's, not a candidate.
    expect!["ELR1 (p0: elr [4] ⊄ replicas [1,2,3] (isr [1]))"]
        .assert_eq(&fired(&elr, |_, n| n.partitions[0].elr = vec![4].into()));
    // A candidate without a log of the partition at all.
    expect!["ELR4 (p0: candidate 2 hosts no log of the partition)"]
        .assert_eq(&fired(&elr, |_, n| {
            n.runtime.partitions[0].locals.retain(|l| l.broker != 2)
        }));
    // A power loss does not exempt the partition; an unclean election does; ELR off, the
    // check does not run.
    expect!["ELR4 (p0: isr member 2 lacks acknowledged record 2 (epoch 0); its log e0@0 ..2)"]
        .assert_eq(&fired(&on, |_, n| {
            n.ghosts[0].committed_lost = true;
            cut(n, 2);
        }));
    expect![[r#""#]].assert_eq(&fired(&on, |_, n| {
        n.ghosts[0].unclean_election = true;
        cut(n, 2);
    }));
    expect![[r#""#]].assert_eq(&fired(ACKED, |_, n| cut(n, 2)));
}

/// The leaderless state of `the_last_leader_is_kept_when_every_candidate_is_gone`.
const ALL_GONE: &str = "elr; brokers 1,2,3; create 1,2,3 min.isr=2; fence 3; fence 2; fence 1; \
    restart 1 unclean; fence 1; restart 2 unclean";

/// ELR5 on each way of getting the last leader wrong, and when it does not judge.
#[test]
fn elr5_each_clause() {
    let lke = |c: &mut Cluster, v: Vec<i32>| c.partitions[0].last_known_elr = v.into();
    expect!["ELR5 (p0: no leader, isr or elr, and last_known_elr [] is not the last leader [1])"]
        .assert_eq(&fired(ALL_GONE, |_, n| lke(n, vec![])));
    expect!["ELR5 (p0: no leader, isr or elr, and last_known_elr [2] is not the last leader [1])"]
        .assert_eq(&fired(ALL_GONE, |_, n| lke(n, vec![2])));
    expect![
        "ELR5 (p0: no leader, isr or elr, and last_known_elr [1,2] is not the last leader [1])"
    ]
    .assert_eq(&fired(ALL_GONE, |_, n| lke(n, vec![1, 2])));
    // The previous state had a leader: it is the one to keep.
    expect![[r#"
        S3 (p0: leader_epoch 1 → 1 (replica left or leader moved: true))
        ELR5 (p0: no leader, isr or elr, and last_known_elr [1] is not the last leader [3])"#]]
    .assert_eq(&fired(ALL_GONE, |p, _| {
        p.partitions[0].leader = 3;
        p.partitions[0].leader_recovery_state = LeaderRecoveryState::Recovered;
    }));
    // Not judged with a leader, an ISR or an ELR, nor with ELR off.
    expect![[r#""#]].assert_eq(&fired(ALL_GONE, |_, n| {
        n.partitions[0].elr = vec![3].into();
        lke(n, vec![]);
    }));
    expect!["S0 (p0: empty replicas [1,2,3] or isr [])"].assert_eq(&fired(ALL_GONE, |_, n| {
        n.elr = false;
        lke(n, vec![]);
        assert_eq!(n.partitions[0].leader, NO_LEADER);
    }));
}

/// F18, F17's availability cost: the removed replica 2 left in the ELR blocks the last-known
/// leader recovery. After its unclean restart 1 is the last known leader and is back, but
/// `canElectLastKnownLeader` wants an empty ELR, and 2, no replica, can never be elected:
/// the partition stays offline until an operator runs an unclean election. The same
/// partition created as [1] gets 1 back at once (unclean, RECOVERING).
#[test]
fn f18_a_stale_elr_member_blocks_the_last_known_leader() {
    check(
        "elr; brokers 1,2,3; create 1,2 min.isr=2; reassign 1; restart 1 unclean",
        expect![[r#"
            leader=-1 Recovered isr=[] elr=[2] last_known_elr=[1] logs=1:0/0
            violates ELR1@1 ELR3@1"#]],
    );
    check(
        "elr; brokers 1,2,3; create 1 min.isr=2; restart 1 unclean",
        expect![[r#"
            leader=1 Recovering isr=[1] elr=[] last_known_elr=[] logs=1:0/0
            holds"#]],
    );
}

/// ELR off while the last ISR member loses power: it stays in the ISR and comes back as
/// leader without the records (no ELR to keep it out, the data invariants exempt a power
/// loss). Turning ELR on afterwards does not make that ELR4's: the guarantee starts with
/// the feature (`Ghost::lost_without_elr`). Counted against a power loss with the feature
/// on, which ELR4 still judges (`elr_on_the_last_isr_member_losing_power_is_not_elected`).
#[test]
fn a_power_loss_before_elr_was_turned_on_is_not_elr4s() {
    check(
        "brokers 1,2,3; create 1 min.isr=1; produce 1 acks=all; restart 1 unclean; \
         features elr=1",
        expect![[r#"
            leader=1 Recovered isr=[1] elr=[] last_known_elr=[] logs=1:0/0
            holds"#]],
    );
}
