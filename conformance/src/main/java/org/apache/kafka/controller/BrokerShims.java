package org.apache.kafka.controller;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.PartitionRegistration;
import org.apache.kafka.common.metadata.FeatureLevelRecord;
import org.apache.kafka.common.metadata.RegisterBrokerRecord;
import org.apache.kafka.image.MetadataDelta;
import org.apache.kafka.image.MetadataImage;
import org.apache.kafka.image.MetadataProvenance;
import org.apache.kafka.server.common.KRaftVersion;
import org.apache.kafka.server.common.MetadataVersion;
import org.apache.kafka.server.common.RequestLocal;
import org.apache.kafka.server.purgatory.DelayedOperationPurgatory;
import org.apache.kafka.server.storage.log.FetchIsolation;
import org.apache.kafka.server.util.Scheduler;
import org.apache.kafka.server.util.timer.Timer;
import org.apache.kafka.server.util.timer.TimerTask;
import org.apache.kafka.storage.internals.checkpoint.OffsetCheckpoints;
import org.apache.kafka.storage.internals.log.AppendOrigin;
import org.apache.kafka.storage.internals.log.CleanerConfig;
import org.apache.kafka.storage.internals.log.LogConfig;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.apache.kafka.storage.internals.log.ProducerStateManagerConfig;
import org.apache.kafka.storage.internals.log.VerificationGuard;
import org.apache.kafka.storage.log.metrics.BrokerTopicStats;

import java.io.File;
import java.lang.reflect.Array;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;

/**
 * What the broker side ({@link BrokerSide}) needs of the Kafka release on the classpath, for
 * every supported release (4.0.2, 4.1.2, 4.2.2, 4.3.1, 4.4.0) from one compiled class: the
 * broker classes changed package and signature between them, so everything whose erased
 * signature differs is looked up by reflection, once where it can be, by name otherwise.
 * Drift handled here (from {@code javap -p} on each release's jars):
 * <ul>
 * <li>{@code kafka.cluster.Partition}'s constructor names its collaborators' types, which
 *     moved: {@code kafka.log.LogManager} (Scala, to 4.3) became
 *     {@code org.apache.kafka.storage.internals.log.LogManager} (Java, 4.4);
 *     {@code AlterPartitionManager} moved from {@code kafka.server} to
 *     {@code org.apache.kafka.server.partition} in 4.4, {@code AlterPartitionListener} from
 *     {@code kafka.cluster} there in 4.2, {@code MetadataCache} from {@code kafka.server} to
 *     {@code org.apache.kafka.metadata} in 4.1 ({@code KRaftMetadataCache} in 4.3). The
 *     driver reads those types off the constructor and implements the interfaces it must
 *     with {@link Proxy}.</li>
 * <li>{@code makeLeader}/{@code makeFollower} take {@code LeaderAndIsrRequest.PartitionState}
 *     to 4.1 and {@code (PartitionRegistration, isNew, ...)} from 4.2.</li>
 * <li>{@code UnifiedLog} moved from {@code kafka.log} to {@code ...storage.internals.log} in
 *     4.1, its optional results from {@code scala.Option} to {@code java.util.Optional};
 *     {@code MemoryRecords}, {@code SimpleRecord}, {@code FileRecords} moved to
 *     {@code org.apache.kafka.common.record.internal} in 4.3; {@code appendRecordsToLeader}
 *     gained a transaction version in 4.2; {@code FetchParams} lost its request version in
 *     4.1; {@code LogReadInfo} and {@code EpochEntry} became records (fields to accessors).</li>
 * <li>Scala default arguments do not exist from Java: the {@code name$default$N} methods
 *     give them.</li>
 * </ul>
 */
