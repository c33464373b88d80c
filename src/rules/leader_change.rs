//! Rule `leader-change` (Inkless, docs/model/inkless.md#leader-change): what a follower of a
//! switched partition does when a metadata delta arrives. Upstream: aiven/inkless
//! core/src/main/scala/kafka/server/ReplicaManager.scala, `applyLocalFollowersDelta`
//! (`previousLeaderId`, `leaderChanged`, `consolidationLeaderEvidenceFetch`).

rule! {
    pub enum LeaderChange {
        id: "leader-change",
        family: Inkless,
        field: leader_change,
        summary: "what a follower of a switched partition does on a metadata delta (docs/model/inkless.md#leader-change)",
        variants: {
            /// `none` (main, the #756 base): an at-seal follower in the ISR schedules no fetch and
            /// a consolidating follower restarts on consolidation, so the new leader never hears
            /// from them (CE-c1, CE-c2).
            None {
                name: "none",
                summary: "no catch-up fetch, no diversion",
                provenance: "ReplicaManager.applyLocalFollowersDelta at a5128f5095",
            },
            /// `catch-up-fetch` (#756 commit 1, 150ec6ed61): a switched, non-consolidating follower
            /// fetches once when the leader moved.
            CatchUpFetch {
                name: "catch-up-fetch",
                summary: "a non-consolidating follower fetches once when the leader moved",
                provenance: "aiven/inkless #756 commit 150ec6ed61 (leaderChanged)",
            },
            /// `diversion` (#756 commit 3, 5f22fac12b): also divert a consolidating follower to the
            /// classic fetcher when the leader moved, evicting its consolidation fetcher.
            Diversion {
                name: "diversion",
                summary: "also divert consolidating followers to the classic fetcher, evicting consolidation",
                provenance: "aiven/inkless #756 commit 5f22fac12b (consolidationLeaderEvidenceFetch)",
            },
            /// `epoch-bump` (wrong on purpose, CE-c4): keyed on any new leader epoch instead of a
            /// leader move, so a same-leader bump diverts and fetches too.
            EpochBump {
                name: "epoch-bump",
                summary: "WRONG on purpose: keyed on a new leader epoch instead of a leader move",
                provenance: "argued against in #756 commit 150ec6ed61 (docs/model/inkless.md#ce-c4)",
            },
            /// `diversion-no-evict` (wrong on purpose, CE-c3): diverts but leaves the old
            /// consolidation fetcher running, so two writers append to one log.
            DiversionNoEvict {
                name: "diversion-no-evict",
                summary: "WRONG on purpose: divert without evicting the consolidation fetcher",
                provenance: "argued against in #756 commit 5f22fac12b (docs/model/inkless.md#ce-c3)",
            },
        },
    }
}

impl LeaderChange {
    /// B1 of `applyLocalFollowersDelta`: whether a switched, non-consolidating follower in
    /// the ISR and at the seal fetches once on this delta anyway (#756 `leaderChanged`), so
    /// that a new leader hears from it before its records expire.
    pub fn catch_up_fetch_on_delta(self, leader_moved: bool, new_leader_epoch: bool) -> bool {
        match self {
            LeaderChange::None => false,
            LeaderChange::CatchUpFetch
            | LeaderChange::Diversion
            | LeaderChange::DiversionNoEvict => leader_moved,
            LeaderChange::EpochBump => new_leader_epoch,
        }
    }

    /// B2: whether a consolidating follower goes to the classic fetcher on this delta
    /// (#756 `consolidationLeaderEvidenceFetch`), so the new leader records it, instead of
    /// restarting on consolidation, which the leader never sees.
    pub fn divert_consolidating_follower(self, leader_moved: bool, new_leader_epoch: bool) -> bool {
        match self {
            LeaderChange::None | LeaderChange::CatchUpFetch => false,
            LeaderChange::Diversion | LeaderChange::DiversionNoEvict => leader_moved,
            LeaderChange::EpochBump => new_leader_epoch,
        }
    }

    /// Whether a diverted partition is removed from the consolidation fetcher as well as
    /// started on the classic one.
    pub fn evicts_consolidation_on_divert(self) -> bool {
        match self {
            LeaderChange::DiversionNoEvict => false,
            LeaderChange::None
            | LeaderChange::CatchUpFetch
            | LeaderChange::Diversion
            | LeaderChange::EpochBump => true,
        }
    }
}
