//! Rendering: the step table a Kafka engineer reads, the one-line verdict and the JSON
//! verdict. Formatting lives here only; the model and oracle never format on the hot path.

use crate::check::history::History;
use crate::check::oracle::{SideRun, StepRecord, Verdict};
use crate::model::event::Ids;
use crate::model::{Cluster, Event, Note, Outcome, Partition};
use serde_json::json;
use std::fmt::Write;

fn result_cell(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Rejected { error, .. } => error.name().to_string(),
        Outcome::Accepted {
            new_leader_elected: true,
            ..
        } => "ok NEW_LEADER_ELECTED".to_string(),
        Outcome::Accepted { effects, .. } if effects.iter().any(|e| e.completion.is_some()) => {
            "ok, completed".to_string()
        }
        Outcome::Accepted { .. } => "ok".to_string(),
    }
}

/// A partition's row; with ELR on, its ELR and last known ELR after the epochs.
fn partition_cells(i: usize, p: &Partition, elr: bool) -> String {
    let lists = if elr {
        format!(" elr={} lke={}", Ids(&p.elr), Ids(&p.last_known_elr))
    } else {
        String::new()
    };
    format!(
        "p{i} {:<13} {:<11} {:<9} {:<9} {:>3} {:>3} {:>3}{lists}",
        Ids(&p.replicas).to_string(),
        Ids(&p.isr).to_string(),
        Ids(&p.adding_replicas).to_string(),
        Ids(&p.removing_replicas).to_string(),
        p.leader,
        p.leader_epoch,
        p.partition_epoch
    )
}

/// The broker side of a partition, when there is one to show: the seal, the clock, and per
/// replica its log end / high watermark, fetcher (c classic, C consolidation), and on the
/// leader (`*`) the recorded offset and last caught-up time of each follower.
pub fn broker_cells(c: &Cluster, i: usize) -> Option<String> {
    let p = &c.partitions[i];
    let rt = c.runtime.partitions.get(i)?;
    let busy = p.diskless || c.runtime.now_ms > 0 || rt.locals.iter().any(|l| l.leo() > 0);
    if !busy {
        return None;
    }
    let mut cells = Vec::new();
    let kind = match (p.diskless, p.remote_storage) {
        (false, _) => "classic",
        (true, false) => "diskless",
        (true, true) => "consolidating",
    };
    cells.push(format!("{kind} seal={} t={}ms", p.seal, c.runtime.now_ms));
    for l in &rt.locals {
        let mut cell = format!(
            "{}{}: {}/{}",
            l.broker,
            if l.is_leader { "*" } else { "" },
            l.leo(),
            l.hw
        );
        if l.fetchers.classic.is_some() {
            cell.push_str(" c");
        }
        if l.fetchers.consolidation.is_some() {
            cell.push_str(" C");
        }
        if c.runtime.stalled.contains(&l.broker) {
            cell.push_str(" stalled");
        }
        if let Some(rec) = rt.leader.as_ref().and_then(|s| s.rec(l.broker)) {
            cell.push_str(&format!(" rec {}@{}", rec.leo, rec.last_caught_up_time_ms));
        }
        cells.push(cell);
    }
    Some(cells.join(" | "))
}

fn note_cell(note: &Note) -> String {
    match note {
        Note::Fetch { .. } | Note::OutOfRange { .. } | Note::FetchFailed { .. } => {
            fetch_note_cell(note).unwrap_or_default()
        }
        Note::Shrink {
            partition,
            leader,
            removed,
        } => {
            let list: Vec<String> = removed
                .iter()
                .map(|(r, rec)| format!("{r} (rec {rec})"))
                .collect();
            format!(
                "  isr-expiration on {leader}: p{partition} shrinks {}",
                list.join(", ")
            )
        }
        Note::Expand {
            partition,
            follower,
        } => format!("  p{partition} admits {follower} to the isr"),
        Note::Truncate {
            partition,
            follower,
            from,
            to,
        } => format!("  p{partition} follower {follower} truncates its log {from} → {to}"),
        Note::ControllerFault { broker, request } => format!(
            "  broker {broker}'s {request} throws in the controller (a failover; nothing written)"
        ),
        Note::Elided { repeats, over_cap } => format!(
            "  ({repeats} repeated notes not kept; {over_cap} over the cap of {} per step)",
            crate::model::broker::NOTES_MAX
        ),
    }
}

/// A fetch's answer and what the follower did with it (`None` for another note).
fn fetch_note_cell(note: &Note) -> Option<String> {
    let cell = match note {
        Note::Fetch {
            partition,
            follower,
            fetch_offset,
            records,
            hw,
            at_seal_branch,
        } => {
            let path = if *at_seal_branch {
                "at-seal"
            } else {
                "local log"
            };
            format!("  fetch p{partition} by {follower} at {fetch_offset}: {records} records, HW {hw} ({path})")
        }
        Note::OutOfRange {
            partition,
            follower,
            fetch_offset,
            to,
            unplaced_epoch,
        } => {
            let why = unplaced_epoch.map_or(String::new(), |e| {
                format!(" (the leader's epoch cache cannot place last fetched epoch {e})")
            });
            format!(
                "  fetch p{partition} by {follower} at {fetch_offset}: OFFSET_OUT_OF_RANGE{why}, fetches from {to} next"
            )
        }
        Note::FetchFailed {
            partition,
            follower,
            fetch_offset,
            log_end,
            consolidation,
        } => {
            let fetcher = if *consolidation {
                "consolidation fetch"
            } else {
                "fetch"
            };
            format!(
                "  {fetcher} p{partition} by {follower} at {fetch_offset}: log ends at {log_end}, partition marked failed"
            )
        }
        _ => return None,
    };
    Some(cell)
}

