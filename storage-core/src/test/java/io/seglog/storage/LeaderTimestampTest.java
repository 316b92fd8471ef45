package io.seglog.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.format.InvalidRecordException;
import io.seglog.storage.format.RecordBatch;
import io.seglog.storage.format.RecordBatchBuilder;
import io.seglog.storage.format.RecordBatchDescriptor;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A leader append takes a batch's max timestamp from its records, not its header (Kafka's
 * {@code LogValidator.assignOffsetsNonCompressed}), and enforces {@code message.timestamp.before.max.ms} /
 * {@code message.timestamp.after.max.ms} with {@code CreateTime}.
 */
class LeaderTimestampTest {
    private static final long NOW_MS = 10_000_000L;

    @TempDir
    Path dir;

    /** The reviewer's case: a header whose maxTimestamp understates its records. */
    @Test
    void leaderAppendUsesTheRecordsMaxTimestampNotTheHeadersClaim() throws IOException {
        final ByteBuffer batch = lyingBatch(0, new long[] {1_000, 5_000}, 1_000);
        try (PartitionLog log = open(LogConfig.builder().build(), 0)) {
            log.appendAsLeader(batch, 0);
            assertEquals(1, log.offsetForTimestamp(3_000));
            final RecordBatch stored = readBack(log);
            assertEquals(5_000, stored.maxTimestamp(), "header rewritten");
            assertTrue(stored.isCrcValid(), "CRC recomputed after the rewrite");
        }
    }

    @Test
    void overstatedHeaderMaxTimestampIsLoweredToTheRecords() throws IOException {
        final ByteBuffer batch = lyingBatch(0, new long[] {1_000, 2_000}, 9_000);
        try (PartitionLog log = open(LogConfig.builder().build(), 0)) {
            log.appendAsLeader(batch, 0);
            assertEquals(-1, log.offsetForTimestamp(3_000), "no record is at 3000 or later");
            final RecordBatch stored = readBack(log);
            assertEquals(2_000, stored.maxTimestamp());
            assertTrue(stored.isCrcValid());
        }
    }

    @Test
    void honestHeaderIsLeftAsItIs() throws IOException {
        final UnsafeBuffer built = RecordBatchBuilder.batchOf(0, new long[] {1_000, 5_000}, null,
            new byte[][] {{1}, {2}});
        final long crc = new RecordBatch().wrap(built, 0).crc();
        try (PartitionLog log = open(LogConfig.builder().build(), 0)) {
            log.appendAsLeader(copy(built), 0);
            final RecordBatch stored = readBack(log);
            assertEquals(5_000, stored.maxTimestamp());
            assertEquals(crc, stored.crc());
        }
    }

    @Test
    void rejectsRecordBeforeTheBeforeMaxBoundNamingFieldValueAndBound() {
        final LogConfig config = LogConfig.builder().messageTimestampBeforeMaxMs(1_000).build();
        final ByteBuffer batch = copy(RecordBatchBuilder.batchOf(0, new long[] {NOW_MS, NOW_MS - 1_001}, null,
            new byte[][] {{1}, {2}}));
        try (PartitionLog log = open(config, NOW_MS)) {
            final InvalidRecordException e = assertThrows(InvalidRecordException.class,
                () -> log.appendAsLeader(batch, 0));
            assertEquals("timestamp", e.field());
            assertEquals(NOW_MS - 1_001, e.value());
            assertEquals(NOW_MS - 1_000, e.limit());
            assertTrue(e.getMessage().contains(LogConfig.MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG + "=1000"),
                e.getMessage());
            assertEquals(0, log.logEndOffset());
        }
    }

    @Test
    void rejectsRecordAfterTheDefaultAfterMaxBoundOfOneHour() {
        assertEquals(3_600_000L, LogConfig.builder().build().messageTimestampAfterMaxMs(), "Kafka 4.4's default");
        final long tooLate = NOW_MS + 3_600_001L;
        final ByteBuffer batch = copy(RecordBatchBuilder.batchOf(0, new long[] {NOW_MS, tooLate}, null,
            new byte[][] {{1}, {2}}));
        try (PartitionLog log = open(LogConfig.builder().build(), NOW_MS)) {
            final InvalidRecordException e = assertThrows(InvalidRecordException.class,
                () -> log.appendAsLeader(batch, 0));
            assertEquals("timestamp", e.field());
            assertEquals(tooLate, e.value());
            assertEquals(NOW_MS + 3_600_000L, e.limit());
            assertTrue(e.getMessage().contains(LogConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG), e.getMessage());
        }
    }

