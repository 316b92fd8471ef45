package io.seglog.replication.replica;

import static io.seglog.replication.replica.ReplicaFixtures.batch;
import static io.seglog.replication.replica.ReplicaFixtures.batchesOf;
import static io.seglog.replication.replica.ReplicaFixtures.openLog;
import static io.seglog.replication.replica.ReplicaFixtures.state;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.election.LeaderAndIsr;
import io.seglog.replication.policy.FetchDivergence;
import io.seglog.replication.replica.ReplicaFixtures.ManualClock;
import io.seglog.replication.replica.ReplicaFixtures.ManualIsrWriter;
import io.seglog.replication.replica.ReplicaFixtures.TestContext;
import io.seglog.storage.AppendOutcome;
import io.seglog.storage.EpochEndOffset;
import io.seglog.storage.LeaderEpochEntry;
import io.seglog.storage.LogBatch;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.TopicPartition;
import io.seglog.storage.format.RecordBatchBuilder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.io.TempDir;

/**
 * A partition as leader, over a real log: the epoch it records when it becomes leader, Kafka's high-watermark and
 * ISR rules end to end through followers' fetches, ISR changes through a writer the test answers, acks, and the
 * checks of every read path. Time is a clock the test moves.
 */
class PartitionTest {
    private static final FetchIsolation HW = FetchIsolation.HIGH_WATERMARK;
    private static final TopicPartition TP = new TopicPartition("t", 0);
    private static final long LAG_MS = 10_000;
    private static final int MAX_BYTES = 1 << 20;

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(1_000);
    private final TestContext ctx = new TestContext(clock, LAG_MS);
    private final ManualIsrWriter writer = ctx.writer;
    private PartitionLog log;
    private Partition partition;

    @AfterEach
    void closeLog() {
        if (log != null) {
            log.close();
        }
    }

    private void open(final int minInsyncReplicas) {
        log = openLog(dir.resolve("t-0"), minInsyncReplicas);
        partition = new Partition(TP, 1, log, ctx);
    }

    private boolean lead(final int epoch, final List<Integer> isr, final int partitionEpoch,
                         final List<Integer> replicas) {
        return partition.makeLeader(state(1, epoch, isr, partitionEpoch, replicas));
    }

    private long append(final String... values) {
        final AppendResult r = partition.appendAsLeader(batch(values), (short) 1);
        assertEquals(ReplicaError.NONE, r.error(), r.message());
        return r.lastOffset();
    }

    private void appendBatches(final int count) {
        for (int i = 0; i < count; i++) {
            append("v" + i);
        }
    }

    /** A follower's fetch in the current epoch, without a last fetched epoch (no divergence check). */
    private ReadResult fetch(final int replica, final long offset) {
        return partition.fetchForFollower(replica, -1, partition.leaderEpoch(), offset, -1, 0, -1, MAX_BYTES, true,
            true);
    }

    private IsrWriter.Proposal proposal(final List<Integer> isr, final int leaderEpoch, final int partitionEpoch) {
        return new IsrWriter.Proposal(1, leaderEpoch, isr, partitionEpoch, 1, false);
    }

    // --------------------------------------------------------------------------------------------- role

    @Test
    void makeLeaderRecordsItsEpochAtTheLogEnd() {
        open(1);
        assertTrue(lead(0, List.of(1, 2), 0, List.of(1, 2)), "a new leader");
        assertEquals(0, partition.leaderEpochStartOffset());
        append("a");
        append("b");

        assertFalse(lead(3, List.of(1, 2), 1, List.of(1, 2)), "re-elected");
        assertEquals(2, partition.leaderEpochStartOffset());
        assertEquals(List.of(new LeaderEpochEntry(0, 0), new LeaderEpochEntry(3, 2)), log.leaderEpochs(),
            "the epoch is in the log before anything is appended in it (KAFKA-7415)");
        assertEquals(new EpochEndOffset(3, 2), partition.endOffsetForEpoch(3, 3).epochEnd());
        assertEquals(new EpochEndOffset(0, 2), partition.endOffsetForEpoch(3, 1).epochEnd(),
            "a follower that saw epoch 1 learns where epoch 0 ended");

        append("c");
        final List<LogBatch> batches = batchesOf(log.read(2, MAX_BYTES, Long.MAX_VALUE, true));
        assertEquals(1, batches.size());
        assertEquals(2, batches.get(0).baseOffset());
        assertEquals(3, batches.get(0).partitionLeaderEpoch());

        partition.makeFollower(state(2, 4, List.of(2, 1), 2, List.of(1, 2)));
        assertEquals(-1, partition.leaderEpochStartOffset(), "only a leader has one");
    }

