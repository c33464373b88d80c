//! The rule hooks: the `Rules` trait the model asks its rule questions through, and the
//! list of its hooks for the wrappers that answer them through another rule set.

use super::{builder, log, request, AlterPlan, AtSealAnswer, BrokerId, Partition, ReplicaState};

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
            diverging_fetch(follower: &Log, follower_hw: i64, at: $crate::model::log::FetchPosition, leader: &Log)
                -> Option<i64>;
            fetch_epoch_out_of_range(at: $crate::model::log::FetchPosition, leader: &Log)
                -> Option<$crate::model::log::OutOfRange>;
            last_known_must_be_acceptable() -> bool;
            assignment_elr(elr: bool) -> bool;
            last_known_update(part: &Partition, leader: Option<BrokerId>, isr: Option<&[BrokerId]>)
                -> $crate::model::builder::LastKnownUpdate;
        }
    };
}
pub(crate) use with_rule_hooks;

/// The rule hooks the model calls. `rules::RuleSet` implements them; the model depends on
/// this trait, not on the rules module, so the rules sit above the model they parameterize.
pub trait Rules {
    /// How `changePartitionReassignment` derives the assignment for an alter call.
    fn plan_reassignment(&self, part: &Partition, target: &[BrokerId]) -> AlterPlan;
    /// `maybeCompleteReassignment` on the builder's targets: `Some((replicas, isr))` when
    /// the reassignment completes.
    fn maybe_complete(
        &self,
        replicas: &[BrokerId],
        isr: &[BrokerId],
        adding: &[BrokerId],
        removing: &[BrokerId],
    ) -> Option<(Vec<BrokerId>, Vec<BrokerId>)>;

    // Inkless broker-side rules (docs/model/inkless.md).

    /// Rule `shrink` (a): `None` when the ISR-expiration task skips the partition, else the
    /// offset cap it passes to the lag check (-1: none).
    fn isr_shrink_cap(&self, part: &Partition) -> Option<i64>;
    /// Rule `lag` (b): whether a follower in the ISR is out of sync.
    fn out_of_sync(
        &self,
        rec: &ReplicaState,
        leader_leo: i64,
        cap: i64,
        now_ms: i64,
        lag_max_ms: i64,
    ) -> bool;
    /// Rule `leader-change` (c), branch B1 of `ReplicaManager.applyLocalFollowersDelta`:
    /// whether a switched, non-consolidating follower that is in the ISR and at the seal
    /// still fetches once on this delta. `leader_moved`: the follower had seen a leader and
    /// the delta names another (`previousLeaderId`); `new_leader_epoch`: the delta raises
    /// the leader epoch the follower applied.
    fn catch_up_fetch_on_delta(&self, leader_moved: bool, new_leader_epoch: bool) -> bool;
    /// Rule `leader-change` (c), branch B2: whether a consolidating follower is diverted to
    /// the classic fetcher on this delta instead of restarting on consolidation.
    fn divert_consolidating_follower(&self, leader_moved: bool, new_leader_epoch: bool) -> bool;
    /// Rule `leader-change` (c): whether a diverted follower also leaves the consolidation
    /// fetcher (else both fetchers append to its log).
    fn evicts_consolidation_on_divert(&self) -> bool;
    /// Rule `seal-fetch` (d): whether a follower fetch on a diskless topic is read from the
    /// leader's local log (else the at-seal branch answers).
    fn follower_reads_local_log(
        &self,
        consolidating: bool,
        seal: i64,
        fetch_offset: i64,
        leader_leo: i64,
    ) -> bool;
    /// Rule `seal-admission` (d, #760): how the leader answers a follower fetch the at-seal
    /// branch takes: validated and recorded at the seal, unvalidated, or out of range.
    fn at_seal_fetch(&self, fetch_offset: i64, seal: i64, leader_leo: i64) -> AtSealAnswer;
    /// Rule `seal-admission`: whether a follower outside the ISR is in sync enough for the
    /// leader to add it (`Partition.maybeExpandIsr`, or `maybeExpandIsrAtSeal` after a
    /// fetch the at-seal branch answered).
    fn in_sync_for_expansion(
        &self,
        rec: &ReplicaState,
        at_seal_branch: bool,
        seal: i64,
        leader_hw: i64,
        leader_epoch_start_offset: i64,
    ) -> bool;
    /// Rule `seal-admission`: whether ISR membership routes a switched follower (#760): it
    /// goes to consolidation only once in the ISR, is re-routed on every delta until then,
    /// and each re-routing removes it from both fetchers first.
    fn isr_gated_routing(&self) -> bool;
    /// Rule `switched-reassignment` (e): whether a reassignment of a diskless topic takes
    /// the one-step path (replicas and ISR set to the target at once).
    fn one_step_reassignment(&self, part: &Partition) -> bool;
    /// Rule `unfence-expansion` (f): whether unfencing a broker adds it to this diskless
    /// partition's ISR.
    fn unfence_adds_to_isr(&self, part: &Partition) -> bool;

    // Kafka broker rule (docs/model/brokers.md#truncation).

    /// Rule `truncation`: the offset a follower whose leader changed cuts its log to at
    /// once (`makeFollowers` before KIP-101), if any.
    fn truncate_on_new_leader(&self, leader_moved: bool, hw: i64) -> Option<i64>;
    /// Rule `truncation`: whether a follower that applied a new leader epoch truncates
    /// before its first fetch (the fetcher's Truncating state).
    fn truncates_before_fetch(&self, leader_moved: bool, new_leader_epoch: bool) -> bool;
    /// Rule `truncation`: where the follower cuts its log in the Truncating state.
    fn truncate_before_fetch(
        &self,
        follower: &log::Log,
        follower_hw: i64,
        leader: &log::Log,
    ) -> i64;
    /// Rule `truncation`: `Some(offset)` when the leader answers a fetch at `at` (the fetch
    /// state's offset and last fetched epoch, or the seal for an at-seal validation) with a
    /// diverging epoch and the follower cuts its log to `offset`.
    fn diverging_fetch(
        &self,
        follower: &log::Log,
        follower_hw: i64,
        at: log::FetchPosition,
        leader: &log::Log,
    ) -> Option<i64>;
    /// Rule `truncation`: why the leader answers OFFSET_OUT_OF_RANGE before any divergence
    /// check (`Partition.readRecords` with a last fetched epoch), if it does.
    fn fetch_epoch_out_of_range(
        &self,
        at: log::FetchPosition,
        leader: &log::Log,
    ) -> Option<log::OutOfRange>;

    /// Rule `last-known-leader`: whether `canElectLastKnownLeader` requires the last known
    /// leader to be acceptable (the acceptor is asked either way).
    fn last_known_must_be_acceptable(&self) -> bool;
    /// Rule `assignment-elr`: the ELR flag of a directory assignment's builder, given the
    /// cluster's feature `elr`.
    fn assignment_elr(&self, elr: bool) -> bool;
    /// Rule `last-known-leader`: `maybeUpdateLastKnownLeader` for a record with `leader`
    /// (`None`: unchanged) and `isr` (`None`: not written).
    fn last_known_update(
        &self,
        part: &Partition,
        leader: Option<BrokerId>,
        isr: Option<&[BrokerId]>,
    ) -> builder::LastKnownUpdate;

    /// The observer of the controller requests the model makes (conformance only; the
    /// search engines have none, and then no request is built).
    fn tap(&self) -> Option<&dyn request::RequestTap> {
        None
    }
}
