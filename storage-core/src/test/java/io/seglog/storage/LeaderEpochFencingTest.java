package io.seglog.storage;

import static io.seglog.storage.KafkaBatches.batch;
import static io.seglog.storage.KafkaBatches.batchAtOffsets;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.io.FileIO;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A leader append below the log's latest leader epoch is refused (a fenced leader), including after the
 * appender skipped the epoch cache for a run of appends in one epoch: a follower append, a truncation or a
 * new epoch must each end that shortcut.
 */
class LeaderEpochFencingTest {
    @TempDir
    Path dir;

    private static void assertFenced(final PartitionLog log, final int epoch, final int latest) {
        final long end = log.logEndOffset();
        final FencedLeaderEpochException e = assertThrows(FencedLeaderEpochException.class,
            () -> log.appendAsLeader(batch(0, 1L, 2L), epoch));
        assertEquals(epoch, e.leaderEpoch());
        assertEquals(latest, e.latestLeaderEpoch());
        assertTrue(e.getMessage().contains("leaderEpoch=" + epoch) && e.getMessage().contains("epoch " + latest),
            e.getMessage());
        assertEquals(end, log.logEndOffset(), "a refused append writes nothing");
        // The same refusal as a value: the typed outcome names both epochs, and nothing is written.
        final LeaderAppendResult answer = log.appendAsLeader(batch(0, 1L, 2L), epoch,
            new LeaderAppendResult()::copyFrom);
        assertEquals(AppendOutcome.FENCED_LEADER_EPOCH, answer.outcome(), answer.toString());
        assertEquals(epoch, answer.leaderEpoch());
        assertEquals(latest, answer.latestLeaderEpoch());
        assertEquals(-1, answer.firstOffset());
        assertEquals(-1, answer.lastOffset());
        assertFalse(answer.succeeded());
        assertTrue(answer.message().contains("leaderEpoch=" + epoch) && answer.message().contains("epoch " + latest),
            answer.message());
        assertEquals(end, log.logEndOffset(), "a refused append writes nothing");
    }

    @Test
    void staleLeaderEpochIsTheTypedFencedOutcomeNamingBothEpochs() {
        try (PartitionLog log = PartitionLog.open(dir.resolve("typed-0"), LogConfig.defaults(), FileIO.system(),
            new ManualClock(0))) {
            final LeaderAppendResult kept = new LeaderAppendResult();
            final LeaderAppendResult.Handler<LeaderAppendResult> keep = kept::copyFrom;
            log.appendAsLeader(batch(0, 1L, 2L), 4, keep);
            assertEquals(AppendOutcome.APPENDED, kept.outcome());
            assertEquals(4, kept.leaderEpoch());
            assertEquals(-1, kept.latestLeaderEpoch(), "known only when fenced");
            assertEquals(0, kept.logStartOffset());
            log.appendAsLeader(batch(0, 3L), 2, keep);
            assertEquals(AppendOutcome.FENCED_LEADER_EPOCH, kept.outcome());
            assertEquals(2, kept.leaderEpoch(), "the stale epoch");
            assertEquals(4, kept.latestLeaderEpoch(), "the log's epoch");
            assertEquals(2, log.logEndOffset(), "nothing appended");
        }
    }

    @Test
    void fencedLeaderIsRefusedAfterFollowerAppendsTruncationsAndNewEpochs() {
        try (PartitionLog log = PartitionLog.open(dir.resolve("fence-0"), LogConfig.defaults(), FileIO.system(),
            new ManualClock(0))) {
            for (int i = 0; i < 5; i++) {
                log.appendAsLeader(batch(0, 1L, 2L), 5);
            }
            assertEquals(5, log.latestEpoch());
            assertFenced(log, 3, 5);
            log.appendAsLeader(batch(0, 1L), 5);

            // A follower append in a later epoch raises the latest epoch behind the leader's back.
            final long followerStart = log.logEndOffset();
            log.appendAsFollower(batchAtOffsets(7, followerStart, followerStart + 1));
            assertEquals(7, log.latestEpoch());
            assertFenced(log, 5, 7);

            // Truncating the epoch-7 batches away makes epoch 5 the latest again: appends in it are legal.
            log.truncateTo(followerStart);
            assertEquals(5, log.latestEpoch());
            log.appendAsLeader(batch(0, 1L), 5);
            log.appendAsLeader(batch(0, 1L), 5);

            // A new leader epoch fences the old one at once.
            log.appendAsLeader(batch(0, 1L), 6);
            assertEquals(6, log.latestEpoch());
            assertFenced(log, 5, 6);
            log.appendAsLeader(batch(0, 1L), 6);
            assertEquals(6, log.latestEpoch());
        }
    }
}
