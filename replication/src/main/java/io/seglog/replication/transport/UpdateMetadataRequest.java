package io.seglog.replication.transport;

import io.seglog.storage.TopicPartition;
import java.util.Map;

/**
 * Tells a broker the live brokers and the current state of some partitions (its metadata cache).
 *
 * @param controllerId    the controller's broker id
 * @param controllerEpoch the controller's epoch
 * @param brokerEpoch     the target broker's epoch
 * @param liveBrokers     every live broker by id, with its epoch and address
 * @param partitions      partition states (all of them after a failover, the changed ones otherwise)
 */
public record UpdateMetadataRequest(int controllerId, int controllerEpoch, long brokerEpoch,
                                    Map<Integer, LiveBroker> liveBrokers,
                                    Map<TopicPartition, PartitionStateInfo> partitions) implements ControlRequest {
    /**
     * Copies the maps.
     *
     * @param controllerId    the controller's broker id
     * @param controllerEpoch the controller's epoch
     * @param brokerEpoch     the target broker's epoch
     * @param liveBrokers     every live broker by id
     * @param partitions      partition states
     */
    public UpdateMetadataRequest {
        liveBrokers = Ordered.byId(liveBrokers);
        partitions = Ordered.byPartition(partitions);
    }
}
