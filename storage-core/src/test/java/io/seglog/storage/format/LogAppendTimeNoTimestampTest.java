package io.seglog.storage.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.Test;

/** A log-append-time batch whose max timestamp is -1 gives every record -1, as Kafka's DefaultRecordBatch does. */
class LogAppendTimeNoTimestampTest {
    @Test
    void recordsOfALogAppendTimeBatchWithoutTimestampReadMinusOneLikeKafka() {
        final UnsafeBuffer built = RecordBatchBuilder.batchOf(0, new long[] {1_000, 2_000}, null,
            new byte[][] {{1}, {2}});
        new RecordBatch().wrap(built, 0).setLogAppendTime(RecordBatchDescriptor.NO_TIMESTAMP);
        final RecordBatch batch = new RecordBatch().wrap(built, 0); // a fresh reader of the stored bytes
        assertTrue(batch.isLogAppendTime());
        final RecordView record = new RecordView();
        int records = 0;
        while (batch.nextRecord(record)) {
            assertEquals(-1, record.timestamp(), "record " + records);
            records++;
        }
        assertEquals(2, records);
        final ByteBuffer bytes = ByteBuffer.allocate(built.capacity());
        built.getBytes(0, bytes, 0, built.capacity());
        MemoryRecords.readableRecords(bytes).records()
            .forEach(kafka -> assertEquals(-1, kafka.timestamp(), "Kafka's reading of offset " + kafka.offset()));
    }
}
