package io.seglog.storage.format;

import static io.seglog.storage.format.RecordBatchDescriptor.LOG_OVERHEAD;
import static io.seglog.storage.format.RecordBatchDescriptor.RECORDS_OFFSET;

import java.nio.ByteBuffer;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Reads the records of a v2 batch, compressed or not: an uncompressed batch in place, a compressed one (gzip,
 * snappy, lz4, zstd, each in Kafka's framing) decompressed into this reader's own buffer, which is reused from
 * batch to batch. {@link RecordView}s it fills point into {@link #buffer()}; they stay valid until the next
 * {@link #open}.
 * <pre>{@code
 * try (BatchRecordReader reader = new BatchRecordReader(64 << 20)) {
 *     reader.open(batch);
 *     while (reader.next(record)) { ... record.offset(), record.valueOffset() in reader.buffer() ... }
 * }
 * }</pre>
 *
 * <p>Bounded: a batch whose records would decompress past {@code maxDecompressedBytes} is refused when its output
 * reaches the bound, before more memory is taken; the buffer grows (doubling) only as far as batches need. After
 * the declared count of records no byte may remain (Kafka's "records still remaining" check). Damage gives an
 * {@link InvalidRecordException} naming the batch; a codec whose library is missing gives a
 * {@link CodecUnavailableException} naming it. Steady state allocates nothing per record or per batch once the
 * buffers have grown to the batches' size.
 *
 * <p>Not thread-safe. {@link #close()} releases the codecs' native state.
 */
public final class BatchRecordReader implements AutoCloseable {
    private final Codecs codecs;
    private final DecompressionBuffer output;
    private final UnsafeBuffer decompressed = new UnsafeBuffer(0, 0);
    private ByteBuffer input;

    private DirectBuffer records;
    private int position;
    private int end;
    private int remaining;
    private boolean compressed;
    private long baseOffset;
    private long baseTimestamp;
    private boolean logAppendTime;
    private long logAppendTimestamp;
    private int batchStart;

    /**
     * Creates a reader with Kafka's default codec levels.
     *
     * @param maxDecompressedBytes the most bytes one batch's records may decompress to
     */
    public BatchRecordReader(final int maxDecompressedBytes) {
        this(maxDecompressedBytes, new Codecs());
    }

    /**
     * Creates a reader over given codecs (which it then owns and closes): other levels, or a test's class probe.
     *
     * @param maxDecompressedBytes the most bytes one batch's records may decompress to
     * @param codecs               the codec instances to use
     */
    BatchRecordReader(final int maxDecompressedBytes, final Codecs codecs) {
        this.output = new DecompressionBuffer(maxDecompressedBytes);
        this.codecs = codecs;
    }

    /**
     * Prepares to read a batch's records, decompressing them if the batch is compressed. The batch's length must
     * already have been checked against its buffer (as the validator or the log does).
     *
     * @param batch the batch, wrapped
     * @return this reader
     * @throws InvalidRecordException if the compressed records are damaged or pass the decompression bound
     * @throws CodecUnavailableException if the batch's codec library is not on the class path
     */
    public BatchRecordReader open(final RecordBatch batch) {
        final DirectBuffer buffer = batch.buffer();
        batchStart = batch.startIndex();
        final int recordsStart = batchStart + RECORDS_OFFSET;
        final int batchEnd = (int) Math.min((long) batchStart + LOG_OVERHEAD + batch.batchLength(), buffer.capacity());
        remaining = Math.max(0, batch.recordCount());
        baseOffset = batch.baseOffset();
        baseTimestamp = batch.baseTimestamp();
        logAppendTime = batch.isLogAppendTime();
        logAppendTimestamp = logAppendTime ? batch.maxTimestamp() : RecordBatchDescriptor.NO_TIMESTAMP;
        final int codec = batch.compressionCodec();
        compressed = codec != 0;
        if (!compressed) {
            records = buffer;
            position = recordsStart;
            end = batchEnd;
            return this;
        }
        final CompressionType type = CompressionType.forId(codec);
        final int length = Math.max(0, batchEnd - recordsStart);
        final ByteBuffer source = inputOf(length);
        buffer.getBytes(recordsStart, source, 0, length);
        source.limit(length).position(0);
        output.reset();
        try {
            codecs.codec(type).decompress(source, output);
        } catch (final CodecException e) {
            throw new InvalidRecordException("records", length, e.overLimit() ? output.limitBytes() : -1, 0,
                recordsStart, "the " + type.kafkaName() + " records of the batch at baseOffset=" + baseOffset
                    + " cannot be read: " + e.getMessage());
        }
        final ByteBuffer written = output.buffer();
        decompressed.wrap(written, 0, written.position());
        records = decompressed;
        position = 0;
        end = written.position();
        return this;
    }

    private ByteBuffer inputOf(final int length) {
        if (input == null || input.capacity() < length) {
            input = ByteBuffer.allocateDirect(Math.max(length, input == null ? 4096 : 2 * input.capacity()));
        }
        return input.clear();
    }

    /**
     * Reads the next record.
     *
     * @param into the flyweight to fill; its positions are in {@link #buffer()}
     * @return false after the last record
     * @throws InvalidRecordException if a record is malformed, or bytes remain after the declared count
     */
    public boolean next(final RecordView into) {
        if (remaining == 0) {
            if (compressed && position != end) {
                throw new InvalidRecordException("recordsCount", position, end, 0, batchStart + RECORDS_OFFSET,
                    "decompressed bytes remain after the declared records of the batch at baseOffset=" + baseOffset
                        + " (value = bytes read, limit = bytes decompressed)");
            }
            return false;
        }
        final int size = into.parse(records, position, end);
        if (size < 0) {
            throw new InvalidRecordException(into.errorField, into.errorValue, into.errorLimit, 0,
                compressed ? batchStart + RECORDS_OFFSET : into.errorPosition,
                (compressed ? "in the decompressed records at byte " + into.errorPosition + ": " : "")
                    + into.errorDetail);
        }
        into.batchContext(baseOffset, baseTimestamp, logAppendTime, logAppendTimestamp);
        position += size;
        remaining--;
        return true;
    }

    /**
     * The bytes the filled records point into: the batch's own buffer, or this reader's decompressed copy.
     *
     * @return the buffer
     */
    public DirectBuffer buffer() {
        return records;
    }

    /**
     * The size of the records as read: the decompressed size of a compressed batch, the stored size otherwise.
     *
     * @return bytes
     */
    public int recordsBytes() {
        return compressed ? end : end - (batchStart + RECORDS_OFFSET);
    }

    @Override
    public void close() {
        codecs.close();
    }
}
