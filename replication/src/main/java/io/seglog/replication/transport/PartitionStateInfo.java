package io.seglog.replication.transport;

import io.seglog.replication.election.LeaderAndIsr;
import java.util.List;

/**
 * One partition's state as a control message carries it (Kafka's {@code LeaderAndIsrPartitionState}).
 *
 * @param controllerEpoch the epoch of the controller that made the leadership decision
 * @param leaderAndIsr    leader, leader epoch, ISR and partition epoch
 * @param replicas        the assignment, preferred replica first
 * @param isNew           whether the partition was just created (replicas may create its log)
 */
public record PartitionStateInfo(int controllerEpoch, LeaderAndIsr leaderAndIsr, List<Integer> replicas,
                                 boolean isNew) {
    /**
     * Copies the replica list.
     *
     * @param controllerEpoch the deciding controller's epoch
     * @param leaderAndIsr    the state
     * @param replicas        the assignment
     * @param isNew           whether just created
     */
    public PartitionStateInfo {
        replicas = List.copyOf(replicas);
    }
}
