//! Rule `leader-change` (Inkless, spec inkless-isr.md §2(c)): what a follower of a
//! switched partition does when a metadata delta arrives. Upstream: aiven/inkless
//! core/src/main/scala/kafka/server/ReplicaManager.scala, `applyLocalFollowersDelta`
//! (`previousLeaderId`, `leaderChanged`, `consolidationLeaderEvidenceFetch`).

use crate::model::{LeaderChange as Knobs, Trigger};

rule! {
    pub enum LeaderChange {
        id: "leader-change",
        family: Inkless,
        field: leader_change,
        summary: "what a follower of a switched partition does on a metadata delta (spec §2(c))",
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
                provenance: "argued against in #756 (spec CE-c4)",
            },
            /// `diversion-no-evict` (wrong on purpose, CE-c3): diverts but leaves the old
            /// consolidation fetcher running, so two writers append to one log.
            DiversionNoEvict {
                name: "diversion-no-evict",
                summary: "WRONG on purpose: divert without evicting the consolidation fetcher",
                provenance: "argued against in #756 commit 5f22fac12b (spec CE-c3)",
            },
        },
    }
}

impl LeaderChange {
    pub fn knobs(self) -> Knobs {
        let (catch_up, divert, evict_consolidation) = match self {
            LeaderChange::None => (Trigger::Never, Trigger::Never, true),
            LeaderChange::CatchUpFetch => (Trigger::LeaderMoved, Trigger::Never, true),
            LeaderChange::Diversion => (Trigger::LeaderMoved, Trigger::LeaderMoved, true),
            LeaderChange::EpochBump => (Trigger::EpochBump, Trigger::EpochBump, true),
            LeaderChange::DiversionNoEvict => (Trigger::LeaderMoved, Trigger::LeaderMoved, false),
        };
        Knobs {
            catch_up,
            divert,
            evict_consolidation,
        }
    }
}
