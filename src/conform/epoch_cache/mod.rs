//! Conformance of the model's leader-epoch cache (`model::log::Log`) with Apache Kafka's
//! `LeaderEpochFileCache` (kafka-storage), driven in a JVM by
//! `org.apache.kafka.storage.internals.epoch.EpochCacheDriver` (line format:
//! conformance/EPOCH-CACHE.md).
//!
//! A sequence is a list of model-level operations on one replica's log ([`Op`]). Each is
//! applied to a [`Log`] and translated into the one cache call `UnifiedLog` makes for it
//! ([`Mapping::UnifiedLog`]), or into the cache call of the same name without UnifiedLog's
//! guards ([`Mapping::Direct`], to show what those guards change). The translation keeps
//! its own log start and log end offsets ([`Offsets`]), as `UnifiedLog` does beside the
//! cache, so the real cache's `endOffsetFor` gets the log end without asking the model.
//! After every operation both sides report the entries, the latest epoch and a query's
//! answer; the first difference in a sequence is its disagreement (later steps depend on it).
//!
//! Nothing here runs in `cargo test` except the Java-free unit tests; the JVM is started
//! only by [`jvm::run`].

pub mod jvm;

use crate::model::log::{Log, UNDEFINED_EPOCH};
use crate::search::rng::Rng;
use serde::Serialize;
use serde_json::{json, Value};

/// The driver's main class (conformance/src/main/java).
pub const MAIN_CLASS: &str = "org.apache.kafka.storage.internals.epoch.EpochCacheDriver";
/// The longest generated sequence.
pub const OPS_MAX: usize = 30;

/// One operation on a replica's log, as the model performs it.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Op {
    /// `Log::append`: records of `epoch` at the log end (cache: `assign(epoch, LEO)`).
    Append { epoch: i32, records: i64 },
    /// `Log::assign` (cache: `assign`), e.g. a new leader's epoch at its log end.
    Assign { epoch: i32, offset: i64 },
    /// `Log::truncate_to` (`UnifiedLog.truncateTo`; cache: `truncateFromEndAsyncFlush`).
    TruncateTo { offset: i64 },
    /// `Log::increment_start` (`UnifiedLog.maybeIncrementLogStartOffset`; cache:
    /// `truncateFromStartAsyncFlush`). Generated at most the log end (the caller checks
    /// the offset against the high watermark).
    IncrementStart { offset: i64 },
    /// `Log::truncate_fully_and_start_at` (cache: `clearAndFlush`).
    TruncateFully { offset: i64 },
    /// `Log::end_offset_for` (cache: `endOffsetFor(epoch, LEO)`).
    EndOffsetFor { epoch: i32 },
    /// `Log::epoch_at` (cache: `epochForOffset`), only for an offset the log holds.
    EpochAt { offset: i64 },
}

/// How a model operation becomes a cache call.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Mapping {
    /// The cache call `UnifiedLog` (4.4.0, `truncateTo`, `maybeIncrementLogStartOffset`,
    /// `truncateFullyAndStartAt`) makes for the operation: truncating at or above the end
    /// truncates the cache at the end, below the log start clears it, and the log start
    /// only moves up.
    UnifiedLog,
    /// The cache call of the same name with the operation's offset as is.
    Direct,
}

impl Mapping {
    pub fn name(self) -> &'static str {
        match self {
            Mapping::UnifiedLog => "unified-log",
            Mapping::Direct => "direct",
        }
    }
}

/// The log start and end offsets `UnifiedLog` keeps beside its cache. The segments below
/// the log start are taken as deleted (`firstSegmentBaseOffset == logStartOffset`), as the
/// model does.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Offsets {
    pub start: i64,
    pub end: i64,
}

impl Offsets {
    /// Apply `op` and return the cache call it makes under `mapping`.
    pub fn translate(&mut self, op: Op, mapping: Mapping) -> Value {
        match op {
            Op::Append { epoch, records } => {
                let at = self.end;
                self.end += records;
                json!({"op": "assign", "epoch": epoch, "offset": at})
            }
            Op::Assign { epoch, offset } => {
                json!({"op": "assign", "epoch": epoch, "offset": offset})
            }
            Op::TruncateTo { offset } => {
                let before = *self;
                if offset >= self.end {
                    // Nothing to drop but an entry at or above the end.
                } else if offset < self.start {
                    self.start = offset;
                    self.end = offset;
                } else {
                    self.end = offset;
                }
                match mapping {
                    Mapping::Direct => json!({"op": "truncate_from_end", "offset": offset}),
                    Mapping::UnifiedLog if offset >= before.end => {
                        json!({"op": "truncate_from_end", "offset": before.end})
                    }
                    Mapping::UnifiedLog if offset < before.start => json!({"op": "clear"}),
                    Mapping::UnifiedLog => json!({"op": "truncate_from_end", "offset": offset}),
                }
            }
            Op::IncrementStart { offset } => {
                let moved = offset > self.start;
                if moved {
                    self.start = offset;
                }
                match mapping {
                    Mapping::UnifiedLog if !moved => json!({"op": "none"}),
                    _ => json!({"op": "truncate_from_start", "offset": offset}),
                }
            }
            Op::TruncateFully { offset } => {
                self.start = offset;
                self.end = offset;
                json!({"op": "clear"})
            }
            Op::EndOffsetFor { epoch } => {
                json!({"op": "end_offset_for", "epoch": epoch, "log_end": self.end})
            }
            Op::EpochAt { offset } => json!({"op": "epoch_for", "offset": offset}),
        }
    }

