package io.seglog.storage;

import io.seglog.storage.segment.LogSegment;
import java.io.IOException;

/**
 * The flush and close paths of a {@link PartitionLog}: forcing the segments written since the last flush, and
 * the final flush, retired-segment unlink and file close of {@link PartitionLog#close()}.
 *
 * <p>Thread-safety: stateless; {@link #flush} takes the log's flush lock, {@link #close} runs under the log's
 * append lock (held by {@link PartitionLog#close()}).
 */
final class FlushAndClose {
    private FlushAndClose() {
    }

    /** {@link PartitionLog#flush()} after its writability check. */
    static void flush(final PartitionLog log) {
        synchronized (log.flushLock) {
            final long end = log.endOffset;
            final LogSegment[] segs = log.segments;
            try {
                forceUnflushed(log, segs);
            } catch (final IOException | RuntimeException e) {
                throw log.goOffline("flush failed", e);
            }
            log.flushedSegmentBase = segs[segs.length - 1].baseOffset();
            log.flushedOffset = Math.max(log.flushedOffset, end);
        }
        log.groupCommit.markFlushed(log.time.millis());
        log.groupCommit.onFlushed(log.flushedOffset);
    }

    /**
     * {@link PartitionLog#close()} once it marked the log closed: trims and fsyncs what is unflushed (unless
     * offline), fails the group-commit waiters, unlinks retired segments and closes every segment newest
     * first, keeping all failures (suppressed).
     */
    static void close(final PartitionLog log) {
        Throwable failure = null;
        final LogSegment[] segs = log.segments;
        if (!log.isOffline()) {
            try {
                segs[segs.length - 1].onBecomeInactive();
                synchronized (log.flushLock) {
                    forceUnflushed(log, segs);
                    log.flushedOffset = log.endOffset;
                }
                log.groupCommit.onFlushed(log.flushedOffset);
            } catch (final IOException | RuntimeException e) {
                failure = log.goOffline("flush on close failed", e);
            }
        }
        log.groupCommit.failAll(new StorageException("the log was closed", log.dir, null), true);
        synchronized (log.flushLock) {
            failure = log.retired().unlinkAll(log.io, failure);
        }
        // Offline: close without trimming or syncing anything, so no fsync is issued after a failed one.
        final boolean offline = log.isOffline();
        for (int i = segs.length - 1; i >= 0; i--) {
            try {
                if (offline) {
                    segs[i].abandon();
                    continue;
                }
                segs[i].close();
            } catch (final IOException | RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw new StorageException("closing the log failed: " + failure.getMessage(), log.dir, failure);
        }
    }

    /** Forces every segment not yet fully flushed; the caller holds the flush lock. */
    private static void forceUnflushed(final PartitionLog log, final LogSegment[] segs) throws IOException {
        for (final LogSegment segment : segs) {
            if (segment.baseOffset() >= log.flushedSegmentBase) {
                segment.flush();
            }
        }
    }
}
