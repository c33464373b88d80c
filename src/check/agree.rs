//! Lockstep sharing: two sides of a run share one state while the rules they differ in
//! give the same answers. The model asks its rule questions only through [`Rules`] and is
//! otherwise a deterministic function of (state, event), so from one state two rule sets
//! that answered every question of a step alike reach the same next state and outcome.
//! [`Agreeing`] answers with the first rule set and notes whether the second would have
//! answered the same; the oracle runs the second side on its own only from the first step
//! where it would not (`oracle::run_with`), and tests compare the verdicts with runs
//! that never share.

use crate::model::log::Log;
use crate::model::{AlterPlan, AtSealAnswer, BrokerId, Partition, ReplicaState, Rules};
use crate::rules::RuleSet;
use std::cell::Cell;

/// Answers as `first`; `agreed` stays true while `second` would have answered every
/// question alike. After the first disagreement `second` is not asked again: its later
/// questions would come from a state its own run never reaches.
pub struct Agreeing<'a> {
    first: &'a RuleSet,
    second: &'a RuleSet,
    agreed: Cell<bool>,
}

impl<'a> Agreeing<'a> {
    pub fn new(first: &'a RuleSet, second: &'a RuleSet) -> Agreeing<'a> {
        Agreeing {
            first,
            second,
            agreed: Cell::new(true),
        }
    }

    /// Whether every question so far got the same answer from both.
    pub fn agreed(&self) -> bool {
        self.agreed.get()
    }

    /// The first's answer, after asking the second while they still agree (and only when
    /// the rule sets differ at all: equal sets always agree).
    fn answer<T: PartialEq>(&self, ask: impl Fn(&RuleSet) -> T) -> T {
        let first = ask(self.first);
        if self.agreed.get() && self.first != self.second && ask(self.second) != first {
            self.agreed.set(false);
        }
        first
    }
}

/// `Rules` for `Agreeing`: every hook asks `answer`, once per signature below.
macro_rules! agreeing_hooks {
    ($($hook:ident($($arg:ident: $ty:ty),*) -> $ret:ty;)*) => {
        impl Rules for Agreeing<'_> {
            $(fn $hook(&self, $($arg: $ty),*) -> $ret {
                self.answer(|r| Rules::$hook(r, $($arg),*))
            })*
        }
    };
}

agreeing_hooks! {
    plan_reassignment(part: &Partition, target: &[BrokerId]) -> AlterPlan;
    maybe_complete(
        replicas: &[BrokerId],
        isr: &[BrokerId],
        adding: &[BrokerId],
        removing: &[BrokerId]
    ) -> Option<(Vec<BrokerId>, Vec<BrokerId>)>;
    isr_shrink_cap(part: &Partition) -> Option<i64>;
    out_of_sync(rec: &ReplicaState, leader_leo: i64, cap: i64, now_ms: i64, lag_max_ms: i64)
        -> bool;
    catch_up_fetch_on_delta(leader_moved: bool, new_leader_epoch: bool) -> bool;
    divert_consolidating_follower(leader_moved: bool, new_leader_epoch: bool) -> bool;
    evicts_consolidation_on_divert() -> bool;
    follower_reads_local_log(consolidating: bool, seal: i64, fetch_offset: i64, leader_leo: i64)
        -> bool;
    at_seal_fetch(fetch_offset: i64, seal: i64, leader_leo: i64) -> AtSealAnswer;
    in_sync_for_expansion(
        rec: &ReplicaState,
        at_seal_branch: bool,
        seal: i64,
        leader_hw: i64,
        leader_epoch_start_offset: i64
    ) -> bool;
    isr_gated_routing() -> bool;
    one_step_reassignment(part: &Partition) -> bool;
    unfence_adds_to_isr(part: &Partition) -> bool;
    truncate_on_new_leader(leader_moved: bool, hw: i64) -> Option<i64>;
    truncates_before_fetch(leader_moved: bool, new_leader_epoch: bool) -> bool;
    truncate_before_fetch(follower: &Log, follower_hw: i64, leader: &Log) -> i64;
    diverging_fetch(follower: &Log, follower_hw: i64, fetch_offset: i64, leader: &Log)
        -> Option<i64>;
}
