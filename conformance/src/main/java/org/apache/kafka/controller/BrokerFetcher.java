package org.apache.kafka.controller;

import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.errors.FencedLeaderEpochException;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.storage.internals.log.LogStartOffsetIncrementReason;

import java.util.Optional;

import static org.apache.kafka.controller.BrokerShims.unwrap;

/**
 * One round of a follower's fetcher for one partition (BROKERS.md, {@code broker_fetch}).
 *
 * <p>The loop is the driver's: it mirrors, for a single partition and with the driver
 * choosing when a round runs, what {@code kafka.server.AbstractFetcherThread.doWork} does
 * ({@code maybeTruncate}, then {@code maybeFetch} / {@code processFetchRequest}) with
 * {@code ReplicaFetcherThread}'s callbacks ({@code processPartitionData}, {@code truncate},
 * {@code truncateFullyAndStartAt}, {@code latestEpoch}, {@code endOffsetForEpoch}) and
 * {@code RemoteLeaderEndPoint}'s requests answered in-process: FETCH by the leader's real
 * {@code Partition.fetchRecords} (as {@code ReplicaManager.readFromLog} calls it),
 * ListOffsets by its {@code Partition.fetchOffsetForTimestamp} (as
 * {@code ReplicaManager.fetchOffset}), OffsetsForLeaderEpoch by its
 * {@code Partition.lastOffsetForLeaderEpoch}. Every answer and every log change is the real
 * classes'. Not mirrored: fetch sessions, quotas and throttling, back-off delays after an
 * error (the next round is whenever the driver runs one), delayed fetches in the leader's
 * purgatory (the leader answers at once, as a read that found data or had to answer does),
 * tiered storage.
 */
final class BrokerFetcher {
    /** The release's methods and accessors this class calls by name, each resolved once per receiver class. */
    private static final BrokerShims.Site APPEND_AS_FOLLOWER = BrokerShims.site("appendRecordsToFollowerOrFutureReplica");
    private static final BrokerShims.Site DIVERGING_EPOCH = BrokerShims.site("divergingEpoch");
    private static final BrokerShims.Site END_OFFSET_FOR_EPOCH = BrokerShims.site("endOffsetForEpoch");
    private static final BrokerShims.Site EPOCH = BrokerShims.site("epoch");
    private static final BrokerShims.Site FETCHED_DATA = BrokerShims.site("fetchedData");
    private static final BrokerShims.Site FETCH_OFFSET_FOR_TIMESTAMP = BrokerShims.site("fetchOffsetForTimestamp");
    private static final BrokerShims.Site FETCH_RECORDS = BrokerShims.site("fetchRecords");
    private static final BrokerShims.Site HIGH_WATERMARK = BrokerShims.site("highWatermark");
    private static final BrokerShims.Site LAST_LEADER_EPOCH = BrokerShims.site("lastLeaderEpoch");
    private static final BrokerShims.Site LAST_OFFSET_FOR_LEADER_EPOCH = BrokerShims.site("lastOffsetForLeaderEpoch");
    private static final BrokerShims.Site LAST_OFFSET = BrokerShims.site("lastOffset");
    private static final BrokerShims.Site LEADER_EPOCH = BrokerShims.site("leaderEpoch");
    private static final BrokerShims.Site LOCAL_LOG_OR_EXCEPTION = BrokerShims.site("localLogOrException");
    private static final BrokerShims.Site LOG_END_OFFSET = BrokerShims.site("logEndOffset");
    private static final BrokerShims.Site LOG_START_OFFSET = BrokerShims.site("logStartOffset");
    private static final BrokerShims.Site MAYBE_INCREMENT_LOG_START_OFFSET =
        BrokerShims.site("maybeIncrementLogStartOffset");
    private static final BrokerShims.Site MAYBE_UPDATE_HIGH_WATERMARK = BrokerShims.site("maybeUpdateHighWatermark");
    private static final BrokerShims.Site OFFSET = BrokerShims.site("offset");
    private static final BrokerShims.Site RECORDS = BrokerShims.site("records");
    private static final BrokerShims.Site TIMESTAMP_AND_OFFSET_OPT = BrokerShims.site("timestampAndOffsetOpt");
    private static final BrokerShims.Site TRUNCATE_TO = BrokerShims.site("truncateTo");
    private static final BrokerShims.Site VALID_BYTES = BrokerShims.site("validBytes");