    /// `op` is one the generator could have made here (shrinking keeps only those).
    fn admits(&self, op: Op) -> bool {
        match op {
            Op::IncrementStart { offset } => (0..=self.end).contains(&offset),
            Op::EpochAt { offset } => (self.start..self.end).contains(&offset),
            Op::Append { records, .. } => records > 0,
            Op::Assign { epoch, offset } => epoch >= 0 && offset >= 0,
            Op::TruncateTo { offset } | Op::TruncateFully { offset } => offset >= 0,
            Op::EndOffsetFor { .. } => true,
        }
    }
}

/// One generated sequence and its cache calls.
#[derive(Clone, Debug)]
pub struct Sequence {
    pub ops: Vec<Op>,
    /// The request line for the driver: `{"ops":[...]}`.
    pub line: String,
}

impl Sequence {
    /// The sequence of `ops` under `mapping`, or `None` when an op is one the generator
    /// would not make at its place.
    pub fn of(ops: Vec<Op>, mapping: Mapping) -> Option<Sequence> {
        let mut offsets = Offsets::default();
        let mut calls = Vec::with_capacity(ops.len());
        for &op in &ops {
            if !offsets.admits(op) {
                return None;
            }
            calls.push(offsets.translate(op, mapping));
        }
        let line = json!({ "ops": calls }).to_string();
        Some(Sequence { ops, line })
    }
}

fn below(rng: &mut Rng, n: u64) -> u64 {
    rng.next_u64() % n.max(1)
}

/// `lo..=hi`.
fn within(rng: &mut Rng, lo: i64, hi: i64) -> i64 {
    lo + below(rng, (hi - lo + 1).max(1) as u64) as i64
}

/// The epoch of the next write: mostly the current leader's, sometimes a new leader's,
/// sometimes any epoch (a follower copying records of an older leader, a stale assign).
fn next_epoch(rng: &mut Rng, current: &mut i32, new_pct: u64) -> i32 {
    let r = below(rng, 100);
    if r < new_pct {
        *current += 1 + below(rng, 2) as i32;
        *current
    } else if r < 90 {
        *current
    } else {
        within(rng, 0, *current as i64 + 1) as i32
    }
}

/// `count` sequences of 1..=[`OPS_MAX`] operations, the same for the same seed.
pub fn generate(seed: u64, count: usize, mapping: Mapping) -> Vec<Sequence> {
    sequences(seed, mapping).take(count).collect()
}

/// The generated sequences of `seed`, drawn as they are taken ([`generate`]'s, in order).
pub fn sequences(seed: u64, mapping: Mapping) -> impl Iterator<Item = Sequence> {
    let mut rng = Rng::new(seed);
    std::iter::repeat_with(move || {
        let len = 1 + below(&mut rng, OPS_MAX as u64) as usize;
        let mut offsets = Offsets::default();
        let mut current = 0i32;
        let ops: Vec<Op> = (0..len)
            .map(|_| {
                let op = draw(&mut rng, &offsets, &mut current);
                offsets.translate(op, mapping);
                op
            })
            .collect();
        Sequence::of(ops, mapping).expect("generated ops are admitted")
    })
}

fn draw(rng: &mut Rng, o: &Offsets, current: &mut i32) -> Op {
    let r = below(rng, 100);
    let near_end = |rng: &mut Rng| {
        if below(rng, 2) == 0 {
            within(rng, (o.end - 3).max(0), o.end + 2)
        } else {
            within(rng, 0, o.end + 2)
        }
    };
    match r {
        0..=29 => Op::Append {
            epoch: next_epoch(rng, current, 10),
            records: within(rng, 1, 4),
        },
        30..=44 => {
            let epoch = next_epoch(rng, current, 60);
            let offset = if below(rng, 4) == 0 {
                near_end(rng)
            } else {
                o.end
            };
            Op::Assign { epoch, offset }
        }
        45..=59 => Op::TruncateTo {
            offset: near_end(rng),
        },
        60..=69 => Op::IncrementStart {
            offset: within(rng, 0, o.end),
        },
        70..=72 => Op::TruncateFully {
            offset: within(rng, 0, o.end + 2),
        },
        73..=87 if o.end > o.start => Op::EpochAt {
            offset: within(rng, o.start, o.end - 1),
        },
        _ => Op::EndOffsetFor {
            epoch: within(rng, -1, *current as i64 + 2) as i32,
        },
    }
}

