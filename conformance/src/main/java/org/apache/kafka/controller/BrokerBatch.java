package org.apache.kafka.controller;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * One step of a history on the brokers as one request ({@code broker_batch}, BROKERS.md):
 * the calls the model's broker side made in that step, performed in order exactly as the
 * single {@code broker_*} ops perform them, with the replicas rendered once at the end.
 * The driver decides what the judge used to decide between single ops, on the same
 * state: an AlterPartition answer the history asserted goes to the proposal of this step
 * that it answers (and is not sent when no Partition made one); a catch-up fetches round
 * after round until the follower is at the leader's end; a DeleteRecords whose start
 * would fall inside a record batch ends the step unperformed, and a fetch answered with a
 * batch that starts below its offset ends the step after it (the model has no batches).
 * One request per step instead of one per call: the answer's rendering of every replica
 * was most of the driver's time.
 */
final class BrokerBatch {
    /** The release's methods and accessors this class calls by name, each resolved once per receiver class. */
    private static final BrokerShims.Site HIGH_WATERMARK = BrokerShims.site("highWatermark");
    private static final BrokerShims.Site LOG_END_OFFSET = BrokerShims.site("logEndOffset");

    private BrokerBatch() {
    }

    /**
     * Fetch rounds a catch-up may take before the follower counts as not caught up (each
     * round moves at least one batch, and histories append a few batches).
     */
    static final int CATCH_UP_ROUNDS_MAX = 64;
    /** Calls one batch may carry (a step of a history makes at most a few hundred). */
    static final int CALLS_MAX = 10_000;
    /** The reason a step is stopped before a DeleteRecords inside a batch. */
    static final String MID_BATCH_DELETE = "mid_batch_delete";
    /** The reason a step is stopped after a fetch answered from inside a batch. */
    static final String MID_BATCH_FETCH = "mid_batch_fetch";
    /** The reason a step is stopped after a power loss that recovers records below the log start. */
    static final String RECOVERY_BELOW_START = "recovery_below_log_start";
    /** The reason a step is stopped after a follower truncated inside one of its batches. */
    static final String MID_BATCH_TRUNCATE = "mid_batch_truncate";

    static void run(BrokerSide side, Map<String, Object> req, StringBuilder out) {
        Object field = req.get("calls");
        if (!(field instanceof List)) throw new ConformanceDriver.DriverException("field calls is not an array");
        List<?> calls = (List<?>) field;
        if (calls.size() > CALLS_MAX) throw new ConformanceDriver.DriverException("more than " + CALLS_MAX + " calls");
        int sent = 0;
        List<BrokerSide.Proposal> proposals = new ArrayList<>();
        List<BrokerSide.Proposal> asserted = new ArrayList<>();
        // This step's proposals not answered yet, oldest first.
        List<BrokerSide.Proposal> outstanding = new ArrayList<>();
        int faultAt = -1;
        String fault = null;
        String beyond = null;
        for (int i = 0; i < calls.size(); i++) {
            if (!(calls.get(i) instanceof Map)) throw new ConformanceDriver.DriverException("call " + i + " is not an object");
            @SuppressWarnings("unchecked")
            Map<String, Object> call = (Map<String, Object>) calls.get(i);
            String op = RequestFields.text(call, "op");
            if (op.equals("broker_batch")) throw new ConformanceDriver.DriverException("a batch in a batch");
            if (op.equals("broker_alter_answer") && !answers(call, outstanding, asserted)) continue;
            if (op.equals("broker_delete_records") && insideABatch(side, RequestFields.integer(call, "partition"),
                RequestFields.integer(call, "broker"), RequestFields.longField(call, "offset"))) {
                beyond = MID_BATCH_DELETE;
                break;
            }
            boolean catchUp = op.equals("broker_fetch") && Boolean.TRUE.equals(call.get("catch_up"));
            for (int round = 0; round < (catchUp ? CATCH_UP_ROUNDS_MAX : 1); round++) {
                BrokerSide.Outcome o = null;
                String f;
                try {
                    o = side.perform(op, call);
                    f = o.fault;
                } catch (ConformanceDriver.DriverException e) {
                    // As the single op answers it: error DRIVER, the fault its message.
                    f = "DRIVER " + ConformanceDriver.describe(e);
                }
                sent++;
                if (o != null) {
                    proposals.addAll(o.proposals);
                    outstanding.addAll(o.proposals);
                }
                if (fault == null && f != null) {
                    fault = f;
                    faultAt = i;
                }
                if (o != null && o.fromInsideABatch) beyond = MID_BATCH_FETCH;
                if (o != null && o.recoveredBelowStart) beyond = RECOVERY_BELOW_START;
                if (o != null && o.truncatedInsideABatch) beyond = MID_BATCH_TRUNCATE;
                if (beyond != null || !catchUp || caughtUp(side, call, o)) break;
            }
            if (beyond != null) break;
        }
        BrokerSide.Outcome last = new BrokerSide.Outcome();
        StringBuilder replicas = new StringBuilder();
        side.replicas(replicas, last);
        if (fault == null && last.fault != null) {
            fault = last.fault;
            faultAt = Math.max(0, calls.size() - 1);
        }
        render(out, sent, proposals, asserted, faultAt, fault, beyond, replicas);
    }

