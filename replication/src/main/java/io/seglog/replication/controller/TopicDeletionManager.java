package io.seglog.replication.controller;

import io.seglog.replication.election.LeaderAndIsr;
import io.seglog.replication.election.PartitionState;
import io.seglog.replication.election.ReplicaState;
import io.seglog.replication.transport.PartitionStateInfo;
import io.seglog.replication.zk.KafkaZkStore;
import io.seglog.replication.zk.PartitionStateZnode;
import io.seglog.storage.TopicPartition;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka's {@code TopicDeletionManager}, simplified: a topic's znodes are removed only once every replica of every
 * partition has acknowledged a {@code StopReplica(delete=true)}.
 *
 * <p>Per replica: {@code Offline -> ReplicaDeletionStarted} when the StopReplica is sent;
 * {@code -> ReplicaDeletionSuccessful} when the broker acknowledges it; {@code -> ReplicaDeletionIneligible} when
 * its broker is down or fails the request. A topic with an ineligible replica is itself ineligible: its deletion
 * waits and its znodes stay. A replica refused by a live broker is retried on a later event (back to Offline, then
 * StopReplica again), as Kafka's {@code resumeDeletions} does; a replica on a dead broker stays ineligible until its
 * broker starts, and is then retried. When every
 * replica is successful, the replicas become NonExistent and the topic's znodes and its deletion request are
 * removed in one epoch-fenced multi.
 *
 * <p>One deliberate difference: Kafka does not start a topic's deletion at all while one of its replicas is offline
 * when the request arrives; here the live replicas are stopped and deleted at once and only the offline ones wait.
 * Either way the znodes stay until every replica has been deleted.
 *
 * <p>Confined to the controller's event thread.
 */
final class TopicDeletionManager {
    private static final Logger LOG = LoggerFactory.getLogger(TopicDeletionManager.class);

    private final ControllerContext ctx;
    private final PartitionStateMachine partitions;
    private final KafkaZkStore store;

    TopicDeletionManager(final ControllerContext ctx, final PartitionStateMachine partitions, final KafkaZkStore store) {
        this.ctx = ctx;
        this.partitions = partitions;
        this.store = store;
    }

    /** Queues topics for deletion (they must be known) and drives every queued deletion forward. */
    void enqueue(final Set<String> topics, final ControlBatch batch) {
        ctx.topicsBeingDeleted.addAll(topics);
        resume(batch);
    }

    /**
     * Kafka's {@code resumeDeletions}: completes topics whose replicas are all deleted, re-arms ineligible replicas
     * of topics with nothing in flight, and starts (or restarts) every eligible topic.
     */
    void resume(final ControlBatch batch) {
        final Set<String> retry = new TreeSet<>();
        final Set<String> start = new TreeSet<>();
        for (final String topic : List.copyOf(ctx.topicsBeingDeleted)) {
            if (allReplicasIn(topic, ReplicaState.REPLICA_DELETION_SUCCESSFUL)) {
                complete(topic);
                continue;
            }
            final boolean inProgress = anyReplicaIn(topic, ReplicaState.REPLICA_DELETION_STARTED);
            if (!inProgress && anyReplicaIn(topic, ReplicaState.REPLICA_DELETION_INELIGIBLE)) {
                retry.add(topic);
            }
            if (!inProgress && !ctx.topicsIneligibleForDeletion.contains(topic)) {
                start.add(topic);
            }
        }
        for (final String topic : retry) {
            // Back to Offline so that the next resume starts them again (Kafka's retryDeletionForIneligibleReplicas),
            // but only on live brokers: a dead broker's replica stays ineligible, and its topic with it, until the
            // broker starts (onBrokerStartup), instead of flipping Offline/Ineligible on every event as in Kafka.
            for (final TopicPartition tp : ctx.partitionsOf(topic)) {
                final List<Integer> live = replicasIn(tp, ReplicaState.REPLICA_DELETION_INELIGIBLE).stream()
                    .filter(ctx.liveBrokers::containsKey).toList();
                partitions.replicaTransition(tp, live, ReplicaState.OFFLINE);
            }
            if (!anyReplicaIn(topic, ReplicaState.REPLICA_DELETION_INELIGIBLE)) {
                ctx.topicsIneligibleForDeletion.remove(topic);
            }
        }
        start.forEach(topic -> startDeletion(topic, batch));
    }