/// What one side reports after one operation (the driver's format).
fn observation(log: &Log, answer: Option<Value>) -> Value {
    let entries: Vec<Value> = log
        .entries()
        .iter()
        .map(|e| json!([e.epoch, e.start_offset]))
        .collect();
    let latest = log.latest_epoch();
    let mut obs = json!({
        "entries": entries,
        "latest": if latest == UNDEFINED_EPOCH { Value::Null } else { json!(latest) },
    });
    if let Some(a) = answer {
        obs["answer"] = a;
    }
    obs
}

/// Apply `op` to the model's log; the query's answer, if it is one.
pub fn apply(log: &mut Log, op: Op) -> Option<Value> {
    match op {
        Op::Append { epoch, records } => log.append(epoch, records),
        Op::Assign { epoch, offset } => log.assign(epoch, offset),
        Op::TruncateTo { offset } => log.truncate_to(offset),
        Op::IncrementStart { offset } => {
            log.increment_start(offset);
        }
        Op::TruncateFully { offset } => log.truncate_fully_and_start_at(offset),
        Op::EndOffsetFor { epoch } => {
            let (e, o) = log.end_offset_for(epoch);
            return Some(json!([e, o]));
        }
        Op::EpochAt { offset } => {
            return Some(log.epoch_at(offset).map_or(Value::Null, |e| json!(e)))
        }
    }
    None
}

/// The model's observations of `ops`, one per operation.
pub fn model_observations(ops: &[Op]) -> Vec<Value> {
    let mut log = Log::default();
    ops.iter()
        .map(|&op| {
            let answer = apply(&mut log, op);
            observation(&log, answer)
        })
        .collect()
}

/// The first operation of a sequence where the model and the real cache differ.
#[derive(Clone, Debug)]
pub struct Disagreement {
    /// The sequence's index in the batch.
    pub sequence: usize,
    /// The differing operation's index (0-based).
    pub step: usize,
    /// `<op>/<fields>`, e.g. `truncate_to/entries+latest`; `driver` when the driver failed
    /// the sequence; `offsets` when the model's log start or end is not the one the
    /// translation keeps.
    pub class: String,
    /// The operations up to and including the differing one.
    pub ops: Vec<Op>,
    pub model: Value,
    pub real: Value,
}

fn op_name(op: Op) -> &'static str {
    match op {
        Op::Append { .. } => "append",
        Op::Assign { .. } => "assign",
        Op::TruncateTo { .. } => "truncate_to",
        Op::IncrementStart { .. } => "increment_start",
        Op::TruncateFully { .. } => "truncate_fully",
        Op::EndOffsetFor { .. } => "end_offset_for",
        Op::EpochAt { .. } => "epoch_at",
    }
}

/// Compare one sequence with the driver's answer line.
fn compare_one(index: usize, seq: &Sequence, line: &str) -> Option<Disagreement> {
    let disagreement = |step: usize, class: String, model: Value, real: Value| Disagreement {
        sequence: index,
        step,
        class,
        ops: seq.ops[..(step + 1).min(seq.ops.len())].to_vec(),
        model,
        real,
    };
    let answer: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => {
            let real = json!(format!("unreadable ({e}): {line}"));
            return Some(disagreement(
                seq.ops.len().saturating_sub(1),
                "driver".into(),
                Value::Null,
                real,
            ));
        }
    };
    let Some(real) = answer.get("obs").and_then(Value::as_array) else {
        return Some(disagreement(
            seq.ops.len().saturating_sub(1),
            "driver".into(),
            Value::Null,
            answer,
        ));
    };
    let mut log = Log::default();
    let mut offsets = Offsets::default();
    for (step, &op) in seq.ops.iter().enumerate() {
        let model_answer = apply(&mut log, op);
        offsets.translate(op, Mapping::UnifiedLog);
        let model = observation(&log, model_answer);
        let Some(r) = real.get(step) else {
            return Some(disagreement(
                step,
                "driver".into(),
                model,
                json!("missing observation"),
            ));
        };
        let fields: Vec<&str> = ["entries", "latest", "answer"]
            .into_iter()
            .filter(|f| model.get(f) != r.get(f))
            .collect();
        if !fields.is_empty() {
            let class = format!("{}/{}", op_name(op), fields.join("+"));
            return Some(disagreement(step, class, model, r.clone()));
        }
        if (log.start(), log.end()) != (offsets.start, offsets.end) {
            let model = json!({"start": log.start(), "end": log.end()});
            let real = json!({"start": offsets.start, "end": offsets.end});
            return Some(disagreement(step, "offsets".into(), model, real));
        }
    }
    (real.len() != seq.ops.len()).then(|| {
        disagreement(
            seq.ops.len().saturating_sub(1),
            "driver".into(),
            Value::Null,
            json!("extra observations"),
        )
    })
}

