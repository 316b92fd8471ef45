package io.seglog.storage;

import static io.seglog.storage.KafkaBatches.batch;
import static io.seglog.storage.KafkaBatches.batchAtOffsets;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.format.InvalidRecordException;
import io.seglog.storage.io.FileIO;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Input at the edges of what a log can hold, each found by using the library from outside its tests: offsets at
 * the top of the long range, a compacted follower's batch far above an empty segment, index files smaller than one
 * entry, and Kafka's MAX_TIMESTAMP lookup.
 */
class LogLimitsTest {
    @TempDir
    Path dir;

    private PartitionLog open(final String name, final LogConfig config) {
        return PartitionLog.open(dir.resolve(name), config, FileIO.system(), new ManualClock(1_000));
    }

    @Test
    void offsetsThatWouldOverflowAreRefusedWithTheLimit() {
        try (PartitionLog log = open("top-0", LogConfig.defaults())) {
            assertThrows(IllegalArgumentException.class, () -> log.truncateFullyAndStartAt(Long.MAX_VALUE));
            log.truncateFullyAndStartAt(Long.MAX_VALUE - 2);
            final InvalidRecordException e = assertThrows(InvalidRecordException.class,
                () -> log.appendAsLeader(batch(0, 1, 2, 3, 4, 5), 0));
            assertEquals("lastOffset", e.field());
            assertTrue(e.getMessage().contains(Long.toString(Long.MAX_VALUE - 1)), e.getMessage());
            assertEquals(Long.MAX_VALUE - 2, log.logEndOffset(), "nothing appended");
            assertEquals(Long.MAX_VALUE - 2, log.appendAsLeader(batch(0, 1), 0), "one record still fits");
            assertEquals(Long.MAX_VALUE - 1, log.logEndOffset());
        }
        try (PartitionLog follower = open("top-1", LogConfig.builder().cleanupPolicy(CleanupPolicy.COMPACT).build())) {
            // A batch whose base plus lastOffsetDelta wraps past Long.MAX_VALUE.
            final InvalidRecordException e = assertThrows(InvalidRecordException.class,
                () -> follower.appendAsFollower(batchAtOffsets(0, Long.MAX_VALUE - 1, Long.MAX_VALUE)));
            assertEquals("lastOffset", e.field());
            assertEquals(0, follower.logEndOffset());
        }
    }

    @Test
    void aCompactedFollowersFarGapRollsEvenFromAnEmptySegment() {
        final LogConfig compact = LogConfig.builder().cleanupPolicy(CleanupPolicy.COMPACT).build();
        final long far = 3_000_000_000L;
        try (PartitionLog log = open("far-0", compact)) {
            assertEquals(far + 1, log.appendAsFollower(batchAtOffsets(0, far, far + 1)));
            assertEquals(2, log.segmentCount(), "a new segment at the batch; the empty one stays, as in Kafka");
            assertEquals(far, log.segments().get(1).baseOffset());
            assertEquals(far, log.read(far, 1 << 20, Long.MAX_VALUE, true).firstOffset());
        }
        // Closed cleanly, so its recovery point is its end; a crash scan from there keeps the far gap. (From recovery
        // point 0 the empty first segment ends at the recovery point, so the gap after it could be a lost tail and
        // the far segment, not durable, would go: docs/recovery.md.)
        try (PartitionLog reopened = PartitionLog.open(dir.resolve("far-0"), compact, FileIO.system(),
            new ManualClock(1_000), far + 2, false)) {
            assertEquals(far + 2, reopened.logEndOffset(), "closed cleanly and reopened after a crash: not corrupt");
            assertEquals(far, reopened.read(far + 1, 1 << 20, Long.MAX_VALUE, true).firstOffset());
        }
    }

    @Test
    void indexesSmallerThanOneEntryStillAnswerTimestampsAfterAReopen() {
        final LogConfig tiny = LogConfig.builder().segmentIndexBytes(8).messageTimestampAfterMaxMs(Long.MAX_VALUE)
            .build();
        try (PartitionLog log = open("tiny-0", tiny)) {
            log.appendAsLeader(batch(0, 100, 200), 0);
            log.appendAsLeader(batch(0, 300), 0);
            assertEquals(2, log.offsetForTimestamp(250));
        }
        try (PartitionLog reopened = PartitionLog.open(dir.resolve("tiny-0"), tiny, FileIO.system(),
            new ManualClock(1_000), new SplittableRandom(1), RecoveryOptions.clean())) {
            assertEquals(1, reopened.offsetForTimestamp(150));
            assertEquals(2, reopened.offsetForTimestamp(250));
            assertEquals(-1, reopened.offsetForTimestamp(301));
        }
    }

    @Test
    void maxTimestampAnswersTheFirstRecordWithTheLargestTimestamp() throws Exception {
        final LogConfig config = LogConfig.builder().segmentBytes(200).messageTimestampAfterMaxMs(Long.MAX_VALUE)
            .build();
        try (PartitionLog log = open("max-0", config)) {
            assertEquals(-1, log.offsetForTimestamp(PartitionLog.MAX_TIMESTAMP), "an empty log has none");
            log.appendAsLeader(batch(0, 10, 50, 20), 0);   // offsets 0-2
            log.appendAsLeader(batch(0, 90, 30), 0);       // offsets 3-4: 90 is the largest
            log.appendAsLeader(batch(0, 40, 90, 5), 0);    // offsets 5-7: 90 again, later
            assertTrue(log.segmentCount() > 1, "the search crosses segments");
            assertEquals(3, log.offsetForTimestamp(PartitionLog.MAX_TIMESTAMP));
            assertEquals(-1, log.reader().offsetForTimestamp(PartitionLog.MAX_TIMESTAMP, 3),
                "the record lies at the bound");
            assertThrows(IllegalArgumentException.class, () -> log.offsetForTimestamp(-4));
        }
        assertTrue(Files.exists(dir.resolve("max-0")));
    }

    @Test
    void aFollowerBatchWithAnOlderEpochIsRefusedAtItsOwnPosition() {
        try (PartitionLog log = open("epochs-0", LogConfig.defaults())) {
            log.appendAsFollower(batchAtOffsets(3, 0, 1));
            final java.nio.ByteBuffer older = batchAtOffsets(2, 2);
            // The batch sits 5 bytes into the caller's buffer: the error names its position there, once.
            final java.nio.ByteBuffer buffer = java.nio.ByteBuffer.allocate(5 + older.remaining());
            buffer.position(5);
            buffer.put(older.duplicate()).position(5);
            final InvalidRecordException e = assertThrows(InvalidRecordException.class,
                () -> log.appendAsFollower(buffer));
            assertEquals("partitionLeaderEpoch", e.field());
            assertEquals(5, e.position());
            assertEquals(2, log.logEndOffset());
        }
    }
}
