//! Rule `lag` (Inkless, docs/model/inkless.md#lag-check): when a follower in the ISR is out of
//! sync, judged by the leader from its recorded `ReplicaState`. Upstream: aiven/inkless
//! core/src/main/scala/kafka/cluster/Partition.scala, `isFollowerOutOfSync` /
//! `getOutOfSyncReplicas(maxLagMs, leaderEndOffsetCap)`; `ReplicaState.isCaughtUp`.

use crate::model::ReplicaState;

rule! {
    pub enum Lag {
        id: "lag",
        family: Inkless,
        field: lag,
        summary: "when a follower in the ISR is out of sync (docs/model/inkless.md#lag-check)",
        variants: {
            /// `uncapped`: classic Kafka, `¬(rec.leo = LEO_L ∨ now − lcu ≤ lag)`. On a
            /// consolidating partition the leader's LEO outgrows every follower's record (CE-b1).
            Uncapped {
                name: "uncapped",
                summary: "not (rec.leo = LEO_L or now − lcu ≤ lag)",
                provenance: "Partition.isFollowerOutOfSync at a5128f5095; ReplicaState.isCaughtUp",
            },
            /// `leader-cap` (commit 150ec6ed61): compare with `min(LEO_L, cap)`. A follower
            /// recorded above the seal fails the equality (CE-b2).
            LeaderCap {
                name: "leader-cap",
                summary: "compare rec.leo with min(LEO_L, seal)",
                provenance: "aiven/inkless #756 commit 150ec6ed61, Partition.getOutOfSyncReplicas(leaderEndOffsetCap)",
            },
            /// `both-caps` (commit 5f22fac12b): as `leader-cap`, and any record at or above the cap
            /// is in sync.
            BothCaps {
                name: "both-caps",
                summary: "leader cap, and rec.leo ≥ seal is always in sync",
                provenance: "aiven/inkless #756 commit 5f22fac12b, Partition.isFollowerOutOfSync",
            },
        },
    }
}

impl Lag {
    /// `isFollowerOutOfSync` on the leader's record of a follower; `cap` is the cap the
    /// `shrink` rule passes (-1: none).
    pub fn out_of_sync(
        self,
        rec: &ReplicaState,
        leader_leo: i64,
        cap: i64,
        now_ms: i64,
        lag_max_ms: i64,
    ) -> bool {
        let capped = cap >= 0;
        let leader_capped = if capped {
            leader_leo.min(cap)
        } else {
            leader_leo
        };
        match self {
            Lag::Uncapped => !rec.is_caught_up(leader_leo, now_ms, lag_max_ms),
            Lag::LeaderCap => !rec.is_caught_up(leader_capped, now_ms, lag_max_ms),
            Lag::BothCaps => {
                let at_or_above_cap = capped && rec.leo >= cap;
                !at_or_above_cap && !rec.is_caught_up(leader_capped, now_ms, lag_max_ms)
            }
        }
    }
}