    @Test
    void logAppendTimeIgnoresTheBounds() {
        final LogConfig config = LogConfig.builder().messageTimestampType(TimestampType.LOG_APPEND_TIME)
            .messageTimestampAfterMaxMs(0).messageTimestampBeforeMaxMs(0).build();
        try (PartitionLog log = open(config, NOW_MS)) {
            assertEquals(0, log.appendAsLeader(copy(RecordBatchBuilder.batchOf(0, NOW_MS * 2, new byte[] {1})), 0));
        }
    }

    @Test
    void rejectedAppendLeavesTheCallersBufferUnchanged() {
        // Two batches: the first is fine (and its header lies), the second breaks the bound; nothing is stamped.
        final ByteBuffer first = lyingBatch(7, new long[] {NOW_MS, NOW_MS + 1}, NOW_MS);
        final ByteBuffer second = copy(RecordBatchBuilder.batchOf(9, NOW_MS + 7_200_000L, new byte[] {3}));
        final ByteBuffer both = ByteBuffer.allocate(first.capacity() + second.capacity());
        both.put(first).put(second).flip();
        final byte[] before = new byte[both.remaining()];
        both.duplicate().get(before);
        try (PartitionLog log = open(LogConfig.builder().build(), NOW_MS)) {
            final InvalidRecordException e = assertThrows(InvalidRecordException.class,
                () -> log.appendAsLeader(both, 3));
            assertEquals(1, e.batchIndex());
            final byte[] after = new byte[both.remaining()];
            both.duplicate().get(after);
            assertArrayEquals(before, after);
        }
    }

    @Test
    void boundsAreReadFromKafkasPropertyNamesAndValidated() {
        final LogConfig config = LogConfig.fromProperties(java.util.Map.of(
            LogConfig.MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG, "5000", LogConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG, "7"));
        assertEquals(5_000, config.messageTimestampBeforeMaxMs());
        assertEquals(7, config.messageTimestampAfterMaxMs());
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> LogConfig.builder().messageTimestampAfterMaxMs(-1).build());
        assertTrue(e.getMessage().contains(LogConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG), e.getMessage());
    }

    private PartitionLog open(final LogConfig config, final long nowMs) {
        return PartitionLog.open(dir.resolve("t-0"), config, FileIO.system(), new ManualClock(nowMs));
    }

    private static ByteBuffer lyingBatch(final long baseOffset, final long[] timestamps, final long headerMax) {
        final ByteBuffer batch = copy(RecordBatchBuilder.batchOf(baseOffset, timestamps, null,
            new byte[][] {{1}, {2}}));
        final UnsafeBuffer view = new UnsafeBuffer(batch);
        view.putLong(RecordBatchDescriptor.MAX_TIMESTAMP_OFFSET, headerMax, ByteOrder.BIG_ENDIAN);
        view.putInt(RecordBatchDescriptor.CRC_OFFSET, (int) new RecordBatch().wrap(view, 0).computeCrc(),
            ByteOrder.BIG_ENDIAN);
        return batch;
    }

    private static RecordBatch readBack(final PartitionLog log) throws IOException {
        final LogSlice slice = log.read(0, 1 << 16, Long.MAX_VALUE, true);
        final ByteBuffer bytes = ByteBuffer.allocate(slice.sizeInBytes());
        slice.readInto(bytes);
        return new RecordBatch().wrap(new UnsafeBuffer(bytes), 0);
    }

    private static ByteBuffer copy(final UnsafeBuffer batch) {
        final ByteBuffer copy = ByteBuffer.allocate(batch.capacity());
        batch.getBytes(0, copy, 0, batch.capacity());
        return copy;
    }
}
