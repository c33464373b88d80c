//! A KRaft finding as a JUnit 5 test a committer can run: the finding's controller requests,
//! one call per line, against the real managers (`ReproFixture` in conformance/, which
//! wraps the conformance driver), and the violated property as an assertion after the step
//! where it was seen, instantiated with the finding's replicas and phrased so that it holds
//! on a release without the bug. Never behind an `if`: a test that passes because its
//! assertion was skipped says nothing, so a property of a state (a completion, say) is
//! asserted as "state implies property", the state named first. Pure: a history and the requests the model makes of the
//! release in, Java source out; `isrfuzz conform --junit` writes it, and ci/conformance.sh
//! checks that each one fails exactly on the releases that show the violation.

use super::junit_dialect::{format_5_call, ints, javadoc, join, recovery_state, set, shown};
use super::release::Release;
use super::replay::{check_expressible, model_run};
use crate::check::history::History;
use crate::check::invariants::{by_id, Invariant};
use crate::model::request::{Exchange, Request};
use crate::model::{BrokerId, Cluster, Event, NO_LEADER};
use crate::rules::RuleSet;
use std::fmt::Write;

/// The invariants a reproducer can assert (the list lives with the invariants, where a
/// ticket reads it too).
pub use crate::check::invariants::JUNIT_ASSERTED as SUPPORTED;

/// One violation the real controller showed: the invariant, the step (0-based) after
/// which it was seen, and its one-line detail (`p0: ...`).
#[derive(Clone, Copy, Debug)]
pub struct Finding<'a> {
    pub invariant: &'a str,
    pub step: usize,
    pub detail: &'a str,
}

/// The emitted test: its class name (also its file name, `<class>.java`) and source.
#[derive(Clone, Debug)]
pub struct Reproducer {
    pub class: String,
    pub source: String,
}

/// The JUnit 5 reproducer of `finding` on `history` (read from `label`, a path whose file
/// stem names the class), with the requests `rules` make of `release`'s controller. `Err`
/// says in one line why none can be written: an Inkless history (no Apache Kafka jar has
/// its events), an invariant without an assertion here, or a step beyond the history.
pub fn junit_reproducer(
    label: &str,
    history: &History,
    rules: &RuleSet,
    release: &Release,
    finding: &Finding,
) -> Result<Reproducer, String> {
    let entry = admissible(history, release, finding)?;
    let inv = finding.invariant;
    let (requests, states) = model_run(history, rules);
    let class = class_name(label, inv);
    let ctx = context(history, rules, finding, &states)?;
    let mut body = String::new();
    let brokers = join(&history.brokers);
    let elr = history.eligible_leader_replicas;
    let _ = writeln!(
        body,
        "        ReproFixture ctx = new ReproFixture({elr}, {brokers});"
    );
    for step in 0..=finding.step {
        emit_step(&ctx, step, &calls_at(&requests, step), &mut body)?;
    }
    let source = render_class(&ctx, label, release, &class, entry.statement, &body);
    Ok(Reproducer { class, source })
}

/// Why no reproducer of `finding` can be written, in one line: an Inkless history (no
/// Apache Kafka jar has its events), an invariant without an assertion here, or a step
/// beyond the history. Else the invariant asserted.
pub(super) fn admissible(
    history: &History,
    release: &Release,
    finding: &Finding,
) -> Result<&'static Invariant, String> {
    let inv = finding.invariant;
    if let Err(skip) = check_expressible(history, release) {
        return Err(format!(
            "{}; Apache Kafka has no such request, so write the reproducer in aiven/inkless: its ReplicationControlManagerTest (metadata/src/test/java/org/apache/kafka/controller/) for a controller finding, its broker-side replica-manager tests for a broker one",
            skip.0
        ));
    }
    let entry = by_id(inv)
        .filter(|_| SUPPORTED.contains(&inv))
        .ok_or_else(|| {
            format!(
                "{inv} has no JUnit assertion (supported: {})",
                SUPPORTED.join(", ")
            )
        })?;
    if finding.step >= history.events.len() {
        return Err(format!(
            "step {} is beyond the history's {} events",
            finding.step,
            history.events.len()
        ));
    }
    Ok(entry)
}

