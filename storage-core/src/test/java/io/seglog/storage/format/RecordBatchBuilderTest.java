package io.seglog.storage.format;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

/**
 * Builder round trips through our own flyweights (both source kinds, reuse, extreme timestamps) and its
 * handling of misuse and of records that do not fit.
 */
class RecordBatchBuilderTest {
    private final RecordBatchBuilder builder = new RecordBatchBuilder();
    private final RecordBatch batch = new RecordBatch();
    private final RecordBatchValidator validator = new RecordBatchValidator(Integer.MAX_VALUE);

    @Test
    void roundTripsFromBufferRangesIntoDirectMemoryWithOneReusedBuilder() {
        for (final long seed : TestBatches.SEEDS) {
            final SplittableRandom random = new SplittableRandom(seed + 1000);
            for (final int count : new int[] {1, 5, 500}) {
                final String context = TestBatches.describe(seed, count);
                final TestBatches.BatchSpec spec = TestBatches.randomBatch(random, count);
                final int offset = 1 + random.nextInt(100);
                final UnsafeBuffer out = new UnsafeBuffer(ByteBuffer.allocateDirect(offset + spec.maxSizeInBytes()));
                final int size = writeFromBuffers(spec, out, offset);

                assertEquals(size, validator.checkBatch(out, offset, size), context + " " + validator.lastDetail());
                TestBatches.assertBatchEquals(spec, batch.wrap(out, offset), context);
                // Same bytes as the byte[] path.
                final UnsafeBuffer viaArrays = new UnsafeBuffer(new byte[spec.maxSizeInBytes()]);
                assertEquals(size, TestBatches.ourBatch(builder, viaArrays, 0, spec), context);
                for (int i = 0; i < size; i++) {
                    assertEquals(viaArrays.getByte(i), out.getByte(offset + i), context + " byte " + i);
                }
            }
        }
    }

    /** Writes the spec through the DirectBuffer-range API, with every key and value copied into one source. */
    private int writeFromBuffers(final TestBatches.BatchSpec spec, final UnsafeBuffer out, final int offset) {
        final UnsafeBuffer source = new UnsafeBuffer(ByteBuffer.allocateDirect(spec.maxSizeInBytes()));
        builder.wrap(out, offset, out.capacity() - offset)
            .baseOffset(spec.baseOffset())
            .partitionLeaderEpoch(spec.partitionLeaderEpoch())
            .producer(spec.producerId(), spec.producerEpoch(), spec.baseSequence())
            .transactional(spec.transactional());
        int cursor = 7;
        for (final TestBatches.TestRecord record : spec.records()) {
            final int keyOffset = cursor;
            cursor = put(source, cursor, record.key());
            final int valueOffset = cursor;
            cursor = put(source, cursor, record.value());
            builder.beginRecord(record.timestamp(), record.key() == null ? null : source, keyOffset,
                TestBatches.length(record.key()), record.value() == null ? null : source, valueOffset,
                TestBatches.length(record.value()), record.headers().length);
            for (final TestBatches.TestHeader header : record.headers()) {
                final byte[] key = header.key().getBytes(StandardCharsets.UTF_8);
                final int headerKeyOffset = cursor;
                cursor = put(source, cursor, key);
                final int headerValueOffset = cursor;
                cursor = put(source, cursor, header.value());
                builder.header(source, headerKeyOffset, key.length, header.value() == null ? null : source,
                    headerValueOffset, TestBatches.length(header.value()));
            }
            builder.endRecord();
            cursor = 7; // reuse the source region: the builder copied the bytes already
        }
        return builder.build();
    }

    private static int put(final UnsafeBuffer buffer, final int index, final byte[] bytes) {
        if (bytes == null) {
            return index;
        }
        buffer.putBytes(index, bytes);
        return index + bytes.length;
    }

    @Test
    void extremeAndOutOfOrderTimestampsRoundTrip() {
        final long[] timestamps = {0L, Long.MAX_VALUE, Long.MIN_VALUE, -1L, 42L, Long.MIN_VALUE + 1, Long.MAX_VALUE - 1};
        final UnsafeBuffer out = new UnsafeBuffer(new byte[1024]);
        builder.wrap(out, 0, 1024);
        for (final long timestamp : timestamps) {
            builder.appendRecord(timestamp, null, new byte[] {1});
        }
        final int size = builder.build();
        assertEquals(size, validator.checkBatch(out, 0, size));
        batch.wrap(out, 0);
        assertEquals(0L, batch.baseTimestamp());
        assertEquals(Long.MAX_VALUE, batch.maxTimestamp());
        final RecordView record = new RecordView();
        for (final long timestamp : timestamps) {
            assertTrue(batch.nextRecord(record));
            assertEquals(timestamp, record.timestamp());
        }
        assertFalse(batch.nextRecord(record));
    }

    @Test
    void recordThatDoesNotFitIsRejectedAndTheBatchStaysBuildable() {
        final UnsafeBuffer out = new UnsafeBuffer(new byte[200]);
        builder.wrap(out, 0, 200).appendRecord(1L, null, new byte[50]);
        final int sizeBefore = builder.sizeInBytes();
        final IllegalStateException tooBig = assertThrows(IllegalStateException.class,
            () -> builder.appendRecord(2L, null, new byte[200]));
        assertTrue(tooBig.getMessage().contains("remainingBytes=" + (200 - sizeBefore)), tooBig.getMessage());
        builder.beginRecord(3L, null, new byte[10], 1);
        final IllegalStateException headerTooBig = assertThrows(IllegalStateException.class,
            () -> builder.header("big", new byte[100]));
        assertTrue(headerTooBig.getMessage().contains("rolled back"), headerTooBig.getMessage());
        assertEquals(sizeBefore, builder.sizeInBytes());
        assertEquals(1, builder.recordCount());
        final int size = builder.appendRecord(4L, new byte[] {9}, null).build();
        assertEquals(size, validator.checkBatch(out, 0, size));
        batch.wrap(out, 0);
        assertEquals(2, batch.recordCount());
        assertEquals(4L, batch.maxTimestamp());
    }

