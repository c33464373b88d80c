//! The broker side: what each broker holds for each partition (local log end and high
//! watermark, which fetcher the partition is on, the previous leader it saw), what the
//! leader records about each follower (`ReplicaState`), the clock and the ISR-expiration
//! task. Spec: shared/spec/inkless-isr.md §1–§3; upstream aiven/inkless (paths below are
//! under core/src/main/scala/kafka/ unless they say otherwise).
//!
//! The broker side reacts to the controller's registrations through [`sync`], which plays
//! the metadata delta on every live broker, as `ReplicaManager.applyDelta` does. Time moves
//! only through [`advance_time`], which runs the background activity the model does not
//! make explicit (follower fetches, consolidation appends) and the `isr-expiration` task.

use super::{BrokerId, BrokerState, Cluster, Partition, Rules, NO_LEADER};

/// Fixed for a history (the history header's `broker_config`).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BrokerConfig {
    /// `replica.lag.time.max.ms`; the ISR-expiration task runs every half of it.
    pub replica_lag_time_max_ms: i64,
    /// `diskless.remote.storage.consolidation.enable` on every broker.
    pub consolidation_enable: bool,
}

impl Default for BrokerConfig {
    fn default() -> Self {
        BrokerConfig {
            replica_lag_time_max_ms: 30_000,
            consolidation_enable: true,
        }
    }
}

pub const LAG_MAX_MS_MIN: i64 = 2;
pub const LAG_MAX_MS_MAX: i64 = 3_600_000;

/// `ReplicaState` (server/src/main/java/org/apache/kafka/server/replica/ReplicaState.java):
/// what the leader recorded of a follower's fetches.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct ReplicaState {
    /// The fetch offset of the last accepted follower fetch; -1 after a new-leader reset.
    pub leo: i64,
    pub last_fetch_leader_leo: i64,
    pub last_fetch_time_ms: i64,
    pub last_caught_up_time_ms: i64,
}

impl ReplicaState {
    pub const EMPTY: ReplicaState = ReplicaState {
        leo: -1,
        last_fetch_leader_leo: 0,
        last_fetch_time_ms: 0,
        last_caught_up_time_ms: 0,
    };

    /// `Replica.updateFetchStateOrThrow(o, t, e)`.
    pub fn update(&mut self, fetch_offset: i64, now_ms: i64, leader_leo: i64) {
        if fetch_offset >= leader_leo {
            self.last_caught_up_time_ms = self.last_caught_up_time_ms.max(now_ms);
        } else if fetch_offset >= self.last_fetch_leader_leo {
            self.last_caught_up_time_ms = self.last_caught_up_time_ms.max(self.last_fetch_time_ms);
        }
        self.leo = fetch_offset;
        self.last_fetch_leader_leo = leader_leo.max(self.last_fetch_leader_leo);
        self.last_fetch_time_ms = now_ms;
    }

    /// `Replica.resetReplicaState(now, leaderEpochStartOffset, isNewLeader, inIsr)`.
    pub fn reset(
        &mut self,
        now_ms: i64,
        leader_epoch_start_offset: i64,
        is_new_leader: bool,
        in_isr: bool,
    ) {
        self.last_caught_up_time_ms = if in_isr { now_ms } else { 0 };
        if is_new_leader {
            self.leo = -1;
            self.last_fetch_leader_leo = -1;
            self.last_fetch_time_ms = 0;
        } else {
            self.last_fetch_leader_leo = leader_epoch_start_offset;
            self.last_fetch_time_ms = if in_isr { now_ms } else { 0 };
        }
    }

    /// `ReplicaState.isCaughtUp`: note the *equality* on the offset leg.
    pub fn is_caught_up(&self, leader_leo: i64, now_ms: i64, lag_max_ms: i64) -> bool {
        self.leo == leader_leo || now_ms - self.last_caught_up_time_ms <= lag_max_ms
    }
}

/// Which fetchers hold the partition on this broker. Both at once breaks INV-5.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash, Default)]
pub struct Fetchers {
    /// `ReplicaFetcherManager` (classic fetch from the leader).
    pub classic: bool,
    /// `ConsolidationFetcherManager` (appends from object storage).
    pub consolidation: bool,
}

