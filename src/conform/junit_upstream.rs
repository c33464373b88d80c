//! A KRaft finding as a test method of Apache Kafka's own `ReplicationControlManagerTest`
//! (metadata/src/test/java/org/apache/kafka/controller/), the shape a committer files: it
//! runs on that class's `ReplicationControlTestContext`, calls the managers as the
//! conformance driver does (one request per call, its records replayed), and asserts
//! the violated property with the same unconditional assertion as `junit.rs`'s
//! reproducer, written without isrfuzz's fixture helpers. It uses only names the class
//! imports in 4.0–4.3 and spells out the rest, so it compiles pasted into the class of
//! any release that publishes it. Pure: a history and the model's requests in, Java out;
//! `conform --junit` writes it beside the standalone reproducer, and
//! ci/upstream-tests.sh compiles it into each published release's own copy of the class.

use super::junit::{admissible, assertion, calls_at, class_name, context, Context, Finding};
use super::junit_dialect::{dialect, ints, javadoc, join, recovery_state, without_ids};
use super::release::Release;
use super::replay::model_run;
use crate::check::history::History;
use crate::model::request::{Exchange, Request};
use crate::model::{BrokerId, Event, LeaderRecoveryState};
use crate::rules::RuleSet;
use std::fmt::Write;

/// Where the method goes, for its header and the ticket.
pub const TARGET: &str =
    "metadata/src/test/java/org/apache/kafka/controller/ReplicationControlManagerTest.java";

/// The emitted method: its name, a comment saying where it goes and what the history
/// was, and the method itself (what a ticket shows).
#[derive(Clone, Debug)]
pub struct UpstreamMethod {
    pub method: String,
    pub header: String,
    pub text: String,
}

impl UpstreamMethod {
    /// The method under another name.
    pub fn renamed(&self, name: &str) -> UpstreamMethod {
        UpstreamMethod {
            method: name.to_string(),
            header: self.header.clone(),
            text: self.text.replacen(
                &format!(" void {}() {{", self.method),
                &format!(" void {name}() {{"),
                1,
            ),
        }
    }

    /// The file's text: the comment, then the method.
    pub fn source(&self) -> String {
        format!("{}{}", self.header, self.text)
    }
}

/// `Kafka21419ReproG5ReproTest` → `testKafka21419ReproG5`.
pub fn method_name(class: &str) -> String {
    format!("test{}", class.strip_suffix("ReproTest").unwrap_or(class))
}

/// The method reproducing `finding` on `history` (read from `label`), with the requests
/// `rules` make of `release`'s controller; `Err` says in one line why none can be written.
pub fn upstream_method(
    label: &str,
    history: &History,
    rules: &RuleSet,
    release: &Release,
    finding: &Finding,
) -> Result<UpstreamMethod, String> {
    let entry = admissible(history, release, finding)?;
    let (requests, states) = model_run(history, rules);
    let ctx = context(history, rules, finding, &states)?;
    let method = method_name(&class_name(label, finding.invariant));
    // Only a controlled shutdown reads the metadata offsets the brokers report (the lowest
    // active broker's against the shutdown's), so only then is the log end tracked.
    let tracked = requests.iter().any(|(_, e)| {
        !e.not_upstream && matches!(e.request, Request::Event(Event::ControlledShutdown { .. }))
    });
    let mut emitter = Emitter {
        ctx: &ctx,
        tracked,
        calls: 0,
        topics: 0,
        body: String::new(),
    };
    emitter.prologue();
    for step in 0..=finding.step {
        emitter.step(step, &calls_at(&requests, step))?;
    }
    let headline = entry.headline.unwrap_or(entry.statement);
    let what = history
        .description
        .as_deref()
        .map(|d| format!("    // The history: {}\n", d.replace(['\n', '\r'], " ")))
        .unwrap_or_default();
    let header = format!(
        "    // A test method for Apache Kafka's ReplicationControlManagerTest ({TARGET}):
    // paste it into that class. It runs on the class's own ReplicationControlTestContext and
    // uses the class's imports; the few names the class does not import are written in full.
    // Apache Kafka {version} shows the violation (the method fails there); a release
    // without it passes.
{what}",
        version = release.version,
    );
    let text = format!(
        "    /**
     * {headline}: after step {step}, {detail}.
     */
    @Test
    public void {method}() {{
{body}    }}
",
        headline = javadoc(headline),
        step = finding.step,
        detail = javadoc(finding.detail),
        body = emitter.body,
    );
    Ok(UpstreamMethod {
        method,
        header,
        text,
    })
}

