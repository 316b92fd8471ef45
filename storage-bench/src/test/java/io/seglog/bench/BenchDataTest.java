package io.seglog.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/**
 * The benchmark data is what the issue promises: Seglog's builder writes byte for byte what Kafka's
 * {@code MemoryRecords.builder} writes for the same records, and the layout bookkeeping matches.
 */
class BenchDataTest {

    private static final long TS = 1_700_000_000_000L;

    @ParameterizedTest
    @CsvSource({"100,1", "100,10", "1024,100"})
    void batchesAreByteIdenticalToKafkasBuilder(int valueSize, int recordsPerBatch) {
        BenchData data = new BenchData(valueSize, recordsPerBatch, TS);
        assertEquals(BenchData.RECORDS_PER_OP / recordsPerBatch, data.batchesPerOp);
        assertEquals((long) data.batchCount * recordsPerBatch, data.recordCount);
        byte[] value = new byte[valueSize];
        long record = 0;
        // Every batch of the first and last group; the middle ones follow the same code path.
        for (int b = 0; b < data.batchCount; b++) {
            if (b >= data.batchesPerOp && b < data.batchCount - data.batchesPerOp) {
                record += recordsPerBatch;
                continue;
            }
            MemoryRecordsBuilder kafka = MemoryRecords.builder(ByteBuffer.allocate(data.batchBytes(b) + 64),
                Compression.NONE, TimestampType.CREATE_TIME, 0L);
            for (int r = 0; r < recordsPerBatch; r++, record++) {
                data.values.get(Math.toIntExact(record * valueSize), value);
                kafka.append(TS + record, null, value);
            }
            assertEquals(kafka.build().buffer(), data.batch(b), "batch " + b);
        }
    }

    @Test
    void kafkaReadsTheBatchesBackWithTheirValues() {
        BenchData data = new BenchData(100, 10, TS);
        MemoryRecords records = MemoryRecords.readableRecords(data.batches.duplicate());
        long count = 0;
        for (RecordBatch batch : records.batches()) {
            batch.ensureValid();
            for (Record r : batch) {
                assertEquals(TS + count, r.timestamp());
                assertEquals(data.values.get(Math.toIntExact(count * 100)), r.value().get(0));
                count++;
            }
        }
        assertEquals(data.recordCount, count);
        assertEquals(data.totalBytes(), data.batches.remaining());
    }

    @Test
    void rejectsABatchSizeThatDoesNotDivideAnOperation() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new BenchData(100, 3, TS));
        assertEquals("valueSize=100 recordsPerBatch=3 (recordsPerBatch must divide 100)", e.getMessage());
    }
}
