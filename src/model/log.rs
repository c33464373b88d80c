//! A replica's local log as its leader-epoch cache sees it: the log end offset and, per
//! leader epoch, the offset its records start at. A record is identified by its offset and
//! the epoch of the leader that appended it, as in Kafka, where every batch carries its
//! leader epoch: two replicas hold the same record at an offset exactly when their logs
//! have the same epoch there (one leader per epoch, and a leader never rewrites its own log).
//!
//! Upstream (confluentinc/kafka 06d492d813, the apache trunk lineage):
//! storage/src/main/java/org/apache/kafka/storage/internals/epoch/LeaderEpochFileCache.java,
//! `assign`, `maybeTruncateNonMonotonicEntries`, `truncateFromEnd`, `endOffsetFor`,
//! `latestEpoch`. Model: docs/model/brokers.md#local-replica.
//!
//! Besides the cache, a log has the two offsets `UnifiedLog` keeps beside it: the log start
//! offset (records below it are deleted on purpose: DeleteRecords,
//! `UnifiedLog.maybeIncrementLogStartOffset`) and the recovery point (everything below it
//! is flushed to disk, `LocalLog.recoveryPoint`; a power loss keeps at least that much).
//! Both are in storage/src/main/java/org/apache/kafka/storage/internals/log/ at the same
//! commit (`UnifiedLog.java`: `maybeIncrementLogStartOffset`, `updateLogStartOffset`,
//! `truncateTo`, `truncateFullyAndStartAt`, `flush`; `LocalLog.java`: `updateLogEndOffset`).
//!
//! Bounded: one entry per leader epoch that wrote to this log, and epochs only grow with
//! events; `ENTRIES_MAX` caps it (a history that needs more is refused by the model).

/// `UNDEFINED_EPOCH` and `UNDEFINED_EPOCH_OFFSET` of the cache's answers.
pub const UNDEFINED_EPOCH: i32 = -1;
pub const UNDEFINED_OFFSET: i64 = -1;

/// The most epoch entries one log keeps (a history has at most `EVENTS_MAX` events, and
/// each can start at most one epoch on a log).
pub const ENTRIES_MAX: usize = 1100;

/// Where a fetch asks from: the fetch offset and the last fetched epoch the leader checks it
/// against (`FetchRequest.PartitionData`). A fetcher that made every change to its log asks
/// from [`FetchPosition::end_of`] the log; one whose log was cut under it asks from where it
/// was (docs/model/fetcher.md).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct FetchPosition {
    pub offset: i64,
    pub last_fetched_epoch: i32,
}

/// Why a leader answers a fetch that carries a last fetched epoch OFFSET_OUT_OF_RANGE
/// before reading any record (`Partition.readRecords`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum OutOfRange {
    /// Its epoch cache cannot place the epoch (`endOffsetFor` answers UNDEFINED: an epoch
    /// above its latest, or no entry at all).
    UnplacedEpoch,
    /// The fetch offset is below its log start, diverging or not.
    BelowLogStart,
}

impl FetchPosition {
    /// The end of `log`, having fetched its latest epoch.
    pub fn end_of(log: &Log) -> FetchPosition {
        FetchPosition {
            offset: log.end(),
            last_fetched_epoch: log.latest_epoch(),
        }
    }
}

/// `EpochEntry`: records of `epoch` start at `start_offset`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct EpochEntry {
    pub epoch: i32,
    pub start_offset: i64,
}

#[derive(PartialEq, Eq, Debug, Hash, Default)]
pub struct Log {
    /// Strictly increasing in both epoch and start offset (the cache's monotonicity).
    entries: Vec<EpochEntry>,
    end_offset: i64,
    /// `logStartOffset`: records below it are deleted; never above the end.
    start_offset: i64,
    /// `recoveryPoint`: the first offset not flushed to disk; never above the end.
    recovery_point: i64,
}

clone_reusing!(Log {
    entries,
    end_offset,
    start_offset,
    recovery_point,
});

impl Log {
    /// The log end offset (LEO).
    pub fn end(&self) -> i64 {
        self.end_offset
    }

    /// The log start offset: the first record the log still holds (or its end when empty).
    pub fn start(&self) -> i64 {
        self.start_offset
    }

