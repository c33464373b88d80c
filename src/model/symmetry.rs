//! Renaming brokers in a state or an event: how far broker ids are interchangeable.
//!
//! Kafka reads a broker id's *order*, not only its identity. `PartitionReassignmentReplicas`
//! (metadata/src/main/java/org/apache/kafka/controller/PartitionReassignmentReplicas.java,
//! constructor, confluentinc/kafka `metadata/` = apache trunk d79bd502ec) builds `removing`
//! in a TreeSet and appends it to the target, so the replica order during a reassignment,
//! and after a cancel (`PartitionReassignmentRevert` keeps `replicas − adding` in that
//! order), hence the preferred leader and the election order, depend on which id is
//! smaller. So an arbitrary renaming is *not* a symmetry of the model, and `exhaust` does
//! not reduce by it: merging states that differ by a renaming would be unsound.
//! `tests/it/symmetry.rs` pins both halves: a concrete history where swapping two ids changes
//! the outcome, and, on generated histories, that every *order-preserving* renaming
//! commutes with every step (`apply(π s, π e) = π apply(s, e)`), so ids matter only
//! through equality and order, never through their values.
//!
//! With ELR on, values matter too: the controller's target ELR is listed in
//! `java.util.HashSet<Integer>` order (`model::builder`), bucket order, which is the ids'
//! order only below the set's 16 buckets. [`Renaming::cluster`] lists a renamed ELR in id
//! order, so it is exact for renamings into ids below 16; the symmetry test checks those
//! with ELR on and pins that a renaming into larger ids does not commute.
//!
//! Architecture Invariant: a renaming is a bijection on the cluster's registered brokers
//! and leaves negative ids (`NO_LEADER`, "none") alone.

use crate::model::{BrokerId, Cluster, Event, Partition};

/// A renaming: `to[i]` is the new id of `from[i]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Renaming {
    pub from: Vec<BrokerId>,
    pub to: Vec<BrokerId>,
}

impl Renaming {
    pub fn apply(&self, id: BrokerId) -> BrokerId {
        self.from
            .iter()
            .position(|&b| b == id)
            .map_or(id, |i| self.to[i])
    }

    fn ids(&self, list: &[BrokerId]) -> Vec<BrokerId> {
        list.iter().map(|&b| self.apply(b)).collect()
    }

    fn sorted_ids(&self, list: &[BrokerId]) -> Vec<BrokerId> {
        let mut out = self.ids(list);
        out.sort_unstable();
        out
    }

    pub fn event(&self, e: &Event) -> Event {
        let mut out = e.clone();
        for id in out.broker_ids_mut() {
            *id = self.apply(*id);
        }
        out
    }

    fn partition(&self, p: &Partition) -> Partition {
        Partition {
            replicas: self.ids(&p.replicas).into(),
            isr: self.ids(&p.isr).into(),
            adding_replicas: self.sorted_ids(&p.adding_replicas).into(),
            removing_replicas: self.sorted_ids(&p.removing_replicas).into(),
            leader: self.apply(p.leader),
            elr: self.sorted_ids(&p.elr).into(),
            last_known_elr: self.ids(&p.last_known_elr).into(),
            ..p.clone()
        }
    }

    /// The cluster with every broker id renamed, sorted lists re-sorted.
    pub fn cluster(&self, c: &Cluster) -> Cluster {
        let mut out = c.clone();
        for (b, _) in &mut out.brokers {
            *b = self.apply(*b);
        }
        out.brokers.sort_unstable_by_key(|&(b, _)| b);
        out.partitions = c.partitions.iter().map(|p| self.partition(p)).collect();
        for g in &mut out.ghosts {
            g.original = self.ids(&g.original).into();
            g.target = self.ids(&g.target).into();
            g.ever_targeted = self.sorted_ids(&g.ever_targeted).into();
        }
        let rt = &mut out.runtime;
        rt.stalled = self.sorted_ids(&rt.stalled);
        rt.unregistered = self.sorted_ids(&rt.unregistered);
        for (b, _) in &mut out.elr_index {
            *b = self.apply(*b);
        }
        out.elr_index.sort_unstable();
        for (b, _, _) in &mut out.offline_dirs {
            *b = self.apply(*b);
        }
        out.offline_dirs.sort_unstable();
        rt.decommissioned = self.sorted_ids(&rt.decommissioned);
        for p in &mut rt.partitions {
            for l in &mut p.locals {
                l.broker = self.apply(l.broker);
                l.previous_leader = l.previous_leader.map(|b| self.apply(b));
            }
            p.locals.sort_unstable_by_key(|l| l.broker);
            for leader in p.leader.iter_mut().chain(p.stale_leaders.iter_mut()) {
                leader.broker = self.apply(leader.broker);
                for (b, _) in &mut leader.recorded {
                    *b = self.apply(*b);
                }
                leader.recorded.sort_unstable_by_key(|&(b, _)| b);
            }
            p.stale_leaders.sort_unstable_by_key(|l| l.broker);
            for pending in &mut p.pending_acks {
                pending.leader = self.apply(pending.leader);
            }
        }
        out
    }
}
