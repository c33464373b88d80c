//! Triage by mechanism (issue 12): a known finding is matched by a predicate over the
//! trace, so a violation of a known invariant by a second mechanism is reported as new.

use isrfuzz::check::history::History;
use isrfuzz::check::oracle;
use isrfuzz::findings::triage::{known_as, load_known, parse_known, Kind, Known};
use isrfuzz::findings::Sink;
use isrfuzz::rules::RuleSet;
use std::path::Path;

use crate::common;

fn regression(name: &str) -> History {
    let path = format!(
        "{}/corpus/regressions/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    History::load(Path::new(&path)).unwrap()
}

fn known() -> Vec<Known> {
    load_known(Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/corpus/known.json"
    )))
    .unwrap()
}

/// The ids of the known findings each violation of `history` under complete is.
fn triaged(known: &[Known], history: &History) -> Vec<String> {
    triaged_under(known, history, "complete")
}

#[test]
fn each_known_regression_is_its_own_finding() {
    let known = known();
    let cases = [
        (
            "f4-born-diskless-follower-diverted-for-good",
            "INV-9 known F4",
        ),
        (
            "f5-operator-seal-elects-leader-without-prefix",
            "INV-2 known F5",
        ),
        (
            "f6-follower-handed-to-consolidation-unrecorded",
            "INV-4 known F6",
        ),
        (
            "f7-abort-strands-staged-reassignment",
            "E1 known F7, INV-9 known F11",
        ),
        (
            "f11-abort-leaves-classic-fetcher-on-diskless",
            "INV-9 known F11",
        ),
        (
            "f12-operator-seal-hands-off-follower-recorded-below",
            "INV-4 known F12",
        ),
        (
            "f10-new-leader-records-reset-then-same-leader-bump",
            "INV-4 known F10",
        ),
        ("complete--INV-4--799820e0f43b5cbf", "INV-4 known F6"),
        ("complete--INV-4--098552c70ca0b2c2", "INV-4 known F6"),
        (
            "f13-one-step-completes-through-kept-removing",
            "G4 known F13, G5 known F13",
        ),
        (
            "f17-elr-names-a-removed-replica",
            "ELR1 known F17, ELR3 known F17",
        ),
        (
            "f18-stale-elr-member-elected",
            "ELR1 known F17, ELR3 known F17, S4 known F18",
        ),
        (
            "f18-stale-elr-blocks-the-last-known-leader",
            "E1 known F18, ELR1 known F17, ELR3 known F17",
        ),
        ("f19-last-known-leader-not-a-replica", "S4 known F19"),
        (
            "f18-readded-elr-member-elected-with-an-empty-log",
            "ELR1 known F17, ELR3 known F17, S4 known F18",
        ),
        (
            "f19-non-replica-leader-strands-a-reassignment",
            "S4 known F19",
        ),
        (
            "f18-stale-elr-member-elected-while-healing",
            "D4 known F18, ELR1 known F17, ELR3 known F17, ELR4 known F18",
        ),
    ];
    for (file, expected) in cases {
        let mut got = triaged(&known, &regression(file));
        got.sort();
        assert_eq!(got.join(", "), expected, "{file}");
    }
}

/// The planted second mechanism: with only F6 known, the INV-4 that `exhaust --rules
/// complete --start switched --depth 6` finds (the leader moved after the seal, F10) is
/// a new finding, and the pipeline writes it; F6's own history stays known.
#[test]
fn a_second_mechanism_for_a_known_invariant_is_new() {
    // F6 has two entries: recorded -1, and its general form recorded below the seal.
    let only_f6: Vec<Known> = known().into_iter().filter(|k| k.id == "F6").collect();
    assert_eq!(only_f6.len(), 2);
    let f10 = regression("f10-new-leader-records-reset-then-same-leader-bump");
    let f6 = regression("f6-follower-handed-to-consolidation-unrecorded");
    assert_eq!(triaged(&only_f6, &f10), ["INV-4 new"]);
    assert_eq!(triaged(&only_f6, &f6), ["INV-4 known F6"]);
    let complete = RuleSet::complete();
    let sink = Sink::new(None, only_f6, "test");
    let found = sink.promote_all([complete, complete], &f10).unwrap();
    let found: Vec<_> = found.iter().map(|f| f.invariant).collect();
    assert_eq!(found, ["INV-4"]);
    let sink = Sink::new(None, known(), "test");
    assert!(sink
        .promote_all([complete, complete], &f10)
        .unwrap()
        .is_empty());
}