    // --------------------------------------------------------------------------------------- high watermark

    @Test
    void highWatermarkIsTheSmallestLogEndOffsetInTheIsr() {
        open(1);
        lead(0, List.of(1, 2, 3), 0, List.of(1, 2, 3));
        appendBatches(3);
        assertEquals(0, log.highWatermark(), "ISR followers that have not fetched yet hold it");

        assertEquals(0, fetch(2, 3).highWatermark());
        assertEquals(3, partition.followerLogEndOffset(2));
        final int changes = ctx.hwChanges.get();
        final ReadResult third = fetch(3, 1);
        assertEquals(1, third.highWatermark(), "the answer carries the high watermark this fetch moved");
        assertEquals(1, log.highWatermark());
        assertTrue(ctx.hwChanges.get() > changes, "waiting acks and fetches are told");

        assertEquals(3, fetch(3, 3).highWatermark());
        assertEquals(3, log.highWatermark());
        assertEquals(List.of(), writer.proposals(), "every follower already is in the ISR");
    }

    @Test
    void caughtUpFollowerOutsideTheIsrHoldsTheHighWatermark() {
        open(1);
        lead(0, List.of(1, 2), 0, List.of(1, 2, 3));
        appendBatches(10);
        assertEquals(10, fetch(2, 10).highWatermark());

        clock.advance(100);
        fetch(3, 4); // far behind and never caught up: holds nothing, and is below the HW: does not join
        append("x");
        assertEquals(11, fetch(2, 11).highWatermark(), "a lagging follower outside the ISR does not hold it");

        clock.advance(100);
        fetch(3, 10); // at the leader's end of its previous fetch: caught up as of that fetch, still below the HW
        append("y");
        assertEquals(11, fetch(2, 12).highWatermark(), "the caught-up follower at 10 holds it (so it can join)");

        clock.advance(LAG_MS);
        assertEquals(12, fetch(2, 12).highWatermark(), "no longer caught up within replica.lag.time.max.ms");
        assertEquals(List.of(), writer.proposals());
    }

    @Test
    void followerBeingAddedHoldsTheHighWatermarkUntilTheWriteIsAnswered() {
        open(1);
        lead(0, List.of(1, 2), 0, List.of(1, 2, 3));
        appendBatches(5);
        fetch(2, 5);
        fetch(3, 5);
        assertEquals(List.of(proposal(List.of(1, 2, 3), 0, 0)), writer.proposals());

        append("x");
        clock.advance(LAG_MS + 1); // follower 3 is no longer caught up by time; only the change in flight counts it
        assertEquals(5, fetch(2, 6).highWatermark(), "the maximal ISR includes the member being added");

        writer.fail(0);
        assertEquals(List.of(1, 2), partition.isr());
        assertEquals(6, log.highWatermark(), "the failed change no longer holds it");
    }

    @Test
    void highWatermarkDoesNotMoveBelowMinInsyncReplicas() {
        open(2);
        lead(0, List.of(1), 0, List.of(1, 2));
        appendBatches(3);
        assertEquals(0, log.highWatermark(), "an ISR of one is below min.insync.replicas=2");

        final ReadResult r = fetch(2, 3);
        assertEquals(0, r.highWatermark());
        assertEquals(List.of(proposal(List.of(1, 2), 0, 0)), writer.proposals());
        assertEquals(0, log.highWatermark(), "the committed ISR counts, not the change in flight (KAFKA-15583)");

        writer.written(0, 1);
        assertEquals(List.of(1, 2), partition.isr());
        assertEquals(3, log.highWatermark());
    }

    // ------------------------------------------------------------------------------------------------ ISR

    @Test
    void followerJoinsTheIsrOnlyOnceItReachesTheCurrentEpoch() {
        open(1);
        for (int i = 0; i < 5; i++) {
            log.appendAsLeader(batch("old" + i), 0);
        }
        log.updateHighWatermark(2); // a new leader's HW lags behind its log (it was a follower)
        lead(1, List.of(1, 3), 4, List.of(1, 2, 3, 4));
        assertEquals(5, partition.leaderEpochStartOffset());
        assertEquals(2, log.highWatermark());

        fetch(2, 3);
        assertEquals(List.of(), writer.proposals(),
            "past the HW but short of the epoch start: may lack committed records (KAFKA-7128)");

        fetch(2, 5);
        assertEquals(List.of(proposal(List.of(1, 3, 2), 1, 4)), writer.proposals());
        fetch(4, 5);
        fetch(2, 5);
        assertEquals(1, writer.proposals().size(), "one change in flight at a time");
        assertEquals(List.of(1, 3), partition.isr(), "not applied before it is written");

        writer.written(0, 5);
        assertEquals(List.of(1, 3, 2), partition.isr());
        fetch(4, 5);
        assertEquals(proposal(List.of(1, 3, 2, 4), 1, 5), writer.last(), "proposed at the version written");
    }