/// Notes shown per step in a step table (the step table of a long history stays readable
/// and its size bounded: at most `EVENTS_MAX` steps of this many lines each).
pub const TABLE_NOTES_MAX: usize = 32;

/// One side's step table. Rows show the partition the event addresses, plus every
/// partition the event changed; `!! G5` marks the first violation of an invariant.
pub fn step_table(history: &History, side: &SideRun) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "rules: {}", side.rules);
    if history.eligible_leader_replicas {
        let _ = writeln!(
            out,
            "cluster: eligible.leader.replicas.version=1 (ELR on); rows end with elr and lke (last known ELR)"
        );
    }
    let _ = writeln!(
        out,
        "{:>4}  {:<34} {:<24} {:<3}{:<13} {:<11} {:<9} {:<9} {:>3} {:>3} {:>3}  violations",
        "step", "event", "result", "", "replicas", "isr", "adding", "removing", "ldr", "le", "pe"
    );
    let mut prev: Option<&crate::model::Cluster> = None;
    for (step, (event, rec)) in history.events.iter().zip(&side.steps).enumerate() {
        step_rows(&mut out, side, step, event, rec, prev);
        prev = Some(&rec.state);
    }
    for v in &side.violations {
        let at = if v.step >= history.events.len() {
            "at quiescence".to_string()
        } else {
            format!("step {}", v.step)
        };
        let _ = writeln!(out, "  {} {at}: {}", v.invariant, v.detail);
    }
    out
}

/// The partitions a step shows: the one its event names, then every one it changed.
fn shown_partitions(event: &Event, state: &Cluster, prev: Option<&Cluster>) -> Vec<usize> {
    let mut shown: Vec<usize> = Vec::new();
    if let Some(p) = event.partition().filter(|&p| p < state.partitions.len()) {
        shown.push(p);
    }
    for (i, p) in state.partitions.iter().enumerate() {
        let changed = prev.is_none_or(|c| c.partitions.get(i) != Some(p));
        if changed && !shown.contains(&i) {
            shown.push(i);
        }
    }
    shown
}

/// The rows of one step: event, result and violation marks, then one row per partition
/// shown (with its brokers' line), then the broker side's notes.
fn step_rows(
    out: &mut String,
    side: &SideRun,
    step: usize,
    event: &Event,
    rec: &StepRecord,
    prev: Option<&Cluster>,
) {
    let shown = shown_partitions(event, &rec.state, prev);
    let marks: Vec<&str> = side
        .violations
        .iter()
        .filter(|v| v.step == step)
        .map(|v| v.invariant)
        .collect();
    let marks = if marks.is_empty() {
        String::new()
    } else {
        format!("!! {}", marks.join(" "))
    };
    let result = result_cell(&rec.outcome);
    if shown.is_empty() {
        let _ = writeln!(
            out,
            "{step:>4}  {:<34} {:<24} {marks}",
            event.to_string(),
            result
        );
    }
    for (k, &i) in shown.iter().enumerate() {
        let (ev, res, mk) = if k == 0 {
            (event.to_string(), result.as_str(), marks.as_str())
        } else {
            (String::new(), "", "")
        };
        let _ = writeln!(
            out,
            "{step:>4}  {ev:<34} {res:<24} {}  {mk}",
            partition_cells(i, &rec.state.partitions[i], rec.state.elr)
        );
        if let Some(line) = broker_cells(&rec.state, i) {
            let _ = writeln!(out, "{:>4}  {:<34} {:<24} {line}", "", "", "");
        }
    }
    let notes = rec.outcome.notes();
    let shown = notes.len().min(TABLE_NOTES_MAX);
    for note in &notes[..shown] {
        let _ = writeln!(out, "{:>4}  {:<34} {}", "", "", note_cell(note));
    }
    if notes.len() > shown {
        let last = notes.last().filter(|n| matches!(n, Note::Elided { .. }));
        let hidden = notes.len() - shown - usize::from(last.is_some());
        if hidden > 0 {
            let _ = writeln!(
                out,
                "{:>4}  {:<34}   ({hidden} more notes not shown)",
                "", ""
            );
        }
        if let Some(n) = last {
            let _ = writeln!(out, "{:>4}  {:<34} {}", "", "", note_cell(n));
        }
    }
}

/// `trunk violates G2@2 G5@3; transients-tracked holds; states differ from step 2`.
pub fn verdict_line(verdict: &Verdict) -> String {
    if let Some(bug) = &verdict.harness_bug {
        return format!("HARNESS BUG (model panicked): {bug}");
    }
    let mut parts: Vec<String> = verdict
        .sides
        .iter()
        .map(|s| {
            if s.violations.is_empty() {
                format!("{} holds", s.rules)
            } else {
                let list: Vec<String> = s
                    .violations
                    .iter()
                    .map(|v| format!("{}@{}", v.invariant, v.step))
                    .collect();
                format!("{} violates {}", s.rules, list.join(" "))
            }
        })
        .collect();
    if verdict.sides.len() > 1 {
        parts.push(match verdict.first_divergence {
            Some(step) => format!("states differ from step {step}"),
            None => "states never differ".to_string(),
        });
    }
    parts.join("; ")
}

pub fn verdict_json(file: &str, verdict: &Verdict) -> serde_json::Value {
    let sides: Vec<_> = verdict
        .sides
        .iter()
        .map(|s| {
            let violations: Vec<_> = s
                .violations
                .iter()
                .map(|v| json!({"invariant": v.invariant, "step": v.step, "detail": v.detail}))
                .collect();
            json!({"rules": s.rules.to_string(), "violations": violations})
        })
        .collect();
    json!({
        "file": file,
        "sides": sides,
        "first_divergent_step": verdict.first_divergence,
        "harness_bug": verdict.harness_bug,
    })
}