    private BrokerFetcher() {
    }

    /** The per-partition fetch size (replica.fetch.max.bytes default). */
    static final int FETCH_SIZE = 1024 * 1024;
    private static final long LATEST_TIMESTAMP = -1L;
    private static final long EARLIEST_TIMESTAMP = -2L;
    private static final int UNDEFINED_EPOCH = -1;
    private static final long UNDEFINED_EPOCH_OFFSET = -1L;

    /**
     * A follower's fetch state for one partition, as {@code PartitionFetchState} holds it:
     * the leader it fetches from, fetch offset, current leader epoch, last fetched epoch
     * (null: none), Truncating or Fetching, and the lag (null: not known yet).
     */
    static final class FetchState {
        final int leader;
        final long offset;
        final int leaderEpoch;
        final Integer lastFetchedEpoch;
        final boolean truncating;
        final Long lag;

        FetchState(int leader, long offset, int leaderEpoch, Integer lastFetchedEpoch, boolean truncating, Long lag) {
            this.leader = leader;
            this.offset = offset;
            this.leaderEpoch = leaderEpoch;
            this.lastFetchedEpoch = lastFetchedEpoch;
            this.truncating = truncating;
            this.lag = lag;
        }
    }

    /** What a round reports (BROKERS.md's {@code fetch}). */
    static final class FetchAnswer {
        boolean sent;
        String error = "NONE";
        long divergingEpoch = -1;
        long divergingEndOffset = -1;
        long records;
        long hw = -1;
        long logStart = -1;
    }

    /**
     * The initial fetch state when a follower's fetcher (re)starts:
     * {@code ReplicaManager.initialFetchOffset} (the log end when the log has a leader epoch,
     * else the high watermark) and {@code AbstractFetcherThread.partitionFetchState} with
     * truncation on fetch (Fetching with the latest epoch as last fetched epoch, or
     * Truncating when the log has none).
     */
    static FetchState initial(int leader, int leaderEpoch, Object log) {
        Integer latest = BrokerShims.latestEpoch(log);
        long offset = latest != null ? LOG_END_OFFSET.getLong(log) : HIGH_WATERMARK.getLong(log);
        return new FetchState(leader, offset, leaderEpoch, latest, latest == null, null);
    }

    /** One round: {@code AbstractFetcherThread.doWork} for this partition only. */
    static void round(BrokerSide side, BrokerSide.Broker follower, BrokerSide.Broker leader, int index,
                             BrokerSide.Outcome o) {
        FetchAnswer a = new FetchAnswer();
        o.fetch = a;
        FetchState st = follower.fetches.get(index);
        if (st != null && st.truncating) maybeTruncate(follower, leader, index, st, o);
        st = follower.fetches.get(index);
        if (st != null && !st.truncating) fetch(side, follower, leader, index, st, a, o);
        Object log = BrokerShims.getLog(follower.logManager, BrokerSide.topicPartition(index));
        if (log != null) {
            a.hw = HIGH_WATERMARK.getLong(log);
            a.logStart = LOG_START_OFFSET.getLong(log);
        }
    }

    /** {@code markPartitionFailed}: no more rounds until a delta restarts the fetcher. */
    private static void markFailed(BrokerSide.Broker f, int index) {
        f.failed.add(index);
        f.fetches.remove(index);
    }

    private static void unexpected(BrokerSide.Outcome o, Throwable t) {
        if (!(t instanceof ApiException)) o.fault(t);
    }

    private static Object followerLog(BrokerSide.Broker f, int index) {
        Object p = f.partitions.get(index);
        if (p == null) throw new NotLeaderOrFollowerException("broker " + f.id + " hosts no partition " + index);
        return LOCAL_LOG_OR_EXCEPTION.call(p);
    }

