package io.seglog.replication.broker;

import io.seglog.replication.transport.LiveBroker;
import io.seglog.replication.transport.PartitionStateInfo;
import io.seglog.replication.wire.ClusterView;
import io.seglog.storage.TopicId;
import io.seglog.storage.TopicPartition;
import java.util.Map;

/**
 * The cluster as a broker's Kafka APIs see it: its control handler's metadata cache, empty until the handler exists
 * (a broker still starting). The broker and the cluster simulation both build their APIs over it.
 */
final class HandlerClusterView implements ClusterView {
    private final BrokerControlHandler handler;
    private final String clusterId;

    /**
     * @param handler   the broker's control handler
     * @param clusterId the cluster id
     */
    HandlerClusterView(final BrokerControlHandler handler, final String clusterId) {
        this.handler = handler;
        this.clusterId = clusterId;
    }

    @Override
    public String clusterId() {
        return clusterId;
    }

    @Override
    public int controllerId() {
        return handler.controllerId();
    }

    @Override
    public Map<Integer, LiveBroker> liveBrokers() {
        return handler.liveBrokerEndpoints();
    }

    @Override
    public Map<TopicPartition, PartitionStateInfo> partitions() {
        return handler.metadata();
    }

    @Override
    public Map<String, TopicId> topicIds() {
        return handler.topicIds();
    }

    @Override
    public Map<TopicId, String> topicNames() {
        return handler.topicNames();
    }
}
