package io.seglog.replication.controller;

import io.seglog.replication.election.ReplicaAssignment;
import io.seglog.replication.zk.BrokerInfo;
import io.seglog.replication.zk.KafkaZkStore;
import io.seglog.replication.zk.TopicAssignmentZnode;
import io.seglog.replication.zk.Versioned;
import io.seglog.replication.zk.ZkError;
import io.seglog.replication.zk.ZkException;
import io.seglog.storage.TopicId;
import io.seglog.storage.TopicPartition;
import java.security.SecureRandom;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.random.RandomGenerator;

/**
 * Topic administration as Kafka's {@code AdminZkClient} does it: requests are validated here and written to
 * ZooKeeper; the active controller, watching those znodes, creates partitions, elects leaders and deletes.
 * Any broker (or a tool with a ZooKeeper session) can use it.
 *
 * <p>Thread-safe if the random generator is.
 */
public final class TopicAdmin {
    private final KafkaZkStore store;
    private final RandomGenerator random;
    /** Topic ids come from a secure source, whatever the (possibly seeded) assignment source is. */
    private final RandomGenerator idRandom;

    /**
     * Creates an admin client.
     *
     * @param store  the ZooKeeper store
     * @param random picks the start broker of round-robin assignments, as Kafka does
     */
    public TopicAdmin(final KafkaZkStore store, final RandomGenerator random) {
        this(store, random, new SecureRandom());
    }

    /**
     * Creates an admin client whose topic ids come from a given source: a seeded one makes a run reproducible (a
     * simulation replays a seed byte for byte); anything else should use {@link #TopicAdmin(KafkaZkStore,
     * RandomGenerator)}, whose ids come from a secure source.
     *
     * @param store    the ZooKeeper store
     * @param random   picks the start broker of round-robin assignments, as Kafka does
     * @param idRandom draws the topic ids
     */
    public TopicAdmin(final KafkaZkStore store, final RandomGenerator random, final RandomGenerator idRandom) {
        this.store = java.util.Objects.requireNonNull(store, "store");
        this.random = java.util.Objects.requireNonNull(random, "random");
        this.idRandom = java.util.Objects.requireNonNull(idRandom, "idRandom");
    }

    /**
     * Creates a topic with replicas spread over the live brokers (round-robin, rack-aware when every broker has a
     * rack; Kafka's {@code assignReplicasToBrokers}).
     *
     * @param topic             the name
     * @param partitions        the number of partitions, at least 1
     * @param replicationFactor replicas per partition, at least 1 and at most the live brokers
     * @return partition to replicas, preferred leader first
     * @throws IllegalArgumentException naming the value and the limit: invalid name, bad counts, too few brokers
     * @throws TopicExistsException     when the topic exists
     * @throws ZkException              when ZooKeeper fails
     */
    public Map<Integer, List<Integer>> createTopic(final String topic, final int partitions,
                                                   final int replicationFactor) {
        TopicPartition.validateTopic(topic);
        if (partitions <= 0) {
            throw new IllegalArgumentException("partitions=" + partitions + " for topic=" + topic + " must be >= 1");
        }
        if (replicationFactor <= 0) {
            throw new IllegalArgumentException("replicationFactor=" + replicationFactor + " for topic=" + topic
                + " must be >= 1");
        }
        final Map<Integer, Optional<String>> racks = brokerRacks();
        if (replicationFactor > racks.size()) {
            throw new IllegalArgumentException("replicationFactor=" + replicationFactor + " for topic=" + topic
                + " exceeds the live brokers=" + racks.size());
        }
        final Map<Integer, List<Integer>> assignment =
            ReplicaAssignment.assign(racks, partitions, replicationFactor, -1, 0, random);
        createTopic(topic, assignment);
        return assignment;
    }