    /**
     * {@code AbstractFetcherThread.maybeTruncate} for a Truncating partition: with a latest
     * epoch, an OffsetsForLeaderEpoch request ({@code truncateToEpochEndOffsets}); without,
     * {@code truncateToHighWatermark} (truncate to the fetch offset).
     */
    private static void maybeTruncate(BrokerSide.Broker f, BrokerSide.Broker l, int index, FetchState st,
                                      BrokerSide.Outcome o) {
        Integer latest = BrokerShims.latestEpoch(followerLog(f, index));
        if (latest == null) {
            if (doTruncate(f, index, st.offset, o)) markTruncated(f, index, st, st.offset);
            return;
        }
        Object lp = l == null ? null : l.partitions.get(index);
        short error;
        OffsetForLeaderEpochResponseData.EpochEndOffset r = null;
        if (lp == null) {
            error = Errors.NOT_LEADER_OR_FOLLOWER.code();
        } else {
            r = (OffsetForLeaderEpochResponseData.EpochEndOffset) LAST_OFFSET_FOR_LEADER_EPOCH.call(lp,
                Optional.of(st.leaderEpoch), latest, true);
            error = r.errorCode();
        }
        if (error == Errors.NONE.code()) {
            long target = truncationOffset(f, index, st, r.leaderEpoch(), r.endOffset());
            if (doTruncate(f, index, target, o)) markTruncated(f, index, st, target);
        } else if (error == Errors.FENCED_LEADER_EPOCH.code()) {
            markFailed(f, index);  // onPartitionFenced: the request's epoch is the current one
        }
    }

    /** {@code updateFetchOffsetAndMaybeMarkTruncationComplete}: Fetching at the offset, latest epoch. */
    private static void markTruncated(BrokerSide.Broker f, int index, FetchState st, long offset) {
        Integer latest = BrokerShims.latestEpoch(followerLog(f, index));
        f.fetches.put(index, new FetchState(st.leader, offset, st.leaderEpoch, latest, false, st.lag));
    }

    /**
     * {@code doTruncate}: {@code ReplicaFetcherThread.truncate}, i.e. {@code Partition.truncateTo};
     * a failure marks the partition failed.
     */
    private static boolean doTruncate(BrokerSide.Broker f, int index, long offset, BrokerSide.Outcome o) {
        try {
            noteInsideABatch(f, index, offset, o);
            TRUNCATE_TO.call(f.partitions.get(index), offset, false);
            return true;
        } catch (Throwable t) {
            unexpected(o, t);
            markFailed(f, index);
            return false;
        }
    }

    /**
     * A truncation to an offset strictly inside one of the follower's batches removes the
     * whole batch ({@code LogSegment.truncateTo} cuts at the position of the batch holding
     * the offset) while the log end becomes the offset ({@code LocalLog.truncateTo}): the
     * records below it in that batch are gone. The model, having no batches, keeps them.
     * Noted only; the truncation goes on as upstream's and the step ends after it.
     */
    private static void noteInsideABatch(BrokerSide.Broker f, int index, long offset, BrokerSide.Outcome o) {
        for (long[] b : BrokerShims.logBatches(followerLog(f, index))) {
            if (b[0] < offset && offset <= b[1]) o.truncatedInsideABatch = true;
        }
    }

    /** {@code AbstractFetcherThread.getOffsetTruncationState} for the leader's (epoch, end offset). */
    private static long truncationOffset(BrokerSide.Broker f, int index, FetchState st, int epoch, long endOffset) {
        Object log = followerLog(f, index);
        long replicaEnd = LOG_END_OFFSET.getLong(log);
        if (endOffset == UNDEFINED_EPOCH_OFFSET) return st.offset;
        if (epoch == UNDEFINED_EPOCH) return Math.min(endOffset, replicaEnd);
        Object local = unwrap(END_OFFSET_FOR_EPOCH.call(log, epoch));
        if (local == null) return Math.min(endOffset, replicaEnd);
        long followerEnd = OFFSET.getLong(local);
        // OffsetAndEpoch: leaderEpoch() in 4.0, a record with epoch() later
        long followerEpoch = BrokerShims.hasMethod(local, "epoch")
            ? EPOCH.getLong(local) : LEADER_EPOCH.getLong(local);
        if (followerEpoch != epoch) return Math.min(followerEnd, replicaEnd);
        return Math.min(Math.min(followerEnd, endOffset), replicaEnd);
    }

