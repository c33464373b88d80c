//! Rule `truncation` (Kafka brokers, docs/model/brokers.md#truncation): how a follower finds
//! where its log stops agreeing with its leader's, and cuts it there. Four generations side
//! by side, oldest first; the question the model asks is always the same: given the
//! follower's log, its high watermark and the leader's log, where does it truncate?
//!
//! Upstream: the data-loss and divergence scenarios of KIP-101 (truncating to the high
//! watermark loses acknowledged records), the corner case KIP-279 fixed (an epoch the
//! follower does not know), and the fetch-path check that replaced the separate
//! OffsetsForLeaderEpoch round. Today's code (confluentinc/kafka 06d492d813):
//! core/src/main/scala/kafka/server/AbstractFetcherThread.scala `getOffsetTruncationState`,
//! `truncateOnFetchResponse`; core/src/main/scala/kafka/cluster/Partition.scala
//! `readRecords` (the diverging-epoch answer);
//! storage/.../epoch/LeaderEpochFileCache.java `endOffsetFor`.

use crate::model::log::{FetchPosition, Log, OutOfRange, UNDEFINED_EPOCH, UNDEFINED_OFFSET};

rule! {
    pub enum Truncation {
        id: "truncation",
        family: Kraft,
        field: truncation,
        summary: "where a follower truncates its log when its leader changes or its log diverged (docs/model/brokers.md#truncation)",
        variants: {
            /// `hw` (before KIP-101, Kafka ≤ 0.10.2): a follower whose leader changed cuts its
            /// log to its own high watermark at once, which can lag the leader's by a fetch, and
            /// fetches on with no epoch check. KIP-101's first scenario loses an acknowledged
            /// record this way; its second leaves two logs that disagree below the HW.
            Hw {
                name: "hw",
                summary: "on a leader change truncate to the local high watermark; no epoch checks",
                provenance: "KIP-101 (the behaviour it replaced): apache/kafka 0.10.2 ReplicaManager.makeFollowers (truncateTo the high watermark)",
            },
            /// `kip-101` (0.11): before fetching from a new leader the follower asks for the end
            /// offset of its latest epoch (OffsetsForLeaderEpoch v0, an offset only) and cuts to
            /// it; an unknown answer falls back to the high watermark.
            Kip101 {
                name: "kip-101",
                summary: "before the first fetch from a new leader, truncate to the leader's end offset for the follower's latest epoch (offset only)",
                provenance: "KIP-101, apache/kafka 0.11.0 ReplicaFetcherThread.maybeTruncate + LeaderEpochFileCache.endOffsetFor",
            },
            /// `kip-279` (2.0): the answer carries the leader's epoch too, and the follower
            /// repeats the exchange until both agree on the epoch (`getOffsetTruncationState`).
            Kip279 {
                name: "kip-279",
                summary: "as kip-101, with the leader's epoch in the answer and rounds until the epochs agree",
                provenance: "KIP-279, AbstractFetcherThread.getOffsetTruncationState (the loop on truncationCompleted)",
            },
            /// `fetch-divergence` (2.7+, today): every fetch carries the last fetched epoch; the
            /// leader answers a diverging epoch instead of records and the follower truncates
            /// with the same rule, one round per fetch.
            FetchDivergence {
                name: "fetch-divergence",
                summary: "every fetch carries lastFetchedEpoch; the leader answers a diverging epoch and the follower truncates (today)",
                provenance: "Partition.readRecords (divergingEpoch) + AbstractFetcherThread.truncateOnFetchResponse, confluentinc/kafka 06d492d813",
            },
        },
    }
}

/// Most OffsetsForLeaderEpoch rounds before a fetch (kip-279): each round strictly lowers
/// the epoch asked about, so the follower's epoch entries bound it.
const ROUNDS_MAX: usize = 64;

impl Truncation {
    /// `makeFollowers` before KIP-101: a follower whose leader changed truncates to its high
    /// watermark at once. `None`: no truncation at the delta.
    pub fn on_new_leader(self, leader_moved: bool, hw: i64) -> Option<i64> {
        match self {
            Truncation::Hw => leader_moved.then_some(hw),
            Truncation::Kip101 | Truncation::Kip279 | Truncation::FetchDivergence => None,
        }
    }

    /// Whether a follower that applied a new leader epoch truncates before its first fetch
    /// (the fetcher's Truncating state). KIP-101 added it on a leader change; later versions
    /// restart the fetcher, and truncate, on every new epoch.
    pub fn truncates_before_fetch(self, leader_moved: bool, new_leader_epoch: bool) -> bool {
        match self {
            Truncation::Hw | Truncation::FetchDivergence => false,
            Truncation::Kip101 => leader_moved,
            Truncation::Kip279 => new_leader_epoch,
        }
    }

