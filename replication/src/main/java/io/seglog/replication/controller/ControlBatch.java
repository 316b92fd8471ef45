package io.seglog.replication.controller;

import io.seglog.replication.transport.ControlChannel;
import io.seglog.replication.transport.ControlRequest;
import io.seglog.replication.transport.ControlResponse;
import io.seglog.replication.transport.LeaderAndIsrRequest;
import io.seglog.replication.transport.PartitionStateInfo;
import io.seglog.replication.transport.StopReplicaRequest;
import io.seglog.replication.transport.UpdateMetadataRequest;
import io.seglog.storage.TopicPartition;
import java.util.HashMap;
import java.util.HashSet;
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

    /**
     * Sends everything; refusals are logged (a refusal by controller epoch means this controller is stale, which
     * its next ZooKeeper write will find out).
     */
    void send(final int controllerId, final ControllerContext ctx, final ControlChannel channel,
              final Map<TopicPartition, PartitionStateInfo> allStates, final AtomicLong refusals) {
        for (final Map.Entry<Integer, Map<TopicPartition, PartitionStateInfo>> e : leaderAndIsr.entrySet()) {
            final Long brokerEpoch = epochOf(ctx, e.getKey());
            if (brokerEpoch != null) {
                deliver(channel, e.getKey(), new LeaderAndIsrRequest(controllerId, ctx.epoch, brokerEpoch, e.getValue()),
                    refusals);
            }
        }
        if (!metadata.isEmpty() || liveBrokersChanged || !fullMetadataTo.isEmpty()) {
            final Map<Integer, Long> live = ctx.liveBrokerEpochs();
            for (final Map.Entry<Integer, Long> b : live.entrySet()) {
                final Map<TopicPartition, PartitionStateInfo> parts =
                    fullMetadataTo.contains(b.getKey()) ? allStates : metadata;
                deliver(channel, b.getKey(), new UpdateMetadataRequest(controllerId, ctx.epoch, b.getValue(), live, parts),
                    refusals);
            }
        }
        sendStops(controllerId, ctx, channel, stop, false, refusals);
        sendStops(controllerId, ctx, channel, stopAndDelete, true, refusals);
    }

    private static void sendStops(final int controllerId, final ControllerContext ctx, final ControlChannel channel,
                                  final Map<Integer, Set<TopicPartition>> stops, final boolean delete,
                                  final AtomicLong refusals) {
        for (final Map.Entry<Integer, Set<TopicPartition>> e : stops.entrySet()) {
            final Long brokerEpoch = epochOf(ctx, e.getKey());
            if (brokerEpoch != null) {
                deliver(channel, e.getKey(),
                    new StopReplicaRequest(controllerId, ctx.epoch, brokerEpoch, e.getValue(), delete), refusals);
            }
        }
    }

    private static Long epochOf(final ControllerContext ctx, final int broker) {
        return ctx.liveBrokers.containsKey(broker) ? ctx.liveBrokers.get(broker).epoch() : null;
    }

    private static void deliver(final ControlChannel channel, final int broker, final ControlRequest request,
                                final AtomicLong refusals) {
        final CompletableFuture<ControlResponse> f = channel.send(broker, request);
        f.whenComplete((response, failure) -> {
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