    /**
     * Creates a topic with an explicit assignment.
     *
     * @param topic      the name
     * @param assignment partition (0..n-1) to replicas, preferred leader first
     * @throws IllegalArgumentException for an invalid name or assignment: partitions not 0..n-1, replica lists that
     *                                  are empty or repeat a broker, or that name brokers not
     *                                  registered under {@code /brokers/ids} (the message names their ids)
     * @throws TopicExistsException     when the topic exists
     * @throws ZkException              when ZooKeeper fails
     */
    public void createTopic(final String topic, final Map<Integer, List<Integer>> assignment) {
        TopicPartition.validateTopic(topic);
        if (assignment.isEmpty()) {
            throw new IllegalArgumentException("assignment for topic=" + topic + " must have >= 1 partition");
        }
        for (int p = 0; p < assignment.size(); p++) {
            if (!assignment.containsKey(p)) {
                throw new IllegalArgumentException("assignment for topic=" + topic + " lacks partition=" + p
                    + " (partitions must be 0.." + (assignment.size() - 1) + ")");
            }
        }
        validateReplicas(topic, assignment);
        if (store.topicDeletions(null).contains(topic)) {
            throw new TopicExistsException(topic + " (deletion pending)");
        }
        try {
            // Kafka's AdminZkClient gives a new topic its id at creation (KIP-516); the controller keeps it.
            store.createTopic(topic, new TreeMap<>(assignment), TopicId.random(idRandom).toString());
        } catch (final ZkException e) {
            if (e.error() == ZkError.NODE_EXISTS) {
                throw new TopicExistsException(topic);
            }
            throw e;
        }
    }

    /**
     * Adds partitions to a topic (existing partitions keep their replicas).
     *
     * @param topic           the topic
     * @param totalPartitions the new total, more than the current count
     * @return the new partitions' assignment
     * @throws UnknownTopicException    when the topic does not exist
     * @throws IllegalArgumentException when the total is not larger
     * @throws ZkException              when ZooKeeper fails or the topic changed meanwhile
     */
    public Map<Integer, List<Integer>> addPartitions(final String topic, final int totalPartitions) {
        TopicPartition.validateTopic(topic);
        final Versioned<TopicAssignmentZnode> current =
            store.topicAssignment(topic, null).orElseThrow(() -> new UnknownTopicException(topic));
        final Map<Integer, List<Integer>> existing = current.value().partitions();
        if (totalPartitions <= existing.size()) {
            throw new IllegalArgumentException("totalPartitions=" + totalPartitions + " for topic=" + topic
                + " must exceed the current count=" + existing.size());
        }
        final int rf = existing.get(0).size();
        final Map<Integer, Optional<String>> racks = brokerRacks();
        if (rf > racks.size()) {
            throw new IllegalArgumentException("replicationFactor=" + rf + " of topic=" + topic
                + " exceeds the live brokers=" + racks.size());
        }
        final Map<Integer, List<Integer>> added = ReplicaAssignment.addPartitions(racks, existing, totalPartitions);
        final Map<Integer, List<Integer>> all = new TreeMap<>(existing);
        all.putAll(added);
        store.setTopicAssignment(topic, new TopicAssignmentZnode(all, current.value().addingReplicas(),
            current.value().removingReplicas(), current.value().topicId()), current.version());
        return added;
    }

    /**
     * Requests a topic's deletion; the controller stops its replicas and removes its znodes.
     *
     * @param topic the topic
     * @throws UnknownTopicException when the topic does not exist
     * @throws ZkException           when ZooKeeper fails
     */
    public void deleteTopic(final String topic) {
        TopicPartition.validateTopic(topic);
        if (store.topicAssignment(topic, null).isEmpty()) {
            throw new UnknownTopicException(topic);
        }
        store.requestTopicDeletion(topic);
    }

    /**
     * Asks the controller to move these partitions' leadership to their preferred replicas.
     *
     * @param partitions the partitions
     * @throws IllegalStateException when an earlier request is still pending
     * @throws ZkException           when ZooKeeper fails
     */
    public void preferredLeaderElection(final Set<TopicPartition> partitions) {
        try {
            store.requestPreferredElection(partitions);
        } catch (final ZkException e) {
            if (e.error() == ZkError.NODE_EXISTS) {
                throw new IllegalStateException("a preferred replica election is already pending", e);
            }
            throw e;
        }
    }

