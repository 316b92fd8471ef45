package io.seglog.replication.replica;

import static io.seglog.replication.replica.ReplicaFixtures.batch;
import static io.seglog.replication.replica.ReplicaFixtures.bytesOf;
import static io.seglog.replication.replica.ReplicaFixtures.openLog;
import static io.seglog.replication.replica.ReplicaFixtures.state;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.data.LogBytes;
import io.seglog.replication.replica.ReplicaFixtures.ManualClock;
import io.seglog.replication.replica.ReplicaFixtures.TestContext;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.TopicPartition;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A partition as follower: what it takes from a fetch answer (records, the leader's high watermark and log start),
 * and that an answer to a fetch sent in an older role changes nothing.
 */
class PartitionFollowerTest {
    private static final TopicPartition TP = new TopicPartition("t", 0);

    @TempDir
    Path dir;

    private final TestContext ctx = new TestContext(new ManualClock(1_000), 10_000);
    private PartitionLog leaderLog;
    private PartitionLog log;
    private Partition follower;

    @BeforeEach
    void open() {
        // The leader's log, only as the source of batches with the leader's offsets and epochs.
        leaderLog = openLog(dir.resolve("leader").resolve("t-0"), 1);
        for (int i = 0; i < 6; i++) {
            leaderLog.appendAsLeader(batch("v" + i), i < 3 ? 0 : 1);
        }
        log = openLog(dir.resolve("follower").resolve("t-0"), 1);
        follower = new Partition(TP, 2, log, ctx);
    }

    @AfterEach
    void close() {
        log.close();
        leaderLog.close();
    }

    private ByteBuffer leaderBatches(final long from, final long to) {
        return bytesOf(leaderLog.read(from, Integer.MAX_VALUE, to, true));
    }

    @Test
    void appendAsFollowerTakesTheSmallerOfTheLeadersHighWatermarkAndItsOwnLogEnd() {
        follower.makeFollower(state(1, 1, List.of(1, 2), 0, List.of(1, 2)));

        assertEquals(3, follower.appendAsFollower(leaderBatches(0, 3), 1, 5, 0));
        assertEquals(3, log.highWatermark(), "the leader's HW 5 is past this log's end");
        assertArrayEquals(LogBytes.bytes(leaderLog, 0, 3), LogBytes.bytes(log, 0, 3), "the leader's bytes");

        assertEquals(3, follower.appendAsFollower(null, 1, 2, 0));
        assertEquals(2, log.highWatermark(), "the leader's HW, when below the log end");

        assertEquals(6, follower.appendAsFollower(leaderBatches(3, 6), 1, 4, 0));
        assertEquals(4, log.highWatermark());
        assertEquals(leaderLog.leaderEpochs(), log.leaderEpochs(), "the leader's epochs come with its batches");
    }

    @Test
    void appendAsFollowerRaisesTheLogStartOnlyToOffsetsAtOrBelowItsHighWatermark() {
        follower.makeFollower(state(1, 1, List.of(1, 2), 0, List.of(1, 2)));
        follower.appendAsFollower(leaderBatches(0, 4), 1, 1, 0);
        assertEquals(1, log.highWatermark());

        follower.appendAsFollower(null, 1, 1, 2);
        assertEquals(0, log.logStartOffset(), "the leader's start 2 is above this replica's HW 1");

        follower.appendAsFollower(null, 1, 3, 2);
        assertEquals(3, log.highWatermark());
        assertEquals(2, log.logStartOffset(), "raised once the HW passed it");
        assertEquals(4, log.logEndOffset());
    }

    @Test
    void answerToAFetchSentInAnOlderEpochChangesNothing() {
        follower.makeFollower(state(1, 1, List.of(1, 2), 0, List.of(1, 2)));
        assertEquals(3, follower.appendAsFollower(leaderBatches(0, 3), 1, 3, 0));
        follower.makeFollower(state(1, 2, List.of(1, 2), 1, List.of(1, 2))); // a newer epoch, same leader

        assertEquals(-1, follower.appendAsFollower(leaderBatches(3, 6), 1, 6, 3), "fetched in epoch 1");
        assertEquals(-1, follower.truncateAsFollower(1, 1));
        assertFalse(follower.truncateFullyAsFollower(100, 1));
        assertEquals(3, log.logEndOffset(), "nothing appended or truncated");
        assertEquals(3, log.highWatermark());
        assertEquals(0, log.logStartOffset());

        assertEquals(6, follower.appendAsFollower(leaderBatches(3, 6), 2, 6, 0), "the current epoch's answer applies");
    }

    @Test
    void answerArrivingAfterTheReplicaBecameLeaderOrStoppedChangesNothing() {
        follower.makeFollower(state(1, 1, List.of(1, 2), 0, List.of(1, 2)));
        follower.appendAsFollower(leaderBatches(0, 3), 1, 3, 0);

        follower.makeLeader(state(2, 2, List.of(2), 1, List.of(1, 2)));
        assertEquals(-1, follower.appendAsFollower(leaderBatches(3, 6), 2, 6, 0), "a leader appends no fetched batches");
        assertEquals(-1, follower.truncateAsFollower(0, 2));

        follower.makeFollower(state(1, 3, List.of(1, 2), 2, List.of(1, 2)));
        follower.stop();
        assertEquals(-1, follower.appendAsFollower(leaderBatches(3, 6), 3, 6, 0), "stopped");
        assertFalse(follower.truncateFullyAsFollower(100, 3));
        assertEquals(3, log.logEndOffset());
        assertEquals(0, log.logStartOffset());
    }

    @Test
    void anEmptyLogStartingInsideTheLeadersFirstBatchRestartsAtThatBatch() {
        try (PartitionLog source = openLog(dir.resolve("source").resolve("t-0"), 1)) {
            source.appendAsLeader(batch("a", "b", "c", "d"), 1); // offsets 0-3
            source.appendAsLeader(batch("e", "f"), 1); // 4-5
            source.updateHighWatermark(6);
            source.deleteRecordsBefore(2); // the log start inside the first batch
            follower.makeFollower(state(1, 1, List.of(1, 2), 0, List.of(1, 2)));
            assertTrue(follower.truncateFullyAsFollower(2, 1), "OFFSET_OUT_OF_RANGE: restart at the leader's start");

            final ByteBuffer served = bytesOf(source.read(2, Integer.MAX_VALUE, 6, true));
            assertEquals(6, follower.appendAsFollower(served, 1, 6, 2), "the whole first batch is taken");
            assertEquals(2, log.logStartOffset(), "the leader's log start, once the HW passed it");
            assertEquals(6, log.highWatermark());
            assertArrayEquals(LogBytes.bytes(source, 2, 6), LogBytes.bytes(log, 2, 6),
                "the leader's bytes, from the base of the batch holding offset 2");
        }
    }
}
