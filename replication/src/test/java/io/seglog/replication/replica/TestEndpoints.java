package io.seglog.replication.replica;

import static io.seglog.replication.replica.ReplicaFixtures.bytesOf;

import io.seglog.storage.EpochEndOffset;
import io.seglog.storage.TopicPartition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * In-memory {@link LeaderEndpoint}s for fetcher tests. Both honour the contract that closing an endpoint fails the
 * requests in flight (the fetcher relies on it to end without being interrupted).
 */
final class TestEndpoints {
    private TestEndpoints() {
    }

    /** How long a fetch that finds nothing new is held, as a leader holds it for {@code replica.fetch.wait.max.ms}. */
    static final long HOLD_MS = 5;

    /** The answer a leader's partitions give to a follower's fetch (the slices copied into heap buffers). */
    static List<FetchedPartition> serve(final Map<TopicPartition, Partition> leaders, final FetchRequest request) {
        final List<FetchedPartition> out = new ArrayList<>();
        for (final PartitionFetch pf : request.partitions()) {
            final Partition p = leaders.get(pf.tp());
            if (p == null) {
                out.add(new FetchedPartition(pf.tp(), ReplicaError.UNKNOWN_TOPIC_OR_PARTITION, -1, -1,
                    EpochEndOffset.UNDEFINED, null));
                continue;
            }
            final ReadResult r = p.fetchForFollower(request.replicaId(), request.replicaEpoch(),
                pf.currentLeaderEpoch(), pf.fetchOffset(), pf.lastFetchedEpoch(), pf.logStartOffset(),
                pf.durableOffset(), pf.maxBytes(), true, true);
            out.add(new FetchedPartition(pf.tp(), r.error(), r.highWatermark(), r.logStartOffset(),
                r.divergingEpoch(), bytesOf(r.records())));
        }
        return out;
    }

    private static <T> CompletableFuture<T> closedFailure() {
        return CompletableFuture.failedFuture(new IllegalStateException("endpoint closed"));
    }

    /**
     * Serves a follower from leader {@link Partition}s in the same test, and records what it was asked. A fetch that
     * finds nothing is answered after {@link #HOLD_MS} on the given timer, so an idle fetcher does not spin.
     */
    static final class PartitionEndpoint implements LeaderEndpoint {
        private final Map<TopicPartition, Partition> leaders;
        private final ScheduledExecutorService timer;
        private final Set<CompletableFuture<?>> inFlight = ConcurrentHashMap.newKeySet();
        final List<PartitionFetch> fetches = new CopyOnWriteArrayList<>();
        /** OffsetsForLeaderEpoch questions: {current leader epoch, epoch asked about}. */
        final List<int[]> epochQueries = new CopyOnWriteArrayList<>();
        /** ListOffsets questions: the timestamps. */
        final List<Long> offsetQueries = new CopyOnWriteArrayList<>();
        private volatile boolean closed;

        PartitionEndpoint(final Map<TopicPartition, Partition> leaders, final ScheduledExecutorService timer) {
            this.leaders = leaders;
            this.timer = timer;
        }

        @Override
        public CompletableFuture<FetchResponse> fetch(final FetchRequest request) {
            if (closed) {
                return closedFailure();
            }
            fetches.addAll(request.partitions());
            final List<FetchedPartition> answer = serve(leaders, request);
            final boolean nothing = answer.stream().allMatch(a -> a.error() == ReplicaError.NONE
                && a.records() == null && a.divergingEpoch().isUndefined());
            if (!nothing) {
                return CompletableFuture.completedFuture(FetchResponse.of(answer));
            }
            final CompletableFuture<FetchResponse> held = new CompletableFuture<>();
            inFlight.add(held);
            timer.schedule(() -> {
                inFlight.remove(held);
                held.complete(FetchResponse.of(answer));
            }, HOLD_MS, TimeUnit.MILLISECONDS);
            if (closed) {
                held.completeExceptionally(new IllegalStateException("endpoint closed"));
            }
            return held;
        }

        @Override
        public CompletableFuture<Map<TopicPartition, EpochResult>> offsetsForLeaderEpoch(
            final int replicaId, final Map<TopicPartition, int[]> epochs) {
            if (closed) {
                return closedFailure();
            }
            final Map<TopicPartition, EpochResult> out = new HashMap<>();
            epochs.forEach((tp, q) -> {
                epochQueries.add(q.clone());
                final Partition p = leaders.get(tp);
                out.put(tp, p == null ? EpochResult.error(ReplicaError.UNKNOWN_TOPIC_OR_PARTITION)
                    : p.endOffsetForEpoch(q[0], q[1]));
            });
            return CompletableFuture.completedFuture(out);
        }

        @Override
        public CompletableFuture<Map<TopicPartition, OffsetResult>> listOffsets(
            final int replicaId, final Map<TopicPartition, Integer> currentLeaderEpochs, final long timestamp) {
            if (closed) {
                return closedFailure();
            }
            offsetQueries.add(timestamp);
            final Map<TopicPartition, OffsetResult> out = new HashMap<>();
            currentLeaderEpochs.forEach((tp, epoch) -> {
                final Partition p = leaders.get(tp);
                out.put(tp, p == null ? OffsetResult.error(ReplicaError.UNKNOWN_TOPIC_OR_PARTITION)
                    : p.listOffset(epoch, timestamp, FetchIsolation.LOG_END));
            });
            return CompletableFuture.completedFuture(out);
        }

        boolean closed() {
            return closed;
        }

        @Override
        public void close() {
            closed = true;
            for (final CompletableFuture<?> f : inFlight) {
                f.completeExceptionally(new IllegalStateException("endpoint closed"));
            }
        }
    }

    /** Holds every fetch until the test answers it; any other request fails. */
    static final class GatedEndpoint implements LeaderEndpoint {
        /** A fetch waiting for the test's answer. */
        record Held(FetchRequest request, CompletableFuture<FetchResponse> answer) {
        }

        final List<Held> fetches = new CopyOnWriteArrayList<>();
        private volatile boolean closed;

        @Override
        public CompletableFuture<FetchResponse> fetch(final FetchRequest request) {
            if (closed) {
                return closedFailure();
            }
            final Held held = new Held(request, new CompletableFuture<>());
            fetches.add(held);
            if (closed) {
                held.answer().completeExceptionally(new IllegalStateException("endpoint closed"));
            }
            return held.answer();
        }

        @Override
        public CompletableFuture<Map<TopicPartition, EpochResult>> offsetsForLeaderEpoch(
            final int replicaId, final Map<TopicPartition, int[]> epochs) {
            return CompletableFuture.failedFuture(new UnsupportedOperationException("not expected in this test"));
        }

        @Override
        public CompletableFuture<Map<TopicPartition, OffsetResult>> listOffsets(
            final int replicaId, final Map<TopicPartition, Integer> currentLeaderEpochs, final long timestamp) {
            return CompletableFuture.failedFuture(new UnsupportedOperationException("not expected in this test"));
        }

        @Override
        public void close() {
            closed = true;
            for (final Held h : fetches) {
                h.answer().completeExceptionally(new IllegalStateException("endpoint closed"));
            }
        }
    }
}
