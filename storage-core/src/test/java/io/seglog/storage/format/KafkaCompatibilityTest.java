package io.seglog.storage.format;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.SplittableRandom;
import org.agrona.concurrent.UnsafeBuffer;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.junit.jupiter.api.Test;

/**
 * Byte compatibility with Kafka 4.4.0 in both directions, over the fixed seed set and batches of 1 to 500
 * records with keys, null keys and values, headers with null values and out-of-order timestamps: our
 * builder's bytes are identical to Kafka's {@code MemoryRecordsBuilder} output, Kafka reads and CRC-validates
 * them with every field equal, and our validator and flyweights accept and read Kafka's bytes.
 */
class KafkaCompatibilityTest {
    private static final int[] SIZES = {1, 2, 3, 64, 129, 500};

    private final RecordBatchBuilder builder = new RecordBatchBuilder();
    private final RecordBatchValidator validator = new RecordBatchValidator(Integer.MAX_VALUE);
    private final RecordBatch batch = new RecordBatch();

    @Test
    void ourBatchesAreKafkasBytesAndKafkaReadsThem() {
        for (final long seed : TestBatches.SEEDS) {
            final SplittableRandom random = new SplittableRandom(seed);
            for (final int count : SIZES) {
                final String context = TestBatches.describe(seed, count);
                final TestBatches.BatchSpec spec = TestBatches.randomBatch(random, count);
                final UnsafeBuffer ours = new UnsafeBuffer(new byte[spec.maxSizeInBytes()]);
                final int size = TestBatches.ourBatch(builder, ours, 0, spec);

                assertTrue(TestBatches.sameBytes(TestBatches.kafkaBatch(spec), ours.byteArray(), size), context);
                assertKafkaReads(spec, ByteBuffer.wrap(ours.byteArray(), 0, size), context);
            }
        }
    }

    @Test
    void weValidateAndReadKafkasBatches() {
        for (final long seed : TestBatches.SEEDS) {
            final SplittableRandom random = new SplittableRandom(seed ^ 0x5a5a);
            for (final int count : SIZES) {
                final String context = TestBatches.describe(seed, count);
                final TestBatches.BatchSpec spec = TestBatches.randomBatch(random, count);
                final ByteBuffer kafka = TestBatches.kafkaBatch(spec);
                final UnsafeBuffer view = new UnsafeBuffer(kafka, kafka.position(), kafka.remaining());

                assertEquals(1, validator.validate(view, 0, view.capacity()), context);
                assertEquals(view.capacity(), validator.checkBatch(view, 0, view.capacity()), context);
                TestBatches.assertBatchEquals(spec, batch.wrap(view, 0), context);
            }
        }
    }

    @Test
    void manyKafkaBatchesBackToBackValidateAsOneRegion() {
        final SplittableRandom random = new SplittableRandom(99);
        final ByteBuffer region = ByteBuffer.allocateDirect(4 << 20);
        int batches = 0;
        long nextOffset = 0;
        while (batches < 40) {
            final TestBatches.BatchSpec drawn = TestBatches.randomBatch(random, 1 + random.nextInt(20));
            final TestBatches.BatchSpec spec = new TestBatches.BatchSpec(nextOffset, drawn.partitionLeaderEpoch(),
                drawn.producerId(), drawn.producerEpoch(), drawn.baseSequence(), drawn.transactional(), drawn.records());
            region.put(TestBatches.kafkaBatch(spec));
            nextOffset += spec.records().size();
            batches++;
        }
        final UnsafeBuffer view = new UnsafeBuffer(region, 0, region.position());
        assertEquals(batches, validator.validate(view, 0, view.capacity()));
        // Walk it as a reader would and check offsets continue.
        int position = 0;
        long expectedOffset = 0;
        while (position < view.capacity()) {
            batch.wrap(view, position);
            assertEquals(expectedOffset, batch.baseOffset());
            expectedOffset = batch.nextOffset();
            position += batch.sizeInBytes();
        }
        assertEquals(nextOffset, expectedOffset);
    }

