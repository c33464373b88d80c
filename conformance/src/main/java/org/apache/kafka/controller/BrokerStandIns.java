package org.apache.kafka.controller;

import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.server.util.Scheduler;
import org.apache.kafka.server.util.timer.Timer;
import org.apache.kafka.server.util.timer.TimerTask;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The broker side's deterministic stand-ins for what runs on threads upstream: the one
 * manual clock, a scheduler whose tasks never run, and the purgatories' timer. The real
 * classes get these through their constructors; none changes what a real class does with
 * its answers.
 */
final class BrokerStandIns {
    private BrokerStandIns() {
    }

    /**
     * The one clock of the broker side: it moves only when an op carries {@code now_ms}
     * (never back). {@code sleep} does not move it (nothing on the driven paths sleeps).
     */
    static final class ManualClock implements Time {
        private long ms;

        void moveTo(long t) {
            if (t > ms) ms = t;
        }

        void reset() {
            ms = 0;
        }

        @Override
        public long milliseconds() {
            return ms;
        }

        @Override
        public long nanoseconds() {
            return ms * 1_000_000L;
        }

        @Override
        public void sleep(long durationMs) {
        }

        @Override
        public void waitObject(Object obj, java.util.function.Supplier<Boolean> condition, long deadlineMs) {
            if (!condition.get()) throw new TimeoutException("condition not met on the manual clock");
        }
    }

    /** A future for a task that never runs. */
    private static final class IdleFuture implements ScheduledFuture<Object> {
        @Override
        public long getDelay(TimeUnit unit) {
            return Long.MAX_VALUE;
        }

        @Override
        public int compareTo(Delayed o) {
            return Long.compare(getDelay(TimeUnit.MILLISECONDS), o.getDelay(TimeUnit.MILLISECONDS));
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            return true;
        }

        @Override
        public boolean isCancelled() {
            return false;
        }

        @Override
        public boolean isDone() {
            return false;
        }

        @Override
        public Object get() {
            throw new CancellationException("the broker side runs no scheduled task");
        }

        @Override
        public Object get(long timeout, TimeUnit unit) {
            return get();
        }
    }

    private static final IdleFuture IDLE = new IdleFuture();

    /**
     * The LogManager's and the logs' scheduler: it runs no delayed or periodic task (log
     * retention, background flushes, checkpoints, segment deletion and producer expiry never
     * run), so nothing changes between two ops; one-shot tasks with no delay run at the end
     * of the op that scheduled them ({@link #runDue}).
     */
    static final class IdleScheduler implements Scheduler {
        /** One-shot tasks with no delay, not run yet (see {@link #runDue}). */
        private final ArrayDeque<Runnable> due = new ArrayDeque<>();

        @Override
        public void startup() {
        }

        @Override
        public void shutdown() {
        }

        @Override
        public ScheduledFuture<?> schedule(String name, Runnable task, long delayMs, long periodMs) {
            if (delayMs <= 0 && periodMs <= 0) due.add(task);
            return IDLE;
        }

        /** A task waits for {@link #runDue}. */
        boolean hasDue() {
            return !due.isEmpty();
        }

        /**
         * Runs the one-shot tasks scheduled with no delay, in order (upstream's scheduler
         * thread runs them at once: the leader-epoch cache's checkpoint flush after a
         * truncation, {@code LeaderEpochFileCache.truncateFromEndAsyncFlush}). Called after
         * each op, so each op's background work is done before the next; a broker that
         * restarts drops the ones its process had not run. What a task throws is returned.
         */
        List<Throwable> runDue() {
            List<Throwable> thrown = new ArrayList<>();
            Runnable task;
            while ((task = due.poll()) != null) {
                try {
                    task.run();
                } catch (Throwable t) {
                    thrown.add(t);
                }
            }
            return thrown;
        }

        @Override
        public void resizeThreadPool(int newSize) {
        }
    }

    /** The purgatories' timer: no delayed operation is ever added to them. */
    static final class NoTimer implements Timer {
        @Override
        public void add(TimerTask timerTask) {
        }

        @Override
        public boolean advanceClock(long timeoutMs) {
            return false;
        }

        @Override
        public int size() {
            return 0;
        }

        @Override
        public void close() {
        }
    }
}
