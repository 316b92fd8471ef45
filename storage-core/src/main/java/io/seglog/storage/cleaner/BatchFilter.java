package io.seglog.storage.cleaner;

import static io.seglog.storage.format.RecordBatchDescriptor.ATTRIBUTES_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.BASE_TIMESTAMP_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.BATCH_HEADER_LENGTH;
import static io.seglog.storage.format.RecordBatchDescriptor.COMPRESSION_CODEC_MASK;
import static io.seglog.storage.format.RecordBatchDescriptor.CRC_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.DELETE_HORIZON_FLAG_MASK;
import static io.seglog.storage.format.RecordBatchDescriptor.LENGTH_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.LOG_OVERHEAD;
import static io.seglog.storage.format.RecordBatchDescriptor.MAX_TIMESTAMP_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.RECORDS_COUNT_OFFSET;

import io.seglog.storage.format.RecordBatch;
import io.seglog.storage.format.RecordView;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;
import org.agrona.DirectBuffer;

/**
 * Decides what of one batch survives cleaning and writes it (Kafka's {@code MemoryRecords.filterTo} with the
 * cleaner's {@code RecordFilter}):
 * <ul>
 *   <li>a record survives if its offset is past the offset map's coverage, or it has a key whose last offset in
 *       the map is at most its own and it has a value, or it is a tombstone whose batch has no delete horizon yet
 *       or a horizon still in the future; a record without a key is dropped;</li>
 *   <li>control batches (transaction markers) are kept whole (Kafka removes a marker once its transaction is
 *       cleaned away; Seglog keeps them, see docs/cleaner.md);</li>
 *   <li>a batch whose records all survive is copied whole, unless it holds a tombstone and no delete horizon yet;
 *       otherwise the survivors are rebuilt into a batch with the same base offset, last offset delta, producer
 *       id/epoch/base sequence, leader epoch and record offset deltas; when it holds a tombstone and had no
 *       horizon, the horizon {@code now + delete.retention.ms} becomes its base timestamp and the
 *       delete-horizon attribute bit is set (Kafka 3.1+, KIP-534); the record timestamp deltas are re-based;</li>
 *   <li>a batch left with no record is dropped, unless it must be kept empty (the last batch of a producer, of
 *       the cleaning round, or of an output segment): then a 61-byte header with its offsets, producer fields
 *       and max timestamp is written (Kafka's {@code writeEmptyHeader}).</li>
 * </ul>
 * A batch that is rebuilt has its CRC checked first, so cleaning never gives a damaged batch a fresh checksum.
 * Compressed batches are refused until the codecs exist ({@link UncleanableLogException}).
 *
 * <p>Allocation-free per record: the survivors' positions go into a reused int array. Not thread-safe.
 */
final class BatchFilter {
    /** Most bytes a rebuilt record can grow by: its timestamp delta (up to 10) and its length varint (1). */
    private static final int MAX_RECORD_GROWTH = 11;

    private final RecordView record = new RecordView();
    private final CRC32C crc = new CRC32C();
    private int[] kept = new int[256];
    private long[] keptTimestamps = new long[256];
    private int keptCount;

    /** Counters for the cleaner's log line. */
    long recordsRead;
    long recordsKept;

