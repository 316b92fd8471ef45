package io.seglog.replication.replica;

import io.seglog.storage.TopicPartition;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import org.agrona.DeadlineTimerWheel;
import org.agrona.collections.Long2ObjectHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Requests that wait (Kafka's purgatory): an acks=all produce until the high watermark passes its records, a fetch
 * until enough bytes arrive. Each operation watches the partitions it waits on, is checked again when one of them
 * changes ({@link #checkAndComplete}), and has a deadline kept in one timer wheel (Agrona's
 * {@link DeadlineTimerWheel}): no thread or scheduled task per request. {@link #expire} fires the operations whose
 * deadline passed; {@link #startReaper} runs it on one thread, or a simulation calls it with its own clock.
 *
 * <p>An operation completes exactly once, whichever of a check, its deadline or {@link #close} comes first.
 *
 * <p>Thread-safe.
 */
final class DelayedOperations implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DelayedOperations.class);
    /** Timer resolution: deadlines fire up to this late (a power of two, as the wheel requires). */
    static final long TICK_MS = 8;
    private static final int TICKS_PER_WHEEL = 512;
    /** A watch list this long is swept of completed operations before it grows further. */
    private static final int PURGE_THRESHOLD = 256;

    /** One waiting request. */
    abstract static class Operation {
        private final AtomicBoolean done = new AtomicBoolean();
        private volatile boolean expired;
        private long timerId = DeadlineTimerWheel.NULL_DEADLINE;

        /**
         * Checks whether the request can be answered now; if so calls {@link #forceComplete()} and returns true.
         *
         * @return whether it completed
         */
        abstract boolean tryComplete();

        /** Answers the request; called exactly once. */
        abstract void onComplete();

        /**
         * Completes the request now, unless it already completed.
         *
         * @return whether this call completed it
         */
        final boolean forceComplete() {
            if (!done.compareAndSet(false, true)) {
                return false;
            }
            onComplete();
            return true;
        }

        /**
         * Completes the request as expired, unless it already completed: only the caller that wins the operation
         * marks it expired, so one a check completed meanwhile never reads as expired.
         *
         * @return whether this call completed it
         */
        private boolean forceExpire() {
            if (!done.compareAndSet(false, true)) {
                return false;
            }
            expired = true;
            onComplete();
            return true;
        }

        /**
         * Whether it completed.
         *
         * @return true once completed
         */
        final boolean isDone() {
            return done.get();
        }

        /**
         * Whether it completed because its deadline passed (before any check found it ready).
         *
         * @return true when expired
         */
        final boolean expired() {
            return expired;
        }
    }

    /** The operations waiting on one partition. */
    private static final class Watchers {
        private final List<Operation> ops = new ArrayList<>();

        synchronized void add(final Operation op) {
            if (ops.size() >= PURGE_THRESHOLD) {
                ops.removeIf(Operation::isDone);
            }
            ops.add(op);
        }

        synchronized List<Operation> snapshot() {
            ops.removeIf(Operation::isDone);
            return ops.isEmpty() ? List.of() : new ArrayList<>(ops);
        }

        synchronized int size() {
            return ops.size();
        }
    }

    private final ConcurrentHashMap<TopicPartition, Watchers> watchers = new ConcurrentHashMap<>();
    private final LongSupplier clockMs;
    private final ReentrantLock timerLock = new ReentrantLock();
    private final Condition timerAdded = timerLock.newCondition();
    private final DeadlineTimerWheel wheel;
    private final Long2ObjectHashMap<Operation> byTimer = new Long2ObjectHashMap<>();
    private final List<Operation> expiredScratch = new ArrayList<>();
    private volatile boolean closed;
    private Thread reaper;

    /**
     * @param clockMs the monotonic clock deadlines are measured on
     */
    DelayedOperations(final LongSupplier clockMs) {
        this.clockMs = clockMs;
        this.wheel = new DeadlineTimerWheel(TimeUnit.MILLISECONDS, clockMs.getAsLong(), TICK_MS, TICKS_PER_WHEEL);
    }

    /**
     * Completes the operation now if it can, else watches it on the partitions and arms its deadline (Kafka's
     * {@code tryCompleteElseWatch}): it is checked again after it is watched, so that a change between the first
     * check and the watch is not missed.
     *
     * @param op         the operation
     * @param keys       the partitions whose changes may complete it
     * @param deadlineMs when it expires, on the clock given at construction
     * @return whether it completed inside this call
     */
    boolean tryCompleteElseWatch(final Operation op, final Collection<TopicPartition> keys, final long deadlineMs) {
        if (op.tryComplete()) {
            return true;
        }
        if (closed) {
            op.forceComplete();
            return true;
        }
        for (final TopicPartition key : keys) {
            watchers.computeIfAbsent(key, k -> new Watchers()).add(op);
        }
        if (op.tryComplete()) {
            return true;
        }
        timerLock.lock();
        try {
            if (op.isDone()) {
                return true;
            }
            // close() sets the flag before it sweeps the armed deadlines under this lock: an operation it did not
            // find is completed here, not armed on a wheel nobody polls any more.
            if (!closed) {
                if (wheel.timerCount() == 0) {
                    // After an idle spell the wheel's tick lags the clock; polling it up one tick at a time would
                    // hold this lock for a walk over every tick missed.
                    wheel.resetStartTime(clockMs.getAsLong());
                }
                op.timerId = wheel.scheduleTimer(deadlineMs);
                byTimer.put(op.timerId, op);
                timerAdded.signal();
                return false;
            }
        } finally {
            timerLock.unlock();
        }
        op.forceExpire();
        return true;
    }

    /**
     * Checks the operations watching a partition (after an append, a high-watermark move or a leadership change).
     *
     * @param key the partition
     * @return how many completed
     */
    int checkAndComplete(final TopicPartition key) {
        final Watchers w = watchers.get(key);
        if (w == null) {
            return 0;
        }
        int completed = 0;
        for (final Operation op : w.snapshot()) {
            if (!op.isDone() && op.tryComplete()) {
                completed++;
                cancelTimer(op);
            }
        }
        return completed;
    }

    private void cancelTimer(final Operation op) {
        timerLock.lock();
        try {
            if (op.timerId != DeadlineTimerWheel.NULL_DEADLINE) {
                wheel.cancelTimer(op.timerId);
                byTimer.remove(op.timerId);
                op.timerId = DeadlineTimerWheel.NULL_DEADLINE;
            }
        } finally {
            timerLock.unlock();
        }
    }

    /**
     * Completes every operation whose deadline is at or before {@code nowMs} (within one tick).
     *
     * @param nowMs the time on the operations' clock
     * @return how many expired
     */
    int expire(final long nowMs) {
        final List<Operation> due;
        timerLock.lock();
        try {
            expiredScratch.clear();
            while (wheel.timerCount() > 0 && wheel.currentTickTime() <= nowMs) {
                wheel.poll(nowMs, (unit, now, timerId) -> {
                    final Operation op = byTimer.remove(timerId);
                    if (op != null) {
                        op.timerId = DeadlineTimerWheel.NULL_DEADLINE;
                        expiredScratch.add(op);
                    }
                    return true;
                }, Integer.MAX_VALUE);
            }
            due = expiredScratch.isEmpty() ? List.of() : new ArrayList<>(expiredScratch);
        } finally {
            timerLock.unlock();
        }
        int count = 0;
        for (final Operation op : due) {
            if (op.forceExpire()) {
                count++;
            }
        }
        return count;
    }

    /**
     * Operations armed with a deadline and not completed.
     *
     * @return the count
     */
    int pending() {
        timerLock.lock();
        try {
            return (int) wheel.timerCount();
        } finally {
            timerLock.unlock();
        }
    }

    /**
     * Operations watching a partition, completed ones not yet swept included.
     *
     * @param key the partition
     * @return the count
     */
    int watching(final TopicPartition key) {
        final Watchers w = watchers.get(key);
        return w == null ? 0 : w.size();
    }

    /**
     * Starts a thread that fires deadlines every tick while any is armed, and sleeps while none is.
     *
     * @param name          the thread's name
     * @param threadFactory makes the thread
     */
    void startReaper(final String name, final java.util.concurrent.ThreadFactory threadFactory) {
        reaper = threadFactory.newThread(() -> {
            while (!closed) {
                timerLock.lock();
                try {
                    while (!closed && wheel.timerCount() == 0) {
                        timerAdded.awaitUninterruptibly();
                    }
                } finally {
                    timerLock.unlock();
                }
                try {
                    expire(clockMs.getAsLong());
                } catch (final RuntimeException e) {
                    LOG.error("expiring delayed operations failed", e);
                }
                java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(TICK_MS));
            }
        });
        reaper.setName(name);
        reaper.setDaemon(true);
        reaper.start();
    }

    /**
     * Completes every waiting operation (as expired) and stops the reaper. Idempotent.
     */
    @Override
    public void close() {
        closed = true;
        final List<Operation> all;
        timerLock.lock();
        try {
            all = new ArrayList<>(byTimer.values());
            byTimer.clear();
            wheel.clear();
            timerAdded.signalAll();
        } finally {
            timerLock.unlock();
        }
        for (final Operation op : all) {
            op.forceExpire();
        }
        watchers.clear();
        if (reaper != null && reaper != Thread.currentThread()) {
            try {
                reaper.join(TimeUnit.SECONDS.toMillis(10));
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
