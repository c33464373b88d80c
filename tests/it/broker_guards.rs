//! The broker's own guards, each on its own: a state that only that guard rejects, so a
//! guard that is dropped or merged with another (an `||` turned `&&`) lets the action
//! through here. Covered: every guard of a follower's classic fetch (`follower_fetch`),
//! the ISR-expiration task on a fenced leader, #760's admission at the seal, produce and
//! the seal commit. Some of these states are ones a correct controller never produces (a
//! fenced broker still leading); the guards are the broker's own defence, as
//! `ReplicaManager.fetchMessages` and the fetcher threads have theirs.

use crate::common;

use common::{cluster_after, local, set_broker, set_leo};

use expect_test::{expect, Expect};
use isrfuzz::model::broker::Note;
use isrfuzz::model::{apply, BrokerState, Cluster, Event, Outcome};
use isrfuzz::rules::RuleSet;

/// Leader 1 holds 10 records; followers 2 and 3 are on the classic fetcher at offset 0.
const BEHIND: &str = "brokers 1,2,3; create 1,2,3; produce 10";

/// What one fetch by `by` does after `corrupt`: its answer, or that none was made.
fn fetch(by: i32, corrupt: impl FnOnce(&mut Cluster)) -> String {
    fetch_after(BEHIND, by, corrupt)
}

/// The same after any history: the answer and any ISR expansion it earned.
fn fetch_after(history: &str, by: i32, corrupt: impl FnOnce(&mut Cluster)) -> String {
    let rules = RuleSet::complete();
    let h = common::parse(history);
    let mut c = cluster_after(&h, &h.events, &rules);
    corrupt(&mut c);
    let event = Event::FollowerFetch {
        partition: 0,
        broker: by,
    };
    let out = apply(&mut c, &event, &rules);
    notes(&out, "no fetch", |n| match n {
        Note::Fetch {
            follower,
            fetch_offset,
            records,
            ..
        } => Some(format!("{follower} fetched {records} at {fetch_offset}")),
        Note::Expand { follower, .. } => Some(format!("isr += {follower}")),
        _ => None,
    })
}

/// The broker-side notes of a step that `describe` picks, or `none`.
fn notes(out: &Outcome, none: &str, describe: impl Fn(&Note) -> Option<String>) -> String {
    let picked: Vec<String> = out.notes().iter().filter_map(describe).collect();
    if picked.is_empty() {
        none.into()
    } else {
        picked.join(", ")
    }
}

fn check(by: i32, corrupt: impl FnOnce(&mut Cluster), expect: Expect) {
    expect.assert_eq(&fetch(by, corrupt));
}

#[test]
fn an_unguarded_follower_fetches() {
    check(2, |_| {}, expect!["2 fetched 10 at 0"]);
}

#[test]
fn the_leader_does_not_fetch_from_itself() {
    // Even with its classic fetcher flag (wrongly) on.
    check(1, |c| local(c, 1).start_classic(-1), expect!["no fetch"]);
}

#[test]
fn nobody_fetches_from_a_fenced_leader() {
    check(
        2,
        |c| set_broker(c, 1, BrokerState::Fenced),
        expect!["no fetch"],
    );
}

#[test]
fn a_stalled_follower_does_not_fetch() {
    check(2, |c| c.runtime.stalled.push(2), expect!["no fetch"]);
}

#[test]
fn the_leader_must_have_taken_leadership() {
    check(2, |c| local(c, 1).is_leader = false, expect!["no fetch"]);
}

#[test]
fn the_leader_must_have_applied_the_current_leader_epoch() {
    check(
        2,
        |c| local(c, 1).applied_leader_epoch -= 1,
        expect!["no fetch"],
    );
}

#[test]
fn a_follower_off_the_classic_fetcher_does_not_fetch() {
    check(2, |c| local(c, 2).stop_classic(), expect!["no fetch"]);
}

#[test]
fn the_leader_must_hold_its_leader_state() {
    check(
        2,
        |c| c.runtime.partitions[0].leader = None,
        expect!["no fetch"],
    );
}

