//! History-level minimization: drop events, shorten lists, renumber brokers, clear
//! optional fields, as long as the failure predicate still holds. Greedy passes to a
//! fixpoint, bounded by `ROUNDS_MAX`; every candidate must pass `History::validate`.

use crate::check::history::History;
use crate::model::{BrokerId, Event};

const ROUNDS_MAX: usize = 16;

pub fn minimize(history: &History, fails: impl Fn(&History) -> bool) -> History {
    let mut best = history.clone();
    let accept = |candidate: &History| candidate.validate().is_ok() && fails(candidate);
    for _ in 0..ROUNDS_MAX {
        let before = best.clone();
        drop_events(&mut best, &accept);
        shorten_lists(&mut best, &accept);
        simplify_fields(&mut best, &accept);
        renumber_brokers(&mut best, &accept);
        drop_brokers(&mut best, &accept);
        if best == before {
            break;
        }
    }
    best
}

/// Remove event `i`. Removing a partition's creation also removes the events that address
/// it and renumbers the partitions created after it.
pub fn without_event(h: &History, i: usize) -> History {
    let mut out = h.clone();
    remove_event(&mut out, i);
    out
}

/// [`without_event`] in place (a window of removals copies the history once, not once per
/// event).
fn remove_event(h: &mut History, i: usize) {
    let creates = |e: &Event| {
        matches!(
            e,
            Event::CreatePartition { .. } | Event::CreatePartitions { .. }
        )
    };
    let gone = h.events[..i].iter().filter(|e| creates(e)).count();
    // After a deletion an index counts the live partitions, which only a run knows: such a
    // history loses the event alone, and the run judges what the others now address.
    let deletes = h
        .events
        .iter()
        .any(|e| matches!(e, Event::DeleteTopic { .. }));
    let removed = h.events.remove(i);
    // Removing the last event of a later format writes the history in the earlier one.
    h.format = h.written_format();
    if !creates(&removed) || deletes {
        return;
    }
    h.events.retain(|e| e.partition() != Some(gone));
    let renumber = |p: &mut usize| {
        if *p > gone {
            *p -= 1;
        }
    };
    for e in &mut h.events {
        if let Some(p) = e.partition_mut() {
            renumber(p);
        }
        if let Event::ElectLeadersMany {
            partitions: Some(list),
            ..
        } = e
        {
            list.retain(|&p| p != gone);
            list.iter_mut().for_each(renumber);
        }
    }
}

/// ddmin-style: try removing contiguous windows, largest first, so that events which are
/// only removable together (a reassignment and the cancel that undoes it) go at once.
fn drop_events(best: &mut History, accept: &impl Fn(&History) -> bool) {
    let mut size = best.events.len().max(1);
    loop {
        let mut start = best.events.len();
        while start > 0 {
            start -= 1;
            if start + size > best.events.len() {
                continue;
            }
            let mut candidate = best.clone();
            for i in (start..start + size).rev() {
                remove_event(&mut candidate, i);
            }
            if accept(&candidate) {
                *best = candidate;
            }
        }
        if size == 1 {
            break;
        }
        size /= 2;
    }
}

fn list_of(e: &mut Event) -> Option<&mut Vec<BrokerId>> {
    match e {
        Event::CreatePartition { replicas: l, .. }
        | Event::CreatePartitions { replicas: l, .. }
        | Event::Reassign { target: l, .. }
        | Event::AlterPartition { isr: l, .. } => Some(l),
        _ => None,
    }
}

fn shorten_lists(best: &mut History, accept: &impl Fn(&History) -> bool) {
    for i in 0..best.events.len() {
        let mut j = 0;
        loop {
            let mut candidate = best.clone();
            let Some(list) = list_of(&mut candidate.events[i]) else {
                break;
            };
            if j >= list.len() {
                break;
            }
            list.remove(j);
            if accept(&candidate) {
                *best = candidate;
            } else {
                j += 1;
            }
        }
    }
}

fn simplify_fields(best: &mut History, accept: &impl Fn(&History) -> bool) {
    for i in 0..best.events.len() {
        let mut candidate = best.clone();
        match &mut candidate.events[i] {
            Event::CreatePartition {
                unclean_leader_election_enable: f,
                ..
            } => *f = false,
            Event::Reassign {
                allow_replication_factor_change: f,
                ..
            } => *f = true,
            Event::AlterPartition {
                broker,
                leader_epoch,
                partition_epoch,
                ..
            } => {
                *broker = None;
                *leader_epoch = None;
                *partition_epoch = None;
            }
            _ => continue,
        }
        if candidate != *best && accept(&candidate) {
            *best = candidate;
        }
    }
}

/// Renumber brokers 1, 2, 3... in order of first mention (events first, then the header).
fn renumber_brokers(best: &mut History, accept: &impl Fn(&History) -> bool) {
    let mut order: Vec<BrokerId> = Vec::new();
    let mut scratch = best.clone();
    for e in &mut scratch.events {
        for id in e.broker_ids_mut() {
            if best.brokers.contains(id) && !order.contains(id) {
                order.push(*id);
            }
        }
    }
    for &b in &best.brokers {
        if !order.contains(&b) {
            order.push(b);
        }
    }
    let map = |id: BrokerId| {
        order
            .iter()
            .position(|&b| b == id)
            .map_or(id, |p| p as BrokerId + 1)
    };
    let mut candidate = best.clone();
    candidate.brokers = candidate.brokers.iter().map(|&b| map(b)).collect();
    candidate.brokers.sort_unstable();
    for e in &mut candidate.events {
        for id in e.broker_ids_mut() {
            *id = map(*id);
        }
    }
    if candidate != *best && accept(&candidate) {
        *best = candidate;
    }
}

fn drop_brokers(best: &mut History, accept: &impl Fn(&History) -> bool) {
    let mut i = best.brokers.len();
    while i > 1 {
        i -= 1;
        let mut candidate = best.clone();
        candidate.brokers.remove(i);
        if accept(&candidate) {
            *best = candidate;
        }
    }
}