    @Test
    void conflictWithTheSameLeadershipAdoptsTheIsrAndVersionInTheStore() {
        open(1);
        lead(1, List.of(1, 3), 4, List.of(1, 2, 3, 4));
        appendBatches(2);
        fetch(2, 2);
        assertEquals(proposal(List.of(1, 3, 2), 1, 4), writer.last());

        // Our earlier write landed but its answer was lost, and the controller changed the ISR since (KAFKA-2729).
        writer.conflict(0, new LeaderAndIsr(1, 1, List.of(1, 2), 9));
        assertEquals(List.of(1, 2), partition.isr());
        assertTrue(partition.isLeader());

        fetch(4, 2);
        assertEquals(proposal(List.of(1, 2, 4), 1, 9), writer.last(), "decided again from the adopted version");
    }

    @Test
    void conflictWithANewerLeadershipStopsProposalsUntilTheNextMakeLeader() {
        open(1);
        lead(1, List.of(1, 3), 4, List.of(1, 2, 3, 4));
        appendBatches(2);
        fetch(2, 2);
        writer.conflict(0, new LeaderAndIsr(3, 2, List.of(3), 7));
        assertEquals(List.of(1, 3), partition.isr(), "not adopted: another broker's leadership");

        fetch(2, 2);
        fetch(4, 2);
        clock.advance(LAG_MS + 1);
        assertFalse(partition.maybeShrinkIsr(), "follower 3 never fetched, but no change is proposed");
        assertEquals(1, writer.proposals().size());

        lead(3, List.of(1, 3), 8, List.of(1, 2, 3, 4));
        fetch(2, 2);
        assertEquals(proposal(List.of(1, 3, 2), 3, 8), writer.last());
    }

    @Test
    void conflictWithTheStateGoneStopsProposals() {
        open(1);
        lead(1, List.of(1), 4, List.of(1, 2, 3));
        fetch(2, 0);
        writer.conflict(0, null);
        fetch(3, 0);
        fetch(2, 0);
        assertEquals(1, writer.proposals().size());
        assertEquals(List.of(1), partition.isr());
    }

    @Test
    void failedIsrWriteKeepsTheIsrAndIsProposedAgain() {
        open(1);
        lead(1, List.of(1, 3), 4, List.of(1, 2, 3, 4));
        appendBatches(2);
        fetch(2, 2);
        fetch(2, 2);
        assertEquals(1, writer.proposals().size());

        writer.fail(0);
        assertEquals(List.of(1, 3), partition.isr());
        fetch(2, 2);
        assertEquals(List.of(proposal(List.of(1, 3, 2), 1, 4), proposal(List.of(1, 3, 2), 1, 4)),
            writer.proposals());
        writer.written(1, 5);
        assertEquals(List.of(1, 3, 2), partition.isr());
    }

    @Test
    void answerToAnOlderEpochsProposalNeitherAppliesNorReleasesTheOneInFlight() {
        open(1);
        lead(1, List.of(1), 4, List.of(1, 2, 3));
        appendBatches(2);
        fetch(2, 2);
        assertEquals(proposal(List.of(1, 2), 1, 4), writer.last());

        lead(2, List.of(1), 5, List.of(1, 2, 3)); // re-elected before the answer came
        fetch(2, 2);
        assertEquals(proposal(List.of(1, 2), 2, 5), writer.last());

        writer.written(0, 6); // the epoch-1 write's answer, late
        assertEquals(List.of(1), partition.isr(), "not applied: an older epoch's change");
        fetch(3, 2);
        assertEquals(2, writer.proposals().size(), "the epoch-2 change is still in flight: nothing else is proposed");

        writer.written(1, 6);
        assertEquals(List.of(1, 2), partition.isr());
        fetch(3, 2);
        assertEquals(proposal(List.of(1, 2, 3), 2, 6), writer.last());
    }