    /** {@code maybeFetch}: build the request, have the leader answer, process the answer. */
    private static void fetch(BrokerSide side, BrokerSide.Broker f, BrokerSide.Broker l, int index, FetchState st,
                              FetchAnswer a, BrokerSide.Outcome o) {
        // RemoteLeaderEndPoint.buildFetch
        long logStart = LOG_START_OFFSET.getLong(followerLog(f, index));
        FetchRequest.PartitionData request = new FetchRequest.PartitionData(BrokerSide.topicId(index), st.offset,
            logStart, FETCH_SIZE, Optional.of(st.leaderEpoch), Optional.ofNullable(st.lastFetchedEpoch));
        a.sent = true;

        // The leader: ReplicaManager.readFromLog -> Partition.fetchRecords (a follower fetch,
        // one partition: minOneMessage, its max bytes), errors as the response carries them.
        Object info = null;
        Object lp = l == null ? null : l.partitions.get(index);
        if (lp == null) {
            a.error = Errors.NOT_LEADER_OR_FOLLOWER.name();
        } else {
            try {
                info = FETCH_RECORDS.call(lp, BrokerShims.followerFetchParams(f.id, f.epoch), request,
                    side.clock.milliseconds(), FETCH_SIZE, true, true);
            } catch (Throwable t) {
                a.error = Errors.forException(t).name();
                unexpected(o, t);
            }
        }
        if (info == null) {
            Errors e = Errors.valueOf(a.error);
            if (e == Errors.OFFSET_OUT_OF_RANGE) {
                handleOutOfRange(f, l, index, st, o);
            } else if (e == Errors.FENCED_LEADER_EPOCH) {
                markFailed(f, index);  // onPartitionFenced with the current epoch
            }
            // UNKNOWN_LEADER_EPOCH, NOT_LEADER_OR_FOLLOWER and the rest: retried later, nothing changes
            return;
        }
        long hw = HIGH_WATERMARK.getLong(info);
        long leaderLogStart = LOG_START_OFFSET.getLong(info);
        Object records = RECORDS.get(FETCHED_DATA.get(info));
        for (long[] b : BrokerShims.batches(records)) {
            a.records += b[1] - b[0] + 1;
            // The leader answers with whole batches: one that starts below the fetch offset
            // is applied as a batch (an empty follower log restarts at its base offset,
            // Partition.appendRecordsToFollowerOrFutureReplica), which the model, having
            // no batches, does not express. Noted only; the round goes on as upstream's.
            if (b[0] < st.offset) o.fromInsideABatch = true;
        }
        Object diverging = unwrap(DIVERGING_EPOCH.get(info));
        if (diverging != null) {
            // A diverging epoch: truncate (truncateOnFetchResponse), process no data this round.
            FetchResponseData.EpochEndOffset d = (FetchResponseData.EpochEndOffset) diverging;
            a.divergingEpoch = d.epoch();
            a.divergingEndOffset = d.endOffset();
            long target = truncationOffset(f, index, st, d.epoch(), d.endOffset());
            if (doTruncate(f, index, target, o)) markTruncated(f, index, st, target);
            return;
        }
        Object appendInfo;
        try {
            appendInfo = processPartitionData(f, index, st, records, hw, leaderLogStart);
        } catch (CorruptRecordException | InvalidRecordException e) {
            return;  // logged upstream, retried with the next fetch
        } catch (KafkaStorageException e) {
            markFailed(f, index);
            return;
        } catch (Throwable t) {
            o.fault(t);  // any other failure while applying the data: upstream logs it and marks the partition failed
            markFailed(f, index);
            return;
        }
        if (appendInfo == null) return;
        int validBytes = ((Number) VALID_BYTES.get(appendInfo)).intValue();
        long next = validBytes > 0 ? LAST_OFFSET.getLong(appendInfo) + 1 : st.offset;
        long lag = Math.max(0L, hw - next);
        if (validBytes > 0 || st.lag == null) {
            Object epoch = unwrap(LAST_LEADER_EPOCH.get(appendInfo));
            Integer lastFetched = epoch != null ? Integer.valueOf(((Number) epoch).intValue()) : st.lastFetchedEpoch;
            f.fetches.put(index, new FetchState(st.leader, next, st.leaderEpoch, lastFetched, false, lag));
        }
    }

