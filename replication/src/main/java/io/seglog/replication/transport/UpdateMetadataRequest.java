package io.seglog.replication.transport;

import io.seglog.storage.TopicPartition;
import java.util.Map;

/**
 * Tells a broker the live brokers and the current state of some partitions (its metadata cache).
 *
 * @param controllerId    the controller's broker id
 * @param controllerEpoch the controller's epoch
 * @param brokerEpoch     the target broker's epoch
 * @param liveBrokers     live broker id to its epoch
 * @param partitions      partition states (all of them after a failover, the changed ones otherwise)
 */
public record UpdateMetadataRequest(int controllerId, int controllerEpoch, long brokerEpoch,
                                    Map<Integer, Long> liveBrokers,
                                    Map<TopicPartition, PartitionStateInfo> partitions) implements ControlRequest {
    /**
     * Copies the maps.
     *
     * @param controllerId    the controller's broker id
     * @param controllerEpoch the controller's epoch
     * @param brokerEpoch     the target broker's epoch
     * @param liveBrokers     live broker id to its epoch
     * @param partitions      partition states
     */
    public UpdateMetadataRequest {
        liveBrokers = Map.copyOf(liveBrokers);
        partitions = Map.copyOf(partitions);
    }
}
