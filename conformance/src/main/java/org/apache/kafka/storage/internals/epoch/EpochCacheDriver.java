package org.apache.kafka.storage.internals.epoch;

import org.apache.kafka.controller.ConformanceJson;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.server.util.Scheduler;
import org.apache.kafka.storage.internals.checkpoint.LeaderEpochCheckpointFile;
import org.apache.kafka.storage.internals.log.EpochEntry;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ScheduledFuture;

/**
 * Runs operation sequences on a real {@link LeaderEpochFileCache} of one Kafka release and
 * prints what it observes after every operation (line format: conformance/EPOCH-CACHE.md).
 * One input line is one sequence on a fresh cache with an empty checkpoint file; one output
 * line answers it. The class compiles against any supported release and runs on every
 * release's classpath: the two signatures that differ are looked up by reflection once.
 */
public final class EpochCacheDriver {
    /** {@code EpochEntry}: public final fields in 4.0, a record (accessor methods) later. */
    private static final Method ENTRY_EPOCH_METHOD = method(EpochEntry.class, "epoch");
    private static final Method ENTRY_OFFSET_METHOD = method(EpochEntry.class, "startOffset");
    private static final Field ENTRY_EPOCH_FIELD = field(EpochEntry.class, "epoch");
    private static final Field ENTRY_OFFSET_FIELD = field(EpochEntry.class, "startOffset");
    /** {@code latestEpoch()}: {@code OptionalInt} in 4.0, {@code Optional<Integer>} later. */
    private static final Method LATEST_EPOCH = method(LeaderEpochFileCache.class, "latestEpoch");

    static {
        if (ENTRY_EPOCH_METHOD == null && ENTRY_EPOCH_FIELD == null
                || ENTRY_OFFSET_METHOD == null && ENTRY_OFFSET_FIELD == null
                || LATEST_EPOCH == null) {
            throw new IllegalStateException("unsupported LeaderEpochFileCache/EpochEntry signatures");
        }
    }

    private static Method method(Class<?> c, String name) {
        try {
            return c.getMethod(name);
        } catch (NoSuchMethodException e) {
            return null;
        }
    }

    private static Field field(Class<?> c, String name) {
        try {
            return c.getField(name);
        } catch (NoSuchFieldException e) {
            return null;
        }
    }

    private static Object read(Object target, Method m, Field f) {
        try {
            return m != null ? m.invoke(target) : f.get(target);
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException(e);
        }
    }

    static int entryEpoch(EpochEntry e) {
        return (Integer) read(e, ENTRY_EPOCH_METHOD, ENTRY_EPOCH_FIELD);
    }

    static long entryOffset(EpochEntry e) {
        return (Long) read(e, ENTRY_OFFSET_METHOD, ENTRY_OFFSET_FIELD);
    }

    /** The latest epoch, or null when the cache is empty. */
    static Integer latestEpoch(LeaderEpochFileCache cache) {
        Object r = read(cache, LATEST_EPOCH, null);
        if (r instanceof OptionalInt) {
            OptionalInt o = (OptionalInt) r;
            return o.isPresent() ? o.getAsInt() : null;
        }
        Optional<?> o = (Optional<?>) r;
        return o.isPresent() ? (Integer) o.get() : null;
    }

    /**
     * Runs scheduled work at once on the calling thread: the cache only schedules its
     * asynchronous checkpoint flush (writeIfDirExists) after a truncation, and running it
     * inline keeps the sequence deterministic. The interface is the same in every release.
     */
    static final class InlineScheduler implements Scheduler {
        @Override
        public void startup() {
        }

        @Override
        public void shutdown() {
        }

        @Override
        public ScheduledFuture<?> schedule(String name, Runnable task, long delayMs, long periodMs) {
            task.run();
            return null;
        }

        @Override
        public void resizeThreadPool(int newSize) {
        }
    }


    private final File dir;
    private final TopicPartition partition = new TopicPartition("epoch-cache-conformance", 0);
    private final Scheduler scheduler = new InlineScheduler();

    EpochCacheDriver(File dir) {
        this.dir = dir;
    }

    /** A fresh cache over an empty checkpoint file. */
    LeaderEpochFileCache freshCache() throws IOException {
        File file = LeaderEpochCheckpointFile.newFile(dir);
        Files.deleteIfExists(file.toPath());
        LeaderEpochCheckpointFile checkpoint =
            new LeaderEpochCheckpointFile(file, new LogDirFailureChannel(1));
        return new LeaderEpochFileCache(partition, checkpoint, scheduler);
    }

