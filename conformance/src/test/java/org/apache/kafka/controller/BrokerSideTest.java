package org.apache.kafka.controller;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Drives the broker protocol (BROKERS.md) in-process, through the same entry point as
 * ConformanceDriverTest, against the Kafka release on the test classpath.
 */
class BrokerSideTest {
    private DriverLines lines;

    @BeforeEach
    void setUp() {
        lines = new DriverLines();
    }

    @AfterEach
    void tearDown() {
        // Closes the LogManagers of the last history (the directories go at JVM exit).
        lines.driver.handle("{\"op\":\"broker_reset\",\"brokers\":[],\"lag_max_ms\":1}");
    }



    @SuppressWarnings("unchecked")
    private static Map<String, Object> replica(Map<String, Object> answer, int broker, int partition) {
        for (Object o : (List<Object>) answer.get("replicas")) {
            Map<String, Object> r = (Map<String, Object>) o;
            if ((Long) r.get("broker") == broker && (Long) r.get("partition") == partition) return r;
        }
        throw new AssertionError("no replica " + broker + "/" + partition + " in " + answer);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> fetch(Map<String, Object> answer) {
        Map<String, Object> f = (Map<String, Object>) answer.get("fetch");
        assertNotNull(f, answer.toString());
        return f;
    }

    @SuppressWarnings("unchecked")
    private static List<Object> proposals(Map<String, Object> answer) {
        return (List<Object>) answer.get("proposals");
    }

    private static List<Long> ids(long... values) {
        List<Long> l = new ArrayList<>();
        for (long v : values) l.add(v);
        return l;
    }

    private static List<Object> pairs(long... flat) {
        List<Object> l = new ArrayList<>();
        for (int i = 0; i < flat.length; i += 2) l.add(ids(flat[i], flat[i + 1]));
        return l;
    }

    private static String delta(int broker, String replicas, String isr, int leader, int leaderEpoch,
                                int partitionEpoch, long now) {
        return "{\"op\":\"broker_delta\",\"broker\":" + broker + ",\"partition\":0,\"replicas\":" + replicas
            + ",\"isr\":" + isr + ",\"leader\":" + leader + ",\"leader_epoch\":" + leaderEpoch
            + ",\"partition_epoch\":" + partitionEpoch + ",\"now_ms\":" + now + ",\"min_isr\":1}";
    }

    private static String produce(int broker, int records) {
        return "{\"op\":\"broker_produce\",\"partition\":0,\"broker\":" + broker + ",\"records\":" + records
            + ",\"acks\":-1,\"min_isr\":1}";
    }

    private static String fetch(int follower, int leader, long now) {
        return "{\"op\":\"broker_fetch\",\"partition\":0,\"follower\":" + follower + ",\"leader\":" + leader
            + ",\"now_ms\":" + now + "}";
    }

    /** Leader epoch 0 on broker 1 with 5 records; follower 2 fetches them; the HW reaches 5 on both. */
    @Test
    void followerFetchesAndTheHighWatermarkAdvances() {
        lines.ok("{\"op\":\"broker_reset\",\"brokers\":[1,2],\"lag_max_ms\":10000}");
        Map<String, Object> a = lines.ok(delta(1, "[1,2]", "[1,2]", 1, 0, 0, 0));
        Map<String, Object> r1 = replica(a, 1, 0);
        assertEquals(true, r1.get("leader"));
        assertEquals(pairs(0, 0), r1.get("epochs"));
        lines.ok(delta(2, "[1,2]", "[1,2]", 1, 0, 0, 0));
        a = lines.ok(produce(1, 5));
        @SuppressWarnings("unchecked")
        Map<String, Object> p = (Map<String, Object>) a.get("produce");
        assertEquals("NONE", p.get("error"));
        assertEquals(0L, p.get("base_offset"));
        assertEquals(4L, p.get("last_offset"));
        assertEquals(0L, replica(a, 1, 0).get("hw"));

        a = lines.ok(fetch(2, 1, 10));
        Map<String, Object> f = fetch(a);
        assertEquals(true, f.get("sent"));
        assertEquals("NONE", f.get("error"));
        assertEquals(5L, f.get("records"));
        assertEquals(5L, replica(a, 2, 0).get("leo"));
        assertEquals(List.of(ids(0, 4, 0)), replica(a, 2, 0).get("batches"));
        assertEquals(pairs(0, 0), replica(a, 2, 0).get("epochs"));

        // The next fetch tells the leader the follower is at 5: the leader's HW moves to 5,
        // the answer still carries the HW read before that.
        a = lines.ok(fetch(2, 1, 20));
        assertEquals(0L, fetch(a).get("records"));
        assertEquals(5L, replica(a, 1, 0).get("hw"));
        a = lines.ok(fetch(2, 1, 30));
        assertEquals(5L, fetch(a).get("hw"));
        assertEquals(5L, replica(a, 2, 0).get("hw"));
        assertEquals(5L, replica(a, 1, 0).get("hw"));
        assertTrue(proposals(a).isEmpty(), a.toString());
        @SuppressWarnings("unchecked")
        Map<String, Object> st = (Map<String, Object>) replica(a, 2, 0).get("fetch_state");
        assertEquals(5L, st.get("offset"));
        assertEquals(0L, st.get("last_fetched_epoch"));
        assertEquals(false, replica(a, 2, 0).get("fetch_failed"));
    }

    /**
     * A follower with records in an old epoch that the new leader never had truncates when
     * the new leader answers with a diverging epoch, then fetches the new epoch's records.
     */
    @Test
    void divergingEpochTruncatesTheFollower() {
        lines.ok("{\"op\":\"broker_reset\",\"brokers\":[1,2],\"lag_max_ms\":10000}");
        lines.ok(delta(1, "[1,2]", "[1,2]", 1, 0, 0, 0));
        lines.ok(delta(2, "[1,2]", "[1,2]", 1, 0, 0, 0));
        lines.ok(produce(1, 3));
        lines.ok(fetch(2, 1, 1));
        lines.ok(fetch(2, 1, 2));
        // Three more on the old leader that broker 2 never fetches.
        Map<String, Object> a = lines.ok(produce(1, 3));
        assertEquals(6L, replica(a, 1, 0).get("leo"));
        // Broker 2 leads epoch 1 from offset 3; broker 1 follows it.
        a = lines.ok(delta(2, "[1,2]", "[2]", 2, 1, 1, 100));
        assertEquals(pairs(0, 0, 1, 3), replica(a, 2, 0).get("epochs"));
        a = lines.ok(delta(1, "[1,2]", "[2]", 2, 1, 1, 100));
        assertEquals(false, replica(a, 1, 0).get("leader"));
        a = lines.ok(produce(2, 2));
        assertEquals(5L, replica(a, 2, 0).get("leo"));

        a = lines.ok(fetch(1, 2, 110));
        Map<String, Object> f = fetch(a);
        assertEquals("NONE", f.get("error"));
        assertEquals(0L, f.get("diverging_epoch"));
        assertEquals(3L, f.get("diverging_end_offset"));
        Map<String, Object> r = replica(a, 1, 0);
        assertEquals(3L, r.get("leo"));
        assertEquals(pairs(0, 0), r.get("epochs"));
        assertEquals(List.of(ids(0, 2, 0)), r.get("batches"));

        a = lines.ok(fetch(1, 2, 120));
        assertEquals(-1L, fetch(a).get("diverging_epoch"));
        assertEquals(2L, fetch(a).get("records"));
        r = replica(a, 1, 0);
        assertEquals(5L, r.get("leo"));
        assertEquals(pairs(0, 0, 1, 3), r.get("epochs"));
        assertEquals(List.of(ids(0, 2, 0), ids(3, 4, 1)), r.get("batches"));
    }

    /** Past lag_max_ms without a fetch, expiry proposes the shrunk ISR; the answer commits it. */
    @Test
    void expiryShrinksTheIsrOnceTheAlterPartitionIsAnswered() {
        lines.ok("{\"op\":\"broker_reset\",\"brokers\":[1,2],\"lag_max_ms\":10000}");
        lines.ok(delta(1, "[1,2]", "[1,2]", 1, 0, 0, 0));
        lines.ok(delta(2, "[1,2]", "[1,2]", 1, 0, 0, 0));
        Map<String, Object> a = lines.ok(produce(1, 2));
        assertEquals(0L, replica(a, 1, 0).get("hw"));

        a = lines.ok("{\"op\":\"broker_expire\",\"now_ms\":5000}");
        assertTrue(proposals(a).isEmpty(), a.toString());
        a = lines.ok("{\"op\":\"broker_expire\",\"now_ms\":20000}");
        assertEquals(1, proposals(a).size(), a.toString());
        @SuppressWarnings("unchecked")
        Map<String, Object> proposal = (Map<String, Object>) proposals(a).get(0);
        assertEquals(0L, proposal.get("partition"));
        assertEquals(1L, proposal.get("broker"));
        assertEquals(ids(1), proposal.get("isr"));
        assertEquals(0L, proposal.get("leader_epoch"));
        assertEquals(0L, proposal.get("partition_epoch"));
        assertEquals(0L, proposal.get("leader_recovery_state"));
        Map<String, Object> r = replica(a, 1, 0);
        assertEquals(ids(1, 2), r.get("isr"));
        assertEquals(0L, r.get("hw"));

        // Nothing new while it is in flight.
        a = lines.ok("{\"op\":\"broker_expire\",\"now_ms\":30000}");
        assertTrue(proposals(a).isEmpty(), a.toString());

        a = lines.ok("{\"op\":\"broker_alter_answer\",\"partition\":0,\"broker\":1,\"error\":\"NONE\",\"isr\":[1],"
            + "\"leader_epoch\":0,\"partition_epoch\":1,\"leader_recovery_state\":0}");
        r = replica(a, 1, 0);
        assertEquals(ids(1), r.get("isr"));
        assertEquals(ids(1), r.get("maximal_isr"));
        assertEquals(2L, r.get("hw"));

        Map<String, Object> none = lines.send("{\"op\":\"broker_alter_answer\",\"partition\":0,\"broker\":1,"
            + "\"error\":\"NONE\",\"isr\":[1],\"leader_epoch\":0,\"partition_epoch\":1,\"leader_recovery_state\":0}");
        assertEquals("DRIVER", none.get("error"));
    }

    /** An unclean restart that keeps the flushed prefix only; a clean one keeps everything. */
    @Test
    void uncleanRestartKeepsOnlyTheFlushedPrefix() {
        lines.ok("{\"op\":\"broker_reset\",\"brokers\":[1],\"lag_max_ms\":10000}");
        lines.ok(delta(1, "[1]", "[1]", 1, 0, 0, 0));
        lines.ok(produce(1, 3));
        Map<String, Object> a = lines.ok("{\"op\":\"broker_flush\",\"broker\":1}");
        assertEquals(3L, replica(a, 1, 0).get("recovery_point"));
        a = lines.ok(produce(1, 2));
        Map<String, Object> r = replica(a, 1, 0);
        assertEquals(5L, r.get("leo"));
        assertEquals(5L, r.get("hw"));
        assertEquals(3L, r.get("recovery_point"));

        a = lines.ok("{\"op\":\"broker_restart\",\"broker\":1,\"survives\":\"flushed\"}");
        r = replica(a, 1, 0);
        assertEquals(false, r.get("online"));
        assertEquals(3L, r.get("leo"));
        assertEquals(List.of(ids(0, 2, 0)), r.get("batches"));
        assertEquals(pairs(0, 0), r.get("epochs"));

        // Back as leader of epoch 1: the checkpointed HW (5) is clamped to the log's end.
        a = lines.ok(delta(1, "[1]", "[1]", 1, 1, 1, 10));
        r = replica(a, 1, 0);
        assertEquals(true, r.get("online"));
        assertEquals(true, r.get("leader"));
        assertEquals(3L, r.get("hw"));
        assertEquals(pairs(0, 0, 1, 3), r.get("epochs"));

        lines.ok(produce(1, 2));
        a = lines.ok("{\"op\":\"broker_restart\",\"broker\":1,\"survives\":\"clean\"}");
        r = replica(a, 1, 0);
        assertEquals(5L, r.get("leo"));
        assertEquals(5L, r.get("recovery_point"));
        assertEquals(List.of(ids(0, 2, 0), ids(3, 4, 1)), r.get("batches"));
    }

    /**
     * A new follower below the leader's log start: OFFSET_OUT_OF_RANGE, then the fetcher
     * truncates fully and starts at the leader's log start (fetchOffsetAndTruncate).
     */
    @Test
    void outOfRangeFollowerStartsAtTheLeadersLogStart() {
        lines.ok("{\"op\":\"broker_reset\",\"brokers\":[1,2],\"lag_max_ms\":10000}");
        lines.ok(delta(1, "[1,2]", "[1]", 1, 0, 0, 0));
        lines.ok(produce(1, 5));
        Map<String, Object> a = lines.ok("{\"op\":\"broker_delete_records\",\"partition\":0,\"broker\":1,\"offset\":-1}");
        assertEquals(5L, replica(a, 1, 0).get("log_start"));
        a = lines.ok(delta(2, "[1,2]", "[1]", 1, 0, 0, 0));
        @SuppressWarnings("unchecked")
        Map<String, Object> st = (Map<String, Object>) replica(a, 2, 0).get("fetch_state");
        assertEquals(true, st.get("truncating"));
        a = lines.ok(fetch(2, 1, 1));
        assertEquals("OFFSET_OUT_OF_RANGE", fetch(a).get("error"));
        Map<String, Object> r = replica(a, 2, 0);
        assertEquals(5L, r.get("log_start"));
        assertEquals(5L, r.get("leo"));
        a = lines.ok(fetch(2, 1, 2));
        assertEquals("NONE", fetch(a).get("error"));
        assertEquals(0L, fetch(a).get("records"));
        // The follower caught up with the HW: the leader proposes it back into the ISR.
        assertEquals(1, proposals(a).size(), a.toString());
    }

    /** Stale and unknown requests: errors the protocol names, never a driver failure. */
    @Test
    void errorsAreAnswered() {
        assertEquals("DRIVER", lines.send("{\"op\":\"broker_state\"}").get("error"));
        lines.ok("{\"op\":\"broker_reset\",\"brokers\":[1,2],\"lag_max_ms\":10000}");
        Map<String, Object> a = lines.send(produce(1, 1));
        assertEquals("NOT_LEADER_OR_FOLLOWER", a.get("error"));
        lines.ok(delta(1, "[1,2]", "[1,2]", 1, 0, 0, 0));
        a = lines.ok(fetch(2, 1, 0));
        assertEquals(false, fetch(a).get("sent"));
        lines.ok(delta(2, "[1,2]", "[1,2]", 1, 0, 0, 0));
        lines.ok(produce(1, 1));
        // Broker 1 moves to epoch 2 while broker 2 still fetches with epoch 0: fenced, failed.
        lines.ok(delta(1, "[1,2]", "[1,2]", 1, 2, 2, 0));
        a = lines.ok(fetch(2, 1, 1));
        assertEquals("FENCED_LEADER_EPOCH", fetch(a).get("error"));
        assertEquals(true, replica(a, 2, 0).get("fetch_failed"));
        a = lines.ok(fetch(2, 1, 2));
        assertEquals(false, fetch(a).get("sent"));
        // The delta for epoch 2 restarts the fetcher.
        a = lines.ok(delta(2, "[1,2]", "[1,2]", 1, 2, 2, 3));
        assertEquals(false, replica(a, 2, 0).get("fetch_failed"));
        a = lines.ok(fetch(2, 1, 4));
        assertEquals(1L, fetch(a).get("records"));
        a = lines.ok("{\"op\":\"broker_remove\",\"broker\":2,\"partition\":0}");
        for (Object o : (List<?>) a.get("replicas")) {
            assertEquals(1L, ((Map<?, ?>) o).get("broker"), a.toString());
        }
        assertEquals("DRIVER", lines.send("{\"op\":\"broker_nothing\"}").get("error"));
    }
}
