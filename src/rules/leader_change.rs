//! Rule `leader-change` (Inkless, spec inkless-isr.md §2(c)): what a follower of a
//! switched partition does when a metadata delta arrives. Upstream: aiven/inkless
//! core/src/main/scala/kafka/server/ReplicaManager.scala, `applyLocalFollowersDelta`
//! (`previousLeaderId`, `leaderChanged`, `consolidationLeaderEvidenceFetch`).

use crate::model::{LeaderChange as Knobs, Trigger};

#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum LeaderChange {
    /// `none` (main, the #756 base): an at-seal follower in the ISR schedules no fetch and a
    /// consolidating follower restarts on consolidation, so the new leader never hears from
    /// them (CE-c1, CE-c2).
    None,
    /// `catch-up-fetch` (#756 commit 1, 150ec6ed61): a switched, non-consolidating follower
    /// fetches once when the leader moved.
    CatchUpFetch,
    /// `diversion` (#756 commit 3, 5f22fac12b): also divert a consolidating follower to
    /// the classic fetcher when the leader moved, evicting its consolidation fetcher.
    Diversion,
    /// `epoch-bump` (wrong on purpose, CE-c4): keyed on any new leader epoch instead of a
    /// leader move, so a same-leader bump diverts and fetches too.
    EpochBump,
    /// `diversion-no-evict` (wrong on purpose, CE-c3): diverts but leaves the old
    /// consolidation fetcher running, so two writers append to one log.
    DiversionNoEvict,
}

impl LeaderChange {
    pub const ALL: [LeaderChange; 5] = [
        LeaderChange::None,
        LeaderChange::CatchUpFetch,
        LeaderChange::Diversion,
        LeaderChange::EpochBump,
        LeaderChange::DiversionNoEvict,
    ];

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
