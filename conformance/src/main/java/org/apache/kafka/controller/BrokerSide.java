package org.apache.kafka.controller;

import static org.apache.kafka.controller.RequestFields.intList;
import static org.apache.kafka.controller.RequestFields.integer;
import static org.apache.kafka.controller.RequestFields.longField;
import static org.apache.kafka.controller.RequestFields.text;

import org.apache.kafka.common.DirectoryId;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.AlterPartitionRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.metadata.LeaderAndIsr;
import org.apache.kafka.metadata.LeaderRecoveryState;
import org.apache.kafka.metadata.PartitionRegistration;
import org.apache.kafka.server.common.TopicIdPartition;
import org.apache.kafka.server.metrics.KafkaYammerMetrics;
import org.apache.kafka.storage.internals.checkpoint.OffsetCheckpoints;
import org.apache.kafka.storage.internals.log.LogConfig;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.apache.kafka.storage.log.metrics.BrokerTopicStats;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * The broker side of the conformance driver (BROKERS.md): real {@code kafka.cluster.Partition}s
 * over one real LogManager per broker (a temporary directory each), on one manual clock,
 * driven one {@code broker_*} request at a time. The driver performs each decision the
 * history makes (which broker applies which registration, which follower fetches when, when
 * time moves, when an AlterPartition is answered) with the real classes and reports what
 * they did; it wires them as {@code ReplicaManager} does and never changes what they do.
 * Signatures that differ between releases go through {@link BrokerShims}; the fetch round is
 * {@link BrokerFetcher}.
 */
final class BrokerSide {
    /** The release's methods and accessors this class calls by name, each resolved once per receiver class. */
    private static final BrokerShims.Site CHECKPOINT_LOG_START_OFFSETS = BrokerShims.site("checkpointLogStartOffsets");
    private static final BrokerShims.Site CLOSE = BrokerShims.site("close");
    private static final BrokerShims.Site DELETE = BrokerShims.site("delete");
    private static final BrokerShims.Site DELETE_RECORDS_ON_LEADER = BrokerShims.site("deleteRecordsOnLeader");
    private static final BrokerShims.Site FIRST_OFFSET = BrokerShims.site("firstOffset");
    private static final BrokerShims.Site FLUSH = BrokerShims.site("flush");
    private static final BrokerShims.Site GET_LEADER_EPOCH = BrokerShims.site("getLeaderEpoch");
    private static final BrokerShims.Site HIGH_WATERMARK = BrokerShims.site("highWatermark");
    private static final BrokerShims.Site LAST_OFFSET = BrokerShims.site("lastOffset");
    private static final BrokerShims.Site LOCAL_LOG_OR_EXCEPTION = BrokerShims.site("localLogOrException");
    private static final BrokerShims.Site LOG_END_OFFSET = BrokerShims.site("logEndOffset");
    private static final BrokerShims.Site LOG_START_OFFSET = BrokerShims.site("logStartOffset");
    private static final BrokerShims.Site MAYBE_SHRINK_ISR = BrokerShims.site("maybeShrinkIsr");
    private static final BrokerShims.Site RECOVERY_POINT = BrokerShims.site("recoveryPoint");
    private static final BrokerShims.Site TOPIC_PARTITION = BrokerShims.site("topicPartition");
    private static final BrokerShims.Site TRUNCATE_TO = BrokerShims.site("truncateTo");
    private static final BrokerShims.Site UPDATE_CONFIG = BrokerShims.site("updateConfig");

