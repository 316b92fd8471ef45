package io.seglog.storage.cleaner;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * Bounds the cleaner's I/O rate ({@code log.cleaner.io.max.bytes.per.second}) across all its threads, as Kafka's
 * {@code Throttler}: bytes are counted over a check interval and, when the rate over it is above the bound, the
 * calling thread waits until the bytes fit. The wait is a timed condition wait, so {@link #stop} ends it at once.
 * Thread-safe.
 */
final class Throttler {
    /** Kafka's check interval: a rate is measured over at least this much time. */
    private static final long CHECK_INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(300);

    private final double bytesPerSecond;
    private final LongSupplier nanoTime;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition stopped = lock.newCondition();
    private long periodStartNs;
    private double observedSoFar;
    private boolean stop;

    /**
     * Creates a throttler.
     *
     * @param bytesPerSecond the bound; {@link Double#MAX_VALUE} for none
     * @param nanoTime       the clock
     */
    Throttler(final double bytesPerSecond, final LongSupplier nanoTime) {
        this.bytesPerSecond = bytesPerSecond;
        this.nanoTime = nanoTime;
        this.periodStartNs = nanoTime.getAsLong();
    }

    /**
     * Counts {@code bytes} and waits if the rate is above the bound.
     *
     * @param bytes bytes read or written
     */
    void maybeThrottle(final long bytes) {
        if (bytesPerSecond == Double.MAX_VALUE) {
            return;
        }
        lock.lock();
        try {
            observedSoFar += bytes;
            final long now = nanoTime.getAsLong();
            final long elapsedNs = now - periodStartNs;
            if (elapsedNs > CHECK_INTERVAL_NS && observedSoFar > 0) {
                final double rate = observedSoFar * 1e9 / elapsedNs;
                if (rate > bytesPerSecond) {
                    long waitNs = (long) (observedSoFar / bytesPerSecond * 1e9) - elapsedNs;
                    while (waitNs > 0 && !stop) {
                        waitNs = stopped.awaitNanos(waitNs);
                    }
                }
                periodStartNs = nanoTime.getAsLong();
                observedSoFar = 0;
            }
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            lock.unlock();
        }
    }

    /** Ends every wait and makes later calls return at once (shutdown). */
    void stop() {
        lock.lock();
        try {
            stop = true;
            stopped.signalAll();
        } finally {
            lock.unlock();
        }
    }
}
