package io.seglog.storage;

import static io.seglog.storage.format.RecordBatchDescriptor.NO_TIMESTAMP;

import io.seglog.storage.segment.LogSegment;
import java.io.IOException;
import java.nio.file.Files;
import java.util.Arrays;

/**
 * Retention for one {@link PartitionLog} (Kafka's {@code UnifiedLog.deleteOldSegments}): which segments go, and
 * the order of the steps that remove them safely.
 *
 * <p>Rules, applied oldest first; deletion stops at the first segment no rule selects:
 * <ul>
 *   <li>log start: the next segment's base offset (or the log end, for the last one) is at most the log
 *       start offset;</li>
 *   <li>size ({@code retention.bytes >= 0}): while the log minus the segments already chosen is still at least
 *       {@code retention.bytes} larger than the limit after removing this one;</li>
 *   <li>time ({@code retention.ms >= 0}): now minus the segment's largest record timestamp exceeds
 *       {@code retention.ms} (the file's modification time when no batch carries a timestamp);</li>
 *   <li>guards: a segment whose upper bound (next base, or the log end) is above the high watermark is never
 *       deleted; an empty active segment is never deleted; if every segment goes, an empty segment is rolled
 *       at the log end first, so a log always has an active segment.</li>
 * </ul>
 *
 * <p>Steps, under the append lock: advance the log start offset first (a reader asking below it now gets
 * {@link OffsetOutOfRangeException}), then publish the shorter segment array. Outside the lock: rename each
 * removed segment's files to {@code .deleted} and schedule the unlink after {@code file.delete.delay.ms}, so a
 * reader holding a slice of it keeps reading. A failed rename takes the log directory offline.
 *
 * <p>Thread-safety: stateless; serialised with appends by the log's append lock.
 */
final class SegmentRetention {
    private SegmentRetention() {
    }

    static void deleteRecordsBefore(final PartitionLog log, final long offset, final long nowMs) {
        log.appendLock().lock();
        try {
            final long hw = log.highWatermark();
            if (offset > hw) {
                throw new OffsetOutOfRangeException(log.dir() + " (deleteRecordsBefore above highWatermark=" + hw
                    + ")", offset, log.logStartOffset(), log.logEndOffset());
            }
            log.raiseLogStartOffset(offset);
        } finally {
            log.appendLock().unlock();
        }
        deleteOldSegments(log, nowMs, true);
    }

    static int deleteOldSegments(final PartitionLog log, final long nowMs, final boolean startOffsetOnly) {
        final LogConfig config = log.config();
        // Kafka's rule: retention by time and size only under cleanup.policy=delete; the log start always.
        final boolean logStartOnly = startOffsetOnly || !config.cleanupPolicy().delete();
        final LogSegment[] removed;
        log.appendLock().lock();
        try {
            final LogSegment[] segs = log.segmentArray();
            final long end = log.logEndOffset();
            final long hw = log.highWatermark();
            final long logStart = log.logStartOffset();
            long excessBytes = Long.MIN_VALUE;
            if (!logStartOnly && config.retentionBytes() >= 0) {
                long total = 0;
                for (final LogSegment s : segs) {
                    total += s.sizeInBytes();
                }
                excessBytes = total - config.retentionBytes();
            }
            int n = 0;
            for (; n < segs.length; n++) {
                final LogSegment seg = segs[n];
                final boolean last = n == segs.length - 1;
                final long upper = last ? end : segs[n + 1].baseOffset();
                if (last && seg.sizeInBytes() == 0) {
                    break; // the empty active segment always stays
                }
                if (upper > hw) {
                    break; // never delete a segment at or above the high watermark
                }
                final boolean byStart = upper <= logStart;
                final boolean bySize = excessBytes != Long.MIN_VALUE && excessBytes - seg.sizeInBytes() >= 0;
                final boolean byTime = !logStartOnly && config.retentionMs() >= 0
                    && nowMs - largestTimestampMs(seg) > config.retentionMs();
                if (!byStart && !bySize && !byTime) {
                    break;
                }
                if (excessBytes != Long.MIN_VALUE) {
                    excessBytes -= seg.sizeInBytes();
                }
            }
            if (n == 0) {
                return 0;
            }
            try {
                if (n == segs.length) {
                    log.rollEmptyAtEnd(nowMs);
                }
            } catch (final IOException | RuntimeException e) {
                throw log.goOffline("roll before deleting every segment failed", e);
            }
            final LogSegment[] now = log.segmentArray();
            removed = Arrays.copyOfRange(now, 0, n);
            // Log start first: from here on a reader asking for a removed offset gets OffsetOutOfRange rather
            // than a segment that is about to be renamed.
            log.raiseLogStartOffset(now[n].baseOffset());
            log.replaceSegments(Arrays.copyOfRange(now, n, now.length));
        } finally {
            log.appendLock().unlock();
        }
        retire(log, removed, nowMs);
        return removed.length;
    }

    private static void retire(final PartitionLog log, final LogSegment[] removed, final long nowMs) {
        final long delayMs = log.config().fileDeleteDelayMs();
        final RetiredSegments retired = log.retired();
        for (final LogSegment segment : removed) {
            try {
                retired.retire(log.io(), segment, nowMs + delayMs);
            } catch (final IOException | RuntimeException e) {
                throw log.goOffline("rename of " + segment.logFile() + " to " + RetiredSegments.DELETED_SUFFIX
                    + " failed", e);
            }
            final Scheduler scheduler = log.scheduler();
            if (scheduler != null) {
                scheduler.schedule("delete-segment " + segment.logFile().getFileName(),
                    () -> retired.unlink(log.io(), segment, log), delayMs, 0);
            }
        }
    }

    private static long largestTimestampMs(final LogSegment segment) {
        final long ts = segment.maxTimestampSoFar();
        if (ts != NO_TIMESTAMP) {
            return ts;
        }
        try {
            return Files.getLastModifiedTime(segment.logFile()).toMillis();
        } catch (final IOException e) {
            return Long.MAX_VALUE; // unknown age: keep the segment
        }
    }
}
