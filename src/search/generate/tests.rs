//! The generator's own tests (its oracles live in `check/`): decoding is deterministic and
//! valid, the operation table keeps its promises, and deliberate invalidity stays rare.

use super::ops::{pick_op, swarm_weights, OpSpec, OPS};
use super::*;
use crate::check::invariants::INVARIANTS;
use crate::check::oracle;
use crate::search::rng::INPUT_BYTES_MAX;
use std::collections::HashSet;

/// A guide model of its own under `rules`, as `decode` makes without a feed.
fn own(rules: RuleSet) -> Model<'static> {
    Model::Own {
        rules,
        cluster: Cluster::default(),
    }
}

/// Decode with the defaults.
fn decode(data: &[u8]) -> History {
    super::decode(data, Decode::default())
}

fn decode_guided(data: &[u8], guide: &RuleSet) -> History {
    super::decode(data, Decode::guided(*guide))
}

fn decode_padded(data: &[u8]) -> History {
    let padded = Decode {
        padded: true,
        ..Decode::default()
    };
    super::decode(data, padded)
}

/// SplitMix64: a fixed, dependency-free byte source for tests.
fn bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed;
    (0..len)
        .map(|_| {
            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            (z ^ (z >> 31)) as u8
        })
        .collect()
}

#[test]
fn empty_input_is_the_kraft_starting_state() {
    let h = decode(&[]);
    assert_eq!(h.brokers, vec![1, 2, 3]);
    assert_eq!(
        h.events,
        vec![Event::CreatePartition {
            replicas: vec![1, 2, 3],
            unclean_leader_election_enable: false,
            diskless: false,
            remote_storage: false,
            min_insync_replicas: 1,
        }]
    );
    assert!(!h.eligible_leader_replicas);
    h.validate().unwrap();
}

#[test]
fn decoding_is_deterministic() {
    for seed in 0..50 {
        let data = bytes(seed, 300);
        assert_eq!(decode(&data), decode(&data));
    }
}

#[test]
fn every_history_is_valid_and_bounded() {
    for seed in 0..2000 {
        let h = decode(&bytes(seed, (seed % 400) as usize));
        h.validate().unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        assert!(h.events.len() <= GEN_EVENTS_MAX);
        assert!(
            h.brokers.len() <= GEN_BROKERS_MAX as usize
                && h.brokers.len() >= GEN_BROKERS_MIN as usize
        );
        let faults = h
            .events
            .iter()
            .filter(|e| {
                matches!(
                    e,
                    Event::FenceBroker { .. } | Event::ControlledShutdown { .. }
                )
            })
            .count();
        assert!(faults <= GEN_FAULTS_MAX);
    }
}

/// Valid by construction: under the guide rule set, rejections are the deliberate ones
/// (about 1 in 16 requests) plus the few the state makes unavoidable.
#[test]
fn most_requests_are_accepted_but_some_are_rejected() {
    let v6 = INVARIANTS.iter().position(|i| i.id == "V6").unwrap();
    let (mut rejected, mut steps) = (0u32, 0usize);
    for seed in 0..1000 {
        let h = decode(&bytes(seed, 256));
        let verdict = oracle::run(&h, &[RuleSet::trunk()], false);
        rejected += verdict.sides[0].sometimes[v6];
        steps += h.events.len();
    }
    let rate = f64::from(rejected) / steps as f64;
    assert!(rate > 0.01 && rate < 0.15, "rejection rate {rate}");
}

/// Every operation and every vacuity property is reached within a bounded sample
/// (the rarest, V8, needs a few thousand histories).
#[test]
fn reaches_every_operation_and_sometimes_property() {
    let mut seen_ops = std::collections::HashSet::new();
    let mut fired = vec![0u32; INVARIANTS.len()];
    // V8 (a completion inside an unclean election) comes about once per 25,000
    // histories: hunts count it, and tests/it/hunt.rs replays its committed witness.
    let sometimes: Vec<usize> = (0..INVARIANTS.len())
        .filter(|&i| {
            // V8 and V20 are rare (tests/it/hunt.rs says how rare); committed witnesses
            // reach them.
            INVARIANTS[i].kind == crate::check::invariants::Kind::Sometimes
                && !["V8", "V20"].contains(&INVARIANTS[i].id)
        })
        .collect();
    for seed in 0..20_000 {
        let guide = if seed % 2 == 0 {
            RuleSet::trunk()
        } else {
            RuleSet::complete()
        };
        let h = decode_guided(&bytes(seed, 256), &guide);
        for e in &h.events {
            seen_ops.insert(std::mem::discriminant(e));
        }
        // trunk + inkless-main never shrinks a diskless partition (V10): count both sides.
        let verdict = oracle::run(&h, &[RuleSet::trunk(), RuleSet::complete()], false);
        for side in &verdict.sides {
            for (f, n) in fired.iter_mut().zip(&side.sometimes) {
                *f += n;
            }
        }
        if seen_ops.len() == GEN_EVENT_KINDS && sometimes.iter().all(|&i| fired[i] > 0) {
            return;
        }
    }
    assert_eq!(
        seen_ops.len(),
        GEN_EVENT_KINDS,
        "some event kind is never generated"
    );
    for &i in &sometimes {
        assert!(fired[i] > 0, "{} never fired", INVARIANTS[i].id);
    }
}

