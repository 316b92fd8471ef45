package io.seglog.replication.replica;

import io.seglog.storage.TopicPartition;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The leader's writes and their acknowledgements: a produce's batches and the coordinator's transaction markers,
 * appended to the partitions this broker leads and answered once their acks are met (acks=all: every partition's
 * high watermark passed them; acks=1 under the flow control: the followers close enough), or their timeout passed.
 * The waits are the manager's produce purgatory, completed when a partition's high watermark moves.
 *
 * <p>Thread-safe: the partitions map is the manager's concurrent one; each append runs under its partition's role lock.
 */
final class LeaderWrites {
    private final int brokerId;
    private final Map<TopicPartition, Partition> partitions;
    private final ReplicaManagerConfig config;
    private final DelayedOperations produceWaits;
    private final LongSupplier clockMs;

    /**
     * @param brokerId     this broker, for messages
     * @param partitions   the manager's partitions (read only here)
     * @param config       the flow control's settings
     * @param produceWaits the produce purgatory
     * @param clockMs      the purgatory's clock
     */
    LeaderWrites(final int brokerId, final Map<TopicPartition, Partition> partitions,
                 final ReplicaManagerConfig config, final DelayedOperations produceWaits, final LongSupplier clockMs) {
        this.brokerId = brokerId;
        this.partitions = partitions;
        this.config = config;
        this.produceWaits = produceWaits;
        this.clockMs = clockMs;
    }

    /**
     * Appends a produce's batches to the partitions this broker leads and answers once {@code acks} is met (Kafka's
     * {@code appendRecords}): at once for acks 0, for acks 1 at once unless the flow control holds it (its in-sync
     * followers trail by more than {@value ReplicaManagerConfig#MAX_UNREPLICATED_BYTES}), for acks=all when every
     * partition's high watermark passed its batches (or the durable one, with durable acks), or the timeout passed
     * (REQUEST_TIMED_OUT).
     *
     * @param acks      -1, 0 or 1
     * @param timeoutMs how long acks=all waits
     * @param batches   partition to its batches (in the caller's order; stamped in place)
     * @return completes with every partition's result, in the same order
     */
    CompletableFuture<Map<TopicPartition, AppendResult>> produce(final short acks, final long timeoutMs,
                                                              final Map<TopicPartition, ByteBuffer> batches) {
        final Map<TopicPartition, AppendResult> results = new LinkedHashMap<>();
        if (acks != -1 && acks != 0 && acks != 1) {
            batches.keySet().forEach(tp -> results.put(tp, AppendResult.error(ReplicaError.INVALID_REQUIRED_ACKS,
                "acks=" + acks + " must be -1, 0 or 1")));
            return CompletableFuture.completedFuture(results);
        }
        final Map<TopicPartition, Integer> epochs = new HashMap<>();
        for (final Map.Entry<TopicPartition, ByteBuffer> e : batches.entrySet()) {
            final Partition p = partitions.get(e.getKey());
            if (p == null) {
                results.put(e.getKey(), AppendResult.error(ReplicaError.NOT_LEADER_OR_FOLLOWER, "broker " + brokerId
                    + " hosts no replica of " + e.getKey()));
                continue;
            }
            final AppendResult r = p.appendAsLeader(e.getValue(), acks);
            results.put(e.getKey(), r);
            if (r.error() == ReplicaError.NONE) {
                epochs.put(e.getKey(), r.leaderEpoch()); // read under the role lock with the append
            }
        }
        if (acks == 1 && config.maxUnreplicatedBytes() >= 0 && !epochs.isEmpty()) {
            return flowControlled(results, epochs, timeoutMs);
        }
        if (acks != -1 || epochs.isEmpty()) {
            return CompletableFuture.completedFuture(results);
        }
        final DelayedProduce op = new DelayedProduce(results, epochs, null);
        produceWaits.tryCompleteElseWatch(op, epochs.keySet(), clockMs.getAsLong() + timeoutMs);
        return op.future;
    }

    /**
     * Writes one transaction's marker to each partition this broker leads (Kafka's {@code handleWriteTxnMarkersRequest}:
     * {@code appendRecords} with origin COORDINATOR and acks=-1) and answers once every partition's high watermark
     * passed its marker, or the timeout passed (REQUEST_TIMED_OUT). A partition answers, as Kafka's do:
     * NOT_LEADER_OR_FOLLOWER (not led here), NOT_ENOUGH_REPLICAS (the ISR below {@code min.insync.replicas}),
     * INVALID_PRODUCER_EPOCH (a newer producer epoch wrote there), TRANSACTION_COORDINATOR_FENCED (a newer coordinator
     * wrote there) or KAFKA_STORAGE_ERROR.
     *
     * @param producerId       the transaction's producer
     * @param producerEpoch    its epoch
     * @param coordinatorEpoch the coordinator's epoch
     * @param commit           COMMIT, else ABORT
     * @param targets          the partitions
     * @param timeoutMs        how long to wait for each partition's ISR
     * @return completes with every partition's result, in the same order
     */
    CompletableFuture<Map<TopicPartition, AppendResult>> writeMarkers(final long producerId, final short producerEpoch,
                                                                   final int coordinatorEpoch, final boolean commit,
                                                                   final List<TopicPartition> targets,
                                                                   final long timeoutMs) {
        final Map<TopicPartition, AppendResult> results = new LinkedHashMap<>();
        final Map<TopicPartition, Integer> epochs = new HashMap<>();
        for (final TopicPartition tp : targets) {
            final Partition p = partitions.get(tp);
            final AppendResult r = p == null
                ? AppendResult.error(ReplicaError.NOT_LEADER_OR_FOLLOWER, "broker " + brokerId + " hosts no replica"
                    + " of " + tp)
                : p.appendMarkerAsLeader(producerId, producerEpoch, coordinatorEpoch, commit);
            results.put(tp, r);
            if (r.error() == ReplicaError.NONE) {
                epochs.put(tp, r.leaderEpoch());
            }
        }
        if (epochs.isEmpty()) {
            return CompletableFuture.completedFuture(results);
        }
        final DelayedProduce op = new DelayedProduce(results, epochs, null);
        produceWaits.tryCompleteElseWatch(op, epochs.keySet(), clockMs.getAsLong() + timeoutMs);
        return op.future;
    }

