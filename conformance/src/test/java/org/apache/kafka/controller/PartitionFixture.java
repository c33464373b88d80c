package org.apache.kafka.controller;

import org.apache.kafka.common.TopicPartition;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The real brokers a data-plane reproducer emitted by {@code isrfuzz conform --junit}
 * ({@code *BrokersReproTest}) runs on, in the shape of upstream's {@code PartitionTest}: no
 * controller, one manual clock, real {@code Partition}s over one real {@code LogManager}
 * per broker (a temp directory each), the replica fetcher's rounds answered in-process.
 * Every registration is given as the delta a broker applies, exactly as the release's
 * controller decided it when isrfuzz found the violation.
 *
 * <p>It wraps {@link BrokerSide} (the brokers judge, conformance/BROKERS.md) instead of
 * calling the classes itself, so that a reproducer performs each call as the judge that
 * found it did, on each release through the same shims: one {@link #step} is one
 * {@code broker_batch}. What it reads back ({@link #holds}, {@link #acknowledged}) is read
 * from the real logs and Partitions.
 *
 * <p>Partition {@code n} is topic {@code t<n>}, partition 0, as in the history format.
 */
final class PartitionFixture implements AutoCloseable {
    /** acks=all as a produce request carries it. */
    static final int ACKS_ALL = -1;

    private final BrokerSide side = new BrokerSide();

    /** Fresh brokers, the clock at 0, {@code replica.lag.time.max.ms} as given. */
    PartitionFixture(long replicaLagTimeMaxMs, int... brokers) {
        Map<String, Object> reset = call("broker_reset");
        reset.put("brokers", ids(brokers));
        reset.put("lag_max_ms", replicaLagTimeMaxMs);
        BrokerSide.Outcome o = side.perform("broker_reset", reset);
        if (!o.error.equals("NONE")) throw new IllegalStateException("brokers refused: " + o.error + " " + o.fault);
    }

    /** Closes every log and deletes the brokers' directories. */
    @Override
    public void close() {
        Map<String, Object> reset = call("broker_reset");
        reset.put("brokers", List.of());
        reset.put("lag_max_ms", 1L);
        side.perform("broker_reset", reset);
    }

    // ---------------------------------------------------------------- one step

    /**
     * One step of the history: the calls performed in order (BROKERS.md, {@code
     * broker_batch}). A call a real class failed on, or a step the judge would not take
     * whole, ends the test: the reproducer is of a history every step of which the brokers
     * took.
     */
    @SafeVarargs
    final void step(Map<String, Object>... calls) {
        Map<String, Object> req = call("broker_batch");
        req.put("calls", List.of(calls));
        StringBuilder out = new StringBuilder();
        BrokerBatch.run(side, req, out);
        @SuppressWarnings("unchecked")
        Map<String, Object> answer = (Map<String, Object>) ConformanceJson.parse(out.toString());
        @SuppressWarnings("unchecked")
        Map<String, Object> batch = (Map<String, Object>) answer.get("batch");
        if (batch.get("fault_text") != null || batch.get("beyond_model") != null) {
            throw new IllegalStateException("the brokers did not take the step whole: " + batch);
        }
    }

    /** A broker applies partition {@code partition}'s registration ({@code ReplicaManager.applyDelta}). */
    static Map<String, Object> delta(int broker, int partition, int[] replicas, int[] isr, int leader,
                                     int leaderEpoch, int partitionEpoch, int minInsyncReplicas, long nowMs) {
        Map<String, Object> c = call("broker_delta");
        c.put("broker", (long) broker);
        c.put("partition", (long) partition);
        c.put("replicas", ids(replicas));
        c.put("isr", ids(isr));
        c.put("leader", (long) leader);
        c.put("leader_epoch", (long) leaderEpoch);
        c.put("partition_epoch", (long) partitionEpoch);
        c.put("min_isr", (long) minInsyncReplicas);
        c.put("now_ms", nowMs);
        return c;
    }

    /** The brokers' registrations in the metadata image: who is fenced, who is shutting down. */
    static Map<String, Object> image(int[] fenced, int[] shuttingDown) {
        Map<String, Object> c = call("broker_image");
        c.put("fenced", ids(fenced));
        c.put("shutting_down", ids(shuttingDown));
        return c;
    }

    /** The broker is no longer a replica ({@code ReplicaManager.stopPartitions} with delete). */
    static Map<String, Object> remove(int broker, int partition) {
        Map<String, Object> c = call("broker_remove");
        c.put("broker", (long) broker);
        c.put("partition", (long) partition);
        return c;
    }

    /** {@code appendRecordsToLeader} of one batch of {@code records} records, the clock at {@code nowMs}. */
    static Map<String, Object> produce(int partition, int broker, int records, int acks, int minInsyncReplicas,
                                       long nowMs) {
        Map<String, Object> c = call("broker_produce");
        c.put("partition", (long) partition);
        c.put("broker", (long) broker);
        c.put("records", (long) records);
        c.put("acks", (long) acks);
        c.put("min_isr", (long) minInsyncReplicas);
        c.put("now_ms", nowMs);
        return c;
    }

    /** One round of the follower's fetcher, answered by the leader's {@code fetchRecords}. */
    static Map<String, Object> fetch(int partition, int follower, int leader, long nowMs) {
        Map<String, Object> c = call("broker_fetch");
        c.put("partition", (long) partition);
        c.put("follower", (long) follower);
        c.put("leader", (long) leader);
        c.put("now_ms", nowMs);
        return c;
    }

    /** Rounds of the follower's fetcher until it fetched at the leader's end. */
    static Map<String, Object> catchUp(int partition, int follower, int leader, long nowMs) {
        Map<String, Object> c = fetch(partition, follower, leader, nowMs);
        c.put("catch_up", true);
        return c;
    }

    /** The {@code isr-expiration} task ({@code maybeShrinkIsr}) on the brokers that are up. */
    static Map<String, Object> expire(long nowMs, int... brokers) {
        Map<String, Object> c = call("broker_expire");
        c.put("now_ms", nowMs);
        c.put("brokers", ids(brokers));
        return c;
    }

    /** The controller's answer to the oldest AlterPartition the broker's Partition sent, the clock at {@code nowMs}. */
    static Map<String, Object> alterAnswer(int partition, int broker, String error, int[] isr, int leaderEpoch,
                                           int partitionEpoch, long nowMs) {
        Map<String, Object> c = call("broker_alter_answer");
        c.put("now_ms", nowMs);
        c.put("partition", (long) partition);
        c.put("broker", (long) broker);
        c.put("error", error);
        c.put("isr", ids(isr));
        c.put("leader_epoch", (long) leaderEpoch);
        c.put("partition_epoch", (long) partitionEpoch);
        c.put("leader_recovery_state", 0L);
        return c;
    }

    /**
     * The controller's answer to the expansion the leader sent after the follower caught up
     * in this step: it completes the proposal the real Partition made then, and is not
     * sent when the Partition made none.
     */
    static Map<String, Object> expansionAnswer(int partition, int broker, String error, int[] isr, int leaderEpoch,
                                               int partitionEpoch, long nowMs) {
        Map<String, Object> c = alterAnswer(partition, broker, error, isr, leaderEpoch, partitionEpoch, nowMs);
        c.put("asserted", true);
        return c;
    }

    /** The broker process stops and starts: {@code clean}, or a power loss ({@code flushed}, {@code hw}). */
    static Map<String, Object> restart(int broker, String survives) {
        Map<String, Object> c = call("broker_restart");
        c.put("broker", (long) broker);
        c.put("survives", survives);
        return c;
    }

    /** The partition's topic gets a new min.insync.replicas, on every broker's log of it. */
    static Map<String, Object> topicConfig(int partition, int minInsyncReplicas) {
        Map<String, Object> c = call("broker_config");
        c.put("partition", (long) partition);
        c.put("min_isr", (long) minInsyncReplicas);
        return c;
    }

    /** Every log of the broker flushed to its end. */
    static Map<String, Object> flush(int broker) {
        Map<String, Object> c = call("broker_flush");
        c.put("broker", (long) broker);
        return c;
    }

    /** {@code deleteRecordsOnLeader(offset)} on the broker's Partition (-1: its high watermark). */
    static Map<String, Object> deleteRecords(int partition, int broker, long offset) {
        Map<String, Object> c = call("broker_delete_records");
        c.put("partition", (long) partition);
        c.put("broker", (long) broker);
        c.put("offset", offset);
        return c;
    }

    // ---------------------------------------------------------------- the real state

    /**
     * The leader's acks=all completion check ({@code Partition.checkEnoughReplicasReachOffset},
     * what a waiting produce is answered by): true when it answers {@code (true, NONE)},
     * the high watermark at or past {@code requiredOffset} with the ISR at
     * min.insync.replicas.
     */
    boolean acknowledged(int leader, int partition, long requiredOffset) {
        Object p = side.find(leader).partitions.get(partition);
        if (p == null) return false;
        scala.Tuple2<?, ?> r = (scala.Tuple2<?, ?>) BrokerShims.call(p, "checkEnoughReplicasReachOffset", requiredOffset);
        return Boolean.TRUE.equals(r._1()) && r._2().toString().equals("NONE");
    }

    /** The broker's log of the partition, or null. */
    private Object log(int broker, int partition) {
        BrokerSide.Broker b = side.find(broker);
        return b == null || b.logManager == null ? null : BrokerShims.getLog(b.logManager, tp(partition));
    }

    long highWatermark(int broker, int partition) {
        Object log = log(broker, partition);
        return log == null ? -1 : BrokerShims.getLong(log, "highWatermark");
    }

    long logStartOffset(int broker, int partition) {
        Object log = log(broker, partition);
        return log == null ? -1 : BrokerShims.getLong(log, "logStartOffset");
    }

    /**
     * Whether the broker's log holds every record of {@code [start, end)} with leader epoch
     * {@code epoch}: each offset at or above its log start, in a batch of that epoch.
     */
    boolean holds(int broker, int partition, long start, long end, int epoch) {
        Object log = log(broker, partition);
        if (log == null) return start >= end;
        long logStart = BrokerShims.getLong(log, "logStartOffset");
        List<long[]> batches = BrokerShims.logBatches(log);
        for (long o = start; o < end; o++) {
            if (o < logStart || !inBatchOfEpoch(batches, o, epoch)) return false;
        }
        return true;
    }

    /** {@link #holds} for the part of {@code [start, end)} below the broker's high watermark and above its log start. */
    boolean holdsBelowHighWatermark(int broker, int partition, long start, long end, int epoch) {
        Object log = log(broker, partition);
        if (log == null) return true;
        long from = Math.max(start, BrokerShims.getLong(log, "logStartOffset"));
        long to = Math.min(end, Math.min(BrokerShims.getLong(log, "highWatermark"),
            BrokerShims.getLong(log, "logEndOffset")));
        return holds(broker, partition, from, to, epoch);
    }

    /** {@link #holds} for the part of {@code [start, end)} at or above the broker's log start. */
    boolean holdsAboveLogStart(int broker, int partition, long start, long end, int epoch) {
        Object log = log(broker, partition);
        if (log == null) return start >= end;
        return holds(broker, partition, Math.max(start, BrokerShims.getLong(log, "logStartOffset")), end, epoch);
    }

    /** Whether every record of {@code [start, end)} with that epoch is on at least one of the brokers. */
    boolean someHolds(int[] brokers, int partition, long start, long end, int epoch) {
        for (long o = start; o < end; o++) {
            boolean found = false;
            for (int b : brokers) found |= holds(b, partition, o, o + 1, epoch);
            if (!found) return false;
        }
        return true;
    }

    /** The broker's log as [base, last, epoch] batches and its offsets, for a failing assertion's message. */
    String describe(int broker, int partition) {
        Object log = log(broker, partition);
        if (log == null) return "broker " + broker + ": no log";
        StringBuilder s = new StringBuilder("broker " + broker + ": batches");
        for (long[] b : BrokerShims.logBatches(log)) s.append(" [").append(b[0]).append("-").append(b[1])
            .append(" epoch ").append(b[2]).append(']');
        return s.append(", log start ").append(BrokerShims.getLong(log, "logStartOffset"))
            .append(", end ").append(BrokerShims.getLong(log, "logEndOffset"))
            .append(", high watermark ").append(BrokerShims.getLong(log, "highWatermark")).toString();
    }

    // ---------------------------------------------------------------- helpers

    private static boolean inBatchOfEpoch(List<long[]> batches, long offset, int epoch) {
        for (long[] b : batches) {
            if (b[0] <= offset && offset <= b[1]) return b[2] == epoch;
        }
        return false;
    }

    private static Map<String, Object> call(String op) {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("op", op);
        return c;
    }

    private static List<Long> ids(int[] ids) {
        List<Long> out = new ArrayList<>(ids.length);
        for (int id : ids) out.add((long) id);
        return out;
    }

    private static TopicPartition tp(int partition) {
        return BrokerSide.topicPartition(partition);
    }
}
