package org.apache.kafka.controller;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Drives the protocol in-process against the Kafka release on the test classpath
 * ({@code -Dkafka.version=V}). Where releases answer differently, the expectation is the
 * one observed on each release, keyed by the release the jars report.
 */
class ConformanceDriverTest {
    private DriverLines lines;

    @BeforeEach
    void setUp() {
        lines = new DriverLines();
    }



    @SuppressWarnings("unchecked")
    private static Map<String, Object> partition(Map<String, Object> answer, int index) {
        List<Object> parts = (List<Object>) answer.get("partitions");
        Map<String, Object> p = (Map<String, Object>) parts.get(index);
        assertEquals((long) index, p.get("partition"));
        return p;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> broker(Map<String, Object> answer, int id) {
        for (Object o : (List<Object>) answer.get("brokers")) {
            Map<String, Object> b = (Map<String, Object>) o;
            if (((Long) b.get("id")) == id) return b;
        }
        return null;
    }

    private static List<Long> ids(long... values) {
        List<Long> l = new java.util.ArrayList<>();
        for (long v : values) l.add(v);
        return l;
    }

    private static void assertPartition(Map<String, Object> p, List<Long> replicas, List<Long> isr,
                                        List<Long> adding, List<Long> removing, long leader,
                                        long leaderEpoch, long partitionEpoch) {
        String s = p.toString();
        assertEquals(replicas, p.get("replicas"), s);
        assertEquals(isr, p.get("isr"), s);
        assertEquals(adding, p.get("adding"), s);
        assertEquals(removing, p.get("removing"), s);
        assertEquals(leader, p.get("leader"), s);
        assertEquals(leaderEpoch, p.get("leader_epoch"), s);
        assertEquals(partitionEpoch, p.get("partition_epoch"), s);
    }

    private static String release() {
        return ConformanceShims.RELEASE;
    }

    /** True from 4.3 on (compares the release's major.minor). */
    private static boolean atLeast(int major, int minor) {
        String[] v = release().split("[.-]");
        int ma = Integer.parseInt(v[0]);
        int mi = Integer.parseInt(v[1]);
        return ma > major || (ma == major && mi >= minor);
    }

    @Test
    void theJarsAreTheSelectedRelease() {
        String selected = System.getProperty("kafka.version");
        if (selected != null) assertEquals(selected, release());
    }

    /**
     * Observed on every release: a reassignment to a subset of the ISR completes at once and
     * leaves the ELR naming brokers that are no longer replicas; the next reassignment then
     * fails inside the manager (UNKNOWN_SERVER_ERROR, an IllegalArgumentException "Replica 3
     * is not assigned to this partition" from the leader acceptor, caught by the manager).
     */
    @Test
    void elrOutlivesReplicasAfterReassignment() {
        lines.ok("{\"op\":\"reset\",\"brokers\":[1,2,3],\"elr\":true}");
        lines.ok("{\"op\":\"create\",\"replicas\":[1,2,3],\"min_isr\":3,\"unclean\":false}");
        lines.ok("{\"op\":\"register\",\"broker\":1,\"clean\":true}");
        Map<String, Object> a = lines.ok("{\"op\":\"reassign\",\"partition\":0,\"target\":[2],\"allow_rf_change\":true}");
        Map<String, Object> p = partition(a, 0);
        assertEquals(ids(2), p.get("replicas"), p.toString());
        assertEquals(ids(1, 3), p.get("elr"), p.toString());
        lines.ok("{\"op\":\"controlled_shutdown\",\"broker\":2}");
        a = lines.send("{\"op\":\"reassign\",\"partition\":0,\"target\":[1,3],\"allow_rf_change\":true}");
        assertEquals("UNKNOWN_SERVER_ERROR", a.get("error"));
        assertNull(a.get("fault"));
    }

    @Test
    void resetRegistersAndUnfencesEveryBroker() {
        Map<String, Object> a = lines.ok("{\"op\":\"reset\",\"brokers\":[3,1,2],\"elr\":false}");
        assertEquals(release(), a.get("release"));
        assertEquals(List.of(), a.get("partitions"));
        assertEquals(List.of(
            Map.of("id", 1L, "fenced", false, "in_controlled_shutdown", false, "dirs", ids(0, 1)),
            Map.of("id", 2L, "fenced", false, "in_controlled_shutdown", false, "dirs", ids(0, 1)),
            Map.of("id", 3L, "fenced", false, "in_controlled_shutdown", false, "dirs", ids(0, 1))),
            a.get("brokers"));
        assertNull(a.get("listed"));
    }

    /**
     * Two directories per broker: a new replica is UNASSIGNED; a failed directory leaves
     * the registration's list and takes its broker out of the partitions placed there; the
     * last listed directory stays listed (an empty list is not replayed); a new replica of
     * a broker listing one directory is placed in it.
     */
    @Test
    void directoriesAreAssignedAndFail() {
        lines.ok("{\"op\":\"reset\",\"brokers\":[1,2,3],\"elr\":false}");
        Map<String, Object> a = lines.ok("{\"op\":\"create\",\"replicas\":[1,2,3],\"min_isr\":1,\"unclean\":false}");
        assertEquals(ids(-1, -1, -1), partition(a, 0).get("dirs"));
        a = lines.ok("{\"op\":\"assign_dir\",\"partition\":0,\"broker\":1,\"dir\":0}");
        assertEquals(ids(0, -1, -1), partition(a, 0).get("dirs"));
        a = lines.ok("{\"op\":\"dir_offline\",\"broker\":1,\"dir\":0}");
        assertEquals(ids(1), broker(a, 1).get("dirs"));
        assertEquals(ids(2, 3), partition(a, 0).get("isr"));
        assertEquals(2L, partition(a, 0).get("leader"));
        a = lines.ok("{\"op\":\"create\",\"replicas\":[1,2],\"min_isr\":1,\"unclean\":false}");
        assertEquals(ids(1, -1), partition(a, 1).get("dirs"));
        a = lines.ok("{\"op\":\"dir_offline\",\"broker\":1,\"dir\":1}");
        assertEquals(ids(1), broker(a, 1).get("dirs"));
        assertEquals(ids(2), partition(a, 1).get("isr"));
        assertEquals(2L, partition(a, 1).get("leader"));
        a = lines.send("{\"op\":\"assign_dir\",\"partition\":1,\"broker\":3,\"dir\":0}");
        assertEquals("NOT_LEADER_OR_FOLLOWER", a.get("error"));
    }

    @Test
    void resetWithElrWorks() {
        lines.ok("{\"op\":\"reset\",\"brokers\":[1,2,3],\"elr\":true}");
        lines.ok("{\"op\":\"create\",\"replicas\":[1,2,3],\"min_isr\":2,\"unclean\":false}");
        // With ELR on, a fenced ISR member below min ISR goes to the ELR.
        lines.ok("{\"op\":\"fence\",\"broker\":1}");
        lines.ok("{\"op\":\"fence\",\"broker\":2}");
        Map<String, Object> a = lines.ok("{\"op\":\"fence\",\"broker\":3}");
        Map<String, Object> p = partition(a, 0);
        assertEquals(ids(), p.get("isr"), p.toString());
        assertEquals(-1L, p.get("leader"), p.toString());
        assertFalse(((List<?>) p.get("elr")).isEmpty(), p.toString());
    }

    @Test
    void createThenFence() {
        lines.ok("{\"op\":\"reset\",\"brokers\":[1,2,3],\"elr\":false}");
        Map<String, Object> a = lines.ok("{\"op\":\"create\",\"replicas\":[1,2,3],\"min_isr\":1,\"unclean\":false}");
        assertPartition(partition(a, 0), ids(1, 2, 3), ids(1, 2, 3), ids(), ids(), 1, 0, 0);
        assertEquals(0L, partition(a, 0).get("leader_recovery_state"));
        assertEquals(ids(), partition(a, 0).get("elr"));
        assertEquals(ids(), partition(a, 0).get("last_known_elr"));

        a = lines.ok("{\"op\":\"fence\",\"broker\":2}");
        assertPartition(partition(a, 0), ids(1, 2, 3), ids(1, 3), ids(), ids(), 1, 0, 1);
        assertEquals(true, broker(a, 2).get("fenced"));

        // Fencing the leader elects the next ISR member and bumps the leader epoch.
        a = lines.ok("{\"op\":\"fence\",\"broker\":1}");
        assertPartition(partition(a, 0), ids(1, 2, 3), ids(3), ids(), ids(), 3, 1, 2);
    }

    @Test
    void createErrors() {
        lines.ok("{\"op\":\"reset\",\"brokers\":[1,2,3],\"elr\":false}");
        Map<String, Object> a = lines.send("{\"op\":\"create\",\"replicas\":[1,1],\"min_isr\":1,\"unclean\":false}");
        assertEquals("INVALID_REPLICA_ASSIGNMENT", a.get("error"));
        a = lines.send("{\"op\":\"create\",\"replicas\":[1,2],\"min_isr\":0,\"unclean\":false}");
        assertEquals("INVALID_CONFIG", a.get("error"));
        assertEquals(List.of(), a.get("partitions"));
        // A failed create does not use up a creation index.
        a = lines.ok("{\"op\":\"create\",\"replicas\":[2,3],\"min_isr\":1,\"unclean\":false}");
        assertPartition(partition(a, 0), ids(2, 3), ids(2, 3), ids(), ids(), 2, 0, 0);
    }

    @Test
    void reassignListCancel() {
        lines.ok("{\"op\":\"reset\",\"brokers\":[1,2,3,4,5,6],\"elr\":false}");
        lines.ok("{\"op\":\"create\",\"replicas\":[1,2,3],\"min_isr\":1,\"unclean\":false}");
        lines.ok("{\"op\":\"create\",\"replicas\":[4,5],\"min_isr\":1,\"unclean\":false}");
        Map<String, Object> a = lines.ok("{\"op\":\"reassign\",\"partition\":0,\"target\":[4,5,6],\"allow_rf_change\":true}");
        assertPartition(partition(a, 0), ids(4, 5, 6, 1, 2, 3), ids(1, 2, 3), ids(4, 5, 6), ids(1, 2, 3), 1, 0, 1);

        a = lines.ok("{\"op\":\"list\"}");
        assertEquals(ids(0), a.get("listed"));

        a = lines.ok("{\"op\":\"cancel\",\"partition\":0}");
        assertPartition(partition(a, 0), ids(1, 2, 3), ids(1, 2, 3), ids(), ids(), 1, 1, 2);
        a = lines.ok("{\"op\":\"list\"}");
        assertEquals(ids(), a.get("listed"));

        a = lines.send("{\"op\":\"cancel\",\"partition\":0}");
        assertEquals("NO_REASSIGNMENT_IN_PROGRESS", a.get("error"));
        a = lines.send("{\"op\":\"reassign\",\"partition\":7,\"target\":[1],\"allow_rf_change\":true}");
        assertEquals("UNKNOWN_TOPIC_OR_PARTITION", a.get("error"));
    }

    @Test
    void replicationFactorChangeFlag() {
        lines.ok("{\"op\":\"reset\",\"brokers\":[1,2,3,4],\"elr\":false}");
        lines.ok("{\"op\":\"create\",\"replicas\":[1,2,3],\"min_isr\":1,\"unclean\":false}");
        Map<String, Object> a = lines.send("{\"op\":\"reassign\",\"partition\":0,\"target\":[1,2,3,4],\"allow_rf_change\":false}");
        if (atLeast(4, 1)) {
            assertEquals("INVALID_REPLICATION_FACTOR", a.get("error"));
        } else {
            // 4.0 has no allowReplicationFactorChange: every change is allowed.
            assertEquals("NONE", a.get("error"));
        }
    }

    @Test
    void reassignmentCompletesThroughAlterPartition() {
        lines.ok("{\"op\":\"reset\",\"brokers\":[1,2,3,4],\"elr\":false}");
        lines.ok("{\"op\":\"create\",\"replicas\":[1,2,3],\"min_isr\":1,\"unclean\":false}");
        lines.ok("{\"op\":\"reassign\",\"partition\":0,\"target\":[1,2,4],\"allow_rf_change\":true}");
        Map<String, Object> a = lines.ok("{\"op\":\"alter_partition\",\"partition\":0,\"broker\":1,\"leader_epoch\":0,"
            + "\"partition_epoch\":1,\"isr\":[1,2,3,4],\"leader_recovery_state\":0}");
        assertPartition(partition(a, 0), ids(1, 2, 4), ids(1, 2, 4), ids(), ids(), 1, 1, 2);
    }

    /**
     * KAFKA-21419's repro. Observed: on every release the second reassignment drops 4 from
     * the adding replicas although it never joined the ISR; the AlterPartition adding 5 is
     * then accepted, and from 4.3 it completes the reassignment with 4 outside the ISR.
     */
    @Test
    void kafka21419Repro() {
        lines.ok("{\"op\":\"reset\",\"brokers\":[1,2,3,4,5],\"elr\":false}");
        lines.ok("{\"op\":\"create\",\"replicas\":[1,2,3],\"min_isr\":1,\"unclean\":false}");
        Map<String, Object> a = lines.ok("{\"op\":\"reassign\",\"partition\":0,\"target\":[1,2,4],\"allow_rf_change\":true}");
        assertPartition(partition(a, 0), ids(1, 2, 4, 3), ids(1, 2, 3), ids(4), ids(3), 1, 0, 1);
        a = lines.ok("{\"op\":\"reassign\",\"partition\":0,\"target\":[1,2,4,5],\"allow_rf_change\":true}");
        assertPartition(partition(a, 0), ids(1, 2, 4, 5, 3), ids(1, 2, 3), ids(5), ids(3), 1, 0, 2);
        a = lines.ok("{\"op\":\"alter_partition\",\"partition\":0,\"broker\":1,\"leader_epoch\":0,"
            + "\"partition_epoch\":2,\"isr\":[1,2,3,5],\"leader_recovery_state\":0}");
        if (atLeast(4, 3)) {
            assertPartition(partition(a, 0), ids(1, 2, 4, 5), ids(1, 2, 5), ids(), ids(), 1, 1, 3);
            assertEquals(ids(), lines.ok("{\"op\":\"list\"}").get("listed"));
        } else {
            assertPartition(partition(a, 0), ids(1, 2, 4, 5, 3), ids(1, 2, 3, 5), ids(5), ids(3), 1, 0, 3);
            assertEquals(ids(0), lines.ok("{\"op\":\"list\"}").get("listed"));
        }
    }

    /**
     * Observed: a second reassignment, made while a replica of the first is still adding and
     * leaving it out, completes at once up to 4.2 (the target is inside the ISR); from 4.3
     * the replica stays adding and is also removing, and the reassignment does not complete
     * even once every replica is in the ISR.
     */
    @Test
    void reassignmentOverAPendingOne() {
        lines.ok("{\"op\":\"reset\",\"brokers\":[1,2,3,4],\"elr\":false}");
        lines.ok("{\"op\":\"create\",\"replicas\":[1,2,4],\"min_isr\":1,\"unclean\":false}");
        Map<String, Object> a = lines.ok("{\"op\":\"reassign\",\"partition\":0,\"target\":[3,1,4],\"allow_rf_change\":true}");
        assertPartition(partition(a, 0), ids(3, 1, 4, 2), ids(1, 2, 4), ids(3), ids(2), 1, 0, 1);
        a = lines.ok("{\"op\":\"reassign\",\"partition\":0,\"target\":[4],\"allow_rf_change\":true}");
        if (atLeast(4, 3)) {
            assertPartition(partition(a, 0), ids(4, 1, 2, 3), ids(1, 2, 4), ids(3), ids(1, 2, 3), 1, 0, 2);
            a = lines.ok("{\"op\":\"alter_partition\",\"partition\":0,\"broker\":1,\"leader_epoch\":0,"
                + "\"partition_epoch\":2,\"isr\":[1,2,3,4],\"leader_recovery_state\":0}");
            assertPartition(partition(a, 0), ids(4, 1, 2, 3), ids(1, 2, 3, 4), ids(3), ids(1, 2, 3), 1, 0, 3);
            assertEquals(ids(0), lines.ok("{\"op\":\"list\"}").get("listed"));
        } else {
            assertPartition(partition(a, 0), ids(4), ids(4), ids(), ids(), 4, 1, 2);
            assertEquals(ids(), lines.ok("{\"op\":\"list\"}").get("listed"));
        }
    }

    /**
     * Observed: with ELR on, a single-replica partition whose only replica is in controlled
     * shutdown (so in the ELR) and then re-registers after an unclean shutdown: 4.0 elects
     * that fenced broker leader, recovering (KAFKA-19522); from 4.1 the partition stays
     * leaderless with the broker in the last-known ELR only.
     */
    @Test
    void uncleanReRegistrationOfTheLastElrMember() {
        lines.ok("{\"op\":\"reset\",\"brokers\":[1,2,3,4],\"elr\":true}");
        lines.ok("{\"op\":\"create\",\"replicas\":[3],\"min_isr\":3,\"unclean\":true}");
        Map<String, Object> a = lines.ok("{\"op\":\"controlled_shutdown\",\"broker\":3}");
        Map<String, Object> p = partition(a, 0);
        assertEquals(-1L, p.get("leader"), p.toString());
        assertEquals(ids(3), p.get("elr"), p.toString());
        assertEquals(ids(3), p.get("last_known_elr"), p.toString());
        assertEquals(true, broker(a, 3).get("in_controlled_shutdown"));
        a = lines.ok("{\"op\":\"register\",\"broker\":3,\"clean\":false}");
        p = partition(a, 0);
        assertEquals(true, broker(a, 3).get("fenced"));
        if (atLeast(4, 1)) {
            assertPartition(p, ids(3), ids(), ids(), ids(), -1, 1, 2);
            assertEquals(ids(), p.get("elr"), p.toString());
            assertEquals(ids(3), p.get("last_known_elr"), p.toString());
        } else {
            assertPartition(p, ids(3), ids(3), ids(), ids(), 3, 2, 2);
            assertEquals(1L, p.get("leader_recovery_state"), p.toString());
            assertEquals(ids(), p.get("elr"), p.toString());
            assertEquals(ids(), p.get("last_known_elr"), p.toString());
        }
    }

    @Test
    void alterPartitionErrors() {
        lines.ok("{\"op\":\"reset\",\"brokers\":[1,2,3],\"elr\":false}");
        lines.ok("{\"op\":\"create\",\"replicas\":[1,2,3],\"min_isr\":1,\"unclean\":false}");
        // Not the leader.
        Map<String, Object> a = lines.send("{\"op\":\"alter_partition\",\"partition\":0,\"broker\":2,\"leader_epoch\":0,"
            + "\"partition_epoch\":0,\"isr\":[1,2],\"leader_recovery_state\":0}");
        assertEquals("INVALID_REQUEST", a.get("error"));
        // An unregistered sender has no broker epoch.
        a = lines.send("{\"op\":\"alter_partition\",\"partition\":0,\"broker\":9,\"leader_epoch\":0,"
            + "\"partition_epoch\":0,\"isr\":[1,2],\"leader_recovery_state\":0}");
        assertEquals("STALE_BROKER_EPOCH", a.get("error"));
        // A stale partition epoch.
        lines.ok("{\"op\":\"alter_partition\",\"partition\":0,\"broker\":1,\"leader_epoch\":0,"
            + "\"partition_epoch\":0,\"isr\":[1,2],\"leader_recovery_state\":0}");
        a = lines.send("{\"op\":\"alter_partition\",\"partition\":0,\"broker\":1,\"leader_epoch\":0,"
            + "\"partition_epoch\":0,\"isr\":[1],\"leader_recovery_state\":0}");
        assertEquals("INVALID_UPDATE_VERSION", a.get("error"));
        // A fenced broker cannot join the ISR.
        lines.ok("{\"op\":\"fence\",\"broker\":3}");
        a = lines.send("{\"op\":\"alter_partition\",\"partition\":0,\"broker\":1,\"leader_epoch\":0,"
            + "\"partition_epoch\":1,\"isr\":[1,2,3],\"leader_recovery_state\":0}");
        assertEquals("INELIGIBLE_REPLICA", a.get("error"));
    }

    @Test
    void registerAndUnfence() {
        lines.ok("{\"op\":\"reset\",\"brokers\":[1,2,3],\"elr\":false}");
        lines.ok("{\"op\":\"create\",\"replicas\":[1,2,3],\"min_isr\":1,\"unclean\":false}");
        // A new incarnation: the old one leaves the ISR, the broker comes back fenced.
        Map<String, Object> a = lines.ok("{\"op\":\"register\",\"broker\":2,\"clean\":true}");
        assertPartition(partition(a, 0), ids(1, 2, 3), ids(1, 3), ids(), ids(), 1, 0, 1);
        assertEquals(true, broker(a, 2).get("fenced"));
        a = lines.ok("{\"op\":\"unfence\",\"broker\":2}");
        assertEquals(false, broker(a, 2).get("fenced"));
        a = lines.ok("{\"op\":\"register\",\"broker\":3,\"clean\":false}");
        assertPartition(partition(a, 0), ids(1, 2, 3), ids(1), ids(), ids(), 1, 0, 2);
        lines.ok("{\"op\":\"unfence\",\"broker\":3}");
        // An unregistered broker's heartbeat.
        a = lines.send("{\"op\":\"unfence\",\"broker\":9}");
        assertEquals("STALE_BROKER_EPOCH", a.get("error"));
        // A broker new to the cluster registers fenced.
        a = lines.ok("{\"op\":\"register\",\"broker\":9,\"clean\":false}");
        assertEquals(true, broker(a, 9).get("fenced"));
        a = lines.ok("{\"op\":\"unfence\",\"broker\":9}");
        assertEquals(false, broker(a, 9).get("fenced"));
    }

    @Test
    void uncleanShutdownWithElr() {
        lines.ok("{\"op\":\"reset\",\"brokers\":[1,2,3],\"elr\":true}");
        lines.ok("{\"op\":\"create\",\"replicas\":[1,2,3],\"min_isr\":3,\"unclean\":false}");
        Map<String, Object> a = lines.ok("{\"op\":\"fence\",\"broker\":3}");
        Map<String, Object> p = partition(a, 0);
        assertEquals(ids(1, 2), p.get("isr"), p.toString());
        assertEquals(ids(3), p.get("elr"), p.toString());
        // Re-registering after an unclean shutdown removes the broker from the ELR.
        a = lines.ok("{\"op\":\"register\",\"broker\":3,\"clean\":false}");
        p = partition(a, 0);
        assertEquals(ids(), p.get("elr"), p.toString());
    }

    @Test
    void controlledShutdown() {
        lines.ok("{\"op\":\"reset\",\"brokers\":[1,2,3],\"elr\":false}");
        lines.ok("{\"op\":\"create\",\"replicas\":[1,2,3],\"min_isr\":1,\"unclean\":false}");
        // The leader enters controlled shutdown: it leaves the ISR and the leadership.
        Map<String, Object> a = lines.ok("{\"op\":\"controlled_shutdown\",\"broker\":1}");
        assertPartition(partition(a, 0), ids(1, 2, 3), ids(2, 3), ids(), ids(), 2, 1, 1);
        assertEquals(true, broker(a, 1).get("in_controlled_shutdown"));
        assertEquals(false, broker(a, 1).get("fenced"));
        // A broker leading nothing is told to shut down at once (SHUTDOWN_NOW): it is fenced,
        // never in controlled shutdown.
        a = lines.ok("{\"op\":\"controlled_shutdown\",\"broker\":3}");
        assertPartition(partition(a, 0), ids(1, 2, 3), ids(2), ids(), ids(), 2, 1, 2);
        assertEquals(false, broker(a, 3).get("in_controlled_shutdown"));
        assertEquals(true, broker(a, 3).get("fenced"));
    }

    @Test
    void elections() {
        lines.ok("{\"op\":\"reset\",\"brokers\":[1,2,3],\"elr\":false}");
        lines.ok("{\"op\":\"create\",\"replicas\":[1,2,3],\"min_isr\":1,\"unclean\":false}");
        assertEquals("ELECTION_NOT_NEEDED",
            lines.send("{\"op\":\"elect\",\"partition\":0,\"election\":\"preferred\"}").get("error"));
        lines.ok("{\"op\":\"fence\",\"broker\":1}");
        assertEquals("PREFERRED_LEADER_NOT_AVAILABLE",
            lines.send("{\"op\":\"elect\",\"partition\":0,\"election\":\"preferred\"}").get("error"));
        lines.ok("{\"op\":\"unfence\",\"broker\":1}");
        // Broker 1 is back but out of the ISR: still not electable.
        assertEquals("PREFERRED_LEADER_NOT_AVAILABLE",
            lines.send("{\"op\":\"elect\",\"partition\":0,\"election\":\"preferred\"}").get("error"));
        lines.ok("{\"op\":\"alter_partition\",\"partition\":0,\"broker\":2,\"leader_epoch\":1,"
            + "\"partition_epoch\":1,\"isr\":[1,2,3],\"leader_recovery_state\":0}");
        Map<String, Object> a = lines.ok("{\"op\":\"elect\",\"partition\":0,\"election\":\"preferred\"}");
        assertEquals(1L, partition(a, 0).get("leader"));
        assertEquals("UNKNOWN_TOPIC_OR_PARTITION",
            lines.send("{\"op\":\"elect\",\"partition\":3,\"election\":\"unclean\"}").get("error"));
    }

    @Test
    void uncleanElection() {
        lines.ok("{\"op\":\"reset\",\"brokers\":[1,2],\"elr\":false}");
        lines.ok("{\"op\":\"create\",\"replicas\":[1,2],\"min_isr\":1,\"unclean\":false}");
        lines.ok("{\"op\":\"fence\",\"broker\":2}");
        lines.ok("{\"op\":\"fence\",\"broker\":1}");
        lines.ok("{\"op\":\"register\",\"broker\":2,\"clean\":false}");
        Map<String, Object> a = lines.ok("{\"op\":\"unfence\",\"broker\":2}");
        assertEquals(-1L, partition(a, 0).get("leader"));
        a = lines.ok("{\"op\":\"elect\",\"partition\":0,\"election\":\"unclean\"}");
        Map<String, Object> p = partition(a, 0);
        assertEquals(2L, p.get("leader"), p.toString());
        assertEquals(1L, p.get("leader_recovery_state"), p.toString());
    }

    @Test
    void badInputKeepsServing() {
        Map<String, Object> a = lines.send("this is not json");
        assertEquals("DRIVER", a.get("error"));
        assertNotNull(a.get("fault"));
        a = lines.send("{\"op\":\"create\",\"replicas\":[1],\"min_isr\":1,\"unclean\":false}");
        assertEquals("DRIVER", a.get("error"));
        lines.ok("{\"op\":\"reset\",\"brokers\":[1],\"elr\":false}");
        assertEquals("DRIVER", lines.send("{\"op\":\"nope\"}").get("error"));
        assertEquals("DRIVER", lines.send("{\"op\":\"create\",\"replicas\":\"x\"}").get("error"));
        assertEquals("DRIVER", lines.send("[1,2]").get("error"));
        assertEquals("DRIVER", lines.send("{\"op\":\"elect\",\"partition\":0,\"election\":\"other\"}").get("error"));
        Map<String, Object> b = lines.ok("{\"op\":\"create\",\"replicas\":[1],\"min_isr\":1,\"unclean\":true}");
        assertTrue(((List<?>) b.get("partitions")).size() == 1);
    }

    @Test
    void resetStartsAFreshHistory() {
        lines.ok("{\"op\":\"reset\",\"brokers\":[1,2],\"elr\":false}");
        lines.ok("{\"op\":\"create\",\"replicas\":[1,2],\"min_isr\":1,\"unclean\":false}");
        lines.ok("{\"op\":\"fence\",\"broker\":2}");
        Map<String, Object> a = lines.ok("{\"op\":\"reset\",\"brokers\":[1,2],\"elr\":false}");
        assertEquals(List.of(), a.get("partitions"));
        assertEquals(false, broker(a, 2).get("fenced"));
        a = lines.ok("{\"op\":\"create\",\"replicas\":[2,1],\"min_isr\":1,\"unclean\":false}");
        assertPartition(partition(a, 0), ids(2, 1), ids(2, 1), ids(), ids(), 2, 0, 0);
    }
}
