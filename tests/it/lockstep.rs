//! Lockstep sharing (src/check/agree.rs): two sides share one state while their rules
//! answer alike. A two-sided verdict must be exactly the two one-sided ones put together,
//! every step's state and outcome included, with the first divergence where the recorded
//! states first differ; on generated histories, under pairs of both families, and with
//! histories that split, split late and never split among them.

use isrfuzz::check::history::History;
use isrfuzz::check::oracle::{self, SideRun};
use isrfuzz::rules::RuleSet;
use isrfuzz::search::generate::{decode, Decode};
use isrfuzz::search::rng::Rng;

fn decode_guided(data: &[u8], guide: &RuleSet) -> History {
    decode(data, Decode::guided(*guide))
}

fn same_side(two: &SideRun, one: &SideRun) {
    assert_eq!(two.rules, one.rules);
    assert_eq!(two.violations, one.violations);
    assert_eq!(two.sometimes, one.sometimes);
    assert_eq!(two.first_fired, one.first_fired);
    assert_eq!(two.steps.len(), one.steps.len());
    for (a, b) in two.steps.iter().zip(&one.steps) {
        assert_eq!(a.outcome, b.outcome);
        assert!(a.state == b.state);
    }
}

/// The first step whose recorded states or outcomes differ between two one-sided runs.
fn first_difference(a: &SideRun, b: &SideRun) -> Option<usize> {
    a.steps
        .iter()
        .zip(&b.steps)
        .position(|(x, y)| !x.state.same_kafka_state(&y.state) || x.outcome != y.outcome)
}

#[test]
fn a_two_sided_run_is_its_two_one_sided_runs() {
    let pairs = [
        "trunk:complete",
        "trunk+inkless-complete:complete",
        "transients-tracked+inkless-main:complete",
        "pr756+pr760:complete",
        "complete+truncation=hw:complete",
        "complete:complete",
    ];
    let (mut split, mut never_split, mut late) = (0, 0, 0);
    let mut buf = Vec::new();
    for (k, pair) in pairs.iter().enumerate() {
        let sides = RuleSet::parse_pair(pair).unwrap();
        for seed in 0..150u64 {
            Rng::new(seed * 31 + k as u64).fill(&mut buf);
            let history: History = decode_guided(&buf, &sides[(seed % 2) as usize]);
            let two = oracle::run(&history, &sides, true);
            let a = oracle::run(&history, &sides[..1], true);
            let b = oracle::run(&history, &sides[1..], true);
            assert_eq!(two.harness_bug, None);
            same_side(&two.sides[0], &a.sides[0]);
            same_side(&two.sides[1], &b.sides[0]);
            let diverged = first_difference(&a.sides[0], &b.sides[0]);
            assert_eq!(two.first_divergence, diverged, "{pair} seed {seed}");
            match diverged {
                None => never_split += 1,
                Some(step) => {
                    split += 1;
                    late += usize::from(step > 3);
                }
            }
        }
    }
    assert!(
        split > 50 && never_split > 50 && late > 20,
        "{split} {never_split} {late}"
    );
}

/// A run that judges one invariant (src/check/focused.rs, minimization's predicate)
/// reports for it what the full run does: the same first violation (step and detail), and
/// the same first firings of the vacuity properties up to it; under rule sets that break
/// step and quiescence invariants, on histories where some break and some hold.
#[test]
fn a_focused_run_reports_what_the_full_run_does() {
    use isrfuzz::check::focused::run_focused;
    use isrfuzz::check::invariants::{Kind, INVARIANTS};
    let (mut violated, mut held, mut fired) = (0, 0, 0);
    let mut buf = Vec::new();
    for (k, rules) in [
        "trunk",
        "pr756+pr760",
        "inkless-main",
        "complete+truncation=hw",
    ]
    .iter()
    .enumerate()
    {
        let rules = RuleSet::parse(rules).unwrap();
        for seed in 0..84u64 {
            Rng::new(seed * 7 + k as u64).fill(&mut buf);
            let history = decode_guided(&buf, &rules);
            let full = &oracle::run(&history, &[rules], false).sides[0];
            for inv in INVARIANTS.iter().filter(|i| i.kind != Kind::Sometimes) {
                let one = run_focused(&history, rules, inv.id, true).unwrap();
                let expected: Vec<_> = full
                    .violations
                    .iter()
                    .filter(|v| v.invariant == inv.id)
                    .collect();
                assert_eq!(
                    one.violations.iter().collect::<Vec<_>>(),
                    expected,
                    "{}",
                    inv.id
                );
                let end = expected.first().map_or(usize::MAX, |v| v.step);
                let upto = |f: &[u32]| {
                    let kept = |&s: &u32| if s as usize <= end { s } else { u32::MAX };
                    f.iter().map(kept).collect::<Vec<_>>()
                };
                assert_eq!(
                    upto(&one.first_fired),
                    upto(&full.first_fired),
                    "{}",
                    inv.id
                );
                fired += upto(&one.first_fired)
                    .iter()
                    .filter(|&&s| s != u32::MAX)
                    .count();
                if expected.is_empty() {
                    held += 1;
                } else {
                    violated += 1;
                }
            }
        }
    }
    assert!(
        violated > 100 && held > 1000 && fired > 1000,
        "{violated} {held} {fired}"
    );
}

