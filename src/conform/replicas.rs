//! The real replicas against the model's after a step (conformance/BROKERS.md): log end,
//! log start, high watermark, the leader-epoch cache, each record's epoch, the
//! AlterPartition proposals; and the step the model cannot express on the real logs.

use crate::model::broker::BrokerCall;
use crate::model::{BrokerId, Cluster};
use serde::Deserialize;
use std::fmt::Debug;

/// An AlterPartition a real Partition sent.
#[derive(Clone, PartialEq, Eq, Debug, Deserialize)]
pub struct Proposal {
    pub partition: usize,
    pub broker: BrokerId,
    pub isr: Vec<BrokerId>,
}

/// One replica as the real broker holds it.
#[derive(Clone, PartialEq, Eq, Debug, Default, Deserialize)]
pub struct RealReplica {
    pub broker: BrokerId,
    pub partition: usize,
    pub leo: i64,
    pub log_start: i64,
    pub hw: i64,
    #[serde(default)]
    pub recovery_point: i64,
    /// The follower's fetcher marked the partition failed.
    #[serde(default)]
    pub fetch_failed: bool,
    /// The broker has the `Partition` (false for a log a restarted broker loaded and has
    /// not yet been given a registration for).
    #[serde(default)]
    pub online: bool,
    /// [epoch, start offset].
    pub epochs: Vec<(i32, i64)>,
    /// [base offset, last offset, partition leader epoch].
    pub batches: Vec<(i64, i64, i32)>,
}

/// The real brokers' answer to one step.
#[derive(Clone, Debug, Default)]
pub struct BrokerStep {
    /// Calls performed (a catch-up counts its rounds).
    pub sent: usize,
    /// The AlterPartition requests the real Partitions sent, in order.
    pub proposals: Vec<Proposal>,
    /// Of those, the ones that were a history's own AlterPartition (answered as such).
    pub asserted: Vec<Proposal>,
    /// The first call a real class threw on: the call's index in the step and the fault.
    pub fault: Option<(usize, String)>,
    /// Every hosted replica after the step.
    pub replicas: Vec<RealReplica>,
    /// The step asked for something the model leaves out, and was not performed: why.
    pub beyond_model: Option<&'static str>,
}

/// The model has no record batches. A log start inside one of a replica's batches (a
/// DeleteRecords offset in mid-batch) makes the real brokers act on whole batches where the
/// model acts on records: a follower whose log is empty at that start is sent the whole
/// batch and restarts its log at the batch's base offset
/// (`Partition.appendRecordsToFollowerOrFutureReplica` on `UnexpectedAppendOffsetException`,
/// `truncateFullyAndStartAt`), and one whose log ends inside the batch cannot append it
/// and fails (core/src/main/scala/kafka/cluster/Partition.scala, confluentinc/kafka
/// 06d492d813). The driver stops the step there, unperformed (`broker_batch`,
/// conformance/BROKERS.md); the steps before it were compared.
pub const MID_BATCH_DELETE: &str = "DeleteRecords inside a record batch (the model has no batches)";

/// The same mechanism met by a fetch: the leader answers a follower with a batch that
/// starts below the follower's fetch offset (after an unclean election the new leader's
/// batches need not end where the follower's log start is), and the follower applies it
/// whole (an empty log restarts at the batch's base offset). The driver stops the step
/// after that fetch; the steps before it were compared.
pub const MID_BATCH_FETCH: &str =
    "a fetch answered from inside a record batch (the model has no batches)";

/// The same mechanism met by a truncation: a follower truncates to an offset strictly
/// inside one of its own batches, and the whole batch goes (`LogSegment.truncateTo` cuts at
/// the position of the batch holding the offset) while the log end becomes the offset
/// (`LocalLog.truncateTo`; storage/.../internals/log/, confluentinc/kafka 06d492d813): the
/// batch's records below the offset are gone, which the model, with no batches, keeps.
/// Reached when a DeleteRecords moved the leader's first epoch entry to its log start and a
/// new epoch starting there replaced it, so that the leader's answer to a diverged
/// follower's last epoch ends inside the follower's batch (found on 4.0.2, generated seed
/// 41). The driver ends the step after the truncation.
pub const MID_BATCH_TRUNCATE: &str =
    "a truncation inside a record batch (the model has no batches)";

