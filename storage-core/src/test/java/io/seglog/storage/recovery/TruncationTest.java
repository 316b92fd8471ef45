package io.seglog.storage.recovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.KafkaBatches;
import io.seglog.storage.ManualClock;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.RecoveryOptions;
import io.seglog.storage.LeaderEpochEntry;
import io.seglog.storage.EpochEndOffset;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** truncateTo and truncateFullyAndStartAt: exact log end, files, epochs, appends after, reopen after (AP-07). */
class TruncationTest extends ScratchDirTest {
    TruncationTest() {
        super("recovery");
    }

    private LogImage seeded(final Path dir) throws IOException {
        final LogImage image = LogImage.build(dir, SMALL_SEGMENTS, 99L, 40);
        assertTrue(image.segmentBases.size() >= 4, "segments: " + image.segmentBases);
        return image;
    }

    private static PartitionLog open(final Path dir) {
        return PartitionLog.open(dir, SMALL_SEGMENTS, FileIO.system(), new ManualClock(1_000));
    }

    @Test
    void truncateToEveryBatchBoundaryKeepsExactlyThePrefixAcrossReopen() throws IOException {
        final Path original = tmp.resolve("original");
        final LogImage image = seeded(original);
        final SplittableRandom random = new SplittableRandom(3);
        for (int trial = 0; trial < 12; trial++) {
            final LogImage.Batch cut = image.batches.get(random.nextInt(image.batches.size()));
            final Path dir = tmp.resolve("t" + trial);
            LogImage.write(image.files, dir);
            final String context = "truncateTo(" + cut.baseOffset() + ")";
            try (PartitionLog log = open(dir)) {
                assertEquals(cut.baseOffset(), log.truncateTo(cut.baseOffset()), context);
                image.assertServes(log, cut.baseOffset(), context);
                assertTimestampSearch(image, log, cut.baseOffset(), context);
                for (int s = cut.segment() + 1; s < image.segmentBases.size(); s++) {
                    assertFalse(Files.exists(dir.resolve(LogImage.logName(image.segmentBases.get(s)))), context);
                }
                // Appends continue at the new end, in the same or a later epoch.
                final int epoch = Math.max(0, log.latestEpoch()) + 1;
                assertEquals(cut.baseOffset() + 1, log.appendAsLeader(KafkaBatches.batch(0, 5L, 6L), epoch));
                assertEquals(new EpochEndOffset(epoch, cut.baseOffset() + 2), log.endOffsetForEpoch(epoch));
                if (cut.baseOffset() > 0) {
                    assertEquals(cut.baseOffset(), log.endOffsetForEpoch(epoch - 1).endOffset(), context);
                }
            }
            for (final RecoveryOptions options : List.of(RecoveryOptions.clean(), RecoveryOptions.afterCrash(0))) {
                try (PartitionLog log = PartitionLog.open(dir, SMALL_SEGMENTS, FileIO.system(), new ManualClock(1_000),
                    new SplittableRandom(1), options)) {
                    assertEquals(cut.baseOffset() + 2, log.logEndOffset(), context + " reopened " + options);
                    assertEquals(cut.baseOffset(), log.read(cut.baseOffset(), 1, Long.MAX_VALUE, true).firstOffset());
                    assertTrue(log.recoveryReport().truncations().isEmpty(), context + " " + log.recoveryReport());
                }
            }
        }
    }

    /** offsetForTimestamp after truncation agrees with a linear scan of the surviving records. */
    private static void assertTimestampSearch(final LogImage image, final PartitionLog log, final long end,
                                              final String context) {
        final List<long[]> records = new java.util.ArrayList<>();   // (offset, timestamp)
        for (final LogImage.Batch b : image.batches) {
            if (b.baseOffset() >= end) {
                break;
            }
            for (final org.apache.kafka.common.record.internal.Record r
                : KafkaBatches.records(java.nio.ByteBuffer.wrap(b.bytes()))) {
                records.add(new long[] {r.offset(), r.timestamp()});
            }
        }
        for (long ts = 6_990_000; ts < 7_010_000; ts += 777) {
            long expected = -1;
            for (final long[] r : records) {
                if (r[1] >= ts) {
                    expected = r[0];
                    break;
                }
            }
            assertEquals(expected, log.offsetForTimestamp(ts), context + ": offsetForTimestamp(" + ts + ")");
        }
    }

    @Test
    void anOffsetInsideABatchTakesTheWholeBatch() throws IOException {
        final Path dir = tmp.resolve("mid");
        try (PartitionLog log = open(dir)) {
            log.appendAsLeader(KafkaBatches.batch(0, 1L, 2L, 3L), 0);   // offsets 0-2
            log.appendAsLeader(KafkaBatches.batch(0, 4L, 5L, 6L), 0);   // offsets 3-5
            assertEquals(3, log.truncateTo(4));
            assertEquals(3, log.logEndOffset());
            assertEquals(5, log.appendAsLeader(KafkaBatches.batch(0, 7L, 8L, 9L), 1));
        }
        try (PartitionLog log = open(dir)) {
            assertEquals(6, log.logEndOffset());
            assertEquals(List.of(new LeaderEpochEntry(0, 0), new LeaderEpochEntry(1, 3)), log.leaderEpochs());
        }
    }