    @Test
    void shrinkRemovesFollowersNotCaughtUpWithinTheLagButNeverTheLeader() {
        open(1);
        lead(0, List.of(1, 2, 3), 0, List.of(1, 2, 3));
        appendBatches(2);
        fetch(2, 2); // caught up; follower 3 never fetches

        clock.advance(LAG_MS);
        assertFalse(partition.maybeShrinkIsr(), "exactly replica.lag.time.max.ms is still in sync");
        clock.advance(1);
        assertTrue(partition.maybeShrinkIsr());
        assertEquals(List.of(proposal(List.of(1, 2), 0, 0)), writer.proposals(),
            "follower 2 holds the leader's whole log: in sync however long ago it fetched");
        assertFalse(partition.maybeShrinkIsr(), "one change in flight at a time");
        assertEquals(List.of(1, 2, 3), partition.isr());
        assertEquals(0, log.highWatermark(), "follower 3 still holds the HW");

        writer.written(0, 1);
        assertEquals(List.of(1, 2), partition.isr());
        assertEquals(2, log.highWatermark(), "the shrink lets the HW move");

        append("behind"); // follower 2 stays at 2 while the leader moves on
        clock.advance(LAG_MS + 1);
        assertTrue(partition.maybeShrinkIsr());
        assertEquals(proposal(List.of(1), 0, 1), writer.last());
        writer.written(1, 2);
        assertEquals(List.of(1), partition.isr());

        clock.advance(100 * LAG_MS);
        assertFalse(partition.maybeShrinkIsr(), "the leader never leaves");
        assertEquals(2, writer.proposals().size());
    }

    // ------------------------------------------------------------------------------------------- appends

    @Test
    void acksAllBelowMinIsrIsRefusedBeforeTheAppend() {
        open(2);
        lead(0, List.of(1), 0, List.of(1, 2));

        final AppendResult refused = partition.appendAsLeader(batch("a"), (short) -1);
        assertEquals(ReplicaError.NOT_ENOUGH_REPLICAS, refused.error());
        assertEquals(-1, refused.baseOffset());
        assertEquals(0, log.logEndOffset(), "nothing appended");
        assertEquals(0, ctx.appends.get());

        final AppendResult acks1 = partition.appendAsLeader(batch("a"), (short) 1);
        assertEquals(ReplicaError.NONE, acks1.error(), "acks=1 ignores min.insync.replicas");
        assertEquals(0, acks1.baseOffset());
        assertEquals(ReplicaError.NONE, partition.appendAsLeader(batch("b"), (short) 0).error());
        assertEquals(2, log.logEndOffset());
    }

    @Test
    void minIsrAboveTheReplicationFactorIsCappedAtIt() {
        open(2); // a broker-wide min.insync.replicas=2, and a partition with one replica
        lead(0, List.of(1), 0, List.of(1));

        final AppendResult written = partition.appendAsLeader(batch("a", "b"), (short) -1);
        assertEquals(ReplicaError.NONE, written.error(), "Kafka's effective min ISR is min(2, RF=1) = 1");
        partition.maybeIncrementHighWatermark();
        assertEquals(2, log.highWatermark(), "the high watermark moves with the ISR of one");
        assertEquals(ReplicaError.NONE, partition.acksStatus(written.lastOffset(), 0), "acks=all is answered");
    }

    @Test
    void appendIsRefusedUnlessLeader() {
        open(1);
        assertEquals(ReplicaError.NOT_LEADER_OR_FOLLOWER, partition.appendAsLeader(batch("a"), (short) 1).error(),
            "no role yet");
        partition.makeFollower(state(2, 0, List.of(2, 1), 0, List.of(1, 2)));
        assertEquals(ReplicaError.NOT_LEADER_OR_FOLLOWER, partition.appendAsLeader(batch("a"), (short) 1).error());
        assertEquals(ReplicaError.NOT_LEADER_OR_FOLLOWER, partition.appendAsLeader(batch("a"), (short) -1).error());
        lead(1, List.of(1, 2), 1, List.of(1, 2));
        partition.stop();
        assertEquals(ReplicaError.NOT_LEADER_OR_FOLLOWER, partition.appendAsLeader(batch("a"), (short) 1).error(),
            "stopped");
        assertEquals(0, log.logEndOffset());
    }

    @Test
    void retriedProducerBatchIsAnsweredWithItsOriginalOffsetsAndNothingIsAppended() {
        open(1);
        lead(1, List.of(1), 1, List.of(1));
        append("before");
        final AppendResult first = partition.appendAsLeader(producerBatch(7L, (short) 0, 0, "a", "b"), (short) 1);
        assertEquals(ReplicaError.NONE, first.error(), first.message());
        assertEquals(1, first.baseOffset());
        assertEquals(2, first.lastOffset());
        append("after");

        final AppendResult retry = partition.appendAsLeader(producerBatch(7L, (short) 0, 0, "a", "b"), (short) 1);

        assertEquals(ReplicaError.NONE, retry.error(), "Kafka answers a duplicate with NONE");
        assertEquals(1, retry.baseOffset(), "the original base offset");
        assertEquals(2, retry.lastOffset());
        assertEquals(4, log.logEndOffset(), "nothing appended");
    }

