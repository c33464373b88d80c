package org.apache.kafka.controller;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import kafka.server.BrokerServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.AlterPartitionReassignmentsOptions;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.FeatureUpdate;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.PartitionReassignment;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.admin.UpdateFeaturesOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The cluster side of the protocol (PROTOCOL.md, ops {@code cluster_*}): one real Apache
 * Kafka cluster in this JVM, started with the release's own test kit
 * ({@code KafkaClusterTestKit}, in kafka-test-common-runtime), driven through the Admin API,
 * a producer and a consumer on loopback. The test kit is reached by reflection, so these
 * classes compile, and every other judge runs, on a classpath without it. Every call is
 * bounded ({@link #CALL_TIMEOUT_MS}); a shutdown hook closes the cluster when the JVM ends
 * (its stdin closed, a quit, a SIGTERM).
 */
final class ClusterSide {
    /** The longest any one Admin, producer or consumer call may take. */
    static final long CALL_TIMEOUT_MS = 30_000;
    /** The longest a read-back of the topic may take. */
    static final long READ_TIMEOUT_MS = 60_000;
    private static final String KIT = "org.apache.kafka.common.test.KafkaClusterTestKit";
    private static final String NODES = "org.apache.kafka.common.test.TestKitNodes";

    private Object kit;
    private Admin admin;
    private String bootstrap;
    private Map<Integer, BrokerServer> brokers = new HashMap<>();
    private final Set<Integer> stopped = new TreeSet<>();

    ClusterSide() {
        Runtime.getRuntime().addShutdownHook(new Thread(this::close, "cluster-close"));
    }

    void handle(String op, Map<String, Object> req, StringBuilder out) throws Exception {
        if (!op.equals("cluster_start") && kit == null) {
            throw new IllegalStateException("no cluster_start before " + op);
        }
        Map<String, Object> answer = new java.util.LinkedHashMap<>();
        answer.put("error", "NONE");
        try {
            dispatch(op, req, answer);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            if (!(cause instanceof ApiException)) throw e;
            answer.put("error", Errors.forException(cause).name());
            answer.put("message", String.valueOf(cause.getMessage()));
        } catch (ApiException e) {
            answer.put("error", Errors.forException(e).name());
            answer.put("message", String.valueOf(e.getMessage()));
        }
        ClusterJson.write(answer, out);
    }

    private void dispatch(String op, Map<String, Object> req, Map<String, Object> answer)
            throws Exception {
        switch (op) {
            case "cluster_start": start(ClusterJson.integer(req, "brokers"), ClusterJson.strings(req, "configs"), answer); break;
            case "cluster_create": create(req); break;
            case "cluster_add_partition": addPartition(req); break;
            case "cluster_topic_config": alterConfigs(new ConfigResource(ConfigResource.Type.TOPIC, ClusterJson.text(req, "topic")), req); break;
            case "cluster_broker_config": alterConfigs(broker(req), req); break;
            case "cluster_broker_config_get": answer.put("value", brokerConfig(req)); break;
            case "cluster_reassign": reassign(req); break;
            case "cluster_elect": elect(req); break;
            case "cluster_state": state(ClusterJson.text(req, "topic"), answer); break;
            case "cluster_produce": produce(req, answer); break;
            case "cluster_read": read(ClusterJson.text(req, "topic"), answer); break;
            case "cluster_delete_records": deleteRecords(req); break;
            case "cluster_elr_feature": elrFeature(ClusterJson.integer(req, "level")); break;
            case "cluster_stop_broker": stopBroker(ClusterJson.integer(req, "broker"), answer); break;
            case "cluster_start_broker": startBroker(ClusterJson.integer(req, "broker"), answer); break;
            case "cluster_clean": clean(ClusterJson.text(req, "topic"), answer); break;
            case "cluster_close": {
                long t0 = System.nanoTime();
                close();
                answer.put("close_ms", (System.nanoTime() - t0) / 1_000_000);
                break;
            }
            default: throw new IllegalArgumentException("unknown op " + op);
        }
    }

    // ---------------------------------------------------------------- the cluster

    @SuppressWarnings("unchecked")
    private void start(int count, Map<String, String> configs, Map<String, Object> answer)
            throws Exception {
        if (kit != null) throw new IllegalStateException("the cluster is already started");
        long t0 = System.nanoTime();
        Class<?> nodesBuilder;
        try {
            nodesBuilder = Class.forName(NODES + "$Builder");
        } catch (ClassNotFoundException e) {
            answer.put("error", "NO_TEST_KIT");
            answer.put("message", "no " + NODES + " on the classpath");
            return;
        }
        Object nb = nodesBuilder.getConstructor().newInstance();
        call(nodesBuilder.getMethod("setNumBrokerNodes", int.class), nb, count);
        call(nodesBuilder.getMethod("setNumControllerNodes", int.class), nb, 1);
        // The kit formats at the newest metadata version, testing ones included: the
        // release's latest production level is what its users run (and what conform uses).
        Class<?> mv = Class.forName("org.apache.kafka.server.common.MetadataVersion");
        Object production = call(mv.getMethod("latestProduction"), null);
        call(nodesBuilder.getMethod("setBootstrapMetadataVersion", mv), nb, production);
        Object nodes = call(nodesBuilder.getMethod("build"), nb);
        Class<?> kitBuilder = Class.forName(KIT + "$Builder");
        Object kb = kitBuilder.getConstructor(Class.forName(NODES)).newInstance(nodes);
        Method set = kitBuilder.getMethod("setConfigProp", String.class, Object.class);
        for (Map.Entry<String, String> e : configs.entrySet()) call(set, kb, e.getKey(), e.getValue());
        kit = call(kitBuilder.getMethod("build"), kb);
        Class<?> k = kit.getClass();
        call(k.getMethod("format"), kit);
        call(k.getMethod("startup"), kit);
        call(k.getMethod("waitForReadyBrokers"), kit);
        answer.put("metadata_version", String.valueOf(production));
        bootstrap = (String) k.getMethod("bootstrapServers").invoke(kit);
        brokers = new HashMap<>((Map<Integer, BrokerServer>) k.getMethod("brokers").invoke(kit));
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) CALL_TIMEOUT_MS);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) CALL_TIMEOUT_MS);
        admin = Admin.create(p);
        answer.put("brokers", new ArrayList<>(new TreeSet<>(brokers.keySet())));
        answer.put("start_ms", (System.nanoTime() - t0) / 1_000_000);
    }

    /** A reflective call, with what the method threw rethrown as itself. */
    private static Object call(Method m, Object target, Object... args) throws Exception {
        try {
            return m.invoke(target, args);
        } catch (java.lang.reflect.InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception) throw (Exception) cause;
            if (cause instanceof Error) throw (Error) cause;
            throw e;
        }
    }

    /** Closes the Admin client and the cluster (its temporary directories go with it). */
    synchronized void close() {
        if (admin != null) {
            admin.close(java.time.Duration.ofMillis(CALL_TIMEOUT_MS));
            admin = null;
        }
        if (kit != null) {
            try {
                ((AutoCloseable) kit).close();
            } catch (Exception e) {
                System.err.println("closing the cluster: " + e);
            }
            kit = null;
        }
    }

    private BrokerServer server(int id) {
        BrokerServer b = brokers.get(id);
        if (b == null) throw new IllegalArgumentException("no broker " + id);
        return b;
    }

    private void stopBroker(int id, Map<String, Object> answer) {
        long t0 = System.nanoTime();
        server(id).shutdown();
        stopped.add(id);
        answer.put("ms", (System.nanoTime() - t0) / 1_000_000);
    }

    private void startBroker(int id, Map<String, Object> answer) {
        long t0 = System.nanoTime();
        server(id).startup();
        stopped.remove(id);
        answer.put("ms", (System.nanoTime() - t0) / 1_000_000);
    }

    /** After a history: every stopped broker started, throttles lifted, its topic deleted. */
    private void clean(String topic, Map<String, Object> answer) throws Exception {
        for (Integer id : new ArrayList<>(stopped)) startBroker(id, new HashMap<>());
        List<AlterConfigOp> lift = List.of(new AlterConfigOp(
            new ConfigEntry("follower.replication.throttled.rate", ""), AlterConfigOp.OpType.DELETE));
        Map<ConfigResource, Collection<AlterConfigOp>> all = new HashMap<>();
        for (Integer id : brokers.keySet()) {
            all.put(new ConfigResource(ConfigResource.Type.BROKER, String.valueOf(id)), lift);
        }
        admin.incrementalAlterConfigs(all).all().get(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        if (admin.listTopics().names().get(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS).contains(topic)) {
            admin.deleteTopics(List.of(topic)).all().get(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        }
    }

    // ---------------------------------------------------------------- admin calls

    private void create(Map<String, Object> req) throws Exception {
        NewTopic t = new NewTopic(ClusterJson.text(req, "topic"), Map.of(0, ClusterJson.intList(req, "replicas")));
        t.configs(ClusterJson.strings(req, "configs"));
        admin.createTopics(List.of(t)).all().get(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
    }

    private void addPartition(Map<String, Object> req) throws Exception {
        NewPartitions n = NewPartitions.increaseTo(ClusterJson.integer(req, "total"),
            List.of(ClusterJson.intList(req, "replicas")));
        admin.createPartitions(Map.of(ClusterJson.text(req, "topic"), n)).all()
            .get(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
    }

    private static ConfigResource broker(Map<String, Object> req) {
        return new ConfigResource(ConfigResource.Type.BROKER, String.valueOf(ClusterJson.integer(req, "broker")));
    }

    private void alterConfigs(ConfigResource r, Map<String, Object> req) throws Exception {
        List<AlterConfigOp> ops = new ArrayList<>();
        for (Map.Entry<String, String> e : ClusterJson.strings(req, "set").entrySet()) {
            ops.add(new AlterConfigOp(new ConfigEntry(e.getKey(), e.getValue()), AlterConfigOp.OpType.SET));
        }
        for (String name : ClusterJson.textList(req, "delete")) {
            ops.add(new AlterConfigOp(new ConfigEntry(name, ""), AlterConfigOp.OpType.DELETE));
        }
        admin.incrementalAlterConfigs(Map.of(r, ops)).all().get(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
    }

    private String brokerConfig(Map<String, Object> req) throws Exception {
        ConfigResource r = broker(req);
        Config c = admin.describeConfigs(List.of(r)).all().get(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS).get(r);
        ConfigEntry e = c.get(ClusterJson.text(req, "name"));
        return e == null ? null : e.value();
    }

    private void reassign(Map<String, Object> req) throws Exception {
        TopicPartition tp = new TopicPartition(ClusterJson.text(req, "topic"), ClusterJson.integer(req, "partition"));
        Object target = req.get("target");
        Optional<NewPartitionReassignment> r = target == null ? Optional.empty()
            : Optional.of(new NewPartitionReassignment(ClusterJson.intList(req, "target")));
        AlterPartitionReassignmentsOptions options = new AlterPartitionReassignmentsOptions();
        if (!ClusterJson.bool(req, "allow_rf_change")) {
            // KIP-860's flag exists from 4.1; a 4.0 client cannot send false.
            Method m = AlterPartitionReassignmentsOptions.class.getMethod("allowReplicationFactorChange", boolean.class);
            m.invoke(options, false);
        }
        admin.alterPartitionReassignments(Map.of(tp, r), options).all()
            .get(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
    }

    private void elect(Map<String, Object> req) throws Exception {
        TopicPartition tp = new TopicPartition(ClusterJson.text(req, "topic"), ClusterJson.integer(req, "partition"));
        ElectionType type = ClusterJson.bool(req, "unclean") ? ElectionType.UNCLEAN : ElectionType.PREFERRED;
        Optional<Throwable> e = admin.electLeaders(type, Set.of(tp)).partitions()
            .get(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS).get(tp);
        if (e != null && e.isPresent()) throw new ExecutionException(e.get());
    }

    private void deleteRecords(Map<String, Object> req) throws Exception {
        TopicPartition tp = new TopicPartition(ClusterJson.text(req, "topic"), ClusterJson.integer(req, "partition"));
        long offset = ((Number) req.get("offset")).longValue();
        admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(offset))).all()
            .get(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
    }

    /**
     * Sets {@code eligible.leader.replicas.version} to {@code level} (an upgrade to 1, a safe
     * downgrade to 0) unless it is there already.
     */
    private void elrFeature(int level) throws Exception {
        String name = "eligible.leader.replicas.version";
        org.apache.kafka.clients.admin.FinalizedVersionRange now = admin.describeFeatures()
            .featureMetadata().get(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS)
            .finalizedFeatures().get(name);
        int current = now == null ? 0 : now.maxVersionLevel();
        if (current == level) return;
        FeatureUpdate u = new FeatureUpdate((short) level, level > current
            ? FeatureUpdate.UpgradeType.UPGRADE : FeatureUpdate.UpgradeType.SAFE_DOWNGRADE);
        admin.updateFeatures(Map.of(name, u), new UpdateFeaturesOptions())
            .all().get(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
    }

    /**
     * Every partition of {@code topic} as describeTopics shows it (served from a broker's
     * metadata), with the controller's listPartitionReassignments entry for it, read after.
     */
    private void state(String topic, Map<String, Object> answer) throws Exception {
        TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames()
            .get(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS).get(topic);
        Map<TopicPartition, PartitionReassignment> listed = admin.listPartitionReassignments()
            .reassignments().get(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        List<Object> parts = new ArrayList<>();
        for (TopicPartitionInfo p : d.partitions()) {
            Map<String, Object> m = new java.util.LinkedHashMap<>();
            m.put("partition", p.partition());
            m.put("leader", p.leader() == null ? -1 : p.leader().id());
            m.put("replicas", ids(p.replicas()));
            m.put("isr", ids(p.isr()));
            m.put("elr", ids(nodes(p, "elr")));
            m.put("last_known_elr", ids(nodes(p, "lastKnownElr")));
            PartitionReassignment r = listed.get(new TopicPartition(topic, p.partition()));
            m.put("listed", r != null);
            m.put("listed_replicas", r == null ? List.of() : r.replicas());
            m.put("adding", r == null ? List.of() : sorted(r.addingReplicas()));
            m.put("removing", r == null ? List.of() : sorted(r.removingReplicas()));
            parts.add(m);
        }
        answer.put("partitions", parts);
    }

    /** The ELR lists of TopicPartitionInfo (3.7+), none where the client lacks them. */
    @SuppressWarnings("unchecked")
    private static List<Node> nodes(TopicPartitionInfo p, String method) {
        try {
            return (List<Node>) TopicPartitionInfo.class.getMethod(method).invoke(p);
        } catch (ReflectiveOperationException e) {
            return List.of();
        }
    }

    private static List<Integer> ids(List<Node> nodes) {
        List<Integer> out = new ArrayList<>();
        if (nodes != null) for (Node n : nodes) out.add(n.id());
        return out;
    }

    private static List<Integer> sorted(List<Integer> ids) {
        return new ArrayList<>(new TreeSet<>(ids));
    }

    // ---------------------------------------------------------------- data

    private void produce(Map<String, Object> req, Map<String, Object> answer) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, ClusterJson.bool(req, "acks_all") ? "all" : "1");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, ClusterJson.bool(req, "acks_all"));
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) CALL_TIMEOUT_MS);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) CALL_TIMEOUT_MS / 3);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) CALL_TIMEOUT_MS);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        int records = ClusterJson.integer(req, "records");
        byte[] value = new byte[ClusterJson.integer(req, "record_bytes")];
        Arrays.fill(value, (byte) 'x');
        AtomicLong acked = new AtomicLong();
        AtomicReference<String> firstError = new AtomicReference<>();
        String topic = ClusterJson.text(req, "topic");
        try (KafkaProducer<byte[], byte[]> producer =
                 new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < records; i++) {
                producer.send(new ProducerRecord<>(topic, value), (meta, e) -> {
                    if (e == null) acked.incrementAndGet();
                    else firstError.compareAndSet(null, e.toString());
                });
            }
            producer.flush();
        }
        answer.put("acked", acked.get());
        answer.put("failed", records - acked.get());
        answer.put("first_error", firstError.get());
    }

    /**
     * The records of every partition of {@code topic} read from its start to its end:
     * answers {@code read} and {@code end}, the sum of the end offsets the leaders gave.
     */
    private void read(String topic, Map<String, Object> answer) throws Exception {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) CALL_TIMEOUT_MS);
        TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames()
            .get(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS).get(topic);
        List<TopicPartition> tps = new ArrayList<>();
        for (TopicPartitionInfo i : d.partitions()) tps.add(new TopicPartition(topic, i.partition()));
        long count = 0;
        long deadline = System.nanoTime() + READ_TIMEOUT_MS * 1_000_000;
        try (KafkaConsumer<byte[], byte[]> c =
                 new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            c.assign(tps);
            c.seekToBeginning(tps);
            Map<TopicPartition, Long> end = c.endOffsets(tps);
            long total = 0;
            for (Long e : end.values()) total += e;
            answer.put("end", total);
            while (System.nanoTime() < deadline) {
                boolean done = true;
                for (TopicPartition tp : tps) done &= c.position(tp) >= end.get(tp);
                if (done) break;
                ConsumerRecords<byte[], byte[]> rs = c.poll(java.time.Duration.ofMillis(200));
                count += rs.count();
            }
        }
        answer.put("read", count);
    }
}
