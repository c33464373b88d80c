package org.apache.kafka.controller;

import org.apache.kafka.common.ElectionType;
import org.apache.kafka.metadata.BrokerRegistration;
import org.apache.kafka.metadata.LeaderRecoveryState;
import org.apache.kafka.metadata.PartitionRegistration;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The real controller managers a reproducer emitted by {@code isrfuzz conform --junit} runs
 * on: one call per controller request, named after the manager method it ends in.
 *
 * <p>It wraps {@link ConformanceDriver} instead of building the managers itself, so a
 * reproducer and the conformance protocol that found it set the managers up, replay their
 * records and work around release differences ({@link ConformanceShims}) the same way: a
 * reproducer that fails here fails for the reason conformance reported.
 *
 * <p>Partitions are addressed as in the history format: the n-th topic created is
 * {@code t<n>} with one partition, partition index n.
 */
final class ReproFixture {
    /**
     * What a controller call answered: the {@code Errors} name, and, when the call threw
     * anything other than an {@code ApiException} (upstream, the active controller would
     * resign), the exception.
     */
    record Answer(String error, String fault) {
        /** S4's failure: an uncaught exception, or an UNKNOWN_SERVER_ERROR answer. */
        boolean threw() {
            return fault != null || error.equals("UNKNOWN_SERVER_ERROR");
        }

        @Override
        public String toString() {
            return fault == null ? error : error + " (" + fault + ")";
        }
    }

    private final ConformanceDriver driver = new ConformanceDriver();

    /**
     * Fresh managers at the release's latest production metadata.version, with
     * eligible.leader.replicas.version 1 when asked, and every broker registered and
     * unfenced.
     */
    ReproFixture(boolean eligibleLeaderReplicas, int... brokers) {
        List<Integer> ids = new ArrayList<>(brokers.length);
        for (int b : brokers) ids.add(b);
        Answer a = answer(driver.reset(ids, eligibleLeaderReplicas));
        if (!a.error().equals("NONE") || a.fault() != null) {
            throw new IllegalStateException("the cluster of brokers " + ids + " was refused: " + a);
        }
    }

    /** createTopics of the next topic, one partition on {@code replicas}, two topic configs. */
    Answer createTopic(int[] replicas, int minInsyncReplicas, boolean uncleanLeaderElection) {
        return answer(driver.create(list(replicas), minInsyncReplicas, uncleanLeaderElection));
    }

    /** alterPartitionReassignments of partition {@code partition} to {@code target}. */
    Answer alterPartitionReassignments(int partition, int[] target,
                                       boolean allowReplicationFactorChange) {
        return answer(driver.reassign(partition, list(target), allowReplicationFactorChange));
    }

    /** alterPartitionReassignments with a null target: a cancellation. */
    Answer cancelPartitionReassignment(int partition) {
        return answer(driver.reassign(partition, null, true));
    }

    /** alterPartition (version 3, each ISR member with its current broker epoch) from {@code broker}. */
    Answer alterPartition(int partition, int broker, int leaderEpoch, int partitionEpoch,
                          int[] newIsr, LeaderRecoveryState leaderRecoveryState) {
        return answer(driver.alterPartition(partition, broker, leaderEpoch, partitionEpoch,
            list(newIsr), leaderRecoveryState.value(), -1));
    }

    /** alterPartition as above, with {@code staleBroker}'s broker epoch one behind its registration. */
    Answer alterPartitionWithStaleEpoch(int partition, int broker, int leaderEpoch,
                                        int partitionEpoch, int[] newIsr,
                                        LeaderRecoveryState leaderRecoveryState, int staleBroker) {
        return answer(driver.alterPartition(partition, broker, leaderEpoch, partitionEpoch,
            list(newIsr), leaderRecoveryState.value(), staleBroker));
    }

    /** electLeaders over {@code partitions} in one request, or over every partition (null). */
    Answer electLeaders(int[] partitions, ElectionType type) {
        return answer(driver.electMany(partitions == null ? null : list(partitions), type.value));
    }

    /** incrementalAlterConfigs SET on partition {@code partition}'s topic (null: not changed). */
    Answer alterTopicConfig(int partition, Integer minInsyncReplicas, Boolean uncleanLeaderElection) {
        return answer(driver.alterConfig(partition,
            minInsyncReplicas == null ? null : minInsyncReplicas.toString(),
            uncleanLeaderElection == null ? null : uncleanLeaderElection.toString()));
    }

