//! A counterexample as a script an operator saves and runs against a real cluster
//! (`replay --operator`, and a ticket's "Steps to reproduce"): admin commands as lines,
//! what to see after each step as a check (`see`: the partition's `--describe` line,
//! polled), what no command does as a `by_hand` pause, and prose as `#` comments. Steps
//! are numbered from 0, as everywhere else (the history's event N is step N).
//!
//! The order is one a real cluster can follow: a follower the history keeps out of the ISR
//! is throttled before the step that puts it out (throttle.rs), with a backlog produced
//! before that, since a throttle slows only a replica outside the ISR that has records to
//! fetch; a throttle is lifted only where it was set. The last lines say what is wrong.

use crate::check::history::History;
use crate::check::invariants;
use crate::check::oracle::{SideRun, StepRecord};
use crate::findings::commands::{
    backlog, beyond, by_hand, create_lines, describe_regex, format_5_action, list, reassign_lines,
    BS, TOPIC,
};
use crate::findings::plain;
use crate::findings::plan::{texts, Act, Line, Manual};
use crate::findings::throttle::{holds, Hold, Throttles, RATE};
use crate::model::event::{Acks, ElectionType};
use crate::model::{BrokerId, Cluster, Event, Outcome};
use crate::rules::RuleSet;

/// The record size of the history's own produces when a throttle must hold a follower:
/// the history's record counts (and offsets) stay, each record is a backlog of its own.
const HELD_RECORD_BYTES: u32 = 100_000;

/// The script replaying `history` as `side` ran it (recorded), as text.
pub fn operator_steps(history: &History, side: &SideRun) -> String {
    let mut out = script(history, side).join("\n");
    out.push('\n');
    out
}

/// The script's lines.
pub fn script(history: &History, side: &SideRun) -> Vec<String> {
    texts(&plan(history, side))
}

/// The plan: the script's lines with what each does ([`Act`]), as the cluster judge runs it.
pub fn plan(history: &History, side: &SideRun) -> Vec<Line> {
    let plan = Plan {
        history,
        side,
        holds: holds(history, side),
        produces: (history.events.iter()).any(|e| matches!(e, Event::Produce { .. })),
    };
    let body = plan.body();
    let by_hand = body.iter().any(|l| l.text.starts_with("by_hand "));
    let mut out = plan.preamble(by_hand);
    out.extend(body);
    out
}

struct Plan<'a> {
    history: &'a History,
    side: &'a SideRun,
    holds: Vec<Hold>,
    /// The history produces records of its own (their offsets matter: no extra backlog).
    produces: bool,
}

/// What the loop over the steps carries: the throttles set, the reassignment file of each
/// partition, whether a backlog was produced.
#[derive(Default)]
struct Carry {
    throttles: Throttles,
    files: Vec<(usize, usize)>,
    backlog: bool,
    /// Lines for the step under way once its brokers are out of the ISR (a backlog).
    later: Vec<Line>,
}