    /**
     * An AlterPartition answer takes the oldest proposal of this step by the same broker for
     * the same partition. False when it is not to be sent: the history's own AlterPartition
     * (asserted) that no real Partition proposed has no future to complete.
     */
    private static boolean answers(Map<String, Object> call, List<BrokerSide.Proposal> outstanding,
                                   List<BrokerSide.Proposal> asserted) {
        int partition = RequestFields.integer(call, "partition");
        int broker = RequestFields.integer(call, "broker");
        boolean isAsserted = Boolean.TRUE.equals(call.get("asserted"));
        for (Iterator<BrokerSide.Proposal> it = outstanding.iterator(); it.hasNext(); ) {
            BrokerSide.Proposal p = it.next();
            if (p.partition == partition && p.broker == broker) {
                it.remove();
                if (isAsserted) asserted.add(p);
                return true;
            }
        }
        return !isAsserted;
    }

    /**
     * A catch-up's rounds end once a round fetched at the leader's end (the follower's log
     * reaches it and the answer moved no record: the leader has recorded the follower there,
     * as it had when it sent the expansion the history asserts), or a round gets an error it
     * does not fetch on from. OFFSET_OUT_OF_RANGE is not the end: the fetcher resets its
     * offset and fetches on ({@code AbstractFetcherThread.fetchOffsetAndTruncate}); a
     * diverging epoch is not recorded by the leader ({@code Partition.fetchRecords} updates
     * the follower's state only without one).
     */
    private static boolean caughtUp(BrokerSide side, Map<String, Object> call, BrokerSide.Outcome o) {
        BrokerFetcher.FetchAnswer f = o == null ? null : o.fetch;
        boolean stuck = f == null || !f.error.equals("NONE") && !f.error.equals("OFFSET_OUT_OF_RANGE");
        boolean atEnd = f != null && f.error.equals("NONE") && f.records == 0 && f.divergingEpoch < 0;
        int index = RequestFields.integer(call, "partition");
        long follower = leo(side, RequestFields.integer(call, "follower"), index);
        long leader = leo(side, RequestFields.integer(call, "leader"), index);
        return follower >= leader && atEnd || stuck;
    }

    /** A replica's log end as its rendering gives it: -1 hosted without a log, 0 not there. */
    private static long leo(BrokerSide side, int id, int index) {
        BrokerSide.Broker b = side.find(id);
        if (b == null) return 0;
        Object log = BrokerShims.getLog(b.logManager, BrokerSide.topicPartition(index));
        if (log != null) return LOG_END_OFFSET.getLong(log);
        return b.partitions.containsKey(index) ? -1 : 0;
    }

    /**
     * Whether deleting records below {@code offset} (-1: its high watermark) on the broker's
     * replica puts the log start strictly inside a batch of any replica of the partition (a
     * follower's diverged batches need not end where the leader's do, and it truncates to
     * the leader's log start). In mid-batch the real brokers act on whole batches where the
     * model acts on records: a follower whose log is empty at that start is sent the whole
     * batch and restarts its log at the batch's base offset, and one whose log ends inside
     * the batch cannot append it ({@code Partition.appendRecordsToFollowerOrFutureReplica}
     * on {@code UnexpectedAppendOffsetException}).
     */
    private static boolean insideABatch(BrokerSide side, int index, int id, long offset) {
        BrokerSide.Broker b = side.find(id);
        if (b == null) return false;
        Object log = BrokerShims.getLog(b.logManager, BrokerSide.topicPartition(index));
        if (log == null && !b.partitions.containsKey(index)) return false;
        long at = offset >= 0 ? offset : log == null ? -1 : HIGH_WATERMARK.getLong(log);
        for (int other : side.brokerIds()) {
            Object l = BrokerShims.getLog(side.find(other).logManager, BrokerSide.topicPartition(index));
            if (l == null) continue;
            for (long[] batch : BrokerShims.logBatches(l)) {
                if (batch[0] < at && at <= batch[1]) return true;
            }
        }
        return false;
    }

    private static void render(StringBuilder out, int sent, List<BrokerSide.Proposal> proposals,
                               List<BrokerSide.Proposal> asserted, int faultAt, String fault, String beyond,
                               StringBuilder replicas) {
        out.append("{\"error\":\"NONE\",\"fault\":null,\"batch\":{\"sent\":").append(sent);
        out.append(",\"proposals\":");
        BrokerSide.proposals(out, proposals);
        out.append(",\"asserted\":");
        BrokerSide.proposals(out, asserted);
        out.append(",\"fault_at\":").append(faultAt).append(",\"fault_text\":");
        if (fault == null) out.append("null");
        else ConformanceDriver.string(out, fault);
        out.append(",\"beyond_model\":");
        if (beyond == null) out.append("null");
        else ConformanceDriver.string(out, beyond);
        out.append("},").append(replicas).append('}');
    }
}