final class BrokerShims {
    /** The release's methods and accessors this class calls by name, each resolved once per receiver class. */
    private static final Site ALL_LOGS = site("allLogs");
    private static final Site APPEND_RECORDS_TO_LEADER_DEFAULT_6 = site("appendRecordsToLeader$default$6");
    private static final Site ASYNC_DELETE = site("asyncDelete");
    private static final Site BASE_OFFSET = site("baseOffset");
    private static final Site BATCHES = site("batches");
    private static final Site EPOCH = site("epoch");
    private static final Site EPOCH_ENTRIES = site("epochEntries");
    private static final Site GET_LOG = site("getLog");
    private static final Site LAST_OFFSET = site("lastOffset");
    private static final Site LATEST_EPOCH = site("latestEpoch");
    private static final Site LEADER_EPOCH_CACHE = site("leaderEpochCache");
    private static final Site LOG = site("log");
    private static final Site LOG_SEGMENTS = site("logSegments");
    private static final Site PARTITION_LEADER_EPOCH = site("partitionLeaderEpoch");
    private static final Site READABLE_RECORDS = site("readableRecords");
    private static final Site READ_INTO = site("readInto");
    private static final Site SET_IMAGE = site("setImage");
    private static final Site SHUTDOWN = site("shutdown");
    private static final Site SIZE_IN_BYTES = site("sizeInBytes");
    private static final Site STARTUP = site("startup");
    private static final Site STARTUP_DEFAULT_2 = site("startup$default$2");
    private static final Site START_OFFSET = site("startOffset");
    private static final Site TO_LEADER_AND_ISR_PARTITION_STATE = site("toLeaderAndIsrPartitionState");
    private static final Site TRUNCATE_FULLY_AND_START_AT = site("truncateFullyAndStartAt");
    private static final Site TRUNCATE_FULLY_AND_START_AT_DEFAULT_3 = site("truncateFullyAndStartAt$default$3");
    private static final Site WITH_RECORDS = site("withRecords");

    private BrokerShims() {
    }

    // ---------------------------------------------------------------- reflection

    /** Finds the first of {@code names} that the classpath has. */
    static Class<?> cls(String... names) {
        for (String n : names) {
            try {
                return Class.forName(n);
            } catch (ClassNotFoundException e) {
                // next
            }
        }
        throw new IllegalStateException("none of " + String.join(", ", names) + " on the classpath");
    }

    /** Throws {@code t} unchecked (the exception a reflected call threw, as it was). */
    static RuntimeException rethrow(Throwable t) {
        BrokerShims.<RuntimeException>sneaky(t);
        return new IllegalStateException(t);
    }

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> void sneaky(Throwable t) throws T {
        throw (T) t;
    }

    private static boolean fits(Class<?> p, Object a) {
        if (a == null) return !p.isPrimitive();
        if (p.isInstance(a)) return true;
        if (!p.isPrimitive()) return false;
        Class<?> c = a.getClass();
        return p == long.class && (c == Long.class || c == Integer.class)
            || p == int.class && c == Integer.class
            || p == boolean.class && c == Boolean.class
            || p == short.class && c == Short.class
            || p == byte.class && c == Byte.class
            || p == double.class && c == Double.class;
    }

    /**
     * The public methods of a class by name, each made accessible once. Looked up per call
     * by name and then by the arguments' fit (a key built from the arguments' class names
     * was a twelfth of the driver's time).
     */
    private static final ClassValue<Map<String, Method[]>> METHODS = new ClassValue<>() {
        @Override
        protected Map<String, Method[]> computeValue(Class<?> type) {
            Map<String, List<Method>> byName = new HashMap<>();
            for (Method m : type.getMethods()) {
                try {
                    m.setAccessible(true);
                } catch (RuntimeException e) {
                    // public through its declaring class: fine as is
                }
                byName.computeIfAbsent(m.getName(), k -> new ArrayList<>()).add(m);
            }
            Map<String, Method[]> out = new HashMap<>();
            byName.forEach((k, v) -> out.put(k, v.toArray(new Method[0])));
            return out;
        }
    };

    /** The public methods of {@code c} named {@code name} (none: an empty array). */
    static Method[] methods(Class<?> c, String name) {
        Method[] found = METHODS.get(c).get(name);
        return found == null ? new Method[0] : found;
    }

    private static Method resolve(Class<?> c, String name, Object[] args) {
        for (Method m : methods(c, name)) {
            if (m.getParameterCount() != args.length) continue;
            Class<?>[] p = m.getParameterTypes();
            boolean ok = true;
            for (int i = 0; i < p.length && ok; i++) ok = fits(p[i], args[i]);
            if (ok) return m;
        }
        throw new IllegalStateException("no method " + c.getName() + "." + name + " for "
            + args.length + " arguments");
    }

    /** The method {@link #call} would pick when {@code c} has one public method of that name and arity, else null. */
    private static Method only(Class<?> c, String name, int arity) {
        Method found = null;
        for (Method m : methods(c, name)) {
            if (m.getParameterCount() != arity) continue;
            if (found != null) return null;
            found = m;
        }
        return found;
    }

    private static boolean fitsAll(Class<?>[] p, Object[] args) {
        for (int i = 0; i < p.length; i++) {
            if (!fits(p[i], args[i])) return false;
        }
        return true;
    }