    /** A heartbeat whose metadata offset is behind the broker's own registration record. */
    Answer laggingHeartbeat(int broker) {
        return answer(driver.heartbeat(broker, false, false, true, java.util.List.of()));
    }

    /** AssignReplicasToDirs: {@code broker}'s replica of {@code partition} lives in directory {@code dir}. */
    Answer assignReplicaDir(int partition, int broker, int dir) {
        return answer(driver.assignDir(broker, partition, dir));
    }

    /** A heartbeat of a running broker that reports its directory {@code dir} offline. */
    Answer logDirOffline(int broker, int dir) {
        return answer(driver.heartbeat(broker, false, false, false,
            java.util.List.of(Directories.id(broker, dir))));
    }

    /** updateFeatures of eligible.leader.replicas.version: 1 ({@code on}) or 0. */
    Answer updateEligibleLeaderReplicas(boolean on) {
        return answer(driver.updateElr(on));
    }

    /** createPartitions: partition {@code partition}'s topic gets one more partition, on {@code replicas}. */
    Answer createPartition(int partition, int[] replicas) {
        return answer(driver.addPartition(partition, list(replicas)));
    }

    /** deleteTopics of partition {@code partition}'s topic. */
    Answer deleteTopic(int partition) {
        return answer(driver.deleteTopic(partition));
    }

    /** unregisterBroker. */
    Answer unregisterBroker(int broker) {
        return answer(driver.unregister(broker));
    }

    /** A session expiry: handleBrokerFenced. */
    Answer handleBrokerFenced(int broker) {
        return answer(driver.fence(broker));
    }

    /** A heartbeat caught up with the metadata log, not wanting fencing: handleBrokerUnfenced. */
    Answer handleBrokerUnfenced(int broker) {
        return answer(driver.heartbeat(broker, false, false));
    }

    /** A heartbeat with wantShutDown: handleBrokerInControlledShutdown (or SHUTDOWN_NOW). */
    Answer handleBrokerInControlledShutdown(int broker) {
        return answer(driver.heartbeat(broker, false, true));
    }

    /**
     * registerBroker of a new incarnation; {@code cleanShutdown} false sends a previous
     * broker epoch that does not match (the unclean-shutdown path).
     */
    Answer registerBroker(int broker, boolean cleanShutdown) {
        return answer(driver.register(broker, cleanShutdown));
    }

    /** electLeaders of one partition. */
    Answer electLeaders(int partition, ElectionType type) {
        return answer(driver.elect(partition, type.value));
    }

    /** listPartitionReassignments over every topic. */
    Answer listPartitionReassignments() {
        return answer(driver.list());
    }

    /** Partition {@code index}'s registration now. */
    PartitionRegistration partition(int index) {
        PartitionRegistration p = driver.partition(index);
        if (p == null) throw new IllegalStateException("no partition " + index);
        return p;
    }

    /** Broker {@code id}'s registration now (null when it never registered). */
    BrokerRegistration broker(int id) {
        return driver.broker(id);
    }

    /** Whether a reassignment is in progress: adding or removing replicas are listed. */
    static boolean reassigning(PartitionRegistration p) {
        return p.addingReplicas.length > 0 || p.removingReplicas.length > 0;
    }

    /** The ids as an ordered set: the properties compare sets, and messages print them sorted. */
    static Set<Integer> ids(int... values) {
        Set<Integer> set = new TreeSet<>();
        for (int v : values) set.add(v);
        return set;
    }

    /** {@code a − b}. */
    static Set<Integer> minus(Set<Integer> a, Set<Integer> b) {
        Set<Integer> set = new TreeSet<>(a);
        set.removeAll(b);
        return set;
    }

    /** {@code a ∩ b}. */
    static Set<Integer> intersection(Set<Integer> a, Set<Integer> b) {
        Set<Integer> set = new TreeSet<>(a);
        set.retainAll(b);
        return set;
    }

    /** Whether a list holds an id twice. */
    static boolean hasDuplicates(int[] values) {
        return ids(values).size() != values.length;
    }

    private static List<Integer> list(int[] values) {
        List<Integer> l = new ArrayList<>(values.length);
        for (int v : values) l.add(v);
        return l;
    }

    private static Answer answer(ConformanceDriver.Outcome o) {
        return new Answer(o.error, o.fault);
    }
}
