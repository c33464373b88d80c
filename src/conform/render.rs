//! A disagreement as a person reads it: the steps up to it, the request, and the two
//! registrations side by side, differing rows marked.

use super::brokers;
use super::protocol::{encode, registration, Registration};
use super::replay::{Differed, Disagreement};
use crate::check::history::History;
use std::fmt::Write;

/// The step table and the side-by-side answer.
pub fn describe(history: &History, d: &Disagreement, model: &str, real: &str) -> String {
    let mut out = String::new();
    let elr = if history.eligible_leader_replicas {
        "on"
    } else {
        "off"
    };
    let _ = writeln!(out, "brokers {:?}, ELR {elr}", history.brokers);
    for (i, e) in history.events.iter().enumerate().take(d.step + 1) {
        let text = serde_json::to_string(e).unwrap_or_default();
        let mark = if i == d.step { "▶" } else { " " };
        let _ = writeln!(out, "{mark}{i:>3}  {text}");
    }
    let (request, model_answer, real_answer) = match &d.what {
        Differed::Controller {
            request,
            model,
            real,
        } => (request, model, real),
        Differed::Brokers { calls } => {
            for call in calls {
                let _ = writeln!(out, "  call: {}", brokers::encode(call));
            }
            for line in &d.differences {
                let _ = writeln!(out, "  ≠ {line}  ({model} vs {real})");
            }
            return out;
        }
    };
    let request = encode(request).map(|v| v.to_string()).unwrap_or_default();
    let _ = writeln!(out, "  request: {request}");
    let _ = writeln!(out, "  {:<26} {:<24} {}", "field", model, real);
    row(&mut out, "error", model_answer.error, &real_answer.error);
    if let Some(fault) = &real_answer.fault {
        row(&mut out, "fault", "-", fault);
    }
    let ours: Vec<Registration> = (model_answer.partitions.iter().enumerate())
        .map(|(i, p)| registration(i, p))
        .collect();
    for (a, b) in ours.iter().zip(&real_answer.partitions) {
        if a != b || ours.len() == 1 {
            partition_rows(&mut out, a, b);
        }
    }
    for line in d.differences.iter().filter(|l| {
        l.starts_with("broker") || l.starts_with("listed") || l.starts_with("partitions")
    }) {
        let _ = writeln!(out, "  ≠ {line}");
    }
    out
}

fn row(out: &mut String, name: &str, a: &str, b: &str) {
    let mark = if a == b { ' ' } else { '≠' };
    let _ = writeln!(out, "{mark} {name:<26} {a:<24} {b}");
}

fn partition_rows(out: &mut String, a: &Registration, b: &Registration) {
    let p = a.partition;
    let list = |v: &[i32]| format!("{v:?}");
    let fields: [(&str, String, String); 10] = [
        ("replicas", list(&a.replicas), list(&b.replicas)),
        ("isr", list(&a.isr), list(&b.isr)),
        ("adding", list(&a.adding), list(&b.adding)),
        ("removing", list(&a.removing), list(&b.removing)),
        ("leader", a.leader.to_string(), b.leader.to_string()),
        (
            "leader_epoch",
            a.leader_epoch.to_string(),
            b.leader_epoch.to_string(),
        ),
        (
            "partition_epoch",
            a.partition_epoch.to_string(),
            b.partition_epoch.to_string(),
        ),
        (
            "leader_recovery_state",
            a.leader_recovery_state.to_string(),
            b.leader_recovery_state.to_string(),
        ),
        ("elr", list(&a.elr), list(&b.elr)),
        (
            "last_known_elr",
            list(&a.last_known_elr),
            list(&b.last_known_elr),
        ),
    ];
    for (name, x, y) in fields {
        row(out, &format!("p{p}.{name}"), &x, &y);
    }
}
