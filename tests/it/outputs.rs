//! The outputs for people (issue 12), on the committed KAFKA-21419 repro: `replay
//! --operator` (admin commands and conditions), `replay --report md` (a bug report) and
//! `replay --svg` (a timeline, checked structurally); and, on F17's history, what ELR on adds
//! to the operator steps and the step table.

use expect_test::expect;
use isrfuzz::check::history::History;
use isrfuzz::check::oracle;
use isrfuzz::conform::junit_upstream::ticket_reproducer;
use isrfuzz::findings::{operator, svg, ticket};
use isrfuzz::rules::RuleSet;
use std::path::Path;

const REPRO: &str = "corpus/regressions/kafka-21419-repro.json";

fn repro() -> (History, oracle::Verdict) {
    let h = load(REPRO);
    let sides = RuleSet::parse_pair(h.rules.as_deref().unwrap()).unwrap();
    let verdict = oracle::run(&h, &sides, true);
    (h, verdict)
}

/// A committed history (a path from the crate's root), and its run under `rules` alone.
fn load_and_run(file: &str, rules: RuleSet) -> (History, oracle::Verdict) {
    let h = load(file);
    let verdict = oracle::run(&h, &[rules], true);
    (h, verdict)
}

fn load(file: &str) -> History {
    History::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join(file)).unwrap()
}

