package io.seglog.storage.log;

import static io.seglog.storage.format.RecordBatchDescriptor.NO_TIMESTAMP;

import io.seglog.storage.producer.ProducerStateManager;
import io.seglog.storage.segment.LogSegment;
import java.io.IOException;
import java.nio.file.Files;

/**
 * Which segments of a partition log retention deletes (Kafka's {@code UnifiedLog.deleteOldSegments}), and taking
 * them out of the log in the safe order.
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
 * Retention by time and size applies only under {@code cleanup.policy=delete} (Kafka's rule); by log start always.
 *
 * <p>Order: the log start offset advances first (a reader asking below it now gets an out-of-range answer rather
 * than a segment that is about to be renamed), then the shorter segment array is published; then, outside the
 * append lock, {@link #retire} renames the segments taken out and schedules their unlink ({@link RetiredSegments}).
 *
 * <p>Threads: the log's writer only (the caller holds the append lock).
 */
public final class Retention {
    /**
     * The retention rules of the log's configuration.
     *
     * @param retentionMs    {@code retention.ms}, -1 for none
     * @param retentionBytes {@code retention.bytes}, -1 for none
     * @param byTimeAndSize  {@code cleanup.policy} includes {@code delete}
     * @param deleteDelayMs  {@code file.delete.delay.ms}: how long a retired segment stays readable
     */
    public record Rules(long retentionMs, long retentionBytes, boolean byTimeAndSize, long deleteDelayMs) {
    }

    /** Runs a segment's unlink after the delete delay. */
    @FunctionalInterface
    public interface UnlinkScheduler {
        /**
         * Schedules the task.
         *
         * @param name   names the task
         * @param unlink the task
         */
        void schedule(String name, Runnable unlink);
    }

    private final Segments segments;
    private final LogEnd end;
    private final Watermarks watermarks;
    private final RetiredSegments retired;
    /** Replaced by {@link #reconfigure}; read at the next retention check or retirement (some outside the lock). */
    private volatile Rules rules;
    private final UnlinkScheduler unlinks;
    private final java.util.function.Consumer<Throwable> onUnlinkFailure;
    private final ProducerStateManager producers;

    /**
     * Creates the retention of one log.
     *
     * @param segments        the log's segments
     * @param end             the log's published end
     * @param watermarks      the log's start offset and high watermark
     * @param retired         the log's retired segments
     * @param rules           the retention rules
     * @param unlinks         schedules unlinks, or null (the owner then unlinks expired segments itself)
     * @param onUnlinkFailure told when a scheduled unlink fails (the owner takes the log offline)
     * @param producers       the producer state, whose snapshots below the new log start go with the segments
     */
    public Retention(final Segments segments, final LogEnd end, final Watermarks watermarks,
                     final RetiredSegments retired, final Rules rules, final UnlinkScheduler unlinks,
                     final java.util.function.Consumer<Throwable> onUnlinkFailure,
                     final ProducerStateManager producers) {
        this.segments = segments;
        this.end = end;
        this.watermarks = watermarks;
        this.retired = retired;
        this.rules = rules;
        this.unlinks = unlinks;
        this.onUnlinkFailure = onUnlinkFailure;
        this.producers = producers;
    }

    /**
     * Sets the rules the next retention check and the next retirement use (a topic's configuration changed).
     *
     * @param rules the new retention rules
     */
    public void reconfigure(final Rules rules) {
        this.rules = java.util.Objects.requireNonNull(rules, "rules");
    }

    /**
     * Retires the segments {@link #takeExpired} took out: renamed {@code .deleted} now (so a reader holding one
     * keeps reading), unlinked after the delete delay. Runs outside the append lock.
     *
     * @param removed the segments, oldest first
     * @param nowMs   the time
     * @throws LogWriteException if a rename fails; the log must go offline
     */
    public void retire(final LogSegment[] removed, final long nowMs) throws LogWriteException {
        for (final LogSegment segment : removed) {
            try {
                retired.retire(segment, nowMs + rules.deleteDelayMs());
            } catch (final IOException | RuntimeException e) {
                throw new LogWriteException("rename of " + segment.logFile() + " to " + RetiredSegments.DELETED_SUFFIX
                    + " failed", e);
            }
            if (unlinks != null) {
                unlinks.schedule("delete-segment " + segment.logFile().getFileName(), () -> unlink(segment));
            }
        }
    }

    private void unlink(final LogSegment segment) {
        Throwable failure;
        try {
            failure = retired.unlink(segment);
        } catch (final IOException e) {
            failure = e;
        }
        if (failure != null) {
            onUnlinkFailure.accept(failure);
        }
    }

    /**
     * Takes the segments the rules select out of the log.
     *
     * @param nowMs          the time
     * @param logStartOnly   apply only the log-start rule (DeleteRecords)
     * @return the segments taken out, oldest first (empty when none), for the caller to retire
     * @throws LogWriteException if rolling a new active segment fails; the log must go offline
     */
    public LogSegment[] takeExpired(final long nowMs, final boolean logStartOnly) throws LogWriteException {
        final LogSegment[] segs = segments.array();
        final long endOffset = end.offset();
        final int n = select(segs, endOffset, watermarks.highWatermark(endOffset), watermarks.logStartOffset(),
            nowMs, logStartOnly || !rules.byTimeAndSize());
        if (n == 0) {
            return new LogSegment[0];
        }
        try {
            if (n == segs.length) {
                try {
                    final LogSegment created = segments.roll(endOffset, nowMs);
                    end.publish(endOffset, created, 0);
                    producers.takeSnapshot(); // as at any roll: the state outlives the segments
                } catch (final IOException | RuntimeException e) {
                    throw new LogWriteException("roll before deleting every segment failed", e);
                }
            }
            final long newStart = segments.array()[n].baseOffset();
            watermarks.raiseLogStartOffset(newStart);
            // Kafka deletes the snapshots of deleted segments: those below the new log start.
            producers.deleteSnapshotsBefore(watermarks.logStartOffset());
            return segments.removeOldest(n);
        } catch (final IOException e) {
            throw new LogWriteException("deleting producer snapshots below the log start failed", e);
        }
    }

    private int select(final LogSegment[] segs, final long endOffset, final long hw, final long logStart,
                       final long nowMs, final boolean logStartOnly) {
        long excessBytes = Long.MIN_VALUE;
        if (!logStartOnly && rules.retentionBytes() >= 0) {
            long total = 0;
            for (final LogSegment s : segs) {
                total += s.sizeInBytes();
            }
            excessBytes = total - rules.retentionBytes();
        }
        int n = 0;
        for (; n < segs.length; n++) {
            final LogSegment seg = segs[n];
            final boolean last = n == segs.length - 1;
            final long upper = last ? endOffset : segs[n + 1].baseOffset();
            if (last && seg.sizeInBytes() == 0) {
                break; // the empty active segment always stays
            }
            if (upper > hw) {
                break; // never delete a segment at or above the high watermark
            }
            final boolean byStart = upper <= logStart;
            final boolean bySize = excessBytes != Long.MIN_VALUE && excessBytes - seg.sizeInBytes() >= 0;
            final boolean byTime = !logStartOnly && rules.retentionMs() >= 0
                && nowMs - largestTimestampMs(seg) > rules.retentionMs();
            if (!byStart && !bySize && !byTime) {
                break;
            }
            if (excessBytes != Long.MIN_VALUE) {
                excessBytes -= seg.sizeInBytes();
            }
        }
        return n;
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
