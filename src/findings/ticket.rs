//! `replay --report jira|md`: a finding as the ticket a committer files unchanged,
//! written the way KAFKA-21419 itself is: a summary in words, the component, affected
//! versions per consequence, the steps (the operator script, operator.rs), expected
//! against actual, the suggested fix (the rule variant that holds), a reproducer where one
//! is generated, upstream sources, and the history as the attachment.
//!
//! Everything above the attachment stands alone: no rule set, preset or variant name, no
//! invariant or finding id (an invariant is named by its headline), no harness commit (a
//! commit id appears only in a link to its upstream repository), no debug text (plain.rs
//! words what isrfuzz prints). Steps are numbered from 0, as `replay` and `conform`
//! number them. The ticket is built once as blocks and rendered as GitHub Markdown or JIRA
//! wiki markup.

use crate::check::history::History;
use crate::check::invariants::{self, Plane};
use crate::check::oracle::{self, SideRun, Verdict, Violation};
use crate::error::inert_json_text;
use crate::findings::affected::{affected, Affected, SEARCH_EVENTS_MAX};
use crate::findings::attribution::responsible_variants;
pub use crate::findings::markup::Format;
use crate::findings::markup::{render, upstream, Block};
use crate::findings::{operator, plain};
use crate::rules::{Family, RuleSet, RULES};

/// What breaking invariant `id` looks like to an operator (the list's headline).
fn headline(id: &str) -> &'static str {
    invariants::by_id(id)
        .and_then(|i| i.headline)
        .unwrap_or("a property is broken")
}

/// The ticket for the violation `history` shows under the rule set `verdict`'s first
/// violating side names (the file's own finding when its description names one).
/// The reproducer a ticket shows: the method for `invariant` on the history, for the named
/// Apache Kafka release, or `None`. Written a layer above (the conformance emitter), so
/// it is handed in.
pub type ReproducerFn = fn(&History, &str, &str) -> Option<String>;

pub fn ticket(
    file: &str,
    history: &History,
    verdict: &Verdict,
    format: Format,
    write_method: ReproducerFn,
) -> String {
    let Some((side, v)) = reported(history, verdict) else {
        return format!(
            "{file}: no violation to report: the history breaks none of the properties checked\n"
        );
    };
    let (history, elr_dropped) = quieted(history, side.rules, v.invariant);
    // The verdict's own runs serve while the history is unchanged: a history at the input
    // limits costs seconds and tens of MB per run.
    let rerun;
    let side = if elr_dropped {
        rerun = oracle::run(&history, &[side.rules], true);
        &rerun.sides[0]
    } else {
        side
    };
    let Some(v) = side.violations.iter().find(|x| x.invariant == v.invariant) else {
        return format!("{file}: no violation to report\n");
    };
    let history = History {
        description: Some(summary(&history, v)),
        rules: Some(side.rules.to_string()),
        expect: vec![crate::check::history::Expectation {
            rules: side.rules.to_string(),
            violations: side.expected(),
        }],
        ..history
    };
    let fixed = RuleSet::complete();
    let known_fix = verdict
        .sides
        .iter()
        .find(|s| s.rules == fixed && !elr_dropped);
    let fix_run;
    let with_fix = match known_fix {
        Some(s) => s,
        None => {
            fix_run = oracle::run(&history, &[fixed], true);
            &fix_run.sides[0]
        }
    };
    let blocks = blocks(&history, side, v, with_fix, elr_dropped, write_method);
    render(&blocks, format)
}

/// The side and violation under report: the one the file's description names, else the
/// latest violation of the first side that has one (the consequence the history ends on).
fn reported<'v>(history: &History, verdict: &'v Verdict) -> Option<(&'v SideRun, &'v Violation)> {
    let named = history.description.as_deref().and_then(|d| {
        verdict.sides.iter().find_map(|s| {
            let text = format!("{} violates ", s.rules);
            let rest = d.split(&text).nth(1)?;
            let id = rest.split(|c: char| c.is_whitespace() || c == ';').next()?;
            s.violations
                .iter()
                .find(|v| v.invariant == id)
                .map(|v| (s, v))
        })
    });
    named.or_else(|| {
        let side = verdict.sides.iter().find(|s| !s.violations.is_empty())?;
        let last = side.violations.iter().max_by_key(|v| v.step)?;
        Some((side, last))
    })
}