/// One broker's copy of one partition.
#[derive(Clone, PartialEq, Eq, Debug, Hash)]
pub struct Local {
    pub broker: BrokerId,
    pub leo: i64,
    pub hw: i64,
    pub fetchers: Fetchers,
    /// `Partition.leaderReplicaIdOpt` before the delta: `None` for a fresh Partition
    /// (after a restart), `Some(-1)` after a NO_LEADER delta.
    pub previous_leader: Option<BrokerId>,
    /// Epochs of the last registration this broker applied (-1: none yet).
    pub applied_leader_epoch: i32,
    pub applied_partition_epoch: i32,
    pub is_leader: bool,
    /// Harness ghost for INV-1: the last time this replica's log reached the partition's
    /// lag target (the seal once committed, else the leader's log end), or it joined the ISR.
    pub in_sync_ms: i64,
}

impl Local {
    pub fn fresh(broker: BrokerId, now_ms: i64) -> Local {
        Local {
            broker,
            leo: 0,
            hw: 0,
            fetchers: Fetchers::default(),
            previous_leader: None,
            applied_leader_epoch: -1,
            applied_partition_epoch: -1,
            is_leader: false,
            in_sync_ms: now_ms,
        }
    }
}

/// Leader-only state for a partition (`Partition` on the leading broker).
#[derive(Clone, PartialEq, Eq, Debug, Hash)]
pub struct LeaderState {
    pub broker: BrokerId,
    pub leader_epoch: i32,
    /// `leaderEpochStartOffset`: the leader's LEO when it took this epoch.
    pub leader_epoch_start_offset: i64,
    /// When this broker became leader, and when it last took a new leader epoch (which
    /// resets the records, restarting every ISR follower's grace period).
    pub since_ms: i64,
    pub epoch_since_ms: i64,
    /// The recorded state of each remote replica, sorted by broker.
    pub recorded: Vec<(BrokerId, ReplicaState)>,
}

impl LeaderState {
    pub fn rec(&self, r: BrokerId) -> Option<&ReplicaState> {
        self.recorded.iter().find(|(b, _)| *b == r).map(|(_, s)| s)
    }

    fn rec_mut(&mut self, r: BrokerId) -> &mut ReplicaState {
        if let Some(i) = self.recorded.iter().position(|(b, _)| *b == r) {
            return &mut self.recorded[i].1;
        }
        self.recorded.push((r, ReplicaState::EMPTY));
        self.recorded.sort_unstable_by_key(|(b, _)| *b);
        let i = self
            .recorded
            .iter()
            .position(|(b, _)| *b == r)
            .expect("just inserted");
        &mut self.recorded[i].1
    }
}

/// The broker side of one partition.
#[derive(Clone, PartialEq, Eq, Debug, Hash, Default)]
pub struct PartitionRuntime {
    /// One entry per broker hosting a replica, sorted by broker.
    pub locals: Vec<Local>,
    pub leader: Option<LeaderState>,
    /// End of the diskless log in object storage (offsets from the seal up).
    pub diskless_end: i64,
}

impl PartitionRuntime {
    pub fn local(&self, b: BrokerId) -> Option<&Local> {
        self.locals.iter().find(|l| l.broker == b)
    }

    pub fn local_mut(&mut self, b: BrokerId) -> Option<&mut Local> {
        self.locals.iter_mut().find(|l| l.broker == b)
    }
}

/// The whole broker side.
#[derive(Clone, PartialEq, Eq, Debug, Hash, Default)]
pub struct Runtime {
    pub config: BrokerConfig,
    pub now_ms: i64,
    /// The next run of the `isr-expiration` task.
    pub next_expiration_ms: i64,
    /// Brokers that are alive but whose fetchers make no progress.
    pub stalled: Vec<BrokerId>,
    pub partitions: Vec<PartitionRuntime>,
}

