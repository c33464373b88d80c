//! The generator: raw bytes → a history that is valid by construction. One function,
//! [`decode`], shared by `hunt`, the libFuzzer targets and the AFL++ targets, so a crash
//! file means the same history under every engine.
//!
//! How it stays useful under a coverage-guided fuzzer:
//! - operations are drawn among those that make sense in the current state of a guide
//!   model (a partition to reassign exists, a broker to unfence is fenced, the ISR holds
//!   the leader and only active replicas), so little input is wasted on rejections;
//! - a few requests are made invalid on purpose (1 in 16) to exercise validation;
//! - choice index 0 is always the harmless `list_reassignments`, and generation stops when
//!   the input runs out, so exhausted input pads harmlessly; the coverage-guided engines'
//!   inputs are padded first to the length `hunt` would draw ([`Decode::padded`]);
//! - swarm testing: each history first draws per-operation weights (0 disables one), so
//!   some histories are all reassignments and ISR changes, others all fencing;
//! - everything is bounded: brokers, partitions, events and faults;
//! - the input's last byte draws the history's mode ([`Mode`]): ELR on or off and, with
//!   ELR on, the first partition's `min.insync.replicas`. It is read apart from the rest,
//!   so the bytes before it keep their meaning whichever mode they run in.
//!
//! Layout, after wasmtime's `crates/fuzzing` generators (generators apart from oracles):
//! this file holds the guide model ([`Guide`]) and the byte draws ([`Draw`]); `ops.rs`
//! holds the one table of operations, each with its precondition and its constructor.
//!
//! Stability: a byte string must keep decoding to the same history (crash files in
//! `corpus/`, `ci/fingerprints.sh`), so the order and kind of every draw is fixed. Change
//! a constructor's draws, or the order of the table, only on purpose. (The mode byte
//! changed every decode once, on purpose, when ELR came to the generator.)

mod ops;
#[cfg(test)]
mod tests;

use crate::check::history::History;
use crate::model::broker::Local;
use crate::model::{apply, BrokerConfig, BrokerId, BrokerState, Cluster, Event, Partition};
use crate::rules::RuleSet;
use crate::search::rng::Rng;
use arbitrary::Unstructured;
use ops::{pick_op, swarm_weights, OPS};

pub const GEN_EVENTS_MAX: usize = 32;
/// Events a history may run to when `hunt` continues one it ran before
/// (`search::splice`): a prefix of up to [`GEN_EVENTS_MAX`], and as many again.
pub const GEN_SPLICED_EVENTS_MAX: usize = 2 * GEN_EVENTS_MAX;
pub const GEN_BROKERS_MIN: i32 = 3;
pub const GEN_BROKERS_MAX: i32 = 6;
pub const GEN_PARTITIONS_MAX: usize = 3;
pub const GEN_TARGET_MAX: usize = 5;
/// Fence and controlled-shutdown events per history (healing is unbounded).
pub const GEN_FAULTS_MAX: usize = 4;

/// Event kinds (`Event` variants) the generator produces.
pub const GEN_EVENT_KINDS: usize = 29;
/// Feature changes (ELR turned on or off) per history, built only when the mode byte
/// draws the feature's starting setting too (`ElrMode::Drawn`): a campaign that forces
/// ELR on or off keeps it so.
pub const GEN_FEATURE_CHANGES_MAX: usize = 2;
/// Of every 8 values of the mode byte's bits 5-7, how many let a history change the
/// feature: one, since a history that may change it does in about three of four, and
/// every other mechanism is found in the histories that keep one setting.
pub const GEN_FEATURE_CHANGE_EIGHTHS: u8 = 1;

/// Of every 8 values of the mode byte's low 3 bits, how many turn ELR on.
pub const GEN_ELR_ON_EIGHTHS: u8 = 4;
/// The first partition's `min.insync.replicas` with ELR on, by the mode byte's bits 3-4:
/// 2 and more is where the ELR can fill (with 1 the ISR never drops below min ISR while a
/// replica is left to drop). With ELR off it stays 1 (see [`Guide::start`]).
pub const GEN_ELR_FIRST_MIN_ISR: [i32; 4] = [2, 2, 3, 1];

/// ELR on or off for every generated history (a campaign's `--elr`), or drawn from the
/// input's mode byte.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ElrMode {
    #[default]
    Drawn,
    On,
    Off,
}

