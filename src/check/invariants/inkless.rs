//! Checks of the Inkless diskless-switch properties: lag safety, the electable prefix,
//! shrinks of switched partitions, the fetchers and the seal (INV-1..INV-9, INV-4b), the
//! quiescence property E2 and the vacuity counters V9–V12. The entries that name these
//! checks are in the one list in `mod.rs`.

use super::fetcher::stuck_fetcher_suffix;
use super::scope::{has_live_leader, live_leader};
use super::{PartView, StepView};
use crate::model::broker::{consolidating, lost_prefix};
use crate::model::event::Ids;
use crate::model::{Cluster, Event, NO_LEADER};
use crate::model::{Note, SEAL_NONE, SEAL_PENDING};
use crate::rules::RuleSet;

pub(super) fn inv1_lag_safety(v: &PartView) -> Option<String> {
    let (p, scope) = (v.partition, v.scope);
    let lag = scope.config.replica_lag_time_max_ms;
    if p.diskless && p.seal == SEAL_NONE {
        return None;
    }
    let (lead, state) = live_leader(v)?;
    let target = if p.seal >= 0 { p.seal } else { lead.leo() };
    p.isr.iter().filter(|&&r| r != p.leader).find_map(|&r| {
        let local = v.runtime.local(r)?;
        let silent_ms = scope.now_ms - local.in_sync_ms.max(state.epoch_since_ms);
        (local.leo() < target && silent_ms >= 2 * lag).then(|| {
            format!(
                "follower {r} in isr {} at LEO {} < {target}, silent for {silent_ms} ms",
                Ids(&p.isr),
                local.leo()
            )
        })
    })
}

pub(super) fn inv2_electable_prefix(s: &StepView) -> Option<String> {
    let c = s.next;
    (0..c.partitions.len()).find_map(|i| {
        let p = &c.partitions[i];
        // An unclean election is an explicit choice to lose data; it is not an admission.
        let unclean = s
            .outcome
            .effects()
            .iter()
            .any(|e| e.partition == i && e.unclean_election);
        if p.seal < 0 || unclean {
            return None;
        }
        // After an unclean election the partition has chosen to lose data: a replica it put
        // in the ISR without the prefix may be elected again (cleanly) later. Joins are still
        // judged.
        let gave_up = c.ghosts.get(i).is_some_and(|g| g.unclean_election);
        let moved = s
            .prev
            .partitions
            .get(i)
            .is_some_and(|q| q.leader != p.leader);
        let leader_local = c.runtime.partitions[i].local(p.leader);
        // A power loss that cut committed records (`Ghost::committed_lost`, Kafka accepts
        // it) may leave every candidate short, and so may an earlier unclean election; how
        // a short replica got back into the ISR is still judged below.
        let power_loss = c.ghosts[i].committed_lost;
        let short = |l: &&crate::model::broker::Local| lost_prefix(&c.runtime.config, p, l);
        if let Some(l) = leader_local.filter(|l| moved && !power_loss && !gave_up && short(l)) {
            return Some(format!(
                "p{i}: elected leader {} holds LEO {} < seal {}: the prefix is gone",
                p.leader,
                l.leo(),
                p.seal
            ));
        }
        let before: &[i32] = s.prev.partitions.get(i).map_or(&[], |q| &q.isr);
        // With ELR on, a member of the ELR elected leader comes back to the ISR it left
        // below min ISR, even within its own clean restart: not a join (its election is
        // judged above). Any other way into the ISR is still judged.
        let before_elr: &[i32] = s.prev.partitions.get(i).map_or(&[], |q| &q.elr);
        let from_elr = |r: i32| moved && r == p.leader && before_elr.contains(&r);
        // A restart leaves the ISR and may re-enter it within the one event.
        let restarted = match *s.event {
            Event::RestartBroker { broker, .. } => Some(broker),
            _ => None,
        };
        // (Fencing the last ISR member leaves it in place, so a lone replica never left.)
        let rejoined = |r: i32| Some(r) == restarted && before != [r];
        p.isr
            .iter()
            .filter(|&&r| (!before.contains(&r) || rejoined(r)) && !from_elr(r))
            .find_map(|&r| {
                let leo = c.runtime.partitions[i].local(r).map_or(0, |l| l.leo());
                (leo < p.seal).then(|| {
                    format!(
                        "p{i}: {r} joined isr {} with LEO {leo} < seal {}",
                        Ids(&p.isr),
                        p.seal
                    )
                })
            })
    })
}