/// What the broker side did in a step, for the invariants and the step table.
#[derive(Clone, PartialEq, Eq, Debug, Hash)]
pub enum Note {
    /// A follower fetch and its answer.
    Fetch {
        partition: usize,
        follower: BrokerId,
        fetch_offset: i64,
        records: i64,
        hw: i64,
        at_seal_branch: bool,
    },
    /// The ISR-expiration task removed these replicas (with the leader's recorded offset).
    Shrink {
        partition: usize,
        leader: BrokerId,
        removed: Vec<(BrokerId, i64)>,
    },
    /// The leader added a follower to the ISR after a fetch.
    Expand {
        partition: usize,
        follower: BrokerId,
    },
}

/// The consolidating predicate on brokers: `consB(T) = brokerFlag ∧ diskless ∧ remote storage`.
pub fn consolidating(config: &BrokerConfig, p: &Partition) -> bool {
    config.consolidation_enable && p.diskless && p.remote_storage
}

/// A non-consolidating leader of a switched partition whose log ends below the seal cannot
/// rebuild the classic prefix (`maybeReconcileSwitchedLeader` fences it): it serves no
/// fetch and runs no ISR change. A consolidating one rebuilds from remote storage.
pub fn lost_prefix(config: &BrokerConfig, p: &Partition, leader: &Local) -> bool {
    p.seal >= 0 && !consolidating(config, p) && leader.leo < p.seal
}

/// When the leader moves, what a follower does (rule `leader-change`; model knobs).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Trigger {
    Never,
    /// `previousLeaderId ≠ None ∧ previousLeaderId ≠ newLeader`.
    LeaderMoved,
    /// Any new leader epoch (the variant the PR argues against).
    EpochBump,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct LeaderChange {
    /// B1 (switched, non-consolidating follower): extra disjunct for the catch-up fetch.
    pub catch_up: Trigger,
    /// B2 (consolidating follower): divert to the classic fetcher.
    pub divert: Trigger,
    /// Remove a diverted partition from the consolidation fetcher too.
    pub evict_consolidation: bool,
}

/// Admission of a follower at the seal (rule `seal-admission`; model knobs).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct SealAdmission {
    /// `maybeExpandIsrAtSeal`: admit at the at-seal branch once `rec.leo ≥ s`, and only
    /// when the leader holds the prefix (`LEO_L ≥ s`).
    pub at_seal: bool,
    /// #760 routing: a switched follower goes to consolidation (and leaves the classic
    /// fetcher) only once it is in the ISR; out-of-ISR ones restart on every delta.
    pub isr_gated_routing: bool,
}

/// Apply the newest registrations on every live broker (fenced brokers are down and catch
/// up when unfenced). Creates the local replica of a new assignment, drops removed ones.
pub fn sync(c: &mut Cluster, rules: &dyn Rules) {
    while c.runtime.partitions.len() < c.partitions.len() {
        c.runtime.partitions.push(PartitionRuntime::default());
    }
    // One broker-side entry per partition, never more: the two sides compare runtimes.
    assert_eq!(c.runtime.partitions.len(), c.partitions.len());
    for p in 0..c.partitions.len() {
        sync_partition(c, rules, p);
    }
    refresh_in_sync(c);
}

/// Stamp `in_sync_ms` on every replica whose log has reached its partition's lag target.
fn refresh_in_sync(c: &mut Cluster) {
    let now = c.runtime.now_ms;
    for (p, rt) in c.partitions.iter().zip(c.runtime.partitions.iter_mut()) {
        let leader_leo = rt.local(p.leader).map_or(0, |l| l.leo);
        let target = if p.seal >= 0 { p.seal } else { leader_leo };
        for l in &mut rt.locals {
            if l.leo >= target {
                l.in_sync_ms = now;
            }
        }
    }
}

fn is_up(c: &Cluster, b: BrokerId) -> bool {
    matches!(
        c.broker_state(b),
        Some(BrokerState::Active | BrokerState::ControlledShutdown)
    )
}