pub(super) struct Context<'a> {
    pub(super) history: &'a History,
    pub(super) rules: &'a RuleSet,
    pub(super) finding: &'a Finding<'a>,
    pub(super) partition: usize,
    /// The model's state before and after the finding's step.
    pub(super) before: &'a Cluster,
    pub(super) after: &'a Cluster,
}

/// The requests the model made at `step`, in order.
pub(super) fn calls_at(requests: &[(usize, Exchange)], step: usize) -> Vec<&Exchange> {
    (requests.iter())
        .filter(|(s, _)| *s == step)
        .map(|(_, e)| e)
        .collect()
}

/// The model's states around the finding's step, refused when the finding's partition
/// does not exist after it (S4 concerns a request, not a partition).
pub(super) fn context<'a>(
    history: &'a History,
    rules: &'a RuleSet,
    finding: &'a Finding<'a>,
    states: &'a [Cluster],
) -> Result<Context<'a>, String> {
    let partition = partition_of(finding.detail);
    let ctx = Context {
        history,
        rules,
        finding,
        partition,
        before: &states[finding.step],
        after: &states[finding.step + 1],
    };
    if ctx.after.partitions.get(partition).is_none() && finding.invariant != "S4" {
        return Err(format!(
            "the model has no partition {partition} after step {}",
            finding.step
        ));
    }
    Ok(ctx)
}

/// `p3: ...` names partition 3; details without one (S4) concern the request, not a
/// partition.
pub(super) fn partition_of(detail: &str) -> usize {
    let digits = detail
        .strip_prefix('p')
        .and_then(|rest| rest.split(':').next());
    digits.and_then(|d| d.parse().ok()).unwrap_or(0)
}

/// `kafka-21419-repro` and `G5` → `Kafka21419ReproG5ReproTest`; a leading digit gets a
/// `Kafka` prefix, and digit groups stay apart (`3.0-3.7` → `Kafka3_0_3_7`) so that two
/// versions cannot run together into one.
pub fn class_name(label: &str, invariant: &str) -> String {
    let stem = std::path::Path::new(label)
        .file_stem()
        .map_or_else(|| label.to_string(), |s| s.to_string_lossy().into_owned());
    let mut out = String::new();
    for word in stem
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        let digit_next = word.starts_with(|c: char| c.is_ascii_digit());
        if digit_next && out.ends_with(|c: char| c.is_ascii_digit()) {
            out.push('_');
        }
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            out.push(first.to_ascii_uppercase());
            out.extend(chars);
        }
    }
    if !out.starts_with(|c: char| c.is_ascii_alphabetic()) {
        out.insert_str(0, "Kafka");
    }
    format!("{out}{invariant}ReproTest")
}

/// One request as the fixture call that sends it.
fn call(request: &Request) -> Result<String, String> {
    Ok(match request {
        Request::Register { broker, clean } => format!("ctx.registerBroker({broker}, {clean})"),
        Request::Event(event) => event_call(event)?,
    })
}

/// One history event as the fixture call that sends it.
fn event_call(event: &Event) -> Result<String, String> {
    Ok(match event {
        Event::CreatePartition {
            replicas,
            unclean_leader_election_enable,
            min_insync_replicas,
            ..
        } => format!(
            "ctx.createTopic({}, {min_insync_replicas}, {unclean_leader_election_enable})",
            ints(replicas)
        ),
        Event::Reassign {
            partition,
            target,
            allow_replication_factor_change,
        } => format!(
            "ctx.alterPartitionReassignments({partition}, {}, {allow_replication_factor_change})",
            ints(target)
        ),
        Event::CancelReassignment { partition } => {
            format!("ctx.cancelPartitionReassignment({partition})")
        }
        Event::AlterPartition {
            partition,
            isr,
            broker: Some(broker),
            leader_epoch: Some(le),
            partition_epoch: Some(pe),
            leader_recovery_state,
            stale_epoch: None,
        } => {
            let lrs = recovery_state(*leader_recovery_state);
            format!(
                    "ctx.alterPartition({partition}, {broker}, {le}, {pe}, {}, LeaderRecoveryState.{lrs})",
                    ints(isr)
                )
        }
        Event::FenceBroker { broker } => format!("ctx.handleBrokerFenced({broker})"),
        Event::UnfenceBroker { broker } => format!("ctx.handleBrokerUnfenced({broker})"),
        Event::ControlledShutdown { broker } => {
            format!("ctx.handleBrokerInControlledShutdown({broker})")
        }
        Event::ElectLeaders {
            partition,
            election,
        } => format!(
            "ctx.electLeaders({partition}, ElectionType.{})",
            election.api_name()
        ),
        Event::ListReassignments => "ctx.listPartitionReassignments()".to_string(),
        other => format_5_call(other).ok_or_else(|| {
            format!(
                "the model sent a {} the fixture has no call for",
                other.op()
            )
        })?,
    })
}