/// What the mode byte decides for one history.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Mode {
    elr: bool,
    /// Whether `update_features` may be drawn (bits 5-7; forced modes read the same
    /// bits, and build nothing from the draw).
    feature_changes: bool,
    /// Whether the setting is drawn, so that `update_features` builds an event.
    toggles: bool,
    /// The first partition's `min.insync.replicas`.
    first_min_isr: i32,
}

/// Splits off the mode byte (the last; none in empty input, which reads as 0: ELR off)
/// and reads the mode from it. A forced mode reads the same bits for the min ISR, so a byte string
/// decodes to the same events drawn on or forced on.
fn mode(data: &[u8], elr_mode: ElrMode) -> (&[u8], Mode) {
    let (byte, rest) = data.split_last().map_or((0, data), |(&b, rest)| (b, rest));
    let elr = match elr_mode {
        ElrMode::Drawn => byte % 8 >= 8 - GEN_ELR_ON_EIGHTHS,
        ElrMode::On => true,
        ElrMode::Off => false,
    };
    let first_min_isr = if elr {
        GEN_ELR_FIRST_MIN_ISR[usize::from(byte >> 3) % 4]
    } else {
        1
    };
    let toggles = elr_mode == ElrMode::Drawn;
    let feature_changes = byte >> 5 < GEN_FEATURE_CHANGE_EIGHTHS;
    (
        rest,
        Mode {
            elr,
            feature_changes,
            toggles,
            first_min_isr,
        },
    )
}

/// How to decode: the one entry, [`decode`], takes these options.
pub struct Decode<'f> {
    /// The rule set of the generator's own guide model (unused with a `feed`).
    pub guide: RuleSet,
    /// At most this many events (at least the initial creation; capped at
    /// [`GEN_SPLICED_EVENTS_MAX`]): `hunt` uses fewer to look for shorter witnesses, and
    /// more for a continuation of an earlier history.
    pub events_max: usize,
    /// ELR drawn from the mode byte or forced; the guide runs with the history's setting.
    pub elr: ElrMode,
    /// Pad short input as the coverage-guided engines' inputs are (see below).
    pub padded: bool,
    /// A judge that runs the history as it is drawn, read as the guide instead of a model
    /// of the generator's own (`hunt`: each event is applied once per side, not once more
    /// for the guide).
    pub feed: Option<&'f mut dyn Feed>,
    /// Operations never drawn, by their `op` name (their swarm weight is 0): `conform
    /// --brokers` leaves out what its brokers judge cannot take.
    pub without: &'static [&'static str],
    /// A continuation (`hunt`'s chains, `search::splice`): once this many bytes are read
    /// (the parent's prefix), new swarm weights are drawn and the fault count restarts.
    /// The bytes before it decode as they would without it.
    pub continue_at: Option<usize>,
}

impl Default for Decode<'_> {
    /// Guided by the `trunk` model, every event the generator allows, ELR drawn.
    fn default() -> Self {
        Decode {
            guide: RuleSet::trunk(),
            events_max: GEN_EVENTS_MAX,
            elr: ElrMode::Drawn,
            padded: false,
            feed: None,
            without: &[],
            continue_at: None,
        }
    }
}

impl Decode<'_> {
    /// The defaults with `guide` as the guide model's rule set.
    pub fn guided(guide: RuleSet) -> Decode<'static> {
        Decode {
            guide,
            ..Decode::default()
        }
    }
}

/// What the generator reads its guide state from when a judge runs the history as it is
/// drawn: the judge implements it (the generator never imports one). The same history is
/// drawn as from a model of its own under the feed's guide rule set, as long as the feed
/// applies each event to the state it shows.
pub trait Feed {
    /// A history starts on these brokers, all active, with ELR on or off.
    fn start(&mut self, brokers: &[BrokerId], elr: bool);
    /// The state after the events pushed so far.
    fn state(&self) -> &Cluster;
    fn push(&mut self, event: &Event);
    /// The feed cannot go on (its model panicked): the history ends here.
    fn stopped(&self) -> bool;
}

/// Decode bytes into a history, choosing operations from the state of the guide.
pub fn decode(data: &[u8], options: Decode) -> History {
    decode_read(data, options).0
}