/// Each lag shrink of this step with its partition.
fn shrinks<'a>(s: &'a StepView) -> impl Iterator<Item = (usize, &'a [(i32, i64)])> + 'a {
    s.outcome.notes().iter().filter_map(|n| match n {
        Note::Shrink {
            partition, removed, ..
        } => Some((*partition, removed.as_slice())),
        _ => None,
    })
}

pub(super) fn inv3_no_spurious_shrink(s: &StepView) -> Option<String> {
    shrinks(s).find_map(|(i, removed)| {
        let seal = s.next.partitions[i].seal;
        let bad = removed.iter().find(|(_, rec)| seal >= 0 && *rec >= seal)?;
        Some(format!(
            "p{i}: shrank {} recorded at {} ≥ seal {seal}",
            bad.0, bad.1
        ))
    })
}

pub(super) fn inv4_leader_change_evidence(s: &StepView) -> Option<String> {
    let c = s.next;
    shrinks(s).find_map(|(i, removed)| {
        let seal = c.partitions[i].seal;
        removed.iter().find_map(|&(r, rec)| {
            let leo = c.runtime.partitions[i].local(r)?.leo();
            let healthy =
                c.is_active(r) && !c.runtime.stalled.contains(&r) && seal >= 0 && leo >= seal;
            // The recorded offset tells the mechanisms apart (docs/findings.md F6, F10, F12):
            // -1, never recorded by this leader; or below the seal, a fetch that crossed it.
            let below = if (0..seal).contains(&rec) { " below the seal" } else { "" };
            healthy.then(|| {
                format!(
                    "p{i}: shrank healthy follower {r} (LEO {leo} ≥ seal {seal}, recorded {rec}{below})"
                )
            })
        })
    })
}

pub(super) fn inv5_single_writer(v: &PartView) -> Option<String> {
    let both = v
        .runtime
        .locals
        .iter()
        .find(|l| l.fetchers.classic.is_some() && l.fetchers.consolidation.is_some())?;
    Some(format!(
        "broker {} is on the classic and the consolidation fetcher",
        both.broker
    ))
}

pub(super) fn inv6_at_seal_response(s: &StepView) -> Option<String> {
    s.outcome.notes().iter().find_map(|n| {
        let Note::Fetch { partition, follower, fetch_offset, records, hw, .. } = *n else { return None };
        let p = &s.next.partitions[partition];
        let applies = p.diskless && p.seal >= 0 && fetch_offset >= p.seal;
        (applies && (records != 0 || hw != p.seal)).then(|| {
            format!("p{partition}: fetch by {follower} at {fetch_offset} ≥ seal {} got {records} records, HW {hw}", p.seal)
        })
    })
}

pub(super) fn inv7_exemption(s: &StepView) -> Option<String> {
    shrinks(s).find_map(|(i, removed)| {
        let p = &s.next.partitions[i];
        (p.diskless && p.seal == SEAL_NONE).then(|| {
            format!(
                "p{i}: lag shrink of {:?} on a seal -1 diskless partition",
                removed
            )
        })
    })
}

pub(super) fn inv8_seal_monotonic(s: &StepView) -> Option<String> {
    s.prev
        .partitions
        .iter()
        .zip(&s.next.partitions)
        .enumerate()
        .find_map(|(i, (a, b))| {
            let (from, to) = (a.seal, b.seal);
            let legal = from == to
                || (from == SEAL_NONE && to == SEAL_PENDING)
                || (from == SEAL_PENDING && to >= SEAL_NONE)
                || (from >= 0 && to >= 0 && to <= from);
            (!legal).then(|| format!("p{i}: seal {from} → {to}"))
        })
}

pub(super) fn inv9_back_on_consolidation(c: &Cluster, rules: &RuleSet) -> Option<String> {
    (0..c.partitions.len()).find_map(|i| {
        let p = &c.partitions[i];
        let consolidating = consolidating(&c.runtime.config, p) && p.seal != SEAL_PENDING;
        if !consolidating || !has_live_leader(c, i) {
            return None;
        }
        c.runtime.partitions[i]
            .locals
            .iter()
            .filter(|l| l.broker != p.leader && c.is_active(l.broker))
            .find_map(|l| {
                let (classic, consolidation) = (
                    l.fetchers.classic.is_some(),
                    l.fetchers.consolidation.is_some(),
                );
                (!consolidation || classic).then(|| {
                    format!(
                        "p{i} (seal {}): follower {} fetchers Fetchers {{ classic: {classic}, consolidation: {consolidation} }}{}",
                        p.seal,
                        l.broker,
                        stuck_fetcher_suffix(c, rules, i, l)
                    )
                })
            })
    })
}

pub(super) fn e2_readmission(c: &Cluster, rules: &RuleSet) -> Option<String> {
    (0..c.partitions.len()).find_map(|i| {
        let p = &c.partitions[i];
        if p.seal < 0 || !has_live_leader(c, i) {
            return None;
        }
        c.runtime.partitions[i].locals.iter().find_map(|l| {
            let out = c.is_active(l.broker) && l.leo() >= p.seal && !p.isr.contains(&l.broker);
            out.then(|| {
                format!(
                    "p{i}: {} holds the prefix (LEO {} ≥ seal {}) but stays out of isr {}{}",
                    l.broker,
                    l.leo(),
                    p.seal,
                    Ids(&p.isr),
                    stuck_fetcher_suffix(c, rules, i, l)
                )
            })
        })
    })
}

pub(super) fn inv4b_keyed_on_leader_move(s: &StepView) -> Option<String> {
    let c = s.next;
    (0..c.partitions.len().min(s.prev.partitions.len())).find_map(|i| {
        let (a, b) = (&s.prev.partitions[i], &c.partitions[i]);
        let same_leader_bump = a.leader == b.leader && b.leader_epoch > a.leader_epoch && b.leader != NO_LEADER;
        if !same_leader_bump || b.seal < 0 {
            return None;
        }
        let before = s.prev.runtime.partitions.get(i)?;
        c.runtime.partitions[i].locals.iter().filter(|l| l.broker != b.leader && b.isr.contains(&l.broker)).find_map(|l| {
            let was = before.local(l.broker)?;
            let (was_classic, is_classic) = (was.fetchers.classic.is_some(), l.fetchers.classic.is_some());
            let diverted = was.fetchers.consolidation.is_some() && !was_classic && is_classic;
            let extra_fetch = !was_classic && is_classic && l.hw >= b.seal && !consolidating(&c.runtime.config, b);
            (diverted || extra_fetch).then(|| {
                format!("p{i}: leader {} kept, epoch {} → {}, yet follower {} moved to the classic fetcher", b.leader, a.leader_epoch, b.leader_epoch, l.broker)
            })
        })
    })
}

pub(super) fn v9_seal_committed(s: &StepView) -> bool {
    s.prev
        .partitions
        .iter()
        .zip(&s.next.partitions)
        .any(|(a, b)| a.seal == SEAL_PENDING && b.seal >= 0)
}

pub(super) fn v10_switched_shrink(s: &StepView) -> bool {
    shrinks(s).any(|(i, _)| s.next.partitions[i].seal >= 0)
}

pub(super) fn v11_diverted(s: &StepView) -> bool {
    s.prev
        .runtime
        .partitions
        .iter()
        .zip(&s.next.runtime.partitions)
        .any(|(a, b)| {
            b.locals.iter().any(|l| {
                a.local(l.broker).is_some_and(|was| {
                    was.fetchers.consolidation.is_some()
                        && was.fetchers.classic.is_none()
                        && l.fetchers.classic.is_some()
                })
            })
        })
}

pub(super) fn v12_at_seal_answer(s: &StepView) -> bool {
    s.outcome.notes().iter().any(|n| {
        matches!(
            n,
            Note::Fetch {
                at_seal_branch: true,
                ..
            }
        )
    })
}
