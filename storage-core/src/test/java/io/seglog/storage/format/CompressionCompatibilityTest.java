package io.seglog.storage.format;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.SplittableRandom;
import org.agrona.concurrent.UnsafeBuffer;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The four codecs against Kafka 4.4.0's own {@code MemoryRecordsBuilder} and record iterators, over the fixed seed
 * set and batches of 1 to 500 records (keys, null keys and values, headers, out-of-order timestamps): Kafka's
 * compressed batches pass our client validation and read back record for record; ours are read by Kafka with every
 * field equal; decompression is bounded; damaged compressed data is refused, never read wrong or crashed on; a
 * missing codec is named.
 */
class CompressionCompatibilityTest {
    private static final int[] SIZES = {1, 2, 64, 500};

    private final RecordBatchBuilder builder = new RecordBatchBuilder();
    private final BatchRecordReader reader = new BatchRecordReader(8 << 20);
    private final RecordBatchValidator validator = new RecordBatchValidator(Integer.MAX_VALUE);
    private final RecordBatch batch = new RecordBatch();

    @AfterEach
    void close() {
        builder.close();
        reader.close();
    }

    static Compression kafkaCompression(final CompressionType type) {
        return io.seglog.storage.KafkaBatches.compression(type.kafkaName());
    }

    @ParameterizedTest
    @EnumSource(CompressionType.class)
    void kafkasCompressedBatchesValidateAndReadBackIdentically(final CompressionType type) {
        for (final long seed : TestBatches.SEEDS) {
            final SplittableRandom random = new SplittableRandom(seed);
            for (final int count : SIZES) {
                final String context = type + " " + TestBatches.describe(seed, count);
                final TestBatches.BatchSpec spec = TestBatches.randomBatch(random, count);
                final ByteBuffer kafka = TestBatches.kafkaBatch(spec, kafkaCompression(type));
                final UnsafeBuffer view = new UnsafeBuffer(kafka, kafka.position(), kafka.remaining());

                assertEquals(1, validator.validate(view, 0, view.capacity()), context);
                assertEquals(spec.maxTimestamp(), validator.lastBatchMaxTimestamp(), context);
                batch.wrap(view, 0);
                assertEquals(type.id(), batch.compressionCodec(), context);
                TestBatches.assertRecordsEqual(spec, reader.open(batch), context);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(CompressionType.class)
    void ourCompressedBatchesReadInKafka(final CompressionType type) {
        for (final long seed : TestBatches.SEEDS) {
            final SplittableRandom random = new SplittableRandom(seed ^ 0x77);
            for (final int count : SIZES) {
                final String context = type + " " + TestBatches.describe(seed, count);
                final TestBatches.BatchSpec spec = TestBatches.randomBatch(random, count);
                final UnsafeBuffer ours = new UnsafeBuffer(new byte[spec.maxSizeInBytes() + 1024]);
                final int size = TestBatches.ourBatch(builder, ours, 0, spec, type);

                final Iterator<MutableRecordBatch> batches =
                    MemoryRecords.readableRecords(ByteBuffer.wrap(ours.byteArray(), 0, size)).batches().iterator();
                final MutableRecordBatch theirs = batches.next();
                assertFalse(batches.hasNext(), context);
                theirs.ensureValid();
                assertEquals(type.kafkaName(), theirs.compressionType().name, context);
                assertEquals(spec.baseOffset(), theirs.baseOffset(), context);
                assertEquals(spec.baseOffset() + count - 1, theirs.lastOffset(), context);
                assertEquals(spec.maxTimestamp(), theirs.maxTimestamp(), context);
                assertEquals(spec.producerId(), theirs.producerId(), context);
                assertEquals(spec.baseSequence(), theirs.baseSequence(), context);
                final List<Record> records = new ArrayList<>();
                theirs.iterator().forEachRemaining(records::add);
                assertEquals(count, records.size(), context);
                for (int i = 0; i < count; i++) {
                    final TestBatches.TestRecord expected = spec.records().get(i);
                    final Record actual = records.get(i);
                    assertEquals(spec.baseOffset() + i, actual.offset(), context);
                    assertEquals(expected.timestamp(), actual.timestamp(), context);
                    assertArrayEquals(expected.key(), bytes(actual.key()), context);
                    assertArrayEquals(expected.value(), bytes(actual.value()), context);
                    final Header[] headers = actual.headers();
                    assertEquals(expected.headers().length, headers.length, context);
                    for (int h = 0; h < headers.length; h++) {
                        assertEquals(expected.headers()[h].key(), headers[h].key(), context);
                        assertArrayEquals(expected.headers()[h].value(), headers[h].value(), context);
                    }
                }
                // And we read our own back, through the same validator a leader append uses.
                assertEquals(1, validator.validate(ours, 0, size), context);
                TestBatches.assertRecordsEqual(spec, reader.open(batch.wrap(ours, 0)), context);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = CompressionType.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
    void aBatchThatDecompressesPastTheBoundIsRefused(final CompressionType type) {
        // 4 MiB of zeros compress to a few kilobytes: a small batch that would take 4 MiB to read.
        final ByteBuffer bomb = zerosBatch(type, 64, 64 * 1024);
        final UnsafeBuffer view = new UnsafeBuffer(bomb, bomb.position(), bomb.remaining());
        assertTrue(view.capacity() < 512 * 1024, type + " compressed to " + view.capacity());
        try (BatchRecordReader small = new BatchRecordReader(1 << 20)) {
            final InvalidRecordException e = assertThrows(InvalidRecordException.class,
                () -> small.open(batch.wrap(view, 0)));
            assertEquals("records", e.field());
            assertEquals(1 << 20, e.limit(), e.getMessage());
        }
        final RecordBatchValidator bounded = new RecordBatchValidator(Integer.MAX_VALUE, 1 << 20,
            RecordBatchValidator.Origin.CLIENT);
        assertEquals(RecordBatchValidator.BAD_RECORDS, bounded.checkBatch(view, 0, view.capacity()));
        assertEquals("records", bounded.lastField());
        // Within the bound the same batch reads.
        try (BatchRecordReader large = new BatchRecordReader(8 << 20)) {
            large.open(batch.wrap(view, 0));
            final RecordView record = new RecordView();
            int n = 0;
            while (large.next(record)) {
                assertEquals(64 * 1024, record.valueLength());
                n++;
            }
            assertEquals(64, n);
        }
    }

    @ParameterizedTest
    @EnumSource(value = CompressionType.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
    void damagedCompressedRecordsAreRefusedNeverMisread(final CompressionType type) {
        final SplittableRandom random = new SplittableRandom(20_261_202L ^ type.id());
        final TestBatches.BatchSpec spec = TestBatches.randomBatch(random, 50);
        final ByteBuffer kafka = TestBatches.kafkaBatch(spec, kafkaCompression(type));
        final byte[] original = new byte[kafka.remaining()];
        kafka.duplicate().get(original);
        int refused = 0;
        for (int trial = 0; trial < 300; trial++) {
            final byte[] damaged = original.clone();
            final int at = RecordBatchDescriptor.RECORDS_OFFSET
                + random.nextInt(damaged.length - RecordBatchDescriptor.RECORDS_OFFSET);
            damaged[at] ^= (byte) (1 << random.nextInt(8));
            final UnsafeBuffer view = new UnsafeBuffer(damaged);
            // A producer that damaged its own payload sends a matching CRC: only decompression can tell.
            batch.wrap(view, 0).writeCrc();
            final String context = type + " trial=" + trial + " byte=" + at;
            try {
                reader.open(batch);
                final RecordView record = new RecordView();
                int n = 0;
                while (reader.next(record)) {
                    n++;
                }
                assertEquals(50, n, context);
            } catch (final InvalidRecordException expected) {
                refused++;
            }
            final int status = validator.checkBatch(view, 0, damaged.length);
            assertTrue(status == damaged.length || status == RecordBatchValidator.BAD_RECORDS, context + " " + status);
        }
        assertTrue(refused > 0, type + ": no damage was noticed in 300 flips");
    }

    @Test
    void aMissingCodecIsNamedAndTheOthersStillWork() {
        final TestBatches.BatchSpec spec = TestBatches.randomBatch(new SplittableRandom(3), 5);
        try (BatchRecordReader noZstd = new BatchRecordReader(1 << 20,
            Codecs.withClassProbe(name -> !name.startsWith("com.github.luben")))) {
            final ByteBuffer zstd = TestBatches.kafkaBatch(spec, kafkaCompression(CompressionType.ZSTD));
            final CodecUnavailableException e = assertThrows(CodecUnavailableException.class,
                () -> noZstd.open(batch.wrap(new UnsafeBuffer(zstd, zstd.position(), zstd.remaining()), 0)));
            assertEquals(CompressionType.ZSTD, e.codec());
            assertTrue(e.getMessage().contains("zstd") && e.getMessage().contains("com.github.luben:zstd-jni"),
                e.getMessage());
            final ByteBuffer lz4 = TestBatches.kafkaBatch(spec, kafkaCompression(CompressionType.LZ4));
            TestBatches.assertRecordsEqual(spec,
                noZstd.open(batch.wrap(new UnsafeBuffer(lz4, lz4.position(), lz4.remaining()), 0)), "lz4");
        }
    }

    @ParameterizedTest
    @EnumSource(value = CompressionType.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
    void bytesLeftAfterTheDeclaredRecordsAreRefused(final CompressionType type) {
        final TestBatches.BatchSpec spec = TestBatches.randomBatch(new SplittableRandom(11), 3);
        final ByteBuffer kafka = TestBatches.kafkaBatch(spec, kafkaCompression(type));
        final byte[] bytes = new byte[kafka.remaining()];
        kafka.duplicate().get(bytes);
        final UnsafeBuffer view = new UnsafeBuffer(bytes);
        // Claim two records (and a matching last offset delta) where three were compressed.
        view.putInt(RecordBatchDescriptor.RECORDS_COUNT_OFFSET, 2, java.nio.ByteOrder.BIG_ENDIAN);
        view.putInt(RecordBatchDescriptor.LAST_OFFSET_DELTA_OFFSET, 1, java.nio.ByteOrder.BIG_ENDIAN);
        batch.wrap(view, 0).writeCrc();
        reader.open(batch);
        final RecordView record = new RecordView();
        assertTrue(reader.next(record));
        assertTrue(reader.next(record));
        final InvalidRecordException e = assertThrows(InvalidRecordException.class, () -> reader.next(record));
        assertEquals("recordsCount", e.field());
        assertEquals(RecordBatchValidator.BAD_RECORDS, validator.checkBatch(view, 0, bytes.length));
    }

    private static ByteBuffer zerosBatch(final CompressionType type, final int records, final int valueBytes) {
        final ByteBuffer out = ByteBuffer.allocate(records * (valueBytes + 64) + 1024);
        final org.apache.kafka.common.record.internal.MemoryRecordsBuilder kafka = MemoryRecords.builder(out,
            kafkaCompression(type), org.apache.kafka.common.record.TimestampType.CREATE_TIME, 0L);
        for (int i = 0; i < records; i++) {
            kafka.append(1_000L + i, null, new byte[valueBytes]);
        }
        return kafka.build().buffer();
    }

    private static byte[] bytes(final ByteBuffer buffer) {
        if (buffer == null) {
            return null;
        }
        final byte[] out = new byte[buffer.remaining()];
        buffer.duplicate().get(out);
        return out;
    }
}
