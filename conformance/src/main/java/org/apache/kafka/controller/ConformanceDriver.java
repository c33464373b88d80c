package org.apache.kafka.controller;

import static org.apache.kafka.controller.RequestFields.bool;
import static org.apache.kafka.controller.RequestFields.intList;
import static org.apache.kafka.controller.RequestFields.integer;
import static org.apache.kafka.controller.RequestFields.text;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.AssignReplicasToDirsResponseData;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.FeatureUpdate;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.StaleBrokerEpochException;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData.ReassignablePartition;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData.ReassignableTopic;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.AlterPartitionRequestData;
import org.apache.kafka.common.message.AlterPartitionResponseData;
import org.apache.kafka.common.message.BrokerHeartbeatRequestData;
import org.apache.kafka.common.message.BrokerRegistrationRequestData;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableReplicaAssignment;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopicConfig;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicResult;
import org.apache.kafka.common.message.ElectLeadersRequestData;
import org.apache.kafka.common.message.ElectLeadersResponseData;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.metadata.BrokerRegistrationChangeRecord;
import org.apache.kafka.common.metadata.ClearElrRecord;
import org.apache.kafka.common.metadata.ConfigRecord;
import org.apache.kafka.common.metadata.FeatureLevelRecord;
import org.apache.kafka.common.metadata.FenceBrokerRecord;
import org.apache.kafka.common.metadata.NoOpRecord;
import org.apache.kafka.common.metadata.PartitionChangeRecord;
import org.apache.kafka.common.metadata.PartitionRecord;
import org.apache.kafka.common.metadata.RegisterBrokerRecord;
import org.apache.kafka.common.metadata.RemoveTopicRecord;
import org.apache.kafka.common.metadata.TopicRecord;
import org.apache.kafka.common.metadata.UnfenceBrokerRecord;
import org.apache.kafka.common.metadata.UnregisterBrokerRecord;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.BrokerHeartbeatReply;
import org.apache.kafka.metadata.BrokerRegistration;
import org.apache.kafka.metadata.FinalizedControllerFeatures;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.metadata.PartitionRegistration;
import org.apache.kafka.metadata.placement.StripedReplicaPlacer;
import org.apache.kafka.server.common.ApiMessageAndVersion;
import org.apache.kafka.server.common.EligibleLeaderReplicasVersion;
import org.apache.kafka.server.common.MetadataVersion;
import org.apache.kafka.timeline.SnapshotRegistry;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;

/**
 * Serves isrfuzz's conformance protocol ({@code conformance/PROTOCOL.md}) on standard input
 * and output: one JSON request a line in, one JSON answer a line out, each request run on
 * the real KRaft controller managers of the Kafka release on the classpath, wired and
 * replayed as {@code QuorumController} does.
 *
 * <p>It lives in {@code org.apache.kafka.controller} because the managers' builders and
 * request methods are package-private. Signatures that differ between releases go through
 * {@link ConformanceShims}.
 */
public final class ConformanceDriver {
    static final String CLUSTER_ID = "isrfuzzConformance0000";
    static final String MIN_ISR = TopicConfigs.MIN_ISR;
    static final String UNCLEAN = TopicConfigs.UNCLEAN;

    /**
     * The features this controller supports: the release's production levels of every
     * feature (eligible.leader.replicas.version 0-1 on 4.0.2 to 4.4.0), as a controller
     * without unstable versions enabled. The builder's default supports metadata.version
     * alone, and replaying eligible.leader.replicas.version=1 would then fail.
     */
    static final QuorumFeatures QUORUM_FEATURES =
        new QuorumFeatures(0, QuorumFeatures.defaultSupportedFeatureMap(false), List.of(0));

    private static final short ALTER_PARTITION_VERSION = 3;
    private static final ControllerRequestContext CREATE_TOPICS_CONTEXT =
        context(ApiKeys.CREATE_TOPICS, ApiKeys.CREATE_TOPICS.latestVersion());
    private static final ControllerRequestContext CREATE_PARTITIONS_CONTEXT =
        context(ApiKeys.CREATE_PARTITIONS, ApiKeys.CREATE_PARTITIONS.latestVersion());
    private static final ControllerRequestContext DELETE_TOPICS_CONTEXT =
        context(ApiKeys.DELETE_TOPICS, ApiKeys.DELETE_TOPICS.latestVersion());
    private static final ControllerRequestContext ALTER_PARTITION_CONTEXT =
        context(ApiKeys.ALTER_PARTITION, ALTER_PARTITION_VERSION);

