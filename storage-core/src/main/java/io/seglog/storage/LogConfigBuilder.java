package io.seglog.storage;

import static io.seglog.storage.LogConfigKeys.*;

import io.seglog.storage.config.ConfigDef;
import io.seglog.storage.config.ConfigKey;
import java.util.Objects;

/**
 * The state and setters of {@link LogConfig.Builder}: it owns the values being collected (one slot per key of
 * {@link LogConfigKeys}, Kafka's defaults to start), each setter writes one, and {@link #build()} runs the table's
 * validation pass on a copy and hands it to the immutable {@link LogConfig}. {@link LogConfig.Builder} is the public
 * name of this class; it adds nothing. Not thread-safe.
 */
abstract class LogConfigBuilder {
    private final Object[] values;

    LogConfigBuilder(final Object[] values) {
        this.values = values;
    }

    /** The concrete builder, returned by every setter so that calls chain. */
    abstract LogConfig.Builder self();

    private <T> LogConfig.Builder set(final ConfigKey<T> key, final T value) {
        ConfigDef.put(values, key, value); // checked in build(), so a builder may pass through a bad value
        return self();
    }

    /**
     * Sets Kafka's {@code cleanup.policy}.
     *
     * @param cleanupPolicy the policy
     * @return this builder
     */
    public LogConfig.Builder cleanupPolicy(final CleanupPolicy cleanupPolicy) {
        return set(CLEANUP_POLICY, Objects.requireNonNull(cleanupPolicy, "cleanupPolicy"));
    }

    /**
     * Sets Kafka's {@code min.cleanable.dirty.ratio}.
     *
     * @param ratio in [0, 1]
     * @return this builder
     */
    public LogConfig.Builder minCleanableDirtyRatio(final double ratio) {
        return set(MIN_CLEANABLE_DIRTY_RATIO, ratio);
    }

    /**
     * Sets Kafka's {@code min.compaction.lag.ms}.
     *
     * @param ms 0 or more
     * @return this builder
     */
    public LogConfig.Builder minCompactionLagMs(final long ms) {
        return set(MIN_COMPACTION_LAG_MS, ms);
    }

    /**
     * Sets Kafka's {@code max.compaction.lag.ms}.
     *
     * @param ms at least 1
     * @return this builder
     */
    public LogConfig.Builder maxCompactionLagMs(final long ms) {
        return set(MAX_COMPACTION_LAG_MS, ms);
    }

    /**
     * Sets Kafka's {@code delete.retention.ms}.
     *
     * @param ms 0 or more
     * @return this builder
     */
    public LogConfig.Builder deleteRetentionMs(final long ms) {
        return set(DELETE_RETENTION_MS, ms);
    }

    /**
     * Sets {@code segment.bytes}. Unlike {@link LogConfig#fromProperties(java.util.Map)}, the builder accepts segments below
     * Kafka 4.4's 1 MiB minimum (down to {@link LogConfig#MIN_SEGMENT_BYTES}), as Kafka's internal key does.
     *
     * @param segmentBytes the roll size in bytes
     * @return this builder
     */
    public LogConfig.Builder segmentBytes(final int segmentBytes) {
        return set(SEGMENT_BYTES, segmentBytes);
    }

    /**
     * Sets {@code segment.ms}.
     *
     * @param segmentMs the record-time span of a segment
     * @return this builder
     */
    public LogConfig.Builder segmentMs(final long segmentMs) {
        return set(SEGMENT_MS, segmentMs);
    }

    /**
     * Sets {@code segment.jitter.ms}.
     *
     * @param segmentJitterMs the maximum jitter, 0 for none
     * @return this builder
     */
    public LogConfig.Builder segmentJitterMs(final long segmentJitterMs) {
        return set(SEGMENT_JITTER_MS, segmentJitterMs);
    }

    /**
     * Sets {@code segment.index.bytes}.
     *
     * @param segmentIndexBytes the preallocated size of each index file
     * @return this builder
     */
    public LogConfig.Builder segmentIndexBytes(final int segmentIndexBytes) {
        return set(SEGMENT_INDEX_BYTES, segmentIndexBytes);
    }

    /**
     * Sets {@code index.interval.bytes}.
     *
     * @param indexIntervalBytes log bytes between index entries
     * @return this builder
     */
    public LogConfig.Builder indexIntervalBytes(final int indexIntervalBytes) {
        return set(INDEX_INTERVAL_BYTES, indexIntervalBytes);
    }

    /**
     * Sets {@code max.message.bytes}.
     *
     * @param maxMessageBytes the largest batch accepted
     * @return this builder
     */
    public LogConfig.Builder maxMessageBytes(final int maxMessageBytes) {
        return set(MAX_MESSAGE_BYTES, maxMessageBytes);
    }

    /**
     * Sets {@code compression.type}.
     *
     * @param compressionType the codec batches are stored in
     * @return this builder
     */
    public LogConfig.Builder compressionType(final TopicCompression compressionType) {
        return set(COMPRESSION_TYPE, Objects.requireNonNull(compressionType, LogConfig.COMPRESSION_TYPE_CONFIG));
    }

    /**
     * Sets {@code compression.gzip.level}, {@code compression.lz4.level} and {@code compression.zstd.level}.
     *
     * @param gzipLevel -1 or 1 to 9
     * @param lz4Level  1 to 17
     * @param zstdLevel -131072 to 22
     * @return this builder (a level out of its range is refused by {@code build()}, naming its key)
     */
    public LogConfig.Builder compressionLevels(final int gzipLevel, final int lz4Level, final int zstdLevel) {
        set(COMPRESSION_GZIP_LEVEL, gzipLevel);
        set(COMPRESSION_LZ4_LEVEL, lz4Level);
        return set(COMPRESSION_ZSTD_LEVEL, zstdLevel);
    }

