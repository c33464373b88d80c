//! The replica fetchers' own state (docs/model/fetcher.md): the quiescence property INV-10
//! and the vacuity counters V21 to V23. The entries that name these checks are in the one
//! list in `list.rs`.

use super::scope::has_live_leader;
use super::StepView;
use crate::model::broker::{consolidating, Local};
use crate::model::log::{FetchPosition, OutOfRange};
use crate::model::{Cluster, Note, Partition, Rules, SEAL_PENDING};
use crate::rules::RuleSet;

/// The end of a detail for follower `l` of partition `i` whose fetcher is stuck: one that
/// marked the partition failed (docs/findings.md F21), or a classic fetcher that asks with a
/// last fetched epoch the leader's epoch cache cannot place (every answer is then
/// OFFSET_OUT_OF_RANGE and changes nothing, F22); empty otherwise.
pub(super) fn stuck_fetcher_suffix(c: &Cluster, rules: &RuleSet, i: usize, l: &Local) -> String {
    let f = &l.fetchers;
    let failed = match (f.classic_failed, f.consolidation_failed) {
        (false, false) => "",
        (true, false) => " (the classic fetcher marked it failed)",
        (false, true) => " (the consolidation fetcher marked it failed)",
        (true, true) => " (both fetchers marked it failed)",
    };
    format!("{failed}{}", unplaced_epoch_suffix(c, rules, i, l))
}

fn unplaced_epoch_suffix(c: &Cluster, rules: &RuleSet, i: usize, l: &Local) -> String {
    let p = &c.partitions[i];
    let (Some(state), Some(leader)) = (l.fetchers.classic, c.runtime.partitions[i].local(p.leader))
    else {
        return String::new();
    };
    let at = FetchPosition {
        offset: state.offset,
        last_fetched_epoch: state.last_fetched_epoch,
    };
    if rules.fetch_epoch_out_of_range(at, &leader.log) != Some(OutOfRange::UnplacedEpoch) {
        return String::new();
    }
    format!(
        " (the leader's epoch cache cannot place its last fetched epoch {})",
        state.last_fetched_epoch
    )
}

/// Whether follower `l` of `p` replicates through the classic fetcher for good: a classic
/// topic, a pending switch, or a switched, non-consolidating partition whose classic prefix
/// it still lacks (it is evicted at the seal; a consolidating one is INV-9's).
fn fetches_classically(c: &Cluster, p: &Partition, l: &Local) -> bool {
    !p.diskless
        || p.seal == SEAL_PENDING
        || (p.seal >= 0 && !consolidating(&c.runtime.config, p) && l.leo() < p.seal)
}

/// INV-10: at quiescence, every live follower in the ISR that replicates through the
/// classic fetcher holds the partition there, not marked failed, with its position at its
/// log end. A follower that fails or retries for ever must leave the ISR instead.
pub(super) fn inv10_fetcher_quiescent(c: &Cluster, rules: &RuleSet) -> Option<String> {
    (0..c.partitions.len()).find_map(|i| {
        let p = &c.partitions[i];
        if !has_live_leader(c, i) {
            return None;
        }
        let locals = &c.runtime.partitions[i].locals;
        let mut judged = locals.iter().filter(|l| {
            l.broker != p.leader
                && c.is_active(l.broker)
                && p.isr.contains(&l.broker)
                && fetches_classically(c, p, l)
        });
        judged.find_map(|l| {
            let why = match l.fetchers.classic {
                None => "it is on no classic fetcher".to_string(),
                Some(f) if f.offset != l.leo() => format!(
                    "its classic fetcher asks from {} past its log end {}",
                    f.offset,
                    l.leo()
                ),
                Some(_) => return None,
            };
            let stuck = stuck_fetcher_suffix(c, rules, i, l);
            Some(format!("p{i}: follower {} in isr, {why}{stuck}", l.broker))
        })
    })
}

/// V21: a fetcher's answer failed the append check and the partition was marked failed.
pub(super) fn v21_marked_failed(v: &StepView) -> bool {
    v.outcome
        .notes()
        .iter()
        .any(|n| matches!(n, Note::FetchFailed { .. }))
}

/// V22: after the step, a fetcher holds a position past its log: the log was cut under a
/// live fetcher (the state the append check judges).
pub(super) fn v22_position_past_log(v: &StepView) -> bool {
    v.next.runtime.partitions.iter().any(|rt| {
        rt.locals.iter().any(|l| {
            let f = &l.fetchers;
            [f.classic, f.consolidation]
                .into_iter()
                .flatten()
                .any(|s| s.offset > l.leo())
        })
    })
}

/// V23: a fetch was answered OFFSET_OUT_OF_RANGE because the leader's epoch cache could not
/// place its last fetched epoch.
pub(super) fn v23_unplaced_epoch(v: &StepView) -> bool {
    v.outcome.notes().iter().any(|n| {
        matches!(
            n,
            Note::OutOfRange {
                unplaced_epoch: Some(_),
                ..
            }
        )
    })
}
