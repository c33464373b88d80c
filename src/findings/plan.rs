//! An operator plan as data: each line of the script `replay --operator` prints, with what
//! `isrfuzz cluster` does for it on a real cluster. Both read one list of [`Line`]s, so the
//! script a user pastes and the steps the cluster judge runs cannot drift apart.

use crate::model::{BrokerId, Partition};

/// One line of the plan: its text in the script, and its action (`None`: a comment).
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    pub text: String,
    pub act: Option<Act>,
}

impl Line {
    /// A `#` comment (prose): nothing to run.
    pub fn note(text: impl Into<String>) -> Line {
        Line {
            text: text.into(),
            act: None,
        }
    }

    /// A command and what it does.
    pub fn run(text: impl Into<String>, act: Act) -> Line {
        Line {
            text: text.into(),
            act: Some(act),
        }
    }
}

/// The lines as text (the script).
pub fn texts(lines: &[Line]) -> Vec<String> {
    lines.iter().map(|l| l.text.clone()).collect()
}

/// What a command line does, in the terms of the admin API. Partitions are the history's
/// (partition n of the plan's one topic); brokers are the history's ids.
#[derive(Clone, Debug, PartialEq)]
pub enum Act {
    /// Shell plumbing: a variable, a helper function, a JSON file the next command reads.
    Shell,
    /// The feature `eligible.leader.replicas.version` upgraded to 1.
    ElrFeature,
    /// The topic created with one partition on `replicas` and these topic configs.
    Create {
        replicas: Vec<BrokerId>,
        configs: Vec<(String, String)>,
    },
    /// A partition added with `replicas` (the topic's partitions become `total`).
    AddPartition {
        total: usize,
        replicas: Vec<BrokerId>,
    },
    /// Topic configs set (`set`) and deleted (`delete`), incrementally.
    TopicConfig {
        set: Vec<(String, String)>,
        delete: Vec<String>,
    },
    /// A broker's dynamic configs set and deleted, incrementally.
    BrokerConfig {
        broker: BrokerId,
        set: Vec<(String, String)>,
        delete: Vec<String>,
    },
    /// Check that a broker's dynamic config `name` reads `value`.
    BrokerConfigIs {
        broker: BrokerId,
        name: String,
        value: String,
    },
    Reassign {
        partition: usize,
        target: Vec<BrokerId>,
        allow_rf_change: bool,
    },
    Cancel {
        partition: usize,
    },
    Elect {
        partition: usize,
        unclean: bool,
    },
    /// List the reassignments (the tool's `--list`, or its `--verify`).
    List,
    /// Records produced to the topic (the producer's default partitioner).
    Produce {
        records: u64,
        record_bytes: u32,
        acks_all: bool,
    },
    Sleep {
        ms: u64,
    },
    DeleteRecords {
        partition: usize,
        offset: u64,
    },
    /// After `step`, wait until the partition shows `expect` (describe and the listed
    /// reassignment agreeing with it); `elr`: the ELR fields count.
    See {
        step: usize,
        partition: usize,
        expect: Box<Partition>,
        elr: bool,
    },
    /// After `step`, only look at the partition: the state may already have moved on.
    Glance {
        step: usize,
        partition: usize,
    },
    /// A pause for what no admin command does.
    Hand(Manual),
}

/// What an operator does by hand.
#[derive(Clone, Debug, PartialEq)]
pub enum Manual {
    /// A clean stop (controlled shutdown).
    Stop { broker: BrokerId },
    /// A start of a stopped broker.
    Start { broker: BrokerId },
    /// A clean stop, then a start.
    Restart { broker: BrokerId },
    /// What an in-process cluster cannot do: the event, named.
    Beyond { event: String },
}

impl Act {
    /// The event no in-process cluster can perform, if this is one.
    pub fn beyond(&self) -> Option<&str> {
        match self {
            Act::Hand(Manual::Beyond { event }) => Some(event),
            _ => None,
        }
    }
}