    /// The recovery point: everything below it is on disk.
    pub fn recovery_point(&self) -> i64 {
        self.recovery_point
    }

    pub fn entries(&self) -> &[EpochEntry] {
        &self.entries
    }

    /// `latestEpoch`: the epoch of the last entry (`UNDEFINED_EPOCH` when empty).
    pub fn latest_epoch(&self) -> i32 {
        self.entries.last().map_or(UNDEFINED_EPOCH, |e| e.epoch)
    }

    /// The epoch of the leader that appended the record at `offset`, if the log holds it.
    pub fn epoch_at(&self, offset: i64) -> Option<i32> {
        if offset < self.start_offset || offset >= self.end_offset {
            return None;
        }
        self.entries
            .iter()
            .rev()
            .find(|e| e.start_offset <= offset)
            .map(|e| e.epoch)
    }

    /// `assign(epoch, startOffset)`: record that `epoch` starts at `start_offset`. A no-op
    /// when the latest entry already has this epoch at or before that offset; otherwise
    /// entries that are not below it in both epoch and offset are dropped first.
    pub fn assign(&mut self, epoch: i32, start_offset: i64) {
        assert!(epoch >= 0 && start_offset >= 0, "invalid epoch entry");
        let needed = self
            .entries
            .last()
            .is_none_or(|l| l.epoch != epoch || start_offset < l.start_offset);
        if !needed {
            return;
        }
        while self
            .entries
            .last()
            .is_some_and(|l| l.epoch >= epoch || l.start_offset >= start_offset)
        {
            self.entries.pop();
        }
        assert!(self.entries.len() < ENTRIES_MAX, "epoch entries bounded");
        self.entries.push(EpochEntry {
            epoch,
            start_offset,
        });
    }

    /// Append `records` records written in leader epoch `epoch` (`appendAsLeader` stamps
    /// the leader's epoch; a follower appends what it fetched, with the leader's epochs).
    pub fn append(&mut self, epoch: i32, records: i64) {
        if records <= 0 {
            return;
        }
        self.assign(epoch, self.end_offset);
        self.end_offset += records;
    }

    /// Append the leader's records `[from, to)` with the epochs the leader's log has there.
    /// `from` must be this log's end.
    /// A log that ends below the leader's start first starts over at it, as a follower does
    /// after OFFSET_OUT_OF_RANGE (`truncate_fully_and_start_at`).
    pub fn copy_from(&mut self, leader: &Log, to: i64) {
        if self.end_offset < leader.start_offset {
            self.truncate_fully_and_start_at(leader.start_offset);
        }
        let from = self.end_offset;
        let to = to.min(leader.end_offset);
        for (i, e) in leader.entries.iter().enumerate() {
            let next = leader
                .entries
                .get(i + 1)
                .map_or(leader.end_offset, |n| n.start_offset);
            let (lo, hi) = (e.start_offset.max(from), next.min(to));
            if lo < hi {
                self.append(e.epoch, hi - lo);
            }
        }
    }

    /// `UnifiedLog.truncateTo(offset)` with `truncateFromEnd`: drop records at and above
    /// `offset` and the epoch entries that start there or later. At or above the end it
    /// still drops entries that start at the end (an epoch a former leader assigned but
    /// never wrote in), as upstream does.
    /// Below the log start the whole log goes and it starts at `offset` (upstream
    /// `truncateFullyAndStartAt` when the first segment starts above the target; otherwise
    /// `logStartOffset = min(target, logStartOffset)`). The recovery point follows the end
    /// down (`LocalLog.updateLogEndOffset`).
    pub fn truncate_to(&mut self, offset: i64) {
        let offset = offset.max(0).min(self.end_offset);
        if offset < self.start_offset {
            self.truncate_fully_and_start_at(offset);
            return;
        }
        self.entries.retain(|e| e.start_offset < offset);
        self.end_offset = offset;
        self.recovery_point = self.recovery_point.min(offset);
    }

    /// `AbstractFetcherThread.fetchOffsetAndTruncate` on the follower's log after an
    /// OFFSET_OUT_OF_RANGE answer, judged on its end against the leader's range: past the
    /// leader's end it is cut to it (an empty log above it starts over there); ending below
    /// the leader's start it starts over at it. Returns whether the log changed.
    pub fn fit_to_range_of(&mut self, leader: &Log) -> bool {
        if self.end_offset > leader.end_offset {
            self.truncate_to(leader.end_offset);
        } else if self.end_offset < leader.start_offset {
            self.truncate_fully_and_start_at(leader.start_offset);
        } else {
            return false;
        }
        true
    }