    /** A broker came back: topics with replicas on it may go on (Kafka's {@code resumeDeletionForTopics}). */
    void onBrokerStartup(final Set<Integer> started, final ControlBatch batch) {
        final Set<String> topics = new TreeSet<>();
        for (final TopicPartition tp : ctx.partitionsOnBrokers(started)) {
            if (!ctx.topicsBeingDeleted.contains(tp.topic())) {
                continue;
            }
            topics.add(tp.topic());
            for (final int r : ctx.replicas(tp)) {
                final ReplicaState s = state(tp, r);
                if (started.contains(r) && s != ReplicaState.REPLICA_DELETION_SUCCESSFUL
                    && s != ReplicaState.REPLICA_DELETION_STARTED) {
                    if (s == ReplicaState.NON_EXISTENT) {
                        partitions.replicaTransition(tp, List.of(r), ReplicaState.NEW);
                    }
                    partitions.replicaTransition(tp, List.of(r), ReplicaState.ONLINE);
                }
            }
        }
        if (!topics.isEmpty()) {
            ctx.topicsIneligibleForDeletion.removeAll(topics);
            resume(batch);
        }
    }

    /** Brokers died: their replicas of topics being deleted cannot be deleted now (Kafka's failReplicaDeletion). */
    void onBrokerFailure(final Set<Integer> failed) {
        for (final TopicPartition tp : ctx.partitionsOnBrokers(failed)) {
            if (!ctx.topicsBeingDeleted.contains(tp.topic())) {
                continue;
            }
            for (final int r : ctx.replicas(tp)) {
                if (failed.contains(r)) {
                    markIneligible(tp, r);
                }
            }
        }
    }

    /**
     * A broker answered a {@code StopReplica(delete=true)} (or could not be reached).
     *
     * @param broker  the broker
     * @param deleted partitions it deleted
     * @param failed  partitions it did not
     */
    void onStopReplicaResult(final int broker, final Set<TopicPartition> deleted, final Set<TopicPartition> failed,
                             final ControlBatch batch) {
        for (final TopicPartition tp : deleted) {
            if (ctx.topicsBeingDeleted.contains(tp.topic())
                && state(tp, broker) == ReplicaState.REPLICA_DELETION_STARTED) {
                partitions.replicaTransition(tp, List.of(broker), ReplicaState.REPLICA_DELETION_SUCCESSFUL);
            }
        }
        for (final TopicPartition tp : failed) {
            if (ctx.topicsBeingDeleted.contains(tp.topic())) {
                markIneligible(tp, broker);
            }
        }
        resume(batch);
    }

    private void markIneligible(final TopicPartition tp, final int replica) {
        final ReplicaState s = state(tp, replica);
        if (s == ReplicaState.REPLICA_DELETION_SUCCESSFUL || s == ReplicaState.REPLICA_DELETION_INELIGIBLE) {
            return;
        }
        if (s != ReplicaState.REPLICA_DELETION_STARTED) {
            if (s == ReplicaState.NON_EXISTENT) {
                partitions.replicaTransition(tp, List.of(replica), ReplicaState.NEW);
            }
            partitions.replicaTransition(tp, List.of(replica), ReplicaState.OFFLINE);
        }
        partitions.replicaTransition(tp, List.of(replica), ReplicaState.REPLICA_DELETION_INELIGIBLE);
        if (ctx.topicsIneligibleForDeletion.add(tp.topic())) {
            LOG.info("controller epoch {}: deletion of topic {} waits: replica on broker.id={} cannot be deleted now",
                ctx.epoch, tp.topic(), replica);
        }
    }

