package io.seglog.replication.group;

import io.seglog.storage.config.ConfigDef;
import io.seglog.storage.config.ConfigKey;
import java.util.Map;

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

    private static final String READER = "group coordinator";
    private static final ConfigDef TABLE = new ConfigDef("GroupConfig");
    private static final ConfigKey<Integer> MIN_SESSION = TABLE.intKey(MIN_SESSION_TIMEOUT_MS, 6_000, 0,
        "the shortest session timeout a member may ask for", READER);
    private static final ConfigKey<Integer> MAX_SESSION = TABLE.intKey(MAX_SESSION_TIMEOUT_MS, 1_800_000, 0,
        "the longest session timeout a member may ask for", READER);
    private static final ConfigKey<Integer> INITIAL_DELAY = TABLE.intKey(INITIAL_REBALANCE_DELAY_MS, 3_000, 0,
        "how long the first rebalance of an empty group waits for more members", READER);
    private static final ConfigKey<Integer> SIZE = TABLE.intKey(MAX_SIZE, Integer.MAX_VALUE, 1,
        "the most members a group may have", READER);
    private static final ConfigKey<Integer> METADATA_MAX = TABLE.intKey(OFFSET_METADATA_MAX_BYTES, 4_096, 0,
        "the longest metadata an offset commit may carry", READER);
    private static final ConfigKey<Integer> RETENTION_MINUTES = TABLE.intKey(OFFSETS_RETENTION_MINUTES, 7 * 24 * 60, 1,
        "how long an empty group's offsets are kept after it became empty", READER);
    private static final ConfigKey<Long> RETENTION_CHECK = TABLE.longKey(OFFSETS_RETENTION_CHECK_INTERVAL_MS, 600_000,
        1, "how often expired offsets are looked for", READER);
    /** Kafka's fixed 5 minutes: how long a new member's parked JoinGroup may wait (not a property). */
    private static final int NEW_MEMBER_JOIN_TIMEOUT_MS = 300_000;

    static {
        TABLE.crossRule(v -> v.get(MAX_SESSION) >= v.get(MIN_SESSION) ? null
            : MIN_SESSION_TIMEOUT_MS + "=" + v.get(MIN_SESSION) + " and " + MAX_SESSION_TIMEOUT_MS + "="
                + v.get(MAX_SESSION) + ": need 0 <= min <= max");
    }

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
        TABLE.assign().set(MIN_SESSION, minSessionTimeoutMs).set(MAX_SESSION, maxSessionTimeoutMs)
            .set(INITIAL_DELAY, initialRebalanceDelayMs).set(SIZE, maxSize).set(METADATA_MAX, offsetMetadataMaxBytes)
            .set(RETENTION_CHECK, offsetsRetentionCheckIntervalMs).validate();
        // Kept in ms (tests and the simulation retain for less than a minute): checked here, not as the minutes key.
        if (offsetsRetentionMs < 1) {
            throw new IllegalArgumentException(OFFSETS_RETENTION_MINUTES + ": " + offsetsRetentionMs
                + " ms: must be >= 1");
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
        return fromProperties(Map.of());
    }

    /**
     * Reads Kafka's property names; absent keys keep Kafka's defaults.
     *
     * @param props property names to values (text or numbers)
     * @return the settings
     * @throws IllegalArgumentException naming the key and the value of an invalid setting
     */
    public static GroupConfig fromProperties(final Map<String, ?> props) {
        return new GroupConfig(MIN_SESSION.read(props), MAX_SESSION.read(props), INITIAL_DELAY.read(props),
            SIZE.read(props), NEW_MEMBER_JOIN_TIMEOUT_MS, METADATA_MAX.read(props),
            RETENTION_MINUTES.read(props) * 60_000L, RETENTION_CHECK.read(props));
    }

    /**
     * The settings under Kafka's names, from the table ({@code GroupConfig{group.min.session.timeout.ms=6000, ...}}),
     * then the two kept beside it in ms: the offsets' retention (the table's minutes, rounded down, which a test may
     * undercut) and a new member's join timeout (not a property).
     *
     * @return the text
     */
    @Override
    public String toString() {
        return assigned() + " offsetsRetentionMs=" + offsetsRetentionMs + ", newMemberJoinTimeoutMs="
            + newMemberJoinTimeoutMs;
    }

    /**
     * These settings under Kafka's names, as a broker's DescribeConfigs shows them ({@code offsets.retention.minutes}
     * in whole minutes, rounded down).
     *
     * @return name to value text, in the table's order
     */
    public Map<String, String> kafkaProperties() {
        return assigned().shownProperties();
    }

    private ConfigDef.Assignment assigned() {
        return TABLE.assign().set(MIN_SESSION, minSessionTimeoutMs).set(MAX_SESSION, maxSessionTimeoutMs)
            .set(INITIAL_DELAY, initialRebalanceDelayMs).set(SIZE, maxSize).set(METADATA_MAX, offsetMetadataMaxBytes)
            .set(RETENTION_MINUTES, (int) Math.min(Integer.MAX_VALUE, offsetsRetentionMs / 60_000L))
            .set(RETENTION_CHECK, offsetsRetentionCheckIntervalMs);
    }

    /**
     * The table of this class's keys (for the configuration reference).
     *
     * @return the table
     */
    public static ConfigDef configDef() {
        return TABLE;
    }
}
