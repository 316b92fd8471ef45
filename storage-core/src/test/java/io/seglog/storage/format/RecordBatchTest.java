package io.seglog.storage.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.SplittableRandom;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.junit.jupiter.api.Test;

/**
 * The flyweights read batches Kafka wrote, over heap, direct, sliced and raw-address buffers; stamping in place
 * matches Kafka's own setters byte for byte; compressed batches expose their header but refuse iteration.
 */
class RecordBatchTest {
    private final RecordBatch batch = new RecordBatch();

    @Test
    void readsKafkaBatchesOverEveryBufferKind() {
        for (final long seed : TestBatches.SEEDS) {
            final SplittableRandom random = new SplittableRandom(seed);
            for (final int count : new int[] {1, 2, 37, 500}) {
                final TestBatches.BatchSpec spec = TestBatches.randomBatch(random, count);
                final ByteBuffer kafka = TestBatches.kafkaBatch(spec);
                final String context = TestBatches.describe(seed, count);
                final int size = kafka.remaining();
                final byte[] bytes = new byte[size + 11];
                kafka.duplicate().get(bytes, 11, size);

                // Heap array at a non-zero index.
                TestBatches.assertBatchEquals(spec, batch.wrap(new UnsafeBuffer(bytes), 11), context + " heap");
                // Heap ByteBuffer slice: the wrap adjustment comes from the slice's array offset.
                final ByteBuffer heapSlice = ByteBuffer.wrap(bytes, 11, size).slice();
                TestBatches.assertBatchEquals(spec, batch.wrap(new UnsafeBuffer(heapSlice), 0), context + " heap slice");
                // Direct ByteBuffer, wrapped at an offset inside it.
                final ByteBuffer direct = ByteBuffer.allocateDirect(size + 11);
                direct.put(bytes).flip();
                TestBatches.assertBatchEquals(spec, batch.wrap(new UnsafeBuffer(direct, 11, size), 0),
                    context + " direct");
                // Raw address with no ByteBuffer behind the Agrona buffer: CRC goes through the scratch copy.
                final UnsafeBuffer raw = new UnsafeBuffer(BufferUtil.address(direct), size + 11);
                TestBatches.assertBatchEquals(spec, batch.wrap(raw, 11), context + " address");
                assertEquals(size, batch.sizeInBytes(), context);
            }
        }
    }

    @Test
    void stampsBaseOffsetAndLeaderEpochWithoutTouchingTheCrc() {
        final ByteBuffer kafka = TestBatches.kafkaBatch(TestBatches.randomBatch(new SplittableRandom(3), 10));
        final byte[] bytes = new byte[kafka.remaining()];
        kafka.duplicate().get(bytes);
        final UnsafeBuffer ours = new UnsafeBuffer(bytes.clone());
        batch.wrap(ours, 0);
        final long crcBefore = batch.crc();
        batch.baseOffset(1234567L);
        batch.partitionLeaderEpoch(99);

        final MutableRecordBatch theirs = kafkaView(bytes);
        theirs.setLastOffset(1234567L + 9);
        theirs.setPartitionLeaderEpoch(99);
        assertEquals(ByteBuffer.wrap(bytes), ByteBuffer.wrap(ours.byteArray()));
        assertEquals(crcBefore, batch.crc());
        assertTrue(batch.isCrcValid());
        assertEquals(1234567L, batch.baseOffset());
        assertEquals(1234567L + 9, batch.lastOffset());
        assertEquals(1234567L + 10, batch.nextOffset());
    }

    @Test
    void stampingDuringIterationAppliesToTheRecordsReadAfterIt() {
        final UnsafeBuffer buffer = RecordBatchBuilder.batchOf(100L, 5_000L, new byte[] {1}, new byte[] {2},
            new byte[] {3});
        final RecordView record = new RecordView();
        batch.wrap(buffer, 0);
        assertTrue(batch.nextRecord(record));
        assertEquals(100L, record.offset());
        assertEquals(5_000L, record.timestamp());
        // The iteration caches the header; the flyweight's own setters must keep that cache true.
        batch.baseOffset(700L);
        batch.setLogAppendTime(9_000L);
        assertTrue(batch.nextRecord(record));
        assertEquals(701L, record.offset());
        assertEquals(9_000L, record.timestamp());
        batch.rewindRecords();
        assertTrue(batch.nextRecord(record));
        assertEquals(700L, record.offset());
        assertEquals(9_000L, record.timestamp());
    }

