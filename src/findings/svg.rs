//! `replay --svg`: a counterexample as a timeline. One panel per side, side by side;
//! in each, brokers are lanes and steps are columns. A cell shows the broker's role in
//! partition 0 after the step (L leader, I in the ISR, + adding, - removing, r replica),
//! and for an Inkless partition (diskless or switched) its log end / high watermark; a
//! bottom lane shows the seal. Each column is labelled with its event (rotated, shortened;
//! the full event is the column's tooltip). Steps where an invariant is first violated are
//! outlined in red and labelled, the labels of one step stacked. A cell whose ISR
//! membership changed during the step (a shrink or an expansion note: the step's trace
//! keeps only the end state, so a shrink-then-readmit shows only through its notes) gets
//! an orange corner mark. A legend under the panels says what each color and mark means.

use crate::check::history::History;
use crate::check::oracle::{SideRun, Verdict};
use crate::findings::svg_doc::{self, el, escape as esc};
use crate::model::{BrokerId, Cluster, Note, Outcome};
use std::fmt::Write;

const CELL_W: usize = 64;
const CELL_H: usize = 30;
const LEFT: usize = 70;
/// Room above the cells for the rotated event names and the step numbers.
const TOP: usize = 160;
const GAP: usize = 40;
/// An event name above its column is cut to this many characters (the tooltip has it all).
const EVENT_CHARS_MAX: usize = 16;
/// One line of violation labels under a column.
const LABEL_H: usize = 14;
/// The legend's rows under the panels.
const LEGEND: [(&str, &str, &str); 8] = [
    ("rect", "#2b6cb0", "L leader"),
    ("rect", "#bee3f8", "I in the ISR"),
    ("rect", "#c6f6d5", "+ being added (reassignment)"),
    ("rect", "#fed7d7", "- being removed (reassignment)"),
    ("rect", "#edf2f7", "r replica out of the ISR"),
    (
        "outline",
        "red",
        "first violation of the invariant named under the column",
    ),
    (
        "mark",
        "#dd6b20",
        "ISR membership changed during the step (shrink or expansion)",
    ),
    (
        "text",
        "",
        "n/m: log end / high watermark (Inkless); seal lane: the seal",
    ),
];
const LEGEND_ROW_H: usize = 18;

/// The SVG document for `history` judged as `verdict` (recorded).
pub fn timeline(history: &History, verdict: &Verdict) -> String {
    let steps = history.events.len();
    let panel_w = LEFT + CELL_W * steps.max(1);
    let lanes = history.brokers.len() + 1;
    let stacked = verdict
        .sides
        .iter()
        .map(|side| {
            labels_per_step(history, side)
                .into_iter()
                .max()
                .unwrap_or(0)
        })
        .max()
        .unwrap_or(0);
    let legend_y = TOP + CELL_H * lanes + 10 + LABEL_H * stacked + 20;
    let height = legend_y + LEGEND_ROW_H * LEGEND.len() + 10;
    let width = ((panel_w + GAP) * verdict.sides.len()).max(560);
    let mut out = svg_doc::open(width, height, "monospace");
    for (k, side) in verdict.sides.iter().enumerate() {
        panel(&mut out, history, side, k * (panel_w + GAP));
    }
    legend(&mut out, legend_y);
    out.push_str(svg_doc::CLOSE);
    out
}

/// The step a violation is drawn at (quiescence: the last column).
fn column_of(history: &History, step: usize) -> usize {
    step.min(history.events.len().saturating_sub(1))
}

/// Violation labels per column, to stack them and size the document.
fn labels_per_step(history: &History, side: &SideRun) -> Vec<usize> {
    let mut n = vec![0; history.events.len().max(1)];
    for v in &side.violations {
        n[column_of(history, v.step)] += 1;
    }
    n
}