    /**
     * Sets {@code message.timestamp.type}.
     *
     * @param messageTimestampType the timestamp type
     * @return this builder
     */
    public LogConfig.Builder messageTimestampType(final TimestampType messageTimestampType) {
        return set(MESSAGE_TIMESTAMP_TYPE, messageTimestampType);
    }

    /**
     * Sets {@code retention.ms}.
     *
     * @param retentionMs retention time, -1 for forever
     * @return this builder
     */
    public LogConfig.Builder retentionMs(final long retentionMs) {
        return set(RETENTION_MS, retentionMs);
    }

    /**
     * Sets {@code retention.bytes}.
     *
     * @param retentionBytes retention size, -1 for no limit
     * @return this builder
     */
    public LogConfig.Builder retentionBytes(final long retentionBytes) {
        return set(RETENTION_BYTES, retentionBytes);
    }

    /**
     * Sets {@code message.timestamp.before.max.ms}.
     *
     * @param messageTimestampBeforeMaxMs how far before the broker's time a record timestamp may lie, 0 or more
     * @return this builder
     */
    public LogConfig.Builder messageTimestampBeforeMaxMs(final long messageTimestampBeforeMaxMs) {
        return set(MESSAGE_TIMESTAMP_BEFORE_MAX_MS, messageTimestampBeforeMaxMs);
    }

    /**
     * Sets {@code message.timestamp.after.max.ms}.
     *
     * @param messageTimestampAfterMaxMs how far after the broker's time a record timestamp may lie, 0 or more
     * @return this builder
     */
    public LogConfig.Builder messageTimestampAfterMaxMs(final long messageTimestampAfterMaxMs) {
        return set(MESSAGE_TIMESTAMP_AFTER_MAX_MS, messageTimestampAfterMaxMs);
    }

    /**
     * Sets {@value LogConfig#MAPPED_APPEND_MAX_BYTES_CONFIG}.
     *
     * @param mappedAppendMaxBytes largest append copied through the mapped tail, 0 for none
     * @return this builder
     */
    public LogConfig.Builder mappedAppendMaxBytes(final int mappedAppendMaxBytes) {
        return set(MAPPED_APPEND_MAX_BYTES, mappedAppendMaxBytes);
    }

    /**
     * Sets {@value LogConfig#READ_MAPPED_CONFIG}.
     *
     * @param readMapped read batch headers through a mapping of each segment (true) or with positional reads
     * @return this builder
     */
    public LogConfig.Builder readMapped(final boolean readMapped) {
        return set(READ_MAPPED, readMapped);
    }

    /**
     * Sets {@code flush.messages}.
     *
     * @param flushMessages unflushed messages that force an fsync
     * @return this builder
     */
    public LogConfig.Builder flushMessages(final long flushMessages) {
        return set(FLUSH_MESSAGES, flushMessages);
    }

    /**
     * Sets {@code flush.ms}.
     *
     * @param flushMs age of unflushed data that forces an fsync
     * @return this builder
     */
    public LogConfig.Builder flushMs(final long flushMs) {
        return set(FLUSH_MS, flushMs);
    }

    /**
     * Sets {@code producer.id.expiration.ms}.
     *
     * @param producerIdExpirationMs how long a producer id's state outlives its last batch
     * @return this builder
     */
    public LogConfig.Builder producerIdExpirationMs(final long producerIdExpirationMs) {
        return set(PRODUCER_ID_EXPIRATION_MS, producerIdExpirationMs);
    }

    /**
     * Sets {@code producer.id.expiration.check.interval.ms}.
     *
     * @param intervalMs how often expired producer ids are removed
     * @return this builder
     */
    public LogConfig.Builder producerIdExpirationCheckIntervalMs(final long intervalMs) {
        return set(PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS, intervalMs);
    }

    /**
     * Sets {@code file.delete.delay.ms}.
     *
     * @param fileDeleteDelayMs delay before a deleted segment is unlinked
     * @return this builder
     */
    public LogConfig.Builder fileDeleteDelayMs(final long fileDeleteDelayMs) {
        return set(FILE_DELETE_DELAY_MS, fileDeleteDelayMs);
    }

    /**
     * Sets {@value LogConfig#CORRUPTION_POLICY_CONFIG} (Seglog-specific).
     *
     * @param corruptionPolicy what recovery does with corruption that is not a torn tail
     * @return this builder
     */
    public LogConfig.Builder corruptionPolicy(final CorruptionPolicy corruptionPolicy) {
        return set(CORRUPTION_POLICY, Objects.requireNonNull(corruptionPolicy, LogConfig.CORRUPTION_POLICY_CONFIG));
    }

    /**
     * Sets {@code min.insync.replicas}.
     *
     * @param minInsyncReplicas the fewest in-sync replicas for an acks=all write, at least 1
     * @return this builder
     */
    public LogConfig.Builder minInsyncReplicas(final int minInsyncReplicas) {
        return set(MIN_INSYNC_REPLICAS, minInsyncReplicas);
    }

    /**
     * Sets {@code unclean.leader.election.enable}.
     *
     * @param enable whether a replica outside the ISR may become leader
     * @return this builder
     */
    public LogConfig.Builder uncleanLeaderElectionEnable(final boolean enable) {
        return set(UNCLEAN_LEADER_ELECTION_ENABLE, enable);
    }

    /**
     * The validation pass: every value against its key's range (Kafka's ranges), then the cross-field rules.
     *
     * @return the immutable configuration
     * @throws IllegalArgumentException naming the key (Kafka's property name) and the value of the first
     *                                  invalid setting
     */
    public LogConfig build() {
        final Object[] copy = values.clone();
        KEYS.validate(copy);
        return new LogConfig(copy);
    }
}
