//! The history file format (format 3, which reads formats 1 and 2): fields at their default are left out, so committed
//! files stay short and readable, and every value survives a round trip. Plus the one
//! history edit the minimizer makes that renumbers partitions.

use crate::common;

use expect_test::expect;
use isrfuzz::check::history::History;
use isrfuzz::findings::minimize::without_event;

/// Every event kind, each partition-addressed one on p1, with defaults and non-defaults.
const EVERY_KIND: &str = "brokers 1,2,3,4; create 1,2,3; create 1,2,3 unclean; \
    create 2,3,4 remote; create 1,2 min.isr=2; produce 1; produce 2 acks=all; fetch 2 p2; reassign 1,2,4 p1; reassign 1,2,3 keep-rf p1; cancel p1; \
    isr 1,2 p1; isr 1 le=0 pe=2 by=1 recovering p1; elect preferred p1; elect unclean p1; \
    produce 3 p1; fetch 2 p1; switch p1; switch consolidating p1; seal p1; alter-switch -1 p1; \
    time 10; stall 2; resume 2; fence 3; unfence 3; shutdown 4; restart 4; restart 4 unclean; list";

#[test]
fn defaults_are_left_out_and_everything_round_trips() {
    let h = common::parse(EVERY_KIND);
    let json = h.to_json();
    assert_eq!(History::from_json(&json).unwrap(), h, "round trip");
    // One event per line, for the reader.
    let events: Vec<String> = serde_json::to_value(&h.events)
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.to_string())
        .collect();
    expect![[r#"
        {"op":"create_partition","replicas":[1,2,3]}
        {"op":"create_partition","replicas":[1,2,3],"unclean_leader_election_enable":true}
        {"diskless":true,"op":"create_partition","remote_storage":true,"replicas":[2,3,4]}
        {"min_insync_replicas":2,"op":"create_partition","replicas":[1,2]}
        {"op":"produce","records":1}
        {"acks":"all","op":"produce","records":2}
        {"broker":2,"op":"follower_fetch","partition":2}
        {"op":"reassign","partition":1,"target":[1,2,4]}
        {"allow_replication_factor_change":false,"op":"reassign","partition":1,"target":[1,2,3]}
        {"op":"cancel_reassignment","partition":1}
        {"isr":[1,2],"op":"alter_partition","partition":1}
        {"broker":1,"isr":[1],"leader_epoch":0,"leader_recovery_state":"recovering","op":"alter_partition","partition":1,"partition_epoch":2}
        {"election":"preferred","op":"elect_leaders","partition":1}
        {"election":"unclean","op":"elect_leaders","partition":1}
        {"op":"produce","partition":1,"records":3}
        {"broker":2,"op":"follower_fetch","partition":1}
        {"op":"switch_start","partition":1}
        {"consolidating":true,"op":"switch_start","partition":1}
        {"op":"seal_commit","partition":1}
        {"op":"alter_diskless_switch","partition":1,"seal":-1}
        {"ms":10,"op":"advance_time"}
        {"broker":2,"op":"stall_broker"}
        {"broker":2,"op":"resume_broker"}
        {"broker":3,"op":"fence_broker"}
        {"broker":3,"op":"unfence_broker"}
        {"broker":4,"op":"controlled_shutdown"}
        {"broker":4,"op":"restart_broker"}
        {"broker":4,"op":"restart_broker","unclean":true}
        {"op":"list_reassignments"}
    "#]]
    .assert_eq(&(events.join("\n") + "\n"));
}

#[test]
fn dropping_a_create_drops_its_events_and_renumbers_the_later_partitions() {
    let h = common::parse(EVERY_KIND);
    // Drop the first create: p1's events now address p0, p0's went with it, and p2 is p1.
    let dropped = without_event(&h, 0);
    let partitions: Vec<String> = dropped
        .events
        .iter()
        .map(|e| {
            let op = serde_json::to_value(e).unwrap()["op"].clone();
            format!("{} {:?}", op.as_str().unwrap(), e.partition())
        })
        .collect();
    expect![[r#"
        create_partition None
        create_partition None
        create_partition None
        follower_fetch Some(1)
        reassign Some(0)
        reassign Some(0)
        cancel_reassignment Some(0)
        alter_partition Some(0)
        alter_partition Some(0)
        elect_leaders Some(0)
        elect_leaders Some(0)
        produce Some(0)
        follower_fetch Some(0)
        switch_start Some(0)
        switch_start Some(0)
        seal_commit Some(0)
        alter_diskless_switch Some(0)
        advance_time None
        stall_broker None
        resume_broker None
        fence_broker None
        unfence_broker None
        controlled_shutdown None
        restart_broker None
        restart_broker None
        list_reassignments None
    "#]]
    .assert_eq(&(partitions.join("\n") + "\n"));
}

/// Format 1 files load as format 3 (their meaning is format 2 with acks=1 and
/// min.insync.replicas=1, which is format 3 with nothing more), are written back as format
/// 3, and may not use format 2's fields; other versions are refused with the versions this
/// build reads.
#[test]
fn format_1_is_migrated_and_other_versions_refused() {
    let v1 = r#"{"format": 1, "brokers": [1,2], "events": [{"op":"create_partition","replicas":[1,2]},{"op":"produce","records":3}]}"#;
    let h = History::from_json(v1).unwrap();
    assert_eq!(h.format, 3);
    assert!(h.to_json().contains("\"format\": 3"), "{}", h.to_json());
    let v1_with_acks = v1.replace(r#""records":3"#, r#""records":3,"acks":"all""#);
    expect![[r#"event 1 uses a format 2 field (acks, min_insync_replicas) in a format 1 file: set "format": 2"#]]
        .assert_eq(&History::from_json(&v1_with_acks).unwrap_err());
    let v2_with_acks = v1_with_acks.replace(r#""format": 1"#, r#""format": 2"#);
    assert!(History::from_json(&v2_with_acks).is_ok());
    let v8 = v1.replace(r#""format": 1"#, r#""format": 8"#);
    expect!["unknown format version 8 (this isrfuzz reads versions 1 to 7)"]
        .assert_eq(&History::from_json(&v8).unwrap_err());
}

/// Format 2's unclean restart kept the log up to the high watermark: it loads as format 3's
/// `"survives": "high_watermark"` (a clean one stays as it is). Format 3's events and field
/// are refused in a format 1 or 2 file, and `survives` without `unclean` in any.
#[test]
fn format_2_unclean_restarts_keep_their_meaning() {
    let v2 = r#"{"format": 2, "brokers": [1,2], "events": [{"op":"create_partition","replicas":[1,2]},{"op":"restart_broker","broker":2,"unclean":true},{"op":"restart_broker","broker":1}]}"#;
    let h = History::from_json(v2).unwrap();
    expect![[r#"
        {
          "format": 3,
          "brokers": [1,2],
          "events": [
            {"op":"create_partition","replicas":[1,2]},
            {"op":"restart_broker","broker":2,"unclean":true,"survives":"high_watermark"},
            {"op":"restart_broker","broker":1}
          ]
        }
    "#]]
    .assert_eq(&h.to_json());
    let v3 = v2.replace(r#""format": 2"#, r#""format": 3"#);
    assert!(!History::from_json(&v3)
        .unwrap()
        .to_json()
        .contains("survives"));
    for (v3_only, text) in [
        ("delete_records", r#"{"op":"delete_records","offset":-1}"#),
        ("flush_broker", r#"{"op":"flush_broker","broker":1}"#),
        (
            "survives",
            r#"{"op":"restart_broker","broker":1,"unclean":true,"survives":"flushed"}"#,
        ),
    ] {
        let with = v2.replace(r#"{"op":"restart_broker","broker":1}"#, text);
        let err = History::from_json(&with).unwrap_err();
        assert_eq!(
            err,
            r#"event 2 uses a format 3 event or field (delete_records, flush_broker, survives) in a format 2 file: set "format": 3"#,
            "{v3_only}"
        );
        let v1 = with.replace(r#""format": 2"#, r#""format": 1"#);
        assert!(
            History::from_json(&v1)
                .unwrap_err()
                .ends_with(r#"in a format 1 file: set "format": 3"#),
            "{v3_only}"
        );
        assert!(History::from_json(&with.replace(r#""format": 2"#, r#""format": 3"#)).is_ok());
    }
    let clean_survives = v3.replace(
        r#"{"op":"restart_broker","broker":1}"#,
        r#"{"op":"restart_broker","broker":1,"survives":"flushed"}"#,
    );
    expect![[
        r#"step 2 (restart 1): `survives` needs `"unclean": true` (a clean shutdown loses nothing)"#
    ]]
    .assert_eq(&History::from_json(&clean_survives).unwrap_err());
    let beyond = v3.replace(
        r#"{"op":"restart_broker","broker":1}"#,
        r#"{"op":"delete_records","offset":-2}"#,
    );
    expect!["step 2 (delete_records p0 below -2): offset -2 outside -1..=1000000000"]
        .assert_eq(&History::from_json(&beyond).unwrap_err());
}

/// Format 4 added `eligible_leader_replicas` (the ELR cluster feature, off by default). A
/// history with it off is written as format 3 (every file from before format 4 keeps its
/// bytes and content hash); with it on, as format 4, round trip included. A file before
/// format 4 may not turn it on, and a format number that does not match the history is
/// refused when a history is validated.
#[test]
fn format_4_elr_feature() {
    let v3 = r#"{"format": 3, "brokers": [1,2], "events": [{"op":"create_partition","replicas":[1,2],"min_insync_replicas":2}]}"#;
    let off = History::from_json(v3).unwrap();
    assert!(!off.eligible_leader_replicas);
    assert!(
        off.to_json().starts_with("{\n  \"format\": 3,\n"),
        "{}",
        off.to_json()
    );
    let v4_off = History::from_json(&v3.replace(r#""format": 3"#, r#""format": 4"#)).unwrap();
    assert_eq!(
        v4_off, off,
        "a format 4 file with ELR off is the format 3 file"
    );
    assert_eq!(v4_off.content_hash(), off.content_hash());
    let v4_on = v3.replace(
        r#""format": 3,"#,
        r#""format": 4, "eligible_leader_replicas": true,"#,
    );
    let on = History::from_json(&v4_on).unwrap();
    assert!(on.eligible_leader_replicas);
    assert_eq!(on.format, 4);
    expect![[r#"
        {
          "format": 4,
          "brokers": [1,2],
          "eligible_leader_replicas": true,
          "events": [
            {"op":"create_partition","replicas":[1,2],"min_insync_replicas":2}
          ]
        }
    "#]]
    .assert_eq(&on.to_json());
    assert_eq!(History::from_json(&on.to_json()).unwrap(), on);
    assert_ne!(on.content_hash(), off.content_hash());
    for old in [1, 2, 3] {
        let file = v4_on.replace(r#""format": 4"#, &format!(r#""format": {old}"#));
        let file = file.replace(r#","min_insync_replicas":2"#, "");
        assert_eq!(
            History::from_json(&file).unwrap_err(),
            format!("`eligible_leader_replicas` is a format 4 field, found in a format {old} file: set \"format\": 4")
        );
    }
    let mut mismatched = on.clone();
    mismatched.format = 3;
    expect!["format version 3 does not match the history (expected 4: 7 with a format 7 operation, else 6 with a format 6 operation, else 5 with a format 5 operation, else 4 with `eligible_leader_replicas`, else 3)"]
        .assert_eq(&mismatched.validate().unwrap_err());
}

/// Format 6's operations (`create_partitions`, `delete_topic`) need format 6; a history with
/// one is written as 6, and one without any as before (5 with a format 5 operation).
#[test]
fn format_6_topic_operations() {
    let v5 = r#"{"format": 5, "brokers": [1,2], "events": [{"op":"create_partition","replicas":[1,2]},{"op":"create_partition","replicas":[2]},{"op":"unregister_broker","broker":1}]}"#;
    assert_eq!(History::from_json(v5).unwrap().format, 5);
    let with_delete = v5.replace(
        r#"{"op":"unregister_broker","broker":1}"#,
        r#"{"op":"delete_topic","partition":1},{"op":"unregister_broker","broker":1}"#,
    );
    expect![[r#"event 2 uses a format 6 operation (create_partitions, delete_topic) in a format 5 file: set "format": 6"#]]
        .assert_eq(&History::from_json(&with_delete).unwrap_err());
    let v6 = with_delete.replace(r#""format": 5"#, r#""format": 6"#);
    let h = History::from_json(&v6).unwrap();
    assert_eq!(h.format, 6);
    assert!(h.to_json().contains("\"format\": 6"), "{}", h.to_json());
    // A partition index past every creation (a `create_partitions` counts as one) is refused.
    let added = v6.replace(
        r#"{"op":"delete_topic","partition":1}"#,
        r#"{"op":"create_partitions","replicas":[1,2]},{"op":"delete_topic","partition":3}"#,
    );
    expect!["step 3 (delete p3's topic): partition 3 is not created before this step"]
        .assert_eq(&History::from_json(&added).unwrap_err());
}
