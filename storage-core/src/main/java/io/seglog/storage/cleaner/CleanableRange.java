package io.seglog.storage.cleaner;

import static io.seglog.storage.format.RecordBatchDescriptor.MAX_TIMESTAMP_LENGTH;
import static io.seglog.storage.format.RecordBatchDescriptor.MAX_TIMESTAMP_OFFSET;

import io.seglog.storage.segment.LogSegment;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A log and the section of it a cleaning round may take (Kafka's {@code LogToClean} with
 * {@code LogCleanerManager.cleanableOffsets} and {@code calculateCleanableBytes}): from the first dirty offset
 * (the checkpoint, reset to the log start when it lies outside the log) to the first uncleanable offset, the
 * smallest of the high watermark, the active segment's base and the base of the first dirty segment whose largest
 * timestamp is within {@code min.compaction.lag.ms}. Immutable.
 *
 * @param log                    the log
 * @param firstDirtyOffset       where the dirty section starts
 * @param firstUncleanableOffset where the cleanable section ends (exclusive), a segment base
 * @param cleanBytes             bytes of the segments below the first dirty offset
 * @param cleanableBytes         bytes of the segments in the cleanable section
 * @param needsCompactionNow     whether a dirty segment is older than {@code max.compaction.lag.ms}
 * @param checkpointWasInvalid   whether the checkpointed offset was reset (it is rewritten)
 */
record CleanableRange(CleanableLog log, long firstDirtyOffset, long firstUncleanableOffset, long cleanBytes,
                      long cleanableBytes, boolean needsCompactionNow, boolean checkpointWasInvalid) {

    /**
     * Computes the range of {@code log}.
     *
     * @param log             the log
     * @param checkpointed    the checkpointed first dirty offset, or -1 when there is none
     * @param nowMs           the time
     * @return the range
     * @throws IOException if a segment's first batch cannot be read (for {@code max.compaction.lag.ms})
     */
    static CleanableRange of(final CleanableLog log, final long checkpointed, final long nowMs) throws IOException {
        final LogSegment[] segments = log.segments();
        final long logStart = log.logStartOffset();
        long firstDirty = checkpointed < 0 ? logStart : checkpointed;
        boolean invalid = false;
        if (firstDirty < logStart || firstDirty > log.logEndOffset()) {
            invalid = checkpointed >= 0;
            firstDirty = logStart;
        }
        final CompactionSettings config = log.compaction();
        final long minLagMs = Math.max(config.minCompactionLagMs(), 0);
        long uncleanable = Math.min(log.lastStableOffset(), segments[segments.length - 1].baseOffset());
        final int firstDirtySegment = floorIndex(segments, firstDirty);
        if (minLagMs > 0) {
            for (int i = firstDirtySegment; i < segments.length - 1; i++) {
                if (segments[i].maxTimestampSoFar() > nowMs - minLagMs) {
                    uncleanable = Math.min(uncleanable, segments[i].baseOffset());
                    break;
                }
            }
        }
        uncleanable = Math.max(firstDirty, uncleanable);
        // Kafka rounds the bound down to the base of the segment holding it (never the active one's tail).
        final int uncleanableSegment = floorIndex(segments, uncleanable);
        final long firstUncleanable = segments[uncleanableSegment].baseOffset();
        long clean = 0;
        long cleanable = 0;
        for (final LogSegment segment : segments) {
            if (segment.baseOffset() < firstDirty) { // Kafka's logSegments(-1, firstDirty): the one holding it too
                clean += segment.sizeInBytes();
            }
        }
        final long from = Math.min(firstDirty, firstUncleanable);
        for (int i = floorIndex(segments, from); i < segments.length && segments[i].baseOffset() < firstUncleanable;
             i++) {
            cleanable += segments[i].sizeInBytes();
        }
        final boolean urgent = config.maxCompactionLagMs() < Long.MAX_VALUE
            && needsCompactionNow(segments, firstDirtySegment, nowMs - Math.max(config.maxCompactionLagMs(), 0));
        return new CleanableRange(log, firstDirty, Math.max(firstDirty, firstUncleanable), clean, cleanable, urgent,
            invalid);
    }

    /**
     * Kafka's dirty ratio: cleanable bytes over all bytes up to the first uncleanable offset.
     *
     * @return a fraction in [0, 1]
     */
    double cleanableRatio() {
        final long total = cleanBytes + cleanableBytes;
        return total == 0 ? 0 : (double) cleanableBytes / total;
    }

    /**
     * Bytes of the clean and cleanable sections.
     *
     * @return bytes
     */
    long totalBytes() {
        return cleanBytes + cleanableBytes;
    }

    /** Kafka's {@code maxCompactionDelay > 0}: a dirty segment's first batch is older than the bound. */
    private static boolean needsCompactionNow(final LogSegment[] segments, final int from, final long cleanUntilMs)
        throws IOException {
        final ByteBuffer header = ByteBuffer.allocate(MAX_TIMESTAMP_OFFSET + MAX_TIMESTAMP_LENGTH);
        for (int i = from; i < segments.length - 1; i++) {
            if (segments[i].sizeInBytes() < header.capacity()) {
                continue;
            }
            header.clear();
            while (header.hasRemaining()) {
                if (segments[i].channel().read(header, header.position()) < 0) {
                    break;
                }
            }
            final long firstBatchTimestamp = header.getLong(MAX_TIMESTAMP_OFFSET);
            if (firstBatchTimestamp > 0 && firstBatchTimestamp < cleanUntilMs) {
                return true;
            }
        }
        return false;
    }

    private static int floorIndex(final LogSegment[] segments, final long offset) {
        return io.seglog.storage.log.Segments.floorIndex(segments, offset);
    }
}
