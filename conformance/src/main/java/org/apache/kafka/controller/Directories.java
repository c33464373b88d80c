package org.apache.kafka.controller;

import org.apache.kafka.common.DirectoryId;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.AssignReplicasToDirsRequestData;
import org.apache.kafka.common.message.AssignReplicasToDirsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.metadata.BrokerRegistration;

import java.util.ArrayList;
import java.util.List;

/**
 * Log directories (PROTOCOL.md, ops assign_dir and dir_offline): every broker registers
 * {@link #PER_BROKER} directories with ids made from its broker id, and the answer names a
 * replica's directory by its index on that broker, so that the model's numbering and the
 * real ids compare.
 */
final class Directories {
    /** The directories every broker registers (the model's {@code DIRS_PER_BROKER}). */
    static final int PER_BROKER = 2;

    private Directories() {
    }

    /** Directory {@code index} (0-based) of {@code broker}. */
    static Uuid id(int broker, int index) {
        if (index < 0 || index >= PER_BROKER) {
            throw new ConformanceDriver.DriverException("directory " + index + " out of range");
        }
        return new Uuid(0xD100000000000000L | (broker & 0xffffffffL), index + 1L);
    }

    /** Every directory {@code broker} registers, in id order. */
    static List<Uuid> all(int broker) {
        List<Uuid> out = new ArrayList<>(PER_BROKER);
        for (int i = 0; i < PER_BROKER; i++) out.add(id(broker, i));
        return out;
    }

    /**
     * A replica's directory as the answer prints it: its index on {@code broker}, -1
     * UNASSIGNED, -2 MIGRATING, -3 LOST, -4 any other id.
     */
    static int code(int broker, Uuid dir) {
        if (DirectoryId.UNASSIGNED.equals(dir)) return -1;
        if (DirectoryId.MIGRATING.equals(dir)) return -2;
        if (DirectoryId.LOST.equals(dir)) return -3;
        for (int i = 0; i < PER_BROKER; i++) {
            if (id(broker, i).equals(dir)) return i;
        }
        return -4;
    }

    /** The indices of the directories a registration lists (its online ones). */
    static void online(StringBuilder out, int broker, BrokerRegistration r) {
        out.append('[');
        boolean first = true;
        for (Uuid dir : r.directories()) {
            if (!first) out.append(',');
            first = false;
            out.append(code(broker, dir));
        }
        out.append(']');
    }

    /** AssignReplicasToDirs of one partition from {@code broker}, with its epoch. */
    static ControllerResult<AssignReplicasToDirsResponseData> assign(
            ReplicationControlManager replication, int broker, long brokerEpoch,
            Uuid topicId, int partition, int dir) {
        AssignReplicasToDirsRequestData.TopicData topic =
            new AssignReplicasToDirsRequestData.TopicData().setTopicId(topicId);
        topic.partitions().add(
            new AssignReplicasToDirsRequestData.PartitionData().setPartitionIndex(partition));
        AssignReplicasToDirsRequestData.DirectoryData directory =
            new AssignReplicasToDirsRequestData.DirectoryData().setId(id(broker, dir));
        directory.topics().add(topic);
        AssignReplicasToDirsRequestData request = new AssignReplicasToDirsRequestData()
            .setBrokerId(broker)
            .setBrokerEpoch(brokerEpoch);
        request.directories().add(directory);
        return replication.handleAssignReplicasToDirs(request);
    }

    /** The one partition's error of an AssignReplicasToDirs answer. */
    static String error(AssignReplicasToDirsResponseData response) {
        short code = response.errorCode();
        if (code == Errors.NONE.code()) {
            code = response.directories().get(0).topics().get(0).partitions().get(0).errorCode();
        }
        return Errors.forCode(code).name();
    }
}
