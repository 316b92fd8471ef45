package io.seglog.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.format.InvalidRecordException;
import io.seglog.storage.io.FileIO;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link Records}: an embedder reads records without Agrona, and gets exactly what Kafka's builder wrote (keys, null
 * keys and values, headers, timestamps), across segments and from the middle of a batch; damage is refused.
 */
class RecordsTest {
    @TempDir
    Path dir;

    /** What Kafka's builder was given for each offset, the oracle. */
    private final List<SimpleRecord> written = new ArrayList<>();

    private ByteBuffer randomBatch(final SplittableRandom random, final long baseOffset) {
        final int count = 1 + random.nextInt(6);
        final SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            final byte[] key = random.nextInt(4) == 0 ? null : bytes(random, random.nextInt(20));
            final byte[] value = random.nextInt(5) == 0 ? null : bytes(random, random.nextInt(300));
            final Header[] headers = new Header[random.nextInt(3)];
            for (int h = 0; h < headers.length; h++) {
                headers[h] = new RecordHeader("h" + h, random.nextBoolean() ? null : bytes(random, random.nextInt(10)));
            }
            records[i] = new SimpleRecord(1_000 + random.nextInt(1_000), key, value, headers);
            written.add(records[i]);
        }
        return KafkaBatches.batch(baseOffset, records);
    }

    private static byte[] bytes(final SplittableRandom random, final int length) {
        final byte[] b = new byte[length];
        random.nextBytes(b);
        return b;
    }

    private static byte[] array(final ByteBuffer buffer) {
        if (buffer == null) {
            return null;
        }
        final byte[] out = new byte[buffer.remaining()];
        buffer.duplicate().get(out);
        return out;
    }

    private static void assertSameRecord(final SimpleRecord expected, final long offset, final LogRecord actual) {
        assertEquals(offset, actual.offset());
        assertEquals(expected.timestamp(), actual.timestamp(), "timestamp of " + offset);
        assertEquals(expected.key() == null ? null : ByteBuffer.wrap(array(expected.key())), actual.key(),
            "key of " + offset);
        if (expected.value() == null) {
            assertNull(actual.value(), "value of " + offset);
        } else {
            assertEquals(ByteBuffer.wrap(array(expected.value())), actual.value(), "value of " + offset);
        }
        assertEquals(expected.headers().length, actual.headers().size(), "headers of " + offset);
        for (int h = 0; h < expected.headers().length; h++) {
            assertEquals(expected.headers()[h].key(), actual.headers().get(h).key());
            final byte[] value = expected.headers()[h].value();
            assertEquals(value == null ? null : ByteBuffer.wrap(value), actual.headers().get(h).value());
        }
        assertTrue(actual.value() == null || actual.value().isReadOnly(), "views are read-only");
    }

    @Test
    void readsWhatKafkasBuilderWroteAcrossSegmentsAndFromTheMiddleOfABatch() {
        final long seed = 7;
        final SplittableRandom random = new SplittableRandom(seed);
        final LogConfig config = LogConfig.builder().segmentBytes(4_096).build();
        try (PartitionLog log = PartitionLog.open(dir.resolve("records-0"), config, FileIO.system(), new ManualClock(0))) {
            while (log.logEndOffset() < 300) {
                log.appendAsFollower(randomBatch(random, log.logEndOffset()));
            }
            assertTrue(log.segmentCount() > 2, "the range crosses segments: " + log.segmentCount());
            final long end = log.logEndOffset();
            for (final long from : new long[] {0, 1, 37, end - 1}) {
                final long to = Math.min(end, from + 150);
                long offset = from;
                for (final LogRecord record : Records.of(log, from, to)) {
                    assertSameRecord(written.get((int) offset), offset, record);
                    offset++;
                }
                assertEquals(to, offset, "seed=" + seed + " every record of [" + from + ", " + to + ")");
            }
        }
    }

    @Test
    void batchesOfASliceCarryTheirHeaderFields() {
        final SplittableRandom random = new SplittableRandom(3);
        try (PartitionLog log = PartitionLog.open(dir.resolve("batches-0"), LogConfig.defaults(), FileIO.system(),
            new ManualClock(0))) {
            final ByteBuffer first = randomBatch(random, 0);
            log.appendAsLeader(first, 4);
            log.appendAsLeader(randomBatch(random, 0), 5);
            final List<LogBatch> batches = Records.batches(log.read(0, 1 << 20, Long.MAX_VALUE, true));
            assertEquals(2, batches.size());
            assertEquals(0, batches.get(0).baseOffset());
            assertEquals(4, batches.get(0).partitionLeaderEpoch());
            assertEquals(5, batches.get(1).partitionLeaderEpoch());
            assertEquals(batches.get(0).lastOffset() + 1, batches.get(1).baseOffset());
            assertEquals(written.size(), batches.get(0).records().size() + batches.get(1).records().size());
        }
    }

    @Test
    void aDamagedOrCutBatchIsRefusedNamingTheField() {
        final ByteBuffer batch = KafkaBatches.batch(0, new SimpleRecord(1L, null, "v".getBytes(StandardCharsets.UTF_8)));
        final ByteBuffer flipped = ByteBuffer.allocate(batch.remaining()).put(batch.duplicate()).flip();
        flipped.put(flipped.limit() - 1, (byte) (flipped.get(flipped.limit() - 1) ^ 1));
        assertEquals("crc", assertThrows(InvalidRecordException.class, () -> Records.batches(flipped)).field());
        final ByteBuffer cut = batch.duplicate().limit(batch.limit() - 1);
        assertEquals("batchLength", assertThrows(InvalidRecordException.class, () -> Records.batches(cut)).field());
    }
}
