package io.seglog.storage;

import io.seglog.storage.segment.LogSegment;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Truncation of a {@link PartitionLog}: {@link PartitionLog#truncateTo} within the log and
 * {@link PartitionLog#truncateFullyAndStartAt}, whose contracts are documented there (publish the new end
 * first, then shrink; lower the flushed offset, high watermark and recovery point). Split out of PartitionLog
 * to keep files to one concern.
 *
 * <p>Threads: the appender's; {@link #truncateWithinLog} runs under the append lock and the flush lock, which
 * {@link #truncateFullyAndStartAt} takes.
 */
final class Truncation {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionLog.class);

    private final PartitionLog log;

    Truncation(final PartitionLog log) {
        this.log = log;
    }

    long truncateWithinLog(final long offset) {
        final LogSegment[] segs = log.segments;
        final int keep = PartitionLog.floorIndex(segs, offset);
        final LogSegment segment = segs[keep];
        final ByteBuffer scratch = ByteBuffer.allocate(LogSlice.SCRATCH_BYTES);
        try {
            final long found = segment.truncationPoint(offset, scratch);
            final int position = found < 0 ? segment.sizeInBytes() : (int) (found >>> 32);
            final long newEnd = found < 0 ? offset : Math.min(offset, LogSegment.scannedBaseOffset(scratch));
            // Publish first: no reader that starts from now on looks past the new end.
            log.truncations++;
            log.publishEnd(newEnd, segment, position);
            // Again after the publication: a reader that read the first count may still have taken the old end;
            // this second change tells it to retry when it runs into the shrink.
            log.truncations++;
            if (keep + 1 < segs.length) {
                log.segments = Arrays.copyOf(segs, keep + 1);
                for (int i = segs.length - 1; i > keep; i--) {
                    segs[i].closeAndDelete(log.io);
                }
                log.io.fsyncDirectory(log.dir);
            }
            final int dropped = segment.truncateTo(newEnd, log.config.segmentIndexBytes(), scratch);
            log.appends.forgetConfirmedEpoch();
            log.epochs.truncateFromEnd(newEnd);
            log.epochs.flush();
            final boolean lowered = log.flushedOffset > newEnd;
            log.flushedOffset = Math.min(log.flushedOffset, newEnd);
            log.flushedSegmentBase = Math.min(log.flushedSegmentBase, segment.baseOffset());
            log.highWatermark = Math.min(log.highWatermark, newEnd);
            log.groupCommit.onTruncated(newEnd);
            if (lowered) {
                log.managerHooks.persistLoweredRecoveryPoint();
            }
            LOG.info("Truncated {} to offset {}: {} bytes of {} and {} later segments removed", log.dir, newEnd,
                dropped, segment.logFile().getFileName(), segs.length - keep - 1);
            return newEnd;
        } catch (final IOException | RuntimeException e) {
            throw log.goOffline("truncation to offset=" + offset + " failed", e);
        }
    }

    void truncateFullyAndStartAt(final long offset) {
        log.appendLock.lock();
        try {
            log.ensureWritable();
            synchronized (log.flushLock) {
                final LogSegment[] old = log.segments;
                log.truncations++;
                try {
                    // A segment with the same base must go first: the new one takes its file names.
                    for (final LogSegment segment : old) {
                        if (segment.baseOffset() == offset) {
                            segment.closeAndDelete(log.io);
                        }
                    }
                    final LogSegment created = LogSegment.create(log.io, log.dir, offset, log.config,
                        log.time.millis(), PartitionLog.jitter(log.config, log.jitterRandom));
                    log.io.fsyncDirectory(log.dir);
                    log.segments = new LogSegment[] {created};
                    log.logStartOffset = offset;
                    log.publishEnd(offset, created, 0);
                    log.truncations++; // see truncateWithinLog: readers that took the old end must retry
                    for (int i = old.length - 1; i >= 0; i--) {
                        if (old[i].baseOffset() != offset) {
                            old[i].closeAndDelete(log.io);
                        }
                    }
                    log.io.fsyncDirectory(log.dir);
                    log.appends.forgetConfirmedEpoch();
                    log.epochs.clearAndFlush();
                    final boolean lowered = log.flushedOffset > offset;
                    log.flushedOffset = offset;
                    log.flushedSegmentBase = offset;
                    log.highWatermark = offset;
                    log.groupCommit.onTruncated(offset);
                    if (lowered) {
                        log.managerHooks.persistLoweredRecoveryPoint();
                    }
                } catch (final IOException | RuntimeException e) {
                    throw log.goOffline("truncateFullyAndStartAt(" + offset + ") failed", e);
                }
            }
            LOG.info("Truncated {} fully; the log restarts at offset {}", log.dir, offset);
        } finally {
            log.appendLock.unlock();
        }
    }
}
