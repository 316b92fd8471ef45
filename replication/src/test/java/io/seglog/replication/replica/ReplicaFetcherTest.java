package io.seglog.replication.replica;

import static io.seglog.replication.replica.ReplicaFixtures.batch;
import static io.seglog.replication.replica.ReplicaFixtures.bytesOf;
import static io.seglog.replication.replica.ReplicaFixtures.openLog;
import static io.seglog.replication.replica.ReplicaFixtures.state;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.Await;
import io.seglog.replication.data.LogBytes;
import io.seglog.replication.replica.ReplicaFixtures.ManualClock;
import io.seglog.replication.replica.ReplicaFixtures.TestContext;
import io.seglog.replication.replica.TestEndpoints.GatedEndpoint;
import io.seglog.replication.replica.TestEndpoints.PartitionEndpoint;
import io.seglog.replication.transport.LiveBroker;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.TopicPartition;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fetcher threads replicating from leader {@link Partition}s in the same test over in-memory endpoints: byte-for-byte
 * replication, truncation by epoch (KIP-595's diverging epoch and KIP-279's OffsetsForLeaderEpoch round), the two
 * out-of-range resets, fencing, a removed partition's answer in flight, and no thread left after close.
 */
class ReplicaFetcherTest {
    private static final TopicPartition TP = new TopicPartition("t", 0);
    private static final Duration DEADLINE = Duration.ofSeconds(30);
    private static final ReplicaManagerConfig CONFIG = new ReplicaManagerConfig(30_000, 100, 1, 1 << 20, 10 << 20,
        10, 1, 5_000, false);
    private static final LongSupplier REAL_CLOCK = () -> TimeUnit.NANOSECONDS.toMillis(System.nanoTime());

    @TempDir
    Path dir;