/// The same invariant and rule set with another detail or without the decisive event is
/// new too: F5 needs the operator seal.
#[test]
fn an_invariant_alone_does_not_make_a_finding_known() {
    let known = known();
    let rules = RuleSet::complete();
    let h = regression("f5-operator-seal-elects-leader-without-prefix");
    let run = oracle::run(&h, &[rules], false);
    let v = &run.sides[0].violations[0];
    let f5 = known.iter().find(|k| k.id == "F5").unwrap();
    let trace = isrfuzz::findings::triage::Trace::of_run(&h, &run.sides[0], v.step);
    let trace = || &trace;
    assert!(f5.matches(&rules, v, &trace));
    let mut without_seal = f5.clone();
    without_seal.mechanism.events = vec!["seal_commit".into()];
    assert!(!without_seal.matches(&rules, v, &trace));
    let mut other_detail = f5.clone();
    other_detail.mechanism.detail = Some("recorded -1".into());
    assert!(!other_detail.matches(&rules, v, &trace));
}

#[test]
fn format_1_and_bad_mechanisms_are_refused_with_a_reason() {
    let v1 = r#"{"format":1,"known":[{"rules":"complete","invariant":"INV-4","reason":"x"}]}"#;
    let err = parse_known(v1).unwrap_err();
    assert!(
        err.contains("format 2 needs an `id` and a `mechanism`"),
        "{err}"
    );
    let empty =
        r#"{"format":2,"known":[{"id":"F1","rules":"complete","invariant":"INV-4","reason":"x"}]}"#;
    assert!(parse_known(empty)
        .unwrap_err()
        .contains("non-empty `mechanism`"));
    let bad_decision = r#"{"format":2,"known":[{"id":"F1","rules":"complete","invariant":"INV-4","mechanism":{"decisions":["INV-1"]},"reason":"x"}]}"#;
    assert!(parse_known(bad_decision)
        .unwrap_err()
        .contains("not a sometimes-property"));
    let bad_event = r#"{"format":2,"known":[{"id":"F1","rules":"complete","invariant":"INV-4","mechanism":{"events":["teleport"]},"reason":"x"}]}"#;
    assert!(parse_known(bad_event)
        .unwrap_err()
        .contains("unknown event kind `teleport`"));
    let future = r#"{"format":4,"known":[]}"#;
    assert!(parse_known(future)
        .unwrap_err()
        .contains("reads versions 2 and 3"));
    let expected_in_2 = r#"{"format":2,"expected":[{"id":"X","rules":"trunk","invariant":"G5","mechanism":{"decisions":["V1"]},"reason":"x"}],"known":[]}"#;
    assert!(parse_known(expected_in_2)
        .unwrap_err()
        .contains("no `expected` section"));
    let bad_through = r#"{"format":3,"known":[{"id":"F1","rules":"complete","through":["teleport"],"invariant":"INV-4","mechanism":{"decisions":["V1"]},"reason":"x"}]}"#;
    assert!(parse_known(bad_through)
        .unwrap_err()
        .contains("unknown rule `teleport`"));
    let bad_fix = r#"{"format":3,"known":[{"id":"F1","rules":"complete","invariant":"INV-4","mechanism":{"fixed_by":"shrink=never"},"reason":"x"}]}"#;
    assert!(parse_known(bad_fix).unwrap_err().contains("fixed_by"));
    let bare_since = r#"{"format":3,"known":[{"id":"F1","rules":"complete","invariant":"INV-9","mechanism":{"without_decisions_since":"alter_diskless_switch"},"reason":"x"}]}"#;
    assert!(parse_known(bare_since)
        .unwrap_err()
        .contains("qualifies `without_decisions`"));
    let bad_since = r#"{"format":3,"known":[{"id":"F1","rules":"complete","invariant":"INV-9","mechanism":{"without_decisions":["V4"],"without_decisions_since":"teleport"},"reason":"x"}]}"#;
    assert!(parse_known(bad_since)
        .unwrap_err()
        .contains("unknown event kind `teleport`"));
}