fn legend(out: &mut String, y0: usize) {
    out.push_str("<g class=\"legend\">\n");
    for (i, (kind, color, text)) in LEGEND.iter().enumerate() {
        let y = y0 + i * LEGEND_ROW_H;
        let shape = match *kind {
            "rect" => el("rect")
                .attr("x", 0)
                .attr("y", y)
                .attr("width", 14)
                .attr("height", 12)
                .attr("fill", color)
                .attr("stroke", "#a0aec0")
                .empty(),
            "outline" => el("rect")
                .attr("x", 0)
                .attr("y", y)
                .attr("width", 14)
                .attr("height", 12)
                .attr("fill", "none")
                .attr("stroke", color)
                .attr("stroke-width", 2)
                .empty(),
            "mark" => el("path")
                .attr("d", corner(14, y))
                .attr("fill", color)
                .empty(),
            _ => String::new(),
        };
        let label = el("text").attr("x", 22).attr("y", y + 10).wrap(esc(text));
        let _ = writeln!(out, "{shape}{label}");
    }
    out.push_str("</g>\n");
}

/// A small triangle in the top-right corner of a cell whose right edge is at `x_right`.
fn corner(x_right: usize, y: usize) -> String {
    format!("M{} {y} L{x_right} {y} L{x_right} {} Z", x_right - 9, y + 9)
}

fn panel(out: &mut String, history: &History, side: &SideRun, x0: usize) {
    let rules = esc(&side.rules.to_string());
    let _ = writeln!(
        out,
        "{}{}",
        el("g")
            .attr("class", "side")
            .attr("data-rules", &rules)
            .open(),
        el("text")
            .attr("x", x0)
            .attr("y", 16)
            .attr("font-weight", "bold")
            .wrap(&rules)
    );
    for (i, b) in history.brokers.iter().enumerate() {
        let y = TOP + i * CELL_H;
        let lane = el("text")
            .attr("class", "lane")
            .attr("x", x0)
            .attr("y", y + 19);
        let _ = writeln!(out, "{}", lane.wrap(format_args!("broker {b}")));
    }
    let seal_y = TOP + history.brokers.len() * CELL_H;
    let lane = el("text")
        .attr("class", "lane")
        .attr("x", x0)
        .attr("y", seal_y + 19);
    let _ = writeln!(out, "{}", lane.wrap("seal"));
    for (s, (event, rec)) in history.events.iter().zip(&side.steps).enumerate() {
        let x = x0 + LEFT + s * CELL_W;
        column_head(out, s, &event.to_string(), x);
        let changed = isr_changed(&rec.outcome);
        for (i, &b) in history.brokers.iter().enumerate() {
            let y = TOP + i * CELL_H;
            cell(out, &rec.state, b, x, y);
            if changed.contains(&b) {
                let title = el("title").wrap(format_args!(
                    "broker {b}: the ISR changed during this step (shrink or expansion)"
                ));
                let mark = el("path")
                    .attr("class", "transient")
                    .attr("data-broker", b)
                    .attr("d", corner(x + CELL_W, y))
                    .attr("fill", "#dd6b20");
                let _ = writeln!(out, "{}", mark.wrap(title));
            }
        }
        let seal = rec.state.partitions.first().map_or(String::new(), |p| {
            if p.seal == -1 {
                String::new()
            } else {
                p.seal.to_string()
            }
        });
        let seal = el("text")
            .attr("class", "seal")
            .attr("x", x + 4)
            .attr("y", seal_y + 19)
            .wrap(seal);
        let _ = writeln!(out, "{seal}</g>");
    }
    violations(out, history, side, x0);
    out.push_str("</g>\n");
}

