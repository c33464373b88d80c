//! What the cluster judge found per history, as a line of text or a JSON object: one of
//! confirmed (with seconds), not confirmed (the step and what the cluster showed), not
//! expressible in-process (the event). A history's consequences (its violations, each
//! `invariant@step`) are reported one by one, since a release may show one and not
//! another (KAFKA-21419 on 4.2: the listing's gap, not the unsafe completion).

use crate::error::inert;
use serde_json::{json, Value};

/// One violation the plan's side claims, and whether the cluster showed it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Consequence {
    pub invariant: String,
    pub step: usize,
    pub confirmed: bool,
    /// The invariant is judged on what describeTopics and the listing show (not, say, an
    /// exception inside the controller or a partition epoch, which no client sees).
    pub observable: bool,
}

/// The verdict on one history.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// Every check of the plan was seen; every consequence with it.
    Confirmed,
    /// The cluster did not show what the plan waits for at `step`: `expected` is the
    /// plan's line, `shown` what the cluster showed at the deadline.
    NotConfirmed {
        step: usize,
        expected: String,
        shown: String,
    },
    /// The plan holds an event no in-process cluster performs (the first, and how many);
    /// nothing was run.
    NotExpressible { event: String, count: usize },
}

/// One history's result.
#[derive(Clone, Debug, PartialEq)]
pub struct HistoryResult {
    pub file: String,
    pub verdict: Verdict,
    pub consequences: Vec<Consequence>,
    /// Wall time of the history on the cluster (0 when nothing ran).
    pub seconds: f64,
    /// The records at the end (`None`: none was produced, or the read-back did not run).
    pub records: Option<Records>,
}

/// The records of a history: acknowledged with acks=all, read back from each partition's
/// start to its end, and the end offsets' sum (what the leaders hold).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Records {
    pub acknowledged: u64,
    pub read: u64,
    pub end: u64,
}

impl HistoryResult {
    pub fn label(&self) -> &'static str {
        match self.verdict {
            Verdict::Confirmed => "confirmed",
            Verdict::NotConfirmed { .. } => "not confirmed",
            Verdict::NotExpressible { .. } => "not expressible in-process",
        }
    }

    /// One line (file names and cluster text inert).
    pub fn line(&self) -> String {
        let file = inert(&self.file);
        let what = match &self.verdict {
            Verdict::Confirmed => format!("confirmed in {:.1} s", self.seconds),
            // No expectation: nothing the cluster shows could confirm it (said in `shown`).
            Verdict::NotConfirmed {
                step,
                expected,
                shown,
            } if expected.is_empty() => format!(
                "not confirmed at step {step} ({:.1} s): {}",
                self.seconds,
                inert(shown)
            ),
            Verdict::NotConfirmed {
                step,
                expected,
                shown,
            } => format!(
                "not confirmed at step {step} ({:.1} s): expected `{}`, the cluster showed `{}`",
                self.seconds,
                inert(expected),
                inert(shown)
            ),
            Verdict::NotExpressible { event, count } => {
                let more = if *count > 1 {
                    format!(" (and {} more such steps)", count - 1)
                } else {
                    String::new()
                };
                format!("not expressible in-process: {}{more}", inert(event))
            }
        };
        let mut out = format!("{file}: {what}");
        if !self.consequences.is_empty() && !matches!(self.verdict, Verdict::NotExpressible { .. })
        {
            let each: Vec<String> = (self.consequences.iter())
                .map(|c| {
                    let mark = if c.confirmed {
                        "confirmed"
                    } else {
                        "not confirmed"
                    };
                    format!("{}@{} {mark}", c.invariant, c.step)
                })
                .collect();
            out.push_str(&format!("; {}", each.join(", ")));
        }
        if let Some(r) = self.records {
            out.push_str(&format!(
                "; records acknowledged {}, read back {} (end offsets {})",
                r.acknowledged, r.read, r.end
            ));
        }
        out
    }

    pub fn json(&self) -> Value {
        let mut v = json!({
            "file": self.file,
            "verdict": self.label(),
            "seconds": (self.seconds * 10.0).round() / 10.0,
            "consequences": self.consequences.iter().map(|c| json!({
                "invariant": c.invariant, "step": c.step, "confirmed": c.confirmed,
                "observable": c.observable,
            })).collect::<Vec<_>>(),
        });
        match &self.verdict {
            Verdict::Confirmed => {}
            Verdict::NotConfirmed {
                step,
                expected,
                shown,
            } => {
                v["step"] = json!(step);
                v["expected"] = json!(expected);
                v["shown"] = json!(shown);
            }
            Verdict::NotExpressible { event, count } => {
                v["event"] = json!(event);
                v["events"] = json!(count);
            }
        }
        if let Some(r) = self.records {
            v["records_acknowledged"] = json!(r.acknowledged);
            v["records_read"] = json!(r.read);
            v["records_end"] = json!(r.end);
        }
        v
    }
}

/// The run's totals: how many histories got each verdict.
pub fn tally(results: &[HistoryResult]) -> [usize; 3] {
    let mut t = [0; 3];
    for r in results {
        t[match r.verdict {
            Verdict::Confirmed => 0,
            Verdict::NotConfirmed { .. } => 1,
            Verdict::NotExpressible { .. } => 2,
        }] += 1;
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(verdict: Verdict) -> HistoryResult {
        HistoryResult {
            file: "a\u{1b}[2J.json".into(),
            verdict,
            consequences: vec![
                Consequence {
                    invariant: "G2".into(),
                    step: 2,
                    confirmed: true,
                    observable: true,
                },
                Consequence {
                    invariant: "G5".into(),
                    step: 3,
                    confirmed: false,
                    observable: true,
                },
            ],
            seconds: 71.04,
            records: None,
        }
    }

    #[test]
    fn each_verdict_is_one_inert_line_naming_its_consequences() {
        let r = result(Verdict::NotConfirmed {
            step: 3,
            expected: "Leader: 1 Replicas: 1,2,4,5 Isr: 1,2,5".into(),
            shown: "Leader: 1 Replicas: 1,2,4,5,3 Isr: 1,2,3,5 Adding Replicas: 5\n".into(),
        });
        let line = r.line();
        assert!(!line.contains('\n') && !line.contains('\u{1b}'), "{line}");
        assert!(line.contains("not confirmed at step 3 (71.0 s)"), "{line}");
        assert!(
            line.contains("G2@2 confirmed, G5@3 not confirmed"),
            "{line}"
        );
        let j = r.json();
        assert_eq!(j["verdict"], "not confirmed");
        assert_eq!(j["step"], 3);
        assert_eq!(j["consequences"][1]["confirmed"], false);
        let n = result(Verdict::NotExpressible {
            event: "broker 2 losing power".into(),
            count: 2,
        });
        assert!(n
            .line()
            .ends_with("broker 2 losing power (and 1 more such steps)"));
        assert_eq!(n.json()["events"], 2);
        let c = result(Verdict::Confirmed);
        assert!(c.line().contains("confirmed in 71.0 s"));
        assert_eq!(tally(&[c, n, r]), [1, 1, 1]);
    }
}
