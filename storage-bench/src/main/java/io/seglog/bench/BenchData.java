package io.seglog.bench;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;

import io.seglog.storage.format.RecordBatchBuilder;
import org.agrona.concurrent.UnsafeBuffer;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * One data set shared by every system in a benchmark: Kafka v2 record batches (magic 2, uncompressed,
 * CREATE_TIME, null keys, no headers) laid end to end in one direct buffer, plus the same record values
 * laid end to end for the systems that frame records themselves (Chronicle Queue).
 *
 * <p>The batches are built once, at set-up, with Seglog's {@link RecordBatchBuilder}, which writes the same
 * bytes as Kafka's {@code MemoryRecords.builder} (checked by {@code BenchDataTest}), so every system is fed
 * byte-identical input. Each batch carries baseOffset 0 (what a producer sends) and partitionLeaderEpoch -1;
 * systems that need assigned offsets stamp them in place (both fields lie outside the CRC).
 *
 * <p>An <em>operation</em> of an append benchmark is one group of {@link #RECORDS_PER_OP} records, i.e.
 * {@code RECORDS_PER_OP / recordsPerBatch} batches, so records/s is derivable from any batch size with one
 * {@code @OperationsPerInvocation} constant.
 *
 * <p>Not thread-safe; immutable after construction apart from the in-place stamping done by the consumers.
 */
final class BenchData {

    /** Records appended per benchmark operation, whatever the batch size. */
    static final int RECORDS_PER_OP = 100;

    /** Target payload of one data set: large enough to leave L2, small enough to build in well under a second. */
    private static final int DATA_SET_PAYLOAD_BYTES = 8 << 20;

    /** The first record's timestamp; later records add one millisecond each so the time index grows. */
    final long baseTimestampMs;
    final int valueSize;
    final int recordsPerBatch;
    final int batchesPerOp;
    final int groups;
    final int batchCount;
    final long recordCount;

    /** All batches, end to end, position 0 to limit. */
    final ByteBuffer batches;
    /** Start position of batch i in {@link #batches}; {@code batchPositions[batchCount]} is its limit. */
    final int[] batchPositions;
    /** The record values, end to end: record r's value starts at {@code r * valueSize}. */
    final ByteBuffer values;

    BenchData(int valueSize, int recordsPerBatch, long baseTimestampMs) {
        if (valueSize <= 0 || recordsPerBatch <= 0 || RECORDS_PER_OP % recordsPerBatch != 0) {
            throw new IllegalArgumentException("valueSize=" + valueSize + " recordsPerBatch=" + recordsPerBatch
                + " (recordsPerBatch must divide " + RECORDS_PER_OP + ")");
        }
        this.valueSize = valueSize;
        this.recordsPerBatch = recordsPerBatch;
        this.baseTimestampMs = baseTimestampMs;
        this.batchesPerOp = RECORDS_PER_OP / recordsPerBatch;
        this.groups = Math.max(4, DATA_SET_PAYLOAD_BYTES / (RECORDS_PER_OP * valueSize));
        this.batchCount = groups * batchesPerOp;
        this.recordCount = (long) batchCount * recordsPerBatch;

        values = ByteBuffer.allocateDirect(Math.toIntExact(recordCount * valueSize));
        SplittableRandom random = new SplittableRandom(42);
        while (values.hasRemaining()) {
            // Printable bytes: compressible like real payloads, but no codec is used anyway.
            values.put((byte) ('a' + random.nextInt(26)));
        }
        values.clear();

        // At most 21 B of record overhead (RecordBatchBuilder.MAX_RECORD_OVERHEAD) plus the 61 B batch header.
        int maxBatchBytes = 61 + recordsPerBatch * (valueSize + RecordBatchBuilder.MAX_RECORD_OVERHEAD);
        ByteBuffer all = ByteBuffer.allocateDirect(batchCount * maxBatchBytes);
        UnsafeBuffer target = new UnsafeBuffer(all);
        RecordBatchBuilder builder = new RecordBatchBuilder();
        byte[] value = new byte[valueSize];
        batchPositions = new int[batchCount + 1];
        long record = 0;
        int position = 0;
        for (int b = 0; b < batchCount; b++) {
            builder.wrap(target, position, all.capacity() - position);
            for (int r = 0; r < recordsPerBatch; r++, record++) {
                values.get(Math.toIntExact(record * valueSize), value);
                builder.appendRecord(baseTimestampMs + record, null, value);
            }
            batchPositions[b] = position;
            position += builder.build();
        }
        batchPositions[batchCount] = position;
        all.limit(position);
        this.batches = all;
    }

    /** @return the size in bytes of all batches together */
    int totalBytes() {
        return batchPositions[batchCount];
    }

    /** @return the size in bytes of batch {@code b} */
    int batchBytes(int b) {
        return batchPositions[b + 1] - batchPositions[b];
    }

    /** @return a new buffer over batch {@code b} alone (its own position/limit; shares the bytes) */
    ByteBuffer batch(int b) {
        return batches.duplicate().limit(batchPositions[b + 1]).position(batchPositions[b]).slice();
    }

    /** @return one buffer per batch, each over that batch alone, created once so appends allocate none */
    ByteBuffer[] batchViews() {
        ByteBuffer[] views = new ByteBuffer[batchCount];
        for (int b = 0; b < batchCount; b++) {
            views[b] = batch(b);
        }
        return views;
    }

    /** @return one {@link MemoryRecords} per batch, over the shared bytes */
    MemoryRecords[] memoryRecords() {
        MemoryRecords[] records = new MemoryRecords[batchCount];
        for (int b = 0; b < batchCount; b++) {
            records[b] = MemoryRecords.readableRecords(batch(b));
        }
        return records;
    }

    /** @return the payload bytes of one operation ({@link #RECORDS_PER_OP} values) */
    long payloadBytesPerOp() {
        return (long) RECORDS_PER_OP * valueSize;
    }
}
