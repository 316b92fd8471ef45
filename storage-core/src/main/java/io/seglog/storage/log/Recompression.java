package io.seglog.storage.log;

import io.seglog.storage.format.BatchRecordReader;
import io.seglog.storage.format.CompressionType;
import io.seglog.storage.format.InvalidRecordException;
import io.seglog.storage.format.RecordBatch;
import io.seglog.storage.format.RecordBatchBuilder;
import io.seglog.storage.format.RecordBatchDescriptor;
import io.seglog.storage.format.RecordHeader;
import io.seglog.storage.format.RecordView;
import java.nio.ByteBuffer;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A leader's re-compression to the topic's codec ({@code compression.type} other than {@code producer}), as Kafka's
 * {@code LogValidator.buildRecordsAndAssignOffsets} does: when the producer's codec differs from the topic's, the
 * append's one batch is rebuilt, record by record (timestamps, keys, values, headers; producer id, epoch, base
 * sequence and the transactional flag kept; offset deltas 0..n-1), in the topic's codec, into this object's buffer,
 * which the log then appends in place of the caller's bytes. Kafka's rule holds: an append re-compressed to a codec
 * must be a single batch ("Compressed outer record has more than one batch"). A batch already in the topic's codec
 * is appended as it came (offsets in the header), so only a codec change costs a re-encode.
 *
 * <p>Owns its reader, builder and buffer, grown to the largest batch and reused. Threads: the log's writer only.
 */
final class Recompression implements AutoCloseable {
    private final CompressionType target;
    private final BatchRecordReader reader;
    private final RecordBatchBuilder builder = new RecordBatchBuilder();
    private final RecordBatch batch = new RecordBatch();
    private final RecordView record = new RecordView();
    private final RecordHeader header = new RecordHeader();
    /** Buffers up to this size are kept for the next batch; larger ones are dropped after use. */
    private static final int RETAINED_BYTES = 1 << 20;

    private final UnsafeBuffer scratchView = new UnsafeBuffer(0, 0);
    private ByteBuffer scratch;

    /**
     * Creates the re-compression of one log.
     *
     * @param target               the topic's codec
     * @param gzipLevel            {@code compression.gzip.level}
     * @param lz4Level             {@code compression.lz4.level}
     * @param zstdLevel            {@code compression.zstd.level}
     * @param maxDecompressedBytes the bound on a batch's decompressed records
     */
    Recompression(final CompressionType target, final int gzipLevel, final int lz4Level, final int zstdLevel,
                  final int maxDecompressedBytes) {
        this.target = target;
        this.reader = new BatchRecordReader(maxDecompressedBytes);
        builder.compressionLevels(gzipLevel, lz4Level, zstdLevel);
    }

    /**
     * Whether the append's (validated) batches are to be rebuilt: some batch is not in the topic's codec.
     *
     * @param view   the caller's bytes
     * @param offset the first batch
     * @param length the append's bytes
     * @return true to call {@link #rebuild}
     * @throws InvalidRecordException if a rebuild is needed and the append holds more than one batch
     */
    boolean needed(final DirectBuffer view, final int offset, final int length) {
        boolean differs = false;
        int batches = 0;
        for (int p = offset, limit = offset + length; p < limit; batches++) {
            batch.wrap(view, p);
            differs |= batch.compressionCodec() != target.id();
            p += batch.sizeInBytes();
        }
        if (differs && batches > 1 && target != CompressionType.NONE) {
            throw new InvalidRecordException("batchCount", batches, 1, 1, offset, "an append re-compressed to the"
                + " topic's " + target.kafkaName() + " must be one batch");
        }
        return differs;
    }

    /**
     * Rebuilds the append's one batch in the topic's codec.
     *
     * @param view   the caller's bytes, validated
     * @param offset where the batch starts
     * @return this object's buffer holding the rebuilt batch, {@code [0, size)}; valid until the next call
     */
    ByteBuffer rebuild(final DirectBuffer view, final int offset) {
        batch.wrap(view, offset);
        reader.open(batch);
        // Re-encoding measures every timestamp from the first record's, so a record may grow by up to 11 bytes
        // (a varlong of 10 for a 1-byte delta, and its length varint); the codec's worst case may exceed the plain
        // size a little for incompressible data.
        final int plain = reader.recordsBytes();
        final long wanted = RecordBatchDescriptor.BATCH_HEADER_LENGTH + (long) plain + (plain >> 3) + 1024
            + 11L * Math.max(0, batch.recordCount());
        final int capacity = (int) Math.min(Integer.MAX_VALUE - 8, wanted);
        if (scratch == null || scratch.capacity() < capacity || scratch.capacity() > RETAINED_BYTES
            && capacity <= RETAINED_BYTES) {
            // Grown for a large batch, the buffer is dropped at the next small one: a log does not keep tens of
            // megabytes of direct memory for one producer's outlier.
            scratch = ByteBuffer.allocateDirect(capacity);
            scratchView.wrap(scratch);
        }
        builder.wrap(scratchView, 0, scratch.capacity()).compression(target)
            .producer(batch.producerId(), batch.producerEpoch(), batch.baseSequence())
            .transactional(batch.isTransactional());
        final DirectBuffer records = reader.buffer();
        while (reader.next(record)) {
            builder.beginRecord(record.timestamp(), record.keyLength() < 0 ? null : records, record.keyOffset(),
                record.keyLength(), record.valueLength() < 0 ? null : records, record.valueOffset(),
                record.valueLength(), record.headerCount());
            while (record.nextHeader(header)) {
                builder.header(records, header.keyOffset(), header.keyLength(),
                    header.valueLength() < 0 ? null : records, header.valueOffset(), header.valueLength());
            }
            builder.endRecord();
        }
        final int size = builder.build();
        return scratch.clear().limit(size);
    }

    @Override
    public void close() {
        reader.close();
        builder.close();
    }
}