/// The ids each violation of `history` under `rules` is known as.
fn triaged_under(known: &[Known], history: &History, rules: &str) -> Vec<String> {
    let rules = RuleSet::parse(rules).unwrap();
    let run = oracle::run(history, &[rules], false);
    run.sides[0]
        .violations
        .iter()
        .map(|v| {
            let id = known_as(known, history, &run.sides[0], v)
                .map_or("new".to_string(), |k| format!("{} {}", k.kind.name(), k.id));
            format!("{} {id}", v.invariant)
        })
        .collect()
}

#[test]
fn a_scoped_finding_is_known_whatever_the_other_family_runs() {
    // F10 is a hole in the Inkless rules (scope `inkless`): under KRaft trunk with the
    // complete Inkless rules the same history breaks INV-4 by the same mechanism, and it
    // is F10. Under the Inkless rules of main it is not complete's hole: new.
    let known = known();
    let h = regression("f10-new-leader-records-reset-then-same-leader-bump");
    assert_eq!(
        triaged_under(&known, &h, "complete+trunk"),
        ["INV-4 known F10"]
    );
    // Under main's Inkless rules it is not complete's hole: main's own (F8: two writers).
    let main: Vec<String> = triaged_under(&known, &h, "inkless-main");
    assert_eq!(main, ["INV-5 expected F8"]);
    let only_known: Vec<Known> = known
        .iter()
        .filter(|k| k.kind == Kind::Known)
        .cloned()
        .collect();
    let main: Vec<String> = triaged_under(&only_known, &h, "inkless-main");
    assert!(
        !main.is_empty() && main.iter().all(|t| t.ends_with(" new")),
        "{main:?}"
    );
    // Without a scope an entry covers its rule set only.
    let unscoped: Vec<Known> = known
        .iter()
        .cloned()
        .map(|k| Known {
            scope: None,
            through: None,
            ..k
        })
        .collect();
    assert_eq!(
        triaged_under(&unscoped, &h, "complete+trunk"),
        ["INV-4 new"]
    );
    assert_eq!(
        triaged_under(&unscoped, &h, "complete"),
        ["INV-4 known F10"]
    );
}

/// Each preset's own documented bug is expected, not new, on the preset and on every
/// rule set that runs its buggy rule; a documented hole of `complete` reached through a
/// KRaft variant is that hole (F17 through `through: []`), on a variant no preset has too.
#[test]
fn each_presets_bug_is_expected_and_complete_holes_are_known_on_every_variant() {
    let known = known();
    let cases = [
        ("kafka-21419-repro", "trunk", "G2 expected KAFKA-21419, G5 expected KAFKA-21419"),
        ("kafka-21419-repro", "complete+3.8-4.2", "G2 expected KAFKA-21419"),
        (
            "kafka-21419-override-drops-targeted-replicas",
            "complete+3.0-3.7",
            "G1 expected KAFKA-21419, G2 expected KAFKA-21419, G4 expected KAFKA-21419, G5 expected KAFKA-21419",
        ),
        ("zk-style--S0--32f2900975084f9b", "complete+zk-style", "S0 expected F2"),
        (
            "f2-zk-style-dropped-transient-readded-with-an-empty-log",
            "complete+zk-style",
            "S0 expected F2, D1 expected F2, D4 expected F2",
        ),
        ("f14-always-write-override-clears-lists", "complete+kafka-21419-always-write", "G5 expected always-write"),
        ("3.0-3.7--G1--30e6835bbc3dfe3c", "complete+kafka-21419", "G1 expected proposed-fix"),
        ("f17-elr-names-a-removed-replica", "complete+trunk", "ELR1 known F17, ELR3 known F17"),
        (
            "f17-elr-names-a-removed-replica",
            "complete+completion=3.8-4.2+derivation=kafka-21419",
            "ELR1 known F17, ELR3 known F17",
        ),
    ];
    for (name, rules, want) in cases {
        let got = triaged_under(&known, &regression(name), rules).join(", ");
        assert_eq!(got, want, "{name} under {rules}");
    }
    // The derivation's bug is the derivation's: the same history under a KRaft rule set
    // with a fixed derivation is not KAFKA-21419.
    let h = regression("kafka-21419-repro");
    let fixed = triaged_under(&known, &h, "trunk+derivation=transients-tracked");
    assert!(
        fixed.iter().all(|t| !t.contains("KAFKA-21419")),
        "{fixed:?}"
    );
    // An Inkless preset's bug is matched by its cause: fixing that rule alone on the very
    // history removes the violation (`fixed_by`); CE-e is the one-step reassignment.
    let ce_e = common::parse(
        "create 1,3,2; produce 10; time 15000; switch; time 15000; seal; time 15000; reassign 1,4",
    );
    assert_eq!(
        triaged_under(&known, &ce_e, "complete+pr756+pr760"),
        ["INV-2 expected CE-e"]
    );
    // A KRaft variant leaves the Inkless rules at complete: nothing to expect there.
    assert!(triaged_under(&known, &ce_e, "complete+trunk").is_empty());
    // Without `fixed_by`, any INV-2 under one-step would be CE-e; with it, only one that
    // the staged reassignment removes. Pin that the check runs: a fix that does not
    // remove the violation leaves it new.
    let wrong_fix: Vec<Known> = known
        .iter()
        .cloned()
        .map(|mut k| {
            if k.id == "CE-e" {
                k.mechanism.fixed_by = Some("lag=both-caps".to_string());
            }
            k
        })
        .collect();
    assert_eq!(
        triaged_under(&wrong_fix, &ce_e, "complete+pr756+pr760"),
        ["INV-2 new"]
    );
}

