//! `replay --svg`: a counterexample as a timeline. One panel per side, side by side;
//! in each, brokers are lanes and steps are columns. A cell shows the broker's role in
//! partition 0 after the step (L leader, I in the ISR, + adding, - removing, r replica),
//! and for an Inkless partition (diskless or switched) its log end / high watermark; a
//! bottom lane shows the seal. Steps where an invariant is first violated are outlined in
//! red and labelled.

use crate::check::history::History;
use crate::check::oracle::{SideRun, Verdict};
use crate::model::{BrokerId, Cluster};
use std::fmt::Write;

const CELL_W: usize = 64;
const CELL_H: usize = 30;
const LEFT: usize = 70;
const TOP: usize = 60;
const GAP: usize = 40;

/// The SVG document for `history` judged as `verdict` (recorded).
pub fn timeline(history: &History, verdict: &Verdict) -> String {
    let steps = history.events.len();
    let panel_w = LEFT + CELL_W * steps.max(1);
    let lanes = history.brokers.len() + 1;
    let height = TOP + CELL_H * lanes + 60;
    let width = (panel_w + GAP) * verdict.sides.len();
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" font-family=\"monospace\" font-size=\"11\">\n"
    );
    for (k, side) in verdict.sides.iter().enumerate() {
        panel(&mut out, history, side, k * (panel_w + GAP));
    }
    out.push_str("</svg>\n");
    out
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn panel(out: &mut String, history: &History, side: &SideRun, x0: usize) {
    let _ = writeln!(
        out,
        "<g class=\"side\" data-rules=\"{0}\"><text x=\"{x0}\" y=\"16\" font-weight=\"bold\">{0}</text>",
        esc(&side.rules.to_string())
    );
    for (i, b) in history.brokers.iter().enumerate() {
        let y = TOP + i * CELL_H;
        let _ = writeln!(
            out,
            "<text class=\"lane\" x=\"{x0}\" y=\"{}\">broker {b}</text>",
            y + 19
        );
    }
    let seal_y = TOP + history.brokers.len() * CELL_H;
    let _ = writeln!(
        out,
        "<text class=\"lane\" x=\"{x0}\" y=\"{}\">seal</text>",
        seal_y + 19
    );
    for (s, (event, rec)) in history.events.iter().zip(&side.steps).enumerate() {
        let x = x0 + LEFT + s * CELL_W;
        let _ = writeln!(
            out,
            "<g class=\"step\" data-step=\"{s}\"><title>{}</title><text x=\"{x}\" y=\"{}\">{s}</text>",
            esc(&event.to_string()),
            TOP - 8
        );
        for (i, &b) in history.brokers.iter().enumerate() {
            cell(out, &rec.state, b, x, TOP + i * CELL_H);
        }
        let seal = rec.state.partitions.first().map_or(String::new(), |p| {
            if p.seal == -1 {
                String::new()
            } else {
                p.seal.to_string()
            }
        });
        let _ = writeln!(
            out,
            "<text class=\"seal\" x=\"{}\" y=\"{}\">{seal}</text></g>",
            x + 4,
            seal_y + 19
        );
    }
    for v in &side.violations {
        let s = v.step.min(history.events.len().saturating_sub(1));
        let x = x0 + LEFT + s * CELL_W;
        let h = CELL_H * (history.brokers.len() + 1);
        let _ = writeln!(
            out,
            "<rect class=\"violation\" data-invariant=\"{0}\" x=\"{x}\" y=\"{TOP}\" width=\"{CELL_W}\" height=\"{h}\" fill=\"none\" stroke=\"red\" stroke-width=\"3\"><title>{1}</title></rect><text x=\"{x}\" y=\"{2}\" fill=\"red\">{0}</text>",
            v.invariant,
            esc(&v.detail),
            TOP + h + 16
        );
    }
    out.push_str("</g>\n");
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
    let _ = writeln!(
        out,
        "<rect class=\"cell\" data-broker=\"{b}\" data-role=\"{role}\" x=\"{x}\" y=\"{y}\" width=\"{CELL_W}\" height=\"{CELL_H}\" fill=\"{fill}\" stroke=\"#a0aec0\"/><text x=\"{}\" y=\"{}\">{role}{log}</text>",
        x + 4,
        y + 19
    );
}
