package io.seglog.replication.zk;

import io.seglog.storage.TopicPartition;
import java.util.List;

/**
 * Kafka's ZooKeeper-mode layout ({@code ZkData.scala} in Kafka 3.9, the last release with ZooKeeper mode): the
 * fixed paths, builders for the per-broker, per-topic and per-partition paths, and parsers for child names.
 *
 * <pre>
 * /controller                                   E  {@link ControllerZnode}
 * /controller_epoch                             P  {@link ControllerEpochZnode} (decimal string)
 * /brokers/ids/&lt;id&gt;                             E  {@link BrokerRegistration}
 * /brokers/topics/&lt;t&gt;                           P  {@link TopicAssignmentZnode}
 * /brokers/topics/&lt;t&gt;/partitions/&lt;p&gt;/state      P  {@link PartitionStateZnode}
 * /admin/delete_topics/&lt;t&gt;                      P  no data
 * /admin/preferred_replica_election             P  {@link PreferredReplicaElectionZnode}
 * /admin/reassign_partitions                    P  {@link ReassignPartitionsZnode}
 * /isr_change_notification/isr_change_&lt;seq&gt;     PS {@link IsrChangeNotificationZnode}
 * </pre>
 *
 * <p>Every builder validates its inputs first (topic names with Kafka's rules, ids not negative), so that no
 * caller can build a path that escapes its parent. Stateless and thread-safe.
 */
public final class ZkPaths {
    /** The active controller's ephemeral registration. */
    public static final String CONTROLLER = "/controller";
    /** The controller epoch; its znode version is the controller's fencing token. */
    public static final String CONTROLLER_EPOCH = "/controller_epoch";
    /** Parent of broker ids and topics. */
    static final String BROKERS = "/brokers";
    /** Parent of the ephemeral broker registrations. */
    static final String BROKER_IDS = BROKERS + "/ids";
    /** Parent of the topic assignments. */
    public static final String TOPICS = BROKERS + "/topics";
    /** Broker id generation (unused by Seglog, created for Kafka compatibility). */
    static final String BROKER_SEQUENCE_ID = BROKERS + "/seqid";
    /** Parent of the persistent-sequential ISR change notifications. */
    public static final String ISR_CHANGE = "/isr_change_notification";
    /** Name prefix of an ISR change notification; ZooKeeper appends a 10-digit sequence number. */
    static final String ISR_CHANGE_PREFIX = "isr_change_";
    /** Parent of the admin requests. */
    static final String ADMIN = "/admin";
    /** Parent of the topics marked for deletion. */
    public static final String DELETE_TOPICS = ADMIN + "/delete_topics";
    /** A request for preferred replica elections. */
    public static final String PREFERRED = ADMIN + "/preferred_replica_election";
    /** A request for partition reassignments (Kafka's legacy, pre-2.4 mechanism). */
    public static final String REASSIGN = ADMIN + "/reassign_partitions";
    /** Parent of the per-entity configuration. */
    static final String CONFIG = "/config";
    /** Parent of the configuration change notifications. */
    public static final String CONFIG_CHANGES = CONFIG + "/changes";
    /** Name prefix of the persistent-sequential config change notifications under {@link #CONFIG_CHANGES}. */
    static final String CONFIG_CHANGE_PREFIX = "config_change_";
    /** Old consumers' parent (created by Kafka at start; kept for compatibility). */
    static final String CONSUMERS = "/consumers";
    /** Holds the cluster id's parent. */
    static final String CLUSTER = "/cluster";
    /** The cluster id, created by the first broker (Kafka's {@code ClusterIdZNode}). */
    public static final String CLUSTER_ID = CLUSTER + "/id";
    /** Producer id block allocation (created by Kafka at start; kept for compatibility). */
    public static final String LATEST_PRODUCER_ID_BLOCK = "/latest_producer_id_block";
    /** Parent of log-directory failure notifications (created by Kafka at start; kept for compatibility). */
    static final String LOG_DIR_EVENT_NOTIFICATION = "/log_dir_event_notification";