    /** A call site's method (or accessor) for one receiver class. */
    private static final class Target {
        final Class<?> type;
        final int arity;
        /** The one method of the name and arity (null: resolved per call), or the accessor. */
        final Object member;
        final Class<?>[] params;

        Target(Class<?> type, int arity, Object member) {
            this.type = type;
            this.arity = arity;
            this.member = member;
            this.params = member instanceof Method ? ((Method) member).getParameterTypes() : null;
        }
    }

    /**
     * One call site of a method or accessor named in the source: what {@link #call} or
     * {@link #get} finds for a receiver class, kept for the next receivers of that class
     * (looking the name up per call was a twentieth of the JVM's time). A method is kept
     * only when the class has one public method of that name and arity, so the pick cannot
     * depend on the arguments, and only used while the arguments fit it; otherwise the
     * call resolves as {@link #call} does. The same method is called either way. The
     * broker side runs on one thread; the kept targets are immutable.
     */
    static final class Site {
        private final String name;
        /** Receiver classes seen, most a handful (records and batches come in two classes). */
        private Target[] seen = new Target[0];

        Site(String name) {
            this.name = name;
        }

        private Target target(Class<?> c, int arity, boolean accessor) {
            Target[] known = seen;
            for (Target t : known) {
                if (t.type == c && t.arity == arity) return t;
            }
            Target t = new Target(c, arity, accessor ? accessor(c, name) : only(c, name, arity));
            Target[] more = java.util.Arrays.copyOf(known, known.length + 1);
            more[known.length] = t;
            seen = more;
            return t;
        }

        private Method method(Class<?> c, Object[] args) {
            Target t = target(c, args.length, false);
            if (t.member != null && fitsAll(t.params, args)) return (Method) t.member;
            return resolve(c, name, args);
        }

        /** {@code target.name(args)}, as {@link BrokerShims#call}. */
        Object call(Object target, Object... args) {
            return invoke(method(target.getClass(), args), target, args);
        }

        /** The static {@code c.name(args)}, as {@link BrokerShims#callStatic}. */
        Object callStatic(Class<?> c, Object... args) {
            return invoke(method(c, args), null, args);
        }

        /** The value of this accessor or field of {@code target}, as {@link BrokerShims#get}. */
        Object get(Object target) {
            return read(target(target.getClass(), -1, true).member, target);
        }

        long getLong(Object target) {
            return ((Number) get(target)).longValue();
        }
    }

    static Site site(String name) {
        return new Site(name);
    }

    /** {@code target.name(args)}; what the method throws is rethrown as is. */
    static Object call(Object target, String name, Object... args) {
        return invoke(resolve(target.getClass(), name, args), target, args);
    }

    /** The static {@code c.name(args)}. */
    static Object callStatic(Class<?> c, String name, Object... args) {
        return invoke(resolve(c, name, args), null, args);
    }

