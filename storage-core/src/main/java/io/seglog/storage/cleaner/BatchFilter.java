package io.seglog.storage.cleaner;

import static io.seglog.storage.format.RecordBatchDescriptor.ATTRIBUTES_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.BASE_TIMESTAMP_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.BATCH_HEADER_LENGTH;
import static io.seglog.storage.format.RecordBatchDescriptor.COMPRESSION_CODEC_MASK;
import static io.seglog.storage.format.RecordBatchDescriptor.CRC_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.DELETE_HORIZON_FLAG_MASK;
import static io.seglog.storage.format.RecordBatchDescriptor.LENGTH_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.LOG_OVERHEAD;
import static io.seglog.storage.format.RecordBatchDescriptor.RECORDS_COUNT_OFFSET;

import io.seglog.storage.format.BatchRecordReader;
import io.seglog.storage.format.CompressionType;
import io.seglog.storage.format.RecordBatch;
import io.seglog.storage.format.RecordBatchBuilder;
import io.seglog.storage.format.RecordView;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.zip.CRC32C;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Decides what of one batch survives cleaning and writes it (Kafka's {@code MemoryRecords.filterTo} with the
 * cleaner's {@code RecordFilter}):
 * <ul>
 *   <li>a record survives if its offset is past the offset map's coverage, or it has a key whose last offset in
 *       the map is at most its own and it has a value, or it is a tombstone whose batch has no delete horizon yet
 *       or a horizon still in the future; a record without a key is dropped;</li>
 *   <li>the records of an aborted transaction's batches never survive (Kafka's cleaner discards them too);</li>
 *   <li>control batches (transaction markers) are kept whole (Kafka removes a marker once its transaction is
 *       cleaned away; Seglog keeps them, see docs/cleaner.md);</li>
 *   <li>a batch whose records all survive is copied whole, unless it holds a tombstone and no delete horizon yet;
 *       otherwise the survivors are rebuilt by {@link RecordBatchBuilder} with the batch's codec (compressed batches
 *       are read through {@link BatchRecordReader} and re-compressed with the same codec, as Kafka does), base
 *       offset, last offset delta, record offsets, producer id/epoch/base sequence, leader epoch, timestamp type
 *       and transactional flag; when it holds a tombstone and had no horizon, the horizon
 *       {@code now + delete.retention.ms} becomes its base timestamp with the delete-horizon attribute bit
 *       (Kafka 3.1+, KIP-534), else a horizon it had is kept;</li>
 *   <li>a batch left with no record is dropped, unless it must be kept empty (the last batch of a producer, of
 *       the cleaning round, or of an output segment): then a 61-byte header with its offsets, producer fields
 *       and max timestamp is written (Kafka's {@code writeEmptyHeader}).</li>
 * </ul>
 * A batch that is rebuilt has its CRC checked first, so cleaning never gives a damaged batch a fresh checksum.
 *
 * <p>A rebuilt batch's records are read twice (once to decide, once to copy; a compressed batch is decompressed
 * twice): Kafka keeps the survivors in a list of record objects instead, which this avoids. Nothing is allocated
 * per record; the per-record decisions go into a reused array. Not thread-safe.
 */
final class BatchFilter {
    /**
     * Most bytes a rebuilt record can grow by: its timestamp delta is re-based (up to 10 bytes for a varlong)
     * and its length varint may take one byte more.
     */
    private static final int MAX_RECORD_GROWTH = 11;
    /** Room for a codec's framing beyond the plain records: snappy's worst case is n + n / 6 + 32. */
    private static final int CODEC_SLACK_BYTES = 64;

    /** Where a filter writes: a buffer with at least the asked-for room from its position. */
    interface Output {
        /**
         * A buffer with at least {@code bytes} free from its position (the cleaner drains or grows its own).
         *
         * @param bytes the room needed
         * @return the buffer to write at its position
         * @throws IOException if draining the buffer fails
         */
        ByteBuffer room(int bytes) throws IOException;
    }

    private final BatchRecordReader reader;
    private final RecordView record = new RecordView();
    private final RecordBatchBuilder builder = new RecordBatchBuilder();
    private final UnsafeBuffer outView = new UnsafeBuffer(0, 0);
    private final CRC32C crc = new CRC32C();
    private boolean[] keep = new boolean[256];

    /** Counters for the cleaner's log line. */
    long recordsRead;
    long recordsKept;

    /**
     * Creates a filter reading records through {@code reader} (shared with the offset map's scan).
     *
     * @param reader decompresses compressed batches
     */
    BatchFilter(final BatchRecordReader reader) {
        this.reader = reader;
    }

