package io.seglog.replication.transport;

import io.seglog.replication.election.LeaderAndIsr;
import io.seglog.storage.TopicId;
import java.util.List;
import java.util.Objects;

/**
 * One partition's state as a control message carries it (Kafka's {@code LeaderAndIsrPartitionState}, with the
 * topic id of its {@code LeaderAndIsrTopicState} / {@code UpdateMetadataTopicState}).
 *
 * @param controllerEpoch the epoch of the controller that made the leadership decision
 * @param leaderAndIsr    leader, leader epoch, ISR and partition epoch
 * @param replicas        the assignment, preferred replica first
 * @param isNew           whether the partition was just created (replicas may create its log)
 * @param topicId         the topic's id, or {@link TopicId#ZERO} when the controller has none (a control message of
 *                        version 0, from a controller before topic ids)
 */
public record PartitionStateInfo(int controllerEpoch, LeaderAndIsr leaderAndIsr, List<Integer> replicas,
                                 boolean isNew, TopicId topicId) {
    /**
     * Copies the replica list.
     *
     * @param controllerEpoch the deciding controller's epoch
     * @param leaderAndIsr    the state
     * @param replicas        the assignment
     * @param isNew           whether just created
     * @param topicId         the topic id, or {@link TopicId#ZERO}
     */
    public PartitionStateInfo {
        replicas = List.copyOf(replicas);
        Objects.requireNonNull(topicId, "topicId (TopicId.ZERO for none)");
    }

    /**
     * A state without a topic id.
     *
     * @param controllerEpoch the deciding controller's epoch
     * @param leaderAndIsr    the state
     * @param replicas        the assignment
     * @param isNew           whether just created
     */
    public PartitionStateInfo(final int controllerEpoch, final LeaderAndIsr leaderAndIsr, final List<Integer> replicas,
                              final boolean isNew) {
        this(controllerEpoch, leaderAndIsr, replicas, isNew, TopicId.ZERO);
    }
}