/// One step: a comment naming the history's event, its calls, and at the finding's step
/// the assertion.
fn emit_step(
    ctx: &Context,
    step: usize,
    calls: &[&Exchange],
    out: &mut String,
) -> Result<(), String> {
    let event = &ctx.history.events[step];
    let judged = step == ctx.finding.step;
    let sent: Vec<&&Exchange> = calls.iter().filter(|e| !e.not_upstream).collect();
    let _ = write!(out, "        // step {step}: {event}");
    if sent.is_empty() {
        // Broker-side events the controller never hears of stay visible, so the step
        // numbers match the history and the conformance report.
        let _ = writeln!(out, " (no controller request)");
    } else {
        out.push('\n');
    }
    let inv = ctx.finding.invariant;
    let p = ctx.partition;
    if judged && matches!(inv, "G4" | "G5" | "ELR5") {
        if ctx.before.partitions.get(p).is_none() {
            return Err(format!("{inv} judged at step {step}, which creates p{p}"));
        }
        let _ = writeln!(
            out,
            "        PartitionRegistration before = ctx.partition({p});"
        );
    }
    for (n, e) in sent.iter().enumerate() {
        let line = call(&e.request)?;
        let note = if e.error == "NONE" {
            String::new()
        } else {
            format!(" // {} in the model", e.error)
        };
        if judged && inv == "S4" {
            let _ = writeln!(out, "        ReproFixture.Answer a{n} = {line};");
            let _ = writeln!(
                out,
                "        assertFalse(a{n}.threw(), () -> \"S4 (no request makes the controller throw): {} answered \" + a{n});",
                line.trim_start_matches("ctx.").replace('"', "'")
            );
        } else if judged
            && inv == "G6"
            && matches!(e.request, Request::Event(Event::CancelReassignment { .. }))
        {
            let _ = writeln!(out, "        ReproFixture.Answer cancel = {line};{note}");
        } else {
            let _ = writeln!(out, "        {line};{note}");
        }
    }
    if judged && inv != "S4" {
        let _ = writeln!(
            out,
            "        PartitionRegistration after = ctx.partition({p});"
        );
        assertion(ctx, out);
    }
    Ok(())
}

/// The violated property on `after` (and `before`), with the finding's values.
pub(super) fn assertion(ctx: &Context, out: &mut String) {
    match ctx.finding.invariant {
        "S0" | "S1" => shape_assertion(ctx, out),
        "G1" | "G2" | "G4" | "G5" => reassignment_assertion(ctx, out),
        "G6" | "G7" => cancel_and_liveness_assertion(ctx, out),
        _ => elr_assertion(ctx, out),
    }
}

fn line(out: &mut String, text: &str) {
    let _ = writeln!(out, "        {text}");
}

/// The finding's partition's original and target replicas (its ghost after the step).
fn chain<'a>(ctx: &'a Context) -> (&'a [BrokerId], &'a [BrokerId]) {
    let ghost = &ctx.after.ghosts[ctx.partition];
    (&ghost.original[..], &ghost.target[..])
}

fn from_to(o: &[BrokerId], t: &[BrokerId]) -> String {
    format!("O = {} to T = {}", shown(o), shown(t))
}