    /// `UnifiedLog.truncateFullyAndStartAt(offset)`: delete every record and start an empty
    /// log at `offset` (the cache is cleared; the log start, the end and the recovery point
    /// are all `offset`).
    pub fn truncate_fully_and_start_at(&mut self, offset: i64) {
        let offset = offset.max(0);
        self.entries.clear();
        self.start_offset = offset;
        self.end_offset = offset;
        self.recovery_point = self.recovery_point.min(offset);
    }

    /// `UnifiedLog.maybeIncrementLogStartOffset(offset)` (the caller checks it against the
    /// high watermark): records below `offset` are deleted; the cache's
    /// `truncateFromStart` drops the entries wholly below it and moves the one it falls in
    /// to start there; the recovery point rises to it (`updateLogStartOffset`). Returns
    /// whether the start moved.
    pub fn increment_start(&mut self, offset: i64) -> bool {
        let offset = offset.min(self.end_offset);
        if offset <= self.start_offset {
            return false;
        }
        let floor = self.entries.iter().rposition(|e| e.start_offset <= offset);
        if let Some(i) = floor {
            self.entries.drain(..i);
            self.entries[0].start_offset = offset;
        }
        // An entry that starts exactly at the end (an epoch assigned, nothing written) and
        // the rest stay as they are.
        self.start_offset = offset;
        self.recovery_point = self.recovery_point.max(offset);
        true
    }

    /// `UnifiedLog.flush`: everything written so far is on disk.
    pub fn flush(&mut self) {
        self.recovery_point = self.end_offset;
    }

    /// `endOffsetFor(requestedEpoch, logEndOffset)`: the largest epoch ≤ `requested` this
    /// log knows and the offset where the next higher epoch starts (the log end for the
    /// latest epoch); `(UNDEFINED_EPOCH, UNDEFINED_OFFSET)` when nothing is known above it.
    pub fn end_offset_for(&self, requested: i32) -> (i32, i64) {
        if requested == UNDEFINED_EPOCH {
            return (UNDEFINED_EPOCH, UNDEFINED_OFFSET);
        }
        if self.latest_epoch() == requested {
            return (requested, self.end_offset);
        }
        let Some(higher) = self.entries.iter().find(|e| e.epoch > requested) else {
            return (UNDEFINED_EPOCH, UNDEFINED_OFFSET);
        };
        match self.entries.iter().rev().find(|e| e.epoch <= requested) {
            None => (requested, higher.start_offset),
            Some(floor) => (floor.epoch, higher.start_offset),
        }
    }

    /// The same lookup as a leader before KIP-279 answered it (OffsetsForLeaderEpoch v0, an
    /// offset only): the start of the first higher epoch, the log end for the latest epoch,
    /// and no answer for an epoch below the first one known (apache/kafka 0.11.0,
    /// core/src/main/scala/kafka/server/epoch/LeaderEpochFileCache.scala `endOffsetFor`).
    pub fn end_offset_for_v0(&self, requested: i32) -> i64 {
        if requested == UNDEFINED_EPOCH {
            return UNDEFINED_OFFSET;
        }
        if self.latest_epoch() == requested {
            return self.end_offset;
        }
        let first = self.entries.first().map_or(i32::MAX, |e| e.epoch);
        match self.entries.iter().find(|e| e.epoch > requested) {
            Some(higher) if requested >= first => higher.start_offset,
            _ => UNDEFINED_OFFSET,
        }
    }

    /// The first offset where this log and `other` hold different records (or where the
    /// shorter one ends): everything below it is the same on both.
    /// Offsets below either log start are deleted on purpose and not compared.
    pub fn diverges_from(&self, other: &Log) -> i64 {
        let end = self.end_offset.min(other.end_offset);
        let first = self.start_offset.max(other.start_offset);
        // Both entry lists are sorted by start offset: walk them merged, without a buffer.
        let (mut a, mut b) = (
            starts_within(&self.entries, first, end).peekable(),
            starts_within(&other.entries, first, end).peekable(),
        );
        loop {
            let s = match (a.peek(), b.peek()) {
                (Some(&x), Some(&y)) if x <= y => a.next(),
                (_, Some(_)) => b.next(),
                (Some(_), None) => a.next(),
                (None, None) => return end,
            };
            let s = s.expect("peeked");
            if self.epoch_at(s) != other.epoch_at(s) {
                return s;
            }
        }
    }

