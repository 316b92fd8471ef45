package io.seglog.storage;

import static io.seglog.storage.KafkaBatches.batch;
import static io.seglog.storage.KafkaBatches.batchAtOffsets;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.format.InvalidRecordException;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The active segment rolls on each of Kafka's conditions, and on none other. */
class SegmentRollTest {
    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(1_700_000_000_000L);

    /** A jitter source that always answers {@code jitterMs} (bounded as the log asks). */
    private static RandomGenerator fixedJitter(final long jitterMs) {
        return new RandomGenerator() {
            @Override
            public long nextLong() {
                return jitterMs;
            }

            @Override
            public long nextLong(final long bound) {
                return Math.min(jitterMs, bound - 1);
            }
        };
    }

    private PartitionLog open(final LogConfig config, final RandomGenerator jitter) {
        return PartitionLog.open(dir.resolve("roll-0"), config, FileIO.system(), clock, jitter);
    }

    @Test
    void rollsWhenTheNextAppendWouldExceedSegmentBytes() throws IOException {
        final int batchSize = batch(0, 1).remaining();
        // Room for exactly three batches per segment.
        final LogConfig config = LogConfig.builder().segmentBytes(3 * batchSize).build();
        try (PartitionLog log = open(config, fixedJitter(0))) {
            for (int i = 0; i < 7; i++) {
                log.appendAsLeader(batch(0, 1), 0);
            }
            assertArrayEquals(new long[] {0, 3, 6}, log.segmentBaseOffsets());
            // Rolled segments are trimmed to their data; the active one's file may run past it (the mapped tail),
            // so its data is its published size.
            assertEquals(3L * batchSize, Files.size(log.dir().resolve("00000000000000000000.log")));
            assertEquals(3L * batchSize, Files.size(log.dir().resolve("00000000000000000003.log")));
            assertEquals(3 * batchSize, log.segments().get(0).sizeInBytes());
            assertEquals(3 * batchSize, log.segments().get(1).sizeInBytes());
            assertEquals(batchSize, log.segments().get(2).sizeInBytes());
        }
        assertEquals(batchSize, Files.size(dir.resolve("roll-0").resolve("00000000000000000006.log")),
            "close trims the active segment to its data");
    }

    @Test
    void rejectsABatchLargerThanASegment() {
        final ByteBuffer big = batch(0, 1, 2, 3);
        final LogConfig config = LogConfig.builder().segmentBytes(big.remaining() - 1).build();
        try (PartitionLog log = open(config, fixedJitter(0))) {
            final InvalidRecordException e = assertThrows(InvalidRecordException.class, () -> log.appendAsLeader(big, 0));
            assertEquals(big.remaining() - 1, e.limit());
        }
    }

    @Test
    void rollsOnRecordTimeMinusJitter() {
        final LogConfig config = LogConfig.builder().segmentMs(1_000).segmentJitterMs(500).build();
        try (PartitionLog log = open(config, fixedJitter(300))) {
            log.appendAsLeader(batch(0, 10_000), 0);
            log.appendAsLeader(batch(0, 10_700), 0); // waited 700 = segment.ms - jitter: not more, no roll
            assertEquals(1, log.segmentCount());
            log.appendAsLeader(batch(0, 10_701), 0); // waited 701 > 700
            assertArrayEquals(new long[] {0, 2}, log.segmentBaseOffsets());
            // The wall clock plays no part while batches carry timestamps.
            clock.advanceMs(10_000_000);
            log.appendAsLeader(batch(0, 10_702), 0);
            assertEquals(2, log.segmentCount());
        }
    }

    @Test
    void timeBasedRollsKeepCountingInRecordTimeAfterReopen() {
        final LogConfig config = LogConfig.builder().segmentMs(1_000).build();
        try (PartitionLog log = open(config, fixedJitter(0))) {
            log.appendAsLeader(batch(0, 10_000), 0);
        }
        try (PartitionLog log = open(config, fixedJitter(0))) {
            log.appendAsLeader(batch(0, 11_000), 0); // 1000 after the segment's first batch: not more
            assertEquals(1, log.segmentCount());
            log.appendAsLeader(batch(0, 11_001), 0);
            assertArrayEquals(new long[] {0, 2}, log.segmentBaseOffsets());
        }
    }

    @Test
    void rollsOnWallClockWhenBatchesHaveNoTimestamp() {
        final LogConfig config = LogConfig.builder().segmentMs(1_000).build();
        try (PartitionLog log = open(config, fixedJitter(0))) {
            log.appendAsLeader(batch(0, -1L), 0);
            clock.advanceMs(1_000);
            log.appendAsLeader(batch(0, -1L), 0);
            assertEquals(1, log.segmentCount());
            clock.advanceMs(1);
            log.appendAsLeader(batch(0, -1L), 0);
            assertArrayEquals(new long[] {0, 2}, log.segmentBaseOffsets());
        }
    }

