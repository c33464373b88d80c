//! The JUnit reproducers `conform --junit` writes, without a JVM: the emitted class for
//! KAFKA-21419 as reported (a snapshot: the requests, one call per line, and G5 asserted
//! after the step that completed with replica 4 out of the ISR), and the one-line refusals.
//! Whether each emitted test fails exactly on the releases that show its violation is
//! ci/conformance.sh's business, against the real jars.

use expect_test::expect_file;
use isrfuzz::conform::junit::{class_name, junit_reproducer, Finding};
use isrfuzz::conform::Release;
use isrfuzz::rules::RuleSet;
use isrfuzz::History;
use std::path::Path;

fn load(name: &str) -> History {
    History::load(&Path::new("corpus/regressions").join(name)).unwrap()
}

fn emit(
    name: &str,
    version: &str,
    invariant: &str,
    step: usize,
    detail: &str,
) -> Result<String, String> {
    let release = Release::parse(version).unwrap();
    let rules = RuleSet::parse(release.preset).unwrap();
    let finding = Finding {
        invariant,
        step,
        detail,
    };
    let label = format!("corpus/regressions/{name}");
    junit_reproducer(&label, &load(name), &rules, &release, &finding).map(|r| {
        assert_eq!(r.class, class_name(&label, invariant));
        r.source
    })
}

#[test]
fn kafka_21419_as_reported_asserts_safe_completion_after_the_isr_expansion() {
    let source = emit(
        "kafka-21419-repro.json",
        "4.4",
        "G5",
        3,
        "p0: completed with new replicas [4] out of isr [1,2,5] (replicas [1,2,4,5])",
    )
    .unwrap();
    expect_file!["snapshots/Kafka21419ReproG5ReproTest.java"].assert_eq(&source);
}

#[test]
fn g5_asserts_unconditionally_and_holds_vacuously_only_without_a_completion() {
    // On 4.2 the same step leaves the reassignment open: the test must pass there, and
    // for the stated reason (nothing completed, so no added replica is out of the ISR),
    // not because an `if` skipped the assertion.
    let source = emit("kafka-21419-repro.json", "4.4", "G5", 3, "p0: x").unwrap();
    let completed = source
        .find("boolean completedHere = reassigning(before) && !reassigning(after);")
        .unwrap();
    let set = source
        .find("Set<Integer> completedOutOfIsr = minus(completedHere ? ids(4, 5) : ids(), ids(after.isr));")
        .unwrap();
    let assert = source
        .find("        assertTrue(completedOutOfIsr.isEmpty(), ")
        .unwrap();
    assert!(completed < set && set < assert, "{source}");
}

#[test]
fn no_reproducer_hides_its_assertion_behind_a_condition() {
    // Every supported invariant, emitted on a step with a request: the assertion is a
    // statement of the test method itself, and no `if` can skip it.
    for inv in isrfuzz::conform::junit::SUPPORTED {
        let source = emit("kafka-21419-repro.json", "4.4", inv, 3, "p0: x").unwrap();
        assert!(
            !source.contains("if ("),
            "{inv}: a conditional in\n{source}"
        );
        let body = source.split_once("void test").unwrap().1;
        let asserts: Vec<&str> = body
            .lines()
            .filter(|l| l.trim_start().starts_with("assert"))
            .collect();
        assert!(!asserts.is_empty(), "{inv}: no assertion in\n{source}");
        for a in asserts {
            assert!(
                a.starts_with("        assert") && !a.starts_with("         "),
                "{inv}: a nested assertion `{a}`"
            );
        }
    }
}

#[test]
fn an_inkless_history_is_refused_in_one_line_naming_the_test_to_extend() {
    let why = emit(
        "aborted-switch-has-no-diskless-log.json",
        "4.4",
        "G5",
        1,
        "p0: x",
    )
    .unwrap_err();
    assert!(!why.contains('\n'), "{why}");
    assert!(why.contains("Inkless-only"), "{why}");
    assert!(why.contains("aiven/inkless"), "{why}");
    assert!(why.contains("ReplicationControlManagerTest"), "{why}");
}

