//! Test helpers: a one-line history notation, so scenario tables stay short.
//!
//! `brokers 1,2,3,4,5; create 1,2,3; reassign 1,2,4; isr 1,2,3,5; cancel; fence 4;
//! unfence 4; shutdown 4; elect preferred; list` — an optional `p1` addresses another
//! partition, `unclean` on create enables unclean election, `keep-rf` on reassign sets
//! allowReplicationFactorChange=false; `isr 1,2 le=3 pe=4 by=1 recovering` sets the
//! AlterPartition request's leader epoch, partition epoch, sender and recovery state
//! (default: the current ones, from the leader, recovered). Brokers default to 1..=5.
//! `elr` turns the ELR cluster feature on (format 4).

#![allow(dead_code)]

use isrfuzz::check::history::History;
use isrfuzz::check::oracle;
use isrfuzz::findings::report::verdict_line;
use isrfuzz::model::broker::Local;
use isrfuzz::model::event::Ids;
use isrfuzz::model::{apply, BrokerState, Cluster, ElectionType, Event, LeaderRecoveryState};
use isrfuzz::rules::RuleSet;
use std::fmt::Write;

fn ids(s: &str) -> Vec<i32> {
    if s.is_empty() || s == "-" {
        return Vec::new();
    }
    s.split(',')
        .map(|x| x.trim().parse().unwrap_or_else(|_| panic!("bad id `{x}`")))
        .collect()
}

/// The value of a `key=value` word, e.g. `le=3`.
fn field(words: &[&str], key: &str) -> Option<i32> {
    words.iter().find_map(|w| {
        w.strip_prefix(key)
            .map(|v| v.parse().unwrap_or_else(|_| panic!("bad `{w}`")))
    })
}

