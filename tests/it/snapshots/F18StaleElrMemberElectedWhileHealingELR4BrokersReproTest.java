package org.apache.kafka.controller;

import org.junit.jupiter.api.Test;

import static org.apache.kafka.controller.PartitionFixture.ACKS_ALL;
import static org.apache.kafka.controller.PartitionFixture.delta;
import static org.apache.kafka.controller.PartitionFixture.expire;
import static org.apache.kafka.controller.PartitionFixture.fetch;
import static org.apache.kafka.controller.PartitionFixture.image;
import static org.apache.kafka.controller.PartitionFixture.produce;
import static org.apache.kafka.controller.PartitionFixture.remove;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ELR4 on the real brokers (Partitions, logs, the replica fetcher; no controller), as
 * Apache Kafka 4.4.0's brokers show it after step 6 of corpus/regressions/f18-stale-elr-member-elected-while-healing.json: p0: elr member 2 lacks acknowledged record 0 (epoch 0); its log ..0.
 *
 * <p>ELR4: candidate completeness with ELR on: every ISR member, and every ELR member that is a replica, holds every acknowledged record; judged across power losses, given up only after an unclean election. The registrations are the deltas 4.4.0's controller produced
 * for this history; each step performs the calls the brokers judge performed. The
 * assertions are unconditional. Emitted by isrfuzz conform --junit from the calls the
 * trunk+inkless-main rules make.
 */
class F18StaleElrMemberElectedWhileHealingELR4BrokersReproTest {
    @Test
    void testELR4OnTheBrokers() {
        try (PartitionFixture brokers = new PartitionFixture(30000L, 1, 2, 3)) {
            // step 0: create [1,3,2] min.isr=3
            brokers.step(
                delta(1, 0, new int[] {1, 3, 2}, new int[] {1, 3, 2}, 1, 0, 0, 3, 0L),
                delta(3, 0, new int[] {1, 3, 2}, new int[] {1, 3, 2}, 1, 0, 0, 3, 0L),
                delta(2, 0, new int[] {1, 3, 2}, new int[] {1, 3, 2}, 1, 0, 0, 3, 0L));
            // step 1: produce p0 +1 acks=all
            brokers.step(
                produce(0, 1, 1, ACKS_ALL, 3, 0L));
            // step 2: time +15000ms
            brokers.step(
                fetch(0, 2, 1, 0L),
                fetch(0, 3, 1, 0L),
                fetch(0, 2, 1, 0L),
                fetch(0, 3, 1, 0L),
                expire(15000L, 1, 2, 3),
                fetch(0, 2, 1, 15000L),
                fetch(0, 3, 1, 15000L),
                fetch(0, 2, 1, 15000L),
                fetch(0, 3, 1, 15000L));
            assertTrue(brokers.acknowledged(1, 0, 1L), "acks=all of record 0 (epoch 0): leader 1's high watermark passed them with the ISR at min.insync.replicas; " + brokers.describe(1, 0));
            // step 3: reassign p0 [3]
            brokers.step(
                remove(1, 0),
                remove(2, 0),
                delta(3, 0, new int[] {3}, new int[] {3}, 3, 1, 1, 3, 15000L));
            // step 4: fence 3
            brokers.step(
                image(new int[] {3}, new int[] {}));
            // step 5: fence 2
            brokers.step(
                image(new int[] {2, 3}, new int[] {}));
            // step 6: reassign p0 [2] (no broker call)
            assertTrue(brokers.holds(2, 0, 0L, 1L, 0), "ELR member 2 holds record 0 (epoch 0); " + brokers.describe(2, 0));
            assertTrue(brokers.holds(3, 0, 0L, 1L, 0), "ELR member 3 holds record 0 (epoch 0); " + brokers.describe(3, 0));
        }
    }
}