/// An invariant the list does not have gives no focused run.
#[test]
fn a_focused_run_of_an_unknown_invariant_is_none() {
    let history = decode_guided(&[1, 2, 3], &RuleSet::complete());
    assert!(
        isrfuzz::check::focused::run_focused(&history, RuleSet::complete(), "G99", true).is_none()
    );
}

/// Drawing a history while judging it (`decode_judged`, what `hunt` does: the guide reads
/// its side of the run) gives the history `decode_with` draws and the verdict
/// `oracle::run` gives it, with either side as the guide and shorter bounds too.
#[test]
fn a_history_judged_as_it_is_drawn_is_the_same_history_and_verdict() {
    use isrfuzz::search::generate::GEN_EVENTS_MAX;
    use isrfuzz::search::judged::decode_judged;
    let mut buf = Vec::new();
    let mut violated = 0;
    for (k, pair) in [
        "trunk:complete",
        "pr756+pr760:complete",
        "complete:complete",
    ]
    .iter()
    .enumerate()
    {
        let pair = RuleSet::parse_pair(pair).unwrap();
        let sides = if pair[0] == pair[1] {
            &pair[..1]
        } else {
            &pair[..]
        };
        for seed in 0..120u64 {
            Rng::new(seed * 5 + k as u64).fill(&mut buf);
            let guide = (seed % 2) as usize % sides.len();
            let events_max = [GEN_EVENTS_MAX, 7][(seed % 3 == 0) as usize];
            let (h, v, _) = decode_judged(&buf, sides, guide, events_max, Default::default(), None);
            let options = Decode {
                events_max,
                ..Decode::guided(sides[guide])
            };
            let alone = decode(&buf, options);
            assert_eq!(h, alone, "{pair:?} seed {seed}");
            let w = oracle::run(&alone, sides, false);
            assert_eq!(v.fingerprint(), w.fingerprint(), "{pair:?} seed {seed}");
            for (a, b) in v.sides.iter().zip(&w.sides) {
                assert_eq!(a.first_fired, b.first_fired);
            }
            violated += usize::from(v.any_violation());
        }
    }
    assert!(violated > 20, "{violated}");
}

/// Judging counts: per-partition violations, steps, steps that left a partition untouched.
#[derive(Default, Debug)]
struct Judged {
    found: usize,
    steps: usize,
    skipped: usize,
}