/// [`decode`], and how many bytes it read from the front of the input (of the padded
/// input when padded; the mode byte is not counted): a prefix of that many bytes, with
/// the same mode byte, decodes to the same history.
pub fn decode_read(data: &[u8], options: Decode) -> (History, usize) {
    if options.padded {
        let padded = pad(data);
        return decode_read(
            &padded,
            Decode {
                padded: false,
                ..options
            },
        );
    }
    let Decode {
        guide,
        events_max,
        elr,
        feed,
        without,
        continue_at,
        ..
    } = options;
    let drawn = Drawn {
        events_max,
        elr,
        continue_at,
    };
    let model = match feed {
        Some(feed) => Model::Fed(feed),
        None => Model::Own {
            rules: guide,
            cluster: Cluster::default(),
        },
    };
    draw(data, drawn, model, without)
}

/// The draw loop: the guide starts `model` on the drawn brokers and ELR setting, then
/// takes operations until the input or `events_max` runs out.
fn draw(data: &[u8], options: Drawn, model: Model, without: &[&str]) -> (History, usize) {
    let events_max = options.events_max.clamp(1, GEN_SPLICED_EVENTS_MAX);
    let (data, mode) = mode(data, options.elr);
    let mut u = Unstructured::new(data);
    let mut g = Guide::start(&mut u, model, mode);
    let mut weights = swarm(&mut u, without);
    let mut continued = options.continue_at;
    // Every iteration consumes input or adds an event; the cap makes termination obvious.
    // (At least the cap of a fresh history's length, which byte strings keep decoding by.)
    for _ in 0..4 * events_max.max(GEN_EVENTS_MAX) {
        if g.events.len() >= events_max || u.is_empty() || g.model.stopped() {
            break;
        }
        if continued.is_some_and(|at| data.len() - u.len() >= at) {
            // A continuation draws its own mix and faults: a parent's swarm may have had
            // no weight for what the next stage of its mechanism needs.
            continued = None;
            weights = swarm(&mut u, without);
            g.faults = 0;
            if u.is_empty() {
                break;
            }
        }
        let op = &OPS[pick_op(&g, &mut u, &weights)];
        if let Some(event) = (op.build)(&mut g, &mut u) {
            g.push(event);
        }
    }
    let mut history = History::new(g.brokers, g.events);
    history.eligible_leader_replicas = mode.elr;
    history.format = history.written_format();
    (history, data.len() - u.len())
}

/// The swarm weights, drawn, with the operations left out at 0.
fn swarm(u: &mut Unstructured, without: &[&str]) -> [u32; OPS.len()] {
    let mut weights = swarm_weights(u);
    for (w, op) in weights.iter_mut().zip(OPS) {
        if without.contains(&op.name) {
            *w = 0;
        }
    }
    weights
}

/// What [`draw`] takes from [`Decode`].
#[derive(Clone, Copy)]
struct Drawn {
    events_max: usize,
    elr: ElrMode,
    continue_at: Option<usize>,
}

/// The padding of what a coverage-guided engine hands over (`fuzz::input_history`,
/// [`Decode::padded`]): its bytes
/// first, then, when they are shorter than the length `hunt` would have drawn for them
/// (`Rng::fill`'s, from a stream seeded by their hash), that stream's bytes up to that
/// length; the mode byte stays the input's last. From an empty corpus an engine thus runs
/// histories as long as `hunt`'s from its first inputs, while the bytes it has still steer
/// the front of each. Bytes longer than [`INPUT_BYTES_MAX`](crate::search::rng::INPUT_BYTES_MAX) decode as unpadded.
/// (libFuzzer found CE-b2 in 7 of 10 minutes-long trials without the padding, 10 of 10
/// within 12 s with it: docs/benchmarks.md.)
fn pad(data: &[u8]) -> Vec<u8> {
    let (rest, mode_byte) = match data.split_last() {
        Some((&b, rest)) => (rest, Some(b)),
        None => (data, None),
    };
    let mut stream = Rng::new(fnv1a(data));
    let len = stream.input_len();
    let mut bytes = rest.to_vec();
    stream.extend_to(&mut bytes, len);
    bytes.truncate(len.max(rest.len()));
    bytes.extend(mode_byte);
    bytes
}

