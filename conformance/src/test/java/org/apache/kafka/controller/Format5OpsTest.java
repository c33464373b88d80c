package org.apache.kafka.controller;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The requests history format 5 added (PROTOCOL.md), on the release of the test classpath:
 * each answer as the real managers give it.
 */
class Format5OpsTest {
    private final DriverLines lines = new DriverLines();

    @SuppressWarnings("unchecked")
    private static Map<String, Object> partition(Map<String, Object> answer, int index) {
        return (Map<String, Object>) ((List<Object>) answer.get("partitions")).get(index);
    }

    @SuppressWarnings("unchecked")
    private static boolean registered(Map<String, Object> answer, long id) {
        for (Object o : (List<Object>) answer.get("brokers")) {
            if (((Map<String, Object>) o).get("id").equals(id)) return true;
        }
        return false;
    }

    @SuppressWarnings("unchecked")
    private static boolean fenced(Map<String, Object> answer, long id) {
        for (Object o : (List<Object>) answer.get("brokers")) {
            Map<String, Object> b = (Map<String, Object>) o;
            if (b.get("id").equals(id)) return (Boolean) b.get("fenced");
        }
        throw new AssertionError("broker " + id + " not registered: " + answer);
    }

    @Test
    void electionsOverSeveralPartitionsAnswerEachOne() {
        lines.ok("{\"op\":\"reset\",\"brokers\":[1,2],\"elr\":false}");
        lines.ok("{\"op\":\"create\",\"replicas\":[1,2],\"min_isr\":1,\"unclean\":false}");
        lines.ok("{\"op\":\"create\",\"replicas\":[2,1],\"min_isr\":1,\"unclean\":false}");
        lines.ok("{\"op\":\"fence\",\"broker\":1}");
        lines.ok("{\"op\":\"unfence\",\"broker\":1}");
        // Broker 1 is back but not in p0's ISR; p1 already has its preferred leader, and a
        // request over every partition leaves it out of the answer.
        Map<String, Object> all = lines.ok("{\"op\":\"elect_many\",\"partitions\":null,\"election\":\"preferred\"}");
        assertEquals(List.of(List.of(0L, "PREFERRED_LEADER_NOT_AVAILABLE")), all.get("elected"), all.toString());
        Map<String, Object> p0 = partition(all, 0);
        lines.ok("{\"op\":\"alter_partition\",\"partition\":0,\"broker\":2,\"leader_epoch\":"
            + p0.get("leader_epoch") + ",\"partition_epoch\":" + p0.get("partition_epoch")
            + ",\"isr\":[2,1],\"leader_recovery_state\":0}");
        Map<String, Object> some = lines.ok("{\"op\":\"elect_many\",\"partitions\":[1,0],\"election\":\"preferred\"}");
        assertEquals(List.of(List.of(0L, "NONE"), List.of(1L, "ELECTION_NOT_NEEDED")), some.get("elected"), some.toString());
        assertEquals(1L, partition(some, 0).get("leader"));
    }

    @Test
    void aMinIsrChangeClearsTheElrOnlyWhenTheValueChanges() {
        lines.ok("{\"op\":\"reset\",\"brokers\":[1,2],\"elr\":true}");
        lines.ok("{\"op\":\"create\",\"replicas\":[1,2],\"min_isr\":2,\"unclean\":false}");
        Map<String, Object> fenced = lines.ok("{\"op\":\"fence\",\"broker\":2}");
        assertEquals(List.of(2L), partition(fenced, 0).get("elr"));
        long epoch = (Long) partition(fenced, 0).get("partition_epoch");
        Map<String, Object> same = lines.ok("{\"op\":\"alter_config\",\"partition\":0,\"min_isr\":2}");
        assertEquals(epoch, partition(same, 0).get("partition_epoch"));
        assertEquals(List.of(2L), partition(same, 0).get("elr"));
        Map<String, Object> changed = lines.ok("{\"op\":\"alter_config\",\"partition\":0,\"min_isr\":1,\"unclean\":true}");
        assertEquals(epoch + 1, partition(changed, 0).get("partition_epoch"));
        assertEquals(List.of(), partition(changed, 0).get("elr"));
    }

    @Test
    void heartbeatsUnregistrationAndFeatures() {
        lines.ok("{\"op\":\"reset\",\"brokers\":[1,2,3],\"elr\":false}");
        lines.ok("{\"op\":\"create\",\"replicas\":[1,2,3],\"min_isr\":1,\"unclean\":false}");
        lines.ok("{\"op\":\"fence\",\"broker\":2}");
        assertTrue(fenced(lines.ok("{\"op\":\"lagging_heartbeat\",\"broker\":2}"), 2));
        assertTrue(!fenced(lines.ok("{\"op\":\"unfence\",\"broker\":2}"), 2));
        lines.ok("{\"op\":\"fence\",\"broker\":3}");
        Map<String, Object> gone = lines.ok("{\"op\":\"unregister\",\"broker\":3}");
        assertTrue(!registered(gone, 3L), gone.toString());
        assertEquals("BROKER_ID_NOT_REGISTERED", lines.send("{\"op\":\"unregister\",\"broker\":3}").get("error"));
        lines.ok("{\"op\":\"update_features\",\"elr\":true}");
        lines.ok("{\"op\":\"update_features\",\"elr\":false}");
        Map<String, Object> p = partition(lines.ok("{\"op\":\"list\"}"), 0);
        String stale = "{\"op\":\"alter_partition\",\"partition\":0,\"broker\":1,\"leader_epoch\":"
            + p.get("leader_epoch") + ",\"partition_epoch\":" + p.get("partition_epoch")
            + ",\"isr\":[1,2],\"leader_recovery_state\":0,\"stale_epoch\":";
        assertEquals("STALE_BROKER_EPOCH", lines.send(stale + "1}").get("error"));
        assertEquals("INELIGIBLE_REPLICA", lines.send(stale + "2}").get("error"));
    }
}