    @Test
    void truncateAtOrPastTheEndChangesNothingAndNegativeIsRefused() throws IOException {
        try (PartitionLog log = open(tmp.resolve("noop"))) {
            log.appendAsLeader(KafkaBatches.batch(0, 1L, 2L), 2);
            assertEquals(2, log.truncateTo(2));
            assertEquals(2, log.truncateTo(50));
            assertEquals(2, log.logEndOffset());
            final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> log.truncateTo(-1));
            assertTrue(e.getMessage().contains("offset=-1"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> log.truncateFullyAndStartAt(-5));
            assertEquals(2, log.logEndOffset());
        }
    }

    @Test
    void truncateFullyAndStartAtRestartsTheLogEmptyAtTheOffset() throws IOException {
        final Path dir = tmp.resolve("full");
        final LogImage image = seeded(dir);
        try (PartitionLog log = open(dir)) {
            log.truncateFullyAndStartAt(1_000);
            assertEquals(1_000, log.logStartOffset());
            assertEquals(1_000, log.logEndOffset());
            assertEquals(1, log.segmentCount());
            assertTrue(log.leaderEpochs().isEmpty());
            assertTrue(log.read(1_000, 100, Long.MAX_VALUE, true).isEmpty());
            assertEquals(1_001, log.appendAsFollower(KafkaBatches.batchAtOffsets(9, 1_000, 1_001)));
        }
        for (final long base : image.segmentBases) {
            assertFalse(Files.exists(dir.resolve(LogImage.logName(base))), "segment " + base);
        }
        try (PartitionLog log = open(dir)) {
            assertEquals(1_000, log.logStartOffset());
            assertEquals(1_002, log.logEndOffset());
            assertEquals(List.of(new LeaderEpochEntry(9, 1_000)), log.leaderEpochs());
            // The same base as the only segment, and then below the first segment via truncateTo.
            log.truncateFullyAndStartAt(1_000);
            assertEquals(1_000, log.logEndOffset());
            log.appendAsFollower(KafkaBatches.batchAtOffsets(9, 1_000));
            assertEquals(10, log.truncateTo(10));
            assertEquals(10, log.logStartOffset());
        }
        try (PartitionLog log = open(dir)) {
            assertEquals(10, log.logStartOffset());
            assertEquals(10, log.logEndOffset());
        }
    }

    @Test
    void aRefusedAppendTakesBackTheEpochsItAssigned() throws IOException {
        try (PartitionLog log = open(tmp.resolve("refused"))) {
            // Two batches spanning more offsets than a segment's 32-bit relative offsets: refused after validation.
            final java.nio.ByteBuffer tooWide = KafkaBatches.concat(KafkaBatches.batchAtOffsets(5, 0, Integer.MAX_VALUE),
                KafkaBatches.batchAtOffsets(6, Integer.MAX_VALUE + 1L));
            final io.seglog.storage.format.InvalidRecordException e =
                assertThrows(io.seglog.storage.format.InvalidRecordException.class, () -> log.appendAsFollower(tooWide));
            assertTrue(e.getMessage().contains("relative offsets"), e.getMessage());
            assertTrue(log.leaderEpochs().isEmpty(), log.leaderEpochs().toString());
            assertEquals(0, log.appendAsFollower(KafkaBatches.batchAtOffsets(3, 0)));
            assertEquals(List.of(new LeaderEpochEntry(3, 0)), log.leaderEpochs());
        }
    }

    @Test
    void followerAppendsRecordEpochsAndRefuseDecreasingOnes() throws IOException {
        try (PartitionLog log = open(tmp.resolve("follower"))) {
            log.appendAsFollower(KafkaBatches.concat(KafkaBatches.batchAtOffsets(2, 0, 1),
                KafkaBatches.batchAtOffsets(4, 2)));
            assertEquals(List.of(new LeaderEpochEntry(2, 0), new LeaderEpochEntry(4, 2)), log.leaderEpochs());
            assertEquals(new EpochEndOffset(2, 2), log.endOffsetForEpoch(3)); // largest known epoch <= 3 ends at 2
            assertThrows(io.seglog.storage.format.InvalidRecordException.class,
                () -> log.appendAsFollower(KafkaBatches.batchAtOffsets(3, 3)));
            assertThrows(io.seglog.storage.FencedLeaderEpochException.class,
                () -> log.appendAsLeader(KafkaBatches.batch(0, 1L), 3));
            assertEquals(3, log.logEndOffset());
            log.truncateTo(2);
            assertEquals(List.of(new LeaderEpochEntry(2, 0)), log.leaderEpochs());
            log.appendAsFollower(KafkaBatches.batchAtOffsets(3, 2));
            assertEquals(3, log.latestEpoch());
        }
    }
}