/// Generated histories from fixed seeds, ELR drawn.
fn generated(count: u64) -> Vec<History> {
    let mut buf = Vec::new();
    (0..count)
        .map(|seed| {
            isrfuzz::search::rng::Rng::new(seed).fill(&mut buf);
            isrfuzz::search::generate::decode(&buf, Default::default())
        })
        .collect()
}

/// Triage reads a trace off the run it judges (`Trace::of_run`) instead of replaying the
/// prefix (`Trace::up_to`): the two agree at every step, at quiescence too, under rule
/// sets of both families, and some of the traces compared have decisions in them.
#[test]
fn the_trace_read_off_a_run_is_the_replayed_trace() {
    use isrfuzz::findings::triage::Trace;
    let mut with_decisions = 0;
    for rules in ["trunk", "pr756+pr760", "complete+truncation=hw"] {
        let rules = RuleSet::parse(rules).unwrap();
        for history in generated(40) {
            let run = oracle::run(&history, &[rules], false);
            for step in (0..=history.events.len()).step_by(3) {
                let read = Trace::of_run(&history, &run.sides[0], step);
                assert_eq!(read, Trace::up_to(&history, &rules, step), "step {step}");
                with_decisions += usize::from(!read.decisions.is_empty());
            }
        }
    }
    assert!(with_decisions > 100, "{with_decisions}");
}

/// `Event::op` is the history format's `op` tag, for every kind the generator makes.
#[test]
fn an_events_op_is_its_serde_tag() {
    let mut kinds = std::collections::BTreeSet::new();
    for history in generated(3000) {
        for e in &history.events {
            let json = serde_json::to_value(e).unwrap();
            assert_eq!(json["op"].as_str(), Some(e.op()), "{json}");
            kinds.insert(e.op());
        }
    }
    assert_eq!(
        kinds.len(),
        isrfuzz::search::generate::GEN_EVENT_KINDS,
        "{kinds:?}"
    );
}

/// A `through` item may list the variants of a rule the mechanism holds under: F6 is known
/// under every upstream lag check, and an entry listing only `both-caps` does not cover a
/// rule set running `leader-cap`.
#[test]
fn through_can_list_the_variants_a_mechanism_holds_under() {
    let known = known();
    let h = regression("f6-follower-handed-to-consolidation-unrecorded");
    let under = |k: &[Known], rules: &str| triaged_under(k, &h, rules).join(", ");
    assert_eq!(under(&known, "complete+lag=leader-cap"), "INV-4 known F6");
    let narrowed: Vec<Known> = known
        .iter()
        .cloned()
        .map(|mut k| {
            if k.id == "F6" {
                k.through = Some(vec!["shrink".into(), "lag=both-caps".into()]);
            }
            k
        })
        .collect();
    assert_eq!(under(&narrowed, "complete"), "INV-4 known F6");
    assert_eq!(under(&narrowed, "complete+lag=leader-cap"), "INV-4 new");
    let bad = r#"{"format":3,"known":[{"id":"F1","rules":"complete","through":["lag=never"],"invariant":"INV-4","mechanism":{"decisions":["V9"]},"reason":"x"}]}"#;
    assert!(parse_known(bad)
        .unwrap_err()
        .contains("unknown variant `never` of `lag`"));
}