    /// A log of `records` records all written in `epoch` (tests and starting states).
    pub fn of(epoch: i32, records: i64) -> Log {
        let mut log = Log::default();
        log.append(epoch, records);
        log
    }

    /// Compact form for step tables and details: `e1@0 e3@5 ..8`, with the log start in
    /// front when records were deleted (`3.. e1@3 e3@5 ..8`).
    pub fn describe(&self) -> String {
        let mut parts: Vec<String> = self
            .entries
            .iter()
            .map(|e| format!("e{}@{}", e.epoch, e.start_offset))
            .collect();
        parts.push(format!("..{}", self.end_offset));
        if self.start_offset > 0 {
            parts.insert(0, format!("{}..", self.start_offset));
        }
        parts.join(" ")
    }
}

/// The entries' start offsets, raised to `first`, below `end` (sorted, as the entries are).
fn starts_within(entries: &[EpochEntry], first: i64, end: i64) -> impl Iterator<Item = i64> + '_ {
    entries
        .iter()
        .map(move |e| e.start_offset.max(first))
        .filter(move |&s| s < end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(entries: &[(i32, i64)], end: i64) -> Log {
        let mut l = Log::default();
        for w in entries.windows(2) {
            l.append(w[0].0, w[1].1 - w[0].1);
        }
        if let Some(&(e, s)) = entries.last() {
            l.append(e, end - s);
        }
        l
    }

    #[test]
    fn a_follower_ending_at_the_leaders_start_keeps_its_records() {
        // In range (the fetch offset is the leader's log start): no full truncation; the
        // follower's own start moves only when a fetch answer tells it (increment_start).
        let mut leader = log(&[(0, 0)], 8);
        assert!(leader.increment_start(5));
        let mut follower = log(&[(0, 0)], 5);
        follower.copy_from(&leader, 8);
        assert_eq!((follower.start(), follower.end()), (0, 8));
        assert_eq!(follower.describe(), "e0@0 ..8");
        // One below: out of range, the follower starts over at the leader's start.
        let mut behind = log(&[(0, 0)], 4);
        behind.copy_from(&leader, 8);
        assert_eq!((behind.start(), behind.end()), (5, 8));
    }

    #[test]
    fn records_carry_the_epoch_that_wrote_them() {
        let l = log(&[(1, 0), (3, 5)], 8);
        assert_eq!(l.describe(), "e1@0 e3@5 ..8");
        assert_eq!(
            (0..9).map(|o| l.epoch_at(o)).collect::<Vec<_>>(),
            [1, 1, 1, 1, 1, 3, 3, 3]
                .into_iter()
                .map(Some)
                .chain([None])
                .collect::<Vec<_>>()
        );
        assert_eq!(l.epoch_at(-1), None);
    }

    #[test]
    fn assign_keeps_entries_monotonic() {
        let mut l = log(&[(1, 0), (3, 5)], 8);
        // A new leader epoch at the log end: an entry with no records yet.
        l.assign(4, 8);
        assert_eq!(l.describe(), "e1@0 e3@5 e4@8 ..8");
        // The same epoch again is a no-op; a lower start for it replaces it.
        l.assign(4, 8);
        assert_eq!(l.entries().len(), 3);
        l.assign(4, 6);
        assert_eq!(l.describe(), "e1@0 e3@5 e4@6 ..8");
        // An older epoch at a later offset drops every entry not below it.
        l.assign(2, 7);
        assert_eq!(l.describe(), "e1@0 e2@7 ..8");
    }

    #[test]
    fn truncation_drops_the_entries_that_start_at_or_after_it() {
        let mut l = log(&[(1, 0), (3, 5)], 8);
        l.truncate_to(5);
        assert_eq!(l.describe(), "e1@0 ..5");
        l.truncate_to(9);
        assert_eq!(
            l.describe(),
            "e1@0 ..5",
            "truncating above the end is a no-op"
        );
        // ...except for an epoch assigned at the end and never written in.
        l.assign(4, 5);
        l.truncate_to(5);
        assert_eq!(l.describe(), "e1@0 ..5");
        l.truncate_to(0);
        assert_eq!(l.describe(), "..0");
        assert_eq!(l.latest_epoch(), UNDEFINED_EPOCH);
    }

    #[test]
    fn end_offset_for_answers_as_the_cache_does() {
        let l = log(&[(2, 0), (4, 5), (7, 9)], 12);
        let answers: Vec<(i32, i64)> = (-1..9).map(|e| l.end_offset_for(e)).collect();
        assert_eq!(
            answers,
            vec![
                (UNDEFINED_EPOCH, UNDEFINED_OFFSET), // undefined asked
                (0, 0),                              // below the first: its start
                (1, 0),
                (2, 5), // known: start of the next
                (2, 5), // unknown 3: the floor epoch 2
                (4, 9),
                (4, 9),
                (4, 9),
                (7, 12),                             // latest: the log end
                (UNDEFINED_EPOCH, UNDEFINED_OFFSET), // above the latest
            ]
        );
        let v0: Vec<i64> = (-1..9).map(|e| l.end_offset_for_v0(e)).collect();
        assert_eq!(v0, vec![-1, -1, -1, 5, 5, 9, 9, 9, 12, -1]);
    }

    #[test]
    fn copy_from_takes_the_leaders_epochs() {
        let leader = log(&[(1, 0), (3, 4), (5, 6)], 9);
        let mut f = log(&[(1, 0)], 2);
        f.copy_from(&leader, 7);
        assert_eq!(f.describe(), "e1@0 e3@4 e5@6 ..7");
        f.copy_from(&leader, 100);
        assert_eq!(f.describe(), "e1@0 e3@4 e5@6 ..9");
        assert!((0..9).all(|o| f.epoch_at(o) == leader.epoch_at(o)));
    }

    #[test]
    fn the_log_start_deletes_below_it_and_moves_the_floor_entry() {
        let mut l = log(&[(1, 0), (3, 5)], 8);
        assert!(!l.increment_start(0), "not above the start: nothing moves");
        assert!(l.increment_start(6));
        assert_eq!(l.describe(), "6.. e3@6 ..8");
        assert_eq!((l.start(), l.recovery_point()), (6, 6));
        assert_eq!((l.epoch_at(5), l.epoch_at(6)), (None, Some(3)));
        assert!(!l.increment_start(4), "the start never moves down");
        // Another log that holds different records below 6 matches it from 6 up.
        let other = log(&[(2, 0), (3, 5)], 8);
        assert_eq!(l.diverges_from(&other), 8);
        assert_eq!(other.diverges_from(&log(&[(1, 0), (3, 5)], 8)), 0);
        // Truncating below the start empties the log and starts it there.
        l.truncate_to(2);
        assert_eq!(
            (l.describe(), l.start(), l.end()),
            ("2.. ..2".to_string(), 2, 2)
        );
    }

    #[test]
    fn a_follower_behind_the_leaders_start_starts_over_there() {
        let mut leader = log(&[(1, 0), (3, 5)], 8);
        leader.increment_start(6);
        let mut f = log(&[(1, 0)], 2);
        f.copy_from(&leader, 8);
        assert_eq!(f.describe(), "6.. e3@6 ..8");
        let mut g = Log::of(1, 4);
        g.flush();
        g.truncate_fully_and_start_at(7);
        assert_eq!((g.start(), g.end(), g.recovery_point()), (7, 7, 4));
        assert!(g.entries().is_empty());
    }

    #[test]
    fn the_recovery_point_follows_flushes_and_truncations() {
        let mut l = Log::of(1, 5);
        assert_eq!(l.recovery_point(), 0, "nothing is flushed until a flush");
        l.flush();
        assert_eq!(l.recovery_point(), 5);
        l.append(2, 3);
        assert_eq!(l.recovery_point(), 5, "appends are not flushed");
        l.truncate_to(3);
        assert_eq!(l.recovery_point(), 3, "follows the end down");
        l.truncate_to(9);
        assert_eq!(l.recovery_point(), 3);
    }
}