    /**
     * Kafka's {@code onTopicDeletion}: brokers learn that the partitions are going (leader {@code -2}), the partitions
     * go Offline then NonExistent, live replicas get {@code StopReplica(delete=true)} and replicas on dead brokers
     * become ineligible.
     */
    private void startDeletion(final String topic, final ControlBatch batch) {
        LOG.info("controller epoch {}: deleting topic {}", ctx.epoch, topic);
        for (final TopicPartition tp : ctx.partitionsOf(topic)) {
            final PartitionStateZnode state = ctx.leadership.get(tp);
            if (state != null) {
                final LeaderAndIsr deleting = new LeaderAndIsr(LeaderAndIsr.LEADER_DURING_DELETE,
                    state.leaderAndIsr().leaderEpoch(), state.leaderAndIsr().isr(),
                    state.leaderAndIsr().partitionEpoch());
                batch.metadata(tp, new PartitionStateInfo(ctx.epoch, deleting, ctx.replicas(tp), false,
                    ctx.topicId(topic)));
            }
            if (ctx.states.containsKey(tp)) {
                partitions.transition(tp, PartitionState.OFFLINE);
                partitions.transition(tp, PartitionState.NON_EXISTENT);
            }
            for (final int r : ctx.replicas(tp)) {
                final ReplicaState s = state(tp, r);
                if (s == ReplicaState.REPLICA_DELETION_SUCCESSFUL || s == ReplicaState.REPLICA_DELETION_STARTED) {
                    continue;
                }
                if (!ctx.liveBrokers.containsKey(r)) {
                    markIneligible(tp, r);
                    continue;
                }
                if (s == ReplicaState.NON_EXISTENT) {
                    partitions.replicaTransition(tp, List.of(r), ReplicaState.NEW);
                }
                partitions.replicaTransition(tp, List.of(r), ReplicaState.OFFLINE);
                partitions.replicaTransition(tp, List.of(r), ReplicaState.REPLICA_DELETION_STARTED);
                batch.stopReplica(r, tp, true);
            }
        }
    }

    /** Every replica is deleted: NonExistent, then the znodes go (Kafka's {@code completeDeleteTopic}). */
    private void complete(final String topic) {
        final Set<Integer> withStates = new HashSet<>();
        for (final TopicPartition tp : ctx.partitionsOf(topic)) {
            partitions.replicaTransition(tp, ctx.replicas(tp), ReplicaState.NON_EXISTENT);
            if (ctx.leadership.containsKey(tp)) {
                withStates.add(tp.partition());
            }
        }
        store.deleteTopic(topic, ctx.assignments.getOrDefault(topic, Map.of()).keySet(), withStates,
            ctx.epochZkVersion);
        ctx.removeTopic(topic);
        LOG.info("controller epoch {} deleted topic {}", ctx.epoch, topic);
    }

    private ReplicaState state(final TopicPartition tp, final int replica) {
        return ctx.replicaStates.getOrDefault(tp, Map.of()).getOrDefault(replica, ReplicaState.NON_EXISTENT);
    }

    private List<Integer> replicasIn(final TopicPartition tp, final ReplicaState s) {
        return ctx.replicas(tp).stream().filter(r -> state(tp, r) == s).toList();
    }

    private boolean allReplicasIn(final String topic, final ReplicaState s) {
        for (final TopicPartition tp : ctx.partitionsOf(topic)) {
            for (final int r : ctx.replicas(tp)) {
                if (state(tp, r) != s) {
                    return false;
                }
            }
        }
        return true;
    }

    private boolean anyReplicaIn(final String topic, final ReplicaState s) {
        for (final TopicPartition tp : ctx.partitionsOf(topic)) {
            if (!replicasIn(tp, s).isEmpty()) {
                return true;
            }
        }
        return false;
    }
}
