package io.seglog.replication.wire;

import io.seglog.replication.transport.LiveBroker;
import io.seglog.replication.transport.PartitionStateInfo;
import io.seglog.storage.TopicPartition;
import java.util.Map;

/**
 * What a broker's Kafka APIs read of the cluster: its metadata cache (the controller's last UpdateMetadata and
 * LeaderAndIsr), as immutable snapshots that never wait for a control message being applied.
 */
public interface ClusterView {
    /**
     * The cluster id clients see.
     *
     * @return the id
     */
    String clusterId();

    /**
     * The controller this broker last heard from.
     *
     * @return its broker id, or -1
     */
    int controllerId();

    /**
     * The live brokers and their addresses.
     *
     * @return broker id to broker
     */
    Map<Integer, LiveBroker> liveBrokers();

    /**
     * Every partition's state.
     *
     * @return partition to state
     */
    Map<TopicPartition, PartitionStateInfo> partitions();
}