struct Emitter<'a> {
    ctx: &'a Context<'a>,
    /// Whether `offset` (the metadata log end a caught-up broker reports) is kept.
    tracked: bool,
    /// Calls emitted so far: numbers each call's result variable.
    calls: usize,
    /// Topics created so far: the next one's name and variable.
    topics: usize,
    body: String,
}

/// One request as Java: the statements before it, the result's type and the call (or,
/// for a fencing, its statements), and what follows its replay.
struct Call {
    setup: Vec<String>,
    /// `ControllerResult<...>`, or `None` for statements that fill `records{n}`.
    result: Option<&'static str>,
    expr: String,
    /// A Java boolean over `r{n}.response()`: it carries UNKNOWN_SERVER_ERROR (S4).
    unknown: Option<&'static str>,
    /// The controller signals an error by throwing an `ApiException` (heartbeats,
    /// registrations, AlterPartition's broker checks), not in the response.
    throws: bool,
    /// A fault here must not end the test: on the releases where the controller throws
    /// (a registration meeting a last known leader that is no replica, F19), upstream
    /// fails over and nothing of the request is applied, and the driver goes on the same
    /// way. Only registrations have shown one outside the step judged.
    faults: bool,
    after: Vec<String>,
}

const API_EXCEPTION: &str = "org.apache.kafka.common.errors.ApiException";
const REGISTRATION: &str = "org.apache.kafka.common.message.BrokerRegistrationRequestData";