    /**
     * Kafka's checks of a manual assignment ({@code AdminZkClient.validateTopicCreate} and
     * {@code ZkAdminManager.createTopics}): every partition has a non-empty list of distinct replicas, and every
     * replica is a registered broker. (Kafka also wants one replica count for all partitions; we allow them to
     * differ.) An unregistered id is most often a typo, and a partition placed only on such ids would stay leaderless with nothing to tell the operator why.
     */
    private void validateReplicas(final String topic, final Map<Integer, List<Integer>> assignment) {
        final java.util.SortedSet<Integer> unknown = new java.util.TreeSet<>();
        final Set<Integer> registered = store.brokers(null).keySet();
        for (final Map.Entry<Integer, List<Integer>> e : new TreeMap<>(assignment).entrySet()) {
            final List<Integer> replicas = e.getValue();
            if (replicas == null || replicas.isEmpty()) {
                throw new IllegalArgumentException("replicas=" + replicas + " for topic=" + topic + " partition="
                    + e.getKey() + " must name >= 1 broker");
            }
            if (new java.util.HashSet<>(replicas).size() != replicas.size()) {
                throw new IllegalArgumentException("replicas=" + replicas + " for topic=" + topic + " partition="
                    + e.getKey() + " repeats a broker");
            }
            for (final Integer r : replicas) {
                if (r == null || !registered.contains(r)) {
                    unknown.add(r == null ? -1 : r);
                }
            }
        }
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException("unknown broker ids " + unknown + " in the replica assignment of topic="
                + topic + " (registered brokers=" + new java.util.TreeSet<>(registered) + ")");
        }
    }

    /**
     * Asks the controller to move partitions to new replica lists ({@code /admin/reassign_partitions}, Kafka's
     * ZooKeeper-mode reassignment). The controller adds the new replicas, waits until they are in the ISR, moves the
     * leadership if the leader is not in the target, then removes the old replicas.
     *
     * @param targets partition to its target replicas, preferred leader first
     * @throws IllegalArgumentException when a partition does not exist, or a target is empty, repeats a broker or
     *                                  names brokers that are not registered (the message names them)
     * @throws IllegalStateException    when an earlier reassignment is still pending
     * @throws ZkException              when ZooKeeper fails
     */
    public void reassignPartitions(final Map<TopicPartition, List<Integer>> targets) {
        if (targets.isEmpty()) {
            throw new IllegalArgumentException("targets must name >= 1 partition");
        }
        final Set<Integer> registered = store.brokers(null).keySet();
        for (final Map.Entry<TopicPartition, List<Integer>> e : targets.entrySet()) {
            final TopicPartition tp = e.getKey();
            final boolean exists = store.topicAssignment(tp.topic(), null)
                .map(a -> a.value().partitions().containsKey(tp.partition())).orElse(false);
            if (!exists) {
                throw new IllegalArgumentException("partition=" + tp + " does not exist");
            }
            final List<Integer> unknown = e.getValue().stream().filter(r -> !registered.contains(r)).toList();
            if (!unknown.isEmpty()) {
                throw new IllegalArgumentException("unknown broker ids " + unknown + " in the reassignment of "
                    + tp + " (registered brokers=" + new java.util.TreeSet<>(registered) + ")");
            }
        }
        final io.seglog.replication.zk.ReassignPartitionsZnode request =
            new io.seglog.replication.zk.ReassignPartitionsZnode(targets);
        try {
            store.admin().requestReassignment(request);
        } catch (final ZkException e) {
            if (e.error() == ZkError.NODE_EXISTS) {
                throw new IllegalStateException("a partition reassignment is already pending", e);
            }
            throw e;
        }
    }

    private Map<Integer, Optional<String>> brokerRacks() {
        final Map<Integer, Optional<String>> racks = new TreeMap<>();
        for (final BrokerInfo b : store.brokers(null).values()) {
            racks.put(b.id(), b.registration().rack());
        }
        return racks;
    }
}