    private static long num(Map<?, ?> op, String key) {
        Object v = op.get(key);
        if (!(v instanceof Long)) throw new IllegalArgumentException("op needs integer \"" + key + "\": " + op);
        return (Long) v;
    }

    private static int epoch(Map<?, ?> op, String key) {
        long v = num(op, key);
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) throw new IllegalArgumentException("epoch out of range: " + op);
        return (int) v;
    }

    /** One sequence: the output line for it (without the newline). */
    String run(String line) {
        StringBuilder out = new StringBuilder("{\"obs\":[");
        try {
            Object parsed = ConformanceJson.parse(line);
            if (!(parsed instanceof Map)) throw new IllegalArgumentException("expected an object");
            Object ops = ((Map<?, ?>) parsed).get("ops");
            if (!(ops instanceof List)) throw new IllegalArgumentException("expected \"ops\": [...]");
            LeaderEpochFileCache cache = freshCache();
            boolean first = true;
            for (Object o : (List<?>) ops) {
                if (!(o instanceof Map)) throw new IllegalArgumentException("op is not an object: " + o);
                Map<?, ?> op = (Map<?, ?>) o;
                String answer = apply(cache, op);
                if (!first) out.append(',');
                first = false;
                observe(cache, answer, out);
            }
            return out.append("]}").toString();
        } catch (RuntimeException | IOException e) {
            return "{\"error\":" + quote(e.getClass().getSimpleName() + ": " + e.getMessage()) + "}";
        }
    }

    /** Applies one operation; the query's answer as JSON, or null for an update. */
    private static String apply(LeaderEpochFileCache cache, Map<?, ?> op) {
        Object name = op.get("op");
        if ("assign".equals(name)) {
            cache.assign(epoch(op, "epoch"), num(op, "offset"));
            return null;
        } else if ("truncate_from_end".equals(name)) {
            cache.truncateFromEndAsyncFlush(num(op, "offset"));
            return null;
        } else if ("truncate_from_start".equals(name)) {
            cache.truncateFromStartAsyncFlush(num(op, "offset"));
            return null;
        } else if ("none".equals(name)) {
            // A model operation that makes no cache call (e.g. a log start that does not move).
            return null;
        } else if ("clear".equals(name)) {
            cache.clearAndFlush();
            return null;
        } else if ("end_offset_for".equals(name)) {
            Map.Entry<Integer, Long> r = cache.endOffsetFor(epoch(op, "epoch"), num(op, "log_end"));
            return "[" + r.getKey() + "," + r.getValue() + "]";
        } else if ("epoch_for".equals(name)) {
            OptionalInt r = cache.epochForOffset(num(op, "offset"));
            return r.isPresent() ? Integer.toString(r.getAsInt()) : "null";
        } else {
            throw new IllegalArgumentException("unknown op: " + name);
        }
    }

    private static void observe(LeaderEpochFileCache cache, String answer, StringBuilder out) {
        out.append("{\"entries\":[");
        boolean first = true;
        for (EpochEntry e : cache.epochEntries()) {
            if (!first) out.append(',');
            first = false;
            out.append('[').append(entryEpoch(e)).append(',').append(entryOffset(e)).append(']');
        }
        Integer latest = latestEpoch(cache);
        out.append("],\"latest\":").append(latest == null ? "null" : latest.toString());
        if (answer != null) out.append(",\"answer\":").append(answer);
        out.append('}');
    }

    private static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : String.valueOf(s).toCharArray()) {
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"').toString();
    }

    private static void deleteTree(File f) {
        File[] children = f.listFiles();
        if (children != null) for (File c : children) deleteTree(c);
        if (!f.delete() && f.exists()) f.deleteOnExit();
    }

    public static void main(String[] args) throws IOException {
        File dir = Files.createTempDirectory("isrfuzz-epoch-cache").toFile();
        try {
            EpochCacheDriver driver = new EpochCacheDriver(dir);
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            BufferedWriter out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8));
            List<String> pending = new ArrayList<>();
            String line;
            while ((line = in.readLine()) != null) {
                if (line.isBlank()) continue;
                pending.add(driver.run(line));
                // Answer at once when no more input is waiting (interactive use), else batch.
                if (!in.ready() || pending.size() >= 256) {
                    for (String p : pending) {
                        out.write(p);
                        out.write('\n');
                    }
                    out.flush();
                    pending.clear();
                }
            }
            for (String p : pending) {
                out.write(p);
                out.write('\n');
            }
            out.flush();
        } finally {
            deleteTree(dir);
        }
    }
}