impl Emitter<'_> {
    fn line(&mut self, text: &str) {
        let _ = writeln!(self.body, "        {text}");
    }

    /// The context at the release's latest production metadata.version (conform's), ELR
    /// as the history says, every broker registered and unfenced.
    fn prologue(&mut self) {
        let h = self.ctx.history;
        let brokers = join(&h.brokers);
        self.line(
            "ReplicationControlTestContext ctx = new ReplicationControlTestContext.Builder().",
        );
        let _ = writeln!(
            self.body,
            "            setMetadataVersion(MetadataVersion.latestProduction()).setIsElrEnabled({}).build();",
            h.eligible_leader_replicas
        );
        self.line(&format!("ctx.registerBrokers({brokers});"));
        self.line(&format!("ctx.unfenceBrokers({brokers});"));
        if self.tracked {
            self.line("// The metadata offset a caught-up broker reports: it rises whenever records are replayed (only the order of offsets is read: the lowest active broker's against a controlled shutdown's).");
            self.line("long offset = 1;");
        }
    }

    fn step(&mut self, step: usize, calls: &[&Exchange]) -> Result<(), String> {
        let ctx = self.ctx;
        let event = &ctx.history.events[step];
        let judged = step == ctx.finding.step;
        let sent: Vec<&&Exchange> = calls.iter().filter(|e| !e.not_upstream).collect();
        let quiet = if sent.is_empty() {
            " (no controller request)"
        } else {
            ""
        };
        self.line(&format!("// step {step}: {event}{quiet}"));
        let inv = ctx.finding.invariant;
        let p = ctx.partition;
        if judged && matches!(inv, "G4" | "G5" | "ELR5") {
            if ctx.before.partitions.get(p).is_none() {
                return Err(format!("{inv} judged at step {step}, which creates p{p}"));
            }
            self.line(&format!(
                "PartitionRegistration before = ctx.replicationControl.getPartition(t{p}, 0);"
            ));
        }
        for e in sent {
            if let Request::Event(Event::CreatePartition {
                replicas,
                unclean_leader_election_enable,
                min_insync_replicas,
                ..
            }) = &e.request
            {
                if judged && inv == "S4" {
                    return Err("S4 judged at a topic creation".to_string());
                }
                self.create(
                    replicas,
                    *min_insync_replicas,
                    *unclean_leader_election_enable,
                    e.error,
                );
                continue;
            }
            let call = self.call(&e.request)?;
            let cancel = judged
                && inv == "G6"
                && matches!(e.request, Request::Event(Event::CancelReassignment { .. }));
            self.emit(call, e.error, judged && inv == "S4", cancel);
        }
        if judged && inv != "S4" {
            self.line(&format!(
                "PartitionRegistration after = ctx.replicationControl.getPartition(t{p}, 0);"
            ));
            let mut fixture = String::new();
            assertion(ctx, &mut fixture);
            self.body.push_str(&without_ids(&dialect(&fixture), inv));
        }
        Ok(())
    }

    /// One call, its records replayed (and counted when tracked). An answer the model
    /// expects as a thrown `ApiException` is caught, as the driver takes it; under S4 any
    /// other exception, or an UNKNOWN_SERVER_ERROR answer, fails the test.
    fn emit(&mut self, call: Call, error: &str, s4: bool, cancel: bool) {
        let n = self.calls;
        self.calls += 1;
        let var = if cancel {
            "cancel".to_string()
        } else {
            format!("r{n}")
        };
        for s in &call.setup {
            self.line(s);
        }
        let note = match error {
            "NONE" => String::new(),
            // The model's prediction that the controller throws: no answer to note.
            "CONTROLLER_FAULT" => "// The model predicts a fault here.".to_string(),
            _ => format!("// The controller answers {error} here, as the model does."),
        };
        let guarded = s4 || call.faults || (call.throws && error != "NONE");
        let run = self.run_lines(&call, &var, n, guarded);
        if !guarded {
            if !note.is_empty() {
                self.line(&note);
            }
            for r in run {
                self.line(&r);
            }
            return;
        }
        if let Some(ty) = call.result {
            self.line(&format!("{ty} {var} = null;"));
        }
        if s4 {
            self.line(&format!("RuntimeException fault{n} = null;"));
        }
        self.line("try {");
        for r in run {
            self.line(&format!("    {}", r.replace('\n', "\n    ")));
        }
        self.line(&format!("}} catch ({API_EXCEPTION} e) {{"));
        let why = if note.is_empty() {
            "// An error answer, not a fault.".to_string()
        } else {
            note
        };
        self.line(&format!("    {why}"));
        if s4 {
            self.line("} catch (RuntimeException e) {");
            self.line(&format!("    fault{n} = e;"));
        } else if call.faults {
            self.line("} catch (RuntimeException e) {");
            self.line("    // A fault (upstream, the controller fails over): nothing of the request is applied.");
        }
        self.line("}");
        if s4 {
            self.s4_assertions(&call, &var, n);
        }
    }

    /// The call and its replay (the result declared here unless `guarded` declared it
    /// before a `try`), the log end raised when tracked, and what follows.
    fn run_lines(&self, call: &Call, var: &str, n: usize, guarded: bool) -> Vec<String> {
        let mut run = Vec::new();
        match call.result {
            Some(_) if guarded => run.push(format!("{var} = {};", call.expr)),
            Some(ty) => run.push(format!("{ty} {var} = {};", call.expr)),
            None => run.push(call.expr.clone()),
        }
        let records = match call.result {
            Some(_) => format!("{var}.records()"),
            None => format!("records{n}"),
        };
        run.push(format!("ctx.replay({records});"));
        if self.tracked {
            run.push(format!("offset += {records}.size();"));
        }
        run.extend(call.after.iter().map(|a| a.replace("{v}", var)));
        run
    }

    fn s4_assertions(&mut self, call: &Call, var: &str, n: usize) {
        self.line(&format!(
            "assertNull(fault{n}, \"no request makes the controller throw, yet this one threw\");"
        ));
        if let (Some(_), Some(unknown)) = (call.result, call.unknown) {
            let unknown = unknown.replace("{v}", var);
            self.line(&format!("assertFalse({var} != null && {unknown}, \"no request makes the controller throw, yet this one answered UNKNOWN_SERVER_ERROR\");"));
        }
    }

    fn call(&self, request: &Request) -> Result<Call, String> {
        Ok(match request {
            Request::Register { broker, clean } => register(*broker, *clean, self.calls),
            Request::Event(event) => self.event_call(event)?,
        })
    }

    fn event_call(&self, event: &Event) -> Result<Call, String> {
        let n = self.calls;
        let plain = |result, expr: String, unknown| Call {
            setup: Vec::new(),
            result: Some(result),
            expr,
            unknown,
            throws: false,
            faults: false,
            after: Vec::new(),
        };
        Ok(match event {
            Event::CreatePartition { .. } => unreachable!("step() emits creations"),
            Event::Reassign {
                partition,
                target,
                allow_replication_factor_change,
            } => plain(
                REASSIGN_RESULT,
                reassign(*partition, Some(target), *allow_replication_factor_change),
                Some(REASSIGN_UNKNOWN),
            ),
            Event::CancelReassignment { partition } => plain(
                REASSIGN_RESULT,
                reassign(*partition, None, true),
                Some(REASSIGN_UNKNOWN),
            ),
            Event::AlterPartition {
                partition,
                isr,
                broker: Some(broker),
                leader_epoch: Some(le),
                partition_epoch: Some(pe),
                leader_recovery_state,
                stale_epoch: None,
            } => Call {
                throws: true,
                ..plain(
                    "ControllerResult<AlterPartitionResponseData>",
                    alter_partition(*partition, *broker, *le, *pe, isr, *leader_recovery_state),
                    Some(ALTER_UNKNOWN),
                )
            },
            Event::FenceBroker { broker } => statements(
                format!("List<ApiMessageAndVersion> records{n} = new ArrayList<>();"),
                format!("ctx.replicationControl.handleBrokerFenced({broker}, records{n});\n        ctx.clusterControl.heartbeatManager().fence({broker});"),
            ),
            Event::UnfenceBroker { broker } => self.heartbeat(*broker, false),
            Event::ControlledShutdown { broker } => self.heartbeat(*broker, true),
            Event::ElectLeaders {
                partition,
                election,
            } => plain(
                "ControllerResult<ElectLeadersResponseData>",
                format!("ctx.replicationControl.electLeaders(new ElectLeadersRequestData().setElectionType(ElectionType.{}.value).\n            setTopicPartitions(new TopicPartitionsCollection(List.of(new TopicPartitions().setTopic(\"t{partition}\").setPartitions(List.of(0))).iterator())))", election.api_name()),
                Some(ELECT_UNKNOWN),
            ),
            Event::ListReassignments => statements(
                format!("List<ApiMessageAndVersion> records{n} = List.of();"),
                "ctx.replicationControl.listPartitionReassignments(null, Long.MAX_VALUE);".into(),
            ),
            other => {
                return Err(format!(
                    "the model sent a {} ReplicationControlManagerTest's context has no call for",
                    other.op()
                ))
            }
        })
    }

    /// createTopics of topic `t<n>` (n: the topics created so far, as the driver names
    /// them), one partition, two configs, through the context's own helper: it asserts the
    /// answer (the model's, which conform found the release to give) and replays the
    /// records, at least one when the topic is created.
    fn create(&mut self, replicas: &[BrokerId], min_isr: i32, unclean: bool, error: &str) {
        let t = self.topics;
        let call = format!(
            "ctx.createTestTopic(\"t{t}\", new int[][] {{{}}}, Map.of(\"min.insync.replicas\", \"{min_isr}\", \"unclean.leader.election.enable\", \"{unclean}\"), Errors.{error}.code())",
            ints(replicas)
        );
        if error != "NONE" {
            self.line(&format!("{call};"));
            return;
        }
        self.topics += 1;
        self.line(&format!("Uuid t{t} = {call}.topicId();"));
        if self.tracked {
            self.line("offset += 1; // the topic's records, at least one");
        }
    }

    /// A heartbeat caught up with the metadata log, as the driver sends it; a broker the
    /// reply puts in controlled shutdown gets its shutdown offset, as QuorumController does.
    fn heartbeat(&self, broker: BrokerId, shutdown: bool) -> Call {
        let reported = if self.tracked { "offset" } else { "1" };
        let mut after = Vec::new();
        if shutdown && self.tracked {
            after.push(format!("if ({{v}}.response().inControlledShutdown()) ctx.clusterControl.heartbeatManager().maybeUpdateControlledShutdownOffset({broker}, offset);"));
        }
        Call {
            setup: Vec::new(),
            result: Some("ControllerResult<BrokerHeartbeatReply>"),
            expr: format!("ctx.replicationControl.processBrokerHeartbeat(new BrokerHeartbeatRequestData().\n            setBrokerId({broker}).setBrokerEpoch(ctx.currentBrokerEpoch({broker})).setCurrentMetadataOffset({reported}).\n            setWantFence(false).setWantShutDown({shutdown}), ctx.clusterControl.registerBrokerRecordOffset({broker}).getAsLong())"),
            unknown: None,
            throws: true,
            faults: false,
            after,
        }
    }
}

