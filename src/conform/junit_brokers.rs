//! A data-plane finding the real brokers showed, as a JUnit 5 test in the shape of
//! upstream's `PartitionTest`: no controller, one manual clock, real Partitions over real
//! logs (`PartitionFixture` in conformance/, which wraps the brokers judge so that each
//! call is performed as the judge that found the violation performed it). Each step of the
//! history is one `fixture.step(...)` of the calls the model's broker side made, the
//! registrations given as the deltas the release's controller produced. After a step where
//! an acks=all produce was acknowledged, the leader's own completion check is asserted
//! (`checkEnoughReplicasReachOffset`), and after the finding's step the violated property,
//! instantiated with the finding's replicas and records. The assertions are unconditional.
//!
//! Pure: a history in, Java source out. `isrfuzz conform --junit` writes it beside the
//! controller reproducers; ci/conformance.sh compiles each one and checks that it fails on
//! every release it runs on (the registrations are fixed: what the brokers do with them
//! is the same code path in 4.0–4.4).

use super::brokers::{acks_code, survives_name};
use super::junit::{class_name, partition_of, Finding, Reproducer};
use super::junit_dialect::{ints, javadoc, join};
use super::release::Release;
use super::replay::{check_expressible, model_calls};
use crate::check::history::History;
use crate::check::invariants::{by_id, from_offset, kept_acked, leader_candidates, Scope};
use crate::model::broker::BrokerCall;
use crate::model::{AckedRun, BrokerId, Cluster};
use crate::rules::RuleSet;
use std::fmt::Write;

/// The data-plane invariants a brokers reproducer asserts: those about records a replica
/// holds after one step (D3, log matching, and the quiescence ones, D4 and INV-10, have
/// no assertion here yet).
pub const BROKERS_ASSERTED: &[&str] = &["D1", "D2", "D5", "ELR4"];

/// The JUnit 5 reproducer of data-plane `finding` on `history` (read from `label`). `Err`
/// says in one line why none can be written.
pub fn brokers_reproducer(
    label: &str,
    history: &History,
    rules: &RuleSet,
    release: &Release,
    finding: &Finding,
) -> Result<Reproducer, String> {
    let inv = finding.invariant;
    if let Err(skip) = check_expressible(history, release) {
        return Err(format!("{}; Apache Kafka has no such step", skip.0));
    }
    let entry = by_id(inv)
        .filter(|_| BROKERS_ASSERTED.contains(&inv))
        .ok_or_else(|| {
            format!(
                "{inv} has no brokers assertion (supported: {})",
                BROKERS_ASSERTED.join(", ")
            )
        })?;
    let (calls, states) = model_calls(history, rules);
    if finding.step >= calls.len() {
        return Err(format!(
            "step {} is beyond the {} steps the model took",
            finding.step,
            calls.len()
        ));
    }
    let p = partition_of(finding.detail);
    let after = &states[finding.step + 1];
    if after.partitions.get(p).is_none() {
        return Err(format!(
            "the model has no partition {p} after step {}",
            finding.step
        ));
    }
    let lag = history.broker_config.replica_lag_time_max_ms;
    let mut body = String::new();
    let _ = writeln!(
        body,
        "        try (PartitionFixture brokers = new PartitionFixture({lag}L, {})) {{",
        join(&history.brokers)
    );
    for (step, step_calls) in calls.iter().enumerate().take(finding.step + 1) {
        emit_step(history, step, step_calls, &mut body)?;
        acknowledgements(&states[step], &states[step + 1], p, inv, &mut body);
    }
    property(after, p, inv, &mut body)?;
    body.push_str("        }\n");
    let class = class_name(label, &format!("{inv}Brokers"));
    let source = render_class(
        label,
        release,
        rules,
        finding,
        entry.statement,
        &class,
        &body,
    );
    Ok(Reproducer { class, source })
}

/// One step: a comment naming the history's event, then its calls as one `step`.
fn emit_step(
    history: &History,
    step: usize,
    calls: &[BrokerCall],
    out: &mut String,
) -> Result<(), String> {
    let event = history
        .events
        .get(step)
        .ok_or_else(|| format!("the model took step {step}, beyond the history"))?;
    let _ = write!(out, "            // step {step}: {event}");
    if calls.is_empty() {
        // Controller-only events stay visible, so that the step numbers match the history.
        let _ = writeln!(out, " (no broker call)");
        return Ok(());
    }
    out.push('\n');
    let lines: Vec<String> = calls.iter().map(call).collect();
    let _ = writeln!(
        out,
        "            brokers.step(\n                {});",
        lines.join(",\n                ")
    );
    Ok(())
}

