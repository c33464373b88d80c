//! The methods for upstream's ReplicationControlManagerTest that `conform --junit` writes,
//! without a JVM: KAFKA-21419 as reported (a snapshot), the fixture helpers rewritten into
//! plain Java, the S4 and fault guards, and the no-overwrite writer. Whether each method
//! compiles into a release's own class and fails exactly where the release shows its
//! violation is ci/upstream-tests.sh's business, against the published test sources.

use expect_test::expect_file;
use isrfuzz::conform::junit::Finding;
use isrfuzz::conform::junit_dialect::dialect;
use isrfuzz::conform::junit_upstream::{method_name, upstream_method};
use isrfuzz::conform::Release;
use isrfuzz::rules::RuleSet;
use isrfuzz::History;
use std::path::Path;

fn method(name: &str, version: &str, invariant: &str, step: usize, detail: &str) -> String {
    let label = format!("corpus/regressions/{name}");
    let history = History::load(Path::new(&label)).unwrap();
    let release = Release::parse(version).unwrap();
    let rules = RuleSet::parse(release.preset).unwrap();
    let finding = Finding {
        invariant,
        step,
        detail,
    };
    upstream_method(&label, &history, &rules, &release, &finding)
        .unwrap()
        .source()
}

#[test]
fn kafka_21419_as_reported_is_a_method_on_the_upstream_test_context() {
    let source = method(
        "kafka-21419-repro.json",
        "4.3",
        "G5",
        3,
        "p0: completed with new replicas [4] out of isr [1,2,5] (replicas [1,2,4,5])",
    );
    expect_file!["snapshots/testKafka21419ReproG5.txt"].assert_eq(&source);
    // Nothing of isrfuzz's own fixture is left: the class's context and imports only.
    for fixture in [
        "ReproFixture",
        "ids(",
        "minus(",
        "reassigning(",
        "ctx.partition(",
    ] {
        assert!(!source.contains(fixture), "{fixture} in:\n{source}");
    }
    assert!(source.contains("new ReplicationControlTestContext.Builder()"));
    assert_eq!(
        method_name("Kafka21419ReproG5ReproTest"),
        "testKafka21419ReproG5"
    );
}

#[test]
fn helpers_become_plain_java_and_string_literals_stay() {
    assert_eq!(
        dialect("minus(completedHere ? ids(4, 5) : ids(), ids(after.isr))"),
        "(completedHere ? new TreeSet<>(List.of(4, 5)) : new TreeSet<Integer>()).stream().filter(id -> !new TreeSet<>(Replicas.toList(after.isr)).contains(id)).collect(Collectors.toCollection(() -> new TreeSet<>()))"
    );
    assert_eq!(
        dialect("reassigning(before) && !reassigning(after)"),
        "(before.addingReplicas.length > 0 || before.removingReplicas.length > 0) && !(after.addingReplicas.length > 0 || after.removingReplicas.length > 0)"
    );
    assert_eq!(
        dialect("hasDuplicates(after.isr)"),
        "(new TreeSet<>(Replicas.toList(after.isr)).size() != after.isr.length)"
    );
    // In a message, in a longer name, or as a member: not a helper.
    let kept = r#"assertTrue(x, "ids(1) minus(a, b)"); myids(a); s.minus(b);"#;
    assert_eq!(dialect(kept), kept);
    assert_eq!(
        dialect(r#"f("a \" ids(2)", ids(3))"#),
        r#"f("a \" ids(2)", new TreeSet<>(List.of(3)))"#
    );
}

#[test]
fn s4_fails_on_a_fault_and_accepts_an_error_answer() {
    // F19: broker 1's unclean re-registration throws IllegalArgumentException on 4.1 on.
    let source = method(
        "f19-last-known-leader-not-a-replica.json",
        "4.3",
        "S4",
        5,
        "broker 1's registration threw in the controller",
    );
    let fault = source.find("} catch (RuntimeException e) {").unwrap();
    let api = source
        .find("} catch (org.apache.kafka.common.errors.ApiException e) {")
        .unwrap();
    assert!(api < fault, "{source}");
    // The assertion comes after the call, outside any branch.
    let assert = source.find("        assertNull(fault").unwrap();
    assert!(assert > fault, "{source}");
    // A restarted broker re-registers once its old session is over.
    assert!(source.contains("ctx.time.sleep(BROKER_SESSION_TIMEOUT_MS + 1);"));
}

#[test]
fn a_method_that_names_a_taken_file_moves_on_and_replaces_nothing() {
    use isrfuzz::conform::junit_files::{write_method, UPSTREAM_DIR};
    use isrfuzz::conform::junit_upstream::UpstreamMethod;
    let dir = crate::common::scratch("conform_upstream", "no-overwrite");
    let source = method("kafka-21419-repro.json", "4.3", "G5", 3, "p0: x");
    let header = source[..source.find("    /**").unwrap()].to_string();
    let text = source[header.len()..].to_string();
    let m = UpstreamMethod {
        method: "testKafka21419ReproG5".to_string(),
        header,
        text,
    };
    let folder = dir.join(UPSTREAM_DIR);
    std::fs::create_dir_all(&folder).unwrap();
    let kept = folder.join("testKafka21419ReproG5.txt");
    std::fs::write(&kept, "// kept by hand\n").unwrap();
    let mut taken = std::collections::BTreeSet::new();
    let w = write_method(&dir, &m, &mut taken).unwrap();
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), "// kept by hand\n");
    assert_eq!(w.class, "testKafka21419ReproG5_2");
    let text = std::fs::read_to_string(&w.path).unwrap();
    assert!(
        text.contains("public void testKafka21419ReproG5_2() {"),
        "{text}"
    );
    // The same method again into the same folder: already there, nothing added.
    let again = write_method(&dir, &m, &mut std::collections::BTreeSet::new()).unwrap();
    assert_eq!((again.class, again.created), (w.class, false));
    assert_eq!(std::fs::read_dir(&folder).unwrap().count(), 2);
}
