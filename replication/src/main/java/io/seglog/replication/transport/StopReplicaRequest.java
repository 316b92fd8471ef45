package io.seglog.replication.transport;

import io.seglog.storage.TopicPartition;
import java.util.Set;

/**
 * Tells a broker to stop replicating partitions, and to delete them when the topic is being deleted.
 *
 * @param controllerId    the controller's broker id
 * @param controllerEpoch the controller's epoch
 * @param brokerEpoch     the target broker's epoch
 * @param partitions      the partitions
 * @param delete          whether the replicas' logs are to be deleted
 */
public record StopReplicaRequest(int controllerId, int controllerEpoch, long brokerEpoch, Set<TopicPartition> partitions,
                                 boolean delete) implements ControlRequest {
    /**
     * Copies the set.
     *
     * @param controllerId    the controller's broker id
     * @param controllerEpoch the controller's epoch
     * @param brokerEpoch     the target broker's epoch
     * @param partitions      the partitions
     * @param delete          whether to delete
     */
    public StopReplicaRequest {
        partitions = Ordered.partitions(partitions);
    }
}