    /**
     * {@code ReplicaFetcherThread.processPartitionData}: the fetch offset must be the log end,
     * the records go to {@code appendRecordsToFollowerOrFutureReplica} (with the leader epoch
     * of the request), then the high watermark and log start follow the leader's.
     */
    private static Object processPartitionData(BrokerSide.Broker f, int index, FetchState st, Object records,
                                               long hw, long leaderLogStart) {
        Object partition = f.partitions.get(index);
        if (partition == null) throw new NotLeaderOrFollowerException("no partition " + index);
        Object log = LOCAL_LOG_OR_EXCEPTION.call(partition);
        Object memory = BrokerShims.toMemoryRecords(records);
        long logEnd = LOG_END_OFFSET.getLong(log);
        if (st.offset != logEnd) {
            throw new IllegalStateException("fetched at " + st.offset + " but the log of partition " + index
                + " ends at " + logEnd);
        }
        Object appendInfo = unwrap(APPEND_AS_FOLLOWER.call(partition, memory, false,
            st.leaderEpoch));
        MAYBE_UPDATE_HIGH_WATERMARK.call(log, hw);
        MAYBE_INCREMENT_LOG_START_OFFSET.call(log, leaderLogStart,
            LogStartOffsetIncrementReason.LeaderOffsetIncremented);
        return appendInfo;
    }

    /**
     * {@code handleOutOfRangeError}: {@code fetchOffsetAndTruncate}; fenced marks the
     * partition failed, other errors leave it to a later round.
     */
    private static void handleOutOfRange(BrokerSide.Broker f, BrokerSide.Broker l, int index, FetchState st,
                                         BrokerSide.Outcome o) {
        try {
            f.fetches.put(index, fetchOffsetAndTruncate(f, l, index, st, o));
        } catch (FencedLeaderEpochException e) {
            markFailed(f, index);
        } catch (Throwable t) {
            unexpected(o, t);
        }
    }

    /**
     * {@code AbstractFetcherThread.fetchOffsetAndTruncate} without tiered storage: below the
     * leader's end, truncate to it; else start at max(leader's log start, own log end),
     * truncating fully when the leader's log starts past it.
     */
    private static FetchState fetchOffsetAndTruncate(BrokerSide.Broker f, BrokerSide.Broker l, int index,
                                                     FetchState st, BrokerSide.Outcome o) {
        Object partition = f.partitions.get(index);
        long replicaEnd = LOG_END_OFFSET.getLong(followerLog(f, index));
        long leaderEnd = listOffset(l, index, LATEST_TIMESTAMP, st.leaderEpoch, o);
        if (leaderEnd < replicaEnd) {
            noteInsideABatch(f, index, leaderEnd, o);
            TRUNCATE_TO.call(partition, leaderEnd, false);
            return new FetchState(st.leader, leaderEnd, st.leaderEpoch,
                BrokerShims.latestEpoch(followerLog(f, index)), false, 0L);
        }
        long leaderStart = listOffset(l, index, EARLIEST_TIMESTAMP, st.leaderEpoch, o);
        long offsetToFetch = Math.max(leaderStart, replicaEnd);
        if (leaderStart > replicaEnd) BrokerShims.truncateFullyAndStartAt(partition, leaderStart);
        return new FetchState(st.leader, offsetToFetch, st.leaderEpoch,
            BrokerShims.latestEpoch(followerLog(f, index)), false, leaderEnd - offsetToFetch);
    }

    /**
     * A ListOffsets request from the follower (replica id set: no isolation level, only from
     * the leader) answered by the leader's {@code Partition.fetchOffsetForTimestamp}; an error
     * comes back as its exception, as {@code RemoteLeaderEndPoint.fetchOffset} throws it.
     */
    private static long listOffset(BrokerSide.Broker l, int index, long timestamp, int leaderEpoch,
                                   BrokerSide.Outcome o) {
        Object lp = l == null ? null : l.partitions.get(index);
        if (lp == null) throw Errors.NOT_LEADER_OR_FOLLOWER.exception();
        Object holder;
        try {
            holder = FETCH_OFFSET_FOR_TIMESTAMP.call(lp, timestamp, BrokerShims.none(), Optional.of(leaderEpoch),
                true, BrokerShims.none());
        } catch (Throwable t) {
            unexpected(o, t);
            throw Errors.forException(t).exception();
        }
        Object found = unwrap(TIMESTAMP_AND_OFFSET_OPT.call(holder));
        return found == null ? -1L : OFFSET.getLong(found);
    }
}
