package io.seglog.replication.controller;

import io.seglog.replication.transport.ControlChannel;
import io.seglog.replication.transport.ControlRequest;
import io.seglog.replication.transport.ControlResponse;
import io.seglog.replication.transport.LeaderAndIsrRequest;
import io.seglog.replication.transport.LiveBroker;
import io.seglog.replication.transport.PartitionStateInfo;
import io.seglog.replication.transport.StopReplicaRequest;
import io.seglog.replication.transport.UpdateMetadataRequest;
import io.seglog.replication.zk.BrokerInfo;
import io.seglog.storage.TopicPartition;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The control messages one event produces, sent together when the event is done (Kafka's
 * {@code ControllerBrokerRequestBatch}): per broker one LeaderAndIsr, then one UpdateMetadata to every live broker,
 * then StopReplica. Each message carries the controller epoch and the target's broker epoch. Not thread-safe.
 */
final class ControlBatch {
    private static final Logger LOG = LoggerFactory.getLogger(ControlBatch.class);

    private final Map<Integer, Map<TopicPartition, PartitionStateInfo>> leaderAndIsr = new TreeMap<>();
    private final Map<TopicPartition, PartitionStateInfo> metadata = new HashMap<>();
    private final Map<Integer, Set<TopicPartition>> stop = new TreeMap<>();
    private final Map<Integer, Set<TopicPartition>> stopAndDelete = new TreeMap<>();
    private final Set<Integer> fullMetadataTo = new HashSet<>();
    private boolean liveBrokersChanged;

    void leaderAndIsr(final int broker, final TopicPartition tp, final PartitionStateInfo state) {
        leaderAndIsr.computeIfAbsent(broker, b -> new HashMap<>()).put(tp, state);
        metadata.put(tp, state);
    }

    void metadata(final TopicPartition tp, final PartitionStateInfo state) {
        metadata.put(tp, state);
    }

    /** Sends every partition state to this broker (a new or restarted broker, or after a failover). */
    void fullMetadata(final int broker) {
        fullMetadataTo.add(broker);
    }

    void liveBrokersChanged() {
        liveBrokersChanged = true;
    }

    void stopReplica(final int broker, final TopicPartition tp, final boolean delete) {
        (delete ? stopAndDelete : stop).computeIfAbsent(broker, b -> new HashSet<>()).add(tp);
    }

    boolean isEmpty() {
        return leaderAndIsr.isEmpty() && metadata.isEmpty() && stop.isEmpty() && stopAndDelete.isEmpty()
            && fullMetadataTo.isEmpty() && !liveBrokersChanged;
    }

    /** Told the outcome of each {@code StopReplica(delete=true)}, on whatever thread completes it. */
    @FunctionalInterface
    interface DeletionListener {
        /**
         * @param broker  the target
         * @param deleted the partitions it acknowledged
         * @param failed  the partitions it refused, or all of them when the message was refused or not delivered
         */
        void onStopReplicaResult(int broker, Set<TopicPartition> deleted, Set<TopicPartition> failed);
    }

    /**
     * Sends everything; refusals are logged (a refusal by controller epoch means this controller is stale, which
     * its next ZooKeeper write will find out).
     */
    void send(final int controllerId, final ControllerContext ctx, final ControlChannel channel,
              final Map<TopicPartition, PartitionStateInfo> allStates, final AtomicLong refusals,
              final DeletionListener deletions) {
        for (final Map.Entry<Integer, Map<TopicPartition, PartitionStateInfo>> e : leaderAndIsr.entrySet()) {
            final Long brokerEpoch = epochOf(ctx, e.getKey());
            if (brokerEpoch != null) {
                final Map<Integer, LiveBroker> leaders = new HashMap<>();
                for (final PartitionStateInfo state : e.getValue().values()) {
                    final BrokerInfo leader = ctx.liveBrokers.get(state.leaderAndIsr().leader());
                    if (leader != null) {
                        leaders.put(leader.id(), ControllerContext.liveBroker(leader));
                    }
                }
                deliver(channel, e.getKey(), new LeaderAndIsrRequest(controllerId, ctx.epoch, brokerEpoch, e.getValue(),
                    leaders), refusals);
            }
        }
        if (!metadata.isEmpty() || liveBrokersChanged || !fullMetadataTo.isEmpty()) {
            final Map<Integer, LiveBroker> live = ctx.liveBrokersForMessages();
            for (final LiveBroker b : live.values()) {
                final Map<TopicPartition, PartitionStateInfo> parts = fullMetadataTo.contains(b.id()) ? allStates : metadata;
                deliver(channel, b.id(), new UpdateMetadataRequest(controllerId, ctx.epoch, b.epoch(), live, parts),
                    refusals);
            }
        }
        for (final Map.Entry<Integer, Set<TopicPartition>> e : stop.entrySet()) {
            final Long brokerEpoch = epochOf(ctx, e.getKey());
            if (brokerEpoch != null) {
                deliver(channel, e.getKey(),
                    new StopReplicaRequest(controllerId, ctx.epoch, brokerEpoch, e.getValue(), false), refusals);
            }
        }
        for (final Map.Entry<Integer, Set<TopicPartition>> e : stopAndDelete.entrySet()) {
            final int broker = e.getKey();
            final Set<TopicPartition> partitions = Collections.unmodifiableSet(new LinkedHashSet<>(e.getValue()));
            final Long brokerEpoch = epochOf(ctx, broker);
            if (brokerEpoch == null) {
                deletions.onStopReplicaResult(broker, Set.of(), partitions);
                continue;
            }
            deliver(channel, broker, new StopReplicaRequest(controllerId, ctx.epoch, brokerEpoch, partitions, true),
                refusals).whenComplete((response, failure) -> {
                    if (failure != null) {
                        deletions.onStopReplicaResult(broker, Set.of(), partitions);
                    } else {
                        final Set<TopicPartition> deleted = new HashSet<>(partitions);
                        deleted.removeAll(response.partitionErrors().keySet());
                        deletions.onStopReplicaResult(broker, deleted, response.partitionErrors().keySet());
                    }
                });
        }
    }

    private static Long epochOf(final ControllerContext ctx, final int broker) {
        return ctx.liveBrokers.containsKey(broker) ? ctx.liveBrokers.get(broker).epoch() : null;
    }

    private static CompletableFuture<ControlResponse> deliver(final ControlChannel channel, final int broker,
                                                              final ControlRequest request, final AtomicLong refusals) {
        final CompletableFuture<ControlResponse> f = channel.send(broker, request);
        return f.whenComplete((response, failure) -> {
            if (failure != null) {
                refusals.incrementAndGet();
                final Throwable cause = failure instanceof CompletionException ? failure.getCause() : failure;
                LOG.warn("broker.id={} did not accept {}: {}", broker, request.getClass().getSimpleName(),
                    cause.getMessage());
            } else if (!response.partitionErrors().isEmpty()) {
                LOG.debug("broker.id={} refused {} partitions of {}", broker, response.partitionErrors().size(),
                    request.getClass().getSimpleName());
            }
        });
    }
}
