package io.seglog.storage;

import static io.seglog.storage.KafkaBatches.batch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.io.FileIO;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replica that becomes leader records its epoch at the log end before it appends (KAFKA-7415): the epoch answers
 * OffsetsForLeaderEpoch at once, fences older leaders, and a later reopen drops the entry that no batch backs.
 */
class BeginLeaderEpochTest {
    @TempDir
    Path dir;

    @Test
    void newEpochAnswersAtOnceAndFencesOlderLeaders() {
        try (PartitionLog log = PartitionLog.open(dir.resolve("t-0"), LogConfig.defaults(), FileIO.system(),
            new ManualClock(0))) {
            log.appendAsLeader(batch(0, 1L, 2L, 3L), 1);
            assertEquals(3, log.beginLeaderEpoch(4));
            assertEquals(List.of(new LeaderEpochEntry(1, 0), new LeaderEpochEntry(4, 3)), log.leaderEpochs());
            // Epoch 1 ended where epoch 4 began; epoch 2 and 3 were never seen: the largest known below them is 1.
            assertEquals(new EpochEndOffset(1, 3), log.endOffsetForEpoch(1));
            assertEquals(new EpochEndOffset(1, 3), log.endOffsetForEpoch(3));
            assertEquals(new EpochEndOffset(4, 3), log.endOffsetForEpoch(4));
            final FencedLeaderEpochException fenced = assertThrows(FencedLeaderEpochException.class,
                () -> log.appendAsLeader(batch(0, 9L), 2));
            assertTrue(fenced.getMessage().contains("leaderEpoch=2"), fenced.getMessage());
            assertThrows(IllegalArgumentException.class, () -> log.beginLeaderEpoch(3));
            assertEquals(3, log.beginLeaderEpoch(4), "the latest epoch again: a no-op");
            assertEquals(2, log.leaderEpochs().size());
            log.appendAsLeader(batch(0, 9L), 4);
            assertEquals(new EpochEndOffset(4, 4), log.endOffsetForEpoch(4));
            // Back-to-back elections with no append between them: the later epoch replaces the empty one.
            assertEquals(4, log.beginLeaderEpoch(5));
            assertEquals(4, log.beginLeaderEpoch(6));
            assertEquals(List.of(new LeaderEpochEntry(1, 0), new LeaderEpochEntry(4, 3), new LeaderEpochEntry(6, 4)),
                log.leaderEpochs());
            assertEquals(new EpochEndOffset(4, 4), log.endOffsetForEpoch(5));
        }
        try (PartitionLog log = PartitionLog.open(dir.resolve("t-0"), LogConfig.defaults(), FileIO.system(),
            new ManualClock(0))) {
            assertEquals(List.of(new LeaderEpochEntry(1, 0), new LeaderEpochEntry(4, 3)), log.leaderEpochs(),
                "an entry at the log end with no batch is dropped on open (Kafka's loader does the same)");
        }
    }

    /**
     * A replica that began an epoch as leader and wrote nothing in it, then follows: a truncation at its log end
     * drops that epoch (Kafka's {@code truncateTo}), so its fetches name the epoch of its last batch again.
     */
    @Test
    void truncationAtTheLogEndDropsAnEpochWithNoBatch() {
        try (PartitionLog log = PartitionLog.open(dir.resolve("t-2"), LogConfig.defaults(), FileIO.system(),
            new ManualClock(0))) {
            log.appendAsLeader(batch(0, 1L, 2L, 3L), 0);
            log.beginLeaderEpoch(1);
            assertEquals(1, log.latestEpoch());
            assertEquals(3, log.truncateTo(5), "past the end: nothing to cut");
            assertEquals(1, log.latestEpoch(), "an entry below the truncation point stays");
            assertEquals(3, log.truncateTo(3));
            assertEquals(0, log.latestEpoch());
            assertEquals(List.of(new LeaderEpochEntry(0, 0)), log.leaderEpochs());
            assertEquals(3, log.logEndOffset());
            log.appendAsFollower(KafkaBatches.batchAtOffsets(2, 3, 4));
            assertEquals(List.of(new LeaderEpochEntry(0, 0), new LeaderEpochEntry(2, 3)), log.leaderEpochs());
        }
    }

    @Test
    void refusesNegativeEpochs() {
        try (PartitionLog log = PartitionLog.open(dir.resolve("t-1"), LogConfig.defaults(), FileIO.system(),
            new ManualClock(0))) {
            assertThrows(IllegalArgumentException.class, () -> log.beginLeaderEpoch(-1));
            assertEquals(0, log.beginLeaderEpoch(0));
            assertEquals(List.of(new LeaderEpochEntry(0, 0)), log.leaderEpochs());
        }
    }
}