    @Test
    void logAppendTimeAndFlagsSurviveTheRoundTripThroughKafka() {
        final UnsafeBuffer ours = new UnsafeBuffer(new byte[1024]);
        final int size = builder.wrap(ours, 0, 1024)
            .baseOffset(10L).partitionLeaderEpoch(3).producer(5L, (short) 2, 77).transactional(true)
            .logAppendTime(9_000L)
            .appendRecord(100L, bytes("a"), null)
            .appendRecord(50L, null, bytes("b"))
            .build();
        final MutableRecordBatch theirs = onlyBatch(ByteBuffer.wrap(ours.byteArray(), 0, size));
        theirs.ensureValid();
        assertEquals(TimestampType.LOG_APPEND_TIME, theirs.timestampType());
        assertEquals(9_000L, theirs.maxTimestamp());
        assertTrue(theirs.isTransactional());
        assertEquals(77, theirs.baseSequence());
        assertEquals(78, theirs.lastSequence());
        for (final org.apache.kafka.common.record.internal.Record record : theirs) {
            assertEquals(9_000L, record.timestamp());
        }
        assertEquals(1, new RecordBatchValidator(size).validate(ours, 0, size));
    }

    private static void assertKafkaReads(final TestBatches.BatchSpec spec, final ByteBuffer bytes,
        final String context) {
        final MutableRecordBatch theirs = onlyBatch(bytes);
        theirs.ensureValid();
        assertTrue(theirs.isValid(), context);
        assertEquals(2, theirs.magic(), context);
        assertEquals(spec.baseOffset(), theirs.baseOffset(), context);
        assertEquals(spec.baseOffset() + spec.records().size() - 1, theirs.lastOffset(), context);
        assertEquals(spec.partitionLeaderEpoch(), theirs.partitionLeaderEpoch(), context);
        assertEquals(CompressionType.NONE, theirs.compressionType(), context);
        assertEquals(TimestampType.CREATE_TIME, theirs.timestampType(), context);
        assertEquals(spec.maxTimestamp(), theirs.maxTimestamp(), context);
        assertEquals(spec.producerId(), theirs.producerId(), context);
        assertEquals(spec.producerEpoch(), theirs.producerEpoch(), context);
        assertEquals(spec.baseSequence(), theirs.baseSequence(), context);
        assertEquals(spec.transactional(), theirs.isTransactional(), context);
        assertFalse(theirs.isControlBatch(), context);
        assertEquals(spec.records().size(), theirs.countOrNull(), context);
        assertEquals(bytes.remaining(), theirs.sizeInBytes(), context);
        final Iterator<org.apache.kafka.common.record.internal.Record> records = theirs.iterator();
        for (int i = 0; i < spec.records().size(); i++) {
            final TestBatches.TestRecord expected = spec.records().get(i);
            final String where = context + " record=" + i;
            final org.apache.kafka.common.record.internal.Record actual = records.next();
            actual.ensureValid();
            assertEquals(spec.baseOffset() + i, actual.offset(), where);
            assertEquals(expected.timestamp(), actual.timestamp(), where);
            assertArrayEquals(expected.key(), copy(actual.key()), where);
            assertArrayEquals(expected.value(), copy(actual.value()), where);
            final Header[] headers = actual.headers();
            assertEquals(expected.headers().length, headers.length, where);
            for (int h = 0; h < headers.length; h++) {
                assertEquals(expected.headers()[h].key(), headers[h].key(), where);
                assertArrayEquals(expected.headers()[h].value(), headers[h].value(), where);
            }
        }
        assertFalse(records.hasNext(), context);
    }

    private static MutableRecordBatch onlyBatch(final ByteBuffer bytes) {
        final Iterator<MutableRecordBatch> batches = MemoryRecords.readableRecords(bytes).batches().iterator();
        final MutableRecordBatch only = batches.next();
        assertFalse(batches.hasNext());
        return only;
    }

    private static byte[] copy(final ByteBuffer buffer) {
        if (buffer == null) {
            assertNull(buffer);
            return null;
        }
        final byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }

    private static byte[] bytes(final String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
