package io.seglog.storage;

import io.seglog.storage.log.Appender;
import io.seglog.storage.log.LogEnd;
import io.seglog.storage.log.LogWriteException;
import io.seglog.storage.log.Segments;
import io.seglog.storage.log.Truncation;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The truncation entry points of one {@link PartitionLog}: the argument checks, which of {@link Truncation}'s cases a
 * requested end is, under the log's append lock (lent here), and a failure taken to {@link LogHealth}. Owns no
 * state: the order of a truncation and the lowering of every watermark are {@link Truncation}'s.
 */
final class Truncations {
    private final ReentrantLock appendLock;
    private final Segments segments;
    private final LogEnd end;
    private final Truncation truncation;
    private final LogHealth health;

    Truncations(final ReentrantLock appendLock, final Segments segments, final LogEnd end,
                final Truncation truncation, final LogHealth health) {
        this.appendLock = appendLock;
        this.segments = segments;
        this.end = end;
        this.truncation = truncation;
        this.health = health;
    }

    /** {@link PartitionLog#truncateTo}. */
    long truncateTo(final long offset) {
        if (offset < 0) {
            throw new IllegalArgumentException("offset=" + offset + " must be >= 0");
        }
        appendLock.lock();
        try {
            health.ensureWritable();
            if (offset >= end.offset()) {
                truncation.truncateEpochsAtEnd(offset);
                return end.offset();
            }
            if (offset < segments.first().baseOffset()) {
                truncation.truncateFullyAndStartAt(offset);
                return offset;
            }
            return truncation.truncateWithinLog(offset);
        } catch (final LogWriteException e) {
            throw health.goOffline(e.what(), e.getCause());
        } finally {
            appendLock.unlock();
        }
    }

    /** {@link PartitionLog#truncateFullyAndStartAt}. */
    void truncateFullyAndStartAt(final long offset) {
        if (offset < 0 || offset > Appender.MAX_LAST_OFFSET) {
            throw new IllegalArgumentException("offset=" + offset + " must be in [0, " + Appender.MAX_LAST_OFFSET
                + "] (the log end offset must stay representable)");
        }
        appendLock.lock();
        try {
            health.ensureWritable();
            truncation.truncateFullyAndStartAt(offset);
        } catch (final LogWriteException e) {
            throw health.goOffline(e.what(), e.getCause());
        } finally {
            appendLock.unlock();
        }
    }
}
