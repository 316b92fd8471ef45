package io.seglog.storage.segment;

import static io.seglog.storage.format.RecordBatchDescriptor.ATTRIBUTES_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.BASE_OFFSET_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.BASE_TIMESTAMP_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.BATCH_HEADER_LENGTH;
import static io.seglog.storage.format.RecordBatchDescriptor.COMPRESSION_CODEC_MASK;
import static io.seglog.storage.format.RecordBatchDescriptor.MAX_TIMESTAMP_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.RECORDS_COUNT_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.RECORDS_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.TIMESTAMP_TYPE_MASK;

import io.seglog.storage.format.BatchRecordReader;
import io.seglog.storage.format.InvalidRecordException;
import io.seglog.storage.format.RecordBatch;
import io.seglog.storage.format.RecordBatchValidator;
import io.seglog.storage.format.RecordView;
import io.seglog.storage.mapping.SharedMapping;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The record walk of a timestamp search, bounded: a batch on disk is read in chunks of the caller's scratch
 * buffer, never into a buffer sized from its on-disk length (which only the segment size bounds), and only the
 * first bytes of each record are parsed (length, attributes, timestamp delta, offset delta; at most
 * {@link #RECORD_PREFIX_MAX_BYTES}). Nothing is allocated; every length read from disk is checked against the
 * batch before it is used, and a record that does not fit is reported as a {@link CorruptSegmentException} naming the
 * file and position.
 *
 * <p>Stateless; thread-safe as long as each thread passes its own scratch buffer.
 */
final class TimestampScan {
    /** Length varint (5) + attributes (1) + timestampDelta varlong (10) + offsetDelta varint (5). */
    static final int RECORD_PREFIX_MAX_BYTES = 5 + 1 + 10 + 5;

    private TimestampScan() {
    }

    /**
     * The first record of the batch at {@code batchPosition} with offset at least {@code startingOffset} and
     * timestamp at least {@code timestampMs} (a log-append-time batch gives every record its max timestamp).
     *
     * @param channel        the data file, read with positional reads where {@code mapped} does not cover a chunk
     * @param mapped         the segment's read mapping, acquired by the caller, or null
     * @param logFile        its path, for errors
     * @param scratch        a heap buffer of at least a batch header's bytes, confined to the calling thread;
     *                       its capacity is the chunk size
     * @param batchPosition  where the batch starts
     * @param batchSize      its size, already checked against the published size
     * @param timestampMs    the target timestamp
     * @param startingOffset the first offset that may be returned
     * @return the offset, or -1 when no record of the batch qualifies
     * @throws IOException if a read fails
     * @throws CorruptSegmentException if a record does not fit its batch or the file ends early
     * @throws io.seglog.storage.format.CodecUnavailableException if the batch's codec is not on the class path
     */
    static long firstRecordAtOrAfter(final FileChannel channel, final SharedMapping mapped, final Path logFile,
                                     final ByteBuffer scratch,
                                     final int batchPosition, final int batchSize, final long timestampMs,
                                     final long startingOffset) throws IOException {
        readFully(channel, mapped, logFile, scratch, batchPosition, BATCH_HEADER_LENGTH);
        final int attributes = scratch.getShort(ATTRIBUTES_OFFSET);
        if ((attributes & COMPRESSION_CODEC_MASK) != 0) {
            return firstCompressedRecordAtOrAfter(channel, mapped, logFile, batchPosition, batchSize, timestampMs,
                startingOffset);
        }
        final boolean logAppendTime = (attributes & TIMESTAMP_TYPE_MASK) != 0;
        final long baseOffset = scratch.getLong(BASE_OFFSET_OFFSET);
        final long baseTimestamp = scratch.getLong(BASE_TIMESTAMP_OFFSET);
        final long maxTimestamp = scratch.getLong(MAX_TIMESTAMP_OFFSET);
        final int count = scratch.getInt(RECORDS_COUNT_OFFSET);
        final byte[] bytes = scratch.array();
        final int base = scratch.arrayOffset();
        final int end = batchPosition + batchSize;
        int chunkStart = 0;
        int chunkEnd = 0; // file positions [chunkStart, chunkEnd) are in scratch; empty: nothing yet
        int position = batchPosition + RECORDS_OFFSET;
        for (int i = 0; i < count; i++) {
            if (position >= end) {
                throw corrupt(logFile, position, "record " + i + " of recordsCount=" + count + " starts at the batch"
                    + " end=" + end);
            }
            final int needed = Math.min(RECORD_PREFIX_MAX_BYTES, end - position);
            if (position < chunkStart || position + needed > chunkEnd) {
                final int chunk = Math.min(scratch.capacity(), end - position);
                readFully(channel, mapped, logFile, scratch, position, chunk);
                chunkStart = position;
                chunkEnd = position + chunk;
            }
            // Parse the prefix; each varint is bounded by the bytes of the batch held in the chunk.
            int at = base + position - chunkStart;
            final int limit = base + chunkEnd - chunkStart;
            final int lengthSize = varintSize(bytes, at, limit, logFile, position);
            final long recordLength = zigZag(varintValue(bytes, at, lengthSize));
            if (recordLength < 0 || recordLength > end - position - lengthSize) {
                throw corrupt(logFile, position, "recordLength=" + recordLength + " does not fit the "
                    + (end - position - lengthSize) + " bytes left in the batch ending at " + end);
            }
            at += lengthSize + 1; // the length, then the attributes byte
            final int timestampSize = varintSize(bytes, at, limit, logFile, position);
            final long timestampDelta = zigZag(varintValue(bytes, at, timestampSize));
            at += timestampSize;
            final long offsetDelta = zigZag(varintValue(bytes, at, varintSize(bytes, at, limit, logFile, position)));
            final long offset = baseOffset + offsetDelta;
            final long timestamp = logAppendTime ? maxTimestamp : baseTimestamp + timestampDelta;
            if (offset >= startingOffset && timestamp >= timestampMs) {
                return offset;
            }
            position += lengthSize + (int) recordLength;
        }
        return -1;
    }

    /**
     * The compressed case: the batch is read whole and its records decompressed, as Kafka's
     * {@code LogSegment.findOffsetByTimestamp} iterates them. Allocates the batch's bytes and a reader per call
     * (a timestamp lookup that lands in a compressed batch is rare next to appends and fetches); the batch size is
     * already bounded by the file and is refused above {@link RecordBatchValidator#DEFAULT_MAX_DECOMPRESSED_BYTES},
     * as is its decompressed size.
     */
    private static long firstCompressedRecordAtOrAfter(final FileChannel channel, final SharedMapping mapped,
                                                       final Path logFile, final int batchPosition,
                                                       final int batchSize, final long timestampMs,
                                                       final long startingOffset) throws IOException {
        if (batchSize > RecordBatchValidator.DEFAULT_MAX_DECOMPRESSED_BYTES) {
            throw corrupt(logFile, batchPosition, "a compressed batch of " + batchSize + " bytes is larger than a"
                + " timestamp search reads (" + RecordBatchValidator.DEFAULT_MAX_DECOMPRESSED_BYTES + ")");
        }
        final ByteBuffer bytes = ByteBuffer.allocate(batchSize);
        readFully(channel, mapped, logFile, bytes, batchPosition, batchSize);
        final RecordBatch batch = new RecordBatch().wrap(new UnsafeBuffer(bytes.array(), 0, batchSize), 0);
        final RecordView record = new RecordView();
        try (BatchRecordReader reader = new BatchRecordReader(RecordBatchValidator.DEFAULT_MAX_DECOMPRESSED_BYTES)) {
            reader.open(batch);
            while (reader.next(record)) {
                if (record.offset() >= startingOffset && record.timestamp() >= timestampMs) {
                    return record.offset();
                }
            }
            return -1;
        } catch (final InvalidRecordException e) {
            throw corrupt(logFile, batchPosition, "the " + RecordBatch.codecName(batch.compressionCodec())
                + " batch's records cannot be read: " + e.getMessage());
        }
    }

    /** The size (1 to 10) of the unsigned LEB128 varint at {@code at}, which must end below {@code limit}. */
    private static int varintSize(final byte[] bytes, final int at, final int limit, final Path logFile,
                                  final int recordPosition) throws CorruptSegmentException {
        for (int i = 0; i < 10; i++) {
            if (at + i >= limit) {
                throw corrupt(logFile, recordPosition, "a varint of the record runs past the batch");
            }
            if (bytes[at + i] >= 0) {
                return i + 1;
            }
        }
        throw corrupt(logFile, recordPosition, "a varint of the record is longer than 10 bytes");
    }

    private static long varintValue(final byte[] bytes, final int at, final int size) {
        long value = 0;
        for (int i = 0; i < size; i++) {
            value |= (long) (bytes[at + i] & 0x7f) << (7 * i);
        }
        return value;
    }

    private static long zigZag(final long encoded) {
        return (encoded >>> 1) ^ -(encoded & 1);
    }

    private static void readFully(final FileChannel channel, final SharedMapping mapped, final Path logFile,
                                  final ByteBuffer target, final int position, final int size) throws IOException {
        if (mapped != null && mapped.covers(position, size)) {
            mapped.copyTo(position, target, size); // target is a heap buffer (checked by the caller)
            return;
        }
        target.clear().limit(size);
        int read = 0;
        while (read < size) {
            final int n = channel.read(target, position + (long) read);
            if (n < 0) {
                throw new CorruptSegmentException("data file ended at position=" + (position + read) + " inside a batch", logFile);
            }
            read += n;
        }
    }

    private static CorruptSegmentException corrupt(final Path logFile, final int position, final String what) {
        return new CorruptSegmentException("corrupt record at position=" + position + ": " + what, logFile);
    }
}