/// An expected finding's fix may run the history into another documented hole: on Inkless
/// main a follower the leader move leaves behind is shrunk and never returns (CE-c, fixed by
/// #756's diversion); under the fix this follower, which led an epoch the new leader's
/// consolidated cache lost, is answered OFFSET_OUT_OF_RANGE for ever (F22). The violation
/// stays the expected one; with F22 struck from the list it is no longer CE-c's.
#[test]
fn a_fix_that_meets_a_known_hole_keeps_the_finding_expected() {
    let h = common::parse(
        "brokers 1,2,3; create 1,2; switch consolidating; alter-switch 0; produce 100 acks=all; \
         reassign 3,1; elect preferred; isr 3",
    );
    let rules = "complete+inkless-main";
    let all = known();
    assert_eq!(triaged_under(&all, &h, rules), ["E2 expected CE-c"]);
    let without_f22: Vec<Known> = all.into_iter().filter(|k| k.id != "F22").collect();
    assert_ne!(triaged_under(&without_f22, &h, rules), ["E2 expected CE-c"]);
}

/// Two expected bugs of one rule set make a violation together: on Inkless main a stalled
/// follower stays in the ISR (CE-a, fixed by #756's shrink), and after #756's shrink the
/// one-step reassignment of a switched partition puts it back (CE-e, fixed by the staged
/// reassignment). Each fix alone leaves INV-1; both remove it: expected, not new. With
/// CE-e struck from the list, CE-a's fix alone does not explain it: new.
#[test]
fn two_expected_bugs_together_stay_expected() {
    let h = common::parse(
        "brokers 1,2,3; create 1,2; stall 2; produce 10; switch; time 60000; reassign 1,2,3",
    );
    let rules = "complete+inkless-main";
    let all = known();
    assert_eq!(triaged_under(&all, &h, rules), ["INV-1 expected CE-a"]);
    let without_ce_e: Vec<Known> = all.iter().filter(|k| k.id != "CE-e").cloned().collect();
    assert_eq!(triaged_under(&without_ce_e, &h, rules), ["INV-1 new"]);
    // The other bug may be filed under another invariant: CE-a's stalled follower (INV-1),
    // put into the ISR by CE-e's one-step reassignment, is elected without the prefix.
    let h = common::parse(
        "brokers 1,2,3; create 1,2; produce 100 acks=all; switch; alter-switch 100; stall 2; \
         reassign 2,1,3; time 60000; elect preferred",
    );
    let triaged = triaged_under(&all, &h, rules);
    assert!(
        triaged.contains(&"INV-2 expected CE-e".to_string()),
        "{triaged:?}"
    );
}

/// F11 per partition (the default hunt's noise): an aborted switch on p1 leaves a follower
/// on the classic fetcher, and a leader change on another partition (p0's one-replica
/// reassignment) does not make it another mechanism. Nor does one on the switched
/// partition itself before the abort (its one-step reassignment moves the leader while
/// the switch is pending): F11 counts leader changes from the abort on.
#[test]
fn a_decision_on_another_partition_does_not_change_the_mechanism() {
    let history = |target: &str, last: &str| {
        let text = format!(
            r#"{{"format": 3, "brokers": [1,2,3,4,5], "events": [
            {{"op":"create_partition","replicas":[1],"diskless":true}},
            {{"op":"create_partition","replicas":[2,3],"min_insync_replicas":2}},
            {{"op":"switch_start","partition":1,"consolidating":true}},
            {{"op":"reassign","partition":1,"target":{target}}},
            {{"op":"alter_diskless_switch","partition":1,"seal":-1}},
            {{"op":"cancel_reassignment","partition":1}}{last}]}}"#
        );
        History::from_json(&text).unwrap()
    };
    let rules = "complete+pr756-commit1";
    let elsewhere = history("[4,2]", r#",{"op":"reassign","target":[5]}"#);
    assert_eq!(
        triaged_under(&known(), &elsewhere, rules),
        ["INV-9 known F11"]
    );
    let here = history("[4,3]", "");
    assert_eq!(triaged_under(&known(), &here, rules), ["INV-9 known F11"]);
    // Both histories move a leader once (V4 fires on each): the whole-history pass
    // names neither F11.
    for h in [&elsewhere, &here] {
        let run = oracle::run(h, &[RuleSet::parse(rules).unwrap()], false);
        let v4 = isrfuzz::check::invariants::INVARIANTS
            .iter()
            .position(|i| i.id == "V4");
        assert!(run.sides[0].sometimes[v4.unwrap()] > 0);
    }
}

