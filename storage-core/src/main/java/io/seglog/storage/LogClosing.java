package io.seglog.storage;

import io.seglog.storage.log.Appender;
import io.seglog.storage.log.Durability;
import io.seglog.storage.log.LogEnd;
import io.seglog.storage.log.RetiredSegments;
import io.seglog.storage.log.Segments;
import io.seglog.storage.producer.ProducerStateManager;
import io.seglog.storage.segment.LogSegment;
import java.io.IOException;
import java.nio.file.Path;

/**
 * The close path of one {@link PartitionLog}, run once by {@link LogHealth#close} under the append lock: trims and
 * fsyncs what is unflushed (unless offline), fails the durability waiters, unlinks retired segments and closes every
 * segment newest first, keeping all failures; offline, it closes without trimming or syncing anything, so no fsync is
 * issued after a failed one. Owns no state: each owner closes its own.
 */
final class LogClosing {
    private final Path dir;
    private final Segments segments;
    private final LogEnd end;
    private final Durability durability;
    private final Appender appender;
    private final RetiredSegments retired;
    private final ProducerStateManager producers;
    private final ProducerExpiry producerExpiry;
    private final LogHealth health;

    LogClosing(final Path dir, final Segments segments, final LogEnd end, final Durability durability,
               final Appender appender, final RetiredSegments retired, final ProducerStateManager producers,
               final ProducerExpiry producerExpiry, final LogHealth health) {
        this.dir = dir;
        this.segments = segments;
        this.end = end;
        this.durability = durability;
        this.appender = appender;
        this.retired = retired;
        this.producers = producers;
        this.producerExpiry = producerExpiry;
        this.health = health;
    }

    /** Closes the files; see the class comment. */
    void closeFiles() {
        Throwable failure = null;
        final LogSegment[] segs = segments.array();
        producerExpiry.cancel();
        if (!health.isOffline() && !health.isReadOnly()) {
            try {
                segs[segs.length - 1].onBecomeInactive();
                // Kafka's clean shutdown: a snapshot at the log end, so the next open replays nothing.
                producers.takeSnapshot();
                durability.flushOnClose(segments, end.offset());
            } catch (final IOException | RuntimeException e) {
                failure = health.goOffline("flush on close failed", e);
            }
        }
        durability.failAll(new StorageException("the log was closed", dir, null), true);
        appender.close();
        try {
            failure = retired.unlinkAll(failure);
        } catch (final IOException e) {
            failure = e;
        }
        // Offline: no fsync may follow a failed one; read-only: nothing is trimmed or synced. Both abandon.
        failure = segments.closeAll(health.isOffline() || health.isReadOnly(), failure);
        if (failure != null) {
            throw new StorageException("closing the log failed: " + failure.getMessage(), dir, failure);
        }
    }
}
