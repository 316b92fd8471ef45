package io.seglog.replication.replica;

import static io.seglog.replication.replica.ReplicaFixtures.batch;
import static io.seglog.replication.replica.ReplicaFixtures.openLog;
import static io.seglog.replication.replica.ReplicaFixtures.state;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.replica.ReplicaFixtures.ManualClock;
import io.seglog.replication.replica.ReplicaFixtures.TestContext;
import io.seglog.replication.replica.TestEndpoints.GatedEndpoint;
import io.seglog.replication.sim.SimScheduler;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.TopicPartition;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The event-driven fetcher on the simulation's scheduler (issue 15, plan step 5): no thread, no blocking wait, every
 * wait a timer on the simulated clock. A fetch with no answer times out after {@code replica.socket.timeout.ms} and
 * the fetcher backs off and asks again; an answer that comes as it gives up is closed exactly once and not applied;
 * an idle fetcher starts at once when a partition is added; after a shutdown the request in flight fails and nothing
 * more is scheduled.
 */
class ReplicaFetcherOnSimTest {
    private static final TopicPartition TP = new TopicPartition("t", 0);
    private static final int SOCKET_TIMEOUT_MS = 2_000;
    private static final long BACKOFF_MS = 300;
    private static final ReplicaManagerConfig CONFIG = new ReplicaManagerConfig(30_000, 100, 1, 1 << 20, 10 << 20,
        BACKOFF_MS, 1, SOCKET_TIMEOUT_MS, false);

    @TempDir
    Path dir;