/// A column's opening: its group, the full event as tooltip, the step number, and the
/// event's name rotated above it (cut to `EVENT_CHARS_MAX`).
fn column_head(out: &mut String, s: usize, event: &str, x: usize) {
    let short: String = if event.chars().count() > EVENT_CHARS_MAX {
        event
            .chars()
            .take(EVENT_CHARS_MAX - 1)
            .chain(['…'])
            .collect()
    } else {
        event.to_string()
    };
    let (ex, ey) = (x + CELL_W / 2 + 4, TOP - 22);
    let _ = writeln!(
        out,
        "{}{}{}{}",
        el("g").attr("class", "step").attr("data-step", s).open(),
        el("title").wrap(esc(event)),
        el("text").attr("x", x).attr("y", TOP - 8).wrap(s),
        el("text")
            .attr("class", "event")
            .attr("x", ex)
            .attr("y", ey)
            .attr("transform", format_args!("rotate(-90 {ex} {ey})"))
            .wrap(esc(&short))
    );
}

/// Brokers whose ISR membership in partition 0 changed during the step, by its notes (the
/// trace keeps only the end state).
fn isr_changed(outcome: &Outcome) -> Vec<BrokerId> {
    let Outcome::Accepted { notes, .. } = outcome else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for n in notes {
        match n {
            Note::Shrink {
                partition: 0,
                removed,
                ..
            } => out.extend(removed.iter().map(|(b, _)| *b)),
            Note::Expand {
                partition: 0,
                follower,
            } => out.push(*follower),
            _ => {}
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// The red outlines and their labels, the labels of one column stacked.
fn violations(out: &mut String, history: &History, side: &SideRun, x0: usize) {
    let h = CELL_H * (history.brokers.len() + 1);
    let mut stacked = vec![0usize; history.events.len().max(1)];
    for v in &side.violations {
        let s = column_of(history, v.step);
        let x = x0 + LEFT + s * CELL_W;
        let y = TOP + h + 16 + LABEL_H * stacked[s];
        stacked[s] += 1;
        let outline = el("rect")
            .attr("class", "violation")
            .attr("data-invariant", v.invariant)
            .attr("x", x)
            .attr("y", TOP)
            .attr("width", CELL_W)
            .attr("height", h)
            .attr("fill", "none")
            .attr("stroke", "red")
            .attr("stroke-width", 3)
            .wrap(el("title").wrap(esc(&v.detail)));
        let label = el("text")
            .attr("class", "violation-label")
            .attr("x", x)
            .attr("y", y)
            .attr("fill", "red")
            .wrap(v.invariant);
        let _ = writeln!(out, "{outline}{label}");
    }
}

/// One broker at one step: its role in partition 0 and, for Inkless, LEO/HW.
fn cell(out: &mut String, c: &Cluster, b: BrokerId, x: usize, y: usize) {
    let Some(p) = c.partitions.first() else {
        return;
    };
    let (role, fill) = if p.leader == b {
        ("L", "#2b6cb0")
    } else if p.adding_replicas.contains(&b) {
        ("+", "#c6f6d5")
    } else if p.removing_replicas.contains(&b) {
        ("-", "#fed7d7")
    } else if p.isr.contains(&b) {
        ("I", "#bee3f8")
    } else if p.replicas.contains(&b) {
        ("r", "#edf2f7")
    } else {
        ("", "#ffffff")
    };
    let role = if p.isr.contains(&b) && role != "I" && role != "L" {
        format!("{role}I")
    } else {
        role.to_string()
    };
    let inkless = p.diskless || p.seal != -1;
    let log = c
        .runtime
        .partitions
        .first()
        .and_then(|rt| rt.local(b))
        .filter(|_| inkless)
        .map_or(String::new(), |l| format!(" {}/{}", l.leo(), l.hw));
    let rect = el("rect")
        .attr("class", "cell")
        .attr("data-broker", b)
        .attr("data-role", &role)
        .attr("x", x)
        .attr("y", y)
        .attr("width", CELL_W)
        .attr("height", CELL_H)
        .attr("fill", fill)
        .attr("stroke", "#a0aec0")
        .empty();
    let text = el("text")
        .attr("x", x + 4)
        .attr("y", y + 19)
        .wrap(format_args!("{role}{log}"));
    let _ = writeln!(out, "{rect}{text}");
}
