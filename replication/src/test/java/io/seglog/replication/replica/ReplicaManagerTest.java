package io.seglog.replication.replica;

import static io.seglog.replication.replica.ReplicaFixtures.batch;
import static io.seglog.replication.replica.ReplicaFixtures.batchesOf;
import static io.seglog.replication.replica.ReplicaFixtures.state;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.Await;
import io.seglog.replication.replica.ReplicaFixtures.ManualClock;
import io.seglog.replication.replica.ReplicaFixtures.ManualIsrWriter;
import io.seglog.replication.replica.TestEndpoints.GatedEndpoint;
import io.seglog.replication.transport.LiveBroker;
import io.seglog.replication.transport.PartitionStateInfo;
import io.seglog.storage.LogBatch;
import io.seglog.storage.LogConfig;
import io.seglog.storage.LogManager;
import io.seglog.storage.LogManagerConfig;
import io.seglog.storage.TopicPartition;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker's replica layer over a real log manager: acks=all answered by followers' fetches, by its timeout or by a
 * LeaderAndIsr that takes the leadership away; long-poll fetches answered by a high-watermark move, an append or
 * their wait; StopReplica with delete. Time is a clock the test moves; the purgatories' reaper threads read it.
 */
class ReplicaManagerTest {
    private static final TopicPartition TP = new TopicPartition("t", 0);
    private static final int MAX_BYTES = 1 << 20;
    private static final long WAIT_S = 10;
    /** A lag no test reaches, so that the ISR-expiration thread never changes an ISR behind a test's back. */
    private static final ReplicaManagerConfig CONFIG = new ReplicaManagerConfig(600_000, 500, 1, MAX_BYTES, 10 << 20,
        10, 1, 5_000, false);

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(1_000_000);
    private final ManualIsrWriter writer = new ManualIsrWriter();
    private final List<GatedEndpoint> endpoints = new CopyOnWriteArrayList<>();
    private final List<Thread> started = new CopyOnWriteArrayList<>();
    private LogManager logs;
    private ReplicaManager replicas;