const ALTER_UNKNOWN: &str = "({v}.response().errorCode() == Errors.UNKNOWN_SERVER_ERROR.code() || {v}.response().topics().stream().flatMap(t -> t.partitions().stream()).anyMatch(p -> p.errorCode() == Errors.UNKNOWN_SERVER_ERROR.code()))";
const ELECT_UNKNOWN: &str = "({v}.response().errorCode() == Errors.UNKNOWN_SERVER_ERROR.code() || {v}.response().replicaElectionResults().stream().flatMap(t -> t.partitionResult().stream()).anyMatch(p -> p.errorCode() == Errors.UNKNOWN_SERVER_ERROR.code()))";

/// A call with no result to keep: `records{n}` declared by `setup`, filled by `expr`.
fn statements(setup: String, expr: String) -> Call {
    Call {
        setup: vec![setup],
        result: None,
        expr,
        unknown: None,
        throws: true,
        faults: false,
        after: Vec::new(),
    }
}

const REASSIGN_RESULT: &str = "ControllerResult<AlterPartitionReassignmentsResponseData>";
const REASSIGN_UNKNOWN: &str = "({v}.response().errorCode() == Errors.UNKNOWN_SERVER_ERROR.code() || {v}.response().responses().stream().flatMap(t -> t.partitions().stream()).anyMatch(p -> p.errorCode() == Errors.UNKNOWN_SERVER_ERROR.code()))";

