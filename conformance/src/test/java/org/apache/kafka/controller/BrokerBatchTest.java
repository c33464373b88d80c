package org.apache.kafka.controller;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A history's step as one request (BROKERS.md, {@code broker_batch}) against the release on the classpath. */
class BrokerBatchTest {
    private DriverLines lines;

    @BeforeEach
    void setUp() {
        lines = new DriverLines();
        lines.ok("{\"op\":\"broker_reset\",\"brokers\":[1,2],\"lag_max_ms\":10000}");
        // Broker 1 leads with ISR [1]; broker 2 follows; five records in one batch, [0, 4].
        for (int broker = 1; broker <= 2; broker++) {
            lines.ok("{\"op\":\"broker_delta\",\"broker\":" + broker + ",\"partition\":0,\"replicas\":[1,2],"
                + "\"isr\":[1],\"leader\":1,\"leader_epoch\":0,\"partition_epoch\":0,\"now_ms\":0,\"min_isr\":1}");
        }
        lines.ok("{\"op\":\"broker_produce\",\"partition\":0,\"broker\":1,\"records\":5,\"acks\":1,\"min_isr\":1}");
    }

    @AfterEach
    void tearDown() {
        lines.driver.handle("{\"op\":\"broker_reset\",\"brokers\":[],\"lag_max_ms\":1}");
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> batch(String... calls) {
        Map<String, Object> a = lines.ok("{\"op\":\"broker_batch\",\"calls\":[" + String.join(",", calls) + "]}");
        return (Map<String, Object>) a.get("batch");
    }

    private static final String CATCH_UP =
        "{\"op\":\"broker_fetch\",\"partition\":0,\"follower\":2,\"leader\":1,\"catch_up\":true}";
    private static final String ASSERTED_EXPANSION = "{\"op\":\"broker_alter_answer\",\"partition\":0,\"broker\":1,"
        + "\"error\":\"NONE\",\"isr\":[1,2],\"leader_epoch\":0,\"partition_epoch\":1,\"leader_recovery_state\":0,"
        + "\"asserted\":true}";

    /**
     * The catch-up fetches the batch, then once more at the leader's end, where the leader
     * records the follower and proposes it for the ISR; the history's asserted expansion
     * answers that proposal. In a later step no Partition proposed anything: not performed.
     */
    @Test
    void aCatchUpRunsToTheLeadersEndAndTheAssertedAnswerTakesItsProposal() {
        Map<String, Object> b = batch(CATCH_UP, ASSERTED_EXPANSION);
        assertEquals(3L, b.get("sent"), b.toString());
        assertEquals(1, ((List<?>) b.get("proposals")).size(), b.toString());
        assertEquals(b.get("proposals"), b.get("asserted"));
        assertEquals(-1L, b.get("fault_at"));
        assertNull(b.get("beyond_model"));
        b = batch(ASSERTED_EXPANSION);
        assertEquals(0L, b.get("sent"), b.toString());
        assertTrue(((List<?>) b.get("asserted")).isEmpty(), b.toString());
    }

    /** A log start inside the batch [0, 4] stops the step unperformed; at its end, it is performed. */
    @Test
    void aDeleteRecordsInsideABatchEndsTheStep() {
        batch(CATCH_UP);
        String delete = "{\"op\":\"broker_delete_records\",\"partition\":0,\"broker\":1,\"offset\":%d}";
        Map<String, Object> b = batch(String.format(delete, 2), CATCH_UP);
        assertEquals("mid_batch_delete", b.get("beyond_model"));
        assertEquals(0L, b.get("sent"), b.toString());
        b = batch(String.format(delete, 5));
        assertNull(b.get("beyond_model"));
        assertEquals(1L, b.get("sent"), b.toString());
    }

    /**
     * A power loss while the batch [0, 4] lies wholly below the log start 5 (still on disk in
     * the active segment) ends the step after the restart; a clean restart does not.
     */
    @Test
    void aPowerLossRecoveringRecordsBelowTheLogStartEndsTheStep() {
        batch(CATCH_UP);
        batch("{\"op\":\"broker_delete_records\",\"partition\":0,\"broker\":1,\"offset\":5}");
        String restart = "{\"op\":\"broker_restart\",\"broker\":1,\"survives\":\"%s\"}";
        Map<String, Object> b = batch(String.format(restart, "clean"));
        assertNull(b.get("beyond_model"), b.toString());
        b = batch(String.format(restart, "flushed"), CATCH_UP);
        assertEquals("recovery_below_log_start", b.get("beyond_model"));
        assertEquals(1L, b.get("sent"), b.toString());
    }

    /** A call the driver cannot take is that call's fault; the calls after it are performed. */
    @Test
    void aMalformedCallIsItsFaultAndTheBatchGoesOn() {
        Map<String, Object> b = batch("{\"op\":\"broker_nothing\"}", CATCH_UP);
        assertEquals(0L, b.get("fault_at"));
        assertTrue(((String) b.get("fault_text")).startsWith("DRIVER"), b.toString());
        assertEquals(3L, b.get("sent"), b.toString());
    }
}