#[test]
fn an_invariant_without_an_assertion_is_refused_in_one_line() {
    let why = emit("kafka-21419-repro.json", "4.4", "D1", 3, "p0: x").unwrap_err();
    assert!(!why.contains('\n'), "{why}");
    assert!(why.starts_with("D1 has no JUnit assertion"), "{why}");
    let why = emit("kafka-21419-repro.json", "4.4", "G5", 9, "p0: x").unwrap_err();
    assert!(why.contains("beyond"), "{why}");
}

#[test]
fn every_request_of_the_step_is_asserted_for_s4() {
    let source = emit(
        "f19-last-known-leader-not-a-replica.json",
        "4.4",
        "S4",
        5,
        "broker 1's registration threw in the controller",
    )
    .unwrap();
    assert!(source.contains("assertFalse(a0.threw()"), "{source}");
    assert!(source.contains("ctx.registerBroker(1, "), "{source}");
}

#[test]
fn class_names_are_java_identifiers_that_keep_versions_apart() {
    assert_eq!(
        class_name("corpus/regressions/kafka-21419-repro.json", "G5"),
        "Kafka21419ReproG5ReproTest"
    );
    assert_eq!(
        class_name("3.0-3.7--G1--30e6835bbc3dfe3c.json", "G1"),
        "Kafka3_0_3_7G1_30e6835bbc3dfe3cG1ReproTest"
    );
    assert_eq!(class_name("f17-elr.json", "ELR1"), "F17ElrELR1ReproTest");
}

#[test]
fn reproducers_of_one_class_all_land_on_disk_and_no_file_is_replaced() {
    use isrfuzz::conform::junit::Reproducer;
    use isrfuzz::conform::junit_files::write_reproducer;
    let dir = crate::common::scratch("conform_junit", "no-overwrite");
    // One history showing G5 at two steps: two reproducers, one class name.
    let at = |step: usize| {
        let source = emit("kafka-21419-repro.json", "4.4", "G5", step, "p0: x").unwrap();
        Reproducer {
            class: class_name("corpus/regressions/kafka-21419-repro.json", "G5"),
            source,
        }
    };
    let (first, second) = (at(3), at(2));
    assert_eq!(first.class, second.class);
    // A file a person kept under the first name is never replaced.
    let kept = dir.join("Kafka21419ReproG5ReproTest.java");
    std::fs::write(&kept, "// kept by hand\n").unwrap();
    let mut taken = std::collections::BTreeSet::new();
    let a = write_reproducer(&dir, &first, &mut taken).unwrap();
    let b = write_reproducer(&dir, &second, &mut taken).unwrap();
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), "// kept by hand\n");
    assert_eq!(a.class, "Kafka21419ReproG5_2ReproTest");
    assert_eq!(b.class, "Kafka21419ReproG5_3ReproTest");
    assert!(a.created && b.created);
    for (w, r) in [(&a, &first), (&b, &second)] {
        let text = std::fs::read_to_string(&w.path).unwrap();
        assert_eq!(w.path, dir.join(format!("{}.java", w.class)));
        // Java wants the class named as its file.
        assert!(text.contains(&format!("\nclass {} {{", w.class)), "{text}");
        assert!(!text.contains(&format!("\nclass {} {{", r.class)), "{text}");
        assert_eq!(text, r.source.replace(&r.class, &w.class));
    }
    // Another run into the same folder: the same reproducers are already there, nothing
    // is added or replaced, and no temp file is left.
    let mut again = std::collections::BTreeSet::new();
    let a2 = write_reproducer(&dir, &first, &mut again).unwrap();
    let b2 = write_reproducer(&dir, &second, &mut again).unwrap();
    assert_eq!((a2.class, a2.created), (a.class, false));
    assert_eq!((b2.class, b2.created), (b.class, false));
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "Kafka21419ReproG5ReproTest.java",
            "Kafka21419ReproG5_2ReproTest.java",
            "Kafka21419ReproG5_3ReproTest.java"
        ]
    );
}

#[test]
fn next_class_names_keep_the_repro_test_suffix() {
    use isrfuzz::conform::junit_files::nth_class;
    assert_eq!(nth_class("AG5ReproTest", 1), "AG5ReproTest");
    assert_eq!(nth_class("AG5ReproTest", 2), "AG5_2ReproTest");
    assert_eq!(nth_class("Odd", 3), "Odd_3");
}
