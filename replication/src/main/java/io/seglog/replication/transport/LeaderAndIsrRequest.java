package io.seglog.replication.transport;

import io.seglog.storage.TopicPartition;
import java.util.Map;

/**
 * Tells a broker which partitions it leads or follows, at which leader epoch.
 *
 * @param controllerId    the controller's broker id
 * @param controllerEpoch the controller's epoch
 * @param brokerEpoch     the target broker's epoch
 * @param partitions      the partition states
 * @param liveLeaders     the live brokers that lead these partitions, with their addresses (Kafka's
 *                        {@code LiveLeaders}), so a follower can fetch before the next UpdateMetadata arrives
 */
public record LeaderAndIsrRequest(int controllerId, int controllerEpoch, long brokerEpoch,
                                  Map<TopicPartition, PartitionStateInfo> partitions,
                                  Map<Integer, LiveBroker> liveLeaders) implements ControlRequest {
    /**
     * Copies the map.
     *
     * @param controllerId    the controller's broker id
     * @param controllerEpoch the controller's epoch
     * @param brokerEpoch     the target broker's epoch
     * @param partitions      the partition states
     * @param liveLeaders     the live leaders by id
     */
    public LeaderAndIsrRequest {
        partitions = Ordered.byPartition(partitions);
        liveLeaders = Ordered.byId(liveLeaders);
    }
}