    /// Where a follower in the Truncating state cuts its log, after as many
    /// OffsetsForLeaderEpoch rounds with `leader` as this generation makes.
    pub fn before_fetch(self, follower: &Log, follower_hw: i64, leader: &Log) -> i64 {
        match self {
            Truncation::Hw | Truncation::FetchDivergence => follower.end(),
            Truncation::Kip101 => {
                let end = leader.end_offset_for_v0(follower.latest_epoch());
                if end == UNDEFINED_OFFSET {
                    follower_hw.min(follower.end())
                } else {
                    end.min(follower.end())
                }
            }
            Truncation::Kip279 => kip279_rounds(follower, follower_hw, leader),
        }
    }

    /// The fetch-path check: `Some(offset)` when the leader answers a diverging epoch for
    /// a fetch at `at` (no records) and the follower truncates to `offset`. `at` is the
    /// fetcher's position (docs/model/fetcher.md), or the seal for an at-seal validation
    /// (docs/model/inkless.md#at-seal-fetch).
    pub fn on_fetch(
        self,
        follower: &Log,
        follower_hw: i64,
        at: FetchPosition,
        leader: &Log,
    ) -> Option<i64> {
        match self {
            Truncation::Hw | Truncation::Kip101 | Truncation::Kip279 => None,
            Truncation::FetchDivergence => fetch_divergence(follower, follower_hw, at, leader),
        }
    }
}

impl Truncation {
    /// `Partition.readRecords` with a last fetched epoch (today's generation only; the
    /// older ones send none) answers OFFSET_OUT_OF_RANGE before any divergence is looked
    /// at ([`read_records_answer`]).
    pub fn epoch_out_of_range(self, at: FetchPosition, leader: &Log) -> Option<OutOfRange> {
        if self != Truncation::FetchDivergence {
            return None;
        }
        match read_records_answer(at, leader) {
            EpochAnswer::OutOfRange(why) => Some(why),
            EpochAnswer::Consistent | EpochAnswer::Diverging { .. } => None,
        }
    }
}

/// What the leader's `Partition.readRecords` answers a fetch that carries a last fetched
/// epoch, before it reads any record.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum EpochAnswer {
    /// The epoch ends at or past the fetch offset on the leader: records follow.
    Consistent,
    /// A diverging epoch: the leader's largest epoch at or below the fetched one, and where
    /// it ends (the follower truncates by it, `truncateOnFetchResponse`).
    Diverging { epoch: i32, end_offset: i64 },
    /// OFFSET_OUT_OF_RANGE, and why.
    OutOfRange(OutOfRange),
}

/// [`EpochAnswer`] for a fetch at `at` (apache trunk d79bd502ec, `Partition.readRecords`;
/// upstream's `PartitionTest.testLastFetchedOffsetValidation`). A follower with no epoch
/// yet sends none, and nothing is checked.
pub fn read_records_answer(at: FetchPosition, leader: &Log) -> EpochAnswer {
    let FetchPosition {
        offset,
        last_fetched_epoch,
    } = at;
    if last_fetched_epoch == UNDEFINED_EPOCH {
        return EpochAnswer::Consistent;
    }
    let (epoch, end_offset) = leader.end_offset_for(last_fetched_epoch);
    if end_offset == UNDEFINED_OFFSET || epoch == UNDEFINED_EPOCH {
        return EpochAnswer::OutOfRange(OutOfRange::UnplacedEpoch);
    }
    if offset < leader.start() {
        return EpochAnswer::OutOfRange(OutOfRange::BelowLogStart);
    }
    if epoch < last_fetched_epoch || end_offset < offset {
        return EpochAnswer::Diverging { epoch, end_offset };
    }
    EpochAnswer::Consistent
}

/// The fetch-path cut: on a diverging epoch, where the follower truncates
/// (`truncateOnFetchResponse`, against its own log: never past its end). An out-of-range
/// answer is the model's out-of-range path ([`Truncation::epoch_out_of_range`]).
fn fetch_divergence(
    follower: &Log,
    follower_hw: i64,
    at: FetchPosition,
    leader: &Log,
) -> Option<i64> {
    match read_records_answer(at, leader) {
        EpochAnswer::Diverging { epoch, end_offset } => {
            Some(truncation_state(follower, follower_hw, epoch, end_offset).0)
        }
        EpochAnswer::Consistent | EpochAnswer::OutOfRange(_) => None,
    }
}