#[test]
fn guide_rule_set_changes_the_history_only_through_state() {
    // Same bytes, two guides: both histories are valid and start the same way.
    let data = bytes(7, 200);
    let a = decode_guided(&data, &RuleSet::trunk());
    let b = decode_guided(&data, &RuleSet::complete());
    a.validate().unwrap();
    b.validate().unwrap();
    assert_eq!(a.events[0], b.events[0]);
}

/// The `op` tag of an event, as in history files.
fn tag(event: &Event) -> String {
    serde_json::to_value(event).unwrap()["op"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The tags `op` may build: its name, and for a stall of a stalled broker, a resume.
fn builds_its_own_kind(op: &OpSpec, event: &Event) -> bool {
    let t = tag(event);
    t == op.name
        || (op.name == "stall_broker" && t == "resume_broker")
        || (op.name == "elect_leaders" && t == "elect_leaders_many")
}

/// `decode`'s loop, step by step: before each step, `check` sees the guide and
/// the remaining input; after it, the index of the operation drawn. Returns the guide.
fn drive(
    data: &[u8],
    mut check: impl FnMut(&Guide, &[u8]),
    mut drawn: impl FnMut(&Guide, usize),
) -> Guide<'static> {
    let (data, m) = mode(data, ElrMode::Drawn);
    let mut u = Unstructured::new(data);
    let mut g = Guide::start(&mut u, own(RuleSet::trunk()), m);
    let weights = swarm_weights(&mut u);
    for _ in 0..4 * GEN_EVENTS_MAX {
        if g.events.len() >= GEN_EVENTS_MAX || u.is_empty() {
            break;
        }
        check(&g, u.peek_bytes(u.len()).unwrap());
        let i = pick_op(&g, &mut u, &weights);
        drawn(&g, i);
        if let Some(event) = (OPS[i].build)(&mut g, &mut u) {
            g.push(event);
        }
    }
    g
}

#[test]
fn list_reassignments_stays_index_zero_and_harmless() {
    let mut u = Unstructured::new(&[]);
    let mut g = Guide::start(&mut u, own(RuleSet::trunk()), mode(&[], ElrMode::Drawn).1);
    assert_eq!(OPS[0].name, "list_reassignments");
    assert!((OPS[0].applies)(&g));
    let before = g.cluster().clone();
    let event = (OPS[0].build)(&mut g, &mut u).unwrap();
    assert_eq!(event, Event::ListReassignments);
    g.push(event);
    assert_eq!(*g.cluster(), before);
}

#[test]
fn op_names_are_distinct() {
    let names: HashSet<&str> = OPS.iter().map(|op| op.name).collect();
    assert_eq!(names.len(), OPS.len());
}

/// The table's promise: a drawn operation applies, an applicable one always builds an
/// event (its precondition suffices for its constructor) of its own kind, every
/// operation is drawn and every event kind is built within a bounded sample.
#[test]
fn applicable_operations_build_their_own_kind() {
    let (mut drawn_ops, mut kinds) = (HashSet::new(), HashSet::new());
    for seed in 0..500 {
        let data = bytes(seed, 256);
        let check = |g: &Guide, rest: &[u8]| {
            for op in OPS.iter().filter(|op| (op.applies)(g)) {
                let (mut g, mut u) = (g.detached(), Unstructured::new(rest));
                let event = (op.build)(&mut g, &mut u)
                    .unwrap_or_else(|| panic!("seed {seed}: {} applies, builds none", op.name));
                assert!(builds_its_own_kind(op, &event), "{}: {event:?}", op.name);
            }
        };
        let drawn = |g: &Guide, i: usize| {
            assert!((OPS[i].applies)(g), "seed {seed}: drew {}", OPS[i].name);
            drawn_ops.insert(i);
        };
        let g = drive(&data, check, drawn);
        assert_eq!(g.events, decode(&data).events, "drive() is decode's loop");
        kinds.extend(g.events.iter().map(tag));
    }
    assert_eq!(drawn_ops.len(), OPS.len(), "some operation is never drawn");
    assert_eq!(
        kinds.len(),
        GEN_EVENT_KINDS,
        "some event kind is never built"
    );
}

/// At most one invalid-on-purpose draw per event, 1 in 16 each, and only some
/// operations draw one: deliberate invalidity stays a small share of the history.
#[test]
fn deliberately_invalid_requests_are_a_small_share() {
    let (mut invalid, mut built) = (0usize, 0usize);
    for seed in 0..1000 {
        let g = drive(&bytes(seed, 256), |_, _| {}, |_, _| {});
        invalid += g.invalid_on_purpose;
        built += g.events.len() - 1;
    }
    let share = invalid as f64 / built as f64;
    assert!(share > 0.005 && share < 1.0 / 16.0, "invalid share {share}");
}

/// The first partition's min.insync.replicas.
fn first_min_isr(h: &History) -> i32 {
    match h.events[0] {
        Event::CreatePartition {
            min_insync_replicas,
            ..
        } => min_insync_replicas,
        _ => panic!("a history starts with a creation"),
    }
}

/// Half the histories run with ELR on (4 of 8 mode-byte values; 2000 seeds put the share
/// within 0.45-0.55 unless the draw is broken); with ELR on, the first partition's min ISR
/// is drawn and is mostly 2, with ELR off it is always 1. Each history is valid (format 4
/// exactly with ELR on).
#[test]
fn elr_and_the_first_min_isr_are_drawn() {
    let (mut on, mut min_isr) = (0u32, [0u32; 4]);
    let n = 2000;
    for seed in 0..n {
        let h = decode(&bytes(seed, (seed % 400) as usize + 1));
        h.validate().unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let m = first_min_isr(&h);
        if h.eligible_leader_replicas {
            on += 1;
            min_isr[m as usize] += 1;
        } else {
            assert_eq!(m, 1, "seed {seed}: ELR off keeps the first min ISR at 1");
        }
    }
    let share = f64::from(on) / n as f64;
    assert!((0.45..=0.55).contains(&share), "ELR-on share {share}");
    assert!(
        min_isr[1] > 0 && min_isr[3] > 0,
        "min ISR draws {min_isr:?}"
    );
    assert!(
        min_isr[2] > min_isr[1] + min_isr[3],
        "min ISR draws {min_isr:?}"
    );
}

/// A forced mode decodes the same events as the drawn one where they agree, and the
/// opposite mode keeps the bytes before the mode byte meaning the same broker list.
#[test]
fn forced_elr_matches_the_drawn_mode() {
    let is_feature_change = |e: &Event| matches!(e, Event::UpdateFeatures { .. });
    let (mut agreed, mut forced, mut toggled) = (0, 0, 0);
    for seed in 0..300 {
        let data = bytes(seed, 256);
        let drawn = decode(&data);
        let trunk = RuleSet::trunk();
        for (elr, on) in [(ElrMode::On, true), (ElrMode::Off, false)] {
            let h = super::decode(
                &data,
                Decode {
                    elr,
                    ..Decode::guided(trunk)
                },
            );
            assert_eq!(h.eligible_leader_replicas, on);
            assert_eq!(h.brokers, drawn.brokers);
            h.validate().unwrap();
            assert!(
                !h.events.iter().any(is_feature_change),
                "seed {seed}: forced, yet changed"
            );
            if drawn.events.iter().any(is_feature_change) {
                // The drawn history turned the feature on or off: the forced one could not.
                toggled += 1;
            } else if on == drawn.eligible_leader_replicas {
                assert_eq!(h, drawn, "seed {seed}");
                agreed += 1;
            } else {
                forced += 1;
            }
        }
    }
    // Each seed's drawn history counts once per forced mode.
    assert_eq!(agreed + toggled / 2, 300);
    assert_eq!(forced + toggled / 2, 300);
    assert!(
        agreed >= 250,
        "only {agreed} of 300 without a feature change"
    );
    assert!(
        toggled >= 10,
        "only {} of 300 changed the feature",
        toggled / 2
    );
}

/// Generated ELR-on histories reach ELR states: an ELR fills (V18) and a leader is
/// elected from it (V19) within a bounded sample; ELR-off histories never fill one.
#[test]
fn elr_on_histories_fill_an_elr_and_elect_from_it() {
    let v18 = INVARIANTS.iter().position(|i| i.id == "V18").unwrap();
    let v19 = INVARIANTS.iter().position(|i| i.id == "V19").unwrap();
    let (mut filled, mut elected, mut filled_off) = (0, 0, 0);
    for seed in 0..3000 {
        let h = decode(&bytes(seed, 256));
        let side = &oracle::run(&h, &[RuleSet::trunk()], false).sides[0];
        if h.events
            .iter()
            .any(|e| matches!(e, Event::UpdateFeatures { .. }))
        {
            // Turned on or off mid-history: neither setting throughout.
            continue;
        }
        if h.eligible_leader_replicas {
            filled += u32::from(side.sometimes[v18] > 0);
            elected += u32::from(side.sometimes[v19] > 0);
        } else {
            filled_off += side.sometimes[v18];
        }
    }
    assert_eq!(filled_off, 0, "an ELR filled with ELR off");
    assert!(
        filled >= 500,
        "only {filled} ELR-on histories filled an ELR"
    );
    assert!(
        elected >= 50,
        "only {elected} ELR-on histories elected from an ELR"
    );
}

/// The engines' padding (`decode_padded`): bytes at least `INPUT_BYTES_MAX` long decode
/// as `decode` does; short ones decode to histories as long as `hunt`'s, deterministically
/// and validly, keep steering the front of the history, and keep the last byte as the mode
/// byte (ELR on for about half).
#[test]
fn padded_decoding_lengthens_short_inputs_only() {
    for seed in 0..200 {
        let long = bytes(seed, INPUT_BYTES_MAX + 1 + seed as usize);
        assert_eq!(decode_padded(&long), decode(&long));
    }
    let (mut padded_events, mut raw_events, mut elr_on) = (0, 0, 0);
    for seed in 0..1000u64 {
        let short = bytes(seed, (seed % 8) as usize);
        let h = decode_padded(&short);
        h.validate().unwrap();
        assert_eq!(h, decode_padded(&short), "deterministic");
        padded_events += h.events.len();
        raw_events += decode(&short).events.len();
        elr_on += usize::from(h.eligible_leader_replicas);
        if let Some(&last) = short.last() {
            assert_eq!(
                h.eligible_leader_replicas,
                mode(&short, ElrMode::Drawn).1.elr
            );
            let mut other = short.clone();
            *other.last_mut().unwrap() = last ^ 4;
            let flipped = decode_padded(&other).eligible_leader_replicas;
            assert_ne!(flipped, h.eligible_leader_replicas, "the mode byte decides");
        }
    }
    // hunt's histories average about 15 events; seven bytes make at most a few.
    assert!(
        padded_events > 10 * 1000 && raw_events < 3 * 1000,
        "{padded_events} {raw_events}"
    );
    assert!((400..=600).contains(&elr_on), "{elr_on}");
    // The bytes steer the front: the same first bytes, another tail seed, same brokers.
    let front = bytes(9, 40);
    let (a, b) = (
        decode_padded(&[&front[..], &[1]].concat()),
        decode_padded(&[&front[..], &[9]].concat()),
    );
    assert_eq!(a.brokers, b.brokers);
    assert_eq!(a.events[0], b.events[0]);
}

/// What `hunt`'s chains build on (`search::splice`): the bytes a decode read, with the
/// mode byte, decode to the same history; a continuation from a cut keeps every event
/// drawn before it, and may run past a fresh history's length.
#[test]
fn a_prefix_of_what_was_read_decodes_to_a_prefix() {
    let mut longer = 0;
    for seed in 0..300u64 {
        let data = bytes(seed, 1 + (seed as usize * 7) % INPUT_BYTES_MAX);
        let (h, read) = decode_read(&data, Decode::default());
        let (mode, body) = data.split_last().expect("non-empty");
        let mut prefix = body[..read].to_vec();
        prefix.push(*mode);
        assert_eq!(
            decode(&prefix),
            h,
            "seed {seed}: the bytes read decode the same"
        );
        // Cut at the end of what was read, then 256 more bytes: the parent's events come
        // first, whatever the continuation's mix (all but its last, which may have been
        // drawn from input that ran out, and reads the new bytes instead).
        let mut spliced = body[..read].to_vec();
        spliced.extend(bytes(seed + 1000, 256));
        spliced.push(*mode);
        let continued = Decode {
            events_max: GEN_SPLICED_EVENTS_MAX,
            continue_at: Some(read),
            ..Decode::default()
        };
        let c = super::decode(&spliced, continued);
        let kept = h.events.len() - 1;
        assert_eq!(c.events[..kept], h.events[..kept], "seed {seed}");
        assert!(c.events.len() <= GEN_SPLICED_EVENTS_MAX);
        longer += usize::from(c.events.len() > GEN_EVENTS_MAX);
    }
    assert!(
        longer > 0,
        "some continuations run past a fresh history's length"
    );
}
