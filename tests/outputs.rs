//! The outputs for people (issue 12), on the committed KAFKA-21419 repro: `replay
//! --operator` (admin commands and conditions), `replay --report md` (a bug report) and
//! `replay --svg` (a timeline, checked structurally); and, on F17's history, what ELR on adds
//! to the operator steps and the step table.

use expect_test::expect;
use isrfuzz::check::history::History;
use isrfuzz::check::oracle;
use isrfuzz::findings::{bugreport, operator, svg};
use isrfuzz::rules::RuleSet;
use std::path::Path;

const REPRO: &str = "corpus/regressions/kafka-21419-repro.json";

fn repro() -> (History, oracle::Verdict) {
    let h = History::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join(REPRO)).unwrap();
    let sides = RuleSet::parse_pair(h.rules.as_deref().unwrap()).unwrap();
    let verdict = oracle::run(&h, &sides, true);
    (h, verdict)
}

#[test]
fn operator_steps_of_the_kafka_21419_repro() {
    let (h, verdict) = repro();
    expect![[r##"
        # Brokers [1, 2, 3, 4, 5]; `$BS` is a bootstrap server. Topic `t`, one partition per create.
        1. kafka-topics.sh --bootstrap-server $BS --create --topic t --replica-assignment 1:2:3
        2. write reassign-1.json = {"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1, 2, 4]}]}; kafka-reassign-partitions.sh --bootstrap-server $BS --reassignment-json-file reassign-1.json --execute --additional; kafka-reassign-partitions.sh --bootstrap-server $BS --list
        3. write reassign-2.json = {"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1, 2, 4, 5]}]}; kafka-reassign-partitions.sh --bootstrap-server $BS --reassignment-json-file reassign-2.json --execute --additional; kafka-reassign-partitions.sh --bootstrap-server $BS --list
        4. condition: ISR of t-0 becomes [1, 2, 3, 5]: hold broker 4 out of the ISR, e.g. with a 1 B/s follower throttle (kafka-configs.sh --bootstrap-server $BS --alter --entity-type brokers --entity-name 4 --add-config follower.replication.throttled.rate=1; kafka-configs.sh --bootstrap-server $BS --alter --entity-type topics --entity-name t --add-config follower.replication.throttled.replicas=0:4); let broker 5 catch up and join the ISR (remove its throttle if any)
        5. kafka-reassign-partitions.sh --bootstrap-server $BS --verify --reassignment-json-file reassign-2.json
    "##]].assert_eq(&operator::operator_steps(&h, &verdict.sides[0]));
}

#[test]
fn markdown_report_of_the_kafka_21419_repro() {
    let (h, verdict) = repro();
    expect![[r##"
        # KAFKA-21419 as reported

        ## Summary

        KAFKA-21419 as reported: override [1,2,4] with [1,2,4,5] while 4 is still adding, then 5 joins the ISR; trunk completes with 4 out of the ISR

        Verdict: trunk+inkless-main violates G2@2 G5@3; complete+inkless-main holds; states differ from step 2

        ## Rule variants

        - `trunk+inkless-main`: differs from `complete` in derivation=trunk, shrink=inkless-main, lag=uncapped, leader-change=none, seal-fetch=local-log, seal-admission=generic, switched-reassignment=one-step
        - `complete+inkless-main`: differs from `complete` in shrink=inkless-main, lag=uncapped, leader-change=none, seal-fetch=local-log, seal-admission=generic, switched-reassignment=one-step

        ## Steps

        ```text
        rules: trunk+inkless-main
        step  event                              result                      replicas      isr         adding    removing  ldr  le  pe  violations
           0  create [1,2,3]                     ok                       p0 [1,2,3]       [1,2,3]     []        []          1   0   0  
           1  reassign p0 [1,2,4]                ok                       p0 [1,2,4,3]     [1,2,3]     [4]       [3]         1   0   1  
           2  reassign p0 [1,2,4,5]              ok                       p0 [1,2,4,5,3]   [1,2,3]     [5]       [3]         1   0   2  !! G2
           3  alter_partition p0 isr=[1,2,3,5]   ok, completed            p0 [1,2,4,5]     [1,2,5]     []        []          1   1   3  !! G5
          G2 step 2: p0: [4] will survive, is not original [1,2,3] and is not in adding [5]
          G5 step 3: p0: completed with new replicas [4] out of isr [1,2,5] (replicas [1,2,4,5])
        ```

        ```text
        rules: complete+inkless-main
        step  event                              result                      replicas      isr         adding    removing  ldr  le  pe  violations
           0  create [1,2,3]                     ok                       p0 [1,2,3]       [1,2,3]     []        []          1   0   0  
           1  reassign p0 [1,2,4]                ok                       p0 [1,2,4,3]     [1,2,3]     [4]       [3]         1   0   1  
           2  reassign p0 [1,2,4,5]              ok                       p0 [1,2,4,5,3]   [1,2,3]     [4,5]     [3]         1   0   2  
           3  alter_partition p0 isr=[1,2,3,5]   ok                       p0 [1,2,4,5,3]   [1,2,3,5]   [4,5]     [3]         1   0   3  
        ```

        ## Invariants violated

        - **G2** under `trunk+inkless-main` at step 2: p0: [4] will survive, is not original [1,2,3] and is not in adding [5]
          - Statement: list completeness: while reassigning, (replicas − removing) − O ⊆ adding
          - Why: Every non-original replica that will survive completion must be reported as adding, or `--list`, throttles and under-replication accounting treat it as caught up. This is KAFKA-21419's first symptom (history 1, step 2) and the drop-then-re-add hole of its proposed fix (history 5).
          - Source: docs/model/reassignment.md#g2, #history-1, #history-5; https://issues.apache.org/jira/browse/KAFKA-21419
        - **G5** under `trunk+inkless-main` at step 3: p0: completed with new replicas [4] out of isr [1,2,5] (replicas [1,2,4,5])
          - Statement: safe completion: at completion, T − O ⊆ ISR (the ISR completion was decided on, see F1)
          - Why: No newly added replica may be declared done while out of sync: KAFKA-21419 ends with replicas [1,2,4,5] and ISR [1,2,5], the removed replica 3 already gone.
          - Source: docs/model/reassignment.md#g5, #history-1, #ends; https://issues.apache.org/jira/browse/KAFKA-21419

        ## Operator steps (under `trunk+inkless-main`)

        ```sh
        # Brokers [1, 2, 3, 4, 5]; `$BS` is a bootstrap server. Topic `t`, one partition per create.
        1. kafka-topics.sh --bootstrap-server $BS --create --topic t --replica-assignment 1:2:3
        2. write reassign-1.json = {"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1, 2, 4]}]}; kafka-reassign-partitions.sh --bootstrap-server $BS --reassignment-json-file reassign-1.json --execute --additional; kafka-reassign-partitions.sh --bootstrap-server $BS --list
        3. write reassign-2.json = {"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1, 2, 4, 5]}]}; kafka-reassign-partitions.sh --bootstrap-server $BS --reassignment-json-file reassign-2.json --execute --additional; kafka-reassign-partitions.sh --bootstrap-server $BS --list
        4. condition: ISR of t-0 becomes [1, 2, 3, 5]: hold broker 4 out of the ISR, e.g. with a 1 B/s follower throttle (kafka-configs.sh --bootstrap-server $BS --alter --entity-type brokers --entity-name 4 --add-config follower.replication.throttled.rate=1; kafka-configs.sh --bootstrap-server $BS --alter --entity-type topics --entity-name t --add-config follower.replication.throttled.replicas=0:4); let broker 5 catch up and join the ISR (remove its throttle if any)
        5. kafka-reassign-partitions.sh --bootstrap-server $BS --verify --reassignment-json-file reassign-2.json
        ```

        ## Replay

        ```sh
        isrfuzz replay corpus/regressions/kafka-21419-repro.json --rules 'trunk+inkless-main:complete+inkless-main'
        ```
    "##]].assert_eq(&bugreport::markdown(REPRO, &h, &verdict));
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
    let h = History::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join(file)).unwrap();
    let verdict = oracle::run(&h, &[RuleSet::complete()], true);
    let steps = operator::operator_steps(&h, &verdict.sides[0]);
    let head: Vec<&str> = steps.lines().take(3).collect();
    expect![[r#"
        # Brokers [1, 2, 3]; `$BS` is a bootstrap server. Topic `t`, one partition per create.
        # ELR on: kafka-features.sh --bootstrap-server $BS upgrade --feature eligible.leader.replicas.version=1 (the default of new 4.1+ clusters)
        1. kafka-topics.sh --bootstrap-server $BS --create --topic t --replica-assignment 3:2 --config min.insync.replicas=2"#]].assert_eq(&head.join("\n"));
    let table = isrfuzz::findings::report::step_table(&h, &verdict.sides[0]);
    let rows: Vec<&str> = table.lines().take(5).collect();
    expect![[r#"
        rules: complete
        cluster: eligible.leader.replicas.version=1 (ELR on); rows end with elr and lke (last known ELR)
        step  event                              result                      replicas      isr         adding    removing  ldr  le  pe  violations
           0  create [3,2] min.isr=2             ok                       p0 [3,2]         [3,2]       []        []          3   0   0 elr=[] lke=[]  
           1  reassign p0 [2]                    ok, completed            p0 [2]           [2]         []        []          2   1   1 elr=[3] lke=[]  !! ELR1 ELR3"#]].assert_eq(&rows.join("\n"));
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
    let h = History::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap();
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