/// S0 and S1: the registration's shape and its two reassignment lists.
fn shape_assertion(ctx: &Context, out: &mut String) {
    let (o, _) = chain(ctx);
    match ctx.finding.invariant {
        "S0" => {
            line(out, "// S0: the registration's shape: replicas not empty, no list holds a broker twice, ISR within the replicas, the leader in the ISR or none.");
            line(
                out,
                "assertTrue(after.replicas.length > 0, \"S0: replicas is empty: \" + after);",
            );
            if !ctx.after.elr {
                line(out, "assertTrue(after.isr.length > 0, \"S0: the ISR is empty (ELR is off): \" + after);");
            }
            line(out, "assertFalse(hasDuplicates(after.replicas) || hasDuplicates(after.isr) || hasDuplicates(after.addingReplicas) || hasDuplicates(after.removingReplicas), \"S0: a list holds a broker twice: \" + after);");
            line(out, "assertTrue(ids(after.replicas).containsAll(ids(after.isr)), \"S0: ISR \" + ids(after.isr) + \" is not within replicas \" + ids(after.replicas));");
            line(out, "assertTrue(after.leader == -1 || ids(after.isr).contains(after.leader), \"S0: leader \" + after.leader + \" is not in ISR \" + ids(after.isr));");
        }
        _ => {
            line(out, "// S1: adding and removing are replicas, and no replica is both adding and removing.");
            line(out, "assertTrue(ids(after.replicas).containsAll(ids(after.addingReplicas)) && ids(after.replicas).containsAll(ids(after.removingReplicas)), \"S1: adding or removing outside the replicas: \" + after);");
            if ctx.rules.derivation.tracks_transients() {
                // These rules let a transient (targeted, then dropped) replica be both;
                // only an original replica in both breaks the lists.
                let _ = writeln!(out, "        assertEquals(ids(), intersection(intersection(ids(after.addingReplicas), ids(after.removingReplicas)), {}), \"S1: an original replica of O = {} is both adding and removing: \" + after);", set(o), shown(o));
            } else {
                line(out, "assertEquals(ids(), intersection(ids(after.addingReplicas), ids(after.removingReplicas)), \"S1: a replica is both adding and removing: \" + after);");
            }
        }
    }
}

/// G1, G2 while the reassignment is in progress; G4, G5 at its completion. Each is one
/// unconditional assertion of "state ⇒ property", the state named by a boolean first, so
/// a release where the state never arises passes for a reason the source states (and
/// the message prints), never because an `if` skipped the assertion.
fn reassignment_assertion(ctx: &Context, out: &mut String) {
    let (o, t) = chain(ctx);
    let ghost = &ctx.after.ghosts[ctx.partition];
    let chain = || from_to(o, t);
    match ctx.finding.invariant {
        "G1" => {
            let mut known: Vec<BrokerId> = o.to_vec();
            known.extend(t);
            known.extend(ghost.ever_targeted.iter());
            let mut both = o.to_vec();
            both.extend(t);
            let _ = writeln!(out, "        // G1: while the reassignment from {} is in progress, the replicas hold T and O and nothing but the targets named, and replicas - removing = T.", chain());
            line(
                out,
                "// With no reassignment in progress after the step, G1 holds vacuously.",
            );
            line(out, "boolean inProgress = reassigning(after);");
            let _ = writeln!(out, "        assertTrue(!inProgress || ids(after.replicas).containsAll({}), \"G1: in progress, replicas \" + ids(after.replicas) + \" lack some of T and O {}\");", set(&both), shown(&both));
            let _ = writeln!(out, "        assertTrue(!inProgress || {}.containsAll(ids(after.replicas)), \"G1: in progress, replicas \" + ids(after.replicas) + \" hold a broker no target named\");", set(&known));
            let _ = writeln!(out, "        assertTrue(!inProgress || minus(ids(after.replicas), ids(after.removingReplicas)).equals({}), \"G1: in progress, replicas - removing \" + minus(ids(after.replicas), ids(after.removingReplicas)) + \" is not the target T = {}: \" + after);", set(t), shown(t));
        }
        "G2" => {
            let _ = writeln!(out, "        // G2 (list completeness): while the reassignment from {} is in progress, every replica that will survive it and is not original is listed as adding.", chain());
            line(
                out,
                "// With no reassignment in progress after the step, G2 holds vacuously.",
            );
            line(out, "boolean inProgress = reassigning(after);");
            let _ = writeln!(out, "        Set<Integer> survivingNew = minus(minus(ids(after.replicas), ids(after.removingReplicas)), {});", set(o));
            line(out, "assertTrue(!inProgress || ids(after.addingReplicas).containsAll(survivingNew), \"G2: in progress, \" + minus(survivingNew, ids(after.addingReplicas)) + \" will survive the reassignment but is not listed as adding: \" + after);");
        }
        "G4" => {
            let _ = writeln!(out, "        // G4 (target fidelity): a reassignment from {} that completes here ends on exactly T.", chain());
            line(
                out,
                "// When the step completes no reassignment, G4 holds vacuously.",
            );
            line(
                out,
                "boolean completedHere = reassigning(before) && !reassigning(after);",
            );
            let _ = writeln!(out, "        assertTrue(!completedHere || ids(after.replicas).equals({}), \"G4: the reassignment completed here on replicas \" + ids(after.replicas) + \", not on the target {}\");", set(t), shown(t));
        }
        "G5" => {
            let added: Vec<BrokerId> = t.iter().copied().filter(|r| !o.contains(r)).collect();
            let _ = writeln!(out, "        // G5 (safe completion): a reassignment from {} that completes here has every replica it added (T - O = {}) in the ISR.", chain(), shown(&added));
            line(out, "// The added replicas this step completed: T - O if the reassignment completed here, none otherwise (then none is out of the ISR and G5 holds vacuously).");
            line(
                out,
                "boolean completedHere = reassigning(before) && !reassigning(after);",
            );
            let _ = writeln!(
                out,
                "        Set<Integer> completedOutOfIsr = minus(completedHere ? {} : ids(), ids(after.isr));",
                set(&added)
            );
            let _ = writeln!(out, "        assertTrue(completedOutOfIsr.isEmpty(), \"G5: the reassignment completed here with \" + completedOutOfIsr + \" of the added replicas {} out of ISR \" + ids(after.isr));", shown(&added));
        }
        _ => unreachable!("assertion() sends G1, G2, G4 and G5 here"),
    }
}

