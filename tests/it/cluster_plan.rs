//! The operator plan both `replay --operator` (its text) and `isrfuzz cluster` (its
//! actions) read: every command of the script carries the action the cluster judge
//! performs, the script is exactly the plan's text, and the KAFKA-21419 reproduction's plan
//! is in an order a real cluster can follow (data, then each throttle, then the
//! reassignment it must hold). No Java.

use isrfuzz::check::history::History;
use isrfuzz::check::oracle::{self, SideRun};
use isrfuzz::conform::cluster_run::beyond;
use isrfuzz::findings::operator;
use isrfuzz::findings::plan::{texts, Act, Manual};
use isrfuzz::rules::RuleSet;
use std::path::Path;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The history of `file` and the side `replay --operator` plans from (the file's own
/// first side).
fn side_of(file: &Path) -> (History, SideRun) {
    let h = History::load(file).unwrap();
    let rules = h
        .rules
        .clone()
        .unwrap_or_else(|| "trunk:complete".to_string());
    let sides = RuleSet::parse_pair(&rules).unwrap();
    let side = oracle::run(&h, &sides, true).sides.remove(0);
    (h, side)
}

#[test]
fn every_command_of_every_regression_script_carries_its_action() {
    let dir = Path::new(ROOT).join("corpus/regressions");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    assert!(files.len() > 50);
    for f in files
        .iter()
        .filter(|f| f.extension().is_some_and(|x| x == "json"))
    {
        let (h, side) = side_of(f);
        let plan = operator::plan(&h, &side);
        assert_eq!(texts(&plan), operator::script(&h, &side), "{}", f.display());
        for line in &plan {
            let command = !line.text.starts_with('#');
            assert!(
                !command || line.act.is_some(),
                "{}: a command without its action: {}",
                f.display(),
                line.text
            );
            if let Some(Act::See { step, .. }) = &line.act {
                assert!(*step < side.steps.len(), "{}", f.display());
            }
        }
    }
}

/// What kind of action a line is, for the order test.
fn kind(act: &Act) -> Option<String> {
    Some(match act {
        Act::Shell | Act::List => return None,
        Act::Create { .. } => "create".into(),
        Act::Produce { records, .. } => format!("produce {records}"),
        Act::BrokerConfig { broker, set, .. } if !set.is_empty() => format!("throttle {broker}"),
        Act::BrokerConfig { broker, .. } => format!("lift {broker}"),
        Act::TopicConfig { .. } => "throttled replicas".into(),
        Act::BrokerConfigIs { broker, .. } => format!("throttled? {broker}"),
        Act::Reassign { target, .. } => format!("reassign {target:?}"),
        Act::See { step, .. } => format!("see {step}"),
        other => format!("{other:?}"),
    })
}

#[test]
fn the_kafka_21419_plan_produces_then_throttles_then_reassigns() {
    let (h, side) = side_of(&Path::new(ROOT).join("corpus/regressions/kafka-21419-repro.json"));
    let plan = operator::plan(&h, &side);
    assert!(beyond(&plan).is_none(), "every step runs in-process");
    let kinds: Vec<String> = plan.iter().filter_map(|l| kind(l.act.as_ref()?)).collect();
    let expected = [
        "create",
        "see 0",
        "produce 40000",
        "throttle 4",
        "throttled replicas",
        "throttled? 4",
        "reassign [1, 2, 4]",
        "see 1",
        "throttle 5",
        "throttled replicas",
        "throttled? 5",
        "reassign [1, 2, 4, 5]",
        "see 2",
        "throttled replicas",
        "lift 5",
        "see 3",
        "throttled replicas",
        "lift 4",
    ];
    assert_eq!(kinds, expected);
    let violations: Vec<(&str, usize)> = side
        .violations
        .iter()
        .map(|v| (v.invariant, v.step))
        .collect();
    assert_eq!(
        violations,
        [("G2", 2), ("G5", 3)],
        "each has a check at its step"
    );
}

#[test]
fn an_event_beyond_an_in_process_cluster_is_named_and_counted() {
    let f = Path::new(ROOT)
        .join("corpus/regressions/elr5-every-candidate-gone-keeps-the-last-leader.json");
    let (h, side) = side_of(&f);
    let plan = operator::plan(&h, &side);
    let (event, count) = beyond(&plan).expect("a power loss is beyond it");
    assert!(count >= 1);
    assert!(
        event.contains("losing power") || event.contains("kill -9"),
        "{event}"
    );
    assert!(plan
        .iter()
        .any(|l| matches!(l.act, Some(Act::Hand(Manual::Beyond { .. })))));
}