    /**
     * Filters one batch into {@code out}.
     *
     * @param batch        the batch
     * @param map          the offset map of the round
     * @param nowMs        the time of the round
     * @param deleteRetentionMs {@code delete.retention.ms}
     * @param retainEmpty  whether the batch stays even when no record does
     * @param out          the write buffer, with room for {@link #maxOutputBytes}
     * @return the bytes written (0 when the batch is dropped)
     * @throws UncleanableLogException for a compressed batch or a rebuilt batch with a bad CRC
     */
    int filter(final RecordBatch batch, final OffsetMap map, final long nowMs, final long deleteRetentionMs,
               final boolean retainEmpty, final ByteBuffer out) {
        if (batch.isControl()) {
            return copyWhole(batch, out);
        }
        if (batch.isCompressed()) {
            throw new UncleanableLogException("batch at baseOffset=" + batch.baseOffset() + " uses compression codec "
                + RecordBatch.codecName(batch.compressionCodec()) + ": compressed batches are not cleaned yet");
        }
        keptCount = 0;
        boolean tombstones = false;
        int read = 0;
        batch.rewindRecords();
        while (batch.nextRecord(record)) {
            read++;
            if (retains(batch, map, nowMs)) {
                keep(record.startIndex(), record.timestamp());
                tombstones |= record.valueLength() < 0;
            }
        }
        recordsRead += read;
        recordsKept += keptCount;
        if (keptCount > 0) {
            final boolean setHorizon = tombstones && !batch.hasDeleteHorizon();
            if (keptCount == read && !setHorizon) {
                return copyWhole(batch, out);
            }
            if (!batch.isCrcValid()) {
                throw new UncleanableLogException("batch at baseOffset=" + batch.baseOffset() + " has crc="
                    + batch.crc() + " but its bytes give " + batch.computeCrc() + ": not rewritten");
            }
            return rebuild(batch, setHorizon ? nowMs + deleteRetentionMs : -1, out);
        }
        return retainEmpty ? writeEmpty(batch, out) : 0;
    }

    /**
     * The most bytes {@link #filter} can write for {@code batch}.
     *
     * @param batch the batch
     * @return bytes
     */
    static int maxOutputBytes(final RecordBatch batch) {
        return (int) Math.min(Integer.MAX_VALUE,
            batch.sizeInBytes() + (long) Math.max(0, batch.recordCount()) * MAX_RECORD_GROWTH);
    }

    private boolean retains(final RecordBatch batch, final OffsetMap map, final long nowMs) {
        final long offset = record.offset();
        if (offset > map.latestOffset()) {
            return true;
        }
        if (record.keyLength() < 0) {
            return false;
        }
        final long last = map.get(record.buffer(), record.keyOffset(), record.keyLength());
        if (offset < last) {
            return false;
        }
        return record.valueLength() >= 0 || !batch.hasDeleteHorizon() || nowMs < batch.baseTimestamp();
    }

    private void keep(final int index, final long timestamp) {
        if (keptCount == kept.length) {
            kept = java.util.Arrays.copyOf(kept, kept.length * 2);
            keptTimestamps = java.util.Arrays.copyOf(keptTimestamps, keptTimestamps.length * 2);
        }
        kept[keptCount] = index;
        keptTimestamps[keptCount++] = timestamp;
    }

    private static int copyWhole(final RecordBatch batch, final ByteBuffer out) {
        final int size = batch.sizeInBytes();
        final int at = out.position();
        batch.buffer().getBytes(batch.startIndex(), out, at, size);
        out.position(at + size);
        return size;
    }

    /** Writes the survivors with the original header fields; {@code horizonMs} -1 keeps the batch's own. */
    private int rebuild(final RecordBatch batch, final long horizonMs, final ByteBuffer out) {
        final int start = out.position();
        final DirectBuffer src = batch.buffer();
        src.getBytes(batch.startIndex(), out, start, BATCH_HEADER_LENGTH);
        final boolean hasHorizon = horizonMs >= 0 || batch.hasDeleteHorizon();
        final long baseTimestamp = horizonMs >= 0 ? horizonMs
            : batch.hasDeleteHorizon() ? batch.baseTimestamp() : keptTimestamps[0];
        long maxTimestamp = Long.MIN_VALUE;
        int p = start + BATCH_HEADER_LENGTH;
        for (int i = 0; i < keptCount; i++) {
            maxTimestamp = Math.max(maxTimestamp, keptTimestamps[i]);
            p = writeRecord(src, kept[i], keptTimestamps[i] - baseTimestamp, out, p);
        }
        if (batch.isLogAppendTime()) {
            maxTimestamp = batch.maxTimestamp();
        }
        final int attributes = batch.attributes() & ~COMPRESSION_CODEC_MASK
            | (hasHorizon ? DELETE_HORIZON_FLAG_MASK : 0);
        final ByteBuffer o = out.order(ByteOrder.BIG_ENDIAN);
        o.putInt(start + LENGTH_OFFSET, p - start - LOG_OVERHEAD);
        o.putShort(start + ATTRIBUTES_OFFSET, (short) attributes);
        o.putLong(start + BASE_TIMESTAMP_OFFSET, baseTimestamp);
        o.putLong(start + MAX_TIMESTAMP_OFFSET, maxTimestamp);
        o.putInt(start + RECORDS_COUNT_OFFSET, keptCount);
        finish(o, start, p);
        return p - start;
    }

