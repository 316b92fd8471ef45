package io.seglog.storage;

import io.seglog.storage.segment.LogSegment;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The read path of a {@link PartitionLog}: {@link PartitionLog#read(long, int, long, boolean, LogSlice)} and
 * {@link PartitionLog#offsetForTimestamp(long, long, LogSlice)}, whose contracts are documented there, and the
 * read side of the log end's sequence lock. Split out of PartitionLog to keep files to one concern.
 *
 * <p>Threads: stateless; any number of readers at once, without locks. Per-reader state lives in the caller's
 * {@link LogSlice}.
 */
final class ReadPath {
    private final PartitionLog log;

    ReadPath(final PartitionLog log) {
        this.log = log;
    }

    LogSlice read(final long startOffset, final int maxBytes, final long maxOffsetExclusive,
                  final boolean minOneBatch, final LogSlice into) {
        if (maxBytes < 0) {
            throw new IllegalArgumentException("maxBytes=" + maxBytes + " must be >= 0");
        }
        log.ensureReadable();
        final int truncationsAtStart = log.truncations;
        final EndSnapshot end = snapshotEnd(into.end);
        final long endOff = end.offset;
        final LogSegment endSeg = end.segment;
        final int endPos = end.position;
        final long startOff = log.logStartOffset;
        if (startOffset < startOff || startOffset > endOff) {
            throw new OffsetOutOfRangeException(log.dir.toString(), startOffset, startOff, endOff);
        }
        final long bound = Math.min(maxOffsetExclusive, endOff);
        if (startOffset >= bound) {
            into.setEmpty(startOffset);
            return into;
        }
        final LogSegment[] segs = log.segments;
        try {
            // The upper bound as a (segment, position): every batch before it lies wholly below the bound.
            final LogSegment boundSeg;
            final int boundPos;
            if (bound == endOff) {
                boundSeg = endSeg;
                boundPos = endPos;
            } else {
                boundSeg = segs[PartitionLog.floorIndex(segs, bound)];
                // A truncation may have shrunk the segment since the snapshot: its size is lowered first.
                final int limit = boundSeg == endSeg ? Math.min(endPos, boundSeg.sizeInBytes())
                    : boundSeg.sizeInBytes();
                boundPos = boundSeg.batchStartAtOrAfter(bound, limit, into.scratch);
            }
            for (int i = PartitionLog.floorIndex(segs, startOffset); i < segs.length; i++) {
                final LogSegment segment = segs[i];
                if (segment.baseOffset() > boundSeg.baseOffset()) {
                    break;
                }
                final int maxPosition = segment == boundSeg ? boundPos : segment.sizeInBytes();
                final long found = segment.translateOffset(startOffset, maxPosition, into.scratch);
                if (found < 0) {
                    continue; // startOffset is past this segment's last batch (a gap): try the next one
                }
                final int position = (int) (found >>> 32);
                final int firstSize = (int) found;
                final long firstOffset = LogSegment.scannedBaseOffset(into.scratch);
                final int available = maxPosition - position;
                final int length;
                if (available <= maxBytes) {
                    length = available;
                } else if (firstSize > maxBytes) {
                    length = minOneBatch ? firstSize : 0;
                } else {
                    length = segment.lastBatchEndWithin(position, position + maxBytes, into.scratch) - position;
                }
                if (length == 0) {
                    into.setEmpty(startOffset);
                } else {
                    into.set(segment, position, length, startOffset, firstOffset);
                }
                return into;
            }
        } catch (final IOException | StorageException e) {
            if (log.truncations != truncationsAtStart && !log.closed) {
                // The snapshot predates a truncation whose shrink this read ran into: read again from a fresh one.
                return read(startOffset, maxBytes, maxOffsetExclusive, minOneBatch, into);
            }
            throw e instanceof IOException ? log.readFailure((IOException) e) : (StorageException) e;
        }
        into.setEmpty(startOffset);
        return into;
    }

    long offsetForTimestamp(final long timestampMs, final long maxOffsetExclusive, final LogSlice scratch) {
        if (timestampMs < 0 && timestampMs != PartitionLog.LATEST_TIMESTAMP && timestampMs != PartitionLog.EARLIEST_TIMESTAMP) {
            throw new IllegalArgumentException("timestampMs=" + timestampMs + " must be >= 0, or "
                + PartitionLog.LATEST_TIMESTAMP + " (latest) or " + PartitionLog.EARLIEST_TIMESTAMP + " (earliest)");
        }
        log.ensureReadable();
        final int truncationsAtStart = log.truncations;
        final EndSnapshot end = snapshotEnd(scratch.end);
        final long endOff = end.offset;
        final LogSegment endSeg = end.segment;
        final int endPos = end.position;
        final long startOff = log.logStartOffset;
        final long bound = Math.max(startOff, Math.min(maxOffsetExclusive, endOff));
        if (timestampMs == PartitionLog.LATEST_TIMESTAMP) {
            return bound;
        }
        if (timestampMs == PartitionLog.EARLIEST_TIMESTAMP) {
            return startOff;
        }
        final ByteBuffer buffer = scratch.searchScratch();
        try {
            for (final LogSegment segment : log.segments) {
                if (segment.baseOffset() > endSeg.baseOffset() || segment.baseOffset() >= bound) {
                    break;
                }
                if (segment.maxTimestampSoFar() < timestampMs) {
                    continue; // Kafka's rule: skip log.segments whose largest timestamp is below the target
                }
                final int maxPosition = segment == endSeg ? endPos : segment.sizeInBytes();
                final long found = segment.findOffsetByTimestamp(timestampMs, startOff, maxPosition, buffer);
                if (found >= 0) {
                    // The earliest qualifying offset: if it lies at or above the bound, nothing below it qualifies.
                    return found < bound ? found : -1;
                }
            }
        } catch (final IOException | StorageException e) {
            if (log.truncations != truncationsAtStart && !log.closed) {
                // ran into a truncation's shrink: search again from a fresh snapshot
                return offsetForTimestamp(timestampMs, maxOffsetExclusive, scratch);
            }
            throw e instanceof IOException ? log.readFailure((IOException) e) : (StorageException) e;
        }
        return -1;
    }

    /**
     * Takes a consistent snapshot of the published end (offset, segment, position) into {@code into}: the
     * sequence lock's read side, shared by every reader. Spins only while an append is publishing.
     */
    private EndSnapshot snapshotEnd(final EndSnapshot into) {
        int seq;
        do {
            seq = log.endSeq;
            if ((seq & 1) != 0) {
                Thread.onSpinWait();
                continue;
            }
            into.offset = log.endOffset;
            into.segment = log.endSegment;
            into.position = log.endPosition;
        } while ((seq & 1) != 0 || seq != log.endSeq);
        return into;
    }

    /** A reader's snapshot of the published end; one per {@link LogSlice}, so taking it allocates nothing. */
    static final class EndSnapshot {
        long offset;
        LogSegment segment;
        int position;
    }
}