    private final TestContext leaderCtx = new TestContext(new ManualClock(1_000), 30_000);
    private final TestContext followerCtx = new TestContext(new ManualClock(1_000), 30_000);
    private final ScheduledExecutorService answerTimer = Executors.newSingleThreadScheduledExecutor(
        r -> new Thread(r, "test-leader-answers"));
    private final List<AutoCloseable> opened = new ArrayList<>();
    private final List<Thread> fetcherThreads = new CopyOnWriteArrayList<>();
    private final ThreadFactory threads = r -> {
        final Thread t = new Thread(r);
        fetcherThreads.add(t);
        return t;
    };
    private final List<PartitionEndpoint> endpoints = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        final List<AutoCloseable> reversed = new ArrayList<>(opened);
        Collections.reverse(reversed);
        for (final AutoCloseable c : reversed) {
            c.close();
        }
        answerTimer.shutdownNow();
        assertTrue(answerTimer.awaitTermination(10, TimeUnit.SECONDS));
        for (final Thread t : fetcherThreads) {
            assertFalse(t.isAlive(), t.getName() + " outlived its fetcher");
        }
    }

    private PartitionLog log(final String name) {
        final PartitionLog log = openLog(dir.resolve(name).resolve("t-0"), 1);
        opened.add(log);
        return log;
    }

    private Partition leader(final TopicPartition tp, final int brokerId, final PartitionLog log, final int epoch,
                             final List<Integer> isr) {
        final Partition p = new Partition(tp, brokerId, log, leaderCtx);
        p.makeLeader(state(brokerId, epoch, isr, 0, List.of(brokerId, 2)));
        return p;
    }

    private Partition follower(final TopicPartition tp, final int leaderId, final PartitionLog log, final int epoch) {
        final Partition p = new Partition(tp, 2, log, followerCtx);
        p.makeFollower(state(leaderId, epoch, List.of(leaderId, 2), 0, List.of(leaderId, 2)));
        return p;
    }

    private ReplicaFetcherManager manager(final Map<Integer, Map<TopicPartition, Partition>> leadersByBroker) {
        final ReplicaFetcherManager m = new ReplicaFetcherManager(2, CONFIG, REAL_CLOCK, () -> 1L,
            (brokerId, host, port) -> {
                final PartitionEndpoint e = new PartitionEndpoint(leadersByBroker.get(brokerId), answerTimer);
                endpoints.add(e);
                return e;
            }, threads);
        opened.add(m);
        return m;
    }

    private ReplicaFetcher fetcher(final LeaderEndpoint endpoint) {
        final ReplicaFetcher f = new ReplicaFetcher(2, 1, 0, endpoint, CONFIG, REAL_CLOCK, () -> 1L, threads);
        opened.add(f);
        return f;
    }

    private static LiveBroker address(final int id) {
        return new LiveBroker(id, 1, "broker-" + id, 9092, Optional.empty());
    }

    private static void append(final Partition leader, final String value) {
        assertEquals(ReplicaError.NONE, leader.appendAsLeader(batch(value), (short) 1).error());
    }

    /**
     * Waits until the follower holds the leader's log end and epochs (which, once a truncation has been settled,
     * means nothing more is truncated), then compares the bytes.
     */
    private static void awaitSameLog(final PartitionLog leader, final PartitionLog follower) {
        Await.until(DEADLINE, () -> follower.logEndOffset() == leader.logEndOffset()
                && follower.leaderEpochs().equals(leader.leaderEpochs()),
            () -> "follower end " + follower.logEndOffset() + " epochs " + follower.leaderEpochs() + ", leader end "
                + leader.logEndOffset() + " epochs " + leader.leaderEpochs());
        assertArrayEquals(LogBytes.bytes(leader, leader.logStartOffset(), leader.logEndOffset()),
            LogBytes.bytes(follower, leader.logStartOffset(), follower.logEndOffset()));
    }

    @Test
    void followerReplicatesTheLeadersLogByteForByte() {
        final PartitionLog leaderLog = log("leader");
        final Partition leader = leader(TP, 1, leaderLog, 0, List.of(1, 2));
        for (int i = 0; i < 5; i++) {
            final String[] values = new String[i + 1];
            for (int j = 0; j <= i; j++) {
                values[j] = "r" + i + "-" + j;
            }
            assertEquals(ReplicaError.NONE, leader.appendAsLeader(batch(values), (short) 1).error());
        }
        final PartitionLog followerLog = log("follower");
        final ReplicaFetcherManager manager = manager(Map.of(1, Map.of(TP, leader)));

        manager.add(follower(TP, 1, followerLog, 0), 1, 0, address(1));
        assertEquals(1, manager.fetcherCount());
        awaitSameLog(leaderLog, followerLog);

        append(leader, "later-1");
        append(leader, "later-2");
        awaitSameLog(leaderLog, followerLog);
        Await.until(DEADLINE, () -> leaderLog.highWatermark() == leaderLog.logEndOffset()
                && followerLog.highWatermark() == leaderLog.logEndOffset(),
            () -> "leader HW " + leaderLog.highWatermark() + ", follower HW " + followerLog.highWatermark());
        assertEquals(17, followerLog.logEndOffset());
    }

    @Test
    void followerWithAnExtraBatchInAnOldEpochTruncatesWhereTheLeaderSaysItsEpochEnded() {
        final PartitionLog leaderLog = log("leader");
        leaderLog.appendAsLeader(batch("a0"), 0);
        leaderLog.appendAsLeader(batch("a1"), 0);
        final PartitionLog followerLog = log("follower");
        followerLog.appendAsFollower(bytesOf(leaderLog, 0));
        followerLog.appendAsLeader(batch("b2"), 1); // written as leader of epoch 1, never replicated
        final Partition leader = leader(TP, 1, leaderLog, 2, List.of(1));
        append(leader, "a2");
        assertEquals(followerLog.logEndOffset(), leaderLog.logEndOffset(), "same ends, different logs");

        final ReplicaFetcherManager manager = manager(Map.of(1, Map.of(TP, leader)));
        manager.add(follower(TP, 1, followerLog, 2), 1, 2, address(1));

        awaitSameLog(leaderLog, followerLog);
        assertEquals(List.of("a0", "a1", "a2"), LogBytes.values(followerLog, 0, 3));
        final PartitionEndpoint endpoint = endpoints.get(0);
        assertEquals(List.of(), endpoint.epochQueries, "the diverging epoch settled it in one round (KIP-595)");
        assertEquals(2, endpoint.fetches.stream().mapToLong(PartitionFetch::fetchOffset).min().orElseThrow(),
            "what agreed was kept");
    }

    @Test
    void followerThatDoesNotKnowTheLeadersEpochAsksAgainBeforeFetching() {
        // KIP-279 case 3: both hold 0:e0 and 1:e0; the leader wrote 2:e1 and 3:e1, the follower 2:e2 and 3:e2 (each
        // as leader of an epoch the other never saw); the leader is back in epoch 3 and wrote 4:e3.
        final PartitionLog leaderLog = log("leader");
        leaderLog.appendAsLeader(batch("a0"), 0);
        leaderLog.appendAsLeader(batch("a1"), 0);
        final PartitionLog followerLog = log("follower");
        followerLog.appendAsFollower(bytesOf(leaderLog, 0));
        leaderLog.appendAsLeader(batch("a2"), 1);
        leaderLog.appendAsLeader(batch("a3"), 1);
        followerLog.appendAsLeader(batch("b2"), 2);
        followerLog.appendAsLeader(batch("b3"), 2);
        final Partition leader = leader(TP, 1, leaderLog, 3, List.of(1));
        append(leader, "a4");

        final ReplicaFetcherManager manager = manager(Map.of(1, Map.of(TP, leader)));
        manager.add(follower(TP, 1, followerLog, 3), 1, 3, address(1));

        awaitSameLog(leaderLog, followerLog);
        assertEquals(List.of("a0", "a1", "a2", "a3", "a4"), LogBytes.values(followerLog, 0, 5));
        final PartitionEndpoint endpoint = endpoints.get(0);
        // The leader answered epoch 2 with (1, 4); the follower knows no epoch 1, so it cut to the end of its epoch
        // 0 (offset 2) and asked where epoch 0 ends before fetching again.
        assertEquals(1, endpoint.epochQueries.size());
        assertArrayEquals(new int[] {3, 0}, endpoint.epochQueries.get(0));
        assertEquals(2, endpoint.fetches.stream().mapToLong(PartitionFetch::fetchOffset).min().orElseThrow(),
            "never truncated below where the logs agree");
    }

    @Test
    void outOfRangeWithTheLeadersEndBelowTheFollowersEndTruncatesToIt() {
        final PartitionLog leaderLog = log("leader");
        for (int i = 0; i < 4; i++) {
            leaderLog.appendAsLeader(batch("a" + i), 0);
        }
        final Partition leader = leader(TP, 1, leaderLog, 1, List.of(1));
        final PartitionLog followerLog = log("follower");
        followerLog.truncateFullyAndStartAt(10); // followed an earlier leader whose log started at 10

        final ReplicaFetcherManager manager = manager(Map.of(1, Map.of(TP, leader)));
        manager.add(follower(TP, 1, followerLog, 1), 1, 1, address(1));

        Await.until(DEADLINE, () -> followerLog.logEndOffset() == 4,
            () -> "follower end " + followerLog.logEndOffset());
        assertEquals(4, followerLog.logStartOffset(), "nothing of the leader's log below 4 is fetched");
        assertTrue(endpoints.get(0).offsetQueries.contains(PartitionLog.LATEST_TIMESTAMP));

        append(leader, "a4");
        Await.until(DEADLINE, () -> followerLog.logEndOffset() == 5, () -> "follower end " + followerLog.logEndOffset());
        assertArrayEquals(LogBytes.bytes(leaderLog, 4, 5), LogBytes.bytes(followerLog, 4, 5));
    }

    @Test
    void outOfRangeWithTheLeadersStartAboveTheFollowersEndRestartsTheLogThere() {
        final PartitionLog leaderLog = log("leader");
        for (int i = 0; i < 10; i++) {
            leaderLog.appendAsLeader(batch("a" + i), 0);
        }
        final PartitionLog followerLog = log("follower");
        followerLog.appendAsFollower(bytesOf(leaderLog.read(0, Integer.MAX_VALUE, 3, true)));
        final Partition leader = leader(TP, 1, leaderLog, 1, List.of(1));
        assertEquals(10, leaderLog.highWatermark());
        leaderLog.deleteRecordsBefore(6);

        final ReplicaFetcherManager manager = manager(Map.of(1, Map.of(TP, leader)));
        manager.add(follower(TP, 1, followerLog, 1), 1, 1, address(1));

        Await.until(DEADLINE, () -> followerLog.logStartOffset() == 6 && followerLog.logEndOffset() == 10,
            () -> "follower log [" + followerLog.logStartOffset() + ", " + followerLog.logEndOffset() + ")");
        assertArrayEquals(LogBytes.bytes(leaderLog, 6, 10), LogBytes.bytes(followerLog, 6, 10));
        assertEquals(List.of("a6", "a7", "a8", "a9"), LogBytes.values(followerLog, 6, 10));
        assertTrue(endpoints.get(0).offsetQueries.contains(PartitionLog.EARLIEST_TIMESTAMP));
    }

    @Test
    void fencedLeaderEpochDropsThePartitionFromTheFetcher() {
        final PartitionLog leaderLog = log("leader");
        final Partition leader = leader(TP, 1, leaderLog, 2, List.of(1));
        append(leader, "a0");
        final PartitionLog followerLog = log("follower");
        final PartitionEndpoint endpoint = new PartitionEndpoint(Map.of(TP, leader), answerTimer);
        final ReplicaFetcher fetcher = fetcher(endpoint);

        fetcher.add(follower(TP, 1, followerLog, 1), 1); // this broker still follows epoch 1
        fetcher.start();

        Await.until(DEADLINE, () -> fetcher.partitionCount() == 0, () -> "still fetched: " + endpoint.fetches);
        assertTrue(endpoint.fetches.stream().allMatch(f -> f.currentLeaderEpoch() == 1));
        assertEquals(0, followerLog.logEndOffset());
    }

    @Test
    void removedPartitionsAnswerInFlightIsNotApplied() {
        final TopicPartition tp0 = new TopicPartition("t", 0);
        final TopicPartition tp1 = new TopicPartition("t", 1);
        final Partition leader0 = leader(tp0, 1, log("leader0"), 0, List.of(1, 2));
        final Partition leader1 = leader(tp1, 1, log("leader1"), 0, List.of(1, 2));
        append(leader0, "x");
        append(leader1, "y");
        final PartitionLog followerLog0 = log("follower0");
        final PartitionLog followerLog1 = log("follower1");
        final GatedEndpoint endpoint = new GatedEndpoint();
        final ReplicaFetcher fetcher = fetcher(endpoint);
        fetcher.add(follower(tp0, 1, followerLog0, 0), 0);
        fetcher.add(follower(tp1, 1, followerLog1, 0), 0);
        fetcher.start();

        Await.until(DEADLINE, () -> endpoint.fetches.size() == 1, () -> "the first fetch");
        final GatedEndpoint.Held first = endpoint.fetches.get(0);
        assertEquals(List.of(tp0, tp1), first.request().partitions().stream().map(PartitionFetch::tp).toList());
        assertTrue(fetcher.remove(tp0));
        first.answer().complete(FetchResponse.of(TestEndpoints.serve(Map.of(tp0, leader0, tp1, leader1),
            first.request())));

        Await.until(DEADLINE, () -> endpoint.fetches.size() == 2, () -> "the fetch after the answer was processed");
        assertEquals(0, followerLog0.logEndOffset(), "the removed partition's records were dropped");
        assertEquals(1, followerLog1.logEndOffset(), "the other partition's were applied");
        assertEquals(List.of(tp1), endpoint.fetches.get(1).request().partitions().stream().map(PartitionFetch::tp)
            .toList());
    }

    @Test
    void closingTheManagerEndsEveryFetcherThread() {
        final TopicPartition tp1 = new TopicPartition("t", 1);
        final TopicPartition tp2 = new TopicPartition("t", 2);
        final Partition fromBroker1 = leader(TP, 1, log("leader1"), 0, List.of(1, 2));
        final Partition fromBroker3 = leader(tp1, 3, log("leader3"), 0, List.of(3, 2));
        final Partition fromBroker4 = leader(tp2, 4, log("leader4"), 0, List.of(4, 2));
        append(fromBroker1, "a");
        append(fromBroker3, "b");
        final PartitionLog follower1 = log("follower1");
        final PartitionLog follower3 = log("follower3");
        final ReplicaFetcherManager manager = manager(Map.of(1, Map.of(TP, fromBroker1), 3, Map.of(tp1, fromBroker3),
            4, Map.of(tp2, fromBroker4)));

        manager.add(follower(TP, 1, follower1, 0), 1, 0, address(1));
        manager.add(follower(tp1, 3, follower3, 0), 3, 0, address(3));
        manager.add(follower(tp2, 4, log("follower4"), 0), 4, 0, address(4));
        assertEquals(3, manager.fetcherCount());
        Await.until(DEADLINE, () -> follower1.logEndOffset() == 1 && follower3.logEndOffset() == 1,
            () -> "both fetchers replicate");
        manager.remove(tp2); // its fetcher is told to stop, not joined
        assertEquals(2, manager.fetcherCount());
        assertEquals(3, fetcherThreads.size());

        manager.close();
        Await.until(Duration.ofSeconds(10), () -> liveFetcherThreads().isEmpty(),
            () -> "fetcher threads alive: " + liveFetcherThreads());
        assertTrue(endpoints.stream().allMatch(PartitionEndpoint::closed), "every connection closed");
    }

    private static List<String> liveFetcherThreads() {
        final List<String> names = new ArrayList<>();
        for (final Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && t.getName().startsWith("replica-fetcher-")) {
                names.add(t.getName());
            }
        }
        return names;
    }
}
