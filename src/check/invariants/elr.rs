//! Checks of the eligible leader replicas (KIP-966) on every partition after every step:
//! ELR1–ELR5, and the vacuity checks V18–V20. Each states what the feature guarantees
//! while it is on: with the feature off the controller neither reads nor keeps the lists
//! (a registration keeps the ones written under ELR until its next change, F24), so no
//! check judges them then. Turned on again, the lists it finds are judged as they are.
//! The entries that name these checks are in the one list in `list.rs`.

use super::data::{first_missing, kept_acked};
use super::{PartView, StepView};
use crate::model::builder::effective_min_isr;
use crate::model::event::Ids;
use crate::model::{contains_all, BrokerId, Partition, NO_LEADER};

/// ELR1: ELR ⊆ replicas.
pub(super) fn elr1_within_replicas(v: &PartView) -> Option<String> {
    let p = v.partition;
    (v.scope.elr && !contains_all(&p.replicas, &p.elr)).then(|| {
        format!(
            "elr {} ⊄ replicas {} (isr {})",
            Ids(&p.elr),
            Ids(&p.replicas),
            Ids(&p.isr)
        )
    })
}

/// ELR2: ELR ∩ ISR = ∅.
pub(super) fn elr2_disjoint_from_isr(v: &PartView) -> Option<String> {
    let p = v.partition;
    let both: Vec<i32> = p
        .elr
        .iter()
        .copied()
        .filter(|b| p.isr.contains(b))
        .collect();
    (v.scope.elr && !both.is_empty())
        .then(|| format!("elr {} ∩ isr {} = {}", Ids(&p.elr), Ids(&p.isr), Ids(&both)))
}

/// ELR3: |ISR| ≥ effective min ISR ⇒ ELR = ∅.
pub(super) fn elr3_empty_at_min_isr(v: &PartView) -> Option<String> {
    let p = v.partition;
    let min_isr = effective_min_isr(p);
    (v.scope.elr && p.isr.len() as i64 >= min_isr && !p.elr.is_empty()).then(|| {
        format!(
            "isr {} has the effective min ISR of {min_isr} members yet elr {}",
            Ids(&p.isr),
            Ids(&p.elr)
        )
    })
}

/// The replicas an election may pick: the ISR, then the ELR members that are still replicas
/// (elections walk the replica list, so a removed one in the ELR is ELR1's concern, not a
/// candidate).
pub(crate) fn leader_candidates(p: &Partition) -> impl Iterator<Item = BrokerId> + '_ {
    let elr = p.elr.iter().filter(|b| p.replicas.contains(b));
    p.isr.iter().chain(elr).copied()
}

/// ELR4: with ELR on, every leader candidate holds every acknowledged record. Judged after
/// a power loss too (`Ghost::committed_lost` does not exempt): taking a broker that shut
/// down uncleanly out of the ISR and the ELR is what ELR adds. An unclean election gives
/// the guarantee up, as for D1–D4, and so does a power loss while the feature was off
/// (`Ghost::lost_without_elr`): turned on later, ELR cannot give back what it never saw.
pub(super) fn elr4_candidates_hold_acked(v: &PartView) -> Option<String> {
    let (p, g) = (v.partition, v.ghost);
    if !v.scope.elr || p.diskless || g.unclean_election || g.lost_without_elr {
        return None;
    }
    leader_candidates(p).find_map(|b| {
        let Some(local) = v.runtime.local(b) else {
            return Some(format!("candidate {b} hosts no log of the partition"));
        };
        kept_acked(g).find_map(|run| {
            let o = first_missing(std::iter::once(&local.log), &run)?;
            let list = if p.isr.contains(&b) { "isr" } else { "elr" };
            Some(format!(
                "{list} member {b} lacks acknowledged record {o} (epoch {}); its log {}",
                run.epoch,
                local.log.describe()
            ))
        })
    })
}

/// ELR5: with ELR on, a partition left with no leader, no ISR and no ELR keeps exactly its
/// last leader as `last_known_elr`: the replica `electLastKnownLeader` tries. The last
/// leader is the previous state's leader, or, when that was already leaderless, whatever
/// the previous state kept (by induction, the last leader it had).
pub(super) fn elr5_last_leader_kept(s: &StepView) -> Option<String> {
    if !s.next.elr {
        return None;
    }
    let pairs = s.prev.partitions.iter().zip(&s.next.partitions);
    pairs.enumerate().find_map(|(i, (before, p))| {
        let lost_all = p.leader == NO_LEADER && p.isr.is_empty() && p.elr.is_empty();
        if !lost_all {
            return None;
        }
        let expected: &[BrokerId] = if before.leader != NO_LEADER {
            std::slice::from_ref(&before.leader)
        } else {
            &before.last_known_elr
        };
        if expected.is_empty() {
            // The previous state had no leader and kept none: it lost its leader while
            // nothing recorded it (ELR off then, F28), so no last leader is left to try.
            return Some(format!(
                "p{i}: no leader, isr or elr, and no last leader was ever recorded \
                 (last_known_elr {})",
                Ids(&p.last_known_elr)
            ));
        }
        (p.last_known_elr.len() != 1 || p.last_known_elr[..] != *expected).then(|| {
            format!(
                "p{i}: no leader, isr or elr, and last_known_elr {} is not the last leader {}",
                Ids(&p.last_known_elr),
                Ids(expected)
            )
        })
    })
}

/// V18: some partition's ELR gained a member in this step.
pub(super) fn v18_entered_elr(s: &StepView) -> bool {
    s.prev
        .partitions
        .iter()
        .zip(&s.next.partitions)
        .any(|(a, b)| b.elr.iter().any(|r| !a.elr.contains(r)))
}

/// V19: some partition's new leader was in its ELR before the step.
pub(super) fn v19_elected_from_elr(s: &StepView) -> bool {
    s.prev
        .partitions
        .iter()
        .zip(&s.next.partitions)
        .any(|(a, b)| b.leader >= 0 && b.leader != a.leader && a.elr.contains(&b.leader))
}

/// V20: ELR5's premise: with ELR on, a partition has no leader, no ISR and no ELR.
pub(super) fn v20_every_candidate_gone(s: &StepView) -> bool {
    s.next.elr
        && s.next
            .partitions
            .iter()
            .any(|p| p.leader == NO_LEADER && p.isr.is_empty() && p.elr.is_empty())
}
