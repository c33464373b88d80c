//! The calls the broker side makes on a broker, as an observer sees them: a registration
//! applied, an append, one fetch round, a run of the ISR-expiration task, the answer to an
//! AlterPartition the broker sent, a restart, a flush, a DeleteRecords. A judge of real
//! brokers (conformance/BROKERS.md) performs exactly these, in order, on real Partitions
//! and logs, and the replicas are compared after every step.
//!
//! Architecture invariant: like the request tap, calls are observed, never acted on: with
//! no tap (every search engine) none is built.

use crate::model::{Acks, BrokerId, Cluster, Event, Outcome, Rules, Survives};

/// One call, with what the model knew when it made it.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum BrokerCall {
    /// `broker` applies partition `partition`'s registration (`ReplicaManager.applyDelta`:
    /// `makeLeader`, or `makeFollower` and the fetcher restarted where it changed).
    Delta {
        broker: BrokerId,
        partition: usize,
        replicas: Vec<BrokerId>,
        isr: Vec<BrokerId>,
        leader: BrokerId,
        leader_epoch: i32,
        partition_epoch: i32,
        min_insync_replicas: i32,
        now_ms: i64,
    },
    /// The brokers' registrations in the metadata image every broker reads (its
    /// `KRaftMetadataCache`, set before a delta is applied, as `BrokerMetadataPublisher`
    /// does): who is fenced and who is in controlled shutdown, which the leaders' ISR
    /// eligibility checks read (`Partition.isReplicaIsrEligible`). Told before the deltas
    /// of each event; a tap may drop one equal to the last it kept.
    Image {
        fenced: Vec<BrokerId>,
        shutting_down: Vec<BrokerId>,
    },
    /// The topic of `partition` gets a new `min.insync.replicas` (the ConfigRecord reaches
    /// every broker: `LogManager.updateTopicConfig` reconfigures each of its logs).
    TopicConfig {
        partition: usize,
        min_insync_replicas: i32,
    },
    /// `broker` is no longer a replica: its fetch state and log go.
    Remove { broker: BrokerId, partition: usize },
    /// `Partition.appendRecordsToLeader` of one batch on `broker`, at the history's time
    /// (the append moves the high watermark, which waits for the followers caught up
    /// within `replica.lag.time.max.ms` of now).
    Produce {
        partition: usize,
        broker: BrokerId,
        records: i64,
        acks: Acks,
        min_insync_replicas: i32,
        now_ms: i64,
    },
    /// One round of `follower`'s fetcher for the partition, answered by `leader`.
    Fetch {
        partition: usize,
        follower: BrokerId,
        leader: BrokerId,
        now_ms: i64,
    },
    /// The `isr-expiration` task on every broker that is up.
    Expire { now_ms: i64, brokers: Vec<BrokerId> },
    /// The controller's answer to the AlterPartition `broker` sent (asking `requested`):
    /// `error` its `Errors` name; on NONE the committed ISR and epochs. `asserted`: the
    /// request is a history event (the history asserts the leader sent it after it saw the
    /// followers catch up), not one the model's broker side decided on: a real Partition
    /// that proposed it during the catch-up is answered, one that did not is not asked.
    /// At the history's time: the committed ISR moves the high watermark, which waits for
    /// followers caught up within the lag window of now.
    AlterAnswer {
        partition: usize,
        broker: BrokerId,
        asserted: bool,
        requested: Vec<BrokerId>,
        error: &'static str,
        isr: Vec<BrokerId>,
        leader_epoch: i32,
        partition_epoch: i32,
        now_ms: i64,
    },
    /// The broker process stops and starts: `None` a clean shutdown, else what a power
    /// loss leaves.
    Restart {
        broker: BrokerId,
        survives: Option<Survives>,
    },
    /// Every log of the broker flushed.
    Flush { broker: BrokerId },
    /// `Partition.deleteRecordsOnLeader` on `broker` (-1: to its high watermark).
    DeleteRecords {
        partition: usize,
        broker: BrokerId,
        offset: i64,
    },
    /// An explicit AlterPartition event asserted that `follower` caught up with `leader`:
    /// the judge fetches until it has (the model copies the records at once), at the
    /// history's time (the leader records when the follower was caught up).
    CatchUp {
        partition: usize,
        follower: BrokerId,
        leader: BrokerId,
        now_ms: i64,
    },
}

impl BrokerCall {
    /// The image of a history's start: every broker registered, unfenced.
    pub const EVERY_BROKER_UP: BrokerCall = BrokerCall::Image {
        fenced: Vec::new(),
        shutting_down: Vec::new(),
    };

    /// The answer to AlterPartition `request` (its ISR is what `broker` asked), read from
    /// the controller's `outcome` and the registration after it.
    pub fn alter_answer(
        c: &Cluster,
        broker: BrokerId,
        asserted: bool,
        request: &Event,
        outcome: &Outcome,
    ) -> BrokerCall {
        let (partition, requested) = match request {
            Event::AlterPartition { partition, isr, .. } => (*partition, isr.clone()),
            _ => unreachable!("an AlterPartition's answer"),
        };
        let part = &c.partitions[partition];
        BrokerCall::AlterAnswer {
            partition,
            broker,
            asserted,
            requested,
            error: match outcome {
                Outcome::Rejected { error, .. } => error.name(),
                Outcome::Accepted { .. } => "NONE",
            },
            isr: part.isr.to_vec(),
            leader_epoch: part.leader_epoch,
            partition_epoch: part.partition_epoch,
            now_ms: c.runtime.now_ms,
        }
    }
}

/// Hand `call` to the tap, if there is one (built only then).
pub fn tell(rules: &dyn Rules, call: impl FnOnce() -> BrokerCall) {
    if let Some(tap) = rules.tap() {
        tap.broker_call(call());
    }
}