pub fn parse(text: &str) -> History {
    let mut brokers = vec![1, 2, 3, 4, 5];
    let mut config = isrfuzz::model::BrokerConfig::default();
    let mut elr = false;
    let mut events = Vec::new();
    for clause in text.split(';').map(str::trim).filter(|c| !c.is_empty()) {
        let words: Vec<&str> = clause.split_whitespace().collect();
        let partition = words
            .iter()
            .find_map(|w| w.strip_prefix('p').and_then(|n| n.parse().ok()))
            .unwrap_or(0);
        let has = |flag: &str| words.contains(&flag);
        let arg = words.get(1).copied().unwrap_or("");
        let event = match words[0] {
            "brokers" => {
                brokers = ids(arg);
                continue;
            }
            "create" => Event::CreatePartition {
                replicas: ids(arg),
                unclean_leader_election_enable: has("unclean"),
                diskless: has("diskless") || has("remote"),
                remote_storage: has("remote"),
                min_insync_replicas: field(&words, "min.isr=").unwrap_or(1),
            },
            "elr" => {
                elr = true;
                continue;
            }
            "lag" => {
                config.replica_lag_time_max_ms = arg.parse().unwrap();
                continue;
            }
            "produce" => Event::Produce {
                partition,
                records: arg.parse().unwrap(),
                acks: if has("acks=all") {
                    isrfuzz::model::Acks::All
                } else {
                    isrfuzz::model::Acks::One
                },
            },
            "time" => Event::AdvanceTime {
                ms: arg.parse().unwrap(),
            },
            "fetch" => Event::FollowerFetch {
                partition,
                broker: arg.parse().unwrap(),
            },
            "switch" => Event::SwitchStart {
                partition,
                consolidating: has("consolidating"),
            },
            "seal" => Event::SealCommit { partition },
            "alter-switch" => Event::AlterDisklessSwitch {
                partition,
                seal: arg.parse().unwrap(),
            },
            "stall" => Event::StallBroker {
                broker: arg.parse().unwrap(),
            },
            "resume" => Event::ResumeBroker {
                broker: arg.parse().unwrap(),
            },
            "restart" => Event::RestartBroker {
                broker: arg.parse().unwrap(),
                unclean: has("unclean"),
                survives: has("survives=hw").then_some(isrfuzz::model::Survives::HighWatermark),
            },
            "delete" => Event::DeleteRecords {
                partition,
                offset: arg.parse().unwrap(),
            },
            "flush" => Event::FlushBroker {
                broker: arg.parse().unwrap(),
            },
            "reassign" => Event::Reassign {
                partition,
                target: ids(arg),
                allow_replication_factor_change: !has("keep-rf"),
            },
            "cancel" => Event::CancelReassignment { partition },
            "isr" => Event::AlterPartition {
                partition,
                isr: ids(arg),
                broker: field(&words, "by="),
                leader_epoch: field(&words, "le="),
                partition_epoch: field(&words, "pe="),
                leader_recovery_state: if has("recovering") {
                    LeaderRecoveryState::Recovering
                } else {
                    LeaderRecoveryState::Recovered
                },
                stale_epoch: field(&words, "stale="),
            },
            "fence" => Event::FenceBroker {
                broker: arg.parse().unwrap(),
            },
            "unfence" => Event::UnfenceBroker {
                broker: arg.parse().unwrap(),
            },
            "shutdown" => Event::ControlledShutdown {
                broker: arg.parse().unwrap(),
            },
            "elect" => Event::ElectLeaders {
                partition,
                election: if arg == "unclean" {
                    ElectionType::Unclean
                } else {
                    ElectionType::Preferred
                },
            },
            // `elect-many p0 p2 unclean`, `elect-many all preferred`
            "elect-many" => Event::ElectLeadersMany {
                partitions: (!has("all")).then(|| {
                    let ps = words.iter().filter_map(|w| w.strip_prefix('p'));
                    ps.filter_map(|n| n.parse().ok()).collect()
                }),
                election: if has("unclean") {
                    ElectionType::Unclean
                } else {
                    ElectionType::Preferred
                },
            },
            // `config p0 min.isr=2 unclean=true`
            "config" => Event::AlterTopicConfig {
                partition,
                min_insync_replicas: field(&words, "min.isr="),
                unclean_leader_election_enable: words
                    .iter()
                    .find_map(|w| w.strip_prefix("unclean=").map(|v| v == "true")),
            },
            "lagging" => Event::LaggingHeartbeat {
                broker: arg.parse().unwrap(),
            },
            "features" => Event::UpdateFeatures {
                eligible_leader_replicas: has("elr=1"),
            },
            "unregister" => Event::UnregisterBroker {
                broker: arg.parse().unwrap(),
            },
            "list" => Event::ListReassignments,
            // `dir 2 1 p0`: broker 2 places its replica of p0 in its directory 1
            "dir" => Event::AssignReplicaDir {
                partition,
                broker: arg.parse().unwrap(),
                dir: words[2].parse().unwrap(),
            },
            // `dirfail 2 0`: directory 0 of broker 2 fails and is reported offline
            "dirfail" => Event::LogDirOffline {
                broker: arg.parse().unwrap(),
                dir: words[2].parse().unwrap(),
            },
            other => panic!("unknown clause `{other}`"),
        };
        events.push(event);
    }
    let mut h = History::new(brokers, events);
    h.broker_config = config;
    h.eligible_leader_replicas = elr;
    h.format = h.written_format();
    h.validate().expect("test history is valid");
    h
}

/// Final state of every partition plus the verdict, per rule set, one block each.
pub fn outcome(text: &str, presets: &[&str]) -> String {
    let h = parse(text);
    let mut out = String::new();
    for name in presets {
        let rules = RuleSet::parse(name).unwrap();
        let verdict = oracle::run(&h, &[rules], true);
        let side = &verdict.sides[0];
        let last = &side.steps.last().expect("at least one step").state;
        let _ = write!(out, "{name}:");
        for (i, p) in last.partitions.iter().enumerate() {
            let _ = write!(
                out,
                " p{i} replicas={} isr={} adding={} removing={} leader={} le={} pe={}",
                Ids(&p.replicas),
                Ids(&p.isr),
                Ids(&p.adding_replicas),
                Ids(&p.removing_replicas),
                p.leader,
                p.leader_epoch,
                p.partition_epoch
            );
        }
        for (step, rec) in side.steps.iter().enumerate() {
            if let isrfuzz::model::Outcome::Rejected { error, .. } = rec.outcome {
                let _ = write!(out, " step{step}={}", error.name());
            }
        }
        let verdict = verdict_line(&verdict);
        let _ = writeln!(out, " | {}", verdict.split_once(' ').map_or("", |(_, v)| v));
    }
    out
}

