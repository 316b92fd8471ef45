package io.seglog.replication.broker;

import io.seglog.replication.transport.LiveBroker;
import io.seglog.replication.transport.PartitionStateInfo;
import io.seglog.replication.wire.ClusterView;
import io.seglog.storage.TopicId;
import io.seglog.storage.TopicPartition;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The cluster as a broker's Kafka APIs see it: its control handler's metadata cache, empty until the handler exists
 * (a broker still starting). The broker and the cluster simulation both build their APIs over it.
 */
final class HandlerClusterView implements ClusterView {
    private final Supplier<BrokerControlHandler> handler;
    private final Supplier<String> clusterId;

    /**
     * @param handler   the broker's control handler, or null while there is none
     * @param clusterId the cluster id, or null while it is unknown
     */
    HandlerClusterView(final Supplier<BrokerControlHandler> handler, final Supplier<String> clusterId) {
        this.handler = handler;
        this.clusterId = clusterId;
    }

    @Override
    public String clusterId() {
        final String id = clusterId.get();
        return id == null ? "" : id;
    }

    @Override
    public int controllerId() {
        final BrokerControlHandler h = handler.get();
        return h == null ? -1 : h.controllerId();
    }

    @Override
    public Map<Integer, LiveBroker> liveBrokers() {
        final BrokerControlHandler h = handler.get();
        return h == null ? Map.of() : h.liveBrokerEndpoints();
    }

    @Override
    public Map<TopicPartition, PartitionStateInfo> partitions() {
        final BrokerControlHandler h = handler.get();
        return h == null ? Map.of() : h.metadata();
    }

    @Override
    public Map<String, TopicId> topicIds() {
        final BrokerControlHandler h = handler.get();
        return h == null ? Map.of() : h.topicIds();
    }

    @Override
    public Map<TopicId, String> topicNames() {
        final BrokerControlHandler h = handler.get();
        return h == null ? Map.of() : h.topicNames();
    }
}