    private final List<AutoCloseable> opened = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
    }

    private Partition follower(final SimScheduler sim) {
        final PartitionLog log = openLog(dir.resolve("follower").resolve("t-0"), 1);
        opened.add(log);
        final Partition p = new Partition(TP, 2, log, new TestContext(new ManualClock(0), 30_000));
        p.makeFollower(state(1, 0, List.of(1, 2), 0, List.of(1, 2)));
        return p;
    }

    private ReplicaFetcher fetcher(final SimScheduler sim, final GatedEndpoint endpoint) {
        final ReplicaFetcher f = new ReplicaFetcher(2, 1, 0, endpoint, CONFIG, sim::nowMs, () -> 1L,
            (Function<String, FetcherDriver>) name -> FetcherDriver.onScheduler(sim.storageScheduler(2), name));
        opened.add(f);
        return f;
    }

    /** A leader holding one batch, whose answers the test hands to the fetcher. */
    private Partition leader() {
        final PartitionLog log = openLog(dir.resolve("leader").resolve("t-0"), 1);
        opened.add(log);
        final Partition p = new Partition(TP, 1, log, new TestContext(new ManualClock(0), 30_000));
        p.makeLeader(state(1, 0, List.of(1, 2), 0, List.of(1, 2)));
        assertEquals(ReplicaError.NONE, p.appendAsLeader(batch("x"), (short) 1).error());
        return p;
    }

    /** The leader's answer to a fetch, with a count of the times it was given back. */
    private static FetchResponse answer(final Partition leader, final FetchRequest request,
                                        final AtomicInteger released) {
        return new FetchResponse(TestEndpoints.serve(Map.of(TP, leader), request), released::incrementAndGet);
    }

    @Test
    void aFetchAnsweredJustAsItTimesOutIsClosedOnceAndNotAppliedThenTheRetryIs() {
        final SimScheduler sim = new SimScheduler(5);
        final GatedEndpoint endpoint = new GatedEndpoint();
        final Partition leader = leader();
        final Partition follower = follower(sim);
        final ReplicaFetcher fetcher = fetcher(sim, endpoint);
        fetcher.add(follower, 0);
        final long start = sim.nowMs();
        // The answer completes the request at the very moment the fetcher's timeout is due, in an event that runs
        // just before the timeout's: the answer's continuation comes after the fetcher gave up.
        final AtomicInteger lateReleases = new AtomicInteger();
        sim.schedule("answer at the timeout", 1, SOCKET_TIMEOUT_MS, () -> {
            final GatedEndpoint.Held first = endpoint.fetches.get(0);
            assertTrue(first.answer().complete(answer(leader, first.request(), lateReleases)));
        });
        fetcher.start();
        assertTrue(sim.runUntil(() -> endpoint.fetches.size() == 1, start + 10), "the first fetch at once");

        assertTrue(sim.runUntil(() -> endpoint.fetches.size() == 2, start + 60_000), "a second fetch");
        final long retriedAt = sim.nowMs();
        assertTrue(retriedAt >= start + SOCKET_TIMEOUT_MS + BACKOFF_MS, "retried at " + retriedAt + " ms, after the "
            + "timeout and the back-off");
        assertTrue(retriedAt < start + SOCKET_TIMEOUT_MS + BACKOFF_MS + 100, "retried at " + retriedAt);
        assertEquals(1, lateReleases.get(), "the answer that came as the fetcher gave up was closed, once");
        assertEquals(0, follower.log().logEndOffset(), "and not applied");

        // The retry's answer comes after a while: applied, and given back once.
        final AtomicInteger released = new AtomicInteger();
        sim.schedule("answer", 1, 50, () -> {
            final GatedEndpoint.Held second = endpoint.fetches.get(1);
            second.answer().complete(answer(leader, second.request(), released));
        });
        assertTrue(sim.runUntil(() -> follower.log().logEndOffset() == 1, sim.nowMs() + 1_000), "applied");
        sim.run(sim.nowMs() + 100);
        assertEquals(1, released.get(), "the applied answer closed exactly once");
        assertEquals(1, lateReleases.get());
    }

    @Test
    void aFetchWithNoAnswerIsGivenUpAfterTheSocketTimeout() {
        final SimScheduler sim = new SimScheduler(8);
        final GatedEndpoint endpoint = new GatedEndpoint();
        final ReplicaFetcher fetcher = fetcher(sim, endpoint);
        fetcher.add(follower(sim), 0);
        final long start = sim.nowMs();
        fetcher.start();
        assertTrue(sim.runUntil(() -> endpoint.fetches.size() == 1, start + 10));
        sim.run(start + SOCKET_TIMEOUT_MS - 1);
        assertTrue(!endpoint.fetches.get(0).answer().isDone(), "still waiting just before the timeout");
        sim.run(start + SOCKET_TIMEOUT_MS);
        assertTrue(endpoint.fetches.get(0).answer().isCancelled(), "given up at the timeout");
        assertEquals(1, endpoint.fetches.size(), "the retry waits for the back-off");
    }

    @Test
    void anIdleFetcherStartsAtOnceWhenAPartitionIsAdded() {
        final SimScheduler sim = new SimScheduler(6);
        final GatedEndpoint endpoint = new GatedEndpoint();
        final ReplicaFetcher fetcher = fetcher(sim, endpoint);
        fetcher.start();
        sim.run(sim.nowMs() + 5_000);
        assertEquals(0, endpoint.fetches.size(), "nothing to fetch");
        final long addedAt = sim.nowMs();
        fetcher.add(follower(sim), 0);
        assertTrue(sim.runUntil(() -> endpoint.fetches.size() == 1, addedAt + 1_000));
        assertEquals(addedAt, sim.nowMs(), "woken by the add, not by its idle timer");
    }

    @Test
    void afterAShutdownTheRequestInFlightFailsAndNothingMoreRuns() {
        final SimScheduler sim = new SimScheduler(7);
        final GatedEndpoint endpoint = new GatedEndpoint();
        final Partition follower = follower(sim);
        final ReplicaFetcher fetcher = fetcher(sim, endpoint);
        fetcher.add(follower, 0);
        fetcher.start();
        assertTrue(sim.runUntil(() -> endpoint.fetches.size() == 1, sim.nowMs() + 10));
        fetcher.shutdown();
        assertTrue(fetcher.ended());
        assertTrue(endpoint.fetches.get(0).answer().isCompletedExceptionally(), "the request in flight failed");
        sim.run(sim.nowMs() + 60_000);
        assertEquals(1, endpoint.fetches.size(), "no fetch after the shutdown");
        assertEquals(0, follower.log().logEndOffset());
        assertEquals(0, sim.pending(), "no timer of the fetcher left: " + sim.recentEvents());
    }
}
