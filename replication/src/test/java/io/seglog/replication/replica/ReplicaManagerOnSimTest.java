package io.seglog.replication.replica;

import static io.seglog.replication.replica.ReplicaFixtures.batch;
import static io.seglog.replication.replica.ReplicaFixtures.state;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.sim.SimScheduler;
import io.seglog.storage.LogConfig;
import io.seglog.storage.LogManager;
import io.seglog.storage.LogManagerConfig;
import io.seglog.storage.TopicPartition;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The replica manager's timed work on the simulation's scheduler and clock (issue 15, plan step 4): an acks=all
 * produce completes when the follower's fetch moves the high watermark, another times out at its deadline on the
 * simulated clock, and a silent follower leaves the ISR on the leader's periodic check; the same seed gives the same
 * trace. No thread of the replica layer's own is started (a leader has no fetcher).
 */
class ReplicaManagerOnSimTest {
    private static final TopicPartition TP = new TopicPartition("t", 0);
    private static final long LAG_MS = 1_000;
    private static final ReplicaManagerConfig CONFIG = new ReplicaManagerConfig(LAG_MS, 500, 1, 1 << 20, 10 << 20,
        10, 1, 5_000, false);

    @TempDir
    Path dir;

    /** ISR writes answered as events a few milliseconds later. */
    private static final class SimIsrWriter implements IsrWriter {
        final List<Proposal> proposals = new ArrayList<>();
        final List<Long> atMs = new ArrayList<>();
        private final SimScheduler sim;
        private int partitionEpoch;

        SimIsrWriter(final SimScheduler sim) {
            this.sim = sim;
        }

        @Override
        public CompletableFuture<Result> write(final TopicPartition tp, final Proposal proposal) {
            proposals.add(proposal);
            atMs.add(sim.nowMs());
            final CompletableFuture<Result> answer = new CompletableFuture<>();
            sim.schedule("isr write", 1, 3, () -> answer.complete(new Written(++partitionEpoch)));
            return answer;
        }
    }

    private record Run(long digest, long timedOutAtMs, long shrunkAtMs) {
    }

    private Run run(final long seed, final Path logDir) {
        final SimScheduler sim = new SimScheduler(seed);
        final SimIsrWriter writer = new SimIsrWriter(sim);
        final long start = sim.nowMs();
        try (LogManager logs = LogManager.open(LogManagerConfig.builder().logDirs(logDir)
            .logConfig(LogConfig.builder().minInsyncReplicas(2).build()).build());
             ReplicaManager replicas = new ReplicaManager(1, logs, CONFIG, sim::nowMs, () -> 7L, writer, id -> true,
                 (id, host, port) -> {
                     throw new AssertionError("a leader opens no fetcher");
                 }, r -> {
                     throw new AssertionError("no thread of the replica layer's own: " + r);
                 }, LeadershipListener.NONE, sim.storageScheduler(1), SafetyFixes.ALL)) {
            replicas.onLeaderAndIsr(Map.of(TP, state(1, 0, List.of(1, 2), 0, List.of(1, 2))), Map.of());

            // acks=all waits for the follower; its fetch at the new end moves the high watermark and completes it.
            final CompletableFuture<Map<TopicPartition, AppendResult>> acked = replicas.produce((short) -1, 3_000,
                Map.of(TP, batch("a", "b")));
            sim.run(sim.nowMs() + 50);
            assertFalse(acked.isDone(), "waits for the follower");
            replicas.fetch(new FetchRequest(2, 7, 0, 1, 1 << 20, List.of(new PartitionFetch(TP, 0, 2, 0, 0, -1,
                1 << 20))));
            assertTrue(sim.runUntil(acked::isDone, sim.nowMs() + 100), "acknowledged once the follower has it");
            assertEquals(ReplicaError.NONE, acked.join().get(TP).error());

            // The follower goes silent: the next acks=all write times out at its deadline on the simulated clock.
            final long sent = sim.nowMs();
            final CompletableFuture<Map<TopicPartition, AppendResult>> late = replicas.produce((short) -1, 400,
                Map.of(TP, batch("c")));
            assertTrue(sim.runUntil(late::isDone, sent + 1_000));
            assertEquals(ReplicaError.REQUEST_TIMED_OUT, late.join().get(TP).error());
            final long timedOutAt = sim.nowMs() - sent;
            assertTrue(timedOutAt >= 400 && timedOutAt <= 400 + 2 * DelayedOperations.TICK_MS,
                "timed out at " + timedOutAt + " ms");

            // ...and leaves the ISR on the leader's periodic check, within 1.5 lag times of its last catch-up.
            assertTrue(sim.runUntil(() -> !writer.proposals.isEmpty(), sim.nowMs() + 3 * LAG_MS));
            assertEquals(List.of(1), writer.proposals.get(0).isr());
            final long shrunkAt = writer.atMs.get(0) - start;
            assertTrue(sim.runUntil(() -> replicas.partition(TP).orElseThrow().isr().equals(List.of(1)),
                sim.nowMs() + 100), "the written ISR applies");
            return new Run(sim.digest(), timedOutAt, shrunkAt);
        }
    }

    @Test
    void purgatoryAndIsrExpiryRunOnTheSimulatedClockAndReplay() {
        final Run first = run(5, dir.resolve("a"));
        final Run second = run(5, dir.resolve("b"));
        assertEquals(first, second, "the same seed, the same run");
    }
}
