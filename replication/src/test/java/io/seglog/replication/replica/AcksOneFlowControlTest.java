package io.seglog.replication.replica;

import static io.seglog.replication.replica.ReplicaFixtures.batch;
import static io.seglog.replication.replica.ReplicaFixtures.state;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.Await;
import io.seglog.replication.replica.ReplicaFixtures.ManualClock;
import io.seglog.replication.replica.ReplicaFixtures.ManualIsrWriter;
import io.seglog.replication.replica.TestEndpoints.GatedEndpoint;
import io.seglog.replication.transport.LiveBroker;
import io.seglog.storage.LogManager;
import io.seglog.storage.LogManagerConfig;
import io.seglog.storage.TopicPartition;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The acks=1 flow control ({@value ReplicaManagerConfig#MAX_UNREPLICATED_BYTES}) over a real log manager: an acks=1
 * produce whose in-sync followers trail its batches by more than the bound is answered once they fetch within it, a
 * follower silent for the window is not waited for, a held produce is answered as appended when the window passes and
 * with NOT_LEADER_OR_FOLLOWER when the leadership goes, -1 answers at once as Kafka does, and the bound is counted in
 * bytes over the leader's latest appends. Time is a clock the test moves; the purgatory's reaper reads it.
 */
class AcksOneFlowControlTest {
    private static final TopicPartition TP = new TopicPartition("t", 0);
    private static final int MAX_BYTES = 1 << 20;
    private static final long WAIT_S = 10;
    /** A lag no test reaches, so that the ISR never changes behind a test's back. */
    private static final ReplicaManagerConfig BASE = new ReplicaManagerConfig(600_000, 500, 1, MAX_BYTES, 10 << 20,
        10, 1, 5_000, false);

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(1_000_000);
    private final List<Thread> started = new CopyOnWriteArrayList<>();
    private LogManager logs;
    private ReplicaManager replicas;

    private void start(final long maxUnreplicatedBytes) {
        logs = LogManager.open(LogManagerConfig.builder().logDirs(dir).build());
        replicas = new ReplicaManager(1, logs, BASE.withMaxUnreplicatedBytes(maxUnreplicatedBytes), clock, () -> 7L,
            new ManualIsrWriter(), id -> true, (id, host, port) -> new GatedEndpoint(), r -> {
                final Thread t = new Thread(r);
                started.add(t);
                return t;
            });
        replicas.onLeaderAndIsr(Map.of(TP, state(1, 0, List.of(1, 2, 3), 0, List.of(1, 2, 3))), Map.of());
        assertTrue(replicas.partition(TP).orElseThrow().isLeader());
    }

    @AfterEach
    void stop() {
        try {
            replicas.close();
        } finally {
            logs.close();
        }
        Await.until(Duration.ofSeconds(WAIT_S), () -> started.stream().noneMatch(Thread::isAlive),
            () -> "threads alive after close: " + started.stream().filter(Thread::isAlive).map(Thread::getName).toList());
    }

    private CompletableFuture<Map<TopicPartition, AppendResult>> produceAcksOne(final String... values) {
        return replicas.produce((short) 1, 30_000, Map.of(TP, batch(values)));
    }

    private void followerFetch(final int replica, final long offset) throws Exception {
        final List<ReadResult> r = replicas.fetch(new FetchRequest(replica, 7, 0, 1, MAX_BYTES,
            List.of(new PartitionFetch(TP, 0, offset, -1, 0, -1, MAX_BYTES)))).get(WAIT_S, TimeUnit.SECONDS);
        assertEquals(ReplicaError.NONE, r.get(0).error());
    }

    private static AppendResult answer(final CompletableFuture<Map<TopicPartition, AppendResult>> f) throws Exception {
        return f.get(WAIT_S, TimeUnit.SECONDS).get(TP);
    }

    @Test
    void heldUntilEveryFetchingInSyncFollowerIsWithinTheBound() throws Exception {
        start(0); // nothing acknowledged may be on the leader alone
        followerFetch(2, 0);
        followerFetch(3, 0);
        final CompletableFuture<Map<TopicPartition, AppendResult>> acked = produceAcksOne("a", "b");
        assertFalse(acked.isDone(), "both followers are in sync and fetching at offset 0");

        followerFetch(2, 2);
        assertFalse(acked.isDone(), "follower 3 still holds nothing");
        followerFetch(3, 1);
        assertFalse(acked.isDone(), "follower 3 holds offset 0 only");
        followerFetch(3, 2);

        final AppendResult r = answer(acked);
        assertEquals(ReplicaError.NONE, r.error());
        assertEquals(0, r.baseOffset());
        assertEquals(1, r.lastOffset());
    }

    @Test
    void followersThatHaveNotFetchedSinceTheElectionAreNotWaitedFor() throws Exception {
        start(0);
        final CompletableFuture<Map<TopicPartition, AppendResult>> acked = produceAcksOne("a");
        assertTrue(acked.isDone(), "a new leader knows nothing of its followers until they fetch");
        assertEquals(ReplicaError.NONE, answer(acked).error());
    }

    @Test
    void withinTheBoundIsAnsweredAtOnce() throws Exception {
        start(ReplicaManagerConfig.DEFAULT_MAX_UNREPLICATED_BYTES);
        followerFetch(2, 0);
        followerFetch(3, 0);
        final CompletableFuture<Map<TopicPartition, AppendResult>> acked = produceAcksOne("a", "b");
        assertTrue(acked.isDone(), "a few bytes, far below the default 4 MiB, though no follower has them");
        assertEquals(ReplicaError.NONE, answer(acked).error());
    }

    @Test
    void minusOneAnswersAtOnceAsKafkaDoes() throws Exception {
        start(-1);
        final CompletableFuture<Map<TopicPartition, AppendResult>> acked = produceAcksOne("a");
        assertTrue(acked.isDone());
        assertEquals(ReplicaError.NONE, answer(acked).error());
    }

    @Test
    void aFollowerSilentForTheWindowIsNotWaitedFor() throws Exception {
        start(0);
        followerFetch(2, 0);
        followerFetch(3, 0);
        clock.advance(BASE.flowControlWindowMs() + 1);
        followerFetch(2, 0); // follower 2 fetches again; follower 3 has been silent for longer than the window

        final CompletableFuture<Map<TopicPartition, AppendResult>> acked = produceAcksOne("a");
        assertFalse(acked.isDone(), "follower 2 is fetching and trails");
        followerFetch(2, 1);
        assertEquals(ReplicaError.NONE, answer(acked).error(), "answered without follower 3");
    }

    @Test
    void aHeldProduceIsAnsweredAsAppendedWhenTheWindowPasses() throws Exception {
        start(0);
        followerFetch(2, 0);
        final CompletableFuture<Map<TopicPartition, AppendResult>> acked = produceAcksOne("a");
        assertFalse(acked.isDone());

        clock.advance(BASE.flowControlWindowMs() + DelayedOperations.TICK_MS); // the reaper reads this clock
        final AppendResult r = answer(acked);
        assertEquals(ReplicaError.NONE, r.error(), "acks=1 was only slowed: its batch is appended");
        assertEquals(0, r.baseOffset());
        assertEquals(0, logs.log(TP).orElseThrow().highWatermark(), "and no follower has it");
    }

    @Test
    void aHeldProduceFailsWhenTheLeadershipGoes() throws Exception {
        start(0);
        followerFetch(2, 0);
        final CompletableFuture<Map<TopicPartition, AppendResult>> acked = produceAcksOne("a");
        assertFalse(acked.isDone());

        replicas.onLeaderAndIsr(Map.of(TP, state(2, 1, List.of(2, 3, 1), 1, List.of(1, 2, 3))),
            Map.of(2, new LiveBroker(2, 1, "broker-2", 9092, Optional.empty())));

        assertEquals(ReplicaError.NOT_LEADER_OR_FOLLOWER, answer(acked).error(),
            "the new leader may not have the batch: the producer hears so");
    }

    @Test
    void theBoundIsCountedInBytesOverTheLatestAppends() throws Exception {
        start(-1); // answered at once; the targets are read from the partition directly
        final Partition p = replicas.partition(TP).orElseThrow();
        final ByteBuffer first = batch("one");
        final ByteBuffer second = batch("two", "three");
        final ByteBuffer third = batch("four", "five", "six");
        final int thirdBytes = third.remaining();
        replicas.produce((short) 1, 30_000, Map.of(TP, first));
        replicas.produce((short) 1, 30_000, Map.of(TP, second));
        final long last = answer(replicas.produce((short) 1, 30_000, Map.of(TP, third))).lastOffset();
        assertEquals(5, last);

        final long secondBytes = second.capacity();
        assertEquals(6, p.unreplicatedTarget(last, 0), "no unreplicated byte: the followers need all of it");
        assertEquals(6, p.unreplicatedTarget(last, thirdBytes - 1), "the third batch less a byte: still all");
        assertEquals(3, p.unreplicatedTarget(last, thirdBytes), "the third batch may be unreplicated");
        assertEquals(3, p.unreplicatedTarget(last, thirdBytes + 1),
            "a byte more than the third: the followers still need the second whole");
        assertEquals(1, p.unreplicatedTarget(last, thirdBytes + secondBytes),
            "the second and third may be unreplicated: the followers need the first");
        assertEquals(1, p.unreplicatedTarget(last, thirdBytes + secondBytes + 1),
            "a byte of the first may be unreplicated too, but batches are replicated whole: still the first");
        assertEquals(-1, p.unreplicatedTarget(last, thirdBytes + secondBytes + first.capacity()),
            "all three may be unreplicated");
        assertEquals(-1, p.unreplicatedTarget(last, 1 << 20), "everything this leader appended is within 1 MiB");
        assertEquals(-1, p.unreplicatedTarget(1, 0), "an offset inside an append (the second, 1..2) ends none: not held");
        assertEquals(3, p.unreplicatedTarget(2, 0), "the second append itself: its end");
    }
}
