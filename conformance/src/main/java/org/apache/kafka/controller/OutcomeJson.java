package org.apache.kafka.controller;

import org.apache.kafka.metadata.BrokerRegistration;
import org.apache.kafka.metadata.PartitionRegistration;

import java.util.Arrays;
import java.util.Map;

/** The controller protocol's answer line (PROTOCOL.md), rendered from the managers. */
final class OutcomeJson {
    private OutcomeJson() {
    }

    /**
     * One answer line: the outcome, then every partition's registration (creation order)
     * and every registered broker (ascending id) as the managers hold them now.
     */
    static void render(ConformanceDriver.Outcome o, ReplicationControlManager replication,
                       LivePartitions live, ClusterControlManager cluster, StringBuilder out) {
        out.append("{\"error\":");
        ConformanceDriver.string(out, o.error);
        if (o.release != null) {
            out.append(",\"release\":");
            ConformanceDriver.string(out, o.release);
        }
        out.append(",\"fault\":");
        if (o.fault == null) out.append("null");
        else ConformanceDriver.string(out, o.fault);
        out.append(",\"listed\":");
        if (o.listed == null) {
            out.append("null");
        } else {
            out.append('[');
            for (int i = 0; i < o.listed.size(); i++) {
                if (i > 0) out.append(',');
                out.append(o.listed.get(i).intValue());
            }
            out.append(']');
        }
        if (o.elected != null) {
            out.append(",\"elected\":[");
            for (int i = 0; i < o.elected.size(); i++) {
                if (i > 0) out.append(',');
                out.append('[').append(((Integer) o.elected.get(i)[0]).intValue()).append(',');
                ConformanceDriver.string(out, (String) o.elected.get(i)[1]);
                out.append(']');
            }
            out.append(']');
        }
        out.append(",\"partitions\":[");
        if (replication != null) {
            for (int i = 0; i < live.size(); i++) {
                if (i > 0) out.append(',');
                PartitionRegistration p =
                    replication.getPartition(live.topicId(i), live.partition(i));
                out.append("{\"partition\":").append(i);
                if (p == null) {
                    out.append('}');
                    continue;
                }
                out.append(",\"replicas\":");
                ints(out, p.replicas);
                out.append(",\"isr\":");
                ints(out, p.isr);
                out.append(",\"adding\":");
                ints(out, p.addingReplicas);
                out.append(",\"removing\":");
                ints(out, p.removingReplicas);
                out.append(",\"leader\":").append(p.leader);
                out.append(",\"leader_epoch\":").append(p.leaderEpoch);
                out.append(",\"partition_epoch\":").append(p.partitionEpoch);
                out.append(",\"leader_recovery_state\":").append((int) p.leaderRecoveryState.value());
                out.append(",\"elr\":");
                ints(out, p.elr);
                out.append(",\"last_known_elr\":");
                ints(out, p.lastKnownElr);
                out.append(",\"dirs\":[");
                for (int r = 0; r < p.replicas.length; r++) {
                    if (r > 0) out.append(',');
                    out.append(p.directories == null ? -4 : Directories.code(p.replicas[r], p.directories[r]));
                }
                out.append("]}");
            }
        }
        out.append("],\"brokers\":[");
        if (cluster != null) {
            Map<Integer, BrokerRegistration> regs = cluster.brokerRegistrations();
            int[] ids = new int[regs.size()];
            int n = 0;
            for (Integer id : regs.keySet()) ids[n++] = id;
            Arrays.sort(ids, 0, n);
            for (int i = 0; i < n; i++) {
                BrokerRegistration r = regs.get(ids[i]);
                if (i > 0) out.append(',');
                out.append("{\"id\":").append(ids[i])
                    .append(",\"fenced\":").append(r.fenced())
                    .append(",\"in_controlled_shutdown\":").append(r.inControlledShutdown())
                    .append(",\"dirs\":");
                Directories.online(out, ids[i], r);
                out.append('}');
            }
        }
        out.append("]}");
    }

    private static void ints(StringBuilder out, int[] values) {
        out.append('[');
        if (values != null) {
            for (int i = 0; i < values.length; i++) {
                if (i > 0) out.append(',');
                out.append(values[i]);
            }
        }
        out.append(']');
    }
}
