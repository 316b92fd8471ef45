package io.seglog.replication.broker;

import io.seglog.replication.group.GroupConfig;
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
        check(OFFSETS_TOPIC_NUM_PARTITIONS, offsetsPartitions);
        check(OFFSETS_TOPIC_REPLICATION_FACTOR, offsetsReplication);
        check(OFFSETS_TOPIC_SEGMENT_BYTES, offsetsSegmentBytes);
        check(OFFSETS_COMMIT_TIMEOUT_MS, offsetsCommitTimeoutMs);
    }

    private static void check(final String key, final int value) {
        if (value < 1) {
            throw new IllegalArgumentException(key + "=" + value + " must be >= 1");
        }
    }

    /**
     * Kafka's defaults.
     *
     * @return the settings
     */
    public static GroupCoordinatorConfig defaults() {
        return new GroupCoordinatorConfig(GroupConfig.defaults(), 50, 3, 100 * 1024 * 1024, 5_000);
    }

    /**
     * Reads the settings from broker properties, Kafka's defaults for what is absent.
     *
     * @param props the properties
     * @return the settings
     * @throws IllegalArgumentException naming a key whose value is not a number or out of range
     */
    public static GroupCoordinatorConfig fromProperties(final Map<String, ?> props) {
        final GroupConfig d = GroupConfig.defaults();
        final GroupConfig groups = new GroupConfig(SeglogBrokerConfig.intValue(props, GroupConfig.MIN_SESSION_TIMEOUT_MS,
            d.minSessionTimeoutMs()), SeglogBrokerConfig.intValue(props, GroupConfig.MAX_SESSION_TIMEOUT_MS, d.maxSessionTimeoutMs()),
            SeglogBrokerConfig.intValue(props, GroupConfig.INITIAL_REBALANCE_DELAY_MS, d.initialRebalanceDelayMs()),
            SeglogBrokerConfig.intValue(props, GroupConfig.MAX_SIZE, d.maxSize()), d.newMemberJoinTimeoutMs(),
            SeglogBrokerConfig.intValue(props, GroupConfig.OFFSET_METADATA_MAX_BYTES, d.offsetMetadataMaxBytes()),
            SeglogBrokerConfig.intValue(props, GroupConfig.OFFSETS_RETENTION_MINUTES,
                (int) (d.offsetsRetentionMs() / 60_000)) * 60_000L,
            SeglogBrokerConfig.longValue(props, GroupConfig.OFFSETS_RETENTION_CHECK_INTERVAL_MS,
                d.offsetsRetentionCheckIntervalMs()));
        final GroupCoordinatorConfig k = defaults();
        return new GroupCoordinatorConfig(groups, SeglogBrokerConfig.intValue(props, OFFSETS_TOPIC_NUM_PARTITIONS, k.offsetsPartitions()),
            SeglogBrokerConfig.intValue(props, OFFSETS_TOPIC_REPLICATION_FACTOR, k.offsetsReplication()),
            SeglogBrokerConfig.intValue(props, OFFSETS_TOPIC_SEGMENT_BYTES, k.offsetsSegmentBytes()),
            SeglogBrokerConfig.intValue(props, OFFSETS_COMMIT_TIMEOUT_MS, k.offsetsCommitTimeoutMs()));
    }

    /**
     * These settings under Kafka's names.
     *
     * @return name to value
     */
    public Map<String, String> kafkaProperties() {
        final Map<String, String> out = new TreeMap<>();
        out.put(GroupConfig.MIN_SESSION_TIMEOUT_MS, String.valueOf(groups.minSessionTimeoutMs()));
        out.put(GroupConfig.MAX_SESSION_TIMEOUT_MS, String.valueOf(groups.maxSessionTimeoutMs()));
        out.put(GroupConfig.INITIAL_REBALANCE_DELAY_MS, String.valueOf(groups.initialRebalanceDelayMs()));
        out.put(GroupConfig.MAX_SIZE, String.valueOf(groups.maxSize()));
        out.put(GroupConfig.OFFSET_METADATA_MAX_BYTES, String.valueOf(groups.offsetMetadataMaxBytes()));
        out.put(GroupConfig.OFFSETS_RETENTION_MINUTES, String.valueOf(groups.offsetsRetentionMs() / 60_000));
        out.put(GroupConfig.OFFSETS_RETENTION_CHECK_INTERVAL_MS,
            String.valueOf(groups.offsetsRetentionCheckIntervalMs()));
        out.put(OFFSETS_TOPIC_NUM_PARTITIONS, String.valueOf(offsetsPartitions));
        out.put(OFFSETS_TOPIC_REPLICATION_FACTOR, String.valueOf(offsetsReplication));
        out.put(OFFSETS_TOPIC_SEGMENT_BYTES, String.valueOf(offsetsSegmentBytes));
        out.put(OFFSETS_COMMIT_TIMEOUT_MS, String.valueOf(offsetsCommitTimeoutMs));
        return out;
    }
}