    /**
     * The persistent paths that must exist before a broker or controller starts, in Kafka's order
     * ({@code ZkData.PersistentZkPaths}), so a Kafka tool pointed at our ZooKeeper finds the layout it expects.
     */
    static final List<String> PERSISTENT_PATHS = List.of(
        CONSUMERS,
        BROKER_IDS,
        TOPICS,
        CONFIG_CHANGES,
        DELETE_TOPICS,
        BROKER_SEQUENCE_ID,
        ISR_CHANGE,
        LATEST_PRODUCER_ID_BLOCK,
        LOG_DIR_EVENT_NOTIFICATION,
        CONFIG + "/topics",
        CONFIG + "/clients",
        CONFIG + "/users",
        CONFIG + "/brokers",
        CONFIG + "/ips");

    private ZkPaths() {
    }

    /**
     * A broker's registration.
     *
     * @param brokerId the broker id, zero or more
     * @return {@code /brokers/ids/<id>}
     * @throws IllegalArgumentException when the id is negative
     */
    public static String brokerPath(final int brokerId) {
        if (brokerId < 0) {
            throw new IllegalArgumentException("brokerId=" + brokerId + " must be >= 0");
        }
        return BROKER_IDS + "/" + brokerId;
    }

    /**
     * A topic's replica assignment.
     *
     * @param topic the topic, valid under Kafka's rules
     * @return {@code /brokers/topics/<topic>}
     * @throws IllegalArgumentException when the topic name is illegal
     */
    public static String topicPath(final String topic) {
        TopicPartition.validateTopic(topic);
        return TOPICS + "/" + topic;
    }

    /**
     * The container of a topic's partitions.
     *
     * @param topic the topic
     * @return {@code /brokers/topics/<topic>/partitions}
     * @throws IllegalArgumentException when the topic name is illegal
     */
    public static String partitionsPath(final String topic) {
        return topicPath(topic) + "/partitions";
    }

    /**
     * The container of one partition.
     *
     * @param topic     the topic
     * @param partition the partition, zero or more
     * @return {@code /brokers/topics/<topic>/partitions/<partition>}
     * @throws IllegalArgumentException when the topic name is illegal or the partition negative
     */
    public static String partitionPath(final String topic, final int partition) {
        return partitionPath(new TopicPartition(topic, partition));
    }

    /**
     * The container of one partition.
     *
     * @param partition the partition
     * @return {@code /brokers/topics/<topic>/partitions/<partition>}
     */
    public static String partitionPath(final TopicPartition partition) {
        return partitionsPath(partition.topic()) + "/" + partition.partition();
    }

    /**
     * A partition's leader and ISR.
     *
     * @param topic     the topic
     * @param partition the partition, zero or more
     * @return {@code /brokers/topics/<topic>/partitions/<partition>/state}
     * @throws IllegalArgumentException when the topic name is illegal or the partition negative
     */
    public static String partitionStatePath(final String topic, final int partition) {
        return partitionPath(topic, partition) + "/state";
    }

    /**
     * A partition's leader and ISR.
     *
     * @param partition the partition
     * @return {@code /brokers/topics/<topic>/partitions/<partition>/state}
     */
    public static String partitionStatePath(final TopicPartition partition) {
        return partitionPath(partition) + "/state";
    }

    /**
     * A topic's configuration overrides.
     *
     * @param topic the topic
     * @return {@code /config/topics/<topic>}
     * @throws IllegalArgumentException when the topic name is illegal
     */
    public static String topicConfigPath(final String topic) {
        TopicPartition.validateTopic(topic);
        return CONFIG + "/topics/" + topic;
    }

    /**
     * The marker requesting a topic's deletion.
     *
     * @param topic the topic
     * @return {@code /admin/delete_topics/<topic>}
     * @throws IllegalArgumentException when the topic name is illegal
     */
    public static String deleteTopicPath(final String topic) {
        TopicPartition.validateTopic(topic);
        return DELETE_TOPICS + "/" + topic;
    }

