package io.seglog.replication.controller;

import io.seglog.replication.election.LeaderAndIsr;
import io.seglog.replication.election.PartitionState;
import io.seglog.replication.election.ReplicaState;
import io.seglog.replication.transport.LiveBroker;
import io.seglog.replication.zk.BrokerInfo;
import io.seglog.replication.zk.BrokerRegistration;
import io.seglog.replication.zk.PartitionStateZnode;
import io.seglog.storage.TopicId;
import io.seglog.storage.TopicPartition;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The active controller's cache of the cluster (Kafka's {@code ControllerContext}): live brokers with their epochs,
 * assignments, the last leader/ISR written for each partition and each partition's state. Filled from ZooKeeper
 * at failover and kept current by the event handlers. Confined to the event thread.
 */
final class ControllerContext {
    int epoch;
    int epochZkVersion = -1;
    final Map<Integer, BrokerInfo> liveBrokers = new HashMap<>();
    final Set<Integer> shuttingDown = new HashSet<>();
    final Map<String, Map<Integer, List<Integer>>> assignments = new TreeMap<>();
    /** Each topic's id (KIP-516), from {@code /brokers/topics/<topic>}; the controller assigns missing ones. */
    final Map<String, TopicId> topicIds = new HashMap<>();
    final Map<TopicPartition, PartitionStateZnode> leadership = new HashMap<>();
    final Map<TopicPartition, PartitionState> states = new HashMap<>();
    final Set<String> topicsBeingDeleted = new TreeSet<>();
    /** Topics being deleted with a replica that cannot be deleted now (Kafka's topicsIneligibleForDeletion). */
    final Set<String> topicsIneligibleForDeletion = new TreeSet<>();
    /** Partitions being reassigned, to their target replicas (Kafka's partitionsBeingReassigned). */
    final Map<TopicPartition, List<Integer>> reassigning = new HashMap<>();
    /** Replica states (Kafka's ReplicaStateMachine): partition to broker to state; absent = NON_EXISTENT. */
    final Map<TopicPartition, Map<Integer, ReplicaState>> replicaStates = new HashMap<>();

    void reset() {
        epoch = 0;
        epochZkVersion = -1;
        liveBrokers.clear();
        shuttingDown.clear();
        assignments.clear();
        topicIds.clear();
        leadership.clear();
        states.clear();
        topicsBeingDeleted.clear();
        topicsIneligibleForDeletion.clear();
        reassigning.clear();
        replicaStates.clear();
    }

    /** Live brokers that are not shutting down: the ones that may be elected. */
    Set<Integer> electableBrokers() {
        final Set<Integer> ids = new HashSet<>(liveBrokers.keySet());
        ids.removeAll(shuttingDown);
        return ids;
    }

    List<Integer> replicas(final TopicPartition tp) {
        final Map<Integer, List<Integer>> topic = assignments.get(tp.topic());
        final List<Integer> replicas = topic == null ? null : topic.get(tp.partition());
        return replicas == null ? List.of() : replicas;
    }

    Set<TopicPartition> allPartitions() {
        final Set<TopicPartition> all = new HashSet<>();
        assignments.forEach((t, parts) -> parts.keySet().forEach(p -> all.add(new TopicPartition(t, p))));
        return all;
    }

    List<TopicPartition> partitionsOf(final String topic) {
        final List<TopicPartition> list = new ArrayList<>();
        final Map<Integer, List<Integer>> parts = assignments.get(topic);
        if (parts != null) {
            parts.keySet().forEach(p -> list.add(new TopicPartition(topic, p)));
        }
        return list;
    }

    /** A topic's id, or {@link TopicId#ZERO} when it has none (yet). */
    TopicId topicId(final String topic) {
        return topicIds.getOrDefault(topic, TopicId.ZERO);
    }

    /** Partitions with a replica on one of these brokers. */
    Set<TopicPartition> partitionsOnBrokers(final Set<Integer> brokers) {
        final Set<TopicPartition> result = new HashSet<>();
        assignments.forEach((t, parts) -> parts.forEach((p, replicas) -> {
            for (final int r : replicas) {
                if (brokers.contains(r)) {
                    result.add(new TopicPartition(t, p));
                    break;
                }
            }
        }));
        return result;
    }

    /** Partitions whose cached leader is one of these brokers. */
    Set<TopicPartition> partitionsLedBy(final Set<Integer> brokers) {
        final Set<TopicPartition> result = new HashSet<>();
        leadership.forEach((tp, state) -> {
            if (brokers.contains(state.leaderAndIsr().leader())) {
                result.add(tp);
            }
        });
        return result;
    }

    Set<TopicPartition> partitionsInState(final PartitionState state) {
        final Set<TopicPartition> result = new HashSet<>();
        states.forEach((tp, s) -> {
            if (s == state && !topicsBeingDeleted.contains(tp.topic())) {
                result.add(tp);
            }
        });
        return result;
    }

    boolean isLeaderLive(final TopicPartition tp) {
        final PartitionStateZnode state = leadership.get(tp);
        if (state == null) {
            return false;
        }
        final LeaderAndIsr lai = state.leaderAndIsr();
        return lai.hasLeader() && liveBrokers.containsKey(lai.leader());
    }

    void removeTopic(final String topic) {
        for (final TopicPartition tp : partitionsOf(topic)) {
            leadership.remove(tp);
            states.remove(tp);
            replicaStates.remove(tp);
            reassigning.remove(tp);
        }
        assignments.remove(topic);
        topicIds.remove(topic);
        topicsBeingDeleted.remove(topic);
        topicsIneligibleForDeletion.remove(topic);
    }

    /** The live brokers as control messages carry them: id, epoch, and the registration's primary address. */
    Map<Integer, LiveBroker> liveBrokersForMessages() {
        final Map<Integer, LiveBroker> live = new HashMap<>();
        liveBrokers.forEach((id, info) -> live.put(id, liveBroker(info)));
        return live;
    }

    static LiveBroker liveBroker(final BrokerInfo info) {
        final BrokerRegistration r = info.registration();
        return new LiveBroker(r.id(), info.epoch(), r.host(), r.port(), r.rack());
    }
}