    /**
     * acks=1 flow control ({@value ReplicaManagerConfig#MAX_UNREPLICATED_BYTES}): answers at once unless a partition's
     * in-sync followers trail its new batches by more than the bound, and then once they are within it, the
     * followers stopped fetching, or {@link ReplicaManagerConfig#flowControlWindowMs()} (or the request's timeout)
     * passed, whichever comes first: a leader whose followers cannot keep up slows its acks=1 producers to their pace
     * instead of acknowledging data only it holds.
     */
    private CompletableFuture<Map<TopicPartition, AppendResult>> flowControlled(
        final Map<TopicPartition, AppendResult> results, final Map<TopicPartition, Integer> epochs,
        final long timeoutMs) {
        Map<TopicPartition, Long> targets = null;
        for (final Map.Entry<TopicPartition, Integer> e : epochs.entrySet()) {
            final Partition p = partitions.get(e.getKey());
            final long target = p == null ? -1
                : p.unreplicatedTarget(results.get(e.getKey()).lastOffset(), config.maxUnreplicatedBytes());
            if (target >= 0) {
                if (targets == null) {
                    targets = new HashMap<>();
                }
                targets.put(e.getKey(), target);
            }
        }
        if (targets == null) {
            return CompletableFuture.completedFuture(results);
        }
        final DelayedProduce op = new DelayedProduce(results, epochs, targets);
        produceWaits.tryCompleteElseWatch(op, targets.keySet(),
            clockMs.getAsLong() + Math.min(timeoutMs, config.flowControlWindowMs()));
        return op.future;
    }

    /**
     * A produce waiting for its partitions' high watermarks: acks=all (Kafka's {@code DelayedProduce}), or acks=1
     * held by the flow control ({@code targets}: the offset each partition's high watermark must reach; a partition
     * without one is answered as appended).
     */
    private final class DelayedProduce extends DelayedOperations.Operation {
        final CompletableFuture<Map<TopicPartition, AppendResult>> future = new CompletableFuture<>();
        private final Map<TopicPartition, AppendResult> results;
        private final Map<TopicPartition, Integer> epochs;
        private final Map<TopicPartition, Long> targets;
        private final Map<TopicPartition, ReplicaError> outcomes = new ConcurrentHashMap<>();

        DelayedProduce(final Map<TopicPartition, AppendResult> results, final Map<TopicPartition, Integer> epochs,
                       final Map<TopicPartition, Long> targets) {
            this.results = results;
            this.epochs = epochs;
            this.targets = targets;
        }

        /** Where a partition stands now: its outcome, or null while it waits. */
        private ReplicaError status(final TopicPartition tp, final int epoch) {
            final Partition p = partitions.get(tp);
            if (p == null) {
                return ReplicaError.NOT_LEADER_OR_FOLLOWER;
            }
            if (targets == null) {
                return p.acksStatus(results.get(tp).lastOffset(), epoch);
            }
            final Long target = targets.get(tp);
            return target == null ? ReplicaError.NONE
                : p.unreplicatedStatus(target, epoch, config.flowControlWindowMs());
        }

        @Override
        boolean tryComplete() {
            for (final Map.Entry<TopicPartition, Integer> e : epochs.entrySet()) {
                if (outcomes.containsKey(e.getKey())) {
                    continue;
                }
                final ReplicaError status = status(e.getKey(), e.getValue());
                if (status == null) {
                    return false;
                }
                outcomes.put(e.getKey(), status);
            }
            return forceComplete();
        }

        @Override
        void onComplete() {
            final Map<TopicPartition, AppendResult> answer = new LinkedHashMap<>();
            results.forEach((tp, r) -> {
                if (!epochs.containsKey(tp)) {
                    answer.put(tp, r);
                    return;
                }
                ReplicaError outcome = outcomes.get(tp);
                if (outcome == null) {
                    final ReplicaError now = status(tp, epochs.get(tp));
                    // Timed out: acks=all failed; acks=1 was only slowed, its batches are appended.
                    outcome = now != null ? now : targets == null ? ReplicaError.REQUEST_TIMED_OUT : ReplicaError.NONE;
                }
                answer.put(tp, r.withError(outcome));
            });
            future.complete(answer);
        }
    }
}