/// The lag shrinks of the ISR-expiration task after both followers stall for two lag
/// windows, once `corrupt` changed the cluster.
fn shrinks(corrupt: impl FnOnce(&mut Cluster)) -> String {
    let h = common::parse(&format!("{BEHIND}; stall 2; stall 3"));
    let rules = RuleSet::complete();
    let mut c = cluster_after(&h, &h.events, &rules);
    corrupt(&mut c);
    let out = apply(&mut c, &Event::AdvanceTime { ms: 60_000 }, &rules);
    notes(&out, "no shrink", |n| match n {
        Note::Shrink { removed, .. } => Some(format!("shrank {removed:?}")),
        _ => None,
    })
}

/// A fenced leader shrinks nothing. Two layers stop it: the task skips a leader that is not
/// up, and the controller refuses an ISR naming a fenced broker (the leader is always in
/// it), so dropping either alone changes nothing here (see docs/mutation.md).
#[test]
fn a_fenced_leader_shrinks_nothing() {
    expect!["shrank [(2, -1), (3, -1)]"].assert_eq(&shrinks(|_| {}));
    expect!["no shrink"].assert_eq(&shrinks(|c| {
        set_broker(c, 1, BrokerState::Fenced);
    }));
}

/// #760's admission at the seal (`maybeExpandIsrAtSeal`) records a follower at the seal
/// only while the leader holds the classic prefix. Here a consolidating leader is still
/// rebuilding it (LEO 5 < seal 10, as after an unclean election), and follower 2, at the
/// seal but out of the ISR, fetches: answered, not recorded, not admitted.
#[test]
fn no_admission_at_the_seal_while_the_leader_lacks_the_prefix() {
    let consolidated = "brokers 1,2,3; create 1,2,3; produce 10; time 15000; \
                        switch consolidating; time 15000; seal; time 30000";
    let out_of_isr = |c: &mut Cluster| {
        c.partitions[0].isr.retain(|&r| r != 2);
        let epoch = c.partitions[0].leader_epoch;
        let l = local(c, 2);
        l.start_classic(epoch); // started for the current leader epoch
    };
    check_after(
        consolidated,
        out_of_isr,
        expect!["2 fetched 0 at 10, isr += 2"],
    );
    check_after(
        consolidated,
        |c| {
            out_of_isr(c);
            set_leo(local(c, 1), 5);
        },
        expect!["2 fetched 0 at 10"],
    );
}

fn check_after(history: &str, corrupt: impl FnOnce(&mut Cluster), expect: Expect) {
    expect.assert_eq(&fetch_after(history, 2, corrupt));
}

/// A produce reaches only a live leader; the seal is committed only by a replica that has
/// taken leadership. Both states are ones the controller never leaves (it moves leaders
/// off fenced brokers, and an up broker applies its leadership at once); each guard is
/// the broker's own check.
#[test]
fn produce_and_seal_need_a_live_leader_that_has_taken_leadership() {
    let run = |history: &str, corrupt: &dyn Fn(&mut Cluster)| -> String {
        let h = common::parse(history);
        let rules = RuleSet::complete();
        let (last, before) = h.events.split_last().unwrap();
        let mut c = cluster_after(&h, before, &rules);
        corrupt(&mut c);
        match apply(&mut c, last, &rules) {
            Outcome::Rejected { error, reason } => {
                format!("{} ({reason})", error.name())
            }
            _ => "accepted".into(),
        }
    };
    let fenced = |c: &mut Cluster| set_broker(c, 1, BrokerState::Fenced);
    let not_taken = |c: &mut Cluster| local(c, 1).is_leader = false;
    let out = [
        run(BEHIND, &|_| {}),
        run(BEHIND, &fenced),
        run("brokers 1,2,3; create 1,2,3; switch; seal", &|_| {}),
        run("brokers 1,2,3; create 1,2,3; switch; seal", &not_taken),
    ];
    expect![[r#"
        accepted
        INVALID_REQUEST (no live leader)
        accepted
        INVALID_REQUEST (no live leader to seal)
    "#]]
    .assert_eq(&(out.join("\n") + "\n"));
}