    private static ControllerRequestContext context(ApiKeys key, short version) {
        return new ControllerRequestContext(
            new RequestHeaderData().setRequestApiKey(key.id).setRequestApiVersion(version),
            KafkaPrincipal.ANONYMOUS, OptionalLong.empty());
    }

    // The managers of the current history (null before the first reset).
    private SnapshotRegistry registry;
    private FeatureControlManager features;
    private ClusterControlManager cluster;
    private ConfigurationControlManager config;
    private ReplicationControlManager replication;
    private Map<String, Short> finalized;
    /** The offset the next replayed record gets. */
    private long nextOffset;
    /** The model's partition indices over the real topics. */
    private final LivePartitions live = new LivePartitions();
    private long incarnations;
    /** The broker side (BROKERS.md), independent of the controller managers. */
    private BrokerSide brokerSide;
    /** The real in-process cluster (ops cluster_*), started by cluster_start. */
    private ClusterSide clusterSide;

    /**
     * The outcome of one request, before the state is rendered. Package-private: the
     * reproducers' fixture (ReproFixture, in the tests) reads it too.
     */
    static final class Outcome {
        String error = "NONE";
        String fault;
        List<Integer> listed;
        /** ElectLeaders over several partitions: [partition, error] pairs, ascending. */
        List<Object[]> elected;
        String release;
    }

