package org.apache.kafka.controller;

import org.apache.kafka.common.TopicPartition;

import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The replicas as the brokers judge's answers carry them (BROKERS.md, {@code replicas}):
 * every replica any broker holds, its log's offsets, epochs and batches, its Partition's
 * state and its fetch state, read from the real classes. Kept between answers and
 * rendered again only for the replicas a call may have changed.
 */
final class BrokerReplicas {
    /** The release's methods and accessors this class calls by name, each resolved once per receiver class. */
    private static final BrokerShims.Site GET_LEADER_EPOCH = BrokerShims.site("getLeaderEpoch");
    private static final BrokerShims.Site HIGH_WATERMARK = BrokerShims.site("highWatermark");
    private static final BrokerShims.Site ISR = BrokerShims.site("isr");
    private static final BrokerShims.Site IS_LEADER = BrokerShims.site("isLeader");
    private static final BrokerShims.Site LOG_END_OFFSET = BrokerShims.site("logEndOffset");
    private static final BrokerShims.Site LOG_START_OFFSET = BrokerShims.site("logStartOffset");
    private static final BrokerShims.Site MAXIMAL_ISR = BrokerShims.site("maximalIsr");
    private static final BrokerShims.Site PARTITION_STATE = BrokerShims.site("partitionState");
    private static final BrokerShims.Site RECOVERY_POINT = BrokerShims.site("recoveryPoint");
    private static final BrokerShims.Site TOPIC_PARTITION = BrokerShims.site("topicPartition");

    /**
     * Each broker's replicas as the last answer rendered them, by partition index, kept
     * until a call names the replica (reading every log's batches and epochs at every step
     * was a sixth of the driver's time, and a call touches one or two replicas). A
     * replica changes only through calls that name its broker and partition, calls that
     * name its broker alone (a restart, a flush, the expiration task) and its broker's
     * own scheduler's tasks ({@link #touch}). A broker absent here is rendered whole.
     */
    private final Map<Integer, TreeMap<Integer, String>> rendered = new HashMap<>();
    /** Per broker rendered, the partitions a call touched since: rendered again one by one. */
    private final Map<Integer, TreeSet<Integer>> stale = new HashMap<>();

    /** Forgets the rendering of every replica this call may change (unknown: all of them). */
    void touch(String op, Map<String, Object> req) {
        Object partition = req.get("partition");
        switch (op) {
            case "broker_state":
                return;
            case "broker_fetch":
                touch(req.get("follower"), partition);
                touch(req.get("leader"), partition);
                return;
            case "broker_expire":
                if (req.get("brokers") instanceof List) {
                    for (Object id : (List<?>) req.get("brokers")) touch(id, null);
                } else {
                    rendered.clear();
                }
                return;
            case "broker_alter_answer":
                touch(req.get("broker"), partition);
                if (req.containsKey("leader")) touch(req.get("leader"), partition);
                return;
            case "broker_delta":
            case "broker_remove":
            case "broker_produce":
            case "broker_delete_records":
                touch(req.get("broker"), partition);
                return;
            case "broker_restart":
            case "broker_flush":
                touch(req.get("broker"), null);
                return;
            default:
                rendered.clear();
        }
    }

    /** Broker {@code id}'s replica of {@code partition} (null: all of the broker's) changes. */
    private void touch(Object id, Object partition) {
        if (!(id instanceof Long)) {
            rendered.clear();
        } else if (!(partition instanceof Long)) {
            touchBroker((int) (long) (Long) id);
        } else {
            touchReplica((int) (long) (Long) id, (int) (long) (Long) partition);
        }
    }

    void touchBroker(int id) {
        rendered.remove(id);
    }

    void touchReplica(int id, int partition) {
        if (rendered.containsKey(id)) stale.computeIfAbsent(id, k -> new TreeSet<>()).add(partition);
    }

    /** {@code "replicas":[...]}: every replica any broker holds (a log, a Partition or both). */
    void replicas(StringBuilder out, Collection<BrokerSide.Broker> brokers, BrokerSide.Outcome o) {
        out.append("\"replicas\":[");
        boolean first = true;
        for (BrokerSide.Broker b : brokers) {
            for (String replica : brokerReplicas(b, o).values()) {
                if (!first) out.append(',');
                first = false;
                out.append(replica);
            }
        }
        out.append(']');
    }