fn sync_partition(c: &mut Cluster, rules: &dyn Rules, p: usize) {
    // Fast path (this runs after every event, for every partition): every replica has
    // already applied the current registration, so there is nothing to play.
    let (part, rt) = (&c.partitions[p], &c.runtime.partitions[p]);
    let settled = rt.locals.len() == part.replicas.len()
        && rt.locals.iter().all(|l| {
            l.applied_partition_epoch == part.partition_epoch && part.replicas.contains(&l.broker)
        });
    if settled {
        return;
    }
    let now = c.runtime.now_ms;
    let part = c.partitions[p].clone();
    let rt = &mut c.runtime.partitions[p];
    rt.locals.retain(|l| part.replicas.contains(&l.broker));
    for &b in &part.replicas {
        if rt.local(b).is_none() {
            rt.locals.push(Local::fresh(b, now));
        }
    }
    rt.locals.sort_unstable_by_key(|l| l.broker);
    if rt
        .leader
        .as_ref()
        .is_some_and(|l| l.broker != part.leader || !part.replicas.contains(&l.broker))
    {
        rt.leader = None;
    }
    let brokers: Vec<BrokerId> = part.replicas.clone();
    for b in brokers {
        if !is_up(c, b) {
            continue;
        }
        let local = c.runtime.partitions[p].local(b).expect("created above");
        if local.applied_partition_epoch == part.partition_epoch {
            continue;
        }
        let new_leader_epoch = part.leader_epoch > local.applied_leader_epoch;
        if part.leader == b {
            make_leader(c, p, b, new_leader_epoch);
        } else {
            follower_delta(c, rules, p, b, new_leader_epoch);
        }
        let local = c.runtime.partitions[p].local_mut(b).expect("created above");
        local.previous_leader = Some(part.leader);
        local.applied_leader_epoch = part.leader_epoch;
        local.applied_partition_epoch = part.partition_epoch;
    }
}

/// `Partition.makeLeader` + `ReplicaManager.applyLocalLeadersDelta`: reset the recorded
/// state when the leader epoch rises, reconcile a switched leader, (re)start the leader's
/// own consolidation on a consolidating topic.
fn make_leader(c: &mut Cluster, p: usize, b: BrokerId, new_leader_epoch: bool) {
    let now = c.runtime.now_ms;
    let part = c.partitions[p].clone();
    let consolidating = consolidating(&c.runtime.config, &part);
    let rt = &mut c.runtime.partitions[p];
    let local = rt.local_mut(b).expect("leader hosts a replica");
    let is_new_leader = !local.is_leader;
    local.is_leader = true;
    local.fetchers.classic = false;
    let leo = local.leo;
    if new_leader_epoch || rt.leader.is_none() {
        let mut state = match rt.leader.take() {
            // Only the broker that leads now can have state here (`sync_partition` drops
            // any other's; demotion and restart drop it too), so it is never a new leader.
            Some(s) => {
                assert!(
                    !is_new_leader,
                    "p{p}: leader state left over for new leader {b}"
                );
                s
            }
            None => LeaderState {
                broker: b,
                leader_epoch: part.leader_epoch,
                leader_epoch_start_offset: leo,
                since_ms: now,
                epoch_since_ms: now,
                recorded: Vec::new(),
            },
        };
        state.epoch_since_ms = now;
        state.leader_epoch = part.leader_epoch;
        state.leader_epoch_start_offset = leo;
        if is_new_leader {
            state.since_ms = now;
        }
        for &r in part.replicas.iter().filter(|&&r| r != b) {
            state
                .rec_mut(r)
                .reset(now, leo, is_new_leader, part.isr.contains(&r));
        }
        state.recorded.retain(|(r, _)| part.replicas.contains(r));
        rt.leader = Some(state);
    }
    let local = rt.local_mut(b).expect("leader hosts a replica");
    if part.seal >= 0 {
        // maybeReconcileSwitchedLeader: a non-consolidating leader holds exactly the
        // classic prefix; the high watermark is raised to the seal.
        if !consolidating && local.leo > part.seal {
            local.leo = part.seal;
        }
        local.hw = local.hw.max(part.seal).min(local.leo);
    }
    let seal_ready = part.seal == -1 || part.seal >= 0;
    local.fetchers.consolidation = consolidating && seal_ready;
}