    /**
     * Filters one batch into {@code output}.
     *
     * @param batch             the batch
     * @param map               the offset map of the round
     * @param nowMs             the time of the round
     * @param deleteRetentionMs {@code delete.retention.ms}
     * @param retainEmpty       whether the batch stays even when no record does
     * @param aborted           whether the batch belongs to an aborted transaction: none of its records stays
     * @param output            where to write
     * @return the bytes written (0 when the batch is dropped)
     * @throws IOException if the output cannot be drained
     * @throws UncleanableLogException for a rebuilt batch with a bad CRC
     * @throws io.seglog.storage.format.InvalidRecordException if the batch's records cannot be read
     */
    int filter(final RecordBatch batch, final OffsetMap map, final long nowMs, final long deleteRetentionMs,
               final boolean retainEmpty, final boolean aborted, final Output output) throws IOException {
        if (batch.isControl()) {
            return copyWhole(batch, output.room(batch.sizeInBytes()));
        }
        int read = 0;
        int kept = 0;
        boolean tombstones = false;
        reader.open(batch);
        while (reader.next(record)) {
            if (read == keep.length) {
                keep = Arrays.copyOf(keep, keep.length * 2);
            }
            final boolean retained = !aborted && retains(batch, map, nowMs);
            keep[read++] = retained;
            if (retained) {
                kept++;
                tombstones |= record.valueLength() < 0;
            }
        }
        recordsRead += read;
        recordsKept += kept;
        if (kept == 0) {
            return retainEmpty ? writeEmpty(batch, output.room(BATCH_HEADER_LENGTH)) : 0;
        }
        final boolean setHorizon = tombstones && !batch.hasDeleteHorizon();
        if (kept == read && !setHorizon) {
            return copyWhole(batch, output.room(batch.sizeInBytes()));
        }
        if (!batch.isCrcValid()) {
            throw new UncleanableLogException("batch at baseOffset=" + batch.baseOffset() + " has crc="
                + batch.crc() + " but its bytes give " + batch.computeCrc() + ": not rewritten");
        }
        final long horizonMs = setHorizon ? nowMs + deleteRetentionMs
            : batch.hasDeleteHorizon() ? batch.baseTimestamp() : -1;
        final long need = BATCH_HEADER_LENGTH + (long) reader.recordsBytes() + (long) kept * MAX_RECORD_GROWTH
            + (batch.isCompressed() ? reader.recordsBytes() / 6 + CODEC_SLACK_BYTES : 0);
        return rebuild(batch, horizonMs, output.room((int) Math.min(Integer.MAX_VALUE - 8, need)));
    }

    private boolean retains(final RecordBatch batch, final OffsetMap map, final long nowMs) {
        final long offset = record.offset();
        if (offset > map.latestOffset()) {
            return true;
        }
        if (record.keyLength() < 0) {
            return false;
        }
        final long last = map.get(reader.buffer(), record.keyOffset(), record.keyLength());
        if (offset < last) {
            return false;
        }
        return record.valueLength() >= 0 || !batch.hasDeleteHorizon() || nowMs < batch.baseTimestamp();
    }

    private static int copyWhole(final RecordBatch batch, final ByteBuffer out) {
        final int size = batch.sizeInBytes();
        final int at = out.position();
        batch.buffer().getBytes(batch.startIndex(), out, at, size);
        out.position(at + size);
        return size;
    }

    /** Kafka's {@code buildRetainedRecordsInto}; {@code horizonMs} -1 writes no delete horizon. */
    private int rebuild(final RecordBatch batch, final long horizonMs, final ByteBuffer out) {
        final int start = out.position();
        outView.wrap(out.array(), out.arrayOffset(), out.capacity());
        builder.wrap(outView, start, out.capacity() - start)
            .baseOffset(batch.baseOffset())
            .partitionLeaderEpoch(batch.partitionLeaderEpoch())
            .producer(batch.producerId(), batch.producerEpoch(), batch.baseSequence())
            .transactional(batch.isTransactional())
            .compression(CompressionType.forId(batch.compressionCodec()))
            .lastOffsetDelta(batch.lastOffsetDelta());
        if (batch.isLogAppendTime()) {
            builder.logAppendTime(batch.maxTimestamp());
        }
        if (horizonMs >= 0) {
            builder.deleteHorizon(horizonMs);
        }
        reader.open(batch);
        for (int i = 0; reader.next(record); i++) {
            if (keep[i]) {
                builder.appendCopy(record);
            }
        }
        final int size = builder.build();
        out.position(start + size);
        return size;
    }

    /** Kafka's {@code writeEmptyHeader}: no records, base and max timestamp = the batch's max timestamp. */
    private int writeEmpty(final RecordBatch batch, final ByteBuffer out) {
        final int start = out.position();
        batch.buffer().getBytes(batch.startIndex(), out, start, BATCH_HEADER_LENGTH);
        final ByteBuffer o = out.order(ByteOrder.BIG_ENDIAN);
        o.putInt(start + LENGTH_OFFSET, BATCH_HEADER_LENGTH - LOG_OVERHEAD);
        o.putShort(start + ATTRIBUTES_OFFSET,
            (short) (batch.attributes() & ~(COMPRESSION_CODEC_MASK | DELETE_HORIZON_FLAG_MASK)));
        o.putLong(start + BASE_TIMESTAMP_OFFSET, batch.maxTimestamp());
        o.putInt(start + RECORDS_COUNT_OFFSET, 0);
        crc.reset();
        crc.update(o.array(), o.arrayOffset() + start + ATTRIBUTES_OFFSET, BATCH_HEADER_LENGTH - ATTRIBUTES_OFFSET);
        o.putInt(start + CRC_OFFSET, (int) crc.getValue());
        o.position(start + BATCH_HEADER_LENGTH);
        return BATCH_HEADER_LENGTH;
    }

    /** Releases the builder's codec state (the reader is the cleaner's to close). */
    void close() {
        builder.close();
    }
}
