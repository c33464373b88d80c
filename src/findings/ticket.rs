//! `replay --report jira|md`: a finding as the ticket a committer reads, written the way
//! KAFKA-21419 itself is: a summary in words, affected versions, steps an operator runs
//! with what to check after each, expected against actual, the suggested fix (the rule
//! variant that holds), a reproducer to run, the history itself, and upstream sources.
//!
//! Only the rule set under report appears; `complete` only as "with the fix". The
//! ticket is built once as blocks and rendered as GitHub Markdown or JIRA wiki markup.

use crate::check::history::History;
use crate::check::invariants;
use crate::check::oracle::{self, SideRun, Verdict, Violation};
use crate::findings::affected::{affected, SEARCH_EVENTS_MAX};
use crate::findings::attribution::responsible_variants;
pub use crate::findings::markup::Format;
use crate::findings::markup::{render, upstream, without_repo_paths, Block};
use crate::findings::operator;
use crate::findings::report::step_table;
use crate::rules::{Family, RuleSet, RULES};

/// What breaking invariant `id` looks like to an operator (the list's headline).
fn headline(id: &str) -> &'static str {
    invariants::by_id(id)
        .and_then(|i| i.headline)
        .unwrap_or("an invariant is violated")
}

/// The ticket for the violation `history` shows under the rule set `verdict`'s first
/// violating side names (the file's own finding when its description names one).
pub fn ticket(file: &str, history: &History, verdict: &Verdict, format: Format) -> String {
    let Some((side, v)) = reported(history, verdict) else {
        return format!(
            "{file}: no violation to report under {}\n",
            rule_names(verdict)
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
    let blocks = blocks(&history, side, v, with_fix, elr_dropped);
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

fn rule_names(verdict: &Verdict) -> String {
    let names: Vec<String> = verdict.sides.iter().map(|s| s.rules.to_string()).collect();
    names.join(":")
}

fn blocks(
    history: &History,
    side: &SideRun,
    v: &Violation,
    fixed: &SideRun,
    elr_dropped: bool,
) -> Vec<Block> {
    let inv = invariants::by_id(v.invariant);
    let family = family_of(&side.rules, history);
    let (mut out, release) = head(history, side, v, family, elr_dropped);
    out.extend(description(side, v, inv));
    out.push(Block::Heading("Steps to reproduce".into()));
    let mut pre = operator::preamble(history);
    pre = pre
        .lines()
        .map(|l| l.trim_start_matches("# "))
        .collect::<Vec<_>>()
        .join(" ");
    out.push(Block::Para(pre));
    let steps = operator::steps(history, side);
    out.push(Block::Steps(
        steps.into_iter().map(|s| (s.action, s.check)).collect(),
    ));
    out.push(Block::Heading("Expected".into()));
    out.push(Block::Para(expected_text(v, inv, fixed)));
    out.push(Block::Heading("Actual".into()));
    out.push(Block::Para(actual_text(side, v)));
    out.push(Block::Heading("Suggested fix".into()));
    let culprits = culprits(history, &side.rules, v.invariant);
    out.push(Block::Bullets(fix_lines(&side.rules, &culprits, fixed)));
    out.push(Block::Heading("Reproducer".into()));
    out.extend(reproducer(history, side, family, &release));
    out.push(Block::Heading("History".into()));
    out.push(Block::Para(
        "Replay it with `isrfuzz replay FILE` (isrfuzz: a differential fuzzer for Kafka's replication rules); the file:".into(),
    ));
    out.push(Block::Code("json", history.to_json()));
    out.push(Block::Heading("Sources".into()));
    out.push(Block::Bullets(sources(&side.rules, &culprits, inv)));
    out
}

/// The title and the fields under it; and the first affected release (for the reproducer).
fn head(
    history: &History,
    side: &SideRun,
    v: &Violation,
    family: Family,
    elr_dropped: bool,
) -> (Vec<Block>, String) {
    let mut out = vec![Block::Heading(summary(history, v))];
    let (affected_line, first) = affected(history, side, v.invariant, family);
    let mut fields = vec![
        format!("Component: {}", component(family)),
        format!("Affected versions: {affected_line}"),
        format!(
            "Found by: isrfuzz, rule set `{}`, invariant {}{}",
            side.rules,
            v.invariant,
            if elr_dropped {
                " (ELR off: the finding does not need it)"
            } else {
                ""
            }
        ),
    ];
    if history.eligible_leader_replicas {
        fields.push("Cluster: eligible leader replicas (KIP-966) on".to_string());
    }
    let release = first.unwrap_or_else(|| "4.4".to_string());
    out.push(Block::Bullets(fields));
    (out, release)
}

/// What happens, in words, and what else the history shows.
fn description(side: &SideRun, v: &Violation, inv: Option<&invariants::Invariant>) -> Vec<Block> {
    let mut out = vec![Block::Heading("Description".into())];
    out.push(Block::Para(format!(
        "{}. {}",
        v.detail.trim_end_matches('.'),
        without_repo_paths(inv.map_or("", |i| i.rationale))
    )));
    let others: Vec<String> = side
        .violations
        .iter()
        .filter(|o| o.invariant != v.invariant)
        .map(|o| {
            format!(
                "{} ({}) at step {}",
                o.invariant,
                headline(o.invariant),
                o.step + 1
            )
        })
        .collect();
    if !others.is_empty() {
        out.push(Block::Para(format!(
            "The same history also shows: {}.",
            others.join("; ")
        )));
    }
    out
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

fn component(family: Family) -> &'static str {
    match family {
        Family::Kraft => "controller (KRaft: ReplicationControlManager, PartitionChangeBuilder)",
        Family::Inkless => "Inkless diskless topics (aiven/inkless)",
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
                "partition {i}: replicas {:?}, ISR {:?}, adding {:?}, removing {:?}, leader {}",
                p.replicas.to_vec(),
                p.isr.to_vec(),
                p.adding_replicas.to_vec(),
                p.removing_replicas.to_vec(),
                p.leader
            )
        })
        .collect();
    parts.join("; ")
}

fn expected_text(v: &Violation, inv: Option<&invariants::Invariant>, fixed: &SideRun) -> String {
    let rule = inv.map_or(String::new(), |i| {
        format!("{} ({}: {}).", capitalize(i.statement), i.id, i.kind.name())
    });
    let with_fix = if fixed.violates(v.invariant) {
        String::new()
    } else {
        format!(
            " With the fix (isrfuzz's `complete` rules), after step {}: {}.",
            v.step.min(fixed.steps.len().saturating_sub(1)) + 1,
            partition_text(fixed, v.step)
        )
    };
    format!("{rule}{with_fix}")
}

fn actual_text(side: &SideRun, v: &Violation) -> String {
    let when = if v.step < side.steps.len() {
        format!("After step {}", v.step + 1)
    } else {
        "Once every broker is back and healthy".to_string()
    };
    format!("{when}: {}. {}.", v.detail, partition_text(side, v.step))
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

/// Per culprit rule: the variant in use and the one that holds.
fn fix_lines(rules: &RuleSet, culprits: &[usize], fixed: &SideRun) -> Vec<String> {
    let complete = RuleSet::complete();
    let mut out: Vec<String> = culprits
        .iter()
        .map(|&i| &RULES[i])
        .map(|r| {
            let now = r.variant_of(rules);
            let fix = r.variant_of(&complete);
            format!(
                "Rule `{}`: `{}` ({}) → `{}` ({}); upstream of the fix: {}",
                r.id,
                now.name,
                now.summary,
                fix.name,
                fix.summary,
                upstream(fix.provenance)
            )
        })
        .collect();
    if culprits.is_empty() {
        out.push("None known: the violation holds under isrfuzz's most complete rules too (`complete`), a hole no variant fixes yet.".into());
    } else if fixed.violations.is_empty() {
        out.push(
            "With every rule at its fix (isrfuzz's `complete`), this history violates nothing."
                .into(),
        );
    }
    out
}

fn reproducer(history: &History, side: &SideRun, family: Family, release: &str) -> Vec<Block> {
    if family == Family::Inkless || history.events.iter().any(inkless_event) {
        return vec![
            Block::Para(
                "No Inkless jar is published, so no JUnit test is emitted: extend aiven/inkless's ReplicationControlManagerInklessTest (metadata) or ReplicaManagerInklessTest (core) with the steps of this table:".into(),
            ),
            Block::Code("text", step_table(history, side)),
        ];
    }
    vec![
        Block::Para(
            "A JUnit 5 test against the real ReplicationControlManager, asserting the violated property at the step (it fails on each affected release, passes on the others):".into(),
        ),
        Block::Code(
            "sh",
            format!("isrfuzz conform --kafka {release} --junit repro/ FILE\ncp repro/*.java conformance/src/test/java/org/apache/kafka/controller/\nmvn -f conformance/pom.xml -Dkafka.version=VERSION test -Dtest='*ReproTest'   # VERSION: the release conform names\n"),
        ),
    ]
}

/// An event no Apache Kafka controller has: the Inkless switch and seal, a diskless create.
fn inkless_event(e: &crate::model::Event) -> bool {
    use crate::model::Event;
    match e {
        Event::SwitchStart { .. }
        | Event::SealCommit { .. }
        | Event::AlterDisklessSwitch { .. } => true,
        Event::CreatePartition { diskless, .. } => *diskless,
        _ => false,
    }
}

fn sources(
    rules: &RuleSet,
    culprits: &[usize],
    inv: Option<&invariants::Invariant>,
) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(i) = inv {
        out.push(format!("{}: {}", i.id, upstream(i.source)));
    }
    for r in culprits.iter().map(|&i| &RULES[i]) {
        let v = r.variant_of(rules);
        out.push(format!("`{}={}`: {}", r.id, v.name, upstream(v.provenance)));
    }
    out.push(
        "Code links: https://github.com/apache/kafka/tree/d79bd502ec (apache trunk), https://github.com/aiven/inkless/tree/5f22fac12b (#756 head)".into(),
    );
    out
}