    @Test
    void sequenceGapAndFencedProducerEpochMapToKafkasErrors() {
        open(1);
        lead(1, List.of(1), 1, List.of(1));
        assertEquals(ReplicaError.NONE, partition.appendAsLeader(producerBatch(7L, (short) 3, 0, "a"), (short) 1)
            .error());

        final AppendResult gap = partition.appendAsLeader(producerBatch(7L, (short) 3, 5, "b"), (short) 1);
        final AppendResult fenced = partition.appendAsLeader(producerBatch(7L, (short) 2, 1, "b"), (short) 1);

        assertEquals(ReplicaError.OUT_OF_ORDER_SEQUENCE_NUMBER, gap.error());
        assertEquals(45, gap.error().code());
        assertTrue(gap.message().contains("5 (incoming seq. number), 0 (current end sequence number)"),
            gap.message());
        assertEquals(ReplicaError.INVALID_PRODUCER_EPOCH, fenced.error());
        assertEquals(47, fenced.error().code());
        assertTrue(fenced.message().contains("is 2, which is smaller than the last seen epoch 3"), fenced.message());
        assertEquals(1, log.logEndOffset(), "neither was appended");
    }

    @Test
    void leaderAppendInAnEpochTheLogHasMovedPastIsTheFencedOutcomeNamingBothEpochs() {
        open(1);
        lead(1, List.of(1), 1, List.of(1));
        append("a");
        log.beginLeaderEpoch(4); // a newer leader's epoch reached the log behind this leader's back

        final AppendResult fenced = partition.appendAsLeader(batch("b"), (short) 1);

        assertEquals(AppendOutcome.FENCED_LEADER_EPOCH, fenced.outcome());
        assertEquals(ReplicaError.NOT_LEADER_OR_FOLLOWER, fenced.error(), "the produce answer Kafka's leader gives");
        assertEquals(6, fenced.error().code());
        assertTrue(fenced.message().contains("leaderEpoch=1") && fenced.message().contains("epoch 4"),
            fenced.message());
        assertEquals(-1, fenced.baseOffset());
        assertEquals(-1, fenced.logStartOffset());
        assertEquals(1, log.logEndOffset(), "nothing appended");
    }

    @Test
    void everyLogOutcomeTravelsTypedWithItsKafkaError() {
        open(1);
        lead(1, List.of(1), 1, List.of(1));
        final AppendResult appended = partition.appendAsLeader(producerBatch(9L, (short) 0, 0, "a"), (short) 1);
        final AppendResult retry = partition.appendAsLeader(producerBatch(9L, (short) 0, 0, "a"), (short) 1);
        final AppendResult gap = partition.appendAsLeader(producerBatch(9L, (short) 0, 7, "b"), (short) 1);
        partition.makeFollower(state(2, 2, List.of(2, 1), 2, List.of(1, 2)));
        final AppendResult notLeader = partition.appendAsLeader(batch("c"), (short) 1);

        assertEquals(AppendOutcome.APPENDED, appended.outcome());
        assertEquals(0, appended.logStartOffset());
        assertEquals(1, appended.leaderEpoch());
        assertEquals(AppendOutcome.DUPLICATE, retry.outcome());
        assertEquals(ReplicaError.NONE, retry.error());
        assertNull(retry.message(), "a retry is answered like the original");
        assertEquals(AppendOutcome.OUT_OF_ORDER_SEQUENCE, gap.outcome());
        assertEquals(ReplicaError.OUT_OF_ORDER_SEQUENCE_NUMBER, gap.error());
        assertNull(notLeader.outcome(), "refused before the log");
        assertEquals(ReplicaError.NOT_LEADER_OR_FOLLOWER, notLeader.error());
    }