    /** A malformed request: answered with error DRIVER. */
    static final class DriverException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        DriverException(String message) {
            super(message);
        }
    }

    @FunctionalInterface
    private interface Call<T> {
        ControllerResult<T> run() throws Throwable;
    }

    public static void main(String[] args) throws IOException {
        // Standard output carries the protocol only: anything else printing goes to stderr.
        OutputStream stdout = new FileOutputStream(FileDescriptor.out);
        System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.err), true,
            StandardCharsets.UTF_8));
        BufferedReader in = new BufferedReader(
            new InputStreamReader(System.in, StandardCharsets.UTF_8), 1 << 16);
        ConformanceDriver driver = new ConformanceDriver();
        StringBuilder buf = new StringBuilder(4096);
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            buf.setLength(0);
            boolean quit = driver.handle(line, buf);
            buf.append('\n');
            stdout.write(buf.toString().getBytes(StandardCharsets.UTF_8));
            stdout.flush();
            if (quit) break;
        }
        stdout.flush();
        System.exit(0);
    }

    /** Answers one request line (without its newline). */
    public String handle(String line) {
        StringBuilder out = new StringBuilder(1024);
        handle(line, out);
        return out.toString();
    }

    /** Appends the answer to one request line to {@code out}; true for {@code quit}. */
    boolean handle(String line, StringBuilder out) {
        int start = out.length();
        try {
            Object parsed = ConformanceJson.parse(line);
            if (!(parsed instanceof Map)) throw new DriverException("not a JSON object");
            @SuppressWarnings("unchecked")
            Map<String, Object> req = (Map<String, Object>) parsed;
            Object opValue = req.get("op");
            if (!(opValue instanceof String)) throw new DriverException("no op");
            String op = (String) opValue;
            if (op.equals("quit")) {
                if (clusterSide != null) clusterSide.close();
                Outcome o = new Outcome();
                OutcomeJson.render(o, replication, live, cluster, out);
                return true;
            }
            if (op.startsWith("cluster_")) {
                if (clusterSide == null) clusterSide = new ClusterSide();
                clusterSide.handle(op, req, out);
                return false;
            }
            if (op.startsWith("broker_")) {
                // The broker side (BROKERS.md), built on its first request.
                if (brokerSide == null) brokerSide = new BrokerSide();
                brokerSide.handle(op, req, out);
                return false;
            }
            Outcome o;
            if (op.equals("reset")) {
                o = reset(intList(req, "brokers"), bool(req, "elr"));
            } else {
                if (replication == null) throw new DriverException("no reset before " + op);
                o = dispatch(op, req);
            }
            OutcomeJson.render(o, replication, live, cluster, out);
        } catch (Throwable t) {
            out.setLength(start);
            out.append("{\"error\":\"DRIVER\",\"fault\":");
            string(out, describe(t));
            out.append('}');
        }
        return false;
    }

    private Outcome dispatch(String op, Map<String, Object> req) {
        switch (op) {
            case "create":
                return create(intList(req, "replicas"), integer(req, "min_isr"), bool(req, "unclean"));
            case "reassign":
                return reassign(integer(req, "partition"), intList(req, "target"),
                    bool(req, "allow_rf_change"));
            case "cancel":
                return reassign(integer(req, "partition"), null, true);
            case "alter_partition": {
                int lrs = integer(req, "leader_recovery_state");
                if (lrs != 0 && lrs != 1) throw new DriverException("leader_recovery_state " + lrs);
                Object stale = req.get("stale_epoch");
                int staleEpoch = stale == null ? -1 : integer(req, "stale_epoch");
                return alterPartition(integer(req, "partition"), integer(req, "broker"),
                    integer(req, "leader_epoch"), integer(req, "partition_epoch"),
                    intList(req, "isr"), (byte) lrs, staleEpoch);
            }
            case "fence":
                return fence(integer(req, "broker"));
            case "controlled_shutdown":
                return heartbeat(integer(req, "broker"), false, true);
            case "register":
                return register(integer(req, "broker"), bool(req, "clean"));
            case "unfence":
                return heartbeat(integer(req, "broker"), false, false);
            case "lagging_heartbeat":
                return heartbeat(integer(req, "broker"), false, false, true, List.of());
            case "unregister":
                return unregister(integer(req, "broker"));
            case "update_features":
                return updateElr(bool(req, "elr"));
            case "elect":
                return elect(integer(req, "partition"), electionType(req));
            case "elect_many":
                return electMany(req.get("partitions") == null ? null : intList(req, "partitions"),
                    electionType(req));
            case "alter_config": {
                String minIsr = req.get("min_isr") == null ? null
                    : Integer.toString(integer(req, "min_isr"));
                String unclean = req.get("unclean") == null ? null
                    : Boolean.toString(bool(req, "unclean"));
                return alterConfig(integer(req, "partition"), minIsr, unclean);
            }
            case "add_partition":
                return addPartition(integer(req, "partition"), intList(req, "replicas"));
            case "delete":
                return deleteTopic(integer(req, "partition"));
            case "list":
                return list();
            case "assign_dir":
                return assignDir(integer(req, "broker"), integer(req, "partition"), integer(req, "dir"));
            case "dir_offline":
                return heartbeat(integer(req, "broker"), false, false, false,
                    List.of(Directories.id(integer(req, "broker"), integer(req, "dir"))));
            default:
                throw new DriverException("unknown op " + op);
        }
    }

    private static byte electionType(Map<String, Object> req) {
        String election = text(req, "election");
        if (election.equals("preferred")) return 0;
        if (election.equals("unclean")) return 1;
        throw new DriverException("unknown election " + election);
    }

    // ---------------------------------------------------------------- operations

    /** Fresh managers over one SnapshotRegistry, features set, every broker registered and unfenced. */
    Outcome reset(List<Integer> brokers, boolean elr) {
        SnapshotRegistry reg = ConformanceShims.newSnapshotRegistry();
        FeatureControlManager feat = new FeatureControlManager.Builder()
            .setSnapshotRegistry(reg)
            .setQuorumFeatures(QUORUM_FEATURES)
            .build();
        ClusterControlManager clus = new ClusterControlManager.Builder()
            .setClusterId(CLUSTER_ID)
            .setTime(Time.SYSTEM)
            .setSnapshotRegistry(reg)
            .setReplicaPlacer(new StripedReplicaPlacer(new Random(0)))
            .setFeatureControlManager(feat)
            .setBrokerShutdownHandler(this::handleBrokerShutdown)
            .build();
        ConfigurationControlManager conf = new ConfigurationControlManager.Builder()
            .setSnapshotRegistry(reg)
            .setFeatureControl(feat)
            .setKafkaConfigSchema(TopicConfigs.SCHEMA)
            .setValidator(TopicConfigs.VALIDATOR)
            .build();
        ReplicationControlManager repl = new ReplicationControlManager.Builder()
            .setSnapshotRegistry(reg)
            .setConfigurationControl(conf)
            .setClusterControl(clus)
            .setFeatureControl(feat)
            .build();
        clus.activate();
        registry = reg;
        features = feat;
        cluster = clus;
        config = conf;
        replication = repl;
        live.clear();
        nextOffset = 1;
        incarnations = 0;

        finalized = new HashMap<>();
        short mv = MetadataVersion.latestProduction().featureLevel();
        replayOne(new FeatureLevelRecord().setName(MetadataVersion.FEATURE_NAME).setFeatureLevel(mv));
        finalized.put(MetadataVersion.FEATURE_NAME, mv);
        if (elr) {
            short level = EligibleLeaderReplicasVersion.ELRV_1.featureLevel();
            replayOne(new FeatureLevelRecord()
                .setName(EligibleLeaderReplicasVersion.FEATURE_NAME).setFeatureLevel(level));
            finalized.put(EligibleLeaderReplicasVersion.FEATURE_NAME, level);
        }

        Outcome o = new Outcome();
        o.release = ConformanceShims.RELEASE;
        for (int b : brokers) {
            Outcome r = register(b, true);
            if (!r.error.equals("NONE") || r.fault != null) {
                r.release = o.release;
                return r;
            }
        }
        for (int b : brokers) {
            Outcome r = heartbeat(b, false, false);
            if (!r.error.equals("NONE") || r.fault != null) {
                r.release = o.release;
                return r;
            }
        }
        return o;
    }

    private void handleBrokerShutdown(int brokerId, boolean isCleanShutdown,
                                      List<ApiMessageAndVersion> records) {
        replication.handleBrokerShutdown(brokerId, isCleanShutdown, records);
    }

    /** createTopics of topic t&lt;n&gt;, one partition with a manual assignment, two configs. */
    Outcome create(List<Integer> replicas, int minIsr, boolean unclean) {
        String name = live.nextTopicName();
        CreateTopicsRequestData request = new CreateTopicsRequestData();
        CreatableTopic topic = new CreatableTopic().setName(name)
            .setNumPartitions(-1).setReplicationFactor((short) -1);
        add(topic.assignments(), new CreatableReplicaAssignment()
            .setPartitionIndex(0).setBrokerIds(replicas));
        add(topic.configs(), new CreatableTopicConfig().setName(MIN_ISR)
            .setValue(Integer.toString(minIsr)));
        add(topic.configs(), new CreatableTopicConfig().setName(UNCLEAN)
            .setValue(Boolean.toString(unclean)));
        add(request.topics(), topic);
        Outcome o = new Outcome();
        CreateTopicsResponseData response = execute(o, () ->
            ConformanceShims.createTopics(replication, CREATE_TOPICS_CONTEXT, request, Set.of(name)));
        if (response != null) {
            CreatableTopicResult result = response.topics().find(name);
            if (result == null) {
                o.error = "UNKNOWN_SERVER_ERROR";
                o.fault = "no CreatableTopicResult for " + name;
            } else {
                o.error = Errors.forCode(result.errorCode()).name();
                if (result.errorCode() == Errors.NONE.code()) live.topicCreated(result.topicId(), name);
            }
        }
        return o;
    }

    /** alterPartitionReassignments with a target, or with none (a cancellation). */
    Outcome reassign(int partition, List<Integer> target, boolean allowRfChange) {
        String name = live.topic(partition);
        AlterPartitionReassignmentsRequestData request = new AlterPartitionReassignmentsRequestData();
        ConformanceShims.setAllowReplicationFactorChange(request, allowRfChange);
        List<ReassignablePartition> parts = new ArrayList<>(1);
        parts.add(new ReassignablePartition().setPartitionIndex(live.partition(partition))
            .setReplicas(target));
        List<ReassignableTopic> topics = new ArrayList<>(1);
        topics.add(new ReassignableTopic().setName(name).setPartitions(parts));
        request.setTopics(topics);
        Outcome o = new Outcome();
        AlterPartitionReassignmentsResponseData response =
            execute(o, () -> replication.alterPartitionReassignments(request));
        if (response != null) {
            if (response.errorCode() != Errors.NONE.code()) {
                o.error = Errors.forCode(response.errorCode()).name();
            } else {
                AlterPartitionReassignmentsResponseData.ReassignablePartitionResponse r =
                    response.responses().get(0).partitions().get(0);
                o.error = Errors.forCode(r.errorCode()).name();
            }
        }
        return o;
    }

    /**
     * alterPartition, request version 3, from {@code broker}; every broker epoch (the
     * sender's and each ISR member's) is its current one, except that of {@code stale}
     * (-1: none), which is one behind it.
     */
    Outcome alterPartition(int partition, int broker, int leaderEpoch, int partitionEpoch,
                           List<Integer> isr, byte leaderRecoveryState, int stale) {
        List<AlterPartitionRequestData.BrokerState> newIsr = new ArrayList<>(isr.size());
        for (int id : isr) {
            newIsr.add(new AlterPartitionRequestData.BrokerState()
                .setBrokerId(id).setBrokerEpoch(epochAsSent(id, stale)));
        }
        List<AlterPartitionRequestData.PartitionData> parts = new ArrayList<>(1);
        parts.add(new AlterPartitionRequestData.PartitionData()
            .setPartitionIndex(live.partition(partition))
            .setLeaderEpoch(leaderEpoch)
            .setPartitionEpoch(partitionEpoch)
            .setLeaderRecoveryState(leaderRecoveryState)
            .setNewIsrWithEpochs(newIsr));
        List<AlterPartitionRequestData.TopicData> topics = new ArrayList<>(1);
        topics.add(new AlterPartitionRequestData.TopicData()
            .setTopicId(live.topicId(partition)).setPartitions(parts));
        AlterPartitionRequestData request = new AlterPartitionRequestData()
            .setBrokerId(broker)
            .setBrokerEpoch(epochAsSent(broker, stale))
            .setTopics(topics);
        Outcome o = new Outcome();
        AlterPartitionResponseData response =
            execute(o, () -> replication.alterPartition(ALTER_PARTITION_CONTEXT, request));
        if (response != null) {
            if (response.errorCode() != Errors.NONE.code()) {
                o.error = Errors.forCode(response.errorCode()).name();
            } else {
                o.error = Errors.forCode(response.topics().get(0).partitions().get(0).errorCode()).name();
            }
        }
        return o;
    }

    /** A session expiry, as maybeFenceOneStaleBroker: handleBrokerFenced, then the heartbeat manager's fence. */
    Outcome fence(int broker) {
        Outcome o = new Outcome();
        execute(o, () -> {
            List<ApiMessageAndVersion> records = new ArrayList<>();
            replication.handleBrokerFenced(broker, records);
            cluster.heartbeatManager().fence(broker);
            return ControllerResult.of(records, null);
        });
        return o;
    }

    /**
     * A broker heartbeat caught up with the metadata log (its current metadata offset is the
     * last replayed one), as QuorumController.processBrokerHeartbeat: the broker's register
     * record offset (STALE_BROKER_EPOCH before any registration), processBrokerHeartbeat, and
     * for a broker now in controlled shutdown the controlled-shutdown offset set to the end of
     * the batch.
     */
    Outcome heartbeat(int broker, boolean wantFence, boolean wantShutDown) {
        return heartbeat(broker, wantFence, wantShutDown, false, List.of());
    }

    /**
     * A heartbeat; {@code lagging}: its current metadata offset is one below the broker's
     * register record offset (the broker has not replayed its own registration yet);
     * {@code offline}: the directories it reports offline.
     */
    Outcome heartbeat(int broker, boolean wantFence, boolean wantShutDown, boolean lagging,
                      List<Uuid> offline) {
        Outcome o = new Outcome();
        BrokerHeartbeatReply reply = execute(o, () -> {
            OptionalLong registerOffset = cluster.registerBrokerRecordOffset(broker);
            if (registerOffset.isEmpty()) {
                throw new StaleBrokerEpochException(String.format(
                    "Receive a heartbeat from broker %d before registration", broker));
            }
            BrokerHeartbeatRequestData request = new BrokerHeartbeatRequestData()
                .setBrokerId(broker)
                .setBrokerEpoch(brokerEpoch(broker))
                .setCurrentMetadataOffset(lagging ? registerOffset.getAsLong() - 1 : nextOffset - 1)
                .setWantFence(wantFence)
                .setWantShutDown(wantShutDown)
                .setOfflineLogDirs(offline);
            return replication.processBrokerHeartbeat(request, registerOffset.getAsLong());
        });
        if (reply != null && reply.inControlledShutdown()) {
            try {
                cluster.heartbeatManager().maybeUpdateControlledShutdownOffset(broker, nextOffset - 1);
            } catch (Throwable t) {
                o.error = Errors.forException(t).name();
                o.fault = describe(t);
            }
        }
        return o;
    }

    /**
     * registerBroker of a new incarnation with a new broker epoch (the next offset, as
     * QuorumController's nextWriteOffset); {@code clean} sends the stored epoch as the
     * previous broker epoch, else -1 (the unclean-shutdown path).
     */
    Outcome register(int broker, boolean clean) {
        BrokerRegistration existing = cluster.brokerRegistrations().get(broker);
        long previous = (existing != null && clean) ? existing.epoch() : -1L;
        BrokerRegistrationRequestData request = new BrokerRegistrationRequestData()
            .setBrokerId(broker)
            .setClusterId(CLUSTER_ID)
            .setIncarnationId(new Uuid(0x1AC0000000000000L | (broker & 0xffffffffL), ++incarnations))
            .setRack(null)
            .setIsMigratingZkBroker(false)
            .setLogDirs(Directories.all(broker))
            .setPreviousBrokerEpoch(previous);
        add(request.listeners(), new BrokerRegistrationRequestData.Listener()
            .setName("PLAINTEXT").setHost("localhost").setPort(9092 + (broker & 0x3fff))
            .setSecurityProtocol(SecurityProtocol.PLAINTEXT.id));
        // metadata.version as finalized; eligible.leader.replicas.version 0 to 1, the range
        // a broker of these releases supports, so that it can be turned on and off later.
        for (Map.Entry<String, Short> f : finalized.entrySet()) {
            if (f.getKey().equals(EligibleLeaderReplicasVersion.FEATURE_NAME)) continue;
            add(request.features(), new BrokerRegistrationRequestData.Feature()
                .setName(f.getKey())
                .setMinSupportedVersion(f.getValue())
                .setMaxSupportedVersion(f.getValue()));
        }
        add(request.features(), new BrokerRegistrationRequestData.Feature()
            .setName(EligibleLeaderReplicasVersion.FEATURE_NAME)
            .setMinSupportedVersion((short) 0)
            .setMaxSupportedVersion(EligibleLeaderReplicasVersion.ELRV_1.featureLevel()));
        FinalizedControllerFeatures controllerFeatures =
            new FinalizedControllerFeatures(finalized, Long.MAX_VALUE);
        long newEpoch = nextOffset;
        Outcome o = new Outcome();
        execute(o,
            () -> cluster.registerBroker(request, newEpoch, controllerFeatures, true));
        return o;
    }

    /** AssignReplicasToDirs of one partition from a broker with its current epoch. */
    Outcome assignDir(int broker, int partition, int dir) {
        Outcome o = new Outcome();
        AssignReplicasToDirsResponseData response = execute(o, () -> Directories.assign(
            replication, broker, brokerEpoch(broker), live.topicId(partition), live.partition(partition), dir));
        if (response != null) o.error = Directories.error(response);
        return o;
    }

    /** electLeaders of one partition. */
    Outcome elect(int partition, byte type) {
        ElectLeadersRequestData request = new ElectLeadersRequestData().setElectionType(type);
        add(request.topicPartitions(), new ElectLeadersRequestData.TopicPartitions()
            .setTopic(live.topic(partition)).setPartitions(List.of(live.partition(partition))));
        Outcome o = new Outcome();
        ElectLeadersResponseData response = execute(o, () -> replication.electLeaders(request));
        if (response != null) {
            if (response.errorCode() != Errors.NONE.code()) {
                o.error = Errors.forCode(response.errorCode()).name();
            } else {
                ElectLeadersResponseData.PartitionResult r =
                    response.replicaElectionResults().get(0).partitionResult().get(0);
                o.error = Errors.forCode(r.errorCode()).name();
            }
        }
        return o;
    }

    /**
     * electLeaders over the topics of {@code partitions} (partition 0 of each, one topic
     * entry per index, in order), or over every topic when null; the answer's partition
     * results as [index, error] pairs, ascending.
     */
    Outcome electMany(List<Integer> partitions, byte type) {
        ElectLeadersRequestData request = new ElectLeadersRequestData().setElectionType(type);
        if (partitions == null) {
            request.setTopicPartitions(null);
        } else {
            for (int p : partitions) {
                add(request.topicPartitions(), new ElectLeadersRequestData.TopicPartitions()
                    .setTopic(live.topic(p)).setPartitions(List.of(live.partition(p))));
            }
        }
        Outcome o = new Outcome();
        ElectLeadersResponseData response = execute(o, () -> replication.electLeaders(request));
        if (response != null) {
            o.error = Errors.forCode(response.errorCode()).name();
            List<Object[]> elected = new ArrayList<>();
            for (ElectLeadersResponseData.ReplicaElectionResult t : response.replicaElectionResults()) {
                for (ElectLeadersResponseData.PartitionResult r : t.partitionResult()) {
                    int index = live.index(t.topic(), r.partitionId());
                    elected.add(new Object[] {index, Errors.forCode(r.errorCode()).name()});
                }
            }
            elected.sort((a, b) -> Integer.compare((Integer) a[0], (Integer) b[0]));
            o.elected = elected;
        }
        return o;
    }

    /**
     * incrementalAlterConfigs SET on topic t&lt;n&gt; of the configs given (null: not in the
     * request), as QuorumController.incrementalAlterConfigs: the resource's own error is
     * the answer's.
     */
    Outcome alterConfig(int partition, String minIsr, String unclean) {
        Map<String, Map.Entry<AlterConfigOp.OpType, String>> keys = new LinkedHashMap<>();
        if (minIsr != null) keys.put(MIN_ISR, Map.entry(AlterConfigOp.OpType.SET, minIsr));
        if (unclean != null) keys.put(UNCLEAN, Map.entry(AlterConfigOp.OpType.SET, unclean));
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, live.topic(partition));
        Map<ConfigResource, Map<String, Map.Entry<AlterConfigOp.OpType, String>>> changes =
            Map.of(resource, keys);
        Outcome o = new Outcome();
        Map<ConfigResource, ApiError> response = execute(o, () ->
            ConformanceShims.incrementalAlterConfigs(config, changes));
        if (response != null) {
            ApiError error = response.get(resource);
            o.error = error == null ? "UNKNOWN_SERVER_ERROR" : error.error().name();
        }
        return o;
    }

    /**
     * updateFeatures of eligible.leader.replicas.version to 1 ({@code on}) or 0 (a safe
     * downgrade), as QuorumController.updateFeatures: through the configuration manager,
     * which adds the ELR safety records when turning it on.
     */
    Outcome updateElr(boolean on) {
        String name = EligibleLeaderReplicasVersion.FEATURE_NAME;
        short level = on ? EligibleLeaderReplicasVersion.ELRV_1.featureLevel() : 0;
        short current = finalized.getOrDefault(name, (short) 0);
        FeatureUpdate.UpgradeType type = level < current
            ? FeatureUpdate.UpgradeType.SAFE_DOWNGRADE : FeatureUpdate.UpgradeType.UPGRADE;
        Outcome o = new Outcome();
        ApiError result = execute(o, () ->
            ConformanceShims.updateFeatures(config, Map.of(name, level), Map.of(name, type)));
        if (result != null) {
            o.error = result.error().name();
            if (result.isSuccess()) finalized.put(name, level);
        }
        return o;
    }

    /** unregisterBroker, as QuorumController.unregisterBroker. */
    Outcome unregister(int broker) {
        Outcome o = new Outcome();
        execute(o, () -> replication.unregisterBroker(broker));
        return o;
    }

    /**
     * createPartitions of the topic of index {@code partition} up to one more partition,
     * with a manual assignment, as QuorumController.createPartitions (not validate-only).
     * The 4.4 limit on a cluster's partition count (validateTotalNumberOfPartitions) is not
     * called: a history has at most eight partitions.
     */
    Outcome addPartition(int partition, List<Integer> replicas) {
        String name = live.topic(partition);
        int count = live.has(partition) ? live.partitionCount(partition) + 1 : 1;
        CreatePartitionsRequestData.CreatePartitionsTopic topic =
            new CreatePartitionsRequestData.CreatePartitionsTopic().setName(name).setCount(count)
                .setAssignments(List.of(new CreatePartitionsRequestData.CreatePartitionsAssignment()
                    .setBrokerIds(replicas)));
        Outcome o = new Outcome();
        List<CreatePartitionsResponseData.CreatePartitionsTopicResult> results = execute(o, () ->
            replication.createPartitions(CREATE_PARTITIONS_CONTEXT, List.of(topic)));
        if (results != null) {
            o.error = results.isEmpty() ? "UNKNOWN_SERVER_ERROR"
                : Errors.forCode(results.get(0).errorCode()).name();
            if (o.error.equals("NONE")) live.partitionAdded(partition);
        }
        return o;
    }

    /**
     * deleteTopics of the topic of index {@code partition}, by name as the broker's API
     * resolves it (findTopicIds: an unknown name is UNKNOWN_TOPIC_OR_PARTITION).
     */
    Outcome deleteTopic(int partition) {
        String name = live.topic(partition);
        Outcome o = new Outcome();
        ResultOrError<Uuid> id = replication.findTopicIds(Long.MAX_VALUE, List.of(name)).get(name);
        if (id == null || id.isError()) {
            o.error = id == null ? "UNKNOWN_SERVER_ERROR" : id.error().error().name();
            return o;
        }
        Map<Uuid, ApiError> results = execute(o, () ->
            replication.deleteTopics(DELETE_TOPICS_CONTEXT, List.of(id.result())));
        if (results != null) {
            ApiError error = results.get(id.result());
            o.error = error == null ? "UNKNOWN_SERVER_ERROR" : error.error().name();
            if (o.error.equals("NONE")) live.topicDeleted(id.result());
        }
        return o;
    }

    /** listPartitionReassignments over every topic, at the latest state. */
    Outcome list() {
        Outcome o = new Outcome();
        try {
            ListPartitionReassignmentsResponseData response =
                replication.listPartitionReassignments(null, Long.MAX_VALUE);
            o.error = Errors.forCode(response.errorCode()).name();
            List<Integer> listed = new ArrayList<>();
            for (ListPartitionReassignmentsResponseData.OngoingTopicReassignment t : response.topics()) {
                for (ListPartitionReassignmentsResponseData.OngoingPartitionReassignment p : t.partitions()) {
                    listed.add(live.index(t.name(), p.partitionIndex()));
                }
            }
            listed.sort(null);
            o.listed = listed;
        } catch (ApiException e) {
            o.error = Errors.forException(e).name();
        } catch (Throwable t) {
            o.error = Errors.forException(t).name();
            o.fault = describe(t);
        }
        return o;
    }

    /** Partition {@code index}'s registration now (null for an index never created). */
    PartitionRegistration partition(int index) {
        if (replication == null || !live.has(index)) return null;
        return replication.getPartition(live.topicId(index), live.partition(index));
    }

    /** Broker {@code id}'s registration now (null when it never registered). */
    BrokerRegistration broker(int id) {
        return cluster == null ? null : cluster.brokerRegistrations().get(id);
    }

    // ---------------------------------------------------------------- plumbing

    /**
     * Runs one controller call; on success replays its records and returns its response.
     * An ApiException sets the error; anything else the fault. Nothing is replayed then.
     */
    private <T> T execute(Outcome o, Call<T> call) {
        ControllerResult<T> result;
        try {
            result = call.run();
        } catch (ApiException e) {
            o.error = Errors.forException(e).name();
            return null;
        } catch (Throwable t) {
            o.error = Errors.forException(t).name();
            o.fault = describe(t);
            return null;
        }
        try {
            replay(result.records());
        } catch (Throwable t) {
            o.error = Errors.forException(t).name();
            o.fault = "replay: " + describe(t);
            return null;
        }
        return result.response();
    }

    private void replay(List<ApiMessageAndVersion> records) {
        for (int i = 0, n = records.size(); i < n; i++) {
            replayOne(records.get(i).message());
        }
    }

    /** QuorumController.replay: each record into its manager, with a fresh offset. */
    private void replayOne(ApiMessage message) {
        long offset = nextOffset++;
        if (message instanceof PartitionChangeRecord) {
            replication.replay((PartitionChangeRecord) message);
        } else if (message instanceof BrokerRegistrationChangeRecord) {
            cluster.replay((BrokerRegistrationChangeRecord) message);
        } else if (message instanceof PartitionRecord) {
            replication.replay((PartitionRecord) message);
        } else if (message instanceof TopicRecord) {
            replication.replay((TopicRecord) message);
        } else if (message instanceof ConfigRecord) {
            config.replay((ConfigRecord) message);
        } else if (message instanceof RegisterBrokerRecord) {
            cluster.replay((RegisterBrokerRecord) message, offset);
        } else if (message instanceof ClearElrRecord) {
            replication.replay((ClearElrRecord) message);
        } else if (message instanceof RemoveTopicRecord) {
            replication.replay((RemoveTopicRecord) message);
        } else if (message instanceof FeatureLevelRecord) {
            features.replay((FeatureLevelRecord) message);
        } else if (message instanceof FenceBrokerRecord) {
            cluster.replay((FenceBrokerRecord) message);
        } else if (message instanceof UnfenceBrokerRecord) {
            cluster.replay((UnfenceBrokerRecord) message);
        } else if (message instanceof UnregisterBrokerRecord) {
            cluster.replay((UnregisterBrokerRecord) message);
        } else if (message instanceof NoOpRecord) {
            // nothing to replay
        } else {
            throw new IllegalStateException("unexpected record " + message.getClass().getSimpleName());
        }
    }

    /**
     * Adds to a generated message collection through {@code java.util.Collection}: the
     * collections' own {@code add(Element)} names {@code ImplicitLinkedHashCollection.Element},
     * which moved from {@code org.apache.kafka.common.utils} to {@code ...utils.internals} in
     * 4.4, so a direct call compiled against one side fails verification on the other.
     */
    private static <E> void add(Collection<E> collection, E element) {
        collection.add(element);
    }

    /** The broker epoch a request carries for {@code broker}: one behind for {@code stale}. */
    private long epochAsSent(int broker, int stale) {
        long epoch = brokerEpoch(broker);
        return broker == stale ? epoch - 1 : epoch;
    }

    private long brokerEpoch(int broker) {
        BrokerRegistration registration = cluster.brokerRegistrations().get(broker);
        return registration == null ? -1L : registration.epoch();
    }

    static String describe(Throwable t) {
        return t.getClass().getName() + ": " + t.getMessage();
    }

    // ---------------------------------------------------------------- answers


    static void string(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"': out.append("\\\""); break;
                case '\\': out.append("\\\\"); break;
                case '\n': out.append("\\n"); break;
                case '\r': out.append("\\r"); break;
                case '\t': out.append("\\t"); break;
                default:
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
            }
        }
        out.append('"');
    }
}
