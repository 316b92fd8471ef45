package io.seglog.storage.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.LogConfig;
import io.seglog.storage.LogRecord;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.Records;
import io.seglog.storage.TopicCompression;
import io.seglog.storage.io.FileIO;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.InstantSource;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A producer batch whose base timestamp is not its first record's (legal, if unusual: Kafka's builders do not write
 * it, a client may): re-compressed into the topic's codec, its records are re-based on the first record's timestamp
 * and grow, here from one to six bytes of timestamp delta each. The leader still stores every record.
 */
class RebasedTimestampsTest {
    private static final long NOW = 1L << 41;
    private static final int RECORDS = 1_000;

    @TempDir
    Path dir;

    @Test
    void recordsThatGrowWhenRebasedAreStillRecompressedWhole() {
        final ByteBuffer batch = batchWithFarFirstTimestamp();
        try (PartitionLog log = PartitionLog.open(dir.resolve("t-0"), LogConfig.builder()
            .compressionType(TopicCompression.LZ4).build(), FileIO.system(), InstantSource.fixed(
                java.time.Instant.ofEpochMilli(NOW)))) {
            assertEquals(RECORDS - 1, log.appendAsLeader(batch, 0));
            int n = 0;
            for (final LogRecord record : Records.of(log, 0, log.logEndOffset())) {
                assertEquals(n == 0 ? NOW - (1L << 40) : NOW, record.timestamp(), "record " + n);
                n++;
            }
            assertEquals(RECORDS, n);
        }
    }

    /** Base timestamp NOW; record 0 at NOW - 2^40 (a 6-byte delta), the others at NOW (1-byte deltas). */
    private static ByteBuffer batchWithFarFirstTimestamp() {
        final UnsafeBuffer out = new UnsafeBuffer(ByteBuffer.allocate(RecordBatchDescriptor.BATCH_HEADER_LENGTH
            + RECORDS * 32));
        int p = RecordBatchDescriptor.RECORDS_OFFSET;
        final UnsafeBuffer body = new UnsafeBuffer(new byte[32]);
        for (int i = 0; i < RECORDS; i++) {
            int b = 0;
            body.putByte(b++, (byte) 0);
            b += Varint.writeVarlong(body, b, i == 0 ? -(1L << 40) : 0);
            b += Varint.writeVarint(body, b, i);
            b += Varint.writeVarint(body, b, -1);
            b += Varint.writeVarint(body, b, 1);
            body.putByte(b++, (byte) i);
            b += Varint.writeVarint(body, b, 0);
            p += Varint.writeVarint(out, p, b);
            out.putBytes(p, body, 0, b);
            p += b;
        }
        out.putLong(RecordBatchDescriptor.BASE_OFFSET_OFFSET, 0, ByteOrder.BIG_ENDIAN);
        out.putInt(RecordBatchDescriptor.LENGTH_OFFSET, p - RecordBatchDescriptor.LOG_OVERHEAD, ByteOrder.BIG_ENDIAN);
        out.putInt(RecordBatchDescriptor.PARTITION_LEADER_EPOCH_OFFSET, -1, ByteOrder.BIG_ENDIAN);
        out.putByte(RecordBatchDescriptor.MAGIC_OFFSET, RecordBatchDescriptor.MAGIC_V2);
        out.putShort(RecordBatchDescriptor.ATTRIBUTES_OFFSET, (short) 0, ByteOrder.BIG_ENDIAN);
        out.putInt(RecordBatchDescriptor.LAST_OFFSET_DELTA_OFFSET, RECORDS - 1, ByteOrder.BIG_ENDIAN);
        out.putLong(RecordBatchDescriptor.BASE_TIMESTAMP_OFFSET, NOW, ByteOrder.BIG_ENDIAN);
        out.putLong(RecordBatchDescriptor.MAX_TIMESTAMP_OFFSET, NOW, ByteOrder.BIG_ENDIAN);
        out.putLong(RecordBatchDescriptor.PRODUCER_ID_OFFSET, -1, ByteOrder.BIG_ENDIAN);
        out.putShort(RecordBatchDescriptor.PRODUCER_EPOCH_OFFSET, (short) -1, ByteOrder.BIG_ENDIAN);
        out.putInt(RecordBatchDescriptor.BASE_SEQUENCE_OFFSET, -1, ByteOrder.BIG_ENDIAN);
        out.putInt(RecordBatchDescriptor.RECORDS_COUNT_OFFSET, RECORDS, ByteOrder.BIG_ENDIAN);
        new RecordBatch().wrap(out, 0).writeCrc();
        assertTrue(p < 10 * RECORDS + 80, "compact source: " + p + " bytes");
        return out.byteBuffer().duplicate().position(0).limit(p);
    }
}