/// G6 after an accepted cancel (unconditional, as [`reassignment_assertion`]'s); G7 on
/// any state.
fn cancel_and_liveness_assertion(ctx: &Context, out: &mut String) {
    let (o, t) = chain(ctx);
    let chain = || from_to(o, t);
    if ctx.finding.invariant == "G6" {
        let _ = writeln!(out, "        // G6 (cancel restores): an accepted cancel of the reassignment from {} restores the replicas O.", chain());
        line(
            out,
            "// When the controller refuses the cancel, G6 holds vacuously.",
        );
        line(out, "boolean accepted = cancel.error().equals(\"NONE\");");
        let _ = writeln!(out, "        assertTrue(!accepted || ids(after.replicas).equals({}), \"G6: the accepted cancel left replicas \" + ids(after.replicas) + \", not the original {}\");", set(o), shown(o));
    } else {
        let _ = writeln!(out, "        // G7 (one-step liveness): once every replica of the target T = {} is in the ISR (and some ISR member stays), the change that got it there completes the reassignment.", shown(t));
        let _ = writeln!(out, "        assertFalse(reassigning(after) && ids(after.isr).containsAll({}) && !minus(ids(after.isr), ids(after.removingReplicas)).isEmpty(), \"G7: T {} is within ISR \" + ids(after.isr) + \" yet the reassignment stays open: \" + after);", set(t), shown(t));
    }
}

