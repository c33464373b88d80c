//! Checks of the eligible leader replicas (KIP-966) on every partition after every step:
//! ELR1–ELR3. With the ELR feature off the lists stay empty and every check holds. The
//! entries that name these checks are in the one list in `mod.rs`.

use super::StepView;
use crate::model::builder::effective_min_isr;
use crate::model::event::Ids;
use crate::model::{contains_all, Partition};

/// Apply `check` to every partition after the step; the first detail, with its partition.
fn each_partition(s: &StepView, check: impl Fn(&Partition) -> Option<String>) -> Option<String> {
    s.next
        .partitions
        .iter()
        .enumerate()
        .find_map(|(i, p)| check(p).map(|d| format!("p{i}: {d}")))
}

/// ELR1: ELR ⊆ replicas.
pub(super) fn elr1_within_replicas(s: &StepView) -> Option<String> {
    each_partition(s, |p| {
        (!contains_all(&p.replicas, &p.elr)).then(|| {
            format!(
                "elr {} ⊄ replicas {} (isr {})",
                Ids(&p.elr),
                Ids(&p.replicas),
                Ids(&p.isr)
            )
        })
    })
}

/// ELR2: ELR ∩ ISR = ∅.
pub(super) fn elr2_disjoint_from_isr(s: &StepView) -> Option<String> {
    each_partition(s, |p| {
        let both: Vec<i32> = p
            .elr
            .iter()
            .copied()
            .filter(|b| p.isr.contains(b))
            .collect();
        (!both.is_empty())
            .then(|| format!("elr {} ∩ isr {} = {}", Ids(&p.elr), Ids(&p.isr), Ids(&both)))
    })
}

/// ELR3: |ISR| ≥ effective min ISR ⇒ ELR = ∅.
pub(super) fn elr3_empty_at_min_isr(s: &StepView) -> Option<String> {
    each_partition(s, |p| {
        let min_isr = effective_min_isr(p);
        (p.isr.len() as i64 >= min_isr && !p.elr.is_empty()).then(|| {
            format!(
                "isr {} has the effective min ISR of {min_isr} members yet elr {}",
                Ids(&p.isr),
                Ids(&p.elr)
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