    @BeforeEach
    void start() {
        logs = LogManager.open(LogManagerConfig.builder().logDirs(dir)
            .logConfig(LogConfig.builder().minInsyncReplicas(2).build()).build());
        replicas = new ReplicaManager(1, logs, CONFIG, clock, () -> 7L, writer, id -> true, (id, host, port) -> {
            final GatedEndpoint e = new GatedEndpoint();
            endpoints.add(e);
            return e;
        }, r -> {
            final Thread t = new Thread(r);
            started.add(t);
            return t;
        });
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

    private void lead(final List<Integer> isr, final List<Integer> assignment) {
        replicas.onLeaderAndIsr(Map.of(TP, state(1, 0, isr, 0, assignment)), Map.of());
        assertTrue(replicas.partition(TP).orElseThrow().isLeader());
    }

    private CompletableFuture<Map<TopicPartition, AppendResult>> produce(final int acks, final long timeoutMs,
                                                                      final String... values) {
        return replicas.produce((short) acks, timeoutMs, Map.of(TP, batch(values)));
    }

    private CompletableFuture<List<ReadResult>> followerFetch(final int replica, final long offset,
                                                              final int maxWaitMs) {
        return replicas.fetch(new FetchRequest(replica, 7, maxWaitMs, 1, MAX_BYTES,
            List.of(new PartitionFetch(TP, 0, offset, -1, 0, -1, MAX_BYTES))));
    }

    private CompletableFuture<List<ReadResult>> consumerFetch(final long offset, final int maxWaitMs) {
        return replicas.fetch(new FetchRequest(FetchRequest.CONSUMER_REPLICA_ID, -1, maxWaitMs, 1, MAX_BYTES,
            List.of(new PartitionFetch(TP, -1, offset, -1, -1, -1, MAX_BYTES))));
    }

    private static <T> T result(final CompletableFuture<T> future) throws Exception {
        return future.get(WAIT_S, TimeUnit.SECONDS);
    }

    private static AppendResult only(final Map<TopicPartition, AppendResult> results) {
        assertEquals(Set.of(TP), results.keySet());
        return results.get(TP);
    }

    @Test
    void onePartitionThatCannotTakeItsRoleLeavesTheOthersOfTheLeaderAndIsrApplied() {
        final TopicPartition stale = new TopicPartition("t", 1);
        final TopicPartition follow = new TopicPartition("t", 2);
        logs.getOrCreate(stale).appendAsLeader(batch("from epoch 5"), 5); // leading it in epoch 0 is refused
        final Map<TopicPartition, PartitionStateInfo> states = new LinkedHashMap<>();
        states.put(stale, state(1, 0, List.of(1, 2), 0, List.of(1, 2)));
        states.put(TP, state(1, 0, List.of(1, 2), 0, List.of(1, 2)));
        states.put(follow, state(2, 0, List.of(2, 1), 0, List.of(2, 1)));

        replicas.onLeaderAndIsr(states, Map.of(2, new LiveBroker(2, 1, "127.0.0.1", 1, Optional.empty())));

        assertFalse(replicas.partition(stale).orElseThrow().isLeader(), "refused: its log holds a newer epoch");
        assertTrue(replicas.partition(TP).orElseThrow().isLeader(), "the next partition still leads");
        assertEquals(2, replicas.partition(follow).orElseThrow().leaderId(), "and the one after it follows");
        Await.until(Duration.ofSeconds(WAIT_S), () -> !endpoints.isEmpty(), () -> "a fetcher for the follower");
    }

    @Test
    void acksAllCompletesWhenEveryIsrFollowerReachesItsOffset() throws Exception {
        lead(List.of(1, 2, 3), List.of(1, 2, 3));
        final CompletableFuture<Map<TopicPartition, AppendResult>> acked = produce(-1, 30_000, "a", "b");
        assertFalse(acked.isDone());

        assertEquals(ReplicaError.NONE, result(followerFetch(2, 2, 0)).get(0).error());
        assertFalse(acked.isDone(), "follower 3 has not fetched");
        result(followerFetch(3, 1, 0));
        assertFalse(acked.isDone(), "follower 3 holds offset 0 only: the HW is 1, the produce ends at 1");
        result(followerFetch(3, 2, 0));

        final AppendResult r = only(result(acked));
        assertEquals(ReplicaError.NONE, r.error());
        assertEquals(0, r.baseOffset());
        assertEquals(1, r.lastOffset());
    }

    @Test
    void acksAllTimesOutWhenTheFollowersDoNotReachItsOffset() throws Exception {
        lead(List.of(1, 2, 3), List.of(1, 2, 3));
        final CompletableFuture<Map<TopicPartition, AppendResult>> acked = produce(-1, 1_000, "a");
        result(followerFetch(2, 1, 0)); // follower 3 never fetches

        clock.advance(1_000 + DelayedOperations.TICK_MS); // the reaper thread reads this clock
        final AppendResult r = only(result(acked));
        assertEquals(ReplicaError.REQUEST_TIMED_OUT, r.error());
        assertEquals(0, r.baseOffset(), "appended, not acknowledged");
        assertEquals(1, logs.log(TP).orElseThrow().logEndOffset());
    }

    @Test
    void acksAllFailsWhenALeaderAndIsrMakesTheBrokerAFollower() throws Exception {
        lead(List.of(1, 2), List.of(1, 2));
        final CompletableFuture<Map<TopicPartition, AppendResult>> acked = produce(-1, 30_000, "a");
        assertFalse(acked.isDone());

        replicas.onLeaderAndIsr(Map.of(TP, state(2, 1, List.of(2, 1), 1, List.of(1, 2))),
            Map.of(2, new LiveBroker(2, 1, "broker-2", 9092, Optional.empty())));

        final AppendResult r = only(result(acked));
        assertEquals(ReplicaError.NOT_LEADER_OR_FOLLOWER, r.error());
        assertEquals(0, r.baseOffset());
        final Partition p = replicas.partition(TP).orElseThrow();
        assertFalse(p.isLeader());
        assertEquals(2, p.leaderId());
        assertEquals(1, replicas.fetcherCount());
        Await.until(Duration.ofSeconds(WAIT_S), () -> !endpoints.isEmpty() && !endpoints.get(0).fetches.isEmpty(),
            () -> "the fetcher fetches from the new leader");
        final PartitionFetch sent = endpoints.get(0).fetches.get(0).request().partitions().get(0);
        assertEquals(1, sent.currentLeaderEpoch());
        assertEquals(1, sent.fetchOffset());
    }

    @Test
    void consumerFetchWaitsUntilTheHighWatermarkMoves() throws Exception {
        lead(List.of(1, 2), List.of(1, 2));
        assertEquals(ReplicaError.NONE, only(result(produce(1, 0, "a"))).error());

        final CompletableFuture<List<ReadResult>> waiting = consumerFetch(0, 30_000);
        assertFalse(waiting.isDone(), "offset 0 is in the log but not committed");

        result(followerFetch(2, 1, 0));
        final ReadResult r = result(waiting).get(0);
        assertEquals(ReplicaError.NONE, r.error());
        assertEquals(1, r.highWatermark());
        final List<LogBatch> batches = batchesOf(r.records());
        assertEquals(1, batches.size());
        assertEquals(0, batches.get(0).baseOffset());
    }

    @Test
    void consumerFetchIsAnsweredEmptyOnceItsMaxWaitPasses() throws Exception {
        lead(List.of(1, 2), List.of(1, 2));
        produce(1, 0, "a");
        final CompletableFuture<List<ReadResult>> waiting = consumerFetch(0, 500);
        assertFalse(waiting.isDone());

        clock.advance(500 + DelayedOperations.TICK_MS);
        final ReadResult r = result(waiting).get(0);
        assertEquals(ReplicaError.NONE, r.error());
        assertNull(r.records());
        assertEquals(0, r.highWatermark());
    }

    @Test
    void followerFetchParkedInThePurgatoryIsAnsweredWhenTheLeaderAppends() throws Exception {
        lead(List.of(1, 2), List.of(1, 2));
        final CompletableFuture<List<ReadResult>> parked = followerFetch(2, 0, 30_000);
        assertFalse(parked.isDone(), "nothing to fetch yet");

        assertEquals(ReplicaError.NONE, only(result(produce(1, 0, "a", "b"))).error());
        final ReadResult r = result(parked).get(0);
        assertEquals(ReplicaError.NONE, r.error());
        final List<LogBatch> batches = batchesOf(r.records());
        assertEquals(1, batches.size());
        assertEquals(1, batches.get(0).lastOffset());
    }

    @Test
    void stopReplicaWithDeleteDeletesTheLogDirectory() throws Exception {
        lead(List.of(1, 2), List.of(1, 2));
        produce(1, 0, "a");
        final CompletableFuture<Map<TopicPartition, AppendResult>> acked = produce(-1, 30_000, "b");
        final Path partitionDir = logs.log(TP).orElseThrow().dir();
        assertTrue(Files.isDirectory(partitionDir));

        replicas.onStopReplica(Set.of(TP), true);

        assertEquals(ReplicaError.NOT_LEADER_OR_FOLLOWER, only(result(acked)).error());
        assertFalse(Files.exists(partitionDir));
        assertTrue(replicas.partition(TP).isEmpty());
        assertTrue(logs.log(TP).isEmpty());
        assertEquals(ReplicaError.UNKNOWN_TOPIC_OR_PARTITION, result(consumerFetch(0, 0)).get(0).error());
    }

    @Test
    void stopReplicaWithoutDeleteKeepsTheLog() throws Exception {
        lead(List.of(1, 2), List.of(1, 2));
        produce(1, 0, "a");
        final Path partitionDir = logs.log(TP).orElseThrow().dir();

        replicas.onStopReplica(Set.of(TP), false);

        assertTrue(replicas.partition(TP).isEmpty());
        assertTrue(Files.isDirectory(partitionDir));
        assertEquals(1, logs.log(TP).orElseThrow().logEndOffset());
        assertEquals(ReplicaError.NOT_LEADER_OR_FOLLOWER, result(consumerFetch(0, 0)).get(0).error());
    }
}
