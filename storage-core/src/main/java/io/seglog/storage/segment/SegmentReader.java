package io.seglog.storage.segment;

import static io.seglog.storage.format.RecordBatchDescriptor.BASE_OFFSET_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.BATCH_HEADER_LENGTH;
import static io.seglog.storage.format.RecordBatchDescriptor.LAST_OFFSET_DELTA_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.LENGTH_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.LOG_OVERHEAD;
import static io.seglog.storage.format.RecordBatchDescriptor.MAX_TIMESTAMP_OFFSET;

import io.seglog.storage.StorageException;
import io.seglog.storage.index.OffsetIndex;
import io.seglog.storage.index.TimeIndex;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;

/**
 * The read side of a {@link LogSegment}: batch-header scans bounded by a published size, offset translation,
 * the last whole batch below a byte limit, Kafka's timestamp search and the next offset. Every length read from
 * disk is checked against the limit before it is used. Split out of LogSegment to keep files to one concern;
 * the contracts are documented on LogSegment's methods of the same names.
 *
 * <p>Thread-safety: stateless apart from the segment's files and indexes; any number of concurrent readers,
 * positional reads only, each with its own scratch buffer.
 */
final class SegmentReader {
    private final Path logFile;
    private final long baseOffset;
    private final FileChannel channel;
    private final OffsetIndex offsetIndex;
    private final TimeIndex timeIndex;

    SegmentReader(final Path logFile, final long baseOffset, final FileChannel channel, final OffsetIndex offsetIndex,
                  final TimeIndex timeIndex) {
        this.logFile = logFile;
        this.baseOffset = baseOffset;
        this.channel = channel;
        this.offsetIndex = offsetIndex;
        this.timeIndex = timeIndex;
    }

    /**
     * Reads the header of the batch at {@code position} into {@code scratch} and checks its length against
     * {@code limit}: a length read from disk is never trusted.
     *
     * @return the batch size
     */
    int readHeader(final ByteBuffer scratch, final int position, final int limit, final int bytes)
        throws IOException {
        if (limit - position < BATCH_HEADER_LENGTH) {
            throw new StorageException("partial batch header at position=" + position + ": only "
                + (limit - position) + " bytes before the end=" + limit + " (crash recovery needed)", logFile, null);
        }
        scratch.clear().limit(bytes);
        int read = 0;
        while (read < bytes) {
            final int n = channel.read(scratch, position + (long) read);
            if (n < 0) {
                throw new StorageException("data file ended at position=" + (position + read)
                    + " before the published size=" + limit, logFile, null);
            }
            read += n;
        }
        final int batchLength = scratch.getInt(LENGTH_OFFSET);
        if (batchLength < BATCH_HEADER_LENGTH - LOG_OVERHEAD || batchLength > limit - position - LOG_OVERHEAD) {
            throw new StorageException("batchLength=" + batchLength + " at position=" + position
                + " does not fit between the header size " + (BATCH_HEADER_LENGTH - LOG_OVERHEAD) + " and the "
                + (limit - position - LOG_OVERHEAD) + " bytes left before end=" + limit, logFile, null);
        }
        return batchLength + LOG_OVERHEAD;
    }

    long translateOffset(final long offset, final int maxPosition, final ByteBuffer scratch)
        throws IOException {
        int position = offset < baseOffset ? 0 : offsetIndex.lookupPosition(offset);
        while (position < maxPosition) {
            final int size = readHeader(scratch, position, maxPosition, LogSegment.OFFSET_HEADER_BYTES);
            final long lastOffset = scratch.getLong(BASE_OFFSET_OFFSET) + scratch.getInt(LAST_OFFSET_DELTA_OFFSET);
            if (lastOffset >= offset) {
                return ((long) position << 32) | size;
            }
            position += size;
        }
        return -1;
    }

    int lastBatchEndWithin(final int fromPosition, final int limitPosition, final ByteBuffer scratch)
        throws IOException {
        // One lookup that reads the index's count once (a truncation cannot move it under the search) and tries
        // the warm tail first; an entry below fromPosition is no help, the scan starts at a batch boundary anyway.
        int position = Math.max(fromPosition, offsetIndex.lookupPositionAtMost(limitPosition));
        while (limitPosition - position >= BATCH_HEADER_LENGTH) {
            scratch.clear().limit(LOG_OVERHEAD);
            int read = 0;
            while (read < LOG_OVERHEAD) {
                final int n = channel.read(scratch, position + (long) read);
                if (n < 0) {
                    throw new StorageException("data file ended at position=" + (position + read)
                        + " below the published limit=" + limitPosition, logFile, null);
                }
                read += n;
            }
            final int batchLength = scratch.getInt(LENGTH_OFFSET);
            if (batchLength < BATCH_HEADER_LENGTH - LOG_OVERHEAD) {
                throw new StorageException("batchLength=" + batchLength + " at position=" + position
                    + " is below the header size " + (BATCH_HEADER_LENGTH - LOG_OVERHEAD), logFile, null);
            }
            if (batchLength > limitPosition - position - LOG_OVERHEAD) {
                break;
            }
            position += batchLength + LOG_OVERHEAD;
        }
        return position;
    }

    long findOffsetByTimestamp(final long timestampMs, final long startingOffset, final int maxPosition,
                               final ByteBuffer scratch) throws IOException {
        if (!scratch.hasArray() || scratch.capacity() < TimestampScan.MIN_SCRATCH_BYTES) {
            throw new IllegalArgumentException("scratch must be a heap buffer of at least "
                + TimestampScan.MIN_SCRATCH_BYTES + " bytes: " + scratch);
        }
        final long indexedOffset = timeIndex.lookupOffset(timestampMs);
        int position = offsetIndex.lookupPosition(Math.max(indexedOffset, startingOffset));
        while (position < maxPosition) {
            final int size = readHeader(scratch, position, maxPosition, LogSegment.TIMESTAMP_HEADER_BYTES);
            final long lastOffset = scratch.getLong(BASE_OFFSET_OFFSET) + scratch.getInt(LAST_OFFSET_DELTA_OFFSET);
            if (lastOffset >= startingOffset && scratch.getLong(MAX_TIMESTAMP_OFFSET) >= timestampMs) {
                final long found = TimestampScan.firstRecordAtOrAfter(channel, logFile, scratch, position, size,
                    timestampMs, startingOffset);
                if (found >= 0) {
                    return found;
                }
            }
            position += size;
        }
        return -1;
    }

    long readNextOffset(final int publishedSize, final ByteBuffer scratch) throws IOException {
        final int size = publishedSize;
        int position = offsetIndex.entries() == 0 ? 0 : offsetIndex.lookupPosition(offsetIndex.lastOffset());
        long next = baseOffset;
        while (position < size) {
            final int batchSize = readHeader(scratch, position, size, LogSegment.OFFSET_HEADER_BYTES);
            next = scratch.getLong(BASE_OFFSET_OFFSET) + scratch.getInt(LAST_OFFSET_DELTA_OFFSET) + 1;
            position += batchSize;
        }
        return next;
    }
}
