package io.seglog.storage.format;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.SplittableRandom;
import org.agrona.concurrent.UnsafeBuffer;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A batch re-written the way the cleaner re-writes it ({@link RecordBatchBuilder#appendCopy} of the survivors,
 * {@link RecordBatchBuilder#lastOffsetDelta} of the original, {@link RecordBatchBuilder#deleteHorizon} when a
 * tombstone survives) is the batch Kafka 4.4.0's {@code MemoryRecords.filterTo} writes for the same survivors, for
 * every codec, over the fixed seeds: offset gaps, headers, producer fields, timestamps and the delete horizon
 * included. Byte for byte for none, snappy and lz4; for gzip and zstd our codecs' compressed bytes differ from
 * Kafka's (other encoder settings, both valid), so there every header field and every record is compared as Kafka
 * reads them.
 */
class BatchRewriteCompatibilityTest {
    private static final long NOW_MS = 1_750_000_000_000L;
    private static final long DELETE_RETENTION_MS = 86_400_000L;

    private final RecordBatchBuilder builder = new RecordBatchBuilder();
    private final BatchRecordReader reader = new BatchRecordReader(64 << 20);
    private final RecordBatch batch = new RecordBatch();
    private final RecordView record = new RecordView();

    @AfterEach
    void close() {
        builder.close();
        reader.close();
    }

    /** Kafka's filter: keeps the records whose index is set, never keeps an emptied batch. */
    private static final class KeepSome extends MemoryRecords.RecordFilter {
        private final boolean[] keep;
        private int index;

        KeepSome(final boolean[] keep) {
            super(NOW_MS, DELETE_RETENTION_MS);
            this.keep = keep;
        }

        @Override
        protected BatchRetentionResult checkBatchRetention(
            final org.apache.kafka.common.record.internal.RecordBatch batch) {
            return new BatchRetentionResult(BatchRetention.DELETE_EMPTY, false);
        }

        @Override
        protected boolean shouldRetainRecord(final org.apache.kafka.common.record.internal.RecordBatch batch,
                                             final Record record) {
            return keep[index++];
        }
    }

    @ParameterizedTest
    @EnumSource(CompressionType.class)
    void rewrittenSurvivorsEqualKafkasFilterTo(final CompressionType type) {
        for (final long seed : TestBatches.SEEDS) {
            final SplittableRandom random = new SplittableRandom(seed);
            for (final int count : new int[] {1, 3, 64, 300}) {
                final String context = type + " " + TestBatches.describe(seed, count);
                final TestBatches.BatchSpec spec = TestBatches.randomBatch(random, count);
                final ByteBuffer original = TestBatches.kafkaBatch(spec,
                    CompressionCompatibilityTest.kafkaCompression(type));
                final boolean[] keep = new boolean[count];
                boolean any = false;
                boolean all = true;
                for (int i = 0; i < count; i++) {
                    keep[i] = random.nextInt(3) != 0;
                    any |= keep[i];
                    all &= keep[i];
                }
                if (!any || all) {
                    keep[0] = !keep[0]; // at least one kept and one dropped: filterTo then always rebuilds
                    if (count == 1) {
                        keep[0] = true;
                    }
                }
                final byte[] kafka = kafkaFiltered(original, keep);
                final byte[] ours = ourRewrite(original, keep);
                if (count == 1 && kafka.length == original.remaining()) {
                    continue; // one record kept whole and no tombstone: filterTo copies it, there is no rewrite
                }
                if (type == CompressionType.GZIP || type == CompressionType.ZSTD) {
                    assertSameAsKafkaReadsThem(kafka, ours, context);
                } else {
                    assertArrayEquals(kafka, ours, context);
                }
            }
        }
    }

    private static void assertSameAsKafkaReadsThem(final byte[] kafka, final byte[] ours, final String context) {
        final MutableRecordBatch expected = onlyBatch(kafka);
        final MutableRecordBatch actual = onlyBatch(ours);
        actual.ensureValid();
        assertEquals(expected.baseOffset(), actual.baseOffset(), context);
        assertEquals(expected.lastOffset(), actual.lastOffset(), context);
        assertEquals(expected.partitionLeaderEpoch(), actual.partitionLeaderEpoch(), context);
        assertEquals(expected.producerId(), actual.producerId(), context);
        assertEquals(expected.producerEpoch(), actual.producerEpoch(), context);
        assertEquals(expected.baseSequence(), actual.baseSequence(), context);
        assertEquals(expected.isTransactional(), actual.isTransactional(), context);
        assertEquals(expected.compressionType(), actual.compressionType(), context);
        assertEquals(expected.timestampType(), actual.timestampType(), context);
        assertEquals(expected.maxTimestamp(), actual.maxTimestamp(), context);
        assertEquals(expected.deleteHorizonMs(), actual.deleteHorizonMs(), context);
        assertEquals(expected.countOrNull(), actual.countOrNull(), context);
        final List<Record> theirs = new ArrayList<>();
        final List<Record> mine = new ArrayList<>();
        expected.iterator().forEachRemaining(theirs::add);
        actual.iterator().forEachRemaining(mine::add);
        assertEquals(theirs.size(), mine.size(), context);
        for (int i = 0; i < theirs.size(); i++) {
            final Record t = theirs.get(i);
            final Record m = mine.get(i);
            assertEquals(t.offset(), m.offset(), context);
            assertEquals(t.timestamp(), m.timestamp(), context);
            assertEquals(t.key(), m.key(), context);
            assertEquals(t.value(), m.value(), context);
            assertArrayEquals(t.headers(), m.headers(), context);
        }
    }

    private static MutableRecordBatch onlyBatch(final byte[] bytes) {
        final Iterator<MutableRecordBatch> batches = MemoryRecords.readableRecords(ByteBuffer.wrap(bytes)).batches()
            .iterator();
        final MutableRecordBatch batch = batches.next();
        assertFalse(batches.hasNext());
        return batch;
    }

    private static byte[] kafkaFiltered(final ByteBuffer original, final boolean[] keep) {
        final MemoryRecords records = MemoryRecords.readableRecords(original.duplicate());
        final ByteBuffer out = ByteBuffer.allocate(original.remaining() * 2 + 1024);
        final MemoryRecords.FilterResult result = records.filterTo(new KeepSome(keep), out,
            BufferSupplier.NO_CACHING, Integer.MAX_VALUE);
        final ByteBuffer written = result.outputBuffer();
        written.flip();
        final byte[] bytes = new byte[written.remaining()];
        written.get(bytes);
        return bytes;
    }

    private byte[] ourRewrite(final ByteBuffer original, final boolean[] keep) {
        final UnsafeBuffer view = new UnsafeBuffer(original, original.position(), original.remaining());
        batch.wrap(view, 0);
        boolean tombstone = false;
        reader.open(batch);
        for (int i = 0; reader.next(record); i++) {
            tombstone |= keep[i] && record.valueLength() < 0;
        }
        final UnsafeBuffer out = new UnsafeBuffer(new byte[original.remaining() * 2 + 1024]);
        builder.wrap(out, 0, out.capacity()).baseOffset(batch.baseOffset())
            .partitionLeaderEpoch(batch.partitionLeaderEpoch())
            .producer(batch.producerId(), batch.producerEpoch(), batch.baseSequence())
            .transactional(batch.isTransactional())
            .compression(CompressionType.forId(batch.compressionCodec()))
            .lastOffsetDelta(batch.lastOffsetDelta());
        if (tombstone) {
            builder.deleteHorizon(NOW_MS + DELETE_RETENTION_MS);
        }
        reader.open(batch);
        for (int i = 0; reader.next(record); i++) {
            if (keep[i]) {
                builder.appendCopy(record);
            }
        }
        final int size = builder.build();
        return Arrays.copyOf(out.byteArray(), size);
    }

    @Test
    void appendCopyRefusesAnOffsetNotAboveTheLastAndLastOffsetDeltaBelowIt() {
        final UnsafeBuffer source = RecordBatchBuilder.batchOf(100, new long[] {1, 2, 3},
            new byte[][] {{1}, {2}, {3}}, new byte[][] {{1}, null, {3}});
        batch.wrap(source, 0);
        final UnsafeBuffer out = new UnsafeBuffer(new byte[1024]);
        builder.wrap(out, 0, out.capacity()).baseOffset(100);
        reader.open(batch);
        reader.next(record);
        reader.next(record);
        builder.appendCopy(record); // offset 101, delta 1
        final IllegalArgumentException again = assertThrows(IllegalArgumentException.class,
            () -> builder.appendCopy(record));
        assertEquals(true, again.getMessage().contains("offset=101"), again.getMessage());
        builder.lastOffsetDelta(0);
        final IllegalStateException below = assertThrows(IllegalStateException.class, builder::build);
        assertEquals(true, below.getMessage().contains("lastOffsetDelta=0"), below.getMessage());
        assertThrows(IllegalStateException.class, () -> builder.deleteHorizon(5), "a horizon after a record");
    }
}