    @Test
    void misuseIsRejectedWithTheValuesNamed() {
        final UnsafeBuffer out = new UnsafeBuffer(new byte[256]);
        assertThrows(IllegalArgumentException.class, () -> builder.wrap(out, 200, 100));
        assertThrows(IllegalArgumentException.class, () -> builder.wrap(out, 0, 60));
        assertThrows(IllegalStateException.class, () -> builder.wrap(out, 0, 256).build());
        assertThrows(IllegalStateException.class, () -> builder.wrap(out, 0, 256).header("a", null));
        assertThrows(IllegalStateException.class, () -> builder.wrap(out, 0, 256).endRecord());
        final IllegalStateException missing = assertThrows(IllegalStateException.class,
            () -> builder.wrap(out, 0, 256).beginRecord(1L, null, null, 2).header("a", null).endRecord());
        assertTrue(missing.getMessage().contains("headerCount=2"), missing.getMessage());
        assertThrows(IllegalStateException.class,
            () -> builder.wrap(out, 0, 256).beginRecord(1L, null, null, 0).appendRecord(1L, null, null));
        assertThrows(IllegalStateException.class,
            () -> builder.wrap(out, 0, 256).beginRecord(1L, null, null, 1).header("a", null).header("b", null));
        assertThrows(IllegalArgumentException.class, () -> builder.wrap(out, 0, 256).compressionCodecFlag(8));
        assertThrows(IllegalArgumentException.class, () -> builder.wrap(out, 0, 256).beginRecord(1L, null, null, -1));
        // After build() the builder needs a new wrap().
        builder.wrap(out, 0, 256).appendRecord(1L, null, null).build();
        assertThrows(IllegalStateException.class, () -> builder.appendRecord(1L, null, null));
    }

    @Test
    void flagsAndProducerFieldsAreWritten() {
        final UnsafeBuffer out = new UnsafeBuffer(new byte[256]);
        final int size = builder.wrap(out, 0, 256).baseOffset(77L).partitionLeaderEpoch(12)
            .producer(1234L, (short) 5, 99).transactional(true).control(true)
            .appendRecord(10L, null, null).build();
        batch.wrap(out, 0);
        assertEquals(size, batch.sizeInBytes());
        assertEquals(77L, batch.baseOffset());
        assertEquals(12, batch.partitionLeaderEpoch());
        assertEquals(1234L, batch.producerId());
        assertEquals(5, batch.producerEpoch());
        assertEquals(99, batch.baseSequence());
        assertTrue(batch.isTransactional());
        assertTrue(batch.isControl());
        assertFalse(batch.isLogAppendTime());
        assertEquals(0x30, batch.attributes());
        builder.wrap(out, 0, 256).transactional(true).transactional(false).control(true).control(false)
            .appendRecord(10L, null, null).build();
        assertEquals(0, batch.wrap(out, 0).attributes());
    }

    @Test
    void batchOfHelperBuildsAnExactlySizedBatch() {
        final List<byte[]> values = new ArrayList<>();
        values.add("a".getBytes(StandardCharsets.UTF_8));
        values.add(null);
        values.add(new byte[1000]);
        final UnsafeBuffer buffer = RecordBatchBuilder.batchOf(40L, 5L, values.toArray(new byte[0][]));
        assertEquals(1, validator.validate(buffer, 0, buffer.capacity()));
        batch.wrap(buffer, 0);
        assertEquals(40L, batch.baseOffset());
        assertEquals(42L, batch.lastOffset());
        final RecordView record = new RecordView();
        for (final byte[] value : values) {
            assertTrue(batch.nextRecord(record));
            assertArrayEquals(value, record.valueBytes());
            assertEquals(-1, record.keyLength());
        }
    }

    @Test
    void batchOfWithTimestampsAndKeys() {
        final UnsafeBuffer buffer = RecordBatchBuilder.batchOf(7L, new long[] {30L, 10L, 20L},
            new byte[][] {{1}, null, {3}}, new byte[][] {{4}, {5}, null});
        assertEquals(1, validator.validate(buffer, 0, buffer.capacity()));
        batch.wrap(buffer, 0);
        assertEquals(30L, batch.baseTimestamp());
        assertEquals(30L, batch.maxTimestamp());
        final RecordView record = new RecordView();
        assertTrue(batch.nextRecord(record));
        assertArrayEquals(new byte[] {1}, record.keyBytes());
        assertTrue(batch.nextRecord(record));
        assertEquals(10L, record.timestamp());
        assertEquals(-1, record.keyLength());
        assertTrue(batch.nextRecord(record));
        assertEquals(9L, record.offset());
        assertEquals(-1, record.valueLength());
        assertThrows(IllegalArgumentException.class,
            () -> RecordBatchBuilder.batchOf(0L, new long[] {1L}, null, new byte[][] {{1}, {2}}));
    }

    @Test
    void crcOfARangeOutsideTheBufferIsRefused() {
        final UnsafeBuffer buffer = RecordBatchBuilder.batchOf(0L, 1L, new byte[] {1});
        buffer.putInt(RecordBatchDescriptor.LENGTH_OFFSET, 1000, java.nio.ByteOrder.BIG_ENDIAN);
        assertThrows(IndexOutOfBoundsException.class, () -> batch.wrap(buffer, 0).computeCrc());
    }
}