/// One call as the fixture's builder of it.
fn call(c: &BrokerCall) -> String {
    match c {
        BrokerCall::Delta { .. } => delta(c),
        BrokerCall::Image {
            fenced,
            shutting_down,
        } => format!("image({}, {})", ints(fenced), ints(shutting_down)),
        BrokerCall::Remove { broker, partition } => format!("remove({broker}, {partition})"),
        BrokerCall::Produce {
            partition,
            broker,
            records,
            acks,
            min_insync_replicas,
            now_ms,
        } => {
            let acks = match acks_code(*acks) {
                -1 => "ACKS_ALL".to_string(),
                n => n.to_string(),
            };
            format!("produce({partition}, {broker}, {records}, {acks}, {min_insync_replicas}, {now_ms}L)")
        }
        BrokerCall::Fetch {
            partition,
            follower,
            leader,
            now_ms,
        } => format!("fetch({partition}, {follower}, {leader}, {now_ms}L)"),
        BrokerCall::CatchUp {
            partition,
            follower,
            leader,
            now_ms,
        } => format!("catchUp({partition}, {follower}, {leader}, {now_ms}L)"),
        BrokerCall::Expire { now_ms, brokers } => {
            let mut args = vec![format!("{now_ms}L")];
            args.extend(brokers.iter().map(|b| b.to_string()));
            format!("expire({})", args.join(", "))
        }
        BrokerCall::AlterAnswer { .. } => alter_answer(c),
        BrokerCall::Restart { broker, survives } => {
            format!("restart({broker}, \"{}\")", survives_name(*survives))
        }
        BrokerCall::Flush { broker } => format!("flush({broker})"),
        BrokerCall::TopicConfig {
            partition,
            min_insync_replicas,
        } => format!("topicConfig({partition}, {min_insync_replicas})"),
        BrokerCall::DeleteRecords {
            partition,
            broker,
            offset,
        } => format!("deleteRecords({partition}, {broker}, {offset}L)"),
    }
}

/// A delta as the fixture's builder of it.
fn delta(c: &BrokerCall) -> String {
    let BrokerCall::Delta {
        broker,
        partition,
        replicas,
        isr,
        leader,
        leader_epoch,
        partition_epoch,
        min_insync_replicas,
        now_ms,
    } = c
    else {
        unreachable!("a delta")
    };
    format!(
        "delta({broker}, {partition}, {}, {}, {leader}, {leader_epoch}, {partition_epoch}, {min_insync_replicas}, {now_ms}L)",
        ints(replicas),
        ints(isr)
    )
}

/// An AlterPartition answer: the history's own expansion (`expansionAnswer`, answered only
/// where the real Partition proposed it) or an answer to a proposal the model's made.
fn alter_answer(c: &BrokerCall) -> String {
    let BrokerCall::AlterAnswer {
        partition,
        broker,
        asserted,
        error,
        isr,
        leader_epoch,
        partition_epoch,
        now_ms,
        ..
    } = c
    else {
        unreachable!("an AlterPartition answer")
    };
    let builder = if *asserted {
        "expansionAnswer"
    } else {
        "alterAnswer"
    };
    format!(
        "{builder}({partition}, {broker}, \"{error}\", {}, {leader_epoch}, {partition_epoch}, {now_ms}L)",
        ints(isr)
    )
}

/// After a step: each acks=all run the model counts acknowledged at it is acknowledged by
/// the real leader's completion check; for D5, each run that became readable is below
/// the leader's high watermark.
fn acknowledgements(before: &Cluster, after: &Cluster, p: usize, inv: &str, out: &mut String) {
    let (Some(was), Some(now)) = (before.ghosts.get(p), after.ghosts.get(p)) else {
        return;
    };
    let leader = (after.runtime.partitions.get(p))
        .and_then(|rt| rt.leader.as_ref())
        .map(|l| l.broker);
    let Some(leader) = leader else {
        return;
    };
    for run in now.acked.iter().skip(was.acked.len()) {
        let _ = writeln!(
            out,
            "            assertTrue(brokers.acknowledged({leader}, {p}, {end}L), \"acks=all of {}: leader {leader}'s high watermark passed them with the ISR at min.insync.replicas; \" + brokers.describe({leader}, {p}));",
            records(run),
            end = run.end
        );
    }
    if inv == "D5" && now.read_end > was.read_end {
        let _ = writeln!(
            out,
            "            assertTrue(brokers.highWatermark({leader}, {p}) >= {end}L, \"records below {end} are readable: leader {leader}'s high watermark passed them; \" + brokers.describe({leader}, {p}));",
            end = now.read_end
        );
    }
}

/// `records 0-2 (epoch 1)`, `record 0 (epoch 1)`.
fn records(run: &AckedRun) -> String {
    if run.end - run.start == 1 {
        format!("record {} (epoch {})", run.start, run.epoch)
    } else {
        format!(
            "records {}-{} (epoch {})",
            run.start,
            run.end - 1,
            run.epoch
        )
    }
}