/// The history without ELR when the violation does not need it: fewer lists, one feature
/// flag fewer for the reader. Returns whether ELR was dropped.
fn quieted(history: &History, rules: RuleSet, invariant: &str) -> (History, bool) {
    if !history.eligible_leader_replicas || history.events.len() > SEARCH_EVENTS_MAX {
        return (history.clone(), false);
    }
    let off = History {
        eligible_leader_replicas: false,
        ..history.clone()
    };
    let still = oracle::run(&off, &[rules], false).sides[0].violates(invariant);
    if still {
        (off, true)
    } else {
        (history.clone(), false)
    }
}

/// The invariant a ticket of `history` reports (what `ticket` files), if any.
pub fn reported_invariant(history: &History, verdict: &Verdict) -> Option<&'static str> {
    reported(history, verdict).map(|(_, v)| v.invariant)
}

fn blocks(
    history: &History,
    side: &SideRun,
    v: &Violation,
    fixed: &SideRun,
    elr_dropped: bool,
    write_method: ReproducerFn,
) -> Vec<Block> {
    let inv = invariants::by_id(v.invariant);
    let family = family_of(&side.rules, history);
    let culprits = culprits(history, &side.rules, v.invariant);
    let affected = affected(history, side, v.invariant, family);
    let mut out = head(history, v, family, &affected, elr_dropped);
    let mut prose = description(side, v, inv);
    prose.push(Block::Heading("Steps to reproduce".into()));
    prose.push(Block::Para(format!(
        "A script for a test cluster (shell commands, a `see` check after each step, a `by_hand` pause where no command does the step); step N is event N of the history attached below, counted from 0, as `isrfuzz replay` and `isrfuzz conform` count them. `isrfuzz replay --operator FILE` prints the same script."
    )));
    prose.push(Block::Code("sh", operator::operator_steps(history, side)));
    prose.push(Block::Heading("Expected".into()));
    prose.push(Block::Para(expected_text(v, inv, fixed)));
    prose.push(Block::Heading("Actual".into()));
    prose.push(Block::Para(actual_text(side, v)));
    prose.push(Block::Heading("Suggested fix".into()));
    prose.push(Block::Bullets(fix_lines(&side.rules, &culprits, fixed)));
    let legend = plain::legend(&block_text(&prose));
    if !legend.is_empty() {
        prose.push(Block::Para(legend));
    }
    out.extend(prose);
    out.push(Block::Heading("Reproducer".into()));
    out.push(Block::Para(reproducer(history, v, family, &affected)));
    if let Some(release) = junit_release(history, v, family, &affected) {
        match write_method(history, v.invariant, &release) {
            Some(text) => out.push(Block::Code("java", text)),
            None => out.push(Block::Para(format!("(None could be written for Apache Kafka {release}: `isrfuzz conform --kafka {release} --junit DIR FILE` says why.)"))),
        }
    }
    out.push(Block::Heading("Sources".into()));
    out.push(Block::Bullets(sources(family, inv)));
    out.push(Block::Heading("History".into()));
    out.push(Block::Para(
        "Save the JSON below as a file; `isrfuzz replay FILE` replays it (isrfuzz: a differential fuzzer of Kafka's replication rules).".into(),
    ));
    out.push(Block::Code("json", inert_json_text(&history.to_json())));
    out
}

/// The text of `blocks`, for the notation legend.
fn block_text(blocks: &[Block]) -> String {
    let mut out = String::new();
    for b in blocks {
        match b {
            Block::Para(t) | Block::Heading(t) => out.push_str(t),
            Block::Bullets(items) => out.push_str(&items.join(" ")),
            Block::Tree(items) => {
                for (i, children) in items {
                    out.push_str(i);
                    out.push_str(&children.join(" "));
                }
            }
            Block::Code(..) => {}
        }
        out.push(' ');
    }
    out
}

