//! The controller requests the model makes, as an observer sees them: the operator's own
//! requests and the brokers' (AlterPartition from an ISR change, fencing, registration,
//! unfencing). The conformance driver replays exactly these against the real controller,
//! so the unit compared is the controller request, not the history event.
//!
//! Architecture invariant: a tap observes; it never changes what the model does. With no
//! tap (every search engine), the model builds no request at all.

use super::{BrokerId, BrokerState, Cluster, ErrorCode, Event, Outcome, Partition};

/// One request to the controller, with every field the model filled in from its own state
/// (an AlterPartition names its sender and epochs).
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Request {
    /// A controller event of the history format (create, reassign, cancel, AlterPartition,
    /// fence, controlled shutdown, unfence, elect, list).
    Event(Event),
    /// A broker process registers again after a restart; `clean` says whether its previous
    /// broker epoch matches (`ClusterControlManager.registerBroker`'s unclean-shutdown test).
    Register { broker: BrokerId, clean: bool },
}

/// What the model answered one request, and the registrations right after it.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Exchange {
    pub request: Request,
    /// The `Errors` name the model answers with (`NONE` when accepted).
    pub error: &'static str,
    /// The model says no upstream controller receives this request in this state (a
    /// cluster event that does not apply to the broker's state): not compared.
    pub not_upstream: bool,
    pub partitions: Vec<Partition>,
    pub brokers: Vec<(BrokerId, BrokerState)>,
    /// `Cluster::offline_dirs`: which registered directories each broker still lists.
    pub offline_dirs: Vec<(BrokerId, u8, u8)>,
    /// ListPartitionReassignments: the partitions listed, ascending.
    pub listed: Option<Vec<usize>>,
    /// ElectLeaders over several partitions: each partition's answer (`Errors` name), in
    /// the request's order.
    pub elected: Option<Vec<(usize, &'static str)>>,
}

/// The observer. `record` is called once per request, after the model answered it;
/// `broker_call` once per call the broker side makes on a broker (conformance/BROKERS.md).
pub trait RequestTap {
    fn record(&self, exchange: Exchange);
    fn broker_call(&self, call: super::broker::BrokerCall) {
        let _ = call;
    }
}

/// An exchange from a request, the model's outcome and the state after it.
pub fn exchange(request: Request, outcome: &Outcome, after: &Cluster) -> Exchange {
    // An AlterPartition for a partition that does not exist names no topic id and no
    // epochs (`resolve` found nothing to read them from): no broker sends it.
    let no_sender = matches!(
        request,
        Request::Event(Event::AlterPartition {
            partition_epoch: None,
            ..
        })
    );
    // A topic config change names its topic by the partition's index: for an index that
    // names no topic, the driver has no topic to name (the real controller, without its
    // broker-side existence check, would store the config).
    let no_topic = matches!(
        request,
        Request::Event(Event::AlterTopicConfig { partition, .. }
            | Event::AssignReplicaDir { partition, .. }) if partition >= after.partitions.len()
    );
    let (error, not_upstream) = match outcome {
        Outcome::Rejected { error, .. } => (
            error.name(),
            *error == ErrorCode::BrokerStateMismatch || no_sender || no_topic,
        ),
        Outcome::Accepted {
            new_leader_elected: true,
            ..
        } => ("NEW_LEADER_ELECTED", false),
        Outcome::Accepted { .. } => ("NONE", false),
    };
    let listed = match outcome {
        Outcome::Accepted {
            listed: Some(l), ..
        } => {
            let mut l = l.clone();
            l.sort_unstable();
            Some(l)
        }
        _ => None,
    };
    let elected = match outcome {
        Outcome::Accepted {
            elected: Some(e), ..
        } => Some(e.clone()),
        _ => None,
    };
    Exchange {
        request,
        error,
        not_upstream,
        partitions: after.partitions.clone(),
        brokers: after.brokers.clone(),
        offline_dirs: after.offline_dirs.clone(),
        listed,
        elected,
    }
}

/// An AlterPartition with its sender and epochs taken from the state, as the controller
/// will read them (`controller::alter_partition`'s defaults); any other event as it is.
pub fn resolve(c: &Cluster, event: &Event) -> Event {
    let mut event = event.clone();
    if let Event::AlterPartition {
        partition,
        broker,
        leader_epoch,
        partition_epoch,
        ..
    } = &mut event
    {
        if let Some(p) = c.partitions.get(*partition) {
            broker.get_or_insert(p.leader);
            leader_epoch.get_or_insert(p.leader_epoch);
            partition_epoch.get_or_insert(p.partition_epoch);
        }
    }
    event
}
