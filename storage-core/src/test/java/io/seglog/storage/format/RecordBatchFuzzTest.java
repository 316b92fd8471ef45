package io.seglog.storage.format;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.seglog.storage.format.RecordBatchValidator.Origin;
import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.SplittableRandom;
import org.agrona.concurrent.UnsafeBuffer;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.junit.jupiter.api.Test;

/**
 * Seeded mutation of valid batches, with Kafka as the oracle: whatever the bytes, the validator never throws
 * anything but {@link InvalidRecordException} and {@code checkBatch} never throws; and whatever it accepts,
 * Kafka accepts too and reads the same records. The mutations keep the CRC valid (recomputed after each
 * change) so that they reach the structural checks behind it. Also: a batch compacted by Kafka's own log
 * cleaner code passes the replication rules and fails the client rules.
 */
class RecordBatchFuzzTest {
    private static final int MUTATIONS_PER_SEED = 3_000;

    private final RecordBatchValidator replication = new RecordBatchValidator(1 << 20, Origin.REPLICATION);
    private final RecordBatchValidator client = new RecordBatchValidator(1 << 20);
    private final RecordBatch batch = new RecordBatch();
    private final RecordView record = new RecordView();
    private final RecordHeader header = new RecordHeader();
    private int comparedRecordByRecord;

    @Test
    void mutatedBatchesAreRejectedCleanlyOrReadAsKafkaReadsThem() {
        final RecordBatchBuilder builder = new RecordBatchBuilder();
        for (final long seed : TestBatches.SEEDS) {
            final SplittableRandom random = new SplittableRandom(seed);
            int accepted = 0;
            comparedRecordByRecord = 0;
            for (int i = 0; i < MUTATIONS_PER_SEED; i++) {
                final String context = "seed=" + seed + " mutation=" + i;
                final TestBatches.BatchSpec spec = smallBatch(random);
                final UnsafeBuffer buffer = new UnsafeBuffer(new byte[spec.maxSizeInBytes()]);
                final int size = TestBatches.ourBatch(builder, buffer, 0, spec);
                mutate(random, buffer, size);
                if (check(buffer, size, context)) {
                    accepted++;
                }
            }
            // Some mutations (a value byte, a timestamp delta) leave a valid batch; most must not.
            assertTrue(accepted > 0 && accepted < MUTATIONS_PER_SEED, "seed=" + seed + " accepted=" + accepted);
            assertTrue(comparedRecordByRecord > 0, "seed=" + seed + " no accepted uncompressed mutation to compare");
        }
    }

    private static TestBatches.BatchSpec smallBatch(final SplittableRandom random) {
        TestBatches.BatchSpec spec;
        do {
            spec = TestBatches.randomBatch(random, 1 + random.nextInt(8));
        } while (spec.maxSizeInBytes() > 4096);
        return spec;
    }

    /** Changes 1-3 bytes after the CRC field, or the record count, then recomputes the CRC. */
    private void mutate(final SplittableRandom random, final UnsafeBuffer buffer, final int size) {
        // Varint fields sit at the start of each record: aim half of the changes there.
        final int[] recordStarts = new int[16];
        int records = 0;
        batch.wrap(buffer, 0);
        while (batch.nextRecord(record)) {
            recordStarts[records++] = record.startIndex();
        }
        final int changes = 1 + random.nextInt(3);
        for (int c = 0; c < changes; c++) {
            final int choice = random.nextInt(10);
            if (choice == 0) {
                buffer.putInt(RecordBatchDescriptor.RECORDS_COUNT_OFFSET, random.nextInt(-2, 12),
                    java.nio.ByteOrder.BIG_ENDIAN);
            } else if (choice < 6) {
                final int at = Math.min(size - 1, recordStarts[random.nextInt(records)] + random.nextInt(12));
                final int[] interesting = {0x00, 0x01, 0x02, 0x03, 0x04, 0x7f, 0x80, 0xff, random.nextInt(256)};
                buffer.putByte(at, (byte) interesting[random.nextInt(interesting.length)]);
            } else {
                final int at = RecordBatchDescriptor.ATTRIBUTES_OFFSET
                    + random.nextInt(size - RecordBatchDescriptor.ATTRIBUTES_OFFSET);
                final int[] interesting = {0x00, 0x01, 0x02, 0x03, 0x7f, 0x80, 0xff, random.nextInt(256)};
                buffer.putByte(at, (byte) interesting[random.nextInt(interesting.length)]);
            }
        }
        batch.wrap(buffer, 0).writeCrc();
    }