/// The title and the fields under it: the component, the affected versions per
/// consequence, the finder, the cluster's features.
fn head(
    history: &History,
    v: &Violation,
    family: Family,
    affected: &Affected,
    elr_dropped: bool,
) -> Vec<Block> {
    let versions: Vec<String> = (affected.consequences.iter())
        .map(|c| {
            let mark = if c.invariant == v.invariant && affected.consequences.len() > 1 {
                " (reported here)"
            } else {
                ""
            };
            format!(
                "{}{mark}: {}",
                capitalize(headline(&c.invariant)),
                c.versions
            )
        })
        .collect();
    let mut fields = vec![
        (format!("Component: {}", component(v.invariant, family, history)), vec![]),
        ("Affected versions, per consequence:".to_string(), versions),
        ("Found by: isrfuzz, a differential fuzzer of Kafka's replication rules (an executable model of the controller's and the brokers' rules, its controller checked against the real one release by release)".to_string(), vec![]),
    ];
    if history.eligible_leader_replicas {
        fields.push((
            "Cluster: eligible leader replicas (KIP-966) on".to_string(),
            vec![],
        ));
    } else if elr_dropped {
        fields.push((
            "Cluster: eligible leader replicas (KIP-966) off or on: the finding does not need them"
                .to_string(),
            vec![],
        ));
    }
    vec![Block::Heading(summary(history, v)), Block::Tree(fields)]
}

/// What happens, in words, and what else the history shows.
fn description(side: &SideRun, v: &Violation, inv: Option<&invariants::Invariant>) -> Vec<Block> {
    let mut out = vec![Block::Heading("Description".into())];
    let why = inv.map_or(String::new(), |i| plain::prose(i.rationale));
    out.push(Block::Para(format!(
        "{}. {why}",
        capitalize(plain::detail(&v.detail).trim_end_matches('.'))
    )));
    let others: Vec<String> = (side.violations.iter())
        .filter(|o| o.invariant != v.invariant)
        .map(|o| format!("{} ({})", headline(o.invariant), when(side, o.step)))
        .collect();
    if !others.is_empty() {
        out.push(Block::Para(format!(
            "The same history also shows: {}.",
            others.join("; ")
        )));
    }
    out
}

/// When a violation was seen: after a step (numbered from 0), or at the end.
fn when(side: &SideRun, step: usize) -> String {
    if step < side.steps.len() {
        format!("after step {step}")
    } else {
        "once every broker is back and healthy".to_string()
    }
}

/// Its title: what goes wrong, and under which trigger.
fn summary(history: &History, v: &Violation) -> String {
    let what = headline(v.invariant);
    let mut triggers: Vec<&str> = Vec::new();
    let ops: Vec<&str> = history.events.iter().map(|e| e.op()).collect();
    let count = |op: &str| ops.iter().filter(|o| **o == op).count();
    if count("reassign") >= 2 {
        triggers.push("after a reassignment is overridden");
    } else if count("reassign") == 1 {
        triggers.push("during a reassignment");
    }
    if count("cancel_reassignment") > 0 {
        triggers.push("and cancelled");
    }
    if count("switch_start") > 0 {
        triggers.push("on a topic switched to diskless");
    }
    if count("alter_diskless_switch") > 0 {
        triggers.push("with an operator seal");
    }
    let unclean = history
        .events
        .iter()
        .any(|e| matches!(e, crate::model::Event::RestartBroker { unclean: true, .. }));
    if unclean {
        triggers.push("after an unclean restart");
    }
    let mut title = capitalize(what);
    if !triggers.is_empty() {
        title.push(' ');
        title.push_str(&triggers.join(" "));
    }
    title
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    c.next().map_or(String::new(), |f| {
        f.to_uppercase().collect::<String>() + c.as_str()
    })
}

/// The family a finding is about: the one whose rules differ from `complete`, else (a
/// hole of `complete` itself) Inkless when the history uses Inkless events.
fn family_of(rules: &RuleSet, history: &History) -> Family {
    let differs = |family: Family| {
        responsible_variants(rules).iter().any(|v| {
            let id = v.split('=').next().unwrap_or_default();
            RULES.iter().any(|r| r.id == id && r.family == family)
        })
    };
    if differs(Family::Kraft) {
        Family::Kraft
    } else if differs(Family::Inkless) || history.events.iter().any(inkless_event) {
        Family::Inkless
    } else {
        Family::Kraft
    }
}

