package io.seglog.storage.format;

import static io.seglog.storage.format.RecordBatchDescriptor.ATTRIBUTES_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.BASE_OFFSET_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.BASE_SEQUENCE_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.BASE_TIMESTAMP_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.COMPRESSION_CODEC_MASK;
import static io.seglog.storage.format.RecordBatchDescriptor.CONTROL_FLAG_MASK;
import static io.seglog.storage.format.RecordBatchDescriptor.CRC_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.DELETE_HORIZON_FLAG_MASK;
import static io.seglog.storage.format.RecordBatchDescriptor.LAST_OFFSET_DELTA_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.LENGTH_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.LOG_OVERHEAD;
import static io.seglog.storage.format.RecordBatchDescriptor.MAGIC_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.MAX_TIMESTAMP_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.NO_TIMESTAMP;
import static io.seglog.storage.format.RecordBatchDescriptor.PARTITION_LEADER_EPOCH_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.PRODUCER_EPOCH_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.PRODUCER_ID_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.RECORDS_COUNT_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.RECORDS_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.TIMESTAMP_TYPE_MASK;
import static io.seglog.storage.format.RecordBatchDescriptor.TRANSACTIONAL_FLAG_MASK;
import static java.nio.ByteOrder.BIG_ENDIAN;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * Flyweight over one v2 record batch (layout in {@link RecordBatchDescriptor}): header accessors, in-place
 * stamping of the fields a leader assigns, and allocation-free iteration of the records.
 *
 * <p>Wrapping checks nothing: run {@link RecordBatchValidator} over untrusted bytes first. Iteration is still
 * bounded by the batch and the buffer, and a malformed record raises {@link InvalidRecordException} rather
 * than reading outside them.
 *
 * <p>Iteration is a cursor inside the flyweight: {@link #wrap} positions it before the first record,
 * {@link #nextRecord(RecordView)} advances it, {@link #rewindRecords()} restarts it.
 *
 * <pre>{@code
 * RecordBatch batch = new RecordBatch();   // once
 * RecordView record = new RecordView();            // once
 * batch.wrap(buffer, position);
 * while (batch.nextRecord(record)) {
 *     consume(record.offset(), record.buffer(), record.valueOffset(), record.valueLength());
 * }
 * }</pre>
 *
 * <p>Not thread-safe; a flyweight belongs to one thread.
 */
public final class RecordBatch {
    private static final String[] CODEC_NAMES = {"none", "gzip", "snappy", "lz4", "zstd"};

    private final Crc32cCalculator crc;
    private DirectBuffer buffer;
    private int startIndex;
    private int nextRecordIndex;
    private int recordsRemaining;
    // Read once per batch when iteration starts (the header is immutable while records are read, except through
    // this flyweight's own setters, which refresh them), instead of four bounds-checked reads per record.
    private int recordsEnd;
    private long contextBaseOffset;
    private long contextBaseTimestamp;
    private long contextLogAppendTime;
    private boolean contextIsLogAppendTime;

    /**
     * Creates an unwrapped flyweight.
     */
    public RecordBatch() {
        this(false);
    }

    private RecordBatch(final boolean borrowsBufferCursor) {
        this.crc = new Crc32cCalculator(borrowsBufferCursor);
    }

    /**
     * Creates an unwrapped flyweight for bytes its caller owns, such as a leader's append buffer: when the
     * wrapped buffer is a direct {@code ByteBuffer}, {@link #computeCrc()} (and so {@link #writeCrc()} and
     * {@link #setLogAppendTime(long)}) moves that {@code ByteBuffer}'s position and limit for the call and
     * restores them (a mark is discarded), instead of allocating a duplicate for each new {@code ByteBuffer}.
     * No other thread may use that {@code ByteBuffer}'s cursor meanwhile.
     *
     * @return a new flyweight
     */
    public static RecordBatch forOwnedBuffers() {
        return new RecordBatch(true);
    }

    /**
     * Points this flyweight at the batch that starts at {@code index} and positions the record cursor before
     * its first record.
     *
     * @param buffer the buffer holding the batch.
     * @param index  position of the batch's first byte ({@code baseOffset}).
     * @return this flyweight.
     */
    public RecordBatch wrap(final DirectBuffer buffer, final int index) {
        this.buffer = buffer;
        this.startIndex = index;
        rewindRecords();
        return this;
    }

    /**
     * The wrapped buffer.
     *
     * @return the buffer.
     */
    public DirectBuffer buffer() {
        return buffer;
    }

    /**
     * Position of the batch's first byte in {@link #buffer()}.
     *
     * @return the start index.
     */
    public int startIndex() {
        return startIndex;
    }

    /**
     * Offset of the first record.
     *
     * @return the base offset.
     */
    public long baseOffset() {
        return buffer.getLong(startIndex + BASE_OFFSET_OFFSET, BIG_ENDIAN);
    }

    /**
     * Offset of the last record: {@code baseOffset + lastOffsetDelta}.
     *
     * @return the last offset.
     */
    public long lastOffset() {
        return baseOffset() + lastOffsetDelta();
    }

    /**
     * Offset that follows the batch.
     *
     * @return {@code lastOffset() + 1}.
     */
    public long nextOffset() {
        return lastOffset() + 1;
    }

    /**
     * The {@code lastOffsetDelta} field.
     *
     * @return the last offset delta.
     */
    public int lastOffsetDelta() {
        return buffer.getInt(startIndex + LAST_OFFSET_DELTA_OFFSET, BIG_ENDIAN);
    }

    /**
     * The {@code batchLength} field: bytes after it.
     *
     * @return the batch length.
     */
    public int batchLength() {
        return buffer.getInt(startIndex + LENGTH_OFFSET, BIG_ENDIAN);
    }

    /**
     * Total size of the batch.
     *
     * @return {@code batchLength() + 12}.
     */
    public int sizeInBytes() {
        return batchLength() + LOG_OVERHEAD;
    }

    /**
     * The {@code partitionLeaderEpoch} field.
     *
     * @return the leader epoch, -1 when not stamped.
     */
    public int partitionLeaderEpoch() {
        return buffer.getInt(startIndex + PARTITION_LEADER_EPOCH_OFFSET, BIG_ENDIAN);
    }

    /**
     * The {@code magic} field.
     *
     * @return the format version, 2 for a batch Seglog can read.
     */
    public byte magic() {
        return buffer.getByte(startIndex + MAGIC_OFFSET);
    }

    /**
     * The stored CRC-32C.
     *
     * @return the CRC as an unsigned 32-bit value.
     */
    public long crc() {
        return buffer.getInt(startIndex + CRC_OFFSET, BIG_ENDIAN) & 0xffffffffL;
    }

    /**
     * The {@code attributes} field.
     *
     * @return the attributes.
     */
    public short attributes() {
        return buffer.getShort(startIndex + ATTRIBUTES_OFFSET, BIG_ENDIAN);
    }

    /**
     * Compression codec id from the attributes.
     *
     * @return 0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd (5-7 are invalid).
     */
    public int compressionCodec() {
        return attributes() & COMPRESSION_CODEC_MASK;
    }

    /**
     * Whether the records are compressed.
     *
     * @return true when the codec is not 0.
     */
    public boolean isCompressed() {
        return compressionCodec() != 0;
    }

    /**
     * Whether timestamps are the broker's log-append time (attribute bit 3).
     *
     * @return true for log-append time, false for create time.
     */
    public boolean isLogAppendTime() {
        return (attributes() & TIMESTAMP_TYPE_MASK) != 0;
    }

    /**
     * Whether the batch belongs to a transaction (attribute bit 4).
     *
     * @return true when transactional.
     */
    public boolean isTransactional() {
        return (attributes() & TRANSACTIONAL_FLAG_MASK) != 0;
    }

    /**
     * Whether the batch holds control records (attribute bit 5).
     *
     * @return true for a control batch.
     */
    public boolean isControl() {
        return (attributes() & CONTROL_FLAG_MASK) != 0;
    }

    /**
     * Whether {@code baseTimestamp} holds the compaction delete horizon (attribute bit 6).
     *
     * @return true when the delete horizon is set.
     */
    public boolean hasDeleteHorizon() {
        return (attributes() & DELETE_HORIZON_FLAG_MASK) != 0;
    }

    /**
     * The {@code baseTimestamp} field.
     *
     * @return the base timestamp in milliseconds.
     */
    public long baseTimestamp() {
        return buffer.getLong(startIndex + BASE_TIMESTAMP_OFFSET, BIG_ENDIAN);
    }

    /**
     * The {@code maxTimestamp} field.
     *
     * @return the greatest record timestamp, or the log-append time.
     */
    public long maxTimestamp() {
        return buffer.getLong(startIndex + MAX_TIMESTAMP_OFFSET, BIG_ENDIAN);
    }

    /**
     * The {@code producerId} field.
     *
     * @return the producer id, -1 when not idempotent.
     */
    public long producerId() {
        return buffer.getLong(startIndex + PRODUCER_ID_OFFSET, BIG_ENDIAN);
    }

    /**
     * The {@code producerEpoch} field.
     *
     * @return the producer epoch, -1 when not idempotent.
     */
    public short producerEpoch() {
        return buffer.getShort(startIndex + PRODUCER_EPOCH_OFFSET, BIG_ENDIAN);
    }

    /**
     * The {@code baseSequence} field.
     *
     * @return the base sequence, -1 when not idempotent.
     */
    public int baseSequence() {
        return buffer.getInt(startIndex + BASE_SEQUENCE_OFFSET, BIG_ENDIAN);
    }

    /**
     * The {@code recordsCount} field.
     *
     * @return the number of records.
     */
    public int recordCount() {
        return buffer.getInt(startIndex + RECORDS_COUNT_OFFSET, BIG_ENDIAN);
    }

    /**
     * Stamps the base offset in place; the CRC does not cover it.
     *
     * @param baseOffset the new base offset.
     * @throws IllegalStateException when the wrapped buffer is read-only.
     */
    public void baseOffset(final long baseOffset) {
        mutableBuffer().putLong(startIndex + BASE_OFFSET_OFFSET, baseOffset, BIG_ENDIAN);
        contextBaseOffset = baseOffset;
    }

    /**
     * Stamps the partition leader epoch in place; the CRC does not cover it.
     *
     * @param partitionLeaderEpoch the new epoch.
     * @throws IllegalStateException when the wrapped buffer is read-only.
     */
    public void partitionLeaderEpoch(final int partitionLeaderEpoch) {
        mutableBuffer().putInt(startIndex + PARTITION_LEADER_EPOCH_OFFSET, partitionLeaderEpoch, BIG_ENDIAN);
    }

    /**
     * Switches the batch to log-append time: sets attribute bit 3 and {@code maxTimestamp}, then recomputes
     * the CRC, as Kafka's leader does for topics with {@code message.timestamp.type=LogAppendTime}.
     *
     * @param timestampMs the broker's append time in milliseconds.
     * @throws IllegalStateException when the wrapped buffer is read-only.
     */
    public void setLogAppendTime(final long timestampMs) {
        final MutableDirectBuffer mutable = mutableBuffer();
        mutable.putShort(startIndex + ATTRIBUTES_OFFSET, (short) (attributes() | TIMESTAMP_TYPE_MASK), BIG_ENDIAN);
        mutable.putLong(startIndex + MAX_TIMESTAMP_OFFSET, timestampMs, BIG_ENDIAN);
        writeCrc();
        contextLogAppendTime = timestampMs;
        contextIsLogAppendTime = true;
    }

    /**
     * Computes the CRC-32C of the batch (attributes through the last record) without writing it.
     *
     * @return the computed CRC as an unsigned 32-bit value.
     */
    public long computeCrc() {
        return crc.compute(buffer, startIndex + ATTRIBUTES_OFFSET, batchLength() + LOG_OVERHEAD - ATTRIBUTES_OFFSET);
    }

    /**
     * Whether the stored CRC matches the bytes.
     *
     * @return true when {@link #crc()} equals {@link #computeCrc()}.
     */
    public boolean isCrcValid() {
        return crc() == computeCrc();
    }

    /**
     * Recomputes the CRC and stores it; needed after changing any covered field.
     *
     * @throws IllegalStateException when the wrapped buffer is read-only.
     */
    public void writeCrc() {
        mutableBuffer().putInt(startIndex + CRC_OFFSET, (int) computeCrc(), BIG_ENDIAN);
    }

    /**
     * Restarts record iteration at the first record.
     */
    public void rewindRecords() {
        nextRecordIndex = startIndex + RECORDS_OFFSET;
        recordsRemaining = -1; // read lazily, so that wrap() touches no bytes
    }

    /**
     * Reads the next record into {@code into}, or returns false after the last one.
     *
     * @param into the record flyweight to fill.
     * @return true when {@code into} now describes a record.
     * @throws UnsupportedOperationException for a compressed batch: {@link BatchRecordReader} reads those.
     * @throws InvalidRecordException when a record does not fit its batch or its fields are inconsistent.
     */
    public boolean nextRecord(final RecordView into) {
        if (recordsRemaining < 0) {
            final int codec = compressionCodec();
            if (codec != 0) {
                throw new UnsupportedOperationException("record batch at baseOffset=" + baseOffset()
                    + " uses compression codec " + codecName(codec) + " (" + codec + "): read its records with a"
                    + " BatchRecordReader, which decompresses them");
            }
            recordsRemaining = Math.max(0, recordCount());
            recordsEnd = (int) Math.min((long) startIndex + LOG_OVERHEAD + batchLength(), buffer.capacity());
            readContext();
        }
        if (recordsRemaining == 0) {
            return false;
        }
        final int size = into.parse(buffer, nextRecordIndex, recordsEnd);
        if (size < 0) {
            throw new InvalidRecordException(into.errorField, into.errorValue, into.errorLimit, 0, into.errorPosition,
                into.errorDetail);
        }
        into.batchContext(contextBaseOffset, contextBaseTimestamp, contextIsLogAppendTime, contextLogAppendTime);
        nextRecordIndex += size;
        recordsRemaining--;
        return true;
    }

    /**
     * Name of a compression codec id, as Kafka's {@code CompressionType} spells it.
     *
     * @param codec the codec id from the attributes.
     * @return the name, or {@code "unknown"}.
     */
    public static String codecName(final int codec) {
        return codec >= 0 && codec < CODEC_NAMES.length ? CODEC_NAMES[codec] : "unknown";
    }

    private void readContext() {
        contextBaseOffset = baseOffset();
        contextBaseTimestamp = baseTimestamp();
        contextIsLogAppendTime = isLogAppendTime();
        contextLogAppendTime = contextIsLogAppendTime ? maxTimestamp() : NO_TIMESTAMP;
    }

    private MutableDirectBuffer mutableBuffer() {
        if (buffer instanceof MutableDirectBuffer mutable) {
            return mutable;
        }
        throw new IllegalStateException("batch buffer is read-only: " + buffer.getClass().getName());
    }
}