/// The violated property after the finding's step, with the model's replicas and runs.
fn property(c: &Cluster, p: usize, inv: &str, out: &mut String) -> Result<(), String> {
    let part = &c.partitions[p];
    let ghost = &c.ghosts[p];
    let rt = &c.runtime.partitions[p];
    let scope = Scope::of(c);
    let acked: Vec<AckedRun> = kept_acked(ghost).collect();
    let mut lines = Vec::new();
    let holds = |b: BrokerId, run: &AckedRun, method: &str, what: &str| {
        format!(
            "assertTrue(brokers.{method}({b}, {p}, {}L, {}L, {}), \"{what} {b} holds {}; \" + brokers.describe({b}, {p}));",
            run.start, run.end, run.epoch, records(run)
        )
    };
    match inv {
        "D1" => {
            let on: Vec<BrokerId> = rt.locals.iter().map(|l| l.broker).collect();
            for run in &acked {
                lines.push(format!(
                    "assertTrue(brokers.someHolds({}, {p}, {}L, {}L, {}), \"some replica of {} holds acknowledged {}\");",
                    ints(&on), run.start, run.end, run.epoch, join(&on), records(run)
                ));
            }
        }
        "D2" => {
            let leader = part.leader;
            for run in &acked {
                lines.push(holds(leader, run, "holds", "the leader"));
            }
        }
        "ELR4" => {
            for b in leader_candidates(part) {
                let list = if part.isr.contains(&b) { "ISR" } else { "ELR" };
                for run in &acked {
                    lines.push(holds(b, run, "holds", &format!("{list} member")));
                }
            }
        }
        _ => {
            // D5: the serving leader holds every read record above its log start; every
            // other live replica, those below its own high watermark.
            let read: Vec<AckedRun> = (ghost.read.iter())
                .filter_map(|r| from_offset(r, ghost.deleted_below))
                .collect();
            let leader = part.leader;
            let live = rt.locals.iter().filter(|l| scope.is_up(l.broker));
            for run in &read {
                lines.push(holds(leader, run, "holdsAboveLogStart", "the leader"));
            }
            for l in live.filter(|l| l.broker != leader) {
                for run in &read {
                    lines.push(holds(l.broker, run, "holdsBelowHighWatermark", "replica"));
                }
            }
        }
    }
    if lines.is_empty() {
        return Err(format!("{inv} names no record to assert after its step"));
    }
    for l in lines {
        let _ = writeln!(out, "            {l}");
    }
    Ok(())
}

/// What a reproducer may import from `PartitionFixture`: every builder [`call`] writes and
/// the acks constant. Sorted, as upstream's import order has them.
const FIXTURE_NAMES: [&str; 14] = [
    "ACKS_ALL",
    "alterAnswer",
    "catchUp",
    "deleteRecords",
    "delta",
    "expansionAnswer",
    "expire",
    "fetch",
    "flush",
    "image",
    "produce",
    "remove",
    "restart",
    "topicConfig",
];

fn render_class(
    label: &str,
    release: &Release,
    rules: &RuleSet,
    f: &Finding,
    statement: &str,
    class: &str,
    body: &str,
) -> String {
    let mut out = String::new();
    out.push_str("package org.apache.kafka.controller;\n\n");
    out.push_str("import org.junit.jupiter.api.Test;\n\n");
    for name in FIXTURE_NAMES {
        let used = body.contains(&format!("{name}(")) || body.contains(&format!("{name},"));
        if used {
            let _ = writeln!(
                out,
                "import static org.apache.kafka.controller.PartitionFixture.{name};"
            );
        }
    }
    out.push_str("import static org.junit.jupiter.api.Assertions.assertTrue;\n");
    let _ = write!(
        out,
        "
/**
 * {inv} on the real brokers (Partitions, logs, the replica fetcher; no controller), as
 * Apache Kafka {version}'s brokers show it after step {step} of {label}: {detail}.
 *
 * <p>{inv}: {statement}. The registrations are the deltas {version}'s controller produced
 * for this history; each step performs the calls the brokers judge performed. The
 * assertions are unconditional. Emitted by isrfuzz conform --junit from the calls the
 * {rules} rules make.
 */
class {class} {{
    @Test
    void test{inv}OnTheBrokers() {{
{body}    }}
}}
",
        inv = f.invariant,
        version = release.version,
        step = f.step,
        detail = javadoc(f.detail),
        statement = javadoc(statement),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each builder a call is written as is imported: a missing one is a reproducer that
    /// does not compile (found by F26's, the first with a topic config change).
    #[test]
    fn every_call_builder_is_imported() {
        let calls = [
            BrokerCall::Image {
                fenced: vec![1],
                shutting_down: vec![],
            },
            BrokerCall::Remove {
                broker: 1,
                partition: 0,
            },
            BrokerCall::Fetch {
                partition: 0,
                follower: 2,
                leader: 1,
                now_ms: 0,
            },
            BrokerCall::CatchUp {
                partition: 0,
                follower: 2,
                leader: 1,
                now_ms: 0,
            },
            BrokerCall::Expire {
                now_ms: 0,
                brokers: vec![1],
            },
            BrokerCall::Restart {
                broker: 1,
                survives: None,
            },
            BrokerCall::Flush { broker: 1 },
            BrokerCall::TopicConfig {
                partition: 0,
                min_insync_replicas: 1,
            },
            BrokerCall::DeleteRecords {
                partition: 0,
                broker: 1,
                offset: 1,
            },
        ];
        for c in &calls {
            let text = call(c);
            let name = text.split('(').next().unwrap_or_default();
            assert!(
                FIXTURE_NAMES.contains(&name),
                "{text}: {name} is not imported"
            );
        }
    }
}