/// FNV-1a, 64 bits: the padding stream's seed (any stable hash of the bytes would do).
fn fnv1a(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Where the guide's state comes from: a model of its own under the guide rule set, or a
/// judge that runs the history as it is drawn.
enum Model<'f> {
    Own { rules: RuleSet, cluster: Cluster },
    Fed(&'f mut dyn Feed),
}

impl Model<'_> {
    fn start(&mut self, brokers: &[BrokerId], elr: bool) {
        match self {
            Model::Own { cluster, .. } => {
                *cluster = Cluster::new(brokers, BrokerConfig::default()).with_elr(elr)
            }
            Model::Fed(feed) => feed.start(brokers, elr),
        }
    }

    fn cluster(&self) -> &Cluster {
        match self {
            Model::Own { cluster, .. } => cluster,
            Model::Fed(feed) => feed.state(),
        }
    }

    fn push(&mut self, event: &Event) {
        match self {
            Model::Own { rules, cluster } => {
                apply(cluster, event, rules);
            }
            Model::Fed(feed) => feed.push(event),
        }
    }

    /// A fed run stops at a model panic, and the history with it.
    fn stopped(&self) -> bool {
        matches!(self, Model::Fed(feed) if feed.stopped())
    }
}

/// The guide model: what the preconditions read and the constructors draw from. Every
/// generated event is applied to it under the guide rule set.
struct Guide<'f> {
    model: Model<'f>,
    brokers: Vec<BrokerId>,
    events: Vec<Event>,
    /// CreatePartition and CreatePartitions events so far (each takes a partition index,
    /// accepted or not).
    creations: usize,
    /// Fence, controlled-shutdown, stall and restart events so far.
    faults: usize,
    /// Requests made invalid on purpose so far (the tests bound their share).
    invalid_on_purpose: usize,
    /// `update_features` may be drawn ([`Mode::feature_changes`]).
    feature_changes: bool,
    /// `update_features` builds an event ([`Mode::toggles`]).
    toggles: bool,
}

impl<'f> Guide<'f> {
    /// Draws the broker count and the initial partition. Exhausted input gives the
    /// starting state of the reassignment scenarios: brokers [1,2,3], replicas [1,2,3].
    fn start(u: &mut Unstructured, mut model: Model<'f>, mode: Mode) -> Guide<'f> {
        let n = u.int(GEN_BROKERS_MIN as usize, GEN_BROKERS_MAX as usize) as i32;
        let brokers: Vec<BrokerId> = (1..=n).collect();
        model.start(&brokers, mode.elr);
        let mut g = Guide {
            model,
            brokers,
            events: Vec::new(),
            creations: 0,
            faults: 0,
            invalid_on_purpose: 0,
            feature_changes: mode.feature_changes,
            toggles: mode.toggles,
        };
        let rf = u.pick(&[3, 2, 1, 4]);
        let replicas = u.distinct(&g.brokers, rf);
        let unclean_leader_election_enable = u.flag();
        // The first partition draws nothing more from the front: the first bytes shape the
        // whole history (one more draw here made KAFKA-21419 3-10x slower to find). Its
        // min.insync.replicas comes with the mode byte (1 with ELR off); later
        // `create_partition`s draw theirs.
        let min_insync_replicas = mode.first_min_isr;
        g.push(Event::CreatePartition {
            replicas,
            unclean_leader_election_enable,
            diskless: false,
            remote_storage: false,
            min_insync_replicas,
        });
        g
    }

    /// A copy on a model of its own with the same state (the tests try every operation
    /// on copies).
    #[cfg(test)]
    fn detached(&self) -> Guide<'static> {
        let rules = match &self.model {
            Model::Own { rules, .. } => *rules,
            Model::Fed(_) => RuleSet::trunk(),
        };
        Guide {
            model: Model::Own {
                rules,
                cluster: self.cluster().clone(),
            },
            brokers: self.brokers.clone(),
            events: self.events.clone(),
            creations: self.creations,
            faults: self.faults,
            invalid_on_purpose: self.invalid_on_purpose,
            feature_changes: self.feature_changes,
            toggles: self.toggles,
        }
    }

    /// The state after the events so far.
    fn cluster(&self) -> &Cluster {
        self.model.cluster()
    }

    fn push(&mut self, event: Event) {
        self.model.push(&event);
        self.creations += usize::from(matches!(
            event,
            Event::CreatePartition { .. } | Event::CreatePartitions { .. }
        ));
        self.events.push(event);
    }

    /// 1 in 16: make this request invalid on purpose.
    fn invalid_on_purpose(&mut self, u: &mut Unstructured) -> bool {
        let invalid = u.int(0, 15) == 15;
        self.invalid_on_purpose += usize::from(invalid);
        invalid
    }