/// Records below the log start stay on disk in a segment that also holds records above it
/// (no log-start deletion removes the active segment), and the recovery after a power loss
/// reads their epochs into the leader-epoch cache (`LogLoader.recoverLog`,
/// `LogSegment.recover`, then `LogLoader.load`'s truncations from the end and the start:
/// storage/.../internals/log/LogLoader.java, confluentinc/kafka 06d492d813). The model keeps
/// no records below the log start. The driver ends the step after such a restart.
pub const RECOVERY_BELOW_START: &str =
    "a power loss recovering records below the log start (the model keeps none)";

/// A replica's records as runs of one epoch: (epoch, first offset, end offset).
type Runs = Vec<(i32, i64, i64)>;

/// The records from the log start on: below it, a segment stays on disk until the
/// retention task deletes it whole (`UnifiedLog.deleteOldSegments`; the driver runs no
/// task), but no reader is served from there.
fn runs_of_batches(batches: &[(i64, i64, i32)], log_start: i64) -> Runs {
    let mut out: Runs = Vec::new();
    for &(base, last, epoch) in batches {
        let (lo, hi) = (base.max(log_start), last + 1);
        if lo >= hi {
            continue;
        }
        match out.last_mut() {
            Some(run) if run.0 == epoch && run.2 == lo => run.2 = hi,
            _ => out.push((epoch, lo, hi)),
        }
    }
    out
}

fn runs_of_model(log: &crate::model::log::Log) -> Runs {
    let entries = log.entries();
    let mut out: Runs = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let next = entries.get(i + 1).map_or(log.end(), |n| n.start_offset);
        let (lo, hi) = (e.start_offset.max(log.start()), next.min(log.end()));
        if lo < hi {
            match out.last_mut() {
                Some(run) if run.0 == e.epoch && run.2 == lo => run.2 = hi,
                _ => out.push((e.epoch, lo, hi)),
            }
        }
    }
    out
}

/// Every way the real replicas differ from the model's after a step, plus the proposals
/// the two sent: `p0@2.hw: 3 vs 5`. Empty when they agree.
pub fn differences(model: &Cluster, calls: &[BrokerCall], real: &BrokerStep) -> Vec<String> {
    let mut out = Vec::new();
    if let Some((i, fault)) = &real.fault {
        out.push(format!("fault at call {i}: {fault}"));
    }
    if let Some(d) = proposal_differences(calls, real) {
        out.push(d);
    }
    let empty = RealReplica::default();
    for (p, rt) in model.runtime.partitions.iter().enumerate() {
        for l in &rt.locals {
            let r = (real.replicas.iter())
                .find(|r| r.broker == l.broker && r.partition == p)
                .unwrap_or(&empty);
            let mut field = |name: &str, a: &dyn Debug, b: &dyn Debug, same: bool| {
                if !same {
                    out.push(format!("p{p}@{}.{name}: {a:?} vs {b:?}", l.broker));
                }
            };
            let (leo, start) = (l.leo(), l.log.start());
            field("leo", &leo, &r.leo, leo == r.leo);
            field("log_start", &start, &r.log_start, start == r.log_start);
            // A log loaded by a restarted broker that has no Partition for it yet has the
            // high watermark it loads with (its log start, `UnifiedLog`'s constructor); the
            // checkpointed one is read only when the Partition is created
            // (`Partition.createLogIfNotExists`), and is compared from then on.
            let loaded_only = !r.online && r.leo >= 0;
            field("hw", &l.hw, &r.hw, l.hw == r.hw || loaded_only);
            let failed = l.fetchers.classic_failed;
            field(
                "fetch_failed",
                &failed,
                &r.fetch_failed,
                failed == r.fetch_failed,
            );
            let epochs: Vec<(i32, i64)> = (l.log.entries().iter())
                .map(|e| (e.epoch, e.start_offset))
                .collect();
            field("epochs", &epochs, &r.epochs, epochs == r.epochs);
            let (a, b) = (
                runs_of_model(&l.log),
                runs_of_batches(&r.batches, r.log_start),
            );
            field("records", &a, &b, a == b);
        }
    }
    for r in &real.replicas {
        let hosted = (model.runtime.partitions.get(r.partition))
            .is_some_and(|rt| rt.local(r.broker).is_some());
        if !hosted {
            out.push(format!(
                "p{}@{}: hosted by the real broker only (leo {})",
                r.partition, r.broker, r.leo
            ));
        }
    }
    out
}

