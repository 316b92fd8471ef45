package io.seglog.storage.format;

import static io.seglog.storage.format.RecordBatchDescriptor.ATTRIBUTES_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.BASE_OFFSET_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.BASE_SEQUENCE_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.BASE_TIMESTAMP_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.BATCH_HEADER_LENGTH;
import static io.seglog.storage.format.RecordBatchDescriptor.COMPRESSION_CODEC_MASK;
import static io.seglog.storage.format.RecordBatchDescriptor.CONTROL_FLAG_MASK;
import static io.seglog.storage.format.RecordBatchDescriptor.CRC_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.DELETE_HORIZON_FLAG_MASK;
import static io.seglog.storage.format.RecordBatchDescriptor.LAST_OFFSET_DELTA_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.LENGTH_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.LOG_OVERHEAD;
import static io.seglog.storage.format.RecordBatchDescriptor.MAGIC_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.MAGIC_V2;
import static io.seglog.storage.format.RecordBatchDescriptor.MAX_TIMESTAMP_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.NO_PARTITION_LEADER_EPOCH;
import static io.seglog.storage.format.RecordBatchDescriptor.NO_PRODUCER_EPOCH;
import static io.seglog.storage.format.RecordBatchDescriptor.NO_PRODUCER_ID;
import static io.seglog.storage.format.RecordBatchDescriptor.NO_SEQUENCE;
import static io.seglog.storage.format.RecordBatchDescriptor.PARTITION_LEADER_EPOCH_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.PRODUCER_EPOCH_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.PRODUCER_ID_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.RECORDS_COUNT_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.RECORDS_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.TIMESTAMP_TYPE_MASK;
import static io.seglog.storage.format.RecordBatchDescriptor.TRANSACTIONAL_FLAG_MASK;
import static java.nio.ByteOrder.BIG_ENDIAN;

