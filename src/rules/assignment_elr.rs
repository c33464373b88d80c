//! Rule `assignment-elr` (KRaft): whether the change a directory assignment builds
//! (AssignReplicasToDirs, docs/model/reassignment.md#log-directories) knows the ELR
//! feature. Upstream: metadata/src/main/java/org/apache/kafka/controller/
//! ReplicationControlManager.java, `handleAssignReplicasToDirs`. Until 4.2 the builder's
//! ELR flag was a setter defaulting to off, and this one call site never set it; 4.3 made
//! it a constructor argument (kafka-metadata sources jars 4.2.2 and 4.3.1; conformance
//! measured each release).

rule! {
    pub enum AssignmentElr {
        id: "assignment-elr",
        family: Kraft,
        field: assignment_elr,
        summary: "whether a directory assignment's change builds with the ELR feature (docs/model/reassignment.md#log-directories)",
        variants: {
            /// `off`: the assignment's builder runs with ELR off whatever the feature says:
            /// it clears the partition's ELR and last known ELR (keeping a lone last known
            /// leader of a leaderless partition) and never writes an empty ISR.
            Off {
                name: "off",
                summary: "built with ELR off: the ELR is cleared",
                provenance: "kafka-metadata 4.0.2, 4.1.2 and 4.2.2 handleAssignReplicasToDirs (no setEligibleLeaderReplicasEnabled)",
            },
            /// `feature`: built with the cluster's ELR feature, as every other change.
            Feature {
                name: "feature",
                summary: "built with the cluster's ELR feature",
                provenance: "kafka-metadata 4.3.1 and 4.4.0 (the builder takes the flag in its constructor); apache trunk d79bd502ec",
            },
        },
    }
}

impl AssignmentElr {
    /// The ELR flag the assignment's builder gets, with the cluster's feature `elr`.
    pub fn builder_elr(self, elr: bool) -> bool {
        match self {
            AssignmentElr::Off => false,
            AssignmentElr::Feature => elr,
        }
    }
}
