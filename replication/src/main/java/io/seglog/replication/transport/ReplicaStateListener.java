package io.seglog.replication.transport;

import io.seglog.storage.TopicPartition;
import java.util.Map;
import java.util.Set;

/**
 * Told, in order, the control messages a broker accepted: what the replica layer must do about them (become leader or
 * follower, stop or delete a replica). Called with the broker's control lock held, one message at a time, after the
 * stale-epoch checks; an implementation does its work before it returns (so the controller's acknowledgement means
 * it was done) and must not call back into the handler.
 */
public interface ReplicaStateListener {
    /** A listener that does nothing: a broker with a control plane only. */
    ReplicaStateListener NONE = new ReplicaStateListener() {
        @Override
        public void onLeaderAndIsr(final Map<TopicPartition, PartitionStateInfo> applied,
                                   final Map<Integer, LiveBroker> liveLeaders) {
        }

        @Override
        public void onStopReplica(final Set<TopicPartition> partitions, final boolean delete) {
        }
    };

    /**
     * The partitions of a LeaderAndIsr whose leader epoch was newer than the one held.
     *
     * @param applied     partition to its new state
     * @param liveLeaders the leaders' addresses
     */
    void onLeaderAndIsr(Map<TopicPartition, PartitionStateInfo> applied, Map<Integer, LiveBroker> liveLeaders);

    /**
     * A StopReplica.
     *
     * @param partitions the partitions to stop replicating
     * @param delete     whether their logs go too
     */
    void onStopReplica(Set<TopicPartition> partitions, boolean delete);

    /**
     * The live brokers and their addresses, from an UpdateMetadata.
     *
     * @param live broker id to broker
     */
    default void onLiveBrokers(Map<Integer, LiveBroker> live) {
    }
}