/// `getOffsetTruncationState` on the leader's answer `(epoch, end)`: the offset to cut to,
/// and whether the epochs agreed (else another round follows).
fn truncation_state(follower: &Log, follower_hw: i64, epoch: i32, end: i64) -> (i64, bool) {
    let replica_end = follower.end();
    if end == UNDEFINED_OFFSET {
        return (follower_hw.min(replica_end), true);
    }
    let (own_epoch, own_end) = follower.end_offset_for(epoch);
    if own_epoch == UNDEFINED_EPOCH {
        return (end.min(replica_end), true);
    }
    if own_epoch != epoch {
        return (own_end.min(replica_end), false);
    }
    (own_end.min(end).min(replica_end), true)
}

/// KIP-279's exchange: ask for the latest epoch, truncate, and ask again for the new latest
/// epoch until the leader's answer names an epoch the follower has.
fn kip279_rounds(follower: &Log, follower_hw: i64, leader: &Log) -> i64 {
    let mut log = follower.clone();
    for _ in 0..ROUNDS_MAX {
        let (epoch, end) = leader.end_offset_for(log.latest_epoch());
        let (to, done) = truncation_state(&log, follower_hw, epoch, end);
        log.truncate_to(to);
        if done {
            break;
        }
    }
    log.end()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `e@start` runs, then the end: `log(&[(1, 0), (2, 3)], 5)` is epoch 1 on [0,3), 2 on [3,5).
    fn log(entries: &[(i32, i64)], end: i64) -> Log {
        let mut l = Log::default();
        for (i, &(e, s)) in entries.iter().enumerate() {
            let next = entries.get(i + 1).map_or(end, |n| n.1);
            l.append(e, next - s);
        }
        l
    }

    /// apache trunk d79bd502ec, `PartitionTest.testLastFetchedOffsetValidation`, case by
    /// case: the leader's log holds epochs 0, 3, 4, 7, 9 up to 17 and leads epoch 10.
    #[test]
    fn read_records_answers_as_partition_test_last_fetched_offset_validation() {
        use EpochAnswer::{Consistent, Diverging};
        let unplaced = EpochAnswer::OutOfRange(OutOfRange::UnplacedEpoch);
        let below_start = EpochAnswer::OutOfRange(OutOfRange::BelowLogStart);
        let mut leader = log(&[(0, 0), (3, 2), (4, 8), (7, 13), (9, 14)], 17);
        leader.assign(10, 17);
        let answer = |leader: &Log, epoch: i32, offset: i64| {
            let at = FetchPosition {
                offset,
                last_fetched_epoch: epoch,
            };
            read_records_answer(at, leader)
        };
        let div = |epoch, end_offset| Diverging { epoch, end_offset };
        assert_eq!(answer(&leader, 2, 5), div(0, 2));
        assert_eq!(answer(&leader, 0, 4), div(0, 2));
        assert_eq!(answer(&leader, 6, 6), div(4, 13));
        assert_eq!(answer(&leader, 5, 9), div(4, 13));
        assert_eq!(answer(&leader, 10, 18), div(10, 17));
        for (epoch, offset) in [(0, 2), (7, 14), (9, 17), (10, 17)] {
            assert_eq!(
                answer(&leader, epoch, offset),
                Consistent,
                "{epoch}@{offset}"
            );
        }
        // An epoch above any the leader knows.
        assert_eq!(answer(&leader, 11, 5), unplaced);
        // The log start moves into epoch 3.
        leader.increment_start(5);
        assert_eq!(answer(&leader, 2, 8), div(2, 5));
        assert_eq!(answer(&leader, 0, 5), Consistent);
        assert_eq!(answer(&leader, 3, 5), Consistent);
        assert_eq!(answer(&leader, 0, 0), below_start);
        // Below the log start: out of range, diverging or not.
        leader.increment_start(10);
        assert_eq!(answer(&leader, 5, 6), below_start);
        assert_eq!(answer(&leader, 3, 6), below_start);
        // Only today's generation sends the epoch.
        let at = FetchPosition {
            offset: 5,
            last_fetched_epoch: 11,
        };
        assert_eq!(
            Truncation::FetchDivergence.epoch_out_of_range(at, &leader),
            Some(OutOfRange::UnplacedEpoch)
        );
        assert_eq!(Truncation::Kip279.epoch_out_of_range(at, &leader), None);
    }

    #[test]
    fn each_generation_cuts_a_diverged_tail_where_it_should() {
        // The follower led epoch 2 and wrote [3,5) nobody else has; the new leader (epoch 3)
        // wrote its own records from 3. The logs agree below 3.
        let follower = log(&[(1, 0), (2, 3)], 5);
        let mut leader = log(&[(1, 0)], 3);
        leader.append(3, 4);
        let hw = 1;
        let cut = |t: Truncation| {
            let at_delta = t.on_new_leader(true, hw);
            let before = t
                .truncates_before_fetch(true, true)
                .then(|| t.before_fetch(&follower, hw, &leader));
            let on_fetch = t.on_fetch(&follower, hw, FetchPosition::end_of(&follower), &leader);
            (at_delta, before, on_fetch)
        };
        assert_eq!(cut(Truncation::Hw), (Some(1), None, None));
        // v0: epoch 2 is unknown to the leader: the start of its next higher epoch, 3.
        assert_eq!(cut(Truncation::Kip101), (None, Some(3), None));
        assert_eq!(cut(Truncation::Kip279), (None, Some(3), None));
        assert_eq!(cut(Truncation::FetchDivergence), (None, None, Some(3)));
    }

    /// KIP-279's corner case: the follower's latest epoch sits between two of the leader's,
    /// and the leader's next epoch starts above where the follower's logs part. The v0 answer
    /// (an offset only) cuts too little; the rounds cut to the real divergence point.
    #[test]
    fn kip_279_needs_the_epoch_in_the_answer() {
        // Leader: epoch 1 on [0,2), epoch 4 from 2 to 6. Follower: epoch 1 on [0,2), then its
        // own epoch 2 on [2,3), and epoch 3 (which the leader never saw) on [3,5).
        let leader = log(&[(1, 0), (4, 2)], 6);
        let follower = log(&[(1, 0), (2, 2), (3, 3)], 5);
        assert_eq!(Truncation::Kip101.before_fetch(&follower, 0, &leader), 2);
        assert_eq!(Truncation::Kip279.before_fetch(&follower, 0, &leader), 2);
        // Here both find 2. The gap shows when the leader's answer lands above the point:
        let leader = log(&[(1, 0), (2, 2), (4, 4)], 6);
        let follower = log(&[(1, 0), (2, 2), (3, 3)], 5);
        // v0 for epoch 3: start of epoch 4 = 4, so [3,4) of epoch 3 survives against the
        // leader's epoch-2 record at 3.
        assert_eq!(Truncation::Kip101.before_fetch(&follower, 0, &leader), 4);
        assert_eq!(Truncation::Kip279.before_fetch(&follower, 0, &leader), 3);
        assert_eq!(
            Truncation::FetchDivergence.on_fetch(
                &follower,
                0,
                FetchPosition::end_of(&follower),
                &leader
            ),
            Some(3)
        );
    }

    #[test]
    fn agreeing_logs_are_never_cut() {
        let leader = log(&[(1, 0), (2, 3)], 7);
        let follower = log(&[(1, 0), (2, 3)], 5);
        for t in Truncation::ALL {
            assert_eq!(t.before_fetch(&follower, 2, &leader), 5, "{t:?}");
            assert_eq!(
                t.on_fetch(&follower, 2, FetchPosition::end_of(&follower), &leader),
                None,
                "{t:?}"
            );
        }
        // A follower ahead of its leader in the same epoch is cut back to the leader's end.
        let ahead = log(&[(1, 0), (2, 3)], 9);
        assert_eq!(
            Truncation::FetchDivergence.on_fetch(&ahead, 2, FetchPosition::end_of(&ahead), &leader),
            Some(7)
        );
    }

    /// The check reads at the fetch offset, not the follower's end: the leader's epoch 1
    /// ends at 5 (epoch 3 follows); a follower holding epoch 1 up to 8 diverges when it
    /// fetches at its end, and not when it is validated at a seal of 5.
    #[test]
    fn the_fetch_offset_decides_the_divergence() {
        let mut leader = log(&[(1, 0)], 5);
        leader.append(3, 2);
        let follower = log(&[(1, 0)], 8);
        let t = Truncation::FetchDivergence;
        assert_eq!(
            t.on_fetch(&follower, 0, FetchPosition::end_of(&follower), &leader),
            Some(5)
        );
        assert_eq!(
            t.on_fetch(
                &follower,
                0,
                FetchPosition {
                    offset: 5,
                    last_fetched_epoch: follower.latest_epoch()
                },
                &leader
            ),
            None
        );
    }
}
