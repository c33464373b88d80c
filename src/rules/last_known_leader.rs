//! Rule `last-known-leader` (KRaft, ELR on): when `PartitionChangeBuilder` elects the last
//! known leader and how it records it (docs/model/reassignment.md#eligible-leader-replicas).
//! Upstream: metadata/src/main/java/org/apache/kafka/controller/PartitionChangeBuilder.java,
//! `canElectLastKnownLeader` and `maybeUpdateLastKnownLeader`. The two variants differ
//! between releases 4.0 and 4.1, as the sources jars of kafka-metadata 4.0.2 and 4.1.2 show
//! and as conformance measured (`isrfuzz conform --kafka 4.0`).

use crate::model::builder::LastKnownUpdate;
use crate::model::{Partition, NO_LEADER};

rule! {
    pub enum LastKnownLeader {
        id: "last-known-leader",
        family: Kraft,
        field: last_known_leader,
        summary: "when the last known leader is elected and recorded (docs/model/reassignment.md#eligible-leader-replicas)",
        variants: {
            /// `4.0`: the acceptor is asked about the last known leader but its answer is
            /// ignored, so a fenced last known leader is elected (KAFKA-19522); the last known
            /// leader is recorded whenever the record writes an empty ISR (unless it already
            /// names the current leader alone), and cleared when a leader stays or is elected.
            V4_0 {
                name: "4.0",
                summary: "a fenced last known leader is elected; recorded when the ISR is written empty",
                provenance: "kafka-metadata 4.0.2 PartitionChangeBuilder.canElectLastKnownLeader and maybeUpdateLastKnownLeader; KAFKA-19522 fixed it in 4.1.0",
            },
            /// `4.1+`: the last known leader must be acceptable; it is recorded when the record
            /// leaves the partition leaderless and none is recorded, cleared when a leader is
            /// elected (apache trunk d79bd502ec).
            V4_1Plus {
                name: "4.1+",
                summary: "only an acceptable last known leader is elected; recorded when the partition becomes leaderless",
                provenance: "KAFKA-19522 (first in 4.1.0); kafka-metadata 4.1.2 to 4.4.0; apache trunk d79bd502ec",
            },
        },
    }
}

impl LastKnownLeader {
    /// `canElectLastKnownLeader`'s last test: whether the acceptor's answer counts.
    pub fn must_be_acceptable(self) -> bool {
        match self {
            LastKnownLeader::V4_0 => false,
            LastKnownLeader::V4_1Plus => true,
        }
    }

    /// `maybeUpdateLastKnownLeader` for a record with `leader` (`None`: unchanged) and
    /// `isr` (`None`: not written).
    pub fn update(
        self,
        part: &Partition,
        leader: Option<i32>,
        isr: Option<&[i32]>,
    ) -> LastKnownUpdate {
        let known = &part.last_known_elr;
        match self {
            LastKnownLeader::V4_0 => {
                let isr_emptied = isr.is_some_and(<[i32]>::is_empty);
                let already = known.len() == 1 && known[0] == part.leader;
                let led = leader.is_some_and(|l| l >= 0)
                    || (part.leader != NO_LEADER && leader != Some(NO_LEADER));
                if isr_emptied && !already {
                    LastKnownUpdate::Record(part.leader)
                } else if led && !known.is_empty() {
                    LastKnownUpdate::Clear
                } else {
                    LastKnownUpdate::Keep
                }
            }
            LastKnownLeader::V4_1Plus => match leader {
                Some(NO_LEADER) if known.is_empty() => LastKnownUpdate::Record(part.leader),
                Some(l) if l >= 0 && !known.is_empty() => LastKnownUpdate::Clear,
                _ => LastKnownUpdate::Keep,
            },
        }
    }
}