    static Object invoke(Method m, Object target, Object... args) {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw rethrow(e.getCause());
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    static Object construct(Constructor<?> c, Object... args) {
        try {
            return c.newInstance(args);
        } catch (InvocationTargetException e) {
            throw rethrow(e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Accessors found by {@link #get}, per class and name: a Method or a Field. Looked up
     * once (the lookup and {@code setAccessible} were a fifth of the driver's own time).
     */
    private static final ClassValue<Map<String, Object>> ACCESSORS = new ClassValue<>() {
        @Override
        protected Map<String, Object> computeValue(Class<?> type) {
            return new ConcurrentHashMap<>();
        }
    };

    /** A value by its accessor (records, Scala vals) or, failing that, its public field. */
    static Object get(Object target, String name) {
        Map<String, Object> known = ACCESSORS.get(target.getClass());
        Object accessor = known.get(name);
        if (accessor == null) {
            accessor = accessor(target.getClass(), name);
            known.put(name, accessor);
        }
        return read(accessor, target);
    }

    private static Object read(Object accessor, Object target) {
        if (accessor instanceof Method) return invoke((Method) accessor, target);
        try {
            return ((Field) accessor).get(target);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Object accessor(Class<?> c, String name) {
        try {
            Method m = c.getMethod(name);
            try {
                m.setAccessible(true);
            } catch (RuntimeException e) {
                // public through its declaring class: fine as is
            }
            return m;
        } catch (NoSuchMethodException e) {
            try {
                return c.getField(name);
            } catch (NoSuchFieldException e2) {
                throw new IllegalStateException("no " + name + " on " + c.getName());
            }
        }
    }

    static boolean hasMethod(Object target, String name) {
        try {
            target.getClass().getMethod(name);
            return true;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }

    static long getLong(Object target, String name) {
        return ((Number) get(target, name)).longValue();
    }

    /** The value of a {@code scala.Option}, {@code Optional} or {@code OptionalInt/Long}; null when empty. */
    static Object unwrap(Object o) {
        if (o instanceof scala.Option) {
            scala.Option<?> s = (scala.Option<?>) o;
            return s.isEmpty() ? null : s.get();
        }
        if (o instanceof Optional) return ((Optional<?>) o).orElse(null);
        if (o instanceof OptionalInt) {
            OptionalInt i = (OptionalInt) o;
            return i.isPresent() ? Integer.valueOf(i.getAsInt()) : null;
        }
        if (o instanceof OptionalLong) {
            OptionalLong l = (OptionalLong) o;
            return l.isPresent() ? Long.valueOf(l.getAsLong()) : null;
        }
        return o;
    }

    /** The elements of a Java or Scala collection. */
    static List<Object> list(Object o) {
        List<Object> out = new ArrayList<>();
        if (o == null) return out;
        Iterable<?> it;
        if (o instanceof Iterable) {
            it = (Iterable<?>) o;
        } else if (o instanceof scala.collection.Iterable) {
            it = scala.jdk.javaapi.CollectionConverters.asJava((scala.collection.Iterable<?>) o);
        } else {
            throw new IllegalStateException("not a collection: " + o.getClass().getName());
        }
        for (Object e : it) out.add(e);
        return out;
    }

    /** The broker ids of a Java or Scala collection of ints, ascending. */
    static int[] sortedInts(Object o) {
        List<Object> l = list(o);
        int[] a = new int[l.size()];
        for (int i = 0; i < a.length; i++) a[i] = ((Number) l.get(i)).intValue();
        java.util.Arrays.sort(a);
        return a;
    }

    static <T> scala.Option<T> some(T value) {
        return new scala.Some<>(value);
    }

    static <T> scala.Option<T> none() {
        @SuppressWarnings("unchecked")
        scala.Option<T> n = (scala.Option<T>) scala.None$.MODULE$;
        return n;
    }

    /**
     * The four purgatories every Partition's {@code DelayedOperations} completes into (they
     * stay empty: the driver parks no produce or fetch), without their reaper thread.
     */
    @SuppressWarnings({"rawtypes", "unchecked"})
    static Object[] purgatories(int brokerId) {
        String[] names = {"Produce", "Fetch", "DeleteRecords", "ShareFetch"};
        Object[] out = new Object[names.length];
        for (int i = 0; i < names.length; i++) {
            out[i] = new DelayedOperationPurgatory(names[i], new BrokerStandIns.NoTimer(), brokerId, 1000, false, false);
        }
        return out;
    }

    // ---------------------------------------------------------------- interface stand-ins

    private static Object proxy(Class<?> iface, InvocationHandler h) {
        return Proxy.newProxyInstance(BrokerShims.class.getClassLoader(), new Class<?>[] {iface}, h);
    }

    /** What a stand-in answers for a method it has no particular answer for. */
    private static Object neutral(Object self, Method m, Object[] args) {
        switch (m.getName()) {
            case "toString": return "isrfuzz stand-in for " + m.getDeclaringClass().getSimpleName();
            case "hashCode": return System.identityHashCode(self);
            case "equals": return args != null && args[0] == self;
            default: break;
        }
        Class<?> r = m.getReturnType();
        if (r == boolean.class) return false;
        if (r == int.class) return 0;
        if (r == long.class) return 0L;
        if (r == short.class) return (short) 0;
        if (r == Optional.class) return Optional.empty();
        if (r == scala.Option.class) return none();
        if (r == List.class || r == Collection.class) return List.of();
        if (r == Set.class) return Set.of();
        if (r == Map.class) return Map.of();
        if (r == Properties.class) return new Properties();
        return null;
    }

    /**
     * The topic configs (ConfigRepository; the metadata cache extends it from 4.1): a topic's
     * properties come from {@code topicProps}, everything else is empty.
     */
    private static Object configAnswer(Method m, Object[] args,
                                       java.util.function.Function<String, Properties> topicProps) {
        if (m.getName().equals("topicConfig")) return topicProps.apply((String) args[0]);
        if (m.getName().equals("config") && args != null && args[0] instanceof ConfigResource) {
            ConfigResource r = (ConfigResource) args[0];
            if (r.type() == ConfigResource.Type.TOPIC) return topicProps.apply(r.name());
            return new Properties();
        }
        return null;
    }

    static Object configRepository(Class<?> iface, java.util.function.Function<String, Properties> topicProps) {
        return proxy(iface, (self, m, args) -> {
            Object a = configAnswer(m, args, topicProps);
            return a != null ? a : neutral(self, m, args);
        });
    }

    /**
     * A real {@code KRaftMetadataCache} ({@code kafka.server.metadata} to 4.2,
     * {@code org.apache.kafka.metadata} from 4.3), what the Partitions ask about brokers
     * (alive, fenced, in controlled shutdown, broker epoch). 4.0's Partition only trusts
     * this class (it matches on it), so a stand-in would change its ISR-eligibility checks.
     */
    static Object newMetadataCache() {
        Class<?> c = cls("org.apache.kafka.metadata.KRaftMetadataCache", "kafka.server.metadata.KRaftMetadataCache");
        try {
            java.util.function.Supplier<KRaftVersion> kraft = () -> KRaftVersion.LATEST_PRODUCTION;
            return construct(c.getConstructor(int.class, java.util.function.Supplier.class), 0, kraft);
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException(e);
        }
    }

    /** One broker's registration in the image. */
    record Registration(int id, long epoch, boolean fenced, boolean inControlledShutdown) {
    }

    /**
     * Gives the cache an image with the release's latest production metadata.version and
     * every broker registered at its epoch, fenced or in controlled shutdown as given (the
     * records replayed into a {@code MetadataDelta} over the empty image, as a broker's
     * metadata publisher does).
     */
    static void setImage(Object cache, List<Registration> registrations) {
        MetadataDelta delta = new MetadataDelta.Builder().setImage(MetadataImage.EMPTY).build();
        delta.replay(new FeatureLevelRecord().setName(MetadataVersion.FEATURE_NAME)
            .setFeatureLevel(MetadataVersion.latestProduction().featureLevel()));
        for (Registration r : registrations) {
            delta.replay(new RegisterBrokerRecord()
                .setBrokerId(r.id())
                .setBrokerEpoch(r.epoch())
                .setIncarnationId(new Uuid(0x1AC0000000000000L | (r.id() & 0xffffffffL), r.epoch()))
                .setFenced(r.fenced())
                .setInControlledShutdown(r.inControlledShutdown()));
        }
        SET_IMAGE.call(cache, delta.apply(MetadataProvenance.EMPTY));
    }

    /** The AlterPartition listener (metrics only upstream): does nothing. */
    static Object alterPartitionListener(Class<?> iface) {
        return proxy(iface, BrokerShims::neutral);
    }

    /**
     * The AlterPartition manager: {@code submit(TopicIdPartition, LeaderAndIsr)} goes to
     * {@code submit}, which keeps the request and returns the future it completes later.
     */
    static Object alterPartitionManager(Class<?> iface, BiFunction<Object, Object, Object> submit) {
        return proxy(iface, (self, m, args) -> {
            if (m.getName().equals("submit") && args != null && args.length == 2) {
                return submit.apply(args[0], args[1]);
            }
            return neutral(self, m, args);
        });
    }

    // ---------------------------------------------------------------- the LogManager

    /** The Partition constructor (11 parameters on every supported release). */
    static final Constructor<?> PARTITION;
    static final Class<?> LISTENER_TYPE;
    static final Class<?> DELAYED_OPERATIONS_TYPE;
    static final Class<?> METADATA_CACHE_TYPE;
    static final Class<?> LOG_MANAGER_TYPE;
    static final Class<?> ALTER_MANAGER_TYPE;
    private static final Constructor<?> LOG_MANAGER;
    static final Class<?> CONFIG_REPOSITORY_TYPE;
    private static final Method MAKE_LEADER;
    private static final Method MAKE_FOLLOWER;
    private static final boolean BECOME_TAKES_REGISTRATION;
    private static final Constructor<?> FETCH_PARAMS;
    private static final Class<?> MEMORY_RECORDS;
    private static final Constructor<?> SIMPLE_RECORD;

    static {
        Class<?> partition = cls("kafka.cluster.Partition");
        Constructor<?> ctor = null;
        for (Constructor<?> c : partition.getConstructors()) {
            if (c.getParameterCount() == 11) ctor = c;
        }
        if (ctor == null) throw new IllegalStateException("no 11-argument Partition constructor");
        PARTITION = ctor;
        Class<?>[] p = ctor.getParameterTypes();
        LISTENER_TYPE = p[5];
        DELAYED_OPERATIONS_TYPE = p[6];
        METADATA_CACHE_TYPE = p[7];
        LOG_MANAGER_TYPE = p[8];
        ALTER_MANAGER_TYPE = p[9];

        Constructor<?> lm = null;
        for (Constructor<?> c : LOG_MANAGER_TYPE.getConstructors()) {
            if (lm == null || c.getParameterCount() > lm.getParameterCount()) lm = c;
        }
        if (lm == null || lm.getParameterCount() < 19) throw new IllegalStateException("no LogManager constructor");
        LOG_MANAGER = lm;
        CONFIG_REPOSITORY_TYPE = lm.getParameterTypes()[2];

        Method leader = null;
        Method follower = null;
        for (Method m : partition.getMethods()) {
            if (m.getName().equals("makeLeader") && m.getParameterCount() >= 4) leader = m;
            if (m.getName().equals("makeFollower") && m.getParameterCount() >= 4) follower = m;
        }
        if (leader == null || follower == null) throw new IllegalStateException("no makeLeader/makeFollower");
        MAKE_LEADER = leader;
        MAKE_FOLLOWER = follower;
        BECOME_TAKES_REGISTRATION = leader.getParameterTypes()[0] == PartitionRegistration.class;

        Constructor<?> params = null;
        for (Constructor<?> c : cls("org.apache.kafka.server.storage.log.FetchParams").getConstructors()) {
            Class<?>[] t = c.getParameterTypes();
            if (t[t.length - 1] == Optional.class) params = c;
        }
        if (params == null) throw new IllegalStateException("no FetchParams constructor");
        FETCH_PARAMS = params;

        MEMORY_RECORDS = cls("org.apache.kafka.common.record.internal.MemoryRecords",
            "org.apache.kafka.common.record.MemoryRecords");
        String recordPackage = MEMORY_RECORDS.getPackageName();
        try {
            SIMPLE_RECORD = cls(recordPackage + ".SimpleRecord").getConstructor(long.class, byte[].class, byte[].class);
        } catch (NoSuchMethodException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Every log on the broker, whatever collection type the release returns. */
    static List<Object> allLogs(Object logManager) {
        return list(ALL_LOGS.call(logManager));
    }

    /**
     * A LogManager over one log directory, built as {@code LogManager.apply} does from a
     * broker config, with the cleaner off and {@code scheduler} as its scheduler. The
     * constructor's parameters are filled by type and order: 4.0 has
     * keepPartitionMetadataFile and remoteStorageSystemEnable, 4.1 the latter only, 4.2 and
     * 4.3 add a cleaner factory (unused with the cleaner off), 4.4's Java class takes Lists
     * and a LogCleanerBuilder.
     */
    /**
     * The default log config every LogManager gets: built once (parsing the config
     * definitions per broker per history was a thirtieth of the driver's time), and only
     * read (its record of the keys read feeds a warning about unused ones, nothing else).
     */
    private static final LogConfig DEFAULT_LOG_CONFIG = new LogConfig(new Properties());

    static Object newLogManager(File dir, Object configRepository, Scheduler scheduler,
                                BrokerTopicStats stats, LogDirFailureChannel failures, Time time) {
        Class<?>[] types = LOG_MANAGER.getParameterTypes();
        Object[] args = new Object[types.length];
        ArrayDeque<Integer> ints = new ArrayDeque<>(List.of(1, 900_000, 600_000));
        ArrayDeque<Long> longs = new ArrayDeque<>(List.of(Long.MAX_VALUE, 60_000L, 60_000L, 300_000L, 30_000L));
        int booleans = 0;
        for (Class<?> t : types) if (t == boolean.class) booleans++;
        ArrayDeque<Boolean> bools = booleans == 2
            ? new ArrayDeque<>(List.of(true, false)) : new ArrayDeque<>(List.of(false));
        int dirLists = 0;
        for (int i = 0; i < types.length; i++) {
            Class<?> t = types[i];
            if (t == List.class || t == scala.collection.Seq.class) {
                List<File> files = dirLists++ == 0 ? List.of(dir) : List.of();
                args[i] = t == List.class ? files
                    : scala.jdk.javaapi.CollectionConverters.asScala(new ArrayList<>(files));
            } else if (t == CONFIG_REPOSITORY_TYPE) {
                args[i] = configRepository;
            } else if (t == LogConfig.class) {
                args[i] = DEFAULT_LOG_CONFIG;
            } else if (t == CleanerConfig.class) {
                args[i] = new CleanerConfig(false);
            } else if (t == ProducerStateManagerConfig.class) {
                args[i] = new ProducerStateManagerConfig(86_400_000, false);
            } else if (t == Scheduler.class) {
                args[i] = scheduler;
            } else if (t == BrokerTopicStats.class) {
                args[i] = stats;
            } else if (t == LogDirFailureChannel.class) {
                args[i] = failures;
            } else if (t == Time.class) {
                args[i] = time;
            } else if (t == int.class) {
                args[i] = ints.pop();
            } else if (t == long.class) {
                args[i] = longs.pop();
            } else if (t == boolean.class) {
                args[i] = bools.pop();
            } else {
                args[i] = null;  // the cleaner factory: only called with the cleaner on
            }
        }
        return construct(LOG_MANAGER, args);
    }

    /** {@code startup(topicNames)} (4.4) or {@code startup(topicNames, isStray = default)}. */
    static void startup(Object logManager, Set<String> topics) {
        for (Method m : methods(logManager.getClass(), "startup")) {
            if (m.getParameterCount() == 1 && m.getParameterTypes()[0] == Set.class) {
                invoke(m, logManager, topics);
                return;
            }
        }
        Object isStray = STARTUP_DEFAULT_2.call(logManager);
        STARTUP.call(logManager, scala.jdk.javaapi.CollectionConverters.asScala(topics), isStray);
    }

    /** {@code shutdown(brokerEpoch)}: flushes and closes every log, writes the clean-shutdown marker. */
    static void shutdown(Object logManager, long brokerEpoch) {
        SHUTDOWN.call(logManager, brokerEpoch);
    }

    /** The log of {@code tp} (not a future one), or null. */
    static Object getLog(Object logManager, TopicPartition tp) {
        return unwrap(GET_LOG.call(logManager, tp, false));
    }

    /** {@code asyncDelete(tp, isFuture = false, checkpoint = true, isStray = false)}. */
    static void asyncDelete(Object logManager, TopicPartition tp) {
        ASYNC_DELETE.call(logManager, tp, false, true, false);
    }

    /** The clean-shutdown marker's file name (a log directory without it is recovered on load). */
    static String cleanShutdownFileName() {
        return CLEAN_SHUTDOWN_FILE_NAME;
    }

    private static final String CLEAN_SHUTDOWN_FILE_NAME = findCleanShutdownFileName();

    private static String findCleanShutdownFileName() {
        try {
            return (String) cls("org.apache.kafka.storage.internals.log.CleanShutdownFileHandler")
                .getField("CLEAN_SHUTDOWN_FILE_NAME").get(null);
        } catch (ReflectiveOperationException | IllegalStateException e) {
            return ".kafka_cleanshutdown";
        }
    }

    // ---------------------------------------------------------------- the Partition

    /**
     * {@code makeLeader}/{@code makeFollower} with the registration, as
     * {@code ReplicaManager.applyLocalLeadersDelta}/{@code applyLocalFollowersDelta} call
     * them: to 4.1 through {@code registration.toLeaderAndIsrPartitionState(tp, isNew)}, from
     * 4.2 with the registration and {@code isNew}; no target log directory.
     */
    static boolean become(Object partition, boolean leader, PartitionRegistration registration,
                          TopicPartition tp, boolean isNew, OffsetCheckpoints checkpoints, Uuid topicId) {
        Method m = leader ? MAKE_LEADER : MAKE_FOLLOWER;
        Object result;
        if (BECOME_TAKES_REGISTRATION) {
            result = invoke(m, partition, registration, isNew, checkpoints, some(topicId), none());
        } else {
            Object state = TO_LEADER_AND_ISR_PARTITION_STATE.call(registration, tp, isNew);
            result = invoke(m, partition, state, checkpoints, some(topicId), none());
        }
        return (Boolean) result;
    }

    /** A producer's batch of {@code count} records with {@code timestamp} (values "v0", "v1", ...). */
    static Object memoryRecords(int count, long timestamp, long serial) {
        Object array = Array.newInstance(SIMPLE_RECORD.getDeclaringClass(), count);
        for (int i = 0; i < count; i++) {
            byte[] value = ("v" + (serial + i)).getBytes(StandardCharsets.UTF_8);
            Array.set(array, i, construct(SIMPLE_RECORD, timestamp, null, value));
        }
        return WITH_RECORDS.callStatic(MEMORY_RECORDS, Compression.NONE, array);
    }

    /**
     * {@code appendRecordsToLeader(records, CLIENT, acks, noCaching, SENTINEL[, the default
     * transaction version])}, what {@code ReplicaManager.appendToLocalLog} calls.
     */
    static Object appendRecordsToLeader(Object partition, Object records, int acks) {
        for (Method m : methods(partition.getClass(), "appendRecordsToLeader")) {
            if (m.getParameterCount() == 5) {
                return invoke(m, partition, records, AppendOrigin.CLIENT, acks, RequestLocal.noCaching(),
                    VerificationGuard.SENTINEL);
            }
            if (m.getParameterCount() == 6) {
                Object version = APPEND_RECORDS_TO_LEADER_DEFAULT_6.call(partition);
                return invoke(m, partition, records, AppendOrigin.CLIENT, acks, RequestLocal.noCaching(),
                    VerificationGuard.SENTINEL, version);
            }
        }
        throw new IllegalStateException("no appendRecordsToLeader");
    }

    /** {@code truncateFullyAndStartAt(offset, isFuture = false, logStartOffsetOpt = default)}. */
    static void truncateFullyAndStartAt(Object partition, long offset) {
        Object third = TRUNCATE_FULLY_AND_START_AT_DEFAULT_3.call(partition);
        TRUNCATE_FULLY_AND_START_AT.call(partition, offset, false, third);
    }

    /**
     * A follower's fetch parameters as {@code ReplicaFetcherThread} sends them (replica id,
     * broker epoch, max wait 500 ms, min bytes 1, response max 10 MiB, LOG_END isolation).
     */
    static Object followerFetchParams(int replicaId, long brokerEpoch) {
        Object[] tail = {replicaId, brokerEpoch, 500L, 1, 10 * 1024 * 1024, FetchIsolation.LOG_END, Optional.empty()};
        if (FETCH_PARAMS.getParameterCount() == tail.length) return construct(FETCH_PARAMS, tail);
        Object[] args = new Object[tail.length + 1];
        args[0] = org.apache.kafka.common.protocol.ApiKeys.FETCH.latestVersion();
        System.arraycopy(tail, 0, args, 1, tail.length);
        return construct(FETCH_PARAMS, args);
    }

    /** {@code AbstractFetcherThread.toMemoryRecords}: file records read into memory. */
    static Object toMemoryRecords(Object records) {
        if (MEMORY_RECORDS.isInstance(records)) return records;
        int size = ((Number) SIZE_IN_BYTES.call(records)).intValue();
        ByteBuffer buffer = ByteBuffer.allocate(size);
        READ_INTO.call(records, buffer, 0);
        return READABLE_RECORDS.callStatic(MEMORY_RECORDS, buffer);
    }

    /** Every batch of some records as [base offset, last offset, partition leader epoch]. */
    static List<long[]> batches(Object records) {
        List<long[]> out = new ArrayList<>();
        for (Object b : list(BATCHES.call(records))) {
            out.add(new long[] {BASE_OFFSET.getLong(b), LAST_OFFSET.getLong(b),
                PARTITION_LEADER_EPOCH.getLong(b)});
        }
        return out;
    }

    /** Every batch of a log, segment by segment. */
    static List<long[]> logBatches(Object log) {
        List<long[]> out = new ArrayList<>();
        for (Object segment : list(LOG_SEGMENTS.call(log))) out.addAll(batches(LOG.call(segment)));
        return out;
    }

    /** The log's leader-epoch cache entries as [epoch, start offset]. */
    static List<long[]> epochs(Object log) {
        List<long[]> out = new ArrayList<>();
        Object cache = unwrap(LEADER_EPOCH_CACHE.call(log));
        if (cache == null) return out;
        for (Object e : list(EPOCH_ENTRIES.call(cache))) {
            out.add(new long[] {EPOCH.getLong(e), START_OFFSET.getLong(e)});
        }
        return out;
    }

    /** The log's latest epoch (UnifiedLog.latestEpoch), or null. */
    static Integer latestEpoch(Object log) {
        Object e = unwrap(LATEST_EPOCH.call(log));
        return e == null ? null : ((Number) e).intValue();
    }
}