/// Replay `history`'s recorded run under `rules` with every partition judged at every step,
/// and assert it finds exactly the step violations the run reported.
fn judged_alike(history: &History, rules: RuleSet, name: &str, n: &mut Judged) {
    use isrfuzz::check::invariants::{
        all_partitions, by_id, step_violations_except, touched, Check, StepView,
    };
    use isrfuzz::model::Cluster;
    let per_partition = |id: &str| {
        let check = &by_id(id).unwrap().check;
        matches!(check, Check::Partition(_) | Check::PartitionUnderRules(_))
    };
    let run = &oracle::run(history, &[rules], true).sides[0];
    let mut prev = Cluster::new(&history.brokers, history.broker_config)
        .with_elr(history.eligible_leader_replicas);
    let mut known: Vec<&str> = Vec::new();
    for (step, (event, record)) in history.events.iter().zip(&run.steps).enumerate() {
        let before = isrfuzz::check::invariants::before_step(&prev, event, &record.outcome);
        let view = StepView {
            prev: &before,
            next: &record.state,
            event,
            outcome: &record.outcome,
        };
        let all: Vec<_> = step_violations_except(&view, &rules, |id| known.contains(&id))
            .map(|(id, detail)| (id, step, detail))
            .collect();
        let reported: Vec<_> = (run.violations.iter())
            .filter(|v| v.step == step)
            .map(|v| (v.invariant, v.step, v.detail.clone()))
            .collect();
        assert_eq!(reported, all, "{name} step {step}");
        n.found += all.iter().filter(|(id, ..)| per_partition(id)).count();
        known.extend(all.iter().map(|(id, ..)| *id));
        n.steps += 1;
        n.skipped += usize::from(touched(&before, &record.state) != all_partitions(&record.state));
        prev.clone_from(&record.state);
    }
}

/// The step loop judges a per-partition check (`Check::Partition`) only on the partitions a
/// step touched (src/check/invariants/scope.rs). Replaying every recorded step with every
/// partition judged finds exactly the step violations the run reported, step and detail:
/// on generated histories under rule sets that break per-partition checks, and on every
/// regression history under each rule set it names (the data plane's D1–D3 and D5,
/// Inkless's INV-1 and INV-5 among them).
#[test]
fn judging_the_touched_partitions_finds_what_judging_all_does() {
    let rule_sets = [
        "trunk",
        "pr756",
        "pr756-commit1+lag=uncapped",
        "complete+truncation=hw",
        "complete+completion=keep-isr",
        "3.0-3.7",
        "pr756+leader-change=diversion-no-evict",
    ];
    let mut generated = Judged::default();
    let mut buf = Vec::new();
    for (k, name) in rule_sets.iter().enumerate() {
        let rules = RuleSet::parse(name).unwrap();
        for seed in 0..120u64 {
            Rng::new(seed * 7 + k as u64).fill(&mut buf);
            let history: History = decode_guided(&buf, &rules);
            judged_alike(
                &history,
                rules,
                &format!("{name} seed {seed}"),
                &mut generated,
            );
        }
    }
    let mut stored = Judged::default();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/regressions");
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let history = History::load(&path).unwrap();
        for e in &history.expect {
            let rules = RuleSet::parse(&e.rules).unwrap();
            judged_alike(&history, rules, &path.display().to_string(), &mut stored);
        }
    }
    // Regressions are minimized, so few of their steps leave a partition as it was.
    assert!(
        generated.found > 50 && stored.found > 50,
        "{generated:?} {stored:?}"
    );
    assert!(generated.skipped * 3 > generated.steps, "{generated:?}");
    assert!(stored.skipped > 0, "{stored:?}");
}

/// The negative space of the skip: a partition the step left as it was is judged only when
/// the caller says the side held every check on the state before the step. The same broken
/// registration (leader outside the ISR) before and after a step is S0 when judged whole,
/// and nothing when the state before was judged (it cannot have been: S0 held there).
#[test]
fn an_untouched_partition_is_judged_unless_the_state_before_was() {
    use isrfuzz::check::invariants::{step_violations_memo, StepMemo, StepView};
    use isrfuzz::model::{apply, Cluster, Event};
    let rules = RuleSet::complete();
    let mut prev = Cluster::new(&[1, 2, 3], Default::default());
    let create = Event::create_classic(vec![1, 2, 3]);
    assert!(!apply(&mut prev, &create, &rules).is_rejected());
    prev.partitions[0].isr.retain(|&b| b != 1); // leader 1 leaves the ISR
    let mut next = prev.clone();
    let outcome = apply(&mut next, &Event::ListReassignments, &rules);
    assert!(prev == next, "listing changes nothing");
    let view = StepView {
        prev: &prev,
        next: &next,
        event: &Event::ListReassignments,
        outcome: &outcome,
    };
    let ids = |prev_judged: bool| -> Vec<&str> {
        let found = step_violations_memo(&view, &rules, 0, prev_judged, &mut StepMemo::default());
        found.into_iter().map(|(_, id, _)| id).collect()
    };
    assert_eq!(ids(false), ["S0"]);
    assert_eq!(ids(true), Vec::<&str>::new());
}
