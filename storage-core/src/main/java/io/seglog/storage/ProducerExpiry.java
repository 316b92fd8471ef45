package io.seglog.storage;

import io.seglog.storage.producer.ProducerStateManager;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The producer-state entry points of one {@link PartitionLog}: it owns the periodic expiration check (Kafka's
 * {@code PeriodicProducerExpirationCheck}) on the log's scheduler. The producer state itself is
 * {@link ProducerStateManager}'s, read and changed here under the log's append lock (lent here).
 */
final class ProducerExpiry {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionLog.class);

    private final Path dir;
    private final ReentrantLock appendLock;
    private final ProducerStateManager producers;
    private final InstantSource time;
    private final LogHealth health;
    /** The periodic check on the scheduler; null without one (a standalone log's owner expires) or read-only. */
    private final Scheduler.Cancellable task;

    ProducerExpiry(final Path dir, final ReentrantLock appendLock, final ProducerStateManager producers,
                   final InstantSource time, final LogHealth health, final Scheduler scheduler,
                   final long checkIntervalMs) {
        this.dir = dir;
        this.appendLock = appendLock;
        this.producers = producers;
        this.time = time;
        this.health = health;
        // Scheduled last: the first run comes an interval after construction.
        this.task = scheduler == null || health.isReadOnly() ? null : scheduler.schedule(
            "PeriodicProducerExpirationCheck " + dir, this::expireOnSchedule, checkIntervalMs, checkIntervalMs);
    }

    /** {@link PartitionLog#producerIdCount}. */
    int producerIdCount() {
        appendLock.lock();
        try {
            return producers.producerIdCount();
        } finally {
            appendLock.unlock();
        }
    }

    /** {@link PartitionLog#removeExpiredProducers}. */
    int removeExpiredProducers() {
        appendLock.lock();
        try {
            health.ensureWritable();
            return producers.removeExpiredProducers(time.millis());
        } finally {
            appendLock.unlock();
        }
    }

    private void expireOnSchedule() {
        if (health.isClosed() || health.isOffline()) {
            return;
        }
        try {
            final int removed = removeExpiredProducers();
            if (removed > 0) {
                LOG.info("Removed {} expired producer ids from {}", removed, dir);
            }
        } catch (final StorageException | IllegalStateException e) {
            // closed or offline meanwhile: nothing to expire
        }
    }

    /** Stops the periodic check (the log closes). */
    void cancel() {
        if (task != null) {
            task.cancel();
        }
    }
}