/// The AlterPartition requests the model's broker side sent against the real Partitions'
/// own (a history's AlterPartition, answered as such, is neither's), ISRs as sets.
fn proposal_differences(calls: &[BrokerCall], real: &BrokerStep) -> Option<String> {
    let sorted = |v: &[BrokerId]| {
        let mut v = v.to_vec();
        v.sort_unstable();
        v
    };
    let asked: Vec<(usize, BrokerId, Vec<BrokerId>)> = (calls.iter())
        .filter_map(|c| match c {
            BrokerCall::AlterAnswer {
                partition,
                broker,
                requested,
                asserted: false,
                ..
            } => Some((*partition, *broker, sorted(requested))),
            _ => None,
        })
        .collect();
    let mut own = real.proposals.clone();
    for a in &real.asserted {
        if let Some(k) = own.iter().position(|p| p == a) {
            own.remove(k);
        }
    }
    let sent: Vec<(usize, BrokerId, Vec<BrokerId>)> = (own.iter())
        .map(|p| (p.partition, p.broker, sorted(&p.isr)))
        .collect();
    // As multisets: the brokers' expiration tasks run independently upstream, and one
    // broker's walks its partitions in a hash map's order (`ReplicaManager.allPartitions`).
    let (mut a, mut s) = (asked.clone(), sent.clone());
    a.sort_unstable();
    s.sort_unstable();
    (a != s).then(|| format!("proposals: {asked:?} vs {sent:?}"))
}

/// The class of a broker disagreement: the fields that differ (`broker:hw+leo`).
pub fn class_of(differences: &[String]) -> String {
    let mut fields: Vec<&str> = differences
        .iter()
        .map(|d| {
            let head = d.split(':').next().unwrap_or(d);
            match head.split_once('.') {
                Some((_, f)) => f,
                None => head.split_whitespace().next().unwrap_or(head),
            }
        })
        .collect();
    fields.sort_unstable();
    fields.dedup();
    format!("broker:{}", fields.join("+"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_and_model_entries_become_the_same_runs() {
        let batches = [(0, 2, 0), (3, 4, 0), (5, 5, 2)];
        assert_eq!(runs_of_batches(&batches, 0), vec![(0, 0, 5), (2, 5, 6)]);
        assert_eq!(runs_of_batches(&batches, 4), vec![(0, 4, 5), (2, 5, 6)]);
        let mut log = crate::model::log::Log::default();
        log.append(0, 5);
        log.append(2, 1);
        assert_eq!(runs_of_model(&log), runs_of_batches(&batches, 0));
    }

    #[test]
    fn a_class_names_each_differing_field_once() {
        let d = vec![
            "p0@2.hw: 3 vs 5".to_string(),
            "p0@3.hw: 3 vs 5".to_string(),
            "p0@2.leo: 5 vs 6".to_string(),
            "proposals: [] vs [(0, 1, [1])]".to_string(),
        ];
        assert_eq!(class_of(&d), "broker:hw+leo+proposals");
    }
}