import java.nio.charset.StandardCharsets;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Writes uncompressed v2 record batches straight into a caller's buffer, the way Kafka's producer lays them
 * out: offset deltas 0..n-1, {@code baseTimestamp} = the first record's timestamp, {@code maxTimestamp} = the
 * greatest record timestamp (timestamps may come in any order), CRC-32C computed by {@link #build()}.
 *
 * <pre>{@code
 * RecordBatchBuilder builder = new RecordBatchBuilder();          // once; reusable
 * int size = builder.wrap(buffer, 0, buffer.capacity())
 *     .producer(producerId, producerEpoch, baseSequence)          // optional
 *     .appendRecord(timestampMs, key, value)                       // byte[]; null = null key/value
 *     .beginRecord(timestampMs, key, value, 1).header("trace", traceId).endRecord()
 *     .build();                                                    // returns the batch size in bytes
 * }</pre>
 *
 * <p>A batch that is re-written rather than produced (Kafka's cleaner, {@code MemoryRecords.filterTo}) keeps its
 * records' offsets: {@link #appendCopy} takes a record read from another batch with its offset (so the offset
 * deltas may have gaps), timestamp, key, value and headers; {@link #lastOffsetDelta} keeps the original batch's
 * last offset delta (Kafka's {@code overrideLastOffset}, so a producer's last sequence survives); and
 * {@link #deleteHorizon} sets attribute bit 6 with the horizon as the base timestamp, the record timestamp deltas
 * then being relative to it (KIP-534).
 *
 * <p>Records without headers are written in place with their exact length. A record with headers is written
 * after a 5-byte gap for its length, which {@link #endRecord()} closes by moving the body down once its length
 * is known (one copy of the record). A record that does not fit the remaining capacity throws {@link IllegalStateException} and is
 * rolled back; the records before it stay and the batch can still be built.
 *
 * <p>Owns the batch being written (its header fields, the open record, the counts); a {@code BatchCompressor} owns
 * the codecs and the buffers {@link #compression} goes through. Allocation-free once constructed, except the
 * {@code String} header convenience which encodes the key. Not thread-safe: one instance per writing thread.
 */
public final class RecordBatchBuilder implements AutoCloseable {
    /** Most bytes a record adds beyond its key, value and headers: Kafka's {@code MAX_RECORD_OVERHEAD}. */
    public static final int MAX_RECORD_OVERHEAD = 21;
    // The varint lengths of key, value and header count, which MAX_RECORD_OVERHEAD leaves out.
    private static final int MAX_RECORD_LENGTH_FIELDS = 3 * Varint.MAX_VARINT_LENGTH;

    private final Crc32cCalculator crc = new Crc32cCalculator();
    private MutableDirectBuffer buffer;
    private int startIndex;
    private int limit;
    private int position;
    private boolean open;

    private long baseOffset;
    private int partitionLeaderEpoch;
    private long producerId;
    private short producerEpoch;
    private int baseSequence;
    private int attributes;
    private long logAppendTimeMs;

    private CompressionType compression = CompressionType.NONE;
    /** The codecs and their reusable buffers, kept across {@link #wrap}. */
    private final BatchCompressor compressor = new BatchCompressor();

    private int count;
    /** The offset delta of the last record appended, -1 before the first. */
    private int lastRecordDelta;
    /** {@link #lastOffsetDelta}'s value, -1 when not set (the last record's delta is written). */
    private int lastOffsetDeltaOverride;
    private long baseTimestamp;
    private long maxTimestamp;

    private boolean inRecord;
    private int recordStart;
    private int bodyStart;
    private long recordTimestamp;
    private int recordDelta;
    private int headersExpected;
    private int headersWritten;

    /**
     * Creates a builder; call {@link #wrap} before appending.
     */
    public RecordBatchBuilder() {
    }

    /**
     * Starts a new batch at {@code buffer[index, index + capacityBytes)} and resets every header field to its
     * default: base offset 0, no leader epoch, no producer id, create time, not transactional, not control.
     *
     * @param buffer        destination.
     * @param index         where the batch starts.
     * @param capacityBytes most bytes the batch may take.
     * @return this builder.
     * @throws IllegalArgumentException when the region is outside the buffer or smaller than a batch header.
     */
    public RecordBatchBuilder wrap(final MutableDirectBuffer buffer, final int index, final int capacityBytes) {
        if (index < 0 || capacityBytes < BATCH_HEADER_LENGTH || (long) index + capacityBytes > buffer.capacity()) {
            throw new IllegalArgumentException("index=" + index + " capacityBytes=" + capacityBytes
                + " must lie in buffer capacity=" + buffer.capacity() + " and hold a header of " + BATCH_HEADER_LENGTH);
        }
        this.buffer = buffer;
        this.startIndex = index;
        this.limit = index + capacityBytes;
        this.position = index + BATCH_HEADER_LENGTH;
        this.open = true;
        baseOffset = 0;
        partitionLeaderEpoch = NO_PARTITION_LEADER_EPOCH;
        producerId = NO_PRODUCER_ID;
        producerEpoch = NO_PRODUCER_EPOCH;
        baseSequence = NO_SEQUENCE;
        attributes = 0;
        compression = CompressionType.NONE;
        logAppendTimeMs = RecordBatchDescriptor.NO_TIMESTAMP;
        count = 0;
        lastRecordDelta = -1;
        lastOffsetDeltaOverride = -1;
        baseTimestamp = RecordBatchDescriptor.NO_TIMESTAMP;
        maxTimestamp = RecordBatchDescriptor.NO_TIMESTAMP;
        inRecord = false;
        return this;
    }

    /**
     * Sets the base offset (clients send 0; a leader assigns it).
     *
     * @param baseOffset the offset of the first record.
     * @return this builder.
     */
    public RecordBatchBuilder baseOffset(final long baseOffset) {
        this.baseOffset = baseOffset;
        return this;
    }

    /**
     * Sets the partition leader epoch.
     *
     * @param partitionLeaderEpoch the epoch, -1 for none.
     * @return this builder.
     */
    public RecordBatchBuilder partitionLeaderEpoch(final int partitionLeaderEpoch) {
        this.partitionLeaderEpoch = partitionLeaderEpoch;
        return this;
    }

    /**
     * Sets the idempotent-producer fields.
     *
     * @param producerId    the producer id, -1 for none.
     * @param producerEpoch the producer epoch, -1 for none.
     * @param baseSequence  the sequence of the first record, -1 for none.
     * @return this builder.
     */
    public RecordBatchBuilder producer(final long producerId, final short producerEpoch, final int baseSequence) {
        this.producerId = producerId;
        this.producerEpoch = producerEpoch;
        this.baseSequence = baseSequence;
        return this;
    }

    /**
     * Sets or clears the transactional flag (attribute bit 4).
     *
     * @param transactional whether the batch belongs to a transaction.
     * @return this builder.
     */
    public RecordBatchBuilder transactional(final boolean transactional) {
        attributes = transactional ? attributes | TRANSACTIONAL_FLAG_MASK : attributes & ~TRANSACTIONAL_FLAG_MASK;
        return this;
    }

    /**
     * Sets or clears the control flag (attribute bit 5). The builder does not encode control record payloads.
     *
     * @param control whether the batch holds control records.
     * @return this builder.
     */
    public RecordBatchBuilder control(final boolean control) {
        attributes = control ? attributes | CONTROL_FLAG_MASK : attributes & ~CONTROL_FLAG_MASK;
        return this;
    }

    /**
     * Marks the batch as log-append time (attribute bit 3): {@code maxTimestamp} becomes {@code timestampMs}
     * instead of the greatest record timestamp.
     *
     * @param timestampMs the append time in milliseconds.
     * @return this builder.
     */
    public RecordBatchBuilder logAppendTime(final long timestampMs) {
        attributes |= TIMESTAMP_TYPE_MASK;
        logAppendTimeMs = timestampMs;
        return this;
    }

    /**
     * Marks the batch as carrying a delete horizon (attribute bit 6, Kafka 3.1+, KIP-534), as Kafka's cleaner does
     * to a batch holding tombstones: the base timestamp becomes {@code horizonMs} instead of the first record's
     * timestamp, and the records' timestamp deltas are relative to it.
     *
     * @param horizonMs the time after which the batch's tombstones may be removed.
     * @return this builder.
     * @throws IllegalStateException when a record was already appended (its timestamp delta is written).
     */
    public RecordBatchBuilder deleteHorizon(final long horizonMs) {
        if (count != 0 || inRecord) {
            throw new IllegalStateException("deleteHorizon must precede the records: recordCount=" + count);
        }
        attributes |= DELETE_HORIZON_FLAG_MASK;
        baseTimestamp = horizonMs;
        return this;
    }

    /**
     * Writes {@code lastOffsetDelta} into the header instead of the last record's offset delta (Kafka's
     * {@code overrideLastOffset}): a batch re-written without its last records still ends at the original's last
     * offset, so the producer's last sequence is kept.
     *
     * @param lastOffsetDelta the last offset delta, at least the last record's.
     * @return this builder.
     * @throws IllegalArgumentException when negative.
     */
    public RecordBatchBuilder lastOffsetDelta(final int lastOffsetDelta) {
        if (lastOffsetDelta < 0) {
            throw new IllegalArgumentException("lastOffsetDelta=" + lastOffsetDelta + " must not be negative");
        }
        this.lastOffsetDeltaOverride = lastOffsetDelta;
        return this;
    }

    /**
     * Compresses the batch's records with a codec when it is built, in Kafka's framing for that codec and at
     * Kafka's default level, as the producer's {@code MemoryRecordsBuilder} does. Records are written plainly
     * while appended and compressed by {@link #build()}, in place; the capacity given to {@link #wrap} bounds the
     * plain records, and {@link #build()} fails if the compressed form would not fit it either (incompressible
     * data grows a little). The codec state is kept for the next batches; {@link #close()} releases it.
     *
     * @param type the codec; {@code NONE} writes records plainly
     * @return this builder.
     * @throws CodecUnavailableException at {@link #build()}, if the codec's library is not on the class path
     */
    public RecordBatchBuilder compression(final CompressionType type) {
        compression = type;
        attributes = (attributes & ~COMPRESSION_CODEC_MASK) | type.id();
        return this;
    }

    /**
     * Sets the compression codec bits (attributes bits 0-2) WITHOUT compressing: the records are still written
     * plainly, so the result is not a batch Kafka could decompress. It exists so tests and benchmarks can
     * exercise the header handling of compressed batches.
     *
     * @param codec the codec id, 0..7.
     * @return this builder.
     * @throws IllegalArgumentException when {@code codec} does not fit 3 bits.
     */
    public RecordBatchBuilder compressionCodecFlag(final int codec) {
        if (codec < 0 || codec > COMPRESSION_CODEC_MASK) {
            throw new IllegalArgumentException("codec=" + codec + " outside 0.." + COMPRESSION_CODEC_MASK);
        }
        attributes = (attributes & ~COMPRESSION_CODEC_MASK) | codec;
        return this;
    }

    /**
     * Appends a record without headers.
     *
     * @param timestampMs the record's timestamp.
     * @param key         the key, or null.
     * @param value       the value, or null.
     * @return this builder.
     * @throws IllegalStateException when the record does not fit or a record with headers is open.
     */
    public RecordBatchBuilder appendRecord(final long timestampMs, final byte[] key, final byte[] value) {
        return beginRecord(timestampMs, key, value, 0).endRecord();
    }

    /**
     * Appends a record without headers from buffer ranges.
     *
     * @param timestampMs the record's timestamp.
     * @param key         the key's buffer, or null for a null key.
     * @param keyOffset   first byte of the key.
     * @param keyLength   length of the key, or -1 for a null key.
     * @param value       the value's buffer, or null for a null value.
     * @param valueOffset first byte of the value.
     * @param valueLength length of the value, or -1 for a null value.
     * @return this builder.
     * @throws IllegalStateException when the record does not fit or a record with headers is open.
     */
    public RecordBatchBuilder appendRecord(final long timestampMs, final DirectBuffer key, final int keyOffset,
        final int keyLength, final DirectBuffer value, final int valueOffset, final int valueLength) {
        return beginRecord(timestampMs, key, keyOffset, keyLength, value, valueOffset, valueLength, 0).endRecord();
    }

    /**
     * Appends a copy of a record read from another batch (by {@link BatchRecordReader} or {@link RecordBatch}),
     * keeping its offset, timestamp, key, value and headers, as Kafka's {@code MemoryRecordsBuilder.append(Record)}:
     * its offset delta is {@code record.offset() - baseOffset}, so offsets skipped between copies stay gaps. The
     * record attributes byte is written 0, as Kafka writes it. The header bytes are copied as they are.
     *
     * @param record a parsed record with its batch context (offset and timestamp).
     * @return this builder.
     * @throws IllegalArgumentException when the record's offset is not above the last record's, or beyond an int
     *                                  of the base offset.
     * @throws IllegalStateException when the record does not fit (it is rolled back) or another record is open.
     */
    public RecordBatchBuilder appendCopy(final RecordView record) {
        final long delta = record.offset() - baseOffset;
        if (delta <= lastRecordDelta || delta > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("record offset=" + record.offset() + " must lie above baseOffset="
                + baseOffset + " + lastRecordDelta=" + lastRecordDelta + " and within an int of the base offset");
        }
        final DirectBuffer src = record.buffer();
        final int keyLength = record.keyLength();
        final int valueLength = record.valueLength();
        final int headerCount = record.headerCount();
        int p = startRecord(record.timestamp(), keyLength, valueLength, headerCount, (int) delta);
        p += Varint.writeVarint(buffer, p, keyLength);
        if (keyLength > 0) {
            buffer.putBytes(p, src, record.keyOffset(), keyLength);
            p += keyLength;
        }
        p += Varint.writeVarint(buffer, p, valueLength);
        if (valueLength > 0) {
            buffer.putBytes(p, src, record.valueOffset(), valueLength);
            p += valueLength;
        }
        p += Varint.writeVarint(buffer, p, headerCount);
        final int headerBytes = record.startIndex() + record.sizeInBytes() - record.headersIndex();
        if (headerBytes > limit - p) {
            position = recordStart; // roll back, as a header that does not fit does
            inRecord = false;
            throw new IllegalStateException("record does not fit: headerBytes=" + headerBytes + " remainingBytes="
                + (limit - p) + "; record rolled back");
        }
        buffer.putBytes(p, src, record.headersIndex(), headerBytes);
        position = p + headerBytes;
        headersWritten = headerCount;
        return endRecord();
    }

    /**
     * Starts a record that will carry {@code headerCount} headers; add them with {@code header(...)} and
     * finish with {@link #endRecord()}.
     *
     * @param timestampMs the record's timestamp.
     * @param key         the key, or null.
     * @param value       the value, or null.
     * @param headerCount number of headers that will follow.
     * @return this builder.
     * @throws IllegalStateException when the record does not fit or another record is open.
     */
    public RecordBatchBuilder beginRecord(final long timestampMs, final byte[] key, final byte[] value,
        final int headerCount) {
        final int keyLength = key == null ? -1 : key.length;
        final int valueLength = value == null ? -1 : value.length;
        int p = startRecord(timestampMs, keyLength, valueLength, headerCount, lastRecordDelta + 1);
        p += Varint.writeVarint(buffer, p, keyLength);
        if (keyLength > 0) {
            buffer.putBytes(p, key);
            p += keyLength;
        }
        p += Varint.writeVarint(buffer, p, valueLength);
        if (valueLength > 0) {
            buffer.putBytes(p, value);
            p += valueLength;
        }
        position = p + Varint.writeVarint(buffer, p, headerCount);
        return this;
    }

    /**
     * Starts a record from buffer ranges that will carry {@code headerCount} headers.
     *
     * @param timestampMs the record's timestamp.
     * @param key         the key's buffer, or null for a null key.
     * @param keyOffset   first byte of the key.
     * @param keyLength   length of the key, or -1 for a null key.
     * @param value       the value's buffer, or null for a null value.
     * @param valueOffset first byte of the value.
     * @param valueLength length of the value, or -1 for a null value.
     * @param headerCount number of headers that will follow.
     * @return this builder.
     * @throws IllegalStateException when the record does not fit or another record is open.
     */
    public RecordBatchBuilder beginRecord(final long timestampMs, final DirectBuffer key, final int keyOffset,
        final int keyLength, final DirectBuffer value, final int valueOffset, final int valueLength,
        final int headerCount) {
        final int actualKeyLength = key == null ? -1 : keyLength;
        final int actualValueLength = value == null ? -1 : valueLength;
        if (actualKeyLength < -1 || actualValueLength < -1) {
            throw new IllegalArgumentException("keyLength=" + keyLength + " valueLength=" + valueLength
                + " must be -1 (null) or more");
        }
        int p = startRecord(timestampMs, actualKeyLength, actualValueLength, headerCount, lastRecordDelta + 1);
        p += Varint.writeVarint(buffer, p, actualKeyLength);
        if (actualKeyLength > 0) {
            buffer.putBytes(p, key, keyOffset, actualKeyLength);
            p += actualKeyLength;
        }
        p += Varint.writeVarint(buffer, p, actualValueLength);
        if (actualValueLength > 0) {
            buffer.putBytes(p, value, valueOffset, actualValueLength);
            p += actualValueLength;
        }
        position = p + Varint.writeVarint(buffer, p, headerCount);
        return this;
    }

    /**
     * Adds a header to the open record; the key is encoded as UTF-8 (this allocates).
     *
     * @param key   the header key, not null.
     * @param value the header value, or null.
     * @return this builder.
     * @throws IllegalStateException when no record is open, all declared headers were added, or it does not fit.
     */
    public RecordBatchBuilder header(final String key, final byte[] value) {
        return header(key.getBytes(StandardCharsets.UTF_8), value);
    }

    /**
     * Adds a header to the open record.
     *
     * @param keyUtf8 the header key as UTF-8 bytes, not null.
     * @param value   the header value, or null.
     * @return this builder.
     * @throws IllegalStateException when no record is open, all declared headers were added, or it does not fit.
     */
    public RecordBatchBuilder header(final byte[] keyUtf8, final byte[] value) {
        final int valueLength = value == null ? -1 : value.length;
        int p = startHeader(keyUtf8.length, valueLength);
        p += Varint.writeVarint(buffer, p, keyUtf8.length);
        buffer.putBytes(p, keyUtf8);
        p += keyUtf8.length;
        p += Varint.writeVarint(buffer, p, valueLength);
        if (valueLength > 0) {
            buffer.putBytes(p, value);
            p += valueLength;
        }
        position = p;
        return this;
    }

    /**
     * Adds a header to the open record from buffer ranges.
     *
     * @param key         buffer holding the UTF-8 key.
     * @param keyOffset   first byte of the key.
     * @param keyLength   length of the key, 0 or more.
     * @param value       buffer holding the value, or null for a null value.
     * @param valueOffset first byte of the value.
     * @param valueLength length of the value, or -1 for a null value.
     * @return this builder.
     * @throws IllegalStateException when no record is open, all declared headers were added, or it does not fit.
     */
    public RecordBatchBuilder header(final DirectBuffer key, final int keyOffset, final int keyLength,
        final DirectBuffer value, final int valueOffset, final int valueLength) {
        final int actualValueLength = value == null ? -1 : valueLength;
        if (keyLength < 0 || actualValueLength < -1) {
            throw new IllegalArgumentException("header keyLength=" + keyLength + " valueLength=" + valueLength
                + " out of range");
        }
        int p = startHeader(keyLength, actualValueLength);
        p += Varint.writeVarint(buffer, p, keyLength);
        buffer.putBytes(p, key, keyOffset, keyLength);
        p += keyLength;
        p += Varint.writeVarint(buffer, p, actualValueLength);
        if (actualValueLength > 0) {
            buffer.putBytes(p, value, valueOffset, actualValueLength);
            p += actualValueLength;
        }
        position = p;
        return this;
    }

    /**
     * Finishes the open record: writes its length and counts it in the batch.
     *
     * @return this builder.
     * @throws IllegalStateException when no record is open or fewer headers than declared were added.
     */
    public RecordBatchBuilder endRecord() {
        if (!inRecord) {
            throw new IllegalStateException("no record is open");
        }
        if (headersWritten != headersExpected) {
            throw new IllegalStateException("record declared headerCount=" + headersExpected + " but has headersWritten="
                + headersWritten);
        }
        final int bodyLength = position - bodyStart;
        final int lengthSize = Varint.sizeOfVarint(bodyLength);
        if (recordStart + lengthSize != bodyStart) {
            // Close the gap left for the length; putBytes copies like memmove, so the overlap is safe.
            buffer.putBytes(recordStart + lengthSize, buffer, bodyStart, bodyLength);
        }
        Varint.writeVarint(buffer, recordStart, bodyLength);
        position = recordStart + lengthSize + bodyLength;
        if (count == 0) {
            if ((attributes & DELETE_HORIZON_FLAG_MASK) == 0) {
                baseTimestamp = recordTimestamp;
            }
            maxTimestamp = recordTimestamp;
        } else if (recordTimestamp > maxTimestamp) {
            maxTimestamp = recordTimestamp;
        }
        count++;
        lastRecordDelta = recordDelta;
        inRecord = false;
        return this;
    }

    /**
     * Number of records appended so far.
     *
     * @return the record count.
     */
    public int recordCount() {
        return count;
    }

    /**
     * Size the batch has so far, header included.
     *
     * @return the size in bytes.
     */
    public int sizeInBytes() {
        return position - startIndex;
    }

    /**
     * Bytes still free in the region given to {@link #wrap}.
     *
     * @return the remaining capacity in bytes.
     */
    public int remainingBytes() {
        return limit - position;
    }

    /**
     * Writes the header fields and the CRC; the batch is then complete and the builder needs a new
     * {@link #wrap} before further appends.
     *
     * @return the batch size in bytes ({@code batchLength + 12}).
     * @throws IllegalStateException when no batch is open, a record is open, or the batch has no records.
     */
    public int build() {
        checkOpen();
        if (inRecord) {
            throw new IllegalStateException("a record is still open; call endRecord()");
        }
        if (count == 0) {
            throw new IllegalStateException("a batch needs at least one record: recordCount=0");
        }
        if (lastOffsetDeltaOverride >= 0 && lastOffsetDeltaOverride < lastRecordDelta) {
            throw new IllegalStateException("lastOffsetDelta=" + lastOffsetDeltaOverride
                + " is below the last record's offset delta " + lastRecordDelta);
        }
        if (compression != CompressionType.NONE) {
            final int recordsStart = startIndex + RECORDS_OFFSET;
            position = recordsStart + compressor.compressInPlace(compression, buffer, recordsStart,
                position - recordsStart, limit - recordsStart);
        }
        final int size = position - startIndex;
        buffer.putLong(startIndex + BASE_OFFSET_OFFSET, baseOffset, BIG_ENDIAN);
        buffer.putInt(startIndex + LENGTH_OFFSET, size - LOG_OVERHEAD, BIG_ENDIAN);
        buffer.putInt(startIndex + PARTITION_LEADER_EPOCH_OFFSET, partitionLeaderEpoch, BIG_ENDIAN);
        buffer.putByte(startIndex + MAGIC_OFFSET, MAGIC_V2);
        buffer.putShort(startIndex + ATTRIBUTES_OFFSET, (short) attributes, BIG_ENDIAN);
        buffer.putInt(startIndex + LAST_OFFSET_DELTA_OFFSET,
            lastOffsetDeltaOverride >= 0 ? lastOffsetDeltaOverride : lastRecordDelta, BIG_ENDIAN);
        buffer.putLong(startIndex + BASE_TIMESTAMP_OFFSET, baseTimestamp, BIG_ENDIAN);
        final boolean logAppendTime = (attributes & TIMESTAMP_TYPE_MASK) != 0;
        buffer.putLong(startIndex + MAX_TIMESTAMP_OFFSET, logAppendTime ? logAppendTimeMs : maxTimestamp, BIG_ENDIAN);
        buffer.putLong(startIndex + PRODUCER_ID_OFFSET, producerId, BIG_ENDIAN);
        buffer.putShort(startIndex + PRODUCER_EPOCH_OFFSET, producerEpoch, BIG_ENDIAN);
        buffer.putInt(startIndex + BASE_SEQUENCE_OFFSET, baseSequence, BIG_ENDIAN);
        buffer.putInt(startIndex + RECORDS_COUNT_OFFSET, count, BIG_ENDIAN);
        final long checksum = crc.compute(buffer, startIndex + ATTRIBUTES_OFFSET, size - ATTRIBUTES_OFFSET);
        buffer.putInt(startIndex + CRC_OFFSET, (int) checksum, BIG_ENDIAN);
        open = false;
        return size;
    }

    /**
     * Sets the levels {@link #compression} compresses at (Kafka's {@code compression.gzip.level},
     * {@code compression.lz4.level}, {@code compression.zstd.level}); the defaults are Kafka's. Kept across
     * {@link #wrap}.
     *
     * @param gzipLevel -1 (zlib's default) or 1 to 9
     * @param lz4Level  1 to 17 (9 is lz4's fast compressor)
     * @param zstdLevel -131072 to 22
     * @return this builder.
     * @throws IllegalArgumentException naming the level out of its range
     */
    public RecordBatchBuilder compressionLevels(final int gzipLevel, final int lz4Level, final int zstdLevel) {
        compressor.levels(gzipLevel, lz4Level, zstdLevel);
        return this;
    }

    /** Releases the codecs' native state (zstd contexts, the deflater); idempotent. */
    @Override
    public void close() {
        compressor.close();
    }

    private int startRecord(final long timestampMs, final int keyLength, final int valueLength,
        final int headerCount, final int offsetDelta) {
        checkOpen();
        if (inRecord) {
            throw new IllegalStateException("a record is already open; call endRecord()");
        }
        if (headerCount < 0) {
            throw new IllegalArgumentException("headerCount=" + headerCount + " must not be negative");
        }
        // The first record sets the base timestamp, unless a delete horizon took its place.
        final boolean horizon = (attributes & DELETE_HORIZON_FLAG_MASK) != 0;
        final long timestampDelta = timestampMs - (count == 0 && !horizon ? timestampMs : baseTimestamp);
        final long body = 1L + Varint.sizeOfVarlong(timestampDelta)
            + Varint.sizeOfVarint(offsetDelta) + Varint.sizeOfVarint(keyLength) + Math.max(0, keyLength)
            + Varint.sizeOfVarint(valueLength) + Math.max(0, valueLength) + Varint.sizeOfVarint(headerCount);
        // Without headers the body length is known now, so the record is written in place; with headers a
        // 5-byte gap is left for the length and endRecord() closes it.
        final int lengthReserve = headerCount == 0 && body <= Integer.MAX_VALUE
            ? Varint.sizeOfVarint((int) body) : Varint.MAX_VARINT_LENGTH;
        final long needed = lengthReserve + body;
        if (needed > limit - position) {
            throw new IllegalStateException("record does not fit: recordBytes=" + needed + " remainingBytes="
                + (limit - position));
        }
        recordStart = position;
        recordTimestamp = timestampMs;
        recordDelta = offsetDelta;
        headersExpected = headerCount;
        headersWritten = 0;
        inRecord = true;
        bodyStart = recordStart + lengthReserve;
        int p = bodyStart;
        buffer.putByte(p++, (byte) 0);
        p += Varint.writeVarlong(buffer, p, timestampDelta);
        p += Varint.writeVarint(buffer, p, offsetDelta);
        return p;
    }

    private int startHeader(final int keyLength, final int valueLength) {
        if (!inRecord) {
            throw new IllegalStateException("no record is open; call beginRecord()");
        }
        if (headersWritten == headersExpected) {
            throw new IllegalStateException("record declared headerCount=" + headersExpected + "; no more headers");
        }
        final long needed = (long) Varint.sizeOfVarint(keyLength) + keyLength + Varint.sizeOfVarint(valueLength)
            + Math.max(0, valueLength);
        if (needed > limit - position) {
            final long remaining = limit - position;
            // Roll the whole record back so the batch stays buildable without it.
            position = recordStart;
            inRecord = false;
            throw new IllegalStateException("header does not fit: headerBytes=" + needed + " remainingBytes="
                + remaining + "; record rolled back");
        }
        headersWritten++;
        return position;
    }

    private void checkOpen() {
        if (!open) {
            throw new IllegalStateException("no batch is open; call wrap()");
        }
    }

    /**
     * Upper bound of the encoded size of one record, for sizing buffers.
     *
     * @param keyLength    key length, -1 for null.
     * @param valueLength  value length, -1 for null.
     * @param headersBytes total bytes of the headers' keys and values plus 10 per header for their lengths.
     * @return the most bytes the record can take.
     */
    public static int maxRecordSize(final int keyLength, final int valueLength, final int headersBytes) {
        return MAX_RECORD_OVERHEAD + MAX_RECORD_LENGTH_FIELDS + Math.max(0, keyLength) + Math.max(0, valueLength)
            + headersBytes;
    }

    /**
     * Builds a batch of header-less records into a new, exactly sized heap buffer; a convenience for tests and
     * examples (allocates).
     *
     * @param baseOffset   the batch's base offset.
     * @param timestampsMs one timestamp per record, in any order.
     * @param keys         one key per record (an element may be null), or null for null keys throughout.
     * @param values       one value per record (an element may be null).
     * @return a buffer holding exactly the batch.
     * @throws IllegalArgumentException when the arrays differ in length or are empty.
     */
    public static UnsafeBuffer batchOf(final long baseOffset, final long[] timestampsMs, final byte[][] keys,
        final byte[][] values) {
        if (timestampsMs.length != values.length || (keys != null && keys.length != values.length)
            || values.length == 0) {
            throw new IllegalArgumentException("timestampsMs.length=" + timestampsMs.length + " keys.length="
                + (keys == null ? "null" : keys.length) + " values.length=" + values.length
                + " must be equal and not 0");
        }
        int capacity = BATCH_HEADER_LENGTH;
        for (int i = 0; i < values.length; i++) {
            final byte[] key = keys == null ? null : keys[i];
            capacity += maxRecordSize(key == null ? -1 : key.length, values[i] == null ? -1 : values[i].length, 0);
        }
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[capacity]);
        final RecordBatchBuilder builder = new RecordBatchBuilder().wrap(buffer, 0, capacity).baseOffset(baseOffset);
        for (int i = 0; i < values.length; i++) {
            builder.appendRecord(timestampsMs[i], keys == null ? null : keys[i], values[i]);
        }
        final int size = builder.build();
        return new UnsafeBuffer(buffer.byteArray(), 0, size);
    }

    /**
     * Builds a batch of header-less records with null keys into a new, exactly sized heap buffer; a
     * convenience for tests and examples (allocates).
     *
     * @param baseOffset  the batch's base offset.
     * @param timestampMs the timestamp of every record.
     * @param values      the record values (an element may be null).
     * @return a buffer holding exactly the batch.
     */
    public static UnsafeBuffer batchOf(final long baseOffset, final long timestampMs, final byte[]... values) {
        int capacity = BATCH_HEADER_LENGTH;
        for (final byte[] value : values) {
            capacity += maxRecordSize(-1, value == null ? -1 : value.length, 0);
        }
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[capacity]);
        final RecordBatchBuilder builder = new RecordBatchBuilder().wrap(buffer, 0, capacity).baseOffset(baseOffset);
        for (final byte[] value : values) {
            builder.appendRecord(timestampMs, null, value);
        }
        final int size = builder.build();
        return new UnsafeBuffer(buffer.byteArray(), 0, size);
    }
}