/// ELR1, ELR3, ELR5 (unconditional, as [`reassignment_assertion`]'s).
fn elr_assertion(ctx: &Context, out: &mut String) {
    let model = &ctx.after.partitions[ctx.partition];
    match ctx.finding.invariant {
        "ELR1" => {
            line(out, "// ELR1: every eligible leader replica is a replica.");
            line(out, "assertTrue(ids(after.replicas).containsAll(ids(after.elr)), \"ELR1: ELR \" + ids(after.elr) + \" is not within replicas \" + ids(after.replicas));");
        }
        "ELR3" => {
            let min_isr = model.min_insync_replicas;
            let _ = writeln!(out, "        // ELR3: once the ISR reaches the effective min ISR (min.insync.replicas = {min_isr}, capped at the replica count), the ELR is empty.");
            line(out, "// With the ISR below it, ELR3 holds vacuously.");
            let _ = writeln!(
                out,
                "        boolean atMinIsr = after.isr.length >= Math.min({min_isr}, after.replicas.length);"
            );
            line(out, "assertTrue(!atMinIsr || after.elr.length == 0, \"ELR3: ISR \" + ids(after.isr) + \" is at the effective min ISR yet ELR is \" + ids(after.elr));");
        }
        "ELR5" => {
            line(out, "// ELR5: a partition left with no leader, no ISR and no ELR keeps its last leader as last known ELR.");
            line(
                out,
                "// With a leader, an ISR or an ELR left, ELR5 holds vacuously.",
            );
            line(
                out,
                "boolean bare = after.leader == -1 && after.isr.length == 0 && after.elr.length == 0;",
            );
            let _ = writeln!(out, "        int[] lastLeader = before.leader != {NO_LEADER} ? new int[] {{before.leader}} : before.lastKnownElr;");
            line(out, "assertTrue(!bare || (after.lastKnownElr.length == 1 && Arrays.equals(lastLeader, after.lastKnownElr)), \"ELR5: no leader, ISR or ELR is left, yet last known ELR \" + Arrays.toString(after.lastKnownElr) + \" is not the last leader \" + Arrays.toString(lastLeader));");
        }
        _ => unreachable!("SUPPORTED lists the invariants handled here"),
    }
}

fn render_class(
    ctx: &Context,
    label: &str,
    release: &Release,
    class: &str,
    statement: &str,
    body: &str,
) -> String {
    let f = ctx.finding;
    let mut out = String::new();
    out.push_str("package org.apache.kafka.controller;\n\n");
    out.push_str(&imports(body));
    let what = ctx
        .history
        .description
        .as_deref()
        .map(|d| format!(" * <p>{}\n *\n", javadoc(d)))
        .unwrap_or_default();
    let _ = write!(
        out,
        "
/**
 * {inv} on the real controller managers, as Apache Kafka {version} shows it after step
 * {step} of {label}: {detail}.
 *
{what} * <p>{inv}: {statement}. The assertion is unconditional and holds on a release
 * without the violation (vacuously where the state it judges does not arise, as it says).
 * Emitted by isrfuzz conform --junit from the requests the {rules} rules make.
 */
class {class} {{
    @Test
    void test{inv}() {{
{body}    }}
}}
",
        inv = f.invariant,
        version = release.version,
        step = f.step,
        detail = javadoc(f.detail),
        statement = javadoc(statement),
        rules = ctx.rules,
    );
    out
}

/// The imports the body uses, plain then static, each group sorted.
fn imports(body: &str) -> String {
    let mut imports = vec!["org.apache.kafka.metadata.PartitionRegistration"];
    if body.contains("LeaderRecoveryState.") {
        imports.push("org.apache.kafka.metadata.LeaderRecoveryState");
    }
    if body.contains("ElectionType.") {
        imports.push("org.apache.kafka.common.ElectionType");
    }
    if body.contains("Arrays.") {
        imports.push("java.util.Arrays");
    }
    if body.contains("Set<Integer>") {
        imports.push("java.util.Set");
    }
    imports.push("org.junit.jupiter.api.Test");
    imports.sort_by_key(|i| (i.starts_with("java."), *i));
    let mut statics = Vec::new();
    for helper in [
        "ids",
        "minus",
        "intersection",
        "reassigning",
        "hasDuplicates",
    ] {
        if body.contains(&format!("{helper}(")) {
            statics.push(format!("org.apache.kafka.controller.ReproFixture.{helper}"));
        }
    }
    for assert in ["assertEquals", "assertFalse", "assertTrue"] {
        if body.contains(&format!("{assert}(")) {
            statics.push(format!("org.junit.jupiter.api.Assertions.{assert}"));
        }
    }
    let mut out = String::new();
    for i in &imports {
        let _ = writeln!(out, "import {i};");
    }
    out.push('\n');
    for s in &statics {
        let _ = writeln!(out, "import static {s};");
    }
    out
}
