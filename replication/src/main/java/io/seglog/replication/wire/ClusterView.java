package io.seglog.replication.wire;

import io.seglog.replication.transport.LiveBroker;
import io.seglog.replication.transport.PartitionStateInfo;
import io.seglog.storage.TopicId;
import io.seglog.storage.TopicPartition;
import java.util.HashMap;
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

    /**
     * The ids of the topics in {@link #partitions()} that have one (KIP-516). The default derives them from the
     * partitions; a cache that keeps an index overrides it.
     *
     * @return topic name to id
     */
    default Map<String, TopicId> topicIds() {
        final Map<String, TopicId> ids = new HashMap<>();
        partitions().forEach((tp, state) -> {
            if (!state.topicId().isZero()) {
                ids.put(tp.topic(), state.topicId());
            }
        });
        return ids;
    }

    /**
     * The topics of {@link #partitions()} by id, for requests that name topics by id (Produce v13+, Fetch v13+,
     * Metadata v12+).
     *
     * @return topic id to name
     */
    default Map<TopicId, String> topicNames() {
        final Map<TopicId, String> names = new HashMap<>();
        topicIds().forEach((name, id) -> names.put(id, name));
        return names;
    }
}