#[test]
fn operator_steps_of_the_kafka_21419_repro() {
    let (h, verdict) = repro();
    expect![[r##"
        # Save as repro.sh and run `BS=host:port sh repro.sh` against a test cluster (KRaft).
        # The cluster: brokers 1, 2, 3, 4, 5, each with replica.lag.time.max.ms=30000 and replica.fetch.max.bytes=65536 (a throttled follower then pulls at most 64 KiB per quota window, about 11 s).
        # Step N is the history's event N (numbered from 0); the topic is `t`, one partition per create.
        BS=${BS:-localhost:9092}
        # see REGEX: wait up to 60 s until a line of the topic's --describe (tabs as spaces) matches REGEX
        see() {
          for _ in $(seq 60); do kafka-topics.sh --bootstrap-server "$BS" --describe --topic t | tr '\t' ' ' | grep -Eq "$1" && { echo "seen: $1"; return 0; }; sleep 1; done
          echo "NOT SEEN: $1"; kafka-topics.sh --bootstrap-server "$BS" --describe --topic t; return 1
        }
        # A follower throttle only slows a replica outside the ISR, and only while it has a backlog to fetch: records are produced first, and each throttle is set before the step that puts its replica out of the ISR.
        # step 0: create partition 0 of t on brokers 1, 2, 3
        kafka-topics.sh --bootstrap-server "$BS" --create --topic t --replica-assignment 1:2:3
        see 'Partition: 0 Leader: 1 Replicas: 1,2,3 Isr: 1,2,3( Elr:.*)?$'
        # A backlog (a replica added later must copy the whole log while throttled): 4 MB.
        kafka-producer-perf-test.sh --topic t --num-records 40000 --record-size 100 --throughput -1 --producer-props bootstrap.servers="$BS" acks=all
        # Before step 1: hold broker 4 out of the ISR of t-0 for the rest of the history: a follower throttle.
        kafka-configs.sh --bootstrap-server "$BS" --alter --entity-type brokers --entity-name 4 --add-config follower.replication.throttled.rate=1
        kafka-configs.sh --bootstrap-server "$BS" --alter --entity-type topics --entity-name t --add-config 'follower.replication.throttled.replicas=[0:4]'
        kafka-configs.sh --bootstrap-server "$BS" --describe --entity-type brokers --entity-name 4 | grep -q 'follower.replication.throttled.rate=1' && echo 'broker 4 throttled'
        # step 1: reassign t-0 to [1, 2, 4]
        cat > reassign-1.json <<'EOF'
        {"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1,2,4]}]}
        EOF
        kafka-reassign-partitions.sh --bootstrap-server "$BS" --reassignment-json-file reassign-1.json --execute --additional
        see 'Partition: 0 Leader: 1 Replicas: 1,2,4,3 Isr: 1,2,3 Adding Replicas: 4 Removing Replicas: 3( Elr:.*)?$'
        # Before step 2: hold broker 5 out of the ISR of t-0 until step 3: a follower throttle.
        kafka-configs.sh --bootstrap-server "$BS" --alter --entity-type brokers --entity-name 5 --add-config follower.replication.throttled.rate=1
        kafka-configs.sh --bootstrap-server "$BS" --alter --entity-type topics --entity-name t --add-config 'follower.replication.throttled.replicas=[0:4,0:5]'
        kafka-configs.sh --bootstrap-server "$BS" --describe --entity-type brokers --entity-name 5 | grep -q 'follower.replication.throttled.rate=1' && echo 'broker 5 throttled'
        # step 2: reassign t-0 to [1, 2, 4, 5]
        cat > reassign-2.json <<'EOF'
        {"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1,2,4,5]}]}
        EOF
        kafka-reassign-partitions.sh --bootstrap-server "$BS" --reassignment-json-file reassign-2.json --execute --additional
        see 'Partition: 0 Leader: 1 Replicas: 1,2,4,5,3 Isr: 1,2,3 Adding Replicas: 5 Removing Replicas: 3( Elr:.*)?$'
        # step 3: the ISR of t-0 becomes [1, 2, 3, 5]
        # Broker 5 catches up and joins the ISR: lift its throttle.
        kafka-configs.sh --bootstrap-server "$BS" --alter --entity-type topics --entity-name t --add-config 'follower.replication.throttled.replicas=[0:4]'
        kafka-configs.sh --bootstrap-server "$BS" --alter --entity-type brokers --entity-name 5 --delete-config follower.replication.throttled.rate
        # Broker 4 stays out of the ISR: it is throttled since before step 1.
        see 'Partition: 0 Leader: 1 Replicas: 1,2,4,5 Isr: 1,2,5( Elr:.*)?$'
        # Whether the tool reports the reassignment finished:
        kafka-reassign-partitions.sh --bootstrap-server "$BS" --verify --preserve-throttles --reassignment-json-file reassign-2.json
        # Done: lift the throttles this script set.
        kafka-configs.sh --bootstrap-server "$BS" --alter --entity-type topics --entity-name t --delete-config follower.replication.throttled.replicas
        kafka-configs.sh --bootstrap-server "$BS" --alter --entity-type brokers --entity-name 4 --delete-config follower.replication.throttled.rate
        # What is wrong after step 2: the reassignment listing omits a replica still being added: partition 0: [4] will survive, is not original [1,2,3] and is not in adding [5]. It must hold: list completeness: while reassigning, (replicas − removing) − O ⊆ adding.
        # What is wrong after step 3: a reassignment completes with a new replica out of the ISR: partition 0: completed with new replicas [4] out of ISR [1,2,5] (replicas [1,2,4,5]). It must hold: safe completion: at completion, T − O ⊆ ISR.
    "##]].assert_eq(&operator::operator_steps(&h, &verdict.sides[0]));
}

/// `replay --report jira` on the KAFKA-21419 repro reads like the JIRA ticket: a summary in
/// words, affected versions, operator steps with checks, expected against actual, the fix.
#[test]
fn jira_ticket_of_the_kafka_21419_repro() {
    let (h, verdict) = repro();
    let t = ticket::ticket(REPRO, &h, &verdict, ticket::Format::Jira, ticket_reproducer);
    let lines: Vec<&str> = t.lines().collect();
    assert_eq!(
        lines[0],
        "h1. A reassignment completes with a new replica out of the ISR after a reassignment is overridden"
    );
    for section in [
        "h2. Description",
        "h2. Steps to reproduce",
        "h2. Expected",
        "h2. Actual",
        "h2. Suggested fix",
        "h2. Reproducer",
        "h2. History",
        "h2. Sources",
    ] {
        assert!(lines.contains(&section), "{section} missing:\n{t}");
    }
    // Affected, per consequence, as the real controllers showed (conformance/measured.json):
    // completing with 4 out of the ISR (the reported one) on 4.3 and 4.4 only, the listing
    // after the override on every release. One list for both would contradict the
    // reproducer.
    let at = lines
        .iter()
        .position(|l| *l == "* Affected versions, per consequence:")
        .unwrap();
    assert_eq!(
        lines[at + 1],
        "** A reassignment completes with a new replica out of the ISR (reported here): shown by Apache Kafka 4.3.1, 4.4.0; not by 4.0.2, 4.1.2, 4.2.2 (each release's real controller, replaying this history in-process)"
    );
    assert!(lines[at + 2].starts_with("** The reassignment listing omits a replica still being added: shown by Apache Kafka 4.0.2, 4.1.2, 4.2.2, 4.3.1, 4.4.0"), "{t}");
    assert_eq!(
        lines[1 + lines.iter().position(|l| l.starts_with("h1. ")).unwrap() + 1],
        "* Component: controller (KRaft: ReplicationControlManager, PartitionChangeBuilder)"
    );
    // The reproducer is a method of upstream's own test class, emitted for a release that
    // shows the reported consequence (4.3.1: the completion at step 3), in its code block.
    assert!(
        t.contains("{code:java}\n    /**\n     * a reassignment completes with a new replica out of the ISR: after step 3,"),
        "{t}"
    );
    assert!(
        t.contains("    public void testAReassignmentCompletesWithANewReplicaOutOfTheIsr() {"),
        "{t}"
    );
    assert!(t.contains("ReplicationControlManagerTest.java"), "{t}");
    assert!(!t.contains("ReproFixture") && !t.contains("--junit"), "{t}");
    // The steps are the operator script: the throttle is a concrete means, each step has a
    // check.
    assert!(t.contains("{code:bash}\n# Save as repro.sh"), "{t}");
    assert!(t.contains("follower.replication.throttled.rate=1"), "{t}");
    assert!(
        t.contains("see 'Partition: 0 Leader: 1 Replicas: 1,2,4,5 Isr: 1,2,5( Elr:.*)?$'"),
        "{t}"
    );
    // Only the rule set under report, in words; the fix as "the fix".
    assert!(
        !t[..t.find("h2. History").unwrap()].contains("inkless-main"),
        "{t}"
    );
    assert!(t.contains("With the suggested fix"), "{t}");
    assert!(
        t.contains("How an alter-reassignment call derives adding/removing replicas: here, adding = target − current replicas"),
        "{t}"
    );
    assert!(
        !t.contains("isr-expiration task"),
        "only the rule whose fix removes it:\n{t}"
    );
    // The history is embedded, as the reported rule set's own, in the attachment.
    let history = &t[t.find("h2. History").unwrap()..];
    assert!(
        history.contains("{code:json}") && history.contains("\"rules\": \"trunk+inkless-main\""),
        "{t}"
    );
    // No repository paths as sources.
    let sources = &t[t.find("h2. Sources").unwrap()..t.find("h2. History").unwrap()];
    assert!(!sources.contains("docs/"), "{sources}");
}

/// The same ticket in GitHub Markdown; an Inkless finding promises no JUnit reproducer and
/// says why.
#[test]
fn markdown_tickets_for_kraft_and_inkless() {
    let (h, verdict) = repro();
    let t = ticket::ticket(REPRO, &h, &verdict, ticket::Format::Md, ticket_reproducer);
    assert!(
        t.starts_with("# A reassignment completes with a new replica out of the ISR"),
        "{t}"
    );
    assert!(
        t.contains("## Steps to reproduce\n") && t.contains("\n```sh\n# Save as repro.sh"),
        "{t}"
    );
    assert!(
        t.contains("```java\n    /**\n")
            && t.contains("new ReplicationControlTestContext.Builder()"),
        "{t}"
    );
    let file = "corpus/regressions/f5-operator-seal-elects-leader-without-prefix.json";
    let (h, verdict) = load_and_run(file, RuleSet::complete());
    let t = ticket::ticket(file, &h, &verdict, ticket::Format::Md, ticket_reproducer);
    assert!(t.contains("Component: Inkless"), "{t}");
    assert!(
        t.contains("## Reproducer\n\nNone generated: JUnit reproducers run against Apache Kafka's released controller, which has no diskless topics"),
        "{t}"
    );
    assert!(!t.contains("mvn -f"), "{t}");
    assert!(
        t.contains(
            "kafka-topic-switch.sh seal --bootstrap-server \"$BS\" --topic t --partition 0 --offset 5"
        ),
        "{t}"
    );
}

#[test]
fn svg_timeline_has_a_lane_per_broker_a_column_per_step_and_the_violations_marked() {
    let (h, verdict) = repro();
    let doc = svg::timeline(&h, &verdict);
    assert!(doc.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(doc.trim_end().ends_with("</svg>"));
    assert_eq!(
        doc.matches("<g").count(),
        doc.matches("</g>").count(),
        "balanced groups"
    );
    // Both sides side by side, each with every broker's lane and every step's column.
    let sides: Vec<&str> = doc.split("<g class=\"side\"").skip(1).collect();
    assert_eq!(sides.len(), 2);
    assert!(sides[0].contains("data-rules=\"trunk+inkless-main\""));
    assert!(sides[1].contains("data-rules=\"complete+inkless-main\""));
    for side in &sides {
        assert_eq!(side.matches("class=\"lane\"").count(), h.brokers.len() + 1);
        assert_eq!(side.matches("class=\"step\"").count(), h.events.len());
        assert_eq!(
            side.matches("class=\"cell\"").count(),
            h.brokers.len() * h.events.len()
        );
    }
    // trunk violates G2 at step 2 and G5 at step 3; complete holds.
    assert!(sides[0].contains("data-invariant=\"G2\""));
    assert!(sides[0].contains("data-invariant=\"G5\""));
    assert!(!sides[1].contains("class=\"violation\""));
    // After step 3 under trunk: 1 leads, 4 is a replica out of the ISR (KAFKA-21419).
    let step3 = sides[0].split("data-step=\"3\"").nth(1).unwrap();
    assert!(step3.contains("data-broker=\"1\" data-role=\"L\""));
    assert!(step3.contains("data-broker=\"4\" data-role=\"r\""));
    assert!(step3.contains("data-broker=\"5\" data-role=\"I\""));
}

/// With ELR on, the operator steps start by turning the feature on and create the topic
/// with its `min.insync.replicas`; the step table says the cluster runs ELR and ends each
/// partition row with its ELR and last known ELR (F17's history).
#[test]
fn elr_on_in_the_operator_steps_and_the_step_table() {
    let file = "corpus/regressions/f17-elr-names-a-removed-replica.json";
    let (h, verdict) = load_and_run(file, RuleSet::complete());
    let steps = operator::operator_steps(&h, &verdict.sides[0]);
    let head: Vec<&str> = (steps.lines())
        .filter(|l| l.contains("eligible.leader.replicas") || l.contains("--create"))
        .collect();
    expect![[r#"
        kafka-features.sh --bootstrap-server "$BS" upgrade --feature eligible.leader.replicas.version=1
        kafka-topics.sh --bootstrap-server "$BS" --create --topic t --replica-assignment 3:2 --config min.insync.replicas=2"#]].assert_eq(&head.join("\n"));
    let table = isrfuzz::findings::report::step_table(&h, &verdict.sides[0]);
    let rows: Vec<&str> = table.lines().take(5).collect();
    expect![[r#"
        rules: complete
        cluster: eligible.leader.replicas.version=1 (ELR on); rows end with elr and lke (last known ELR)
        step  event                              result                      replicas      isr         adding    removing  ldr  le  pe  violations
           0  create [3,2] min.isr=2             ok                       p0 [3,2]         [3,2]       []        []          3   0   0 elr=[] lke=[]  
           1  reassign p0 [2]                    ok, completed            p0 [2]           [2]         []        []          2   1   1 elr=[3] lke=[]  !! ELR1 ELR3"#]].assert_eq(&rows.join("\n"));
}

/// F28's steps: before broker 1 restarts, its partition has no leader, so the script asks
/// for no backlog (a produce there only times out) and says why.
#[test]
fn no_backlog_is_produced_for_a_partition_without_a_leader() {
    let file = "corpus/regressions/f28-elr-turned-on-over-a-leaderless-partition-keeps-no-last-leader.json";
    let (h, verdict) = load_and_run(file, RuleSet::trunk());
    let steps = operator::operator_steps(&h, &verdict.sides[0]);
    let before_restart = steps.split("# step 3:").next().unwrap();
    assert!(
        !before_restart.contains("kafka-producer-perf-test.sh"),
        "{steps}"
    );
    assert!(
        before_restart.contains("The partition has no leader"),
        "{steps}"
    );
}

/// The label of each violation, with its column's x and its own y.
fn violation_labels(doc: &str) -> Vec<(String, String, String)> {
    doc.split("class=\"violation-label\" x=\"")
        .skip(1)
        .map(|rest| {
            let (x, rest) = rest.split_once("\" y=\"").unwrap();
            let (y, rest) = rest.split_once('"').unwrap();
            let name = rest.split('>').nth(1).unwrap().split('<').next().unwrap();
            (x.to_string(), y.to_string(), name.to_string())
        })
        .collect()
}

#[test]
fn svg_timeline_names_events_stacks_labels_and_has_a_legend() {
    // trunk violates G1 and G2 at step 2, G4 and G5 at step 3.
    let path = "corpus/regressions/trunk--G4--56267fc605ad76f8.json";
    let h = load(path);
    let sides = RuleSet::parse_pair(h.rules.as_deref().unwrap()).unwrap();
    let doc = svg::timeline(&h, &oracle::run(&h, &sides, true));
    // Every column carries its event's name.
    assert_eq!(
        doc.matches("class=\"event\"").count(),
        h.events.len() * sides.len()
    );
    assert!(doc.contains(">reassign p0 [2]</text>"), "{doc}");
    assert!(doc.contains(">reassign p0 [3,…</text>"), "{doc}");
    // Labels that share a column are on separate lines.
    let labels = violation_labels(&doc);
    assert!(labels.len() >= 4, "{labels:?}");
    for (i, a) in labels.iter().enumerate() {
        for b in &labels[i + 1..] {
            assert!(a.0 != b.0 || a.1 != b.1, "{a:?} and {b:?} overlap");
        }
    }
    assert!(labels.iter().any(|l| l.2 == "G1") && labels.iter().any(|l| l.2 == "G2"));
    // The legend names every color and mark.
    let legend = doc.split("<g class=\"legend\">").nth(1).unwrap();
    for words in [
        "L leader",
        "I in the ISR",
        "first violation",
        "ISR membership changed",
    ] {
        assert!(legend.contains(words), "legend lacks {words}");
    }
}

#[test]
fn svg_timeline_marks_isr_changes_inside_a_step() {
    let text = r#"{"format":3,"brokers":[1,2,3],"broker_config":{"replica_lag_time_max_ms":100},
        "events":[{"op":"create_partition","replicas":[1,2,3]},{"op":"stall_broker","broker":2},
        {"op":"advance_time","ms":200},{"op":"resume_broker","broker":2},
        {"op":"advance_time","ms":200}]}"#;
    let h: History = serde_json::from_str(text).unwrap();
    let sides = [RuleSet::complete()];
    let doc = svg::timeline(&h, &oracle::run(&h, &sides, true));
    // Broker 2 is shrunk out during step 2 and re-admitted during step 4; nothing else.
    let marked: Vec<(usize, &str)> = (0..h.events.len())
        .flat_map(|s| {
            let column = doc.split(&format!("data-step=\"{s}\"")).nth(1).unwrap();
            let column = column.split("</g>").next().unwrap();
            column
                .split("class=\"transient\" data-broker=\"")
                .skip(1)
                .map(move |r| (s, r.split('"').next().unwrap()))
        })
        .collect();
    assert_eq!(marked, vec![(2, "2"), (4, "2")]);
}