impl Plan<'_> {
    fn preamble(&self, by_hand: bool) -> Vec<Line> {
        let h = self.history;
        let brokers: Vec<String> = h.brokers.iter().map(|b| b.to_string()).collect();
        let mut out = vec![
            Line::note("# Save as repro.sh and run `BS=host:port sh repro.sh` against a test cluster (KRaft)."),
            Line::note(format!(
                "# The cluster: brokers {}, each with replica.lag.time.max.ms={}{}.",
                brokers.join(", "),
                h.broker_config.replica_lag_time_max_ms,
                if self.holds.is_empty() { "" } else { " and replica.fetch.max.bytes=65536 (a throttled follower then pulls at most 64 KiB per quota window, about 11 s)" }
            )),
            Line::note(format!("# Step N is the history's event N (numbered from 0); the topic is `{TOPIC}`, one partition per create.")),
            Line::run("BS=${BS:-localhost:9092}", Act::Shell),
            Line::note("# see REGEX: wait up to 60 s until a line of the topic's --describe (tabs as spaces) matches REGEX"),
            Line::run("see() {", Act::Shell),
            Line::run(format!("  for _ in $(seq 60); do kafka-topics.sh {BS} --describe --topic {TOPIC} | tr '\\t' ' ' | grep -Eq \"$1\" && {{ echo \"seen: $1\"; return 0; }}; sleep 1; done"), Act::Shell),
            Line::run(format!("  echo \"NOT SEEN: $1\"; kafka-topics.sh {BS} --describe --topic {TOPIC}; return 1"), Act::Shell),
            Line::run("}", Act::Shell),
        ];
        if by_hand {
            out.extend([
                Line::note("# by_hand WHAT: a step no admin command performs: do it, then press Enter"),
                Line::run("by_hand() { printf '\\n>>> by hand: %s\\n>>> press Enter when done ' \"$1\"; read -r _ </dev/tty; }", Act::Shell),
            ]);
        }
        if self.side.rules.truncation != RuleSet::complete().truncation {
            out.push(Line::note("# The brokers' truncation rule in this history is an older generation's (see Affected versions): today's brokers run the script, but truncate otherwise."));
        }
        if h.eligible_leader_replicas {
            out.push(Line::note(
                "# Eligible leader replicas (KIP-966) on: the default of new 4.1+ clusters",
            ));
            out.push(Line::run(
                format!(
                    "kafka-features.sh {BS} upgrade --feature eligible.leader.replicas.version=1"
                ),
                Act::ElrFeature,
            ));
        }
        if !self.holds.is_empty() {
            out.push(Line::note("# A follower throttle only slows a replica outside the ISR, and only while it has a backlog to fetch: records are produced first, and each throttle is set before the step that puts its replica out of the ISR."));
            if self.produces {
                out.push(Line::note(format!("# The history's own records are produced {HELD_RECORD_BYTES} bytes each, so that a throttled follower has a backlog (the offsets stay the history's).")));
            }
        }
        out
    }

    /// The state after step `i` (`None` before step 0).
    fn after(&self, i: usize) -> Option<&Cluster> {
        self.side.steps.get(i).map(|s| &s.state)
    }

    fn body(&self) -> Vec<Line> {
        let mut out = Vec::new();
        let mut carry = Carry::default();
        for (i, event) in self.history.events.iter().enumerate() {
            let before = i.checked_sub(1).and_then(|j| self.after(j));
            for h in self.holds.iter().filter(|h| h.from == i) {
                out.extend(self.hold(h, before, &mut carry));
            }
            out.extend(self.action(i, event, before, &mut carry));
            out.append(&mut carry.later);
            if let Some(r) = self.side.steps.get(i) {
                out.extend(self.checks(i, event, r));
            }
            // A new replica held out must copy a log long enough: produce it at once.
            let new_held = self.holds.iter().any(|h| !h.had_replica);
            if matches!(event, Event::CreatePartition { .. })
                && new_held
                && !self.produces
                && !carry.backlog
            {
                carry.backlog = true;
                out.extend(backlog(
                    "a replica added later must copy the whole log while throttled",
                ));
            }
        }
        if let Some(&(_, step)) = carry.files.last() {
            out.push(Line::note(
                "# Whether the tool reports the reassignment finished:",
            ));
            out.push(Line::run(format!(
                "kafka-reassign-partitions.sh {BS} --verify --preserve-throttles --reassignment-json-file reassign-{step}.json"
            ), Act::List));
        }
        let lifts = carry.throttles.lift_all(TOPIC);
        if !lifts.is_empty() {
            out.push(Line::note("# Done: lift the throttles this script set."));
            out.extend(lifts);
        }
        out.extend(wrong_lines(self.side).into_iter().map(Line::note));
        out
    }

    /// The throttle that holds `h` out of the ISR, set before its first step, with the
    /// backlog a replica that had the partition needs (a new one has the one produced after
    /// the create): produced now for a stopped one, in the step (`Carry::later`) for one that
    /// leaves the ISR in it.
    fn hold(&self, h: &Hold, before: Option<&Cluster>, carry: &mut Carry) -> Vec<Line> {
        let (p, b) = (h.partition, h.broker);
        let until = h
            .join
            .map_or("for the rest of the history".to_string(), |j| {
                format!("until step {j}")
            });
        let mut out = vec![Line::note(format!("# Before step {}: hold broker {b} out of the ISR of {TOPIC}-{p} {until}: a follower throttle.", h.from))];
        let part = before.and_then(|c| c.partitions.get(p));
        let running_in_sync = before.is_some_and(|c| c.is_active(b))
            && part.is_some_and(|x| x.isr.iter().any(|r| *r == b));
        if !self.produces && h.had_replica {
            if part.is_some_and(|x| x.diskless) {
                out.push(Line::note("# (The topic is diskless or switching: it takes no backlog now; the replica holds back only if it is behind.)"));
            } else if part.is_some_and(|x| x.leader < 0) {
                // No one can write to a leaderless partition (F28): a produce only times out.
                out.push(Line::note("# (The partition has no leader: nothing can be produced now, and the replica misses nothing.)"));
            } else if running_in_sync {
                carry
                    .later
                    .extend(backlog("records it misses once it is out of the ISR"));
            } else {
                out.extend(backlog("records it misses while it is stopped"));
            }
        }
        out.extend(carry.throttles.set(TOPIC, p, b));
        out.push(Line::run(format!(
            "kafka-configs.sh {BS} --describe --entity-type brokers --entity-name {b} | grep -q '{RATE}=1' && echo 'broker {b} throttled'"
        ), Act::BrokerConfigIs { broker: b, name: RATE.to_string(), value: "1".to_string() }));
        out
    }

    /// Step `i`: its title, then its commands (or a pause for what no command does).
    fn action(
        &self,
        i: usize,
        event: &Event,
        before: Option<&Cluster>,
        carry: &mut Carry,
    ) -> Vec<Line> {
        let mut out = Vec::new();
        match event {
            Event::CreatePartition { .. } => out.extend(create_lines(i, event, before)),
            Event::Reassign {
                partition,
                target,
                allow_replication_factor_change,
            } => {
                out.extend(reassign_lines(
                    i,
                    *partition,
                    target,
                    *allow_replication_factor_change,
                ));
                carry.files.retain(|f| f.0 != *partition);
                carry.files.push((*partition, i));
            }
            Event::CancelReassignment { partition } => {
                out.push(Line::note(format!(
                    "# step {i}: cancel the reassignment of {TOPIC}-{partition}"
                )));
                match carry.files.iter().find(|f| f.0 == *partition) {
                    Some(&(_, step)) => out.push(Line::run(format!("kafka-reassign-partitions.sh {BS} --cancel --preserve-throttles --reassignment-json-file reassign-{step}.json"), Act::Cancel { partition: *partition })),
                    None => out.push(Line::note("# (no reassignment of it was started: the tool has no file to cancel; the controller refuses such a cancel)")),
                }
            }
            Event::AlterPartition {
                partition,
                isr,
                broker,
                leader_epoch,
                partition_epoch,
                stale_epoch,
                ..
            } => {
                out.push(Line::note(format!(
                    "# step {i}: the ISR of {TOPIC}-{partition} becomes [{}]",
                    list(isr)
                )));
                if broker.is_some()
                    || leader_epoch.is_some()
                    || partition_epoch.is_some()
                    || stale_epoch.is_some()
                {
                    out.push(Line::run("# (sent by another broker or with stale epochs: no command sends it; on a real cluster it is a deposed leader's request still in flight)", beyond("an AlterPartition from another broker or with stale epochs")));
                }
                out.extend(self.isr_change(i, *partition, isr, before, carry));
            }
            other => out.extend(self.other_action(i, other)),
        }
        out
    }

    /// The steps of brokers, elections, data and the Inkless switch.
    fn other_action(&self, i: usize, event: &Event) -> Vec<Line> {
        let title = |what: String| Line::note(format!("# step {i}: {what}"));
        match event {
            Event::ElectLeaders { partition, election } => vec![
                title(format!("{} leader election for {TOPIC}-{partition}", election.api_name().to_lowercase())),
                Line::run(
                    format!("kafka-leader-election.sh {BS} --election-type {} --topic {TOPIC} --partition {partition}", election.api_name()),
                    Act::Elect { partition: *partition, unclean: *election == ElectionType::Unclean },
                ),
            ],
            Event::ListReassignments => vec![title("list the reassignments".into()), Line::run(format!("kafka-reassign-partitions.sh {BS} --list"), Act::List)],
            Event::FenceBroker { broker } => vec![
                title(format!("broker {broker}'s session expires and the controller fences it")),
                by_hand(&format!("kill -9 broker {broker}'s process, then wait broker.session.timeout.ms (9 s by default)"), Manual::Beyond { event: format!("broker {broker} killed (kill -9) and fenced by its session's expiry") }),
            ],
            Event::UnfenceBroker { broker } => vec![
                title(format!("broker {broker} registers again")),
                by_hand(&format!("start broker {broker} (kafka-server-start.sh with its own server.properties) and wait until it is registered"), Manual::Start { broker: *broker }),
            ],
            Event::ControlledShutdown { broker } => vec![
                title(format!("broker {broker} shuts down cleanly")),
                by_hand(&format!("stop broker {broker} with kafka-server-stop.sh (a controlled shutdown)"), Manual::Stop { broker: *broker }),
            ],
            Event::RestartBroker { broker, unclean, .. } => {
                let how = if *unclean { "cut its power (a kill -9 keeps the page cache), then start it again" } else { "kafka-server-stop.sh, then kafka-server-start.sh" };
                let manual = if *unclean {
                    Manual::Beyond { event: format!("broker {broker} losing power (its unflushed records lost)") }
                } else {
                    Manual::Restart { broker: *broker }
                };
                vec![title(format!("broker {broker} restarts")), by_hand(&format!("restart broker {broker}: {how}"), manual)]
            }
            Event::Produce { records, acks, .. } => {
                let size = if self.holds.is_empty() { 100 } else { HELD_RECORD_BYTES };
                let acks_all = *acks == Acks::All;
                let acks = if acks_all { "all" } else { "1" };
                vec![
                    title(format!("produce {records} records with acks={acks}")),
                    Line::run(
                        format!("kafka-producer-perf-test.sh --topic {TOPIC} --num-records {records} --record-size {size} --throughput -1 --producer-props bootstrap.servers=\"$BS\" acks={acks}"),
                        Act::Produce { records: (*records).max(0) as u64, record_bytes: size, acks_all },
                    ),
                ]
            }
            Event::AdvanceTime { ms } => vec![
                title(format!("{ms} ms pass (followers fetch; the ISR-expiration task runs every replica.lag.time.max.ms / 2)")),
                Line::run(format!("sleep {}", (ms + 999) / 1000), Act::Sleep { ms: ((ms + 999) / 1000 * 1000).max(0) as u64 }),
            ],
            Event::DeleteRecords { partition, offset } => vec![
                title(format!("delete the records of {TOPIC}-{partition} below offset {offset}")),
                Line::run(format!("cat > delete-{i}.json <<'EOF'\n{{\"version\":1,\"partitions\":[{{\"topic\":\"{TOPIC}\",\"partition\":{partition},\"offset\":{offset}}}]}}\nEOF"), Act::Shell),
                Line::run(format!("kafka-delete-records.sh {BS} --offset-json-file delete-{i}.json"), Act::DeleteRecords { partition: *partition, offset: (*offset).max(0) as u64 }),
            ],
            _ => self.fetch_and_switch(i, event),
        }
    }

    /// Fetches, stalls and flushes (no admin command), and the Inkless switch.
    fn fetch_and_switch(&self, i: usize, event: &Event) -> Vec<Line> {
        let title = |what: String| Line::note(format!("# step {i}: {what}"));
        let alter =
            format!("kafka-configs.sh {BS} --alter --entity-type topics --entity-name {TOPIC}");
        let inkless = |what: &str| {
            beyond(&format!(
                "{what} (Inkless: Apache Kafka has no diskless topics)"
            ))
        };
        match event {
            Event::FollowerFetch { partition, broker } => vec![
                title(format!("broker {broker} fetches {TOPIC}-{partition} once")),
                Line::note("# No admin command orders a single fetch: a running follower fetches continuously, so on a real cluster this happens by itself (in this order only with a broker-side test fixture)."),
            ],
            Event::StallBroker { broker } => vec![
                title(format!("broker {broker}'s fetchers stall while it keeps its controller session")),
                by_hand(&format!("block broker {broker}'s connections to the partition leaders' listeners (e.g. iptables on its host), leaving the controller's"), Manual::Beyond { event: format!("a network partition between broker {broker} and the partition leaders") }),
            ],
            Event::ResumeBroker { broker } => vec![
                title(format!("broker {broker}'s fetchers resume")),
                by_hand(&format!("unblock broker {broker}'s connections to the partition leaders"), Manual::Beyond { event: format!("the network partition of broker {broker} healed") }),
            ],
            Event::FlushBroker { broker } => vec![
                title(format!("broker {broker} flushes every log to disk")),
                Line::note("# No admin command forces a flush: flush.messages=1 on the topic from the start makes every append durable at once."),
            ],
            Event::SwitchStart { consolidating, .. } => {
                let remote = if *consolidating { ",remote.storage.enable=true" } else { "" };
                vec![title("start the switch to diskless".into()), Line::run(format!("{alter} --add-config diskless.enable=true{remote}"), inkless("the switch to diskless"))]
            }
            Event::SealCommit { partition } => vec![
                title(format!("the leader of {TOPIC}-{partition} commits the seal (once its high watermark reaches its log end)")),
                Line::run("# Nothing to run: the leader does it by itself.", inkless("the seal's commit")),
            ],
            Event::AlterDisklessSwitch { partition, seal } => vec![
                title(format!("the operator sets the seal of {TOPIC}-{partition} to {seal}")),
                Line::run(format!("kafka-topic-switch.sh seal {BS} --topic {TOPIC} --partition {partition} --offset {seal}"), inkless("the operator's seal")),
            ],
            other => format_5_action(i, other),
        }
    }

    /// An ISR change: who leaves (by hand: a throttle cannot push an in-sync replica out),
    /// who joins (by itself, or once its throttle is lifted), who stays out (held).
    fn isr_change(
        &self,
        i: usize,
        p: usize,
        isr: &[BrokerId],
        before: Option<&Cluster>,
        carry: &mut Carry,
    ) -> Vec<Line> {
        let Some(part) = before.and_then(|c| c.partitions.get(p)) else {
            return vec![Line::run(
                "# (the partition does not exist yet: the request is refused)",
                beyond("an AlterPartition for a partition that does not exist"),
            )];
        };
        let mut out = Vec::new();
        let leaving: Vec<BrokerId> = part
            .isr
            .iter()
            .filter(|b| !isr.contains(b))
            .copied()
            .collect();
        for b in &leaving {
            out.push(by_hand(&format!(
                "make broker {b} fall out of the ISR of {TOPIC}-{p} while it keeps running: a throttle cannot (it skips in-sync replicas); block its connections to the leader's listener (e.g. iptables on its host) and wait until the describe shows it out"
            ), Manual::Beyond { event: format!("broker {b} cut off from the leader of partition {p} while it keeps running (a network partition)") }));
        }
        if !leaving.is_empty() {
            // The backlog while they are cut off, then their connections back.
            out.append(&mut carry.later);
            out.push(by_hand(
                &format!(
                    "unblock the connections of broker {} to the leader",
                    list(&leaving)
                ),
                Manual::Beyond {
                    event: "a network partition healed".to_string(),
                },
            ));
        }
        for b in isr.iter().filter(|b| !part.isr.contains(b)) {
            if carry.throttles.is_set(p, *b) {
                out.push(Line::note(format!(
                    "# Broker {b} catches up and joins the ISR: lift its throttle."
                )));
                out.extend(carry.throttles.lift(TOPIC, p, *b));
            } else {
                out.push(Line::note(format!(
                    "# Broker {b} joins the ISR by itself once caught up (it is not throttled)."
                )));
            }
        }
        for h in self
            .holds
            .iter()
            .filter(|h| h.partition == p && h.from < i && h.join.is_none_or(|j| j > i))
        {
            out.push(Line::note(format!(
                "# Broker {} stays out of the ISR: it is throttled since before step {}.",
                h.broker, h.from
            )));
        }
        if out.is_empty() {
            out.push(Line::note(
                "# Nothing to do: the leader's request leaves the ISR as it is.",
            ));
        }
        out
    }

    /// What to see after step `i`: the request's failure, and each partition it concerns as
    /// `--describe` shows it (only glanced at when the next step follows by itself).
    fn checks(&self, i: usize, event: &Event, r: &StepRecord) -> Vec<Line> {
        let mut out = Vec::new();
        if let Outcome::Rejected { error, .. } = &r.outcome {
            out.push(Line::note(format!(
                "# Expect the command to fail: {}.",
                error.name()
            )));
        }
        let parts: Vec<usize> = match event.partition() {
            Some(p) => vec![p],
            None => (0..r.state.partitions.len()).collect(),
        };
        let racy = self.next_joins_by_itself(i);
        for p in parts {
            let Some(part) = r.state.partitions.get(p) else {
                continue;
            };
            let elr = self.history.eligible_leader_replicas;
            let line = describe_regex(p, part, elr);
            if racy {
                out.push(Line::note(format!(
                    "# Expect (it may already have moved on: step {} follows by itself): {line}",
                    i + 1
                )));
                out.push(Line::run(
                    format!("kafka-topics.sh {BS} --describe --topic {TOPIC}"),
                    Act::Glance {
                        step: i,
                        partition: p,
                    },
                ));
            } else {
                let expect = Box::new(part.clone());
                let see = Act::See {
                    step: i,
                    partition: p,
                    expect,
                    elr,
                };
                out.push(Line::run(format!("see '{line}'"), see));
            }
            if part.diskless {
                out.push(Line::run(
                    format!(
                        "kafka-topic-switch.sh state {BS} --topic {TOPIC}   # expect seal {}",
                        part.seal
                    ),
                    beyond("a diskless partition's seal (Inkless)"),
                ));
            }
        }
        out
    }

    /// Whether step `i + 1` is an ISR change in which a broker joins by itself (running,
    /// not throttled): the state after step `i` may not last long enough to be seen.
    fn next_joins_by_itself(&self, i: usize) -> bool {
        let (Some(Event::AlterPartition { partition, isr, .. }), Some(now)) =
            (self.history.events.get(i + 1), self.after(i))
        else {
            return false;
        };
        let Some(part) = now.partitions.get(*partition) else {
            return false;
        };
        isr.iter().any(|b| {
            !part.isr.contains(b)
                && !(self.holds.iter())
                    .any(|h| h.partition == *partition && h.broker == *b && h.join == Some(i + 1))
        })
    }
}

/// `# What is wrong …` lines, one per violation of `side`, in words.
pub fn wrong_lines(side: &SideRun) -> Vec<String> {
    side.violations
        .iter()
        .map(|v| {
            let when = if v.step < side.steps.len() {
                format!("after step {}", v.step)
            } else {
                "once every broker is back and healthy".to_string()
            };
            let inv = invariants::by_id(v.invariant);
            let headline = inv
                .and_then(|i| i.headline)
                .unwrap_or("a property is broken");
            let rule = inv.map_or(String::new(), |i| {
                format!(" It must hold: {}.", plain::prose(i.statement))
            });
            format!(
                "# What is wrong {when}: {headline}: {}.{rule}",
                plain::detail(&v.detail)
            )
        })
        .collect()
}
