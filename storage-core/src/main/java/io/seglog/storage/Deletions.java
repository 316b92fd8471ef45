package io.seglog.storage;

import io.seglog.storage.io.FileIO;
import io.seglog.storage.log.LogEnd;
import io.seglog.storage.log.LogWriteException;
import io.seglog.storage.log.Retention;
import io.seglog.storage.log.RetiredSegments;
import io.seglog.storage.log.Segments;
import io.seglog.storage.log.Watermarks;
import io.seglog.storage.segment.LogSegment;
import io.seglog.storage.segment.SegmentConfig;
import io.seglog.storage.segment.SegmentFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * The paths of one {@link PartitionLog} that take segments away: retention ({@code deleteOldSegments}),
 * DeleteRecords ({@code deleteRecordsBefore}) and the cleaner's swap of a group of segments for their cleaned copy.
 * Owns no state: which segments go is {@link Retention}'s, the log start {@link Watermarks}', the segment array
 * {@link Segments}', the segments waiting for their unlink {@link RetiredSegments}'. The selection runs under the
 * log's append lock (lent here); the renames after it, so appends continue meanwhile. The caller passes the
 * time of each call.
 */
final class Deletions {
    private final Path dir;
    private final FileIO io;
    private final ReentrantLock appendLock;
    private final Segments segments;
    private final LogEnd end;
    private final Watermarks watermarks;
    private final Retention retention;
    private final RetiredSegments retired;
    /** Unlinks are scheduled when there is a scheduler; without one {@link #deleteOldSegments} unlinks. */
    private final boolean scheduled;
    /** Persists a raised log start (a log manager's checkpoint) before the segment files below it go. */
    private final Runnable logStartRaised;
    /** The segment configuration current at a swap, for the cleaned segment's indexes. */
    private final Supplier<SegmentConfig> segmentConfig;
    private final LogHealth health;

    Deletions(final Path dir, final FileIO io, final ReentrantLock appendLock, final Segments segments, final LogEnd end, final Watermarks watermarks, final Retention retention,
              final RetiredSegments retired, final boolean scheduled, final Runnable logStartRaised,
              final Supplier<SegmentConfig> segmentConfig, final LogHealth health) {
        this.dir = dir;
        this.io = io;
        this.appendLock = appendLock;
        this.segments = segments;
        this.end = end;
        this.watermarks = watermarks;
        this.retention = retention;
        this.retired = retired;
        this.scheduled = scheduled;
        this.logStartRaised = logStartRaised;
        this.segmentConfig = segmentConfig;
        this.health = health;
    }

    /** {@link PartitionLog#deleteRecordsBefore}. */
    long deleteRecordsBefore(final long offset, final long nowMs) {
        health.ensureWritable();
        appendLock.lock();
        try {
            final long hw = watermarks.highWatermark(end.offset());
            if (offset > hw) {
                throw new OffsetOutOfRangeException(dir + " (deleteRecordsBefore above highWatermark=" + hw + ")",
                    offset, watermarks.logStartOffset(), end.offset());
            }
            watermarks.raiseLogStartOffset(offset);
        } finally {
            appendLock.unlock();
        }
        deleteSegments(nowMs, true);
        return watermarks.logStartOffset();
    }

    /** {@link PartitionLog#deleteOldSegments}. */
    int deleteOldSegments(final long nowMs) {
        health.ensureWritable();
        if (!scheduled) {
            try {
                retired.unlinkExpired(nowMs);
            } catch (final LogWriteException e) {
                throw health.goOffline(e.what(), e.getCause());
            }
        }
        return deleteSegments(nowMs, false);
    }

    /** Takes the expired segments out under the append lock, then retires them (rename now, unlink later). */
    private int deleteSegments(final long nowMs, final boolean logStartOnly) {
        final LogSegment[] removed;
        appendLock.lock();
        try {
            removed = retention.takeExpired(nowMs, logStartOnly);
        } catch (final LogWriteException e) {
            throw health.goOffline(e.what(), e.getCause());
        } finally {
            appendLock.unlock();
        }
        if (removed.length > 0) {
            // The checkpointed log start must pass the segments before their files go: an open then knows that a
            // first segment above the checkpointed start is a lost one, not retention's work (docs/recovery.md).
            logStartRaised.run();
        }
        try {
            retention.retire(removed, nowMs);
        } catch (final LogWriteException e) {
            throw health.goOffline(e.what(), e.getCause());
        }
        return removed.length;
    }

    /**
     * The log's part of the cleaner's swap ({@code CleanableLog.replaceSegments}, which documents it): under the
     * append lock, so retention, truncation and rolls see the group or its replacement, never both.
     */
    boolean replaceSegments(final LogSegment[] group, final Path swapFile, final long nowMs) throws IOException {
        health.ensureWritable();
        appendLock.lock();
        try {
            if (!segments.contains(group)) {
                return false;
            }
            final long base = group[0].baseOffset();
            try {
                retention.retire(group, nowMs); // .deleted renames, unlink after file.delete.delay.ms
                // The cleaner's transaction-index swap file, if the group had aborts, goes into place first (the
                // next open completes the log's swap file with it, should this stop in between).
                final Path txnIndex = dir.resolve(SegmentFiles.fileName(base, SegmentFiles.TXN_INDEX_SUFFIX));
                final Path txnIndexSwap = txnIndex.resolveSibling(txnIndex.getFileName() + ".swap");
                if (java.nio.file.Files.exists(txnIndexSwap)) {
                    io.atomicMove(txnIndexSwap, txnIndex);
                }
                io.atomicMove(swapFile, dir.resolve(SegmentFiles.fileName(base, SegmentFiles.LOG_SUFFIX)));
                io.fsyncDirectory(dir);
                // Its index files went with the old segment of the same base: open builds them from the data.
                final LogSegment created = LogSegment.open(io, dir, base, segmentConfig.get(), nowMs, 0,
                    ByteBuffer.allocate(64));
                created.flush();
                segments.replace(group, created);
            } catch (final LogWriteException e) {
                throw health.goOffline(e.what(), e.getCause());
            } catch (final IOException | RuntimeException e) {
                throw health.goOffline("swap of the cleaned segment " + swapFile.getFileName(), e);
            }
            return true;
        } finally {
            appendLock.unlock();
        }
    }
}
