package io.seglog.storage;

import static io.seglog.storage.KafkaBatches.batchAtOffsets;
import static io.seglog.storage.KafkaBatches.batches;
import static io.seglog.storage.KafkaBatches.bytesOf;
import static io.seglog.storage.KafkaBatches.concat;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.format.InvalidRecordException;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Offset gaps between batches, as a compacted Kafka leader log has them (compaction drops whole batches):
 * with {@code cleanup.policy=compact} follower appends keep them (Kafka's rule: offsets only grow), rolls start
 * the new segment at the first batch, reads and truncation inside a gap land on the next batch, and recovery
 * after a crash keeps a gap that was durable instead of calling it corruption. The same holds under
 * {@code cleanup.policy=delete} (a topic compacted once keeps its gaps when switched), and a flipped bit in a base
 * offset is still caught by the checks of each batch against its neighbours.
 */
class FollowerGapTest {
    @TempDir
    Path dir;

    /** A compacted topic's log, with segments small enough that almost every append rolls. */
    private static final LogConfig SMALL_SEGMENTS = LogConfig.builder().segmentBytes(200)
        .cleanupPolicy(CleanupPolicy.COMPACT).build();

    private PartitionLog open(final RecoveryOptions recovery) {
        return PartitionLog.open(dir.resolve("gaps-0"), SMALL_SEGMENTS, FileIO.system(), new ManualClock(0),
            new SplittableRandom(1), recovery);
    }

    /** Appends batches at 0-1, 5, 6-7, 20-22 and, in one call, 30 and 40-41; returns the expected batch list. */
    private static long[][] appendGappedBatches(final PartitionLog log) {
        assertEquals(1, log.appendAsFollower(batchAtOffsets(0, 0, 1)));
        assertEquals(5, log.appendAsFollower(batchAtOffsets(0, 5)));
        assertEquals(7, log.appendAsFollower(batchAtOffsets(1, 6, 7)));
        assertEquals(22, log.appendAsFollower(batchAtOffsets(1, 20, 21, 22)));
        assertEquals(41, log.appendAsFollower(concat(batchAtOffsets(2, 30), batchAtOffsets(2, 40, 41))));
        return new long[][] {{0, 1}, {5, 5}, {6, 7}, {20, 22}, {30, 30}, {40, 41}};
    }

    private static List<long[]> readAll(final PartitionLog log, final long from) throws IOException {
        return readAll(log, from, log.logEndOffset());
    }

    /** Reads batch by batch from {@code from} while the next offset is below {@code lastBatchEnd}. */
    private static List<long[]> readAll(final PartitionLog log, final long from, final long lastBatchEnd)
        throws IOException {
        final List<long[]> out = new ArrayList<>();
        long next = from;
        while (next < lastBatchEnd) {
            final List<RecordBatch> read = batches(bytesOf(log.read(next, 1 << 20, Long.MAX_VALUE, true)));
            assertFalse(read.isEmpty(), "read at " + next + " returned nothing below the log end");
            for (final RecordBatch b : read) {
                out.add(new long[] {b.baseOffset(), b.lastOffset()});
                next = b.lastOffset() + 1;
            }
        }
        return out;
    }

    private static void assertBatches(final long[][] expected, final List<long[]> actual) {
        assertEquals(expected.length, actual.size());
        for (int i = 0; i < expected.length; i++) {
            assertArrayEquals(expected[i], actual.get(i), "batch " + i);
        }
    }

    @Test
    void aGapRightBeforeAnEpochChangeInOneSegmentReopensCleanlyWithItsEpochs() {
        final LogConfig oneSegment = LogConfig.builder().cleanupPolicy(CleanupPolicy.COMPACT).build();
        final Path partition = dir.resolve("epoch-gap-0");
        try (PartitionLog log = PartitionLog.open(partition, oneSegment, FileIO.system(), new ManualClock(0))) {
            log.appendAsFollower(batchAtOffsets(0, 0, 1, 2, 3, 4));
            log.appendAsFollower(batchAtOffsets(1, 10, 11, 12)); // offsets 5..9 compacted away, then epoch 1
            assertEquals(1, log.segmentCount());
        }
        // Before, the epoch-checkpoint check looked up offset 9 for "the batch before", found the epoch-1 batch
        // itself in the gap, and refused the healthy log.
        for (final RecoveryOptions options : new RecoveryOptions[] {RecoveryOptions.clean(), RecoveryOptions.afterCrash(0)}) {
            try (PartitionLog log = PartitionLog.open(partition, oneSegment, FileIO.system(), new ManualClock(0),
                new SplittableRandom(1), options)) {
                assertEquals(List.of(new LeaderEpochEntry(0, 0), new LeaderEpochEntry(1, 10)), log.leaderEpochs());
                assertEquals(new EpochEndOffset(0, 10), log.endOffsetForEpoch(0));
                assertEquals(13, log.logEndOffset());
            }
        }
    }

    @Test
    void followerKeepsGapsAndRollsAtTheFirstBatch() throws IOException {
        try (PartitionLog log = open(RecoveryOptions.afterCrash(0))) {
            final long[][] expected = appendGappedBatches(log);
            assertEquals(42, log.logEndOffset());
            assertBatches(expected, readAll(log, 0));
            // Rolled segments start at a batch, never inside the gap before it.
            for (final long base : log.segmentBaseOffsets()) {
                assertTrue(base == 0 || base == 5 || base == 6 || base == 20 || base == 30,
                    "segment base " + base + " is not a batch's first offset");
            }
            // A read from inside a gap starts at the next batch, within a segment and across segments.
            assertEquals(5, batches(bytesOf(log.read(2, 1 << 20, Long.MAX_VALUE, true))).get(0).baseOffset());
            assertEquals(20, batches(bytesOf(log.read(8, 1 << 20, Long.MAX_VALUE, true))).get(0).baseOffset());
            assertEquals(40, batches(bytesOf(log.read(31, 1 << 20, Long.MAX_VALUE, true))).get(0).baseOffset());
        }
    }

    @Test
    void overlapsAreStillRefusedAllOrNothing() throws IOException {
        try (PartitionLog log = open(RecoveryOptions.afterCrash(0))) {
            log.appendAsFollower(batchAtOffsets(0, 0, 1, 2));
            final InvalidRecordException overlap = assertThrows(InvalidRecordException.class,
                () -> log.appendAsFollower(batchAtOffsets(0, 2, 3)));
            assertEquals("baseOffset", overlap.field());
            assertEquals(2, overlap.value());
            assertEquals(3, overlap.limit());
            // A gapped first batch followed by one going back into it: nothing is appended.
            final InvalidRecordException inner = assertThrows(InvalidRecordException.class,
                () -> log.appendAsFollower(concat(batchAtOffsets(0, 10, 11), batchAtOffsets(0, 11))));
            assertEquals(1, inner.batchIndex());
            assertEquals(12, inner.limit());
            assertEquals(3, log.logEndOffset());
            assertEquals(1, readAll(log, 0).size());
        }
    }

    @Test
    void cleanReopenAndCrashRecoveryKeepDurableGaps() throws IOException {
        final long[][] expected;
        final long[] bases;
        try (PartitionLog log = open(RecoveryOptions.afterCrash(0))) {
            expected = appendGappedBatches(log);
            log.flush();
            bases = log.segmentBaseOffsets();
        }
        try (PartitionLog log = open(RecoveryOptions.clean())) {
            assertBatches(expected, readAll(log, 0));
            assertArrayEquals(bases, log.segmentBaseOffsets());
        }
        // After a crash with everything flushed (recovery point = log end): every gap was durable, so all stays.
        try (PartitionLog log = open(RecoveryOptions.afterCrash(42))) {
            assertTrue(log.recoveryReport().recovered());
            assertFalse(log.recoveryReport().droppedData(), log.recoveryReport().toString());
            assertEquals(42, log.logEndOffset());
            assertBatches(expected, readAll(log, 0));
            assertArrayEquals(bases, log.segmentBaseOffsets());
        }
        // From recovery point 0 every segment is scanned: gaps inside a segment cannot come from a crash (lost
        // bytes fail the CRC), so they stay; between segments a gap after an unflushed segment could be its lost
        // tail, so the log is cut at the first such segment boundary and the follower refetches from there.
        try (PartitionLog log = open(RecoveryOptions.afterCrash(0))) {
            assertTrue(log.logEndOffset() >= 2, "the first batch was whole and continues the segment base");
            final List<long[]> kept = readAll(log, 0);
            for (int i = 0; i < kept.size(); i++) {
                assertArrayEquals(expected[i], kept.get(i), "kept batch " + i);
            }
            assertEquals(kept.get(kept.size() - 1)[1] + 1, log.logEndOffset());
        }
    }

    @Test
    void underDeleteAFollowerKeepsGapsAndAGappedLogReopens() throws IOException {
        // A topic compacted once and then switched to delete: its leader's log has gaps, and so does the follower's.
        final LogConfig delete = LogConfig.builder().segmentBytes(200).build();
        final Path partition = dir.resolve("switched-0");
        try (PartitionLog log = PartitionLog.open(partition, delete, FileIO.system(), new ManualClock(0),
            new SplittableRandom(1), RecoveryOptions.afterCrash(0))) {
            appendGappedBatches(log);
            final InvalidRecordException overlap = assertThrows(InvalidRecordException.class,
                () -> log.appendAsFollower(batchAtOffsets(2, 41)));
            assertEquals("baseOffset", overlap.field(), "an overlap is still refused");
            assertEquals(42, overlap.limit());
            log.flush();
        }
        final long[][] expected = {{0, 1}, {5, 5}, {6, 7}, {20, 22}, {30, 30}, {40, 41}};
        for (final RecoveryOptions recovery : new RecoveryOptions[] {RecoveryOptions.afterCrash(42),
            RecoveryOptions.afterCrash(0)}) {
            try (PartitionLog log = PartitionLog.open(partition, delete, FileIO.system(), new ManualClock(0),
                new SplittableRandom(1), recovery)) {
                if (recovery.recoveryPoint() == 42) {
                    assertFalse(log.recoveryReport().droppedData(), log.recoveryReport().toString());
                    assertEquals(42, log.logEndOffset());
                    assertBatches(expected, readAll(log, 0));
                } else {
                    // Scanned from 0: as under compact, a gap after an unflushed segment may be its lost tail.
                    final List<long[]> kept = readAll(log, 0);
                    for (int i = 0; i < kept.size(); i++) {
                        assertArrayEquals(expected[i], kept.get(i), "kept batch " + i);
                    }
                }
            }
        }
    }

    @Test
    void aFlippedBaseOffsetBitIsStillReportedUnderEveryPolicy() throws IOException {
        for (final CleanupPolicy policy : new CleanupPolicy[] {CleanupPolicy.DELETE, CleanupPolicy.COMPACT}) {
            for (final int bit : new int[] {3, 1}) {
                final Path partition = dir.resolve("flip-" + policy.ordinal() + bit + "-0");
                final LogConfig config = LogConfig.builder().cleanupPolicy(policy).build();
                final java.util.List<Integer> positions = new ArrayList<>();
                try (PartitionLog log = PartitionLog.open(partition, config, FileIO.system(), new ManualClock(0),
                    new SplittableRandom(1), RecoveryOptions.afterCrash(0))) {
                    int at = 0;
                    for (long base = 0; base < 20; base += 2) {
                        final java.nio.ByteBuffer batch = batchAtOffsets(0, base, base + 1);
                        positions.add(at);
                        at += batch.remaining();
                        log.appendAsFollower(batch);
                    }
                    log.flush();
                }
                // Batch 3 holds offsets 6-7. Bit 3 up: 14-15, into the next batches (8-9...): the batch is the odd
                // one out. Bit 1 down: 4-5, back into the previous batch's offsets.
                final int position = positions.get(3); // both flips are blamed on the batch that moved
                final Path file = partition.resolve("00000000000000000000.log");
                final byte[] bytes = java.nio.file.Files.readAllBytes(file);
                bytes[position + 7] ^= (byte) (1 << bit);
                java.nio.file.Files.write(file, bytes);
                final CorruptLogException corrupt = assertThrows(CorruptLogException.class, () -> PartitionLog.open(
                    partition, config, FileIO.system(), new ManualClock(0), new SplittableRandom(1),
                    RecoveryOptions.afterCrash(20)), policy + " bit " + bit);
                assertEquals(position, corrupt.position(), corrupt.getMessage());
                assertEquals(bit == 3 ? "lastOffset" : "baseOffset", corrupt.field(), corrupt.getMessage());
            }
        }
    }

    @Test
    void truncationInsideAGapEndsTheLogThere() throws IOException {
        try (PartitionLog log = open(RecoveryOptions.afterCrash(0))) {
            appendGappedBatches(log);
            log.truncateTo(25);
            assertEquals(25, log.logEndOffset());
            final List<long[]> kept = readAll(log, 0, 23);
            assertArrayEquals(new long[] {20, 22}, kept.get(kept.size() - 1));
            // Between the last batch and the new log end there is nothing to read.
            assertEquals(0, log.read(23, 1 << 20, Long.MAX_VALUE, true).sizeInBytes());
            // The follower then continues from the truncation point, with or without a gap.
            assertEquals(26, log.appendAsFollower(batchAtOffsets(2, 25, 26)));
            assertEquals(50, log.appendAsFollower(batchAtOffsets(2, 50)));
            assertEquals(51, log.logEndOffset());
        }
    }
}