pub const ALL: &[&str] = &[
    "trunk",
    "3.8-4.2",
    "3.0-3.7",
    "kafka-21419",
    "kafka-21419-always-write",
    "zk-style",
    "transients-tracked",
];

/// Per rule set: the verdict, then the broker side of partition 0 at the end of the
/// history (seal, clock, each replica's LEO/HW, fetchers, the leader's records) and its ISR.
pub fn broker_outcome(text: &str, rule_sets: &[&str]) -> String {
    let h = parse(text);
    let mut out = String::new();
    for name in rule_sets {
        let rules = RuleSet::parse(name).unwrap();
        let verdict = oracle::run(&h, &[rules], true);
        let last = &verdict.sides[0]
            .steps
            .last()
            .expect("at least one step")
            .state;
        let verdict_text = verdict_line(&verdict);
        let _ = writeln!(
            out,
            "{name}: {}",
            verdict_text.split_once(' ').map_or("", |(_, v)| v)
        );
        let cells = isrfuzz::findings::report::broker_cells(last, 0).unwrap_or_default();
        let isrs: Vec<String> = last
            .partitions
            .iter()
            .map(|p| Ids(&p.isr).to_string())
            .collect();
        let _ = writeln!(out, "  isr={} {cells}", isrs.join(" "));
    }
    out
}

/// The cluster of history `h` after `events` (all of its events, or a prefix), for tests
/// that corrupt a state before judging or stepping it.
pub fn cluster_after(h: &History, events: &[Event], rules: &RuleSet) -> Cluster {
    let mut c = Cluster::new(&h.brokers, h.broker_config).with_elr(h.eligible_leader_replicas);
    for e in events {
        apply(&mut c, e, rules);
    }
    c
}

/// Put broker `b` in state `s` behind the model's back (corrupted-state tests).
pub fn set_broker(c: &mut Cluster, b: i32, s: BrokerState) {
    c.brokers
        .iter_mut()
        .find(|(id, _)| *id == b)
        .expect("registered")
        .1 = s;
}

/// Broker `b`'s replica of partition 0.
pub fn local(c: &mut Cluster, b: i32) -> &mut Local {
    c.runtime.partitions[0]
        .local_mut(b)
        .expect("hosts a replica")
}

/// Corrupt a replica's log end to `leo`: cut it, or extend it in its latest epoch.
pub fn set_leo(l: &mut Local, leo: i64) {
    if leo < l.leo() {
        l.log.truncate_to(leo);
    } else {
        let epoch = l.log.latest_epoch().max(0);
        l.log.append(epoch, leo - l.leo());
    }
}

/// A fresh scratch folder for one test: `<cargo's test tmp>/<area>/<name>`.
pub fn scratch(area: &str, name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(area)
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The built `isrfuzz` with `args`, its output piped.
pub fn spawn(args: &[&str]) -> std::process::Child {
    use std::process::Stdio;
    std::process::Command::new(env!("CARGO_BIN_EXE_isrfuzz"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs")
}

/// In `dir`: a conformance driver folder whose build looks cached (so Maven is never
/// asked), and a `bin` folder whose `java` is the shell script `script` (its text after
/// the `#!/bin/sh` line). Returns (driver, bin).
#[cfg(unix)]
pub fn fake_driver(
    dir: &std::path::Path,
    script: &str,
) -> (std::path::PathBuf, std::path::PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let driver = dir.join("driver");
    let classes = driver.join("target/classes/org/apache/kafka/controller");
    std::fs::create_dir_all(&classes).unwrap();
    std::fs::write(driver.join("pom.xml"), "<project/>").unwrap();
    std::fs::write(driver.join("target/classpath-4.0.2.txt"), "none").unwrap();
    std::fs::write(classes.join("ConformanceDriver.class"), "").unwrap();
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let java = bin.join("java");
    std::fs::write(&java, format!("#!/bin/sh\n{script}\n")).unwrap();
    std::fs::set_permissions(&java, std::fs::Permissions::from_mode(0o755)).unwrap();
    (driver, bin)
}