/// The component a finding is filed against: by the plane of the invariant it breaks (the
/// controller's registrations, the brokers' replication, the Inkless broker side), in
/// Inkless when the finding is the fork's.
fn component(invariant: &str, family: Family, history: &History) -> &'static str {
    let plane = invariants::by_id(invariant).map_or(Plane::Control, |i| i.plane);
    let inkless = family == Family::Inkless || history.events.iter().any(inkless_event);
    match (plane, inkless) {
        (Plane::Control, false) => "controller (KRaft: ReplicationControlManager, PartitionChangeBuilder)",
        (Plane::Control, true) => "Inkless diskless topics (aiven/inkless): controller (ReplicationControlManager)",
        (Plane::Data, false) => "broker (replication: Partition, ReplicaFetcherThread, UnifiedLog)",
        (Plane::Data, true) => "Inkless diskless topics (aiven/inkless): broker (replication: Partition, ReplicaManager, ReplicaFetcherThread)",
        (Plane::Inkless, _) => "Inkless diskless topics (aiven/inkless): broker (Partition, ReplicaManager, the consolidation fetcher)",
    }
}

fn partition_text(side: &SideRun, step: usize) -> String {
    let Some(r) = side.steps.get(step.min(side.steps.len().saturating_sub(1))) else {
        return String::new();
    };
    let parts: Vec<String> = r
        .state
        .partitions
        .iter()
        .enumerate()
        .map(|(i, p)| {
            format!(
                "partition {i} has replicas {:?}, ISR {:?}, adding {:?}, removing {:?}, {}",
                p.replicas.to_vec(),
                p.isr.to_vec(),
                p.adding_replicas.to_vec(),
                p.removing_replicas.to_vec(),
                if p.leader < 0 {
                    "no leader".to_string()
                } else {
                    format!("leader {}", p.leader)
                }
            )
        })
        .collect();
    parts.join("; ")
}

fn expected_text(v: &Violation, inv: Option<&invariants::Invariant>, fixed: &SideRun) -> String {
    let rule = inv.map_or(String::new(), |i| {
        format!("{}.", capitalize(&plain::prose(i.statement)))
    });
    if fixed.violates(v.invariant) {
        return rule;
    }
    let at = v.step.min(fixed.steps.len().saturating_sub(1));
    format!(
        "{rule} With the suggested fix, {}, {}.",
        when(fixed, at),
        partition_text(fixed, v.step)
    )
}

fn actual_text(side: &SideRun, v: &Violation) -> String {
    format!(
        "{}: {}. Then {}.",
        capitalize(&when(side, v.step)),
        plain::detail(&v.detail),
        partition_text(side, v.step)
    )
}

/// The rules (indices into `RULES`) whose fix alone removes the violation from this
/// history; when none does alone, every rule of the finding's family that differs from
/// `complete`.
fn culprits(history: &History, rules: &RuleSet, invariant: &str) -> Vec<usize> {
    let complete = RuleSet::complete();
    let differ: Vec<usize> = (0..RULES.len())
        .filter(|&i| (RULES[i].get)(rules) != (RULES[i].get)(&complete))
        .collect();
    if history.events.len() > SEARCH_EVENTS_MAX {
        return differ;
    }
    let alone: Vec<usize> = differ
        .iter()
        .copied()
        .filter(|&i| {
            let mut fixed = *rules;
            (RULES[i].set)(&mut fixed, (RULES[i].get)(&complete));
            !oracle::run(history, &[fixed], false).sides[0].violates(invariant)
        })
        .collect();
    if !alone.is_empty() {
        return alone;
    }
    let family = family_of(rules, history);
    differ
        .into_iter()
        .filter(|&i| RULES[i].family == family)
        .collect()
}

/// A provenance as a ticket cites it: its upstream part, commits linked; a rule broken on
/// purpose said so.
fn cited(provenance: &str, family: Family) -> String {
    if provenance.starts_with("planted bug") {
        return "none: a rule broken on purpose, to test the checks".into();
    }
    let repo = match family {
        Family::Kraft => "apache/kafka",
        Family::Inkless => "aiven/inkless",
    };
    let text = upstream(provenance);
    if text.starts_with("none (") {
        return "no upstream commit yet".into();
    }
    balanced(&plain::linked(&plain::prose(&text), repo))
}

