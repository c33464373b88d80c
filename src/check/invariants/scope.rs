//! What a per-partition state check reads, and which partitions a step touched; and
//! whether a partition has a live leader, which the Inkless and the fetcher checks both ask.
//!
//! A [`Check::Partition`](super::Check::Partition) check is a predicate of one partition
//! of the state after a step: its registration, its ghost, its broker side, and the few
//! cluster-wide facts in [`Scope`]. The types say so: a check gets a [`PartView`], which
//! holds nothing else (not the state before the step, not the event, not the outcome, not
//! another partition). So when a step leaves a partition's view equal to what it was
//! before the step, the check's answer on it is the answer it gave at the step before,
//! where the side was judged on that same view: it held there, or the side has violated
//! the invariant already and no longer runs it. The loop then judges only the partitions
//! the step [`touched`]; the first violation it reports is the one a walk over every
//! partition reports.
//!
//! Architecture invariant: after every step the state has one ghost and one broker-side
//! entry per partition (the controller creates the ghost with the partition, `sync`
//! creates the broker side in the same event), so a view always has all three.

use crate::model::broker::{lost_prefix, BrokerConfig, LeaderState, Local, PartitionRuntime};
use crate::model::{
    broker_state_in, BrokerId, BrokerState, Cluster, Ghost, Partition, NO_LEADER, PARTITIONS_MAX,
};

/// A set of partitions, bit i standing for partition i.
pub type PartSet = u32;

/// Every set of partitions fits a [`PartSet`].
const _: () = assert!(PARTITIONS_MAX <= PartSet::BITS as usize);

/// The cluster-wide facts a per-partition state check may read (of the state after the
/// step). When any differs from the state before the step, every partition counts as
/// touched.
#[derive(PartialEq, Eq)]
pub struct Scope<'a> {
    pub brokers: &'a [(BrokerId, BrokerState)],
    pub elr: bool,
    pub config: BrokerConfig,
    pub now_ms: i64,
}

impl<'a> Scope<'a> {
    pub fn of(c: &'a Cluster) -> Scope<'a> {
        Scope {
            brokers: &c.brokers,
            elr: c.elr,
            config: c.runtime.config,
            now_ms: c.runtime.now_ms,
        }
    }

    pub fn broker_state(&self, id: BrokerId) -> Option<BrokerState> {
        broker_state_in(self.brokers, id)
    }

    /// Registered, not fenced, not shutting down (`Cluster::is_active`).
    pub fn is_active(&self, id: BrokerId) -> bool {
        self.broker_state(id) == Some(BrokerState::Active)
    }

    /// Registered and running (`Cluster::is_up`).
    pub fn is_up(&self, id: BrokerId) -> bool {
        self.broker_state(id).is_some_and(BrokerState::is_up)
    }
}

/// One partition of a state, with the cluster-wide facts (see the module docs).
pub struct PartView<'a> {
    pub index: usize,
    pub partition: &'a Partition,
    pub ghost: &'a Ghost,
    pub runtime: &'a PartitionRuntime,
    pub scope: &'a Scope<'a>,
}

/// The view of partition `index` of `c`.
pub fn part_view<'a>(c: &'a Cluster, scope: &'a Scope<'a>, index: usize) -> PartView<'a> {
    PartView {
        index,
        partition: &c.partitions[index],
        ghost: &c.ghosts[index],
        runtime: &c.runtime.partitions[index],
        scope,
    }
}

/// Every partition of `c`.
pub fn all_partitions(c: &Cluster) -> PartSet {
    let n = c.partitions.len();
    assert!(
        n <= PARTITIONS_MAX && c.ghosts.len() == n && c.runtime.partitions.len() == n,
        "one ghost and one broker side per partition (of at most {PARTITIONS_MAX}): {n} partitions, {} ghosts, {} broker sides",
        c.ghosts.len(),
        c.runtime.partitions.len()
    );
    ((1u64 << n) - 1) as PartSet
}

/// The partitions of `next` whose view differs from `prev`'s: every one when the scope
/// changed; else the new ones and those whose registration, ghost or broker side changed.
pub fn touched(prev: &Cluster, next: &Cluster) -> PartSet {
    let all = all_partitions(next);
    if Scope::of(prev) != Scope::of(next) {
        return all;
    }
    let same = |i: usize| {
        prev.partitions.get(i) == Some(&next.partitions[i])
            && prev.ghosts.get(i) == Some(&next.ghosts[i])
            && prev.runtime.partitions.get(i) == Some(&next.runtime.partitions[i])
    };
    (0..next.partitions.len())
        .filter(|&i| !same(i))
        .fold(0, |set, i| set | 1 << i)
}

/// The leader's local replica and leader state, when it leads with the current epoch and
/// holds the prefix (a leader that lost it is INV-2's finding, not the others'), inside the ISR.
pub(super) fn live_leader<'a>(v: &PartView<'a>) -> Option<(&'a Local, &'a LeaderState)> {
    let (p, rt) = (v.partition, v.runtime);
    // A leader outside the ISR is a broken registration, S0's to report: what the
    // brokers do under it says nothing about the Inkless rules (docs/findings.md F2).
    if p.leader == NO_LEADER || !v.scope.is_up(p.leader) || !p.isr.contains(&p.leader) {
        return None;
    }
    let state = rt
        .leader
        .as_ref()
        .filter(|s| s.broker == p.leader && s.leader_epoch == p.leader_epoch)?;
    let local = rt.local(p.leader)?;
    (!lost_prefix(&v.scope.config, p, local)).then_some((local, state))
}

/// Whether partition `i` of a whole state has a [`live_leader`].
pub(super) fn has_live_leader(c: &Cluster, i: usize) -> bool {
    let scope = Scope::of(c);
    live_leader(&part_view(c, &scope, i)).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{apply, BrokerConfig, Event};
    use crate::rules::RuleSet;

    fn cluster_with_two_partitions() -> Cluster {
        let mut c = Cluster::new(&[1, 2, 3], BrokerConfig::default());
        let rules = RuleSet::complete();
        for _ in 0..2 {
            let create = Event::create_classic(vec![1, 2, 3]);
            assert!(!apply(&mut c, &create, &rules).is_rejected());
        }
        c
    }

    /// A change to one partition touches it alone; a change to the scope touches all;
    /// no change touches none.
    #[test]
    fn a_step_touches_what_it_changed() {
        let c = cluster_with_two_partitions();
        assert_eq!(all_partitions(&c), 0b11);
        assert_eq!(touched(&c, &c), 0);
        let mut one = c.clone();
        one.partitions[1].leader_epoch += 1;
        assert_eq!(touched(&c, &one), 0b10);
        let mut ghost = c.clone();
        ghost.ghosts[0].read_end += 1;
        assert_eq!(touched(&c, &ghost), 0b01);
        let mut side = c.clone();
        side.runtime.partitions[0].diskless_end += 1;
        assert_eq!(touched(&c, &side), 0b01);
        let mut clock = c.clone();
        clock.runtime.now_ms += 1;
        assert_eq!(touched(&c, &clock), 0b11);
        let mut fenced = c.clone();
        fenced.brokers[2].1 = BrokerState::Fenced;
        assert_eq!(touched(&c, &fenced), 0b11);
        // A partition the step created is touched.
        let mut fewer = c.clone();
        fewer.partitions.pop();
        fewer.ghosts.pop();
        fewer.runtime.partitions.pop();
        assert_eq!(touched(&fewer, &c), 0b10);
    }
}