    fn faults_left(&self) -> bool {
        self.faults < GEN_FAULTS_MAX
    }

    /// Counted in events: a rejected creation still takes a partition index statically.
    /// The live topics.
    fn topics(&self) -> usize {
        let of = &self.cluster().topic_of;
        (0..of.len()).filter(|&i| !of[..i].contains(&of[i])).count()
    }

    fn creations(&self) -> usize {
        self.creations
    }

    /// The feature may still be turned on or off in this history. Whether the mode allows
    /// it is the constructor's to say (it then builds nothing): a precondition that read
    /// the mode would make a forced mode draw other operations from the same bytes.
    fn feature_change_left(&self) -> bool {
        let changes = self
            .events
            .iter()
            .filter(|e| matches!(e, Event::UpdateFeatures { .. }));
        self.feature_changes && changes.count() < GEN_FEATURE_CHANGES_MAX
    }

    fn partitions_where(&self, eligible: impl Fn(&Cluster, &Partition) -> bool) -> Vec<usize> {
        let c = self.cluster();
        (0..c.partitions.len())
            .filter(|&i| eligible(c, &c.partitions[i]))
            .collect()
    }

    fn any_partition(&self, eligible: fn(&Cluster, &Partition) -> bool) -> bool {
        self.cluster()
            .partitions
            .iter()
            .any(|p| eligible(self.cluster(), p))
    }

    /// One of the partitions `eligible` accepts, or none if it accepts none.
    fn partition(
        &self,
        u: &mut Unstructured,
        eligible: impl Fn(&Cluster, &Partition) -> bool,
    ) -> Option<usize> {
        u.one_of(&self.partitions_where(eligible))
    }

    fn brokers_in(&self, states: &[BrokerState]) -> Vec<BrokerId> {
        let c = self.cluster();
        c.brokers
            .iter()
            .filter(|(_, s)| states.contains(s))
            .map(|&(b, _)| b)
            .collect()
    }

    fn any_broker_in(&self, states: &[BrokerState]) -> bool {
        self.cluster()
            .brokers
            .iter()
            .any(|(_, s)| states.contains(s))
    }

    fn broker_in(&self, u: &mut Unstructured, states: &[BrokerState]) -> Option<BrokerId> {
        u.one_of(&self.brokers_in(states))
    }

    fn any_local(&self, eligible: fn(&Local) -> bool) -> bool {
        let rt = &self.cluster().runtime.partitions;
        rt.iter().any(|p| p.locals.iter().any(eligible))
    }

    /// Partitions with at least one replica whose local state `eligible` accepts.
    fn partitions_with_local(&self, eligible: fn(&Local) -> bool) -> Vec<usize> {
        let rt = &self.cluster().runtime.partitions;
        (0..rt.len())
            .filter(|&i| rt[i].locals.iter().any(eligible))
            .collect()
    }
}

/// The draws every constructor makes, in one place so their byte consumption is fixed:
/// integers are drawn as `usize` in an inclusive range, and a draw past the end of the
/// input yields the range's low end (index 0, `false`).
trait Draw {
    fn int(&mut self, lo: usize, hi: usize) -> usize;
    fn flag(&mut self) -> bool;

    /// One of `items`, by index; `items` must not be empty.
    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.int(0, items.len() - 1)]
    }

    /// One of `items`, or none when there are none (then nothing is drawn).
    fn one_of<T: Copy>(&mut self, items: &[T]) -> Option<T> {
        (!items.is_empty()).then(|| self.pick(items))
    }

    /// `k` distinct ids drawn from `pool`, in drawn order.
    fn distinct(&mut self, pool: &[BrokerId], k: usize) -> Vec<BrokerId> {
        let mut free = pool.to_vec();
        let mut out = Vec::with_capacity(k);
        while out.len() < k && !free.is_empty() {
            let i = self.int(0, free.len() - 1);
            out.push(free.remove(i));
        }
        out
    }
}

impl Draw for Unstructured<'_> {
    fn int(&mut self, lo: usize, hi: usize) -> usize {
        self.int_in_range(lo..=hi).unwrap_or(lo)
    }

    fn flag(&mut self) -> bool {
        self.arbitrary::<bool>().unwrap_or(false)
    }
}