/// `ReplicaManager.applyLocalFollowersDelta`, branches B1 and B2 (spec §2(c)).
fn follower_delta(
    c: &mut Cluster,
    rules: &dyn Rules,
    p: usize,
    r: BrokerId,
    new_leader_epoch: bool,
) {
    let part = c.partitions[p].clone();
    let config = c.runtime.config;
    let cs = c.broker_state(r) == Some(BrokerState::ControlledShutdown);
    let consb = consolidating(&config, &part);
    let in_isr = part.isr.contains(&r);
    let policy = rules.leader_change();
    let admission = rules.seal_admission();
    let rt = &mut c.runtime.partitions[p];
    if rt.leader.as_ref().is_some_and(|l| l.broker == r) {
        rt.leader = None;
    }
    let local = rt.local_mut(r).expect("follower hosts a replica");
    let leader_changed = local
        .previous_leader
        .is_some_and(|prev| prev != part.leader);
    local.is_leader = false;
    let fires = |t: Trigger| match t {
        Trigger::Never => false,
        Trigger::LeaderMoved => leader_changed,
        Trigger::EpochBump => new_leader_epoch,
    };
    let s = part.seal;
    if part.diskless && !consb {
        // B1: switched, non-consolidating follower (a born-diskless one, seal -1, has no
        // classic log and neither clause below starts a fetch for it).
        // A committed seal: catch up, or (per the rule) prove itself to a moved leader.
        let catch_up = s >= 0 && !cs && (local.hw < s || !in_isr || fires(policy.catch_up));
        // Pending (#600): restart on every new leader epoch.
        let pending_restart = s == -2 && new_leader_epoch;
        if catch_up || pending_restart {
            local.fetchers.classic = true;
        }
        return;
    }
    // B2: classic or consolidating follower.
    if cs && (part.leader == NO_LEADER || !in_isr) {
        local.fetchers = Fetchers::default();
        return;
    }
    let held_for_isr = admission.isr_gated_routing && consb && s >= 0 && !in_isr;
    if !(new_leader_epoch || held_for_isr) {
        return;
    }
    let diverted = consb && fires(policy.divert);
    let ready = consb
        && (s == -1 || (s >= 0 && local.leo >= s && (!admission.isr_gated_routing || in_isr)));
    let to_consolidation = ready && !diverted;
    // Removal before the restart: each manager drops its own subset; the fixed diversion
    // also drops diverted partitions from consolidation; #760 drops the whole set from both.
    if admission.isr_gated_routing {
        local.fetchers = Fetchers::default();
    } else if to_consolidation {
        local.fetchers.consolidation = false;
    } else {
        local.fetchers.classic = false;
        if diverted && policy.evict_consolidation {
            local.fetchers.consolidation = false;
        }
    }
    if to_consolidation {
        local.fetchers.consolidation = true;
    } else if part.leader != NO_LEADER {
        local.fetchers.classic = true;
    }
}

/// Advance the clock by `ms`, in steps that stop at every run of the ISR-expiration task
/// (every `replica.lag.time.max.ms / 2`). Before each step, the background activity runs:
/// consolidation appends, then follower fetches, for every broker that is up and not stalled.
pub fn advance_time(c: &mut Cluster, rules: &dyn Rules, ms: i64, notes: &mut Vec<Note>) {
    let period = (c.runtime.config.replica_lag_time_max_ms / 2).max(1);
    if c.runtime.next_expiration_ms == 0 {
        c.runtime.next_expiration_ms = period;
    }
    let end = c.runtime.now_ms + ms.max(0);
    loop {
        background(c, rules, notes);
        let next = c.runtime.next_expiration_ms.min(end);
        c.runtime.now_ms = next;
        if next == c.runtime.next_expiration_ms {
            isr_expiration(c, rules, notes);
            c.runtime.next_expiration_ms += period;
        }
        if c.runtime.now_ms >= end {
            break;
        }
    }
    background(c, rules, notes);
}

/// Rounds of fetches per step: a fetch can admit a follower, whose next fetch then moves
/// the high watermark. Bounded so a step always ends.
const FETCH_ROUNDS: usize = 2;

