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

impl Rules for Agreeing<'_> {
    fn plan_reassignment(&self, part: &Partition, target: &[BrokerId]) -> AlterPlan {
        self.answer(|r| r.plan_reassignment(part, target))
    }

    fn maybe_complete(
        &self,
        replicas: &[BrokerId],
        isr: &[BrokerId],
        adding: &[BrokerId],
        removing: &[BrokerId],
    ) -> Option<(Vec<BrokerId>, Vec<BrokerId>)> {
        self.answer(|r| Rules::maybe_complete(r, replicas, isr, adding, removing))
    }

    fn isr_shrink_cap(&self, part: &Partition) -> Option<i64> {
        self.answer(|r| r.isr_shrink_cap(part))
    }

    fn out_of_sync(
        &self,
        rec: &ReplicaState,
        leader_leo: i64,
        cap: i64,
        now_ms: i64,
        lag_max_ms: i64,
    ) -> bool {
        self.answer(|r| r.out_of_sync(rec, leader_leo, cap, now_ms, lag_max_ms))
    }

    fn catch_up_fetch_on_delta(&self, leader_moved: bool, new_leader_epoch: bool) -> bool {
        self.answer(|r| r.catch_up_fetch_on_delta(leader_moved, new_leader_epoch))
    }

    fn divert_consolidating_follower(&self, leader_moved: bool, new_leader_epoch: bool) -> bool {
        self.answer(|r| r.divert_consolidating_follower(leader_moved, new_leader_epoch))
    }

    fn evicts_consolidation_on_divert(&self) -> bool {
        self.answer(|r| r.evicts_consolidation_on_divert())
    }

    fn follower_reads_local_log(
        &self,
        consolidating: bool,
        seal: i64,
        fetch_offset: i64,
        leader_leo: i64,
    ) -> bool {
        self.answer(|r| r.follower_reads_local_log(consolidating, seal, fetch_offset, leader_leo))
    }

    fn at_seal_fetch(&self, fetch_offset: i64, seal: i64, leader_leo: i64) -> AtSealAnswer {
        self.answer(|r| r.at_seal_fetch(fetch_offset, seal, leader_leo))
    }

    fn in_sync_for_expansion(
        &self,
        rec: &ReplicaState,
        at_seal_branch: bool,
        seal: i64,
        leader_hw: i64,
        leader_epoch_start_offset: i64,
    ) -> bool {
        self.answer(|r| {
            r.in_sync_for_expansion(
                rec,
                at_seal_branch,
                seal,
                leader_hw,
                leader_epoch_start_offset,
            )
        })
    }

    fn isr_gated_routing(&self) -> bool {
        self.answer(|r| r.isr_gated_routing())
    }

    fn one_step_reassignment(&self, part: &Partition) -> bool {
        self.answer(|r| r.one_step_reassignment(part))
    }

    fn unfence_adds_to_isr(&self, part: &Partition) -> bool {
        self.answer(|r| r.unfence_adds_to_isr(part))
    }

    fn truncate_on_new_leader(&self, leader_moved: bool, hw: i64) -> Option<i64> {
        self.answer(|r| r.truncate_on_new_leader(leader_moved, hw))
    }

    fn truncates_before_fetch(&self, leader_moved: bool, new_leader_epoch: bool) -> bool {
        self.answer(|r| r.truncates_before_fetch(leader_moved, new_leader_epoch))
    }

    fn truncate_before_fetch(&self, follower: &Log, follower_hw: i64, leader: &Log) -> i64 {
        self.answer(|r| r.truncate_before_fetch(follower, follower_hw, leader))
    }

    fn diverging_fetch(&self, follower: &Log, follower_hw: i64, leader: &Log) -> Option<i64> {
        self.answer(|r| r.diverging_fetch(follower, follower_hw, leader))
    }
}