/// F11 reached after a leader move, as `hunt --seed 1` met it on the Inkless presets: the
/// leader moved before the abort (one-step reassignment while pending; a completed classic
/// reassignment before the switch). With F11 struck from the list both rows are new.
#[test]
fn a_leader_change_before_the_abort_is_still_f11() {
    let known = known();
    let without_f11: Vec<Known> = known.iter().filter(|k| k.id != "F11").cloned().collect();
    for (file, rules) in [
        (
            "f11-one-step-moves-the-leader-before-the-abort",
            "complete+inkless-main",
        ),
        (
            "f11-one-step-moves-the-leader-before-the-abort",
            "complete+pr756-commit1",
        ),
        (
            "f11-leader-moved-before-the-switch-one-step-adds-a-follower",
            "complete+pr756-commit1",
        ),
        (
            "f11-leader-moved-before-the-switch-one-step-adds-a-follower",
            "complete+inkless-main",
        ),
    ] {
        let h = regression(file);
        assert_eq!(
            triaged_under(&known, &h, rules),
            ["INV-9 known F11"],
            "{file} {rules}"
        );
        assert_eq!(
            triaged_under(&without_f11, &h, rules),
            ["INV-9 new"],
            "{file} {rules}"
        );
    }
}

/// A leader change from the abort on is not F11's: the move diverts former leader 1 to the
/// classic fetcher (#756's diversion, F4). With F4 struck from the list the row is new, not
/// F11; without the diversion (Inkless main) the move hands every follower to consolidation.
#[test]
fn a_leader_change_after_the_abort_is_not_f11() {
    let h = common::parse(
        "brokers 1,2,3; create 1,2; switch consolidating; alter-switch -1; reassign 2,1; \
         elect preferred",
    );
    let known = known();
    assert_eq!(triaged_under(&known, &h, "complete"), ["INV-9 known F4"]);
    let without_f4: Vec<Known> = known.iter().filter(|k| k.id != "F4").cloned().collect();
    assert_eq!(triaged_under(&without_f4, &h, "complete"), ["INV-9 new"]);
    assert!(triaged_under(&known, &h, "complete+inkless-main").is_empty());
}

/// An expected bug's fix can remove a violation at its step and run the history into a
/// documented hole later: under 3.0-3.7 the RF-reducing reassignment completes without
/// follower 2 (KAFKA-15665, G8 at step 2); under its fix (completion=4.3+) G8 comes at the
/// last step instead, from F13's one-step completion through the removing staged before
/// the abort. KAFKA-15665's; with F13 struck from the list what is left is undocumented.
#[test]
fn a_fix_that_leaves_a_documented_hole_later_keeps_the_finding_expected() {
    let h = common::parse(
        "brokers 1,2,3,4; create 1,2,3,4; restart 2; reassign 3,2,1; fetch 2; \
         switch consolidating; reassign 4; alter-switch -1; reassign 4,3",
    );
    let g8 = |known: &[Known]| {
        let all = triaged_under(known, &h, "complete+3.0-3.7");
        all.into_iter()
            .filter(|t| t.starts_with("G8 "))
            .collect::<Vec<_>>()
    };
    let known = known();
    assert_eq!(g8(&known), ["G8 expected KAFKA-15665"]);
    let without_f13: Vec<Known> = known.iter().filter(|k| k.id != "F13").cloned().collect();
    assert_eq!(g8(&without_f13), ["G8 new"]);
}