    /**
     * One broker's replicas by partition index: those rendered before and not touched
     * since as they were, the touched ones again, all of them when the broker was touched
     * as a whole. A listing that failed (a fault) is not kept.
     */
    private TreeMap<Integer, String> brokerReplicas(BrokerSide.Broker b, BrokerSide.Outcome o) {
        TreeMap<Integer, String> known = rendered.get(b.id);
        TreeSet<Integer> touched = stale.remove(b.id);
        if (known == null) {
            TreeMap<Integer, String> all = new TreeMap<>();
            if (brokerReplicas(all, b, o)) rendered.put(b.id, all);
            return all;
        }
        if (touched == null) return known;
        try {
            for (int index : touched) {
                Object log = BrokerShims.getLog(b.logManager, BrokerSide.topicPartition(index));
                if (log == null && !b.partitions.containsKey(index)) {
                    known.remove(index);
                    continue;
                }
                StringBuilder s = new StringBuilder();
                replica(s, b, index, log);
                known.put(index, s.toString());
            }
        } catch (RuntimeException e) {
            rendered.remove(b.id);
            throw e;
        }
        return known;
    }

    /** Every replica of the broker, rendered into {@code out}; false if listing its logs failed (a fault). */
    private boolean brokerReplicas(TreeMap<Integer, String> out, BrokerSide.Broker b, BrokerSide.Outcome o) {
        boolean listed = true;
        TreeMap<Integer, Object> logs = new TreeMap<>();
        try {
            for (Object log : BrokerShims.allLogs(b.logManager)) {
                int index = BrokerSide.topicIndex(((TopicPartition) TOPIC_PARTITION.call(log)).topic());
                if (index >= 0) logs.put(index, log);
            }
        } catch (Throwable t) {
            o.fault(t);
            listed = false;
        }
        TreeSet<Integer> indices = new TreeSet<>(logs.keySet());
        indices.addAll(b.partitions.keySet());
        for (int index : indices) {
            StringBuilder s = new StringBuilder();
            replica(s, b, index, logs.get(index));
            out.put(index, s.toString());
        }
        return listed;
    }

    private void replica(StringBuilder out, BrokerSide.Broker b, int index, Object log) {
        Object p = b.partitions.get(index);
        out.append("{\"broker\":").append(b.id).append(",\"partition\":").append(index);
        if (log != null) {
            out.append(",\"leo\":").append(LOG_END_OFFSET.getLong(log))
                .append(",\"log_start\":").append(LOG_START_OFFSET.getLong(log))
                .append(",\"hw\":").append(HIGH_WATERMARK.getLong(log))
                .append(",\"recovery_point\":").append(RECOVERY_POINT.getLong(log));
            out.append(",\"epochs\":");
            triples(out, BrokerShims.epochs(log));
            out.append(",\"batches\":");
            triples(out, BrokerShims.logBatches(log));
        } else {
            out.append(",\"leo\":-1,\"log_start\":-1,\"hw\":-1,\"recovery_point\":-1,\"epochs\":[],\"batches\":[]");
        }
        boolean leads = p != null && (Boolean) IS_LEADER.call(p);
        out.append(",\"leader\":").append(leads)
            .append(",\"fetch_failed\":").append(b.failed.contains(index))
            .append(",\"online\":").append(p != null)
            .append(",\"leader_epoch\":").append(p == null ? -1 : ((Number) GET_LEADER_EPOCH.call(p)).intValue());
        int[] isr = new int[0];
        int[] maximal = new int[0];
        if (p != null) {
            Object state = PARTITION_STATE.call(p);
            isr = BrokerShims.sortedInts(ISR.call(state));
            maximal = BrokerShims.sortedInts(MAXIMAL_ISR.call(state));
        }
        out.append(",\"isr\":").append(Arrays.toString(isr).replace(" ", ""))
            .append(",\"maximal_isr\":").append(Arrays.toString(maximal).replace(" ", ""));
        BrokerFetcher.FetchState st = b.fetches.get(index);
        out.append(",\"fetch_state\":");
        if (st == null) {
            out.append("null");
        } else {
            out.append("{\"leader\":").append(st.leader)
                .append(",\"offset\":").append(st.offset)
                .append(",\"leader_epoch\":").append(st.leaderEpoch)
                .append(",\"last_fetched_epoch\":").append(st.lastFetchedEpoch == null ? -1 : st.lastFetchedEpoch)
                .append(",\"truncating\":").append(st.truncating).append('}');
        }
        out.append('}');
    }

    private static void triples(StringBuilder out, List<long[]> rows) {
        out.append('[');
        for (int i = 0; i < rows.size(); i++) {
            if (i > 0) out.append(',');
            long[] r = rows.get(i);
            out.append('[');
            for (int j = 0; j < r.length; j++) out.append(j > 0 ? "," : "").append(r[j]);
            out.append(']');
        }
        out.append(']');
    }
}