    /** Returns whether our replication rules accepted the batch, after checking both against Kafka. */
    private boolean check(final UnsafeBuffer buffer, final int size, final String context) {
        final int status;
        try {
            status = replication.checkBatch(buffer, 0, size);
            client.checkBatch(buffer, 0, size);
            client.validate(buffer, 0, size);
        } catch (final InvalidRecordException expected) {
            return replication.checkBatch(buffer, 0, size) == size && assertKafkaAgrees(buffer, size, context);
        } catch (final RuntimeException e) {
            throw new AssertionError(context + ": validator threw " + e, e);
        }
        return status == size && assertKafkaAgrees(buffer, size, context);
    }

    private boolean assertKafkaAgrees(final UnsafeBuffer buffer, final int size, final String context) {
        final ByteBuffer bytes = ByteBuffer.wrap(buffer.byteArray(), 0, size);
        final MutableRecordBatch theirs = MemoryRecords.readableRecords(bytes).batches().iterator().next();
        try {
            theirs.ensureValid();
            batch.wrap(buffer, 0);
            if (batch.isCompressed()) {
                // Compressed records are not inspected yet (documented); only the header checks apply.
                return true;
            }
            final Iterator<org.apache.kafka.common.record.internal.Record> records = theirs.iterator();
            while (batch.nextRecord(record)) {
                final org.apache.kafka.common.record.internal.Record expected = records.next();
                assertEquals(expected.offset(), record.offset(), context);
                assertEquals(expected.timestamp(), record.timestamp(), context);
                assertArrayEquals(copy(expected.key()), record.keyBytes(), context);
                assertArrayEquals(copy(expected.value()), record.valueBytes(), context);
                final Header[] headers = expected.headers();
                assertEquals(headers.length, record.headerCount(), context);
                for (final Header h : headers) {
                    assertTrue(record.nextHeader(header), context);
                    assertEquals(h.key(), header.key(), context);
                    assertArrayEquals(h.value(), header.valueBytes(), context);
                }
            }
            assertFalse(records.hasNext(), context);
            comparedRecordByRecord++;
        } catch (final RuntimeException e) {
            fail(context + ": we accepted a batch Kafka rejects: " + e, e);
        }
        return true;
    }

    private static byte[] copy(final ByteBuffer buffer) {
        if (buffer == null) {
            return null;
        }
        final byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }

    @Test
    void batchCompactedByKafkaPassesReplicationRulesOnly() {
        final MemoryRecordsBuilder kafka = MemoryRecords.builder(ByteBuffer.allocate(4096), Compression.NONE,
            TimestampType.CREATE_TIME, 1000L);
        for (int i = 0; i < 10; i++) {
            kafka.append(50L + i, new byte[] {(byte) i}, new byte[] {(byte) (i * 3)});
        }
        final MemoryRecords original = kafka.build();
        final ByteBuffer compacted = ByteBuffer.allocate(4096);
        original.filterTo(new MemoryRecords.RecordFilter(0L, 0L) {
            @Override
            protected BatchRetentionResult checkBatchRetention(
                final org.apache.kafka.common.record.internal.RecordBatch batch) {
                return new BatchRetentionResult(BatchRetention.DELETE_EMPTY, false);
            }

            @Override
            protected boolean shouldRetainRecord(final org.apache.kafka.common.record.internal.RecordBatch batch,
                final org.apache.kafka.common.record.internal.Record record) {
                return record.offset() % 2 == 0;   // drops the odd offsets, the last one included
            }
        }, compacted, BufferSupplier.NO_CACHING, Integer.MAX_VALUE);
        compacted.flip();
        final UnsafeBuffer view = new UnsafeBuffer(compacted, 0, compacted.remaining());

        assertEquals(view.capacity(), replication.checkBatch(view, 0, view.capacity()), replication.lastDetail());
        batch.wrap(view, 0);
        assertEquals(5, batch.recordCount());
        assertEquals(1009L, batch.lastOffset());
        long expectedOffset = 1000L;
        while (batch.nextRecord(record)) {
            assertEquals(expectedOffset, record.offset());
            expectedOffset += 2;
        }
        assertEquals(RecordBatchValidator.BAD_HEADER, client.checkBatch(view, 0, view.capacity()));
        assertEquals("recordsCount", client.lastField());
    }
}