fn background(c: &mut Cluster, rules: &dyn Rules, notes: &mut Vec<Note>) {
    refresh_in_sync(c);
    for p in 0..c.partitions.len() {
        consolidate(c, p);
    }
    for _ in 0..FETCH_ROUNDS {
        for p in 0..c.partitions.len() {
            let followers: Vec<BrokerId> = c.runtime.partitions[p]
                .locals
                .iter()
                .filter(|l| l.fetchers.classic)
                .map(|l| l.broker)
                .collect();
            for r in followers {
                follower_fetch(c, rules, p, r, notes);
            }
        }
    }
    refresh_in_sync(c);
}

fn active_unstalled(c: &Cluster, b: BrokerId) -> bool {
    c.is_active(b) && !c.runtime.stalled.contains(&b)
}

/// E3: every replica on the consolidation fetcher appends up to the diskless log end;
/// its high watermark follows the diskless one. Never touches the leader's records.
fn consolidate(c: &mut Cluster, p: usize) {
    let brokers: Vec<BrokerId> = c.runtime.partitions[p]
        .locals
        .iter()
        .map(|l| l.broker)
        .collect();
    for b in brokers {
        if !is_up(c, b) || c.runtime.stalled.contains(&b) {
            continue;
        }
        let rt = &mut c.runtime.partitions[p];
        let end = rt.diskless_end;
        let local = rt.local_mut(b).expect("listed");
        if local.fetchers.consolidation && local.leo < end {
            local.leo = end;
        }
        if local.fetchers.consolidation {
            local.hw = end.min(local.leo);
        }
    }
}

/// E4: one classic fetch from follower `r` at its log end, answered by the leader and
/// applied on the follower (`ReplicaManager.fetchMessages`, rule `seal-fetch`; then
/// `ReplicaFetcherThread.processPartitionData`).
pub fn follower_fetch(
    c: &mut Cluster,
    rules: &dyn Rules,
    p: usize,
    r: BrokerId,
    notes: &mut Vec<Note>,
) {
    let part = &c.partitions[p];
    let leader = part.leader;
    if leader == NO_LEADER || leader == r || !is_up(c, leader) || !active_unstalled(c, r) {
        return;
    }
    let rt = &c.runtime.partitions[p];
    let (Some(lead), Some(fol)) = (rt.local(leader), rt.local(r)) else {
        return;
    };
    if !lead.is_leader
        || lead.applied_leader_epoch != part.leader_epoch
        || !fol.fetchers.classic
        || rt.leader.is_none()
    {
        return;
    }
    if lost_prefix(&c.runtime.config, part, lead) {
        return;
    }
    let s = part.seal;
    if part.diskless && s == -1 {
        return; // born diskless: nothing to replicate classically
    }
    let (o, leader_leo) = (fol.leo, lead.leo);
    let consb = consolidating(&c.runtime.config, part);
    let local_path = !part.diskless || rules.follower_reads_local_log(consb, s, o, leader_leo);
    let now = c.runtime.now_ms;
    let admission = rules.seal_admission();
    let (records, hw, recorded_at) = if local_path {
        if o > leader_leo {
            // Out of range: the follower truncates to the leader's end; nothing recorded.
            let rt = &mut c.runtime.partitions[p];
            let f = rt.local_mut(r).expect("listed");
            f.leo = leader_leo;
            f.hw = f.hw.min(leader_leo);
            return;
        }
        (leader_leo - o, None, Some(o))
    } else if s >= 0 {
        let below_seal_gate = admission.at_seal && leader_leo < s;
        let recorded = (o >= s && !below_seal_gate).then_some(s);
        (0, Some(s), recorded)
    } else {
        return;
    };
    if let Some(at) = recorded_at {
        let rt = &mut c.runtime.partitions[p];
        rt.leader
            .as_mut()
            .expect("checked")
            .rec_mut(r)
            .update(at, now, leader_leo);
        maybe_increment_leader_hw(c, p);
    }
    let leader_hw = c.runtime.partitions[p].local(leader).expect("listed").hw;
    let hw = hw.unwrap_or(leader_hw);
    {
        let f = c.runtime.partitions[p].local_mut(r).expect("listed");
        f.leo += records;
        f.hw = hw.clamp(0, f.leo);
    }
    notes.push(Note::Fetch {
        partition: p,
        follower: r,
        fetch_offset: o,
        records,
        hw,
        at_seal_branch: !local_path,
    });
    // The follower processes the answer with the metadata it has (the ISR before any
    // expansion this fetch earns: AlterPartition reaches it later as a delta).
    maybe_evict(c, rules, p, r);
    if recorded_at.is_some() {
        maybe_expand_isr(c, rules, p, r, !local_path, notes);
    }
}

