//! The list of the rule hooks, for the wrappers that answer them through another rule set.

/// Calls `$callback!` with the signature of every hook of [`Rules`] but `tap`, once each
/// (`name(args) -> ret;`): the wrappers that answer through another rule set
/// (`check::agree::Agreeing`, the conformance tap) are written from this one list, so a
/// hook added to the trait and not here fails to compile in each of them.
macro_rules! with_rule_hooks {
    ($callback:ident) => {
        $callback! {
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
    };
}
pub(crate) use with_rule_hooks;
