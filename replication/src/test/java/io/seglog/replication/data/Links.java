package io.seglog.replication.data;

import io.seglog.replication.broker.SeglogBroker;
import io.seglog.replication.replica.EpochResult;
import io.seglog.replication.replica.FetchRequest;
import io.seglog.replication.replica.FetchResponse;
import io.seglog.replication.replica.LeaderEndpoint;
import io.seglog.replication.replica.OffsetResult;
import io.seglog.storage.TopicPartition;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * Faults on the replication links of a {@link DataCluster}: each follower's connection to each leader can be cut
 * (requests fail without reaching the leader), made to lose its responses (requests reach the leader, answers never
 * come back) for requests a predicate picks, or slowed. Counts the fetches that reached each leader.
 */
public final class Links implements SeglogBroker.EndpointWrapper {
    private record Key(int follower, int leader) {
    }

    /** What happens on a link. */
    private record Rule(boolean blocked, Predicate<FetchRequest> dropResponse, long delayMs,
                        Predicate<FetchRequest> cutRequest) {
        static final Rule PASS = new Rule(false, r -> false, 0);

        Rule(final boolean blocked, final Predicate<FetchRequest> dropResponse, final long delayMs) {
            this(blocked, dropResponse, delayMs, r -> false);
        }
    }

    private final Map<Key, Rule> rules = new ConcurrentHashMap<>();
    private final Map<Key, AtomicLong> delivered = new ConcurrentHashMap<>();
    private final ScheduledExecutorService delays;

    /**
     * @param delays runs delayed answers (owned by the caller)
     */
    public Links(final ScheduledExecutorService delays) {
        this.delays = delays;
    }

    /**
     * Cuts a follower's link to a leader: its requests fail at once.
     *
     * @param follower the follower
     * @param leader   the leader
     */
    public void block(final int follower, final int leader) {
        rules.put(new Key(follower, leader), new Rule(true, r -> false, 0));
    }

    /**
     * Cuts every link between a broker and the others, both ways.
     *
     * @param broker the broker
     * @param others the other brokers
     */
    public void isolate(final int broker, final int... others) {
        for (final int o : others) {
            block(broker, o);
            block(o, broker);
        }
    }

    /**
     * The leader processes the follower's fetches, but answers to the ones the predicate picks never arrive.
     *
     * @param follower the follower
     * @param leader   the leader
     * @param when     which fetches lose their answer
     */
    public void dropResponses(final int follower, final int leader, final Predicate<FetchRequest> when) {
        rules.put(new Key(follower, leader), new Rule(false, when, 0));
    }

    /**
     * The follower's fetches that the predicate picks never reach the leader (they fail at once); the others pass.
     * Cutting the fetches above an offset holds the leader's high watermark there while the follower still receives
     * (and appends) what the leader has past it.
     *
     * @param follower the follower
     * @param leader   the leader
     * @param when     which fetches are cut
     */
    public void cutFetches(final int follower, final int leader, final Predicate<FetchRequest> when) {
        rules.put(new Key(follower, leader), new Rule(false, r -> false, 0, when));
    }

    /**
     * Delays every answer on a link.
     *
     * @param follower the follower
     * @param leader   the leader
     * @param delayMs  the delay
     */
    public void delay(final int follower, final int leader, final long delayMs) {
        rules.put(new Key(follower, leader), new Rule(false, r -> false, delayMs));
    }

    /**
     * Restores a link.
     *
     * @param follower the follower
     * @param leader   the leader
     */
    public void heal(final int follower, final int leader) {
        rules.remove(new Key(follower, leader));
    }

    /** Restores every link. */
    public void healAll() {
        rules.clear();
    }

    /**
     * Fetches from a follower that reached a leader so far.
     *
     * @param follower the follower
     * @param leader   the leader
     * @return the count
     */
    public long delivered(final int follower, final int leader) {
        return delivered.computeIfAbsent(new Key(follower, leader), k -> new AtomicLong()).get();
    }

    /** A fetch request's offset for one partition, for predicates. */
    public static long fetchOffset(final FetchRequest request, final TopicPartition tp) {
        return request.partitions().stream().filter(p -> p.tp().equals(tp)).findFirst()
            .map(p -> p.fetchOffset()).orElse(-1L);
    }

    @Override
    public LeaderEndpoint wrap(final int localBrokerId, final int leaderId, final LeaderEndpoint endpoint) {
        final Key key = new Key(localBrokerId, leaderId);
        return new LeaderEndpoint() {
            private Rule rule() {
                return rules.getOrDefault(key, Rule.PASS);
            }

            private <T> CompletableFuture<T> cut() {
                return CompletableFuture.failedFuture(new IOException("link " + key.follower() + "->" + key.leader()
                    + " is cut"));
            }

            private <T> CompletableFuture<T> delayed(final CompletableFuture<T> answer, final long delayMs) {
                if (delayMs <= 0) {
                    return answer;
                }
                final CompletableFuture<T> later = new CompletableFuture<>();
                answer.whenComplete((v, e) -> delays.schedule(() -> {
                    if (e != null) {
                        later.completeExceptionally(e);
                    } else {
                        later.complete(v);
                    }
                }, delayMs, TimeUnit.MILLISECONDS));
                return later;
            }

            @Override
            public CompletableFuture<FetchResponse> fetch(final FetchRequest request) {
                final Rule r = rule();
                if (r.blocked() || r.cutRequest().test(request)) {
                    return cut();
                }
                final CompletableFuture<FetchResponse> answer = endpoint.fetch(request);
                delivered.computeIfAbsent(key, k -> new AtomicLong()).incrementAndGet();
                // The rule as it is when the answer arrives: a link cut while a fetch waits on the leader loses it
                // (and gives its buffers back, as the endpoint does with an answer nobody waits for).
                final CompletableFuture<FetchResponse> kept = answer.thenCompose(x -> {
                    final Rule now = rule();
                    if (now.blocked() || now.dropResponse().test(request)) {
                        x.close();
                        return CompletableFuture.failedFuture(new IOException("answer on link " + key.follower()
                            + "->" + key.leader() + " lost"));
                    }
                    return CompletableFuture.completedFuture(x);
                });
                final CompletableFuture<FetchResponse> out = delayed(kept, r.delayMs());
                // The follower may stop waiting (a timeout cancels): an answer arriving after that is given back.
                out.whenComplete((x, e) -> {
                    if (out.isCancelled()) {
                        answer.thenAccept(FetchResponse::close);
                    }
                });
                return out;
            }

            @Override
            public CompletableFuture<Map<TopicPartition, EpochResult>> offsetsForLeaderEpoch(
                final int replicaId, final Map<TopicPartition, int[]> epochs) {
                final Rule r = rule();
                return r.blocked() ? cut() : delayed(endpoint.offsetsForLeaderEpoch(replicaId, epochs).thenCompose(
                    x -> rule().blocked() ? cut() : CompletableFuture.completedFuture(x)), r.delayMs());
            }

            @Override
            public CompletableFuture<Map<TopicPartition, OffsetResult>> listOffsets(
                final int replicaId, final Map<TopicPartition, Integer> currentLeaderEpochs, final long timestamp) {
                final Rule r = rule();
                return r.blocked() ? cut() : delayed(endpoint.listOffsets(replicaId, currentLeaderEpochs, timestamp)
                    .thenCompose(x -> rule().blocked() ? cut() : CompletableFuture.completedFuture(x)), r.delayMs());
            }

            @Override
            public void close() {
                endpoint.close();
            }
        };
    }
}