    /** Re-encodes one record: same attributes, offset delta, key, value and headers; a new timestamp delta. */
    private int writeRecord(final DirectBuffer src, final int index, final long timestampDelta, final ByteBuffer out,
                            final int at) {
        int q = index;
        final long lengthAndSize = readVarint(src, q);
        final int bodyLength = (int) lengthAndSize;
        final int bodyEnd = q + (int) (lengthAndSize >>> 32) + bodyLength;
        q += (int) (lengthAndSize >>> 32);
        final byte attributes = src.getByte(q++);
        q += varlongSize(src, q); // the old timestamp delta
        final int offsetDeltaStart = q;
        q += varlongSize(src, q); // the offset delta (a varint; the same stepping)
        final int offsetDeltaBytes = q - offsetDeltaStart;
        final int tail = bodyEnd - q;
        final int newBody = 1 + sizeOfVarlong(timestampDelta) + offsetDeltaBytes + tail;
        int p = writeVarlong(out, at, newBody);
        out.put(p++, attributes);
        p = writeVarlong(out, p, timestampDelta);
        src.getBytes(offsetDeltaStart, out, p, offsetDeltaBytes + tail);
        return p + offsetDeltaBytes + tail;
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
        finish(o, start, start + BATCH_HEADER_LENGTH);
        return BATCH_HEADER_LENGTH;
    }

    private void finish(final ByteBuffer out, final int start, final int end) {
        crc.reset();
        crc.update(out.array(), out.arrayOffset() + start + ATTRIBUTES_OFFSET, end - start - ATTRIBUTES_OFFSET);
        out.putInt(start + CRC_OFFSET, (int) crc.getValue());
        out.position(end);
    }

    // Zig-zag varints (Kafka's ByteUtils), written here so the format package's internals stay its own.

    /** The value of the zig-zag varint at {@code index} in the low 32 bits, its size in the high 32. */
    private static long readVarint(final DirectBuffer src, final int index) {
        int value = 0;
        int i = 0;
        int b;
        do {
            b = src.getByte(index + i);
            value |= (b & 0x7f) << (7 * i);
            i++;
        } while ((b & 0x80) != 0 && i < 5);
        return ((long) i << 32) | ((value >>> 1) ^ -(value & 1)) & 0xFFFFFFFFL;
    }

    private static int varlongSize(final DirectBuffer src, final int index) {
        int i = 0;
        while ((src.getByte(index + i) & 0x80) != 0 && i < 9) {
            i++;
        }
        return i + 1;
    }

    private static int sizeOfVarlong(final long value) {
        long v = (value << 1) ^ (value >> 63);
        int bytes = 1;
        while ((v & 0xffffffffffffff80L) != 0L) {
            bytes++;
            v >>>= 7;
        }
        return bytes;
    }

    private static int writeVarlong(final ByteBuffer out, final int index, final long value) {
        long v = (value << 1) ^ (value >> 63);
        int p = index;
        while ((v & 0xffffffffffffff80L) != 0L) {
            out.put(p++, (byte) ((v & 0x7f) | 0x80));
            v >>>= 7;
        }
        out.put(p++, (byte) v);
        return p;
    }
}