/// Every sequence's first disagreement with the driver's answer lines (in order).
pub fn compare(seqs: &[Sequence], lines: &[String]) -> Vec<Disagreement> {
    seqs.iter()
        .enumerate()
        .filter_map(|(i, s)| match lines.get(i) {
            Some(line) => compare_one(i, s, line),
            None => compare_one(i, s, "{\"error\":\"no answer line\"}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generator_is_deterministic_and_stays_in_bounds() {
        let a = generate(7, 200, Mapping::UnifiedLog);
        let b = generate(7, 200, Mapping::UnifiedLog);
        assert_eq!(
            a.iter().map(|s| &s.line).collect::<Vec<_>>(),
            b.iter().map(|s| &s.line).collect::<Vec<_>>()
        );
        assert_ne!(a[0].line, generate(8, 1, Mapping::UnifiedLog)[0].line);
        assert!(a.iter().all(|s| (1..=OPS_MAX).contains(&s.ops.len())));
        // Every kind of operation shows up.
        for name in [
            "append",
            "assign",
            "truncate_to",
            "increment_start",
            "truncate_fully",
            "end_offset_for",
            "epoch_at",
        ] {
            assert!(
                a.iter().flat_map(|s| &s.ops).any(|&o| op_name(o) == name),
                "{name}"
            );
        }
    }

    #[test]
    fn a_tiny_sequence_observed_on_the_model() {
        let ops = vec![
            Op::Append {
                epoch: 1,
                records: 5,
            },
            Op::Assign {
                epoch: 3,
                offset: 5,
            },
            Op::Append {
                epoch: 3,
                records: 3,
            },
            Op::IncrementStart { offset: 2 },
            Op::EndOffsetFor { epoch: 1 },
            Op::TruncateTo { offset: 9 },
            Op::EpochAt { offset: 6 },
        ];
        let seq = Sequence::of(ops.clone(), Mapping::UnifiedLog).unwrap();
        assert_eq!(
            seq.line,
            r#"{"ops":[{"epoch":1,"offset":0,"op":"assign"},{"epoch":3,"offset":5,"op":"assign"},{"epoch":3,"offset":5,"op":"assign"},{"offset":2,"op":"truncate_from_start"},{"epoch":1,"log_end":8,"op":"end_offset_for"},{"offset":8,"op":"truncate_from_end"},{"offset":6,"op":"epoch_for"}]}"#
        );
        let obs = model_observations(&ops);
        let text: Vec<String> = obs.iter().map(Value::to_string).collect();
        assert_eq!(
            text,
            [
                r#"{"entries":[[1,0]],"latest":1}"#,
                r#"{"entries":[[1,0],[3,5]],"latest":3}"#,
                r#"{"entries":[[1,0],[3,5]],"latest":3}"#,
                r#"{"entries":[[1,2],[3,5]],"latest":3}"#,
                r#"{"answer":[1,5],"entries":[[1,2],[3,5]],"latest":3}"#,
                r#"{"entries":[[1,2],[3,5]],"latest":3}"#,
                r#"{"answer":3,"entries":[[1,2],[3,5]],"latest":3}"#,
            ]
        );
        // The driver's own line for it agrees; a changed answer is a disagreement of its class.
        let real = format!("{{\"obs\":[{}]}}", text.join(","));
        assert!(compare(std::slice::from_ref(&seq), std::slice::from_ref(&real)).is_empty());
        let wrong = real.replace(r#""answer":[1,5]"#, r#""answer":[1,8]"#);
        let d = compare(&[seq], &[wrong]);
        assert_eq!(
            (d.len(), d[0].step, d[0].class.as_str()),
            (1, 4, "end_offset_for/answer")
        );
    }

    #[test]
    fn direct_mapping_passes_offsets_through() {
        let ops = vec![
            Op::Append {
                epoch: 0,
                records: 2,
            },
            Op::TruncateTo { offset: 9 },
            Op::IncrementStart { offset: 0 },
        ];
        let u = Sequence::of(ops.clone(), Mapping::UnifiedLog).unwrap();
        let d = Sequence::of(ops, Mapping::Direct).unwrap();
        assert!(
            u.line.contains(r#"{"offset":2,"op":"truncate_from_end"}"#)
                && u.line.contains(r#"{"op":"none"}"#)
        );
        assert!(
            d.line.contains(r#"{"offset":9,"op":"truncate_from_end"}"#)
                && d.line
                    .contains(r#"{"offset":0,"op":"truncate_from_start"}"#)
        );
    }
}
