package io.seglog.replication.wire;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What the admin APIs ({@link AdminApis}) read and write of the cluster's durable state: Kafka's ZooKeeper layout,
 * through the broker's own session, as a Kafka ZooKeeper-mode broker's {@code AdminZkClient} does. Every method may
 * block on ZooKeeper: {@link AdminApis} calls them on its admin thread, never on an event loop.
 *
 * <p>Implementations are thread-safe.
 */
public interface AdminStore {
    /**
     * The registered brokers ({@code /brokers/ids}) and their racks.
     *
     * @return broker id to rack
     */
    Map<Integer, Optional<String>> brokers();

    /**
     * Every topic ({@code /brokers/topics}).
     *
     * @return the names
     */
    Set<String> topics();

    /**
     * The topics whose deletion is pending ({@code /admin/delete_topics}).
     *
     * @return the names
     */
    Set<String> topicsMarkedForDeletion();

    /**
     * A topic's assignment.
     *
     * @param topic the topic
     * @return it, or empty when the topic does not exist
     */
    Optional<TopicState> topic(String topic);

    /**
     * The topic whose id this is.
     *
     * @param topicId the id, Kafka's base64 text
     * @return the topic's name, or empty when no topic has that id
     */
    Optional<String> topicNameById(String topicId);

    /**
     * A topic's configuration overrides ({@code /config/topics/<topic>}).
     *
     * @param topic the topic
     * @return name to value; empty when there are none
     */
    Map<String, String> topicConfig(String topic);

    /**
     * Replaces an existing topic's configuration overrides and notifies every broker ({@code /config/topics/<topic>}
     * and a {@code /config/changes/config_change_<seq>}, in one transaction).
     *
     * @param topic   the topic
     * @param configs the whole set of overrides, validated
     */
    void changeTopicConfig(String topic, Map<String, String> configs);

    /**
     * Creates a topic: its configuration overrides, then its assignment (which the controller acts on).
     *
     * @param topic      the name, valid
     * @param assignment partition (0..n-1) to replicas, validated
     * @param configs    the overrides, validated
     * @throws io.seglog.replication.controller.TopicExistsException when the topic exists or its deletion is pending
     */
    void createTopic(String topic, Map<Integer, List<Integer>> assignment, Map<String, String> configs);

    /**
     * Adds partitions to a topic, keeping everything else of its assignment (replicas being reassigned, topic id).
     *
     * @param topic the topic
     * @param read  the state the new partitions were computed from
     * @param added the new partitions (numbered from the current count) to their replicas
     * @return false when the topic changed since {@code read} (nothing written)
     */
    boolean addPartitions(String topic, TopicState read, Map<Integer, List<Integer>> added);

    /**
     * Requests a topic's deletion ({@code /admin/delete_topics/<topic>}); the controller carries it out.
     *
     * @param topic the topic
     * @throws io.seglog.replication.controller.UnknownTopicException when the topic does not exist
     */
    void deleteTopic(String topic);

    /**
     * A topic's assignment as read.
     *
     * @param partitions  partition to replicas, preferred leader first
     * @param topicId     the topic id (Kafka's base64 text), when the topic has one
     * @param reassigning whether a partition reassignment of the topic is under way
     * @param version     the znode version read
     */
    record TopicState(Map<Integer, List<Integer>> partitions, Optional<String> topicId, boolean reassigning,
                      int version) {
    }
}