    @Test
    void logAppendTimeMatchesKafkasSetter() {
        final ByteBuffer kafka = TestBatches.kafkaBatch(TestBatches.randomBatch(new SplittableRandom(4), 5));
        final byte[] bytes = new byte[kafka.remaining()];
        kafka.duplicate().get(bytes);
        final UnsafeBuffer ours = new UnsafeBuffer(bytes.clone());
        batch.wrap(ours, 0).setLogAppendTime(1_800_000_000_123L);
        kafkaView(bytes).setMaxTimestamp(TimestampType.LOG_APPEND_TIME,
            1_800_000_000_123L);

        assertEquals(ByteBuffer.wrap(bytes), ByteBuffer.wrap(ours.byteArray()));
        assertTrue(batch.isLogAppendTime());
        assertTrue(batch.isCrcValid());
        final RecordView record = new RecordView();
        while (batch.nextRecord(record)) {
            // Kafka reports the append time as every record's timestamp.
            assertEquals(1_800_000_000_123L, record.timestamp());
        }
    }

    private static MutableRecordBatch kafkaView(final byte[] bytes) {
        return MemoryRecords.readableRecords(ByteBuffer.wrap(bytes)).batches().iterator().next();
    }

    @Test
    void compressedBatchExposesHeaderButRefusesIteration() {
        final ByteBuffer out = ByteBuffer.allocate(4096);
        final MemoryRecordsBuilder builder = MemoryRecords.builder(out, Compression.gzip().build(),
            TimestampType.CREATE_TIME, 500L);
        builder.append(1000L, "k".getBytes(StandardCharsets.UTF_8), "v1".getBytes(StandardCharsets.UTF_8));
        builder.append(999L, null, "v2".getBytes(StandardCharsets.UTF_8));
        final ByteBuffer kafka = builder.build().buffer();
        final byte[] bytes = new byte[kafka.remaining()];
        kafka.get(bytes);
        batch.wrap(new UnsafeBuffer(bytes), 0);

        assertEquals(1, batch.compressionCodec());
        assertTrue(batch.isCompressed());
        assertEquals(500L, batch.baseOffset());
        assertEquals(501L, batch.lastOffset());
        assertEquals(2, batch.recordCount());
        assertEquals(1000L, batch.maxTimestamp());
        assertEquals(bytes.length, batch.sizeInBytes());
        assertTrue(batch.isCrcValid());
        final UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
            () -> batch.nextRecord(new RecordView()));
        assertTrue(e.getMessage().contains("gzip"), e.getMessage());
        assertTrue(e.getMessage().contains("BatchRecordReader"), e.getMessage());
    }

    @Test
    void malformedRecordThrowsInsteadOfReadingOutsideTheBatch() {
        final UnsafeBuffer buffer = RecordBatchBuilder.batchOf(0L, 10L, new byte[] {1, 2, 3});
        // The record's value length claims 100 bytes, far beyond the record.
        final int valueLengthIndex = RecordBatchDescriptor.RECORDS_OFFSET + 1 + 1 + 1 + 1 + 1;
        buffer.putByte(valueLengthIndex, (byte) (100 << 1));
        batch.wrap(buffer, 0);
        final io.seglog.storage.format.InvalidRecordException e = assertThrows(io.seglog.storage.format.InvalidRecordException.class,
            () -> batch.nextRecord(new RecordView()));
        assertEquals("valueLength", e.field());
        assertEquals(100, e.value());
        assertEquals(valueLengthIndex, e.position());
    }

    @Test
    void emptyHeaderKeyAndNullHeaderValueAreRead() {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[256]);
        final int size = new RecordBatchBuilder().wrap(buffer, 0, 256)
            .beginRecord(5L, null, null, 2).header("", null).header("a", new byte[0]).endRecord()
            .build();
        final RecordView record = new RecordView();
        final RecordHeader header = new RecordHeader();
        batch.wrap(buffer, 0);
        assertTrue(batch.nextRecord(record));
        assertEquals(-1, record.keyLength());
        assertEquals(-1, record.valueLength());
        assertTrue(record.nextHeader(header));
        assertEquals(0, header.keyLength());
        assertEquals(-1, header.valueLength());
        assertTrue(record.nextHeader(header));
        assertEquals("a", header.key());
        assertEquals(0, header.valueLength());
        assertFalse(record.nextHeader(header));
        record.rewindHeaders();
        assertTrue(record.nextHeader(header));
        assertEquals(0, header.keyLength());
        assertEquals(List.of(size), List.of(batch.sizeInBytes()));
    }
}