fn list(ids: &[BrokerId]) -> String {
    format!("List.of({})", join(ids))
}

/// alterPartitionReassignments of partition `p` (topic `t<p>`, index 0) to `target`, or a
/// cancellation (no target).
fn reassign(p: usize, target: Option<&[BrokerId]>, allow_rf_change: bool) -> String {
    let replicas = target.map_or_else(|| "null".to_string(), list);
    // Only 4.1 on has the field; a history that clears it does not reach 4.0.
    let allow = if allow_rf_change {
        ""
    } else {
        ".setAllowReplicationFactorChange(false)"
    };
    format!("ctx.replicationControl.alterPartitionReassignments(new AlterPartitionReassignmentsRequestData(){allow}.\n            setTopics(List.of(new ReassignableTopic().setName(\"t{p}\").setPartitions(List.of(\n                new ReassignablePartition().setPartitionIndex(0).setReplicas({replicas}))))))")
}

/// AlterPartition (the latest version: each ISR member with its current broker epoch)
/// from `broker` with the epochs the model sends, stale ones included.
fn alter_partition(
    p: usize,
    broker: BrokerId,
    leader_epoch: i32,
    partition_epoch: i32,
    isr: &[BrokerId],
    lrs: LeaderRecoveryState,
) -> String {
    let lrs = recovery_state(lrs);
    let members: Vec<String> = isr
        .iter()
        .map(|b| {
            format!(
                "new BrokerState().setBrokerId({b}).setBrokerEpoch(ctx.currentBrokerEpoch({b}))"
            )
        })
        .collect();
    format!("ctx.replicationControl.alterPartition(anonymousContextFor(ApiKeys.ALTER_PARTITION), new AlterPartitionRequestData().\n            setBrokerId({broker}).setBrokerEpoch(ctx.currentBrokerEpoch({broker})).setTopics(List.of(new TopicData().setTopicId(t{p}).setPartitions(List.of(\n                new PartitionData().setPartitionIndex(0).setLeaderEpoch({leader_epoch}).setPartitionEpoch({partition_epoch}).\n                    setLeaderRecoveryState(LeaderRecoveryState.{lrs}.value()).setNewIsrWithEpochs(List.of({})))))))", members.join(", "))
}