    /** Every directory any broker side made, deleted when the JVM exits. */
    private static final Set<Path> ROOTS = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            for (Path root : ROOTS) deleteTree(root);
        }, "isrfuzz-broker-dirs"));
    }

    /** One broker: its LogManager and directory, its Partitions and its fetcher's states. */
    static final class Broker {
        final int id;
        /** The broker epoch its fetches carry and the metadata cache answers (1, +1 a restart). */
        long epoch = 1;
        final File dir;
        Object logManager;
        /** The LogManager's scheduler: runs only one-shot tasks with no delay, after each op. */
        BrokerStandIns.IdleScheduler scheduler;
        BrokerTopicStats stats;
        Object alterManager;
        OffsetCheckpoints checkpoints;
        final TreeMap<Integer, Object> partitions = new TreeMap<>();
        final TreeMap<Integer, BrokerFetcher.FetchState> fetches = new TreeMap<>();
        final TreeSet<Integer> failed = new TreeSet<>();
        final Map<Integer, ArrayDeque<CompletableFuture<LeaderAndIsr>>> alters = new HashMap<>();
        /** In the metadata image: fenced, or in controlled shutdown (both not ISR-eligible). */
        boolean fenced;
        boolean shuttingDown;
        /** The replication-offset-checkpoint stand-in: each log's high watermark at the last stop. */
        final Map<Integer, Long> hwCheckpoint = new HashMap<>();

        Broker(int id, File dir) {
            this.id = id;
            this.dir = dir;
        }
    }

    /** An AlterPartition a Partition sent: whose, and its JSON as the answer carries it. */
    static final class Proposal {
        final int partition;
        final int broker;
        final String json;

        Proposal(int partition, int broker, String json) {
            this.partition = partition;
            this.broker = broker;
            this.json = json;
        }
    }

    /** One op's outcome, before it is rendered. */
    static final class Outcome {
        String error = "NONE";
        String fault;
        BrokerFetcher.FetchAnswer fetch;
        String produceError;
        long baseOffset = -1;
        long lastOffset = -1;
        final List<Proposal> proposals = new ArrayList<>();
        /** A fetch was answered with a batch that starts below its fetch offset. */
        boolean fromInsideABatch;
        /** A power loss recovered a log whose records below its log start are still on disk. */
        boolean recoveredBelowStart;
        /** A follower truncated its log to an offset strictly inside one of its batches. */
        boolean truncatedInsideABatch;

        /** The first thing a real class threw that upstream would catch and log. */
        void fault(Throwable t) {
            if (fault == null) fault = ConformanceDriver.describe(t);
        }

        /** An exception out of an op: an ApiException is its error, anything else a fault too. */
        void failed(Throwable t) {
            error = Errors.forException(t).name();
            if (!(t instanceof ApiException)) fault(t);
        }
    }

    final BrokerStandIns.ManualClock clock = new BrokerStandIns.ManualClock();
    private Path root;
    private long lagMaxMs;
    private final TreeMap<Integer, Broker> brokers = new TreeMap<>();
    /** Every partition index a delta named (its topic's configs and name). */
    private final TreeSet<Integer> known = new TreeSet<>();
    /** Per partition, the topic's min.insync.replicas (absent: the default, 1). */
    private final Map<Integer, Integer> minIsr = new HashMap<>();
    private Object[] purgatories;
    private final Object configRepository;
    private final Object metadataCache;
    private final Object listener;
    private Outcome current;
    private long serial;
    /**
     * Each broker id's metrics, kept from one history to the next and across restarts: they
     * are only written (meters; no class the driver runs reads one), so a kept one acts as
     * a new one would. Creating and removing a broker's forty-odd yammer metrics at every
     * reset was a twentieth of the driver's time, and at every restart a fiftieth.
     */
    private final Map<Integer, BrokerTopicStats> stats = new HashMap<>();
    /** The replicas as the answers carry them, each rendered again only once a call touched it. */
    private final BrokerReplicas view = new BrokerReplicas();

    BrokerSide() {
        // No JMX: every log and Partition registers its gauges as MBeans, and each history
        // made and removed hundreds. Only their publication is filtered (the metrics stay
        // in the registry, as upstream's `metrics.jmx.exclude` leaves them); no replication
        // decision reads a metric. The filter tests every metric's MBean name as it is
        // added, include pattern first: one that fails at the first character ends the test
        // there (two whole-name matches of `.*` were a hundredth of the driver's time).
        KafkaYammerMetrics.INSTANCE.reconfigure(Map.of("metrics.jmx.include", "(?!)", "metrics.jmx.exclude", ".*"));
        configRepository = BrokerShims.configRepository(BrokerShims.CONFIG_REPOSITORY_TYPE, this::topicProps);
        metadataCache = BrokerShims.newMetadataCache();
        listener = BrokerShims.alterPartitionListener(BrokerShims.LISTENER_TYPE);
    }

    static TopicPartition topicPartition(int index) {
        return new TopicPartition("t" + index, 0);
    }

    static Uuid topicId(int index) {
        return new Uuid(0L, index + 1L);
    }

    static int topicIndex(String name) {
        try {
            if (name.startsWith("t")) return Integer.parseInt(name.substring(1));
        } catch (NumberFormatException e) {
            // not ours
        }
        return -1;
    }

    private Properties topicProps(String topic) {
        Properties p = new Properties();
        Integer v = minIsr.get(topicIndex(topic));
        if (v != null) p.put("min.insync.replicas", Integer.toString(v));
        return p;
    }

    /** The broker with this id, or null. */
    Broker find(int id) {
        return brokers.get(id);
    }

    /** Every broker's id, ascending. */
    Set<Integer> brokerIds() {
        return brokers.keySet();
    }

    private Broker broker(int id) {
        Broker b = brokers.get(id);
        if (b == null) throw new ConformanceDriver.DriverException("unknown broker " + id);
        return b;
    }

    // ---------------------------------------------------------------- requests

    /** Answers one {@code broker_*} request into {@code out}. */
    void handle(String op, Map<String, Object> req, StringBuilder out) {
        if (op.equals("broker_batch")) {
            if (root == null) throw new ConformanceDriver.DriverException("no broker_reset before " + op);
            BrokerBatch.run(this, req, out);
            return;
        }
        render(perform(op, req), out);
    }

    /** Performs one {@code broker_*} request; a request the driver cannot take throws. */
    Outcome perform(String op, Map<String, Object> req) {
        if (!op.equals("broker_reset") && root == null) {
            throw new ConformanceDriver.DriverException("no broker_reset before " + op);
        }
        Outcome o = new Outcome();
        current = o;
        try {
            view.touch(op, req);
            if (req.containsKey("now_ms")) clock.moveTo(longField(req, "now_ms"));
            dispatch(op, req, o);
            for (Broker b : brokers.values()) {
                if (b.scheduler.hasDue()) view.touchBroker(b.id);
                for (Throwable t : b.scheduler.runDue()) o.fault(t);
            }
        } catch (ConformanceDriver.DriverException e) {
            throw e;
        } catch (Throwable t) {
            o.failed(t);
        } finally {
            current = null;
        }
        return o;
    }


    private void dispatch(String op, Map<String, Object> req, Outcome o) throws IOException {
        switch (op) {
            case "broker_reset":
                reset(intList(req, "brokers"), longField(req, "lag_max_ms"));
                return;
            case "broker_delta":
                delta(req, o);
                return;
            case "broker_image":
                image(intList(req, "fenced"), intList(req, "shutting_down"));
                return;
            case "broker_remove":
                remove(broker(integer(req, "broker")), integer(req, "partition"));
                return;
            case "broker_produce":
                produce(broker(integer(req, "broker")), integer(req, "partition"), integer(req, "records"),
                    integer(req, "acks"), integer(req, "min_isr"), o);
                return;
            case "broker_fetch": {
                Broker f = broker(integer(req, "follower"));
                int index = integer(req, "partition");
                int leader = integer(req, "leader");
                BrokerFetcher.FetchState st = f.fetches.get(index);
                if (st != null && st.leader != leader) {
                    throw new ConformanceDriver.DriverException("broker " + f.id + " fetches partition " + index
                        + " from " + st.leader + ", not " + leader);
                }
                BrokerFetcher.round(this, f, st == null ? null : brokers.get(st.leader), index, o);
                return;
            }
            case "broker_expire": {
                // `brokers`: the brokers whose task runs (those up); absent, every broker.
                List<Integer> up = req.containsKey("brokers") ? intList(req, "brokers") : null;
                for (Broker b : brokers.values()) {
                    if (up != null && !up.contains(b.id)) {
                        continue;
                    }
                    for (Object p : b.partitions.values()) {
                        try {
                            MAYBE_SHRINK_ISR.call(p);
                        } catch (Throwable t) {
                            o.failed(t);
                        }
                    }
                }
                return;
            }
            case "broker_alter_answer":
                alterAnswer(req);
                return;
            case "broker_restart":
                restart(broker(integer(req, "broker")), text(req, "survives"));
                return;
            case "broker_config":
                setMinIsr(integer(req, "partition"), integer(req, "min_isr"));
                return;
            case "broker_flush":
                for (Object log : BrokerShims.allLogs(broker(integer(req, "broker")).logManager)) {
                    FLUSH.call(log, true);
                }
                return;
            case "broker_delete_records":
                deleteRecords(broker(integer(req, "broker")), integer(req, "partition"), longField(req, "offset"), o);
                return;
            case "broker_state":
                return;
            default:
                throw new ConformanceDriver.DriverException("unknown op " + op);
        }
    }

    /** Closes every broker, deletes their directories, starts one fresh LogManager per broker. */
    private void reset(List<Integer> ids, long lagMax) throws IOException {
        closeAll();
        if (root == null) {
            sweepOrphans(scratchParent());
            root = Files.createTempDirectory(scratchParent(), ROOT_PREFIX + ProcessHandle.current().pid() + "-");
            ROOTS.add(root);
        } else {
            try (Stream<Path> children = Files.list(root)) {
                children.forEach(BrokerSide::deleteTree);
            }
        }
        clock.reset();
        lagMaxMs = lagMax;
        known.clear();
        minIsr.clear();
        serial = 0;
        if (purgatories == null) purgatories = BrokerShims.purgatories(0);
        for (int id : ids) {
            if (brokers.containsKey(id)) throw new ConformanceDriver.DriverException("broker " + id + " twice");
            File dir = root.resolve("broker-" + id).toFile();
            if (!dir.mkdirs()) throw new IOException("cannot create " + dir);
            Broker b = new Broker(id, dir);
            brokers.put(id, b);
            start(b);
        }
        publishBrokers();
    }

    /**
     * The brokers' registrations change (`broker_image`): who is fenced and who is in
     * controlled shutdown. Upstream's metadata publisher sets the cache's image before the
     * replica manager applies the same image's partition changes.
     */
    private void image(List<Integer> fenced, List<Integer> shuttingDown) {
        for (int id : fenced) broker(id);
        for (int id : shuttingDown) broker(id);
        for (Broker b : brokers.values()) {
            b.fenced = fenced.contains(b.id);
            b.shuttingDown = shuttingDown.contains(b.id);
        }
        publishBrokers();
    }

    /** The metadata image every Partition sees: each broker registered at its epoch, with its state. */
    private void publishBrokers() {
        List<BrokerShims.Registration> registrations = new ArrayList<>();
        for (Broker b : brokers.values()) {
            registrations.add(new BrokerShims.Registration(b.id, b.epoch, b.fenced, b.shuttingDown));
        }
        BrokerShims.setImage(metadataCache, registrations);
    }

    /** A broker process starts: a LogManager over its directory loads (and recovers) its logs. */
    private void start(Broker b) {
        b.stats = stats.computeIfAbsent(b.id, k -> new BrokerTopicStats());
        b.alterManager = BrokerShims.alterPartitionManager(BrokerShims.ALTER_MANAGER_TYPE,
            (tip, lai) -> submit(b, (TopicIdPartition) tip, (LeaderAndIsr) lai));
        b.checkpoints = (logDir, tp) -> Optional.ofNullable(b.hwCheckpoint.get(topicIndex(tp.topic())));
        b.scheduler = new BrokerStandIns.IdleScheduler();
        Object lm = BrokerShims.newLogManager(b.dir, configRepository, b.scheduler, b.stats,
            new LogDirFailureChannel(1), clock);
        Set<String> topics = new TreeSet<>();
        for (int index : known) topics.add(topicPartition(index).topic());
        BrokerShims.startup(lm, topics);
        b.logManager = lm;
    }

    /**
     * Releases every broker's logs (their files and mappings) before the directories are
     * deleted, failures ignored. Not LogManager.shutdown: its flushes, checkpoints and
     * thread pool would be written for directories deleted next, and nothing judged reads
     * them (a restart within a history still shuts down as upstream does).
     */
    private void closeAll() {
        for (Broker b : brokers.values()) {
            try {
                for (Object log : BrokerShims.allLogs(b.logManager)) CLOSE.call(log);
            } catch (Throwable t) {
                // the directory goes anyway
            }
        }
        brokers.clear();
    }

    /** The brokers' root directory: this prefix, the JVM's pid, a dash, a random suffix. */
    private static final String ROOT_PREFIX = "isrfuzz-brokers-";

    /**
     * Deletes the root directories of driver JVMs that are gone: one killed (kill -9, or
     * reaped after a stall) never ran its shutdown hook, and on a tmpfs its logs hold RAM.
     */
    private static void sweepOrphans(Path parent) {
        try (Stream<Path> children = Files.list(parent)) {
            children.filter(p -> {
                String name = p.getFileName().toString();
                if (!name.startsWith(ROOT_PREFIX)) return false;
                String rest = name.substring(ROOT_PREFIX.length());
                int dash = rest.indexOf('-');
                if (dash <= 0) return false;
                try {
                    return ProcessHandle.of(Long.parseLong(rest.substring(0, dash))).isEmpty();
                } catch (NumberFormatException e) {
                    return false;
                }
            }).forEach(BrokerSide::deleteTree);
        } catch (IOException | RuntimeException e) {
            // best effort: a directory that cannot be listed keeps its orphans
        }
    }

    /**
     * Where the brokers' directories go: a RAM-backed tmpfs when the machine has one (the
     * logs of a history are a few kilobytes, and each history creates, fsyncs and deletes
     * dozens of files: on a disk the fsyncs dominate the driver's time), else the JVM's
     * temporary directory. `ISRFUZZ_BROKER_DIR` chooses another.
     */
    static Path scratchParent() {
        String chosen = System.getenv("ISRFUZZ_BROKER_DIR");
        if (chosen != null && !chosen.isEmpty()) return Path.of(chosen);
        Path shm = Path.of("/dev/shm");
        if (Files.isDirectory(shm) && Files.isWritable(shm)) return shm;
        return Path.of(System.getProperty("java.io.tmpdir"));
    }

    private static void deleteTree(Path path) {
        deleteTree(path.toFile());
    }

    /**
     * Deletes a file, or a directory with its contents, best effort; a link is deleted, not
     * followed. Depth first by hand: a walk of paths sorted in reverse cost more than the
     * deletions.
     */
    private static void deleteTree(File file) {
        File[] children = Files.isSymbolicLink(file.toPath()) ? null : file.listFiles();
        if (children != null) {
            for (File child : children) deleteTree(child);
        }
        file.delete();
    }

    /**
     * AlterPartitionManager.submit: the request is kept (a proposal of this op) with its
     * future, completed by {@code broker_alter_answer}.
     */
    private CompletableFuture<LeaderAndIsr> submit(Broker b, TopicIdPartition tip, LeaderAndIsr lai) {
        int index = (int) (tip.topicId().getLeastSignificantBits() - 1);
        CompletableFuture<LeaderAndIsr> future = new CompletableFuture<>();
        b.alters.computeIfAbsent(index, k -> new ArrayDeque<>()).add(future);
        StringBuilder s = new StringBuilder();
        s.append("{\"partition\":").append(index).append(",\"broker\":").append(b.id).append(",\"isr\":[");
        int[] isr = new int[lai.isrWithBrokerEpoch().size()];
        int n = 0;
        for (AlterPartitionRequestData.BrokerState st : lai.isrWithBrokerEpoch()) isr[n++] = st.brokerId();
        Arrays.sort(isr);
        for (int i = 0; i < isr.length; i++) s.append(i > 0 ? "," : "").append(isr[i]);
        s.append("],\"leader_epoch\":").append(lai.leaderEpoch())
            .append(",\"partition_epoch\":").append(lai.partitionEpoch())
            .append(",\"leader_recovery_state\":").append(lai.leaderRecoveryState().value()).append('}');
        if (current != null) current.proposals.add(new Proposal(index, b.id, s.toString()));
        return future;
    }

    /** The topic's min.insync.replicas; every log of it is reconfigured when it changes. */
    private void setMinIsr(int index, int value) {
        if (value < 1) throw new ConformanceDriver.DriverException("min_isr " + value);
        Integer old = minIsr.put(index, value);
        if (old != null && old == value) return;
        for (Broker b : brokers.values()) {
            view.touchReplica(b.id, index);
            Object log = BrokerShims.getLog(b.logManager, topicPartition(index));
            if (log != null) UPDATE_CONFIG.call(log, new LogConfig(topicProps(topicPartition(index).topic())));
        }
    }

    /**
     * {@code ReplicaManager.applyDelta} for one partition on one broker: the Partition is
     * created if absent ({@code isNew}); as leader its fetcher is removed and
     * {@code makeLeader} runs; as follower {@code makeFollower} runs and, when it reports a
     * new leader epoch, the fetcher restarts at the initial fetch state (when the leader is
     * a known broker). A broker not in the replicas stops the partition (as a delete).
     */
    private void delta(Map<String, Object> req, Outcome o) {
        Broker b = broker(integer(req, "broker"));
        int index = integer(req, "partition");
        if (index < 0) throw new ConformanceDriver.DriverException("partition " + index);
        known.add(index);
        if (req.containsKey("min_isr")) setMinIsr(index, integer(req, "min_isr"));
        List<Integer> replicas = intList(req, "replicas");
        if (!replicas.contains(b.id)) {
            remove(b, index);
            return;
        }
        int leader = integer(req, "leader");
        int lrs = req.containsKey("leader_recovery_state") ? integer(req, "leader_recovery_state") : 0;
        if (lrs != 0 && lrs != 1) throw new ConformanceDriver.DriverException("leader_recovery_state " + lrs);
        Uuid[] dirs = new Uuid[replicas.size()];
        Arrays.fill(dirs, DirectoryId.UNASSIGNED);
        PartitionRegistration registration = new PartitionRegistration.Builder()
            .setReplicas(ints(replicas))
            .setDirectories(dirs)
            .setIsr(ints(intList(req, "isr")))
            .setAddingReplicas(ints(req.containsKey("adding") ? intList(req, "adding") : List.of()))
            .setRemovingReplicas(ints(req.containsKey("removing") ? intList(req, "removing") : List.of()))
            .setElr(new int[0])
            .setLastKnownElr(new int[0])
            .setLeader(leader)
            .setLeaderRecoveryState(LeaderRecoveryState.of((byte) lrs))
            .setLeaderEpoch(integer(req, "leader_epoch"))
            .setPartitionEpoch(integer(req, "partition_epoch"))
            .build();
        TopicPartition tp = topicPartition(index);
        Object partition = b.partitions.get(index);
        boolean isNew = partition == null;
        if (isNew) {
            partition = newPartition(b, index);
            b.partitions.put(index, partition);
        }
        if (leader == b.id) {
            b.fetches.remove(index);  // removeFetcherForPartitions(localLeaders)
            b.failed.remove(index);
            try {
                BrokerShims.become(partition, true, registration, tp, isNew, b.checkpoints, topicId(index));
            } catch (Throwable t) {
                o.failed(t);
            }
            return;
        }
        try {
            boolean newLeaderEpoch = BrokerShims.become(partition, false, registration, tp, isNew, b.checkpoints,
                topicId(index));
            if (newLeaderEpoch) {
                b.fetches.remove(index);  // removeFetcherForPartitions(partitionsToStartFetching)
                b.failed.remove(index);
                if (leader >= 0 && brokers.containsKey(leader)) {
                    Object log = LOCAL_LOG_OR_EXCEPTION.call(partition);
                    int epoch = ((Number) GET_LEADER_EPOCH.call(partition)).intValue();
                    b.fetches.put(index, BrokerFetcher.initial(leader, epoch, log));
                }
            }
        } catch (Throwable t) {
            o.failed(t);
            b.fetches.remove(index);  // replicaFetcherManager.addFailedPartition
            b.failed.add(index);
        }
    }

    /** {@code Partition.apply(topicIdPartition, time, replicaManager)} with this broker's collaborators. */
    private Object newPartition(Broker b, int index) {
        TopicPartition tp = topicPartition(index);
        Object delayed = BrokerShims.construct(BrokerShims.DELAYED_OPERATIONS_TYPE.getConstructors()[0],
            BrokerShims.some(topicId(index)), tp, purgatories[0], purgatories[1], purgatories[2], purgatories[3]);
        scala.Function0<Object> epoch = new scala.runtime.AbstractFunction0<Object>() {
            @Override
            public Object apply() {
                return b.epoch;
            }
        };
        return BrokerShims.construct(BrokerShims.PARTITION, tp, lagMaxMs, b.id, epoch, clock, listener, delayed,
            metadataCache, b.logManager, b.alterManager, BrokerShims.some(topicId(index)));
    }

    /**
     * {@code ReplicaManager.stopPartitions} with delete: the fetcher is removed, then
     * {@code Partition.delete} and {@code LogManager.asyncDelete}.
     */
    private void remove(Broker b, int index) {
        b.fetches.remove(index);
        b.failed.remove(index);
        b.alters.remove(index);
        b.hwCheckpoint.remove(index);
        Object partition = b.partitions.remove(index);
        if (partition != null) DELETE.call(partition);
        TopicPartition tp = topicPartition(index);
        if (BrokerShims.getLog(b.logManager, tp) != null) BrokerShims.asyncDelete(b.logManager, tp);
    }

    /**
     * {@code ReplicaManager.appendRecords} to the local leader: one batch of {@code count}
     * records through {@code Partition.appendRecordsToLeader}, errors as the produce response
     * carries them.
     */
    private void produce(Broker b, int index, int count, int acks, int topicMinIsr, Outcome o) {
        if (count < 1) throw new ConformanceDriver.DriverException("records " + count);
        known.add(index);
        setMinIsr(index, topicMinIsr);
        Object partition = b.partitions.get(index);
        if (acks != -1 && acks != 0 && acks != 1) {
            o.produceError = Errors.INVALID_REQUIRED_ACKS.name();
        } else if (partition == null) {
            o.produceError = Errors.NOT_LEADER_OR_FOLLOWER.name();
        } else {
            Object records = BrokerShims.memoryRecords(count, clock.milliseconds(), serial);
            serial += count;
            try {
                Object info = BrokerShims.appendRecordsToLeader(partition, records, acks);
                o.produceError = Errors.NONE.name();
                o.baseOffset = FIRST_OFFSET.getLong(info);
                o.lastOffset = LAST_OFFSET.getLong(info);
            } catch (Throwable t) {
                o.produceError = Errors.forException(t).name();
                if (!(t instanceof ApiException)) o.fault(t);
            }
        }
        o.error = o.produceError;
    }

    /** {@code ReplicaManager.deleteRecordsOnLocalLog}: -1 is the high watermark. */
    private void deleteRecords(Broker b, int index, long offset, Outcome o) {
        Object partition = b.partitions.get(index);
        if (partition == null) {
            o.error = Errors.NOT_LEADER_OR_FOLLOWER.name();
            return;
        }
        long target = offset == -1 ? HIGH_WATERMARK.getLong(LOCAL_LOG_OR_EXCEPTION.call(partition)) : offset;
        if (target < 0) {
            o.error = Errors.OFFSET_OUT_OF_RANGE.name();
            return;
        }
        DELETE_RECORDS_ON_LEADER.call(partition, target);
    }

    /** Completes the oldest outstanding AlterPartition of the broker's partition. */
    private void alterAnswer(Map<String, Object> req) {
        Broker b = broker(integer(req, "broker"));
        int index = integer(req, "partition");
        ArrayDeque<CompletableFuture<LeaderAndIsr>> q = b.alters.get(index);
        if (q == null || q.isEmpty()) {
            throw new ConformanceDriver.DriverException("broker " + b.id + " has no AlterPartition outstanding for "
                + index);
        }
        String error = text(req, "error");
        Errors e;
        try {
            e = Errors.valueOf(error);
        } catch (IllegalArgumentException x) {
            throw new ConformanceDriver.DriverException("unknown error " + error);
        }
        if (e != Errors.NONE) {
            q.poll().completeExceptionally(e.exception());
            return;
        }
        int lrs = integer(req, "leader_recovery_state");
        if (lrs != 0 && lrs != 1) throw new ConformanceDriver.DriverException("leader_recovery_state " + lrs);
        LeaderAndIsr committed = new LeaderAndIsr(req.containsKey("leader") ? integer(req, "leader") : b.id,
            integer(req, "leader_epoch"), intList(req, "isr"), LeaderRecoveryState.of((byte) lrs),
            integer(req, "partition_epoch"));
        q.poll().complete(committed);
    }

    /**
     * The broker process stops and starts. {@code clean}: the LogManager shuts down (flushes,
     * writes the clean-shutdown marker). {@code flushed} / {@code hw}: a power loss as the
     * next start's recovery sees it: each log is truncated to its recovery point (or to
     * max(high watermark, recovery point)), the LogManager is closed and the clean-shutdown
     * marker removed. The high-watermark checkpoint the next Partitions read holds each log's
     * high watermark at the stop. Partitions, fetch states and outstanding AlterPartitions
     * are gone; the broker epoch moves on; a fresh LogManager loads the directory.
     */
    private void restart(Broker b, String survives) {
        if (!survives.equals("clean") && !survives.equals("flushed") && !survives.equals("hw")) {
            throw new ConformanceDriver.DriverException("survives " + survives);
        }
        // The high-watermark checkpoint holds what the Partitions had: a log this process
        // loaded and never got a Partition for (it was down: fenced, not applying deltas)
        // keeps the entry its previous process wrote (upstream writes the checkpoint from
        // the online Partitions, `ReplicaManager.checkpointHighWatermarks`).
        Map<Integer, Long> previous = new HashMap<>(b.hwCheckpoint);
        b.hwCheckpoint.clear();
        if (!survives.equals("clean")) {
            // The log-start checkpoint as its periodic task last wrote it: taken to have run
            // since the last change (LogManager's `kafka-log-start-offset-checkpoint`; a
            // DeleteRecords is not lost by a power loss after it, as in the model).
            CHECKPOINT_LOG_START_OFFSETS.call(b.logManager);
        }
        for (Object log : BrokerShims.allLogs(b.logManager)) {
            int index = topicIndex(((TopicPartition) TOPIC_PARTITION.call(log)).topic());
            long hw = HIGH_WATERMARK.getLong(log);
            if (!survives.equals("clean") && current != null) {
                // Recovery reads the epochs of batches still on disk below the log start
                // (LogLoader.recoverLog, LogSegment.recover): noted for the batch.
                long start = LOG_START_OFFSET.getLong(log);
                for (long[] batch : BrokerShims.logBatches(log)) {
                    if (batch[1] < start) current.recoveredBelowStart = true;
                }
            }
            boolean hosted = b.partitions.containsKey(index);
            b.hwCheckpoint.put(index, hosted || !previous.containsKey(index) ? hw : previous.get(index));
            if (survives.equals("clean")) continue;
            long recoveryPoint = RECOVERY_POINT.getLong(log);
            long keep = survives.equals("hw") ? Math.max(hw, recoveryPoint) : recoveryPoint;
            if (keep < LOG_END_OFFSET.getLong(log)) TRUNCATE_TO.call(log, keep);
        }
        BrokerShims.shutdown(b.logManager, b.epoch);
        if (!survives.equals("clean")) {
            File marker = new File(b.dir, BrokerShims.cleanShutdownFileName());
            if (marker.exists() && !marker.delete()) throw new IllegalStateException("cannot delete " + marker);
        }
        b.partitions.clear();
        b.fetches.clear();
        b.failed.clear();
        b.alters.clear();
        b.epoch++;
        publishBrokers();
        start(b);
    }

    // ---------------------------------------------------------------- answers

    private void render(Outcome o, StringBuilder out) {
        out.append("{\"error\":");
        ConformanceDriver.string(out, o.error);
        out.append(",\"fault\":");
        if (o.fault == null) out.append("null");
        else ConformanceDriver.string(out, o.fault);
        out.append(",\"fetch\":");
        BrokerFetcher.FetchAnswer f = o.fetch;
        if (f == null) {
            out.append("null");
        } else {
            out.append("{\"sent\":").append(f.sent).append(",\"error\":");
            ConformanceDriver.string(out, f.error);
            out.append(",\"diverging_epoch\":").append(f.divergingEpoch)
                .append(",\"diverging_end_offset\":").append(f.divergingEndOffset)
                .append(",\"records\":").append(f.records)
                .append(",\"hw\":").append(f.hw)
                .append(",\"log_start\":").append(f.logStart).append('}');
        }
        out.append(",\"produce\":");
        if (o.produceError == null) {
            out.append("null");
        } else {
            out.append("{\"error\":");
            ConformanceDriver.string(out, o.produceError);
            out.append(",\"base_offset\":").append(o.baseOffset)
                .append(",\"last_offset\":").append(o.lastOffset).append('}');
        }
        out.append(",\"proposals\":");
        proposals(out, o.proposals);
        out.append(',');
        replicas(out, o);
        out.append('}');
    }

    /** A list of proposals as the answers carry them: {@code [{...},...]}. */
    static void proposals(StringBuilder out, List<Proposal> proposals) {
        out.append('[');
        for (int i = 0; i < proposals.size(); i++) out.append(i > 0 ? "," : "").append(proposals.get(i).json);
        out.append(']');
    }


    /** {@code "replicas":[...]}: every replica any broker holds (a log, a Partition or both). */
    void replicas(StringBuilder out, Outcome o) {
        view.replicas(out, brokers.values(), o);
    }

    private static int[] ints(List<Integer> list) {
        int[] a = new int[list.size()];
        for (int i = 0; i < a.length; i++) a[i] = list.get(i);
        return a;
    }
}