    @Test
    void rollsWhenAnIndexIsFull() {
        // 24 bytes: offset index 3 entries, time index 2 slots of which the last is reserved for the roll entry.
        final LogConfig config = LogConfig.builder().segmentIndexBytes(24).indexIntervalBytes(0).build();
        try (PartitionLog log = open(config, fixedJitter(0))) {
            log.appendAsLeader(batch(0, 1), 0); // first batch of a segment: never indexed
            log.appendAsLeader(batch(0, 2), 0); // one entry in each index: the time index is now full
            assertEquals(1, log.segmentCount());
            log.appendAsLeader(batch(0, 3), 0);
            assertArrayEquals(new long[] {0, 2}, log.segmentBaseOffsets());
        }
    }

    @Test
    void rollsWhenAnOffsetWouldOverflowThe32BitRelativeOffset() {
        try (PartitionLog log = open(LogConfig.defaults(), fixedJitter(0))) {
            log.appendAsFollower(batchAtOffsets(0, 0));
            // A compacted batch spanning [1, 2^31 - 1]: its last offset is exactly the largest relative offset.
            log.appendAsFollower(batchAtOffsets(0, 1, Integer.MAX_VALUE));
            assertEquals(1, log.segmentCount());
            log.appendAsFollower(batchAtOffsets(0, Integer.MAX_VALUE + 1L));
            assertArrayEquals(new long[] {0, Integer.MAX_VALUE + 1L}, log.segmentBaseOffsets());
            assertTrue(Files.exists(log.dir().resolve("00000000002147483648.log")));
            assertEquals(Integer.MAX_VALUE + 2L, log.logEndOffset());
        }
    }

    @Test
    void rejectsAnAppendSpanningMoreOffsetsThanASegmentCanHold() {
        try (PartitionLog log = open(LogConfig.defaults(), fixedJitter(0))) {
            final ByteBuffer both = KafkaBatches.concat(batchAtOffsets(0, 0, Integer.MAX_VALUE),
                batchAtOffsets(0, Integer.MAX_VALUE + 1L));
            assertThrows(InvalidRecordException.class, () -> log.appendAsFollower(both));
            assertEquals(0, log.logEndOffset());
        }
    }

    @Test
    void rolledSegmentIndexesAreTrimmedAndTheActiveOnesPreallocated() throws IOException {
        final int batchSize = batch(0, 1).remaining();
        final LogConfig config = LogConfig.builder().segmentBytes(4 * batchSize).indexIntervalBytes(0)
            .segmentIndexBytes(4096).build();
        try (PartitionLog log = open(config, fixedJitter(0))) {
            for (int i = 0; i < 5; i++) {
                log.appendAsLeader(batch(0, 100 + i), 0);
            }
            // Rolled segment: 3 offset entries (batches 2..4), 3 time entries + none extra (last ts already indexed).
            assertEquals(3 * 8, Files.size(log.dir().resolve("00000000000000000000.index")));
            assertEquals(3 * 12, Files.size(log.dir().resolve("00000000000000000000.timeindex")));
            assertEquals(4096, Files.size(log.dir().resolve("00000000000000000004.index")));
            assertEquals(4096 / 12 * 12, Files.size(log.dir().resolve("00000000000000000004.timeindex")));
        }
        // Close trims the active segment too; its max timestamp gets the final time-index entry.
        assertEquals(0, Files.size(dir.resolve("roll-0").resolve("00000000000000000004.index")));
        assertEquals(12, Files.size(dir.resolve("roll-0").resolve("00000000000000000004.timeindex")));
    }

    @Test
    void aRollUnderALogManagerFlushesTheSegmentsItLeftBehindOnTheScheduler() {
        // Kafka's policy: a roll schedules a flush of everything below the new segment's base, so the recovery point
        // follows the rolls even with flush.messages and flush.ms off.
        final ManualClock clock = new ManualClock(1_000);
        final ManualScheduler scheduler = new ManualScheduler(clock);
        final LogConfig small = LogConfig.builder().segmentBytes(1_024).messageTimestampAfterMaxMs(Long.MAX_VALUE)
            .build();
        try (LogManager logs = LogManager.open(LogManagerConfig.builder().logDirs(dir).logConfig(small).build(),
            io.seglog.storage.io.FileIO.system(), scheduler, clock)) {
            final PartitionLog log = logs.getOrCreate(new TopicPartition("orders", 0));
            long segmentsBefore = log.segmentCount();
            while (log.segmentCount() == segmentsBefore) {
                log.appendAsLeader(KafkaBatches.batch(0, 1_000L, 1_001L), 0);
            }
            final long[] bases = log.segmentBaseOffsets();
            final long rolledTo = bases[bases.length - 1];
            assertEquals(0, log.flushedOffset(), "nothing flushed before the scheduler runs");
            assertTrue(scheduler.pending("flush-rolled") >= 1, "the roll scheduled a flush");
            scheduler.advanceMs(0);
            assertEquals(rolledTo, log.flushedOffset(), "everything below the new segment is on disk");
            assertTrue(log.logEndOffset() > rolledTo, "the new segment's own data waits for its own flush");
        }
    }
}