/// `Partition.maybeIncrementLeaderHW` for classic and pending partitions: the smallest
/// recorded offset over the ISR (the leader counts its own end). Never moves down.
fn maybe_increment_leader_hw(c: &mut Cluster, p: usize) {
    let part = &c.partitions[p];
    if part.diskless && part.seal != -2 {
        return; // switched: the seal and consolidation own the high watermark
    }
    let rt = &c.runtime.partitions[p];
    let Some(state) = rt.leader.as_ref() else {
        return;
    };
    let Some(lead) = rt.local(state.broker) else {
        return;
    };
    let mut hw = lead.leo;
    for &r in part.isr.iter().filter(|&&r| r != state.broker) {
        hw = hw.min(state.rec(r).map_or(-1, |s| s.leo));
    }
    let lead = c.runtime.partitions[p]
        .local_mut(part.leader)
        .expect("listed");
    if hw > lead.hw {
        lead.hw = hw;
    }
}

/// Generic expansion (`Partition.maybeExpandIsr`, `isFollowerInSync`) or, at the seal with
/// #760, `maybeExpandIsrAtSeal`. Goes to the controller as an AlterPartition.
fn maybe_expand_isr(
    c: &mut Cluster,
    rules: &dyn Rules,
    p: usize,
    r: BrokerId,
    at_seal_branch: bool,
    notes: &mut Vec<Note>,
) {
    let part = &c.partitions[p];
    if part.isr.contains(&r) || !c.is_active(r) {
        return;
    }
    let rt = &c.runtime.partitions[p];
    let state = rt.leader.as_ref().expect("fetch answered by a leader");
    let rec = state.rec(r).copied().unwrap_or(ReplicaState::EMPTY);
    let lead = rt.local(state.broker).expect("listed");
    let eligible = if at_seal_branch && rules.seal_admission().at_seal {
        rec.leo >= part.seal
    } else {
        rec.leo >= lead.hw && rec.leo >= state.leader_epoch_start_offset
    };
    if !eligible {
        return;
    }
    let mut isr = part.isr.clone();
    isr.push(r);
    if alter_isr(c, rules, p, isr) {
        notes.push(Note::Expand {
            partition: p,
            follower: r,
        });
        if let Some(l) = c.runtime.partitions[p].local_mut(r) {
            l.in_sync_ms = c.runtime.now_ms;
        }
    }
}

/// An AlterPartition from the leader with its current epochs, through the controller.
fn alter_isr(c: &mut Cluster, rules: &dyn Rules, p: usize, isr: Vec<BrokerId>) -> bool {
    let part = &c.partitions[p];
    let request = super::Event::AlterPartition {
        partition: p,
        isr,
        broker: None,
        leader_epoch: None,
        partition_epoch: None,
        // A leader elected uncleanly has recovered by the time it changes the ISR.
        leader_recovery_state: super::LeaderRecoveryState::Recovered,
    };
    let before = part.partition_epoch;
    super::controller::apply_controller(c, &request, rules);
    let changed = c.partitions[p].partition_epoch != before;
    sync(c, rules);
    changed
}

