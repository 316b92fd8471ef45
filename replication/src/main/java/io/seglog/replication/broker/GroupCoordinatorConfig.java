package io.seglog.replication.broker;

import io.seglog.replication.group.GroupConfig;
import io.seglog.storage.config.ConfigDef;
import io.seglog.storage.config.ConfigKey;
import java.util.Map;
import java.util.TreeMap;

/**
 * The group coordinator's settings under Kafka's broker property names, with Kafka's defaults.
 *
 * @param groups                 the groups' rules ({@code group.*}, {@code offset.metadata.max.bytes})
 * @param offsetsPartitions      {@code offsets.topic.num.partitions} (50)
 * @param offsetsReplication     {@code offsets.topic.replication.factor} (3; the offsets topic is not created while
 *                               fewer brokers are alive, as Kafka's)
 * @param offsetsSegmentBytes    {@code offsets.topic.segment.bytes} (100 MiB)
 * @param offsetsCommitTimeoutMs {@code offsets.commit.timeout.ms} (5000): how long a group write waits for the
 *                               offsets partition's ISR
 */
public record GroupCoordinatorConfig(GroupConfig groups, int offsetsPartitions, int offsetsReplication,
                                     int offsetsSegmentBytes, int offsetsCommitTimeoutMs) {
    /** {@code offsets.topic.num.partitions}. */
    public static final String OFFSETS_TOPIC_NUM_PARTITIONS = "offsets.topic.num.partitions";
    /** {@code offsets.topic.replication.factor}. */
    public static final String OFFSETS_TOPIC_REPLICATION_FACTOR = "offsets.topic.replication.factor";
    /** {@code offsets.topic.segment.bytes}. */
    public static final String OFFSETS_TOPIC_SEGMENT_BYTES = "offsets.topic.segment.bytes";
    /** {@code offsets.commit.timeout.ms}. */
    public static final String OFFSETS_COMMIT_TIMEOUT_MS = "offsets.commit.timeout.ms";

    private static final String READER = "group coordinator";
    private static final ConfigDef TABLE = new ConfigDef("GroupCoordinatorConfig");
    private static final ConfigKey<Integer> PARTITIONS = TABLE.intKey(OFFSETS_TOPIC_NUM_PARTITIONS, 50, 1,
        "partitions of __consumer_offsets, fixed when the topic is created", READER);
    private static final ConfigKey<Integer> REPLICATION = TABLE.intKey(OFFSETS_TOPIC_REPLICATION_FACTOR, 3, 1,
        "replication factor of __consumer_offsets (not created while fewer brokers are alive)", READER);
    private static final ConfigKey<Integer> SEGMENT_BYTES = TABLE.intKey(OFFSETS_TOPIC_SEGMENT_BYTES,
        100 * 1024 * 1024, 1, "segment.bytes of __consumer_offsets", READER);
    private static final ConfigKey<Integer> COMMIT_TIMEOUT = TABLE.intKey(OFFSETS_COMMIT_TIMEOUT_MS, 5_000, 1,
        "how long a group write waits for the offsets partition's ISR", READER);

    /**
     * Checks the values.
     *
     * @param groups                 the groups' rules
     * @param offsetsPartitions      at least 1
     * @param offsetsReplication     at least 1
     * @param offsetsSegmentBytes    at least 1
     * @param offsetsCommitTimeoutMs at least 1
     * @throws IllegalArgumentException naming the key and value
     */
    public GroupCoordinatorConfig {
        TABLE.assign().set(PARTITIONS, offsetsPartitions).set(REPLICATION, offsetsReplication)
            .set(SEGMENT_BYTES, offsetsSegmentBytes).set(COMMIT_TIMEOUT, offsetsCommitTimeoutMs).validate();
    }


    /**
     * Kafka's defaults.
     *
     * @return the settings
     */
    public static GroupCoordinatorConfig defaults() {
        return fromProperties(Map.of());
    }

    /**
     * Reads the settings from broker properties, Kafka's defaults for what is absent.
     *
     * @param props the properties
     * @return the settings
     * @throws IllegalArgumentException naming a key whose value is not a number or out of range
     */
    public static GroupCoordinatorConfig fromProperties(final Map<String, ?> props) {
        return new GroupCoordinatorConfig(GroupConfig.fromProperties(props), PARTITIONS.read(props),
            REPLICATION.read(props), SEGMENT_BYTES.read(props), COMMIT_TIMEOUT.read(props));
    }

    /**
     * The table of this class's keys (for the configuration reference; the group settings are GroupConfig's).
     *
     * @return the table
     */
    public static ConfigDef configDef() {
        return TABLE;
    }

    /**
     * These settings under Kafka's names, from the tables (GroupConfig's and this class's).
     *
     * @return name to value
     */
    public Map<String, String> kafkaProperties() {
        final Map<String, String> out = new TreeMap<>(groups.kafkaProperties());
        out.putAll(assigned().shownProperties());
        return out;
    }

    /**
     * Kafka's names and this configuration's values, from the table, with the groups' rules.
     *
     * @return e.g. {@code GroupCoordinatorConfig{offsets.topic.num.partitions=50, ...} GroupConfig{...} ...}
     */
    @Override
    public String toString() {
        return assigned() + " " + groups;
    }

    private ConfigDef.Assignment assigned() {
        return TABLE.assign().set(PARTITIONS, offsetsPartitions).set(REPLICATION, offsetsReplication)
            .set(SEGMENT_BYTES, offsetsSegmentBytes).set(COMMIT_TIMEOUT, offsetsCommitTimeoutMs);
    }
}