    private static ByteBuffer producerBatch(final long producerId, final short epoch, final int sequence,
                                            final String... values) {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[1024]);
        final RecordBatchBuilder builder = new RecordBatchBuilder().wrap(buffer, 0, 1024)
            .producer(producerId, epoch, sequence);
        for (final String value : values) {
            builder.appendRecord(System.currentTimeMillis(), null, value.getBytes(StandardCharsets.UTF_8));
        }
        return ByteBuffer.wrap(Arrays.copyOf(buffer.byteArray(), builder.build()));
    }

    @Test
    void acksStatusWaitsUntilTheHighWatermarkPassesTheLastOffset() {
        open(2);
        lead(0, List.of(1, 2), 0, List.of(1, 2));
        append("a");
        final long last = append("b", "c");
        assertEquals(2, last);
        assertNull(partition.acksStatus(last, 0));

        fetch(2, 2);
        assertEquals(2, log.highWatermark());
        assertNull(partition.acksStatus(last, 0), "the HW at the last offset does not cover it");
        fetch(2, 3);
        assertEquals(ReplicaError.NONE, partition.acksStatus(last, 0));
    }

    @Test
    void acksStatusReportsAnIsrThatShrankBelowMinIsrMeanwhile() {
        open(2);
        lead(0, List.of(1, 2), 0, List.of(1, 2));
        final long replicated = append("a");
        fetch(2, 1);
        final long notReplicated = append("b");
        clock.advance(LAG_MS + 1);
        assertTrue(partition.maybeShrinkIsr());
        writer.written(0, 1);
        assertEquals(List.of(1), partition.isr());

        assertEquals(ReplicaError.NOT_ENOUGH_REPLICAS_AFTER_APPEND, partition.acksStatus(replicated, 0),
            "replicated, but the ISR is now below min.insync.replicas");
        assertNull(partition.acksStatus(notReplicated, 0), "the HW does not move below min.insync.replicas");
    }

    @Test
    void acksStatusReportsANewRole() {
        open(1);
        lead(0, List.of(1, 2), 0, List.of(1, 2));
        final long last = append("a");
        assertNull(partition.acksStatus(last, 0));

        lead(1, List.of(1, 2), 1, List.of(1, 2));
        assertNull(partition.acksStatus(last, 0), "re-elected at a higher epoch: the batch still waits for the HW");
        fetch(2, last + 1);
        assertEquals(ReplicaError.NONE, partition.acksStatus(last, 0), "and is acknowledged when it passes");
        final long next = append("b");
        partition.makeFollower(state(2, 2, List.of(2, 1), 2, List.of(1, 2)));
        assertEquals(ReplicaError.NOT_LEADER_OR_FOLLOWER, partition.acksStatus(next, 1));
        lead(3, List.of(1, 2), 3, List.of(1, 2));
        assertEquals(ReplicaError.NOT_LEADER_OR_FOLLOWER, partition.acksStatus(next, 1),
            "leadership lost and regained since the append");
    }

    // ---------------------------------------------------------------------------------------------- reads

    @Test
    void everyReadPathChecksTheLeaderEpoch() {
        open(1);
        lead(5, List.of(1, 2), 0, List.of(1, 2));
        append("a");
        final int[] epochs = {4, 6, 5, -1};
        final ReplicaError[] expected = {ReplicaError.FENCED_LEADER_EPOCH, ReplicaError.UNKNOWN_LEADER_EPOCH,
            ReplicaError.NONE, ReplicaError.NONE};
        for (int i = 0; i < epochs.length; i++) {
            final int e = epochs[i];
            final String what = "currentLeaderEpoch=" + e + " at leader epoch 5";
            assertEquals(expected[i], partition.fetchForFollower(2, -1, e, 0, -1, 0, -1, MAX_BYTES, true, true)
                .error(), "follower fetch, " + what);
            if (i == 1) {
                assertEquals(-1, partition.followerLogEndOffset(2), "a refused fetch records no progress");
            }
            assertEquals(expected[i], partition.fetchForConsumer(e, 0, MAX_BYTES, true, HW).error(), "consumer, " + what);
            assertEquals(expected[i], partition.listOffset(e, PartitionLog.EARLIEST_TIMESTAMP, HW).error(),
                "listOffset, " + what);
            assertEquals(expected[i], partition.endOffsetForEpoch(e, 5).error(), "endOffsetForEpoch, " + what);
        }

        partition.makeFollower(state(2, 6, List.of(2, 1), 1, List.of(1, 2)));
        assertEquals(ReplicaError.NOT_LEADER_OR_FOLLOWER,
            partition.fetchForFollower(3, -1, 6, 0, -1, 0, -1, MAX_BYTES, true, true).error());
        assertEquals(ReplicaError.NOT_LEADER_OR_FOLLOWER, partition.fetchForConsumer(6, 0, MAX_BYTES, true, HW).error());
        assertEquals(ReplicaError.NOT_LEADER_OR_FOLLOWER,
            partition.listOffset(-1, PartitionLog.LATEST_TIMESTAMP, HW).error());
        assertEquals(ReplicaError.NOT_LEADER_OR_FOLLOWER, partition.endOffsetForEpoch(6, 5).error());
        assertEquals(ReplicaError.FENCED_LEADER_EPOCH, partition.fetchForConsumer(5, 0, MAX_BYTES, true, HW).error());
    }

    @Test
    void followerFetchWithADivergingEpochIsAnsweredAsFetchDivergenceDecides() {
        open(1);
        final List<Integer> replicas = List.of(1, 2, 3, 4, 5, 6, 7, 8);
        lead(0, List.of(1), 0, replicas);
        append("a0");
        append("a1");
        lead(2, List.of(1), 1, replicas);
        append("a2");
        append("a3"); // epochs (0, 0), (2, 2); log end 4
        final long hw = log.highWatermark();

        record Case(int replica, int lastFetchedEpoch, long fetchOffset, FetchDivergence.Outcome outcome,
                    EpochEndOffset diverging) {
        }
        final List<Case> cases = List.of(
            new Case(2, 1, 3, FetchDivergence.Outcome.DIVERGING, new EpochEndOffset(0, 2)),
            new Case(3, 0, 3, FetchDivergence.Outcome.DIVERGING, new EpochEndOffset(0, 2)),
            new Case(4, 0, 2, FetchDivergence.Outcome.READ, null),
            new Case(5, 2, 3, FetchDivergence.Outcome.READ, null),
            new Case(6, 2, 4, FetchDivergence.Outcome.READ, null),
            new Case(7, 3, 4, FetchDivergence.Outcome.OUT_OF_RANGE, null),
            new Case(8, -1, 1, FetchDivergence.Outcome.READ, null));
        for (final Case c : cases) {
            final EpochEndOffset leaderEnd = c.lastFetchedEpoch() >= 0 ? log.endOffsetForEpoch(c.lastFetchedEpoch())
                : EpochEndOffset.UNDEFINED;
            assertEquals(c.outcome(), FetchDivergence.decide(c.lastFetchedEpoch(), c.fetchOffset(),
                log.logStartOffset(), leaderEnd), "the table agrees with the policy: " + c);

            final ReadResult r = partition.fetchForFollower(c.replica(), -1, 2, c.fetchOffset(), c.lastFetchedEpoch(),
                0, -1, MAX_BYTES, true, true);
            switch (c.outcome()) {
                case DIVERGING -> {
                    assertEquals(ReplicaError.NONE, r.error(), c.toString());
                    assertEquals(c.diverging(), r.divergingEpoch(), c.toString());
                    assertNull(r.records(), c.toString());
                    assertEquals(-1, partition.followerLogEndOffset(c.replica()), "no progress recorded: " + c);
                }
                case OUT_OF_RANGE -> {
                    assertEquals(ReplicaError.OFFSET_OUT_OF_RANGE, r.error(), c.toString());
                    assertNull(r.records(), c.toString());
                    assertEquals(-1, partition.followerLogEndOffset(c.replica()), "no progress recorded: " + c);
                }
                default -> {
                    assertEquals(ReplicaError.NONE, r.error(), c.toString());
                    assertTrue(r.divergingEpoch().isUndefined(), c.toString());
                    assertEquals(c.fetchOffset(), partition.followerLogEndOffset(c.replica()), c.toString());
                    if (c.fetchOffset() < log.logEndOffset()) {
                        final LogBatch first = batchesOf(r.records()).get(0);
                        assertTrue(first.baseOffset() <= c.fetchOffset() && c.fetchOffset() <= first.lastOffset(),
                            c.toString());
                    } else {
                        assertNull(r.records(), c.toString());
                    }
                }
            }
        }
        assertEquals(hw, log.highWatermark());
    }

    @Test
    void followerFetchBelowTheLogStartIsOutOfRange() {
        open(1);
        lead(0, List.of(1), 0, List.of(1, 2));
        appendBatches(4);
        assertEquals(4, log.highWatermark());
        log.deleteRecordsBefore(2);

        final ReadResult below = fetch(2, 1);
        assertEquals(ReplicaError.OFFSET_OUT_OF_RANGE, below.error());
        assertEquals(2, below.logStartOffset(), "the follower learns where the log starts");
        assertEquals(FetchDivergence.Outcome.OUT_OF_RANGE,
            FetchDivergence.decide(0, 1, log.logStartOffset(), log.endOffsetForEpoch(0)));
        assertEquals(ReplicaError.OFFSET_OUT_OF_RANGE,
            partition.fetchForFollower(2, -1, 0, 1, 0, 0, -1, MAX_BYTES, true, true).error(),
            "with a last fetched epoch too");
        assertEquals(ReplicaError.OFFSET_OUT_OF_RANGE, fetch(2, 5).error(), "past the log end");
        assertEquals(-1, partition.followerLogEndOffset(2));

        final ReadResult at = fetch(2, 2);
        assertEquals(ReplicaError.NONE, at.error());
        assertEquals(2, batchesOf(at.records()).get(0).baseOffset());
    }

    @Test
    void consumerFetchNeverReturnsRecordsAtOrAboveTheHighWatermark() {
        open(1);
        lead(0, List.of(1, 2), 0, List.of(1, 2));
        append("a");
        append("b", "c");
        append("d");
        fetch(2, 3);
        assertEquals(3, log.highWatermark());

        final ReadResult all = partition.fetchForConsumer(-1, 0, MAX_BYTES, true, HW);
        assertEquals(ReplicaError.NONE, all.error());
        assertEquals(3, all.highWatermark());
        final List<LogBatch> batches = batchesOf(all.records());
        assertEquals(List.of(0L, 1L), batches.stream().map(LogBatch::baseOffset).toList());
        assertEquals(2, batches.get(batches.size() - 1).lastOffset());

        final ReadResult atHw = partition.fetchForConsumer(-1, 3, MAX_BYTES, true, HW);
        assertEquals(ReplicaError.NONE, atHw.error());
        assertNull(atHw.records(), "offset 3 is in the log but not committed");
        assertEquals(4, atHw.logEndOffset());
        assertEquals(ReplicaError.OFFSET_OUT_OF_RANGE, partition.fetchForConsumer(-1, 5, MAX_BYTES, true, HW).error());

        fetch(2, 4);
        assertEquals(List.of(3L), batchesOf(partition.fetchForConsumer(-1, 3, MAX_BYTES, true, HW).records()).stream()
            .map(LogBatch::baseOffset).toList(), "readable once committed");
    }

    @Test
    void listOffsetHidesTheLatestOffsetFromConsumersUntilTheHighWatermarkReachesTheEpochStart() {
        open(1);
        for (int i = 0; i < 5; i++) {
            log.appendAsLeader(batch("old" + i), 0);
        }
        log.updateHighWatermark(2);
        lead(1, List.of(1, 2), 3, List.of(1, 2));
        assertEquals(5, partition.leaderEpochStartOffset());

        assertEquals(ReplicaError.OFFSET_NOT_AVAILABLE,
            partition.listOffset(-1, PartitionLog.LATEST_TIMESTAMP, HW).error(),
            "the old leader may have passed HW 2 already");
        final OffsetResult earliest = partition.listOffset(-1, PartitionLog.EARLIEST_TIMESTAMP, HW);
        assertEquals(new OffsetResult(ReplicaError.NONE, 0, -1, 0), earliest);
        assertEquals(new OffsetResult(ReplicaError.NONE, 5, -1, 1),
            partition.listOffset(1, PartitionLog.LATEST_TIMESTAMP, FetchIsolation.LOG_END), "a replica gets the log end");

        fetch(2, 5);
        assertEquals(5, log.highWatermark());
        assertEquals(new OffsetResult(ReplicaError.NONE, 5, -1, 1),
            partition.listOffset(-1, PartitionLog.LATEST_TIMESTAMP, HW));
    }

    @Test
    void durableAcksWaitForTheLeadersFlushAndTheFollowersDurableOffsets() {
        ctx.durableAcks = true;
        open(1);
        for (int i = 0; i < 3; i++) {
            log.appendAsLeader(batch("unflushed" + i), 0); // written as before, never flushed
        }
        assertEquals(0, log.flushedOffset());
        lead(1, List.of(1, 2), 0, List.of(1, 2));

        fetchDurable(3, 3);
        assertEquals(3, log.highWatermark());
        assertEquals(0, partition.durableHighWatermark(), "the leader's own disk is behind");
        assertNull(partition.acksStatus(2, 1));
        log.flush();
        fetchDurable(3, 3);
        assertEquals(3, partition.durableHighWatermark());
        assertEquals(ReplicaError.NONE, partition.acksStatus(2, 1));

        final AppendResult r = partition.appendAsLeader(batch("new"), (short) -1);
        assertEquals(3, r.lastOffset());
        assertEquals(4, log.flushedOffset(), "the leader flushes what it appends under durable acks");
        fetchDurable(4, 3);
        assertEquals(4, log.highWatermark());
        assertEquals(3, partition.durableHighWatermark(), "the follower has it, but not on disk");
        assertNull(partition.acksStatus(3, 1));
        fetchDurable(4, 4);
        assertEquals(4, partition.durableHighWatermark());
        assertEquals(ReplicaError.NONE, partition.acksStatus(3, 1));
    }

    private void fetchDurable(final long offset, final long durable) {
        final ReadResult r = partition.fetchForFollower(2, -1, partition.leaderEpoch(), offset, -1, 0, durable,
            MAX_BYTES, true, true);
        assertEquals(ReplicaError.NONE, r.error());
    }
}
