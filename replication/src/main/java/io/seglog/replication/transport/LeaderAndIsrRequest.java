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
 */
public record LeaderAndIsrRequest(int controllerId, int controllerEpoch, long brokerEpoch,
                                  Map<TopicPartition, PartitionStateInfo> partitions) implements ControlRequest {
    /**
     * Copies the map.
     *
     * @param controllerId    the controller's broker id
     * @param controllerEpoch the controller's epoch
     * @param brokerEpoch     the target broker's epoch
     * @param partitions      the partition states
     */
    public LeaderAndIsrRequest {
        partitions = Map.copyOf(partitions);
    }
}