    /**
     * The path of a child of {@code /admin/delete_topics} as ZooKeeper listed it, legal topic name or not, so that
     * a request another client wrote with an illegal name can be dropped.
     *
     * @param child a child name as listed (one path element)
     * @return {@code /admin/delete_topics/<child>}
     * @throws IllegalArgumentException when {@code child} is not one path element
     */
    public static String deleteTopicRequestPath(final String child) {
        if (child == null || child.isEmpty() || child.indexOf('/') >= 0) {
            throw new IllegalArgumentException("'" + child + "' is not a child of " + DELETE_TOPICS);
        }
        return DELETE_TOPICS + "/" + child;
    }

    /**
     * The path to pass to a persistent-sequential create of a config change notification.
     *
     * @return {@code /config/changes/config_change_}
     */
    public static String configChangeSequencePrefix() {
        return CONFIG_CHANGES + "/" + CONFIG_CHANGE_PREFIX;
    }

    /**
     * One config change notification, from the child name returned by {@code getChildren}.
     *
     * @param childName the child's name, {@code config_change_<seq>}
     * @return {@code /config/changes/<childName>}
     * @throws IllegalArgumentException when the name does not have the prefix or contains a slash
     */
    public static String configChangePath(final String childName) {
        if (childName == null || !childName.startsWith(CONFIG_CHANGE_PREFIX) || childName.indexOf('/') >= 0) {
            throw new IllegalArgumentException("childName=" + childName + " is not a " + CONFIG_CHANGE_PREFIX
                + "<seq> name");
        }
        return CONFIG_CHANGES + "/" + childName;
    }

    /**
     * The path to pass to a persistent-sequential create of an ISR change notification.
     *
     * @return {@code /isr_change_notification/isr_change_}
     */
    public static String isrChangeSequencePrefix() {
        return ISR_CHANGE + "/" + ISR_CHANGE_PREFIX;
    }

    /**
     * One ISR change notification, from the child name returned by {@code getChildren}.
     *
     * @param childName the child's name, {@code isr_change_<seq>}
     * @return {@code /isr_change_notification/<childName>}
     * @throws IllegalArgumentException when the name does not have the prefix or contains a slash
     */
    public static String isrChangePath(final String childName) {
        if (childName == null || !childName.startsWith(ISR_CHANGE_PREFIX) || childName.indexOf('/') >= 0) {
            throw new IllegalArgumentException("childName=" + childName + " is not an " + ISR_CHANGE_PREFIX
                + "<seq> name");
        }
        return ISR_CHANGE + "/" + childName;
    }

    /**
     * Parses a child of {@code /brokers/ids} as a broker id.
     *
     * @param childName the child's name
     * @return the broker id
     * @throws MalformedZnodeException when the name is not a canonical non-negative decimal int (e.g. {@code 007})
     */
    public static int brokerIdFromChild(final String childName) throws MalformedZnodeException {
        return canonicalNonNegativeInt(BROKER_IDS + "/" + childName, "brokerId", childName);
    }

    /**
     * Parses a child of {@code /brokers/topics/<topic>/partitions} as a partition number.
     *
     * @param topic     the topic, for the message
     * @param childName the child's name
     * @return the partition
     * @throws MalformedZnodeException when the name is not a canonical non-negative decimal int
     */
    public static int partitionFromChild(final String topic, final String childName) throws MalformedZnodeException {
        return canonicalNonNegativeInt(TOPICS + "/" + topic + "/partitions/" + childName, "partition", childName);
    }

    /**
     * Parses a canonical decimal int: digits only, no sign, no leading zero (except {@code 0} itself), no overflow.
     * The canonical form matters because the same id must never have two znode names.
     *
     * @param path  the path, for the message
     * @param field the field, for the message
     * @param text  the text
     * @return the value
     * @throws MalformedZnodeException when the text is not canonical or overflows an int
     */
    static int canonicalNonNegativeInt(final String path, final String field, final String text)
        throws MalformedZnodeException {
        if (text == null || text.isEmpty() || text.length() > 10 || !text.matches("0|[1-9][0-9]*")) {
            throw new MalformedZnodeException(path, field, "value=\"" + text
                + "\" is not a canonical non-negative decimal integer");
        }
        final long value = Long.parseLong(text);
        if (value > Integer.MAX_VALUE) {
            throw new MalformedZnodeException(path, field, "value=" + text + " exceeds limit=" + Integer.MAX_VALUE);
        }
        return (int) value;
    }
}