/// `ReplicaFetcherThread.processPartitionData` at the seal: hand a caught-up switched
/// partition back to consolidation (or drop the fetcher on a non-consolidating topic).
fn maybe_evict(c: &mut Cluster, rules: &dyn Rules, p: usize, r: BrokerId) {
    let part = &c.partitions[p];
    let s = part.seal;
    let consb = consolidating(&c.runtime.config, part);
    let in_isr = part.isr.contains(&r);
    let gated = rules.seal_admission().isr_gated_routing;
    let rt = &mut c.runtime.partitions[p];
    let f = rt.local_mut(r).expect("listed");
    let evict =
        part.diskless && s >= 0 && f.leo >= s && if gated { in_isr } else { consb || in_isr };
    if evict {
        f.fetchers.classic = false;
        if consb {
            f.fetchers.consolidation = true;
        }
    }
}

/// The `isr-expiration` task on every leader (rules `shrink` and `lag`).
fn isr_expiration(c: &mut Cluster, rules: &dyn Rules, notes: &mut Vec<Note>) {
    let now = c.runtime.now_ms;
    let lag = c.runtime.config.replica_lag_time_max_ms;
    for p in 0..c.partitions.len() {
        let part = c.partitions[p].clone();
        if part.leader == NO_LEADER || !is_up(c, part.leader) {
            continue;
        }
        let Some(cap) = rules.isr_shrink_cap(&part) else {
            continue;
        };
        let rt = &c.runtime.partitions[p];
        let Some(state) = rt
            .leader
            .as_ref()
            .filter(|s| s.leader_epoch == part.leader_epoch)
        else {
            continue;
        };
        let lead = rt.local(state.broker).expect("listed");
        if lost_prefix(&c.runtime.config, &part, lead) {
            continue;
        }
        let leader_leo = lead.leo;
        let removed: Vec<(BrokerId, i64)> = part
            .isr
            .iter()
            .filter(|&&r| r != part.leader)
            .filter_map(|&r| match state.rec(r) {
                Some(rec) => rules
                    .out_of_sync(rec, leader_leo, cap, now, lag)
                    .then_some((r, rec.leo)),
                None => Some((r, -1)),
            })
            .collect();
        if removed.is_empty() {
            continue;
        }
        let isr: Vec<BrokerId> = part
            .isr
            .iter()
            .copied()
            .filter(|r| !removed.iter().any(|(x, _)| x == r))
            .collect();
        if alter_isr(c, rules, p, isr) {
            notes.push(Note::Shrink {
                partition: p,
                leader: part.leader,
                removed,
            });
        }
    }
}

/// A broker process restarts: fresh `Partition` objects (no previous leader, no applied
/// delta, no fetcher), the log kept, or cut back to the high watermark after an unclean
/// shutdown. It applies the current registrations when it is next up.
pub fn reset_process(c: &mut Cluster, broker: BrokerId, unclean: bool) {
    let now = c.runtime.now_ms;
    for rt in &mut c.runtime.partitions {
        if rt.leader.as_ref().is_some_and(|l| l.broker == broker) {
            rt.leader = None;
        }
        if let Some(local) = rt.local_mut(broker) {
            let leo = if unclean { local.hw } else { local.leo };
            *local = Local {
                leo,
                hw: local.hw.min(leo),
                ..Local::fresh(broker, now)
            };
        }
    }
    c.runtime.stalled.retain(|&b| b != broker);
}

/// An explicit `alter_partition` event is the history asserting that the leader saw the
/// added followers caught up (it is how controller-only histories move replicas into the
/// ISR). Make the broker side agree: each added follower's log reaches the leader's end.
/// Expansions the broker side earns itself (fetch → `maybe_expand_isr`) do not come here.
pub fn caught_up_by_assertion(c: &mut Cluster, p: usize, isr_before: &[BrokerId]) {
    let part = &c.partitions[p];
    let Some(rt) = c.runtime.partitions.get_mut(p) else {
        return;
    };
    let leader_leo = rt.local(part.leader).map_or(0, |l| l.leo);
    let target = leader_leo.max(part.seal);
    for &r in part.isr.iter().filter(|r| !isr_before.contains(r)) {
        if let Some(l) = rt.local_mut(r) {
            l.leo = l.leo.max(target);
            l.in_sync_ms = c.runtime.now_ms;
        }
    }
}
