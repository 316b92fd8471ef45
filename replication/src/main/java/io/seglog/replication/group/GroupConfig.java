package io.seglog.replication.group;

/**
 * The classic group coordinator's settings, with Kafka's names and defaults.
 *
 * @param minSessionTimeoutMs     {@code group.min.session.timeout.ms} (6000)
 * @param maxSessionTimeoutMs     {@code group.max.session.timeout.ms} (1800000)
 * @param initialRebalanceDelayMs {@code group.initial.rebalance.delay.ms} (3000): how long the first rebalance of an
 *                                empty group waits for more members, extended while members keep coming, up to the
 *                                rebalance timeout
 * @param maxSize                 {@code group.max.size} (unbounded)
 * @param newMemberJoinTimeoutMs  how long a new member's parked JoinGroup may wait (Kafka's fixed 5 minutes)
 * @param offsetMetadataMaxBytes  {@code offset.metadata.max.bytes} (4096): the longest metadata a commit may carry
 * @param offsetsRetentionMs      {@code offsets.retention.minutes} (7 days), in ms: how long an empty group's offsets
 *                                are kept after it became empty (a group outside group management: after each
 *                                commit; a stable consumer group: after the last commit of a topic it no longer
 *                                subscribes to)
 * @param offsetsRetentionCheckIntervalMs {@code offsets.retention.check.interval.ms} (600000): how often expired
 *                                offsets are looked for
 */
public record GroupConfig(int minSessionTimeoutMs, int maxSessionTimeoutMs, int initialRebalanceDelayMs, int maxSize,
                          int newMemberJoinTimeoutMs, int offsetMetadataMaxBytes, long offsetsRetentionMs,
                          long offsetsRetentionCheckIntervalMs) {
    /** {@code group.min.session.timeout.ms}. */
    public static final String MIN_SESSION_TIMEOUT_MS = "group.min.session.timeout.ms";
    /** {@code group.max.session.timeout.ms}. */
    public static final String MAX_SESSION_TIMEOUT_MS = "group.max.session.timeout.ms";
    /** {@code group.initial.rebalance.delay.ms}. */
    public static final String INITIAL_REBALANCE_DELAY_MS = "group.initial.rebalance.delay.ms";
    /** {@code group.max.size}. */
    public static final String MAX_SIZE = "group.max.size";
    /** {@code offset.metadata.max.bytes}. */
    public static final String OFFSET_METADATA_MAX_BYTES = "offset.metadata.max.bytes";
    /** {@code offsets.retention.minutes}. */
    public static final String OFFSETS_RETENTION_MINUTES = "offsets.retention.minutes";
    /** {@code offsets.retention.check.interval.ms}. */
    public static final String OFFSETS_RETENTION_CHECK_INTERVAL_MS = "offsets.retention.check.interval.ms";

    /**
     * Checks the settings.
     *
     * @param minSessionTimeoutMs     the smallest session timeout accepted
     * @param maxSessionTimeoutMs     the largest session timeout accepted
     * @param initialRebalanceDelayMs the first rebalance's delay
     * @param maxSize                 the most members
     * @param newMemberJoinTimeoutMs  a new member's join timeout
     * @param offsetMetadataMaxBytes  the longest commit metadata
     * @param offsetsRetentionMs      how long offsets are kept
     * @param offsetsRetentionCheckIntervalMs how often expired offsets are looked for
     * @throws IllegalArgumentException naming the setting and value
     */
    public GroupConfig {
        if (minSessionTimeoutMs < 0 || maxSessionTimeoutMs < minSessionTimeoutMs) {
            throw new IllegalArgumentException(MIN_SESSION_TIMEOUT_MS + "=" + minSessionTimeoutMs + " and "
                + MAX_SESSION_TIMEOUT_MS + "=" + maxSessionTimeoutMs + ": need 0 <= min <= max");
        }
        if (initialRebalanceDelayMs < 0) {
            throw new IllegalArgumentException(INITIAL_REBALANCE_DELAY_MS + "=" + initialRebalanceDelayMs
                + ": must be >= 0");
        }
        if (maxSize < 1) {
            throw new IllegalArgumentException(MAX_SIZE + "=" + maxSize + ": must be >= 1");
        }
        if (offsetMetadataMaxBytes < 0) {
            throw new IllegalArgumentException(OFFSET_METADATA_MAX_BYTES + "=" + offsetMetadataMaxBytes
                + ": must be >= 0");
        }
        if (offsetsRetentionMs < 1) {
            throw new IllegalArgumentException(OFFSETS_RETENTION_MINUTES + ": " + offsetsRetentionMs
                + " ms: must be >= 1");
        }
        if (offsetsRetentionCheckIntervalMs < 1) {
            throw new IllegalArgumentException(OFFSETS_RETENTION_CHECK_INTERVAL_MS + "="
                + offsetsRetentionCheckIntervalMs + ": must be >= 1");
        }
        if (newMemberJoinTimeoutMs < 1) {
            throw new IllegalArgumentException("newMemberJoinTimeoutMs=" + newMemberJoinTimeoutMs + ": must be >= 1");
        }
    }

    /**
     * Kafka's defaults.
     *
     * @return the settings
     */
    public static GroupConfig defaults() {
        return new GroupConfig(6_000, 1_800_000, 3_000, Integer.MAX_VALUE, 300_000, 4_096, 7L * 24 * 60 * 60_000,
            600_000);
    }
}