/// registerBroker of a new incarnation on the broker's directories, supporting exactly
/// the finalized features; `clean` false sends a previous broker epoch that does not
/// match (the unclean-shutdown path). The new epoch is the next one.
fn register(broker: BrokerId, clean: bool, n: usize) -> Call {
    let previous = if clean {
        format!("ctx.currentBrokerEpoch({broker})")
    } else {
        "-1L".to_string()
    };
    Call {
        setup: vec![
            // The context's brokers heartbeated once (unfenceBrokers), so their sessions
            // are live; a restarted broker's registration is refused as a duplicate until
            // the old session expires. The driver tracks no session, so it never is.
            "ctx.time.sleep(BROKER_SESSION_TIMEOUT_MS + 1);".to_string(),
            format!("{REGISTRATION}.FeatureCollection features{n} = new {REGISTRATION}.FeatureCollection();"),
            format!("ctx.featureControl.finalizedFeatures(Long.MAX_VALUE).featureMap().forEach((name, level) -> features{n}.add(\n            new {REGISTRATION}.Feature().setName(name).setMinSupportedVersion(level).setMaxSupportedVersion(level)));"),
        ],
        result: Some("ControllerResult<org.apache.kafka.metadata.BrokerRegistrationReply>"),
        expr: format!("ctx.clusterControl.registerBroker(new {REGISTRATION}().setBrokerId({broker}).\n            setClusterId(ctx.clusterControl.clusterId()).setIncarnationId(Uuid.randomUuid()).\n            setLogDirs(ctx.clusterControl.brokerRegistrations().get({broker}).directories()).\n            setPreviousBrokerEpoch({previous}).setFeatures(features{n}),\n            ctx.currentBrokerEpoch({broker}) + 1, ctx.featureControl.finalizedFeatures(Long.MAX_VALUE), true)"),
        unknown: None,
        throws: true,
        faults: true,
        after: Vec::new(),
    }
}

/// The method a ticket shows for `invariant` on `history`, emitted for Apache Kafka
/// `version` (the first release that shows it): the step is where that release's
/// preset sees the violation first, the method is named after the property, and the
/// history's description (isrfuzz's own words) stays out. `None` when none can be
/// written: the release is unknown, or its preset does not see the violation.
pub fn for_ticket(
    label: &str,
    history: &History,
    invariant: &str,
    version: &str,
) -> Option<UpstreamMethod> {
    let release = Release::parse(version).ok()?;
    let rules = RuleSet::parse(release.preset).ok()?;
    let run = crate::check::oracle::run(history, std::slice::from_ref(&rules), false);
    let v = run.sides[0]
        .violations
        .iter()
        .find(|v| v.invariant == invariant)?;
    let finding = Finding {
        invariant,
        step: v.step,
        detail: &v.detail,
    };
    let mut plain = history.clone();
    plain.description = None;
    let m = upstream_method(label, &plain, &rules, &release, &finding).ok()?;
    let headline = crate::check::invariants::by_id(invariant)?.headline?;
    let mut name = String::from("test");
    for word in headline.split(|c: char| !c.is_ascii_alphanumeric()) {
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            name.push(first.to_ascii_uppercase());
            name.extend(chars.map(|c| c.to_ascii_lowercase()));
        }
    }
    Some(m.renamed(&name))
}

/// [`for_ticket`]'s method text: what `findings::ticket::ticket` is handed.
pub fn ticket_reproducer(history: &History, invariant: &str, version: &str) -> Option<String> {
    for_ticket("history.json", history, invariant, version).map(|m| m.text)
}