/// `text` without the closing parentheses nothing opened (a provenance cut at a `;`).
fn balanced(text: &str) -> String {
    let mut depth = 0usize;
    let mut out = String::new();
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => continue,
            ')' => depth -= 1,
            _ => {}
        }
        out.push(c);
    }
    out
}

/// Per culprit rule: the variant in use and the one that holds, in words.
fn fix_lines(rules: &RuleSet, culprits: &[usize], fixed: &SideRun) -> Vec<String> {
    let complete = RuleSet::complete();
    let mut out: Vec<String> = (culprits.iter().map(|&i| &RULES[i]))
        .map(|r| {
            let now = r.variant_of(rules);
            let fix = r.variant_of(&complete);
            format!(
                "{}: here, {} (source: {}); the fix: {} (source: {}).",
                capitalize(&plain::prose(r.summary)),
                plain::prose(now.summary),
                cited(now.provenance, r.family),
                plain::prose(fix.summary),
                cited(fix.provenance, r.family)
            )
        })
        .collect();
    if culprits.is_empty() {
        out.push(
            "None known yet: the history breaks it with every rule this tool models at its fix."
                .into(),
        );
    } else if fixed.violations.is_empty() {
        out.push("With every rule at its fix, this history breaks nothing.".into());
    }
    out
}

/// The reproducer, or why none is generated (one line).
fn reproducer(history: &History, v: &Violation, family: Family, affected: &Affected) -> String {
    if family == Family::Inkless || history.events.iter().any(inkless_event) {
        return "None generated: JUnit reproducers run against Apache Kafka's released controller, which has no diskless topics, and no Inkless build is published; the script above and the attached history are the reproduction.".into();
    }
    if !invariants::is_control_plane(v.invariant) {
        return "None generated: JUnit reproducers drive the real controller, and this is a property of the brokers' replication, which no real broker has judged yet; the script above and the attached history are the reproduction.".into();
    }
    if !invariants::JUNIT_ASSERTED.contains(&v.invariant) {
        return "None generated: the JUnit reproducers cannot assert this property yet; the script above and the attached history are the reproduction.".into();
    }
    if affected.first.is_none() {
        return "None generated: a JUnit reproducer is written for a release whose controller shows the violation, and no Apache Kafka release does.".into();
    }
    "A test method for Apache Kafka's ReplicationControlManagerTest (metadata/src/test/java/org/apache/kafka/controller/ReplicationControlManagerTest.java), on that class's own test context: it replays the requests above on the real ReplicationControlManager and asserts the violated property, without conditions, after the step. It fails on each release that shows the violation and passes on the others.".into()
}

/// The release a JUnit reproducer is generated for, when one is.
fn junit_release(
    history: &History,
    v: &Violation,
    family: Family,
    affected: &Affected,
) -> Option<String> {
    let kraft = family == Family::Kraft && !history.events.iter().any(inkless_event);
    let asserted = invariants::JUNIT_ASSERTED.contains(&v.invariant);
    (kraft && asserted)
        .then(|| affected.first.clone())
        .flatten()
}

/// An event no Apache Kafka controller has: the Inkless switch and seal, a diskless or
/// remote-storage topic.
fn inkless_event(e: &crate::model::Event) -> bool {
    use crate::model::Event;
    match e {
        Event::SwitchStart { .. }
        | Event::SealCommit { .. }
        | Event::AlterDisklessSwitch { .. } => true,
        Event::CreatePartition {
            diskless,
            remote_storage,
            ..
        } => *diskless || *remote_storage,
        _ => false,
    }
}

/// The reported property's upstream source, and where the code is.
fn sources(family: Family, inv: Option<&invariants::Invariant>) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(i) = inv {
        let repo = if i.plane == Plane::Inkless {
            "aiven/inkless"
        } else {
            "apache/kafka"
        };
        let source = plain::linked(&plain::prose(&upstream(i.source)), repo);
        out.push(format!(
            "{}: {source}",
            capitalize(i.headline.unwrap_or(i.id))
        ));
    }
    let mut code =
        "Code: https://github.com/apache/kafka/tree/d79bd502ec (apache/kafka trunk, as read)"
            .to_string();
    if family == Family::Inkless {
        code.push_str(
            ", https://github.com/aiven/inkless/tree/5f22fac12b (aiven/inkless PR #756 head)",
        );
    }
    out.push(code);
    out
}
