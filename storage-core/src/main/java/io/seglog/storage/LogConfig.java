package io.seglog.storage;

import static io.seglog.storage.LogConfigKeys.*;

import io.seglog.storage.config.ConfigDef;
import io.seglog.storage.config.ConfigKey;
import io.seglog.storage.config.TopicKeyNames;
import io.seglog.storage.segment.SegmentConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Configuration of one partition log: segment size and age, index sizing, message limits, timestamp type,
 * retention and flush policy. Immutable; built by {@link #builder()} or read from Kafka's topic-level
 * property names by {@link #fromProperties(Map)}, so a Kafka operator's configuration carries over.
 *
 * <p>Every default is Kafka 4.4.0's (checked against {@code org.apache.kafka.storage.internals.log.LogConfig}
 * by a test). Each key is defined once, in one table ({@code LogConfigKeys}: name, type, default, range,
 * documentation, reader), which drives the builder's defaults, {@link #fromProperties}, the validation pass in
 * {@link Builder#build()} (ranges, then cross-field rules), {@link #equals}, {@link #hashCode} and
 * {@link #toString}; adding a key is its constants (here), its table entry, its accessor (here) and its builder
 * method ({@code LogConfigBuilder}). Every message names the key (Kafka's property name) and the rejected value.
 *
 * <p>Who owns what: this class owns the immutable values of one configuration and the public names and defaults
 * of its keys; {@code LogConfigKeys} owns the key table and its cross-field rules; {@code LogConfigBuilder}, the
 * state behind {@link Builder}, owns the values being collected until {@link Builder#build()}.
 *
 * <p>Thread-safety: immutable, safe to share.
 */
public final class LogConfig {
    /** Kafka's {@code segment.bytes}: the size at which a segment is rolled. */
    public static final String SEGMENT_BYTES_CONFIG = "segment.bytes";
    /**
     * Kafka 4.4's {@code internal.segment.bytes}: overrides {@code segment.bytes} without its 1 MiB minimum,
     * for tests that need small segments.
     */
    public static final String INTERNAL_SEGMENT_BYTES_CONFIG = "internal.segment.bytes";
    /** Kafka's {@code segment.ms}: the record-time age at which a segment is rolled. */
    public static final String SEGMENT_MS_CONFIG = "segment.ms";
    /** Kafka's {@code segment.jitter.ms}: the maximum random jitter subtracted from {@code segment.ms}. */
    public static final String SEGMENT_JITTER_MS_CONFIG = "segment.jitter.ms";
    /** Kafka's {@code segment.index.bytes}: the preallocated size of each offset and time index. */
    public static final String SEGMENT_INDEX_BYTES_CONFIG = "segment.index.bytes";
    /** Kafka's {@code index.interval.bytes}: log bytes between two sparse index entries. */
    public static final String INDEX_INTERVAL_BYTES_CONFIG = "index.interval.bytes";
    /** Kafka's {@code compression.type}: the codec batches are stored in ({@link TopicCompression}). */
    public static final String COMPRESSION_TYPE_CONFIG = "compression.type";
    /** Kafka's {@code compression.gzip.level}: the level of a leader's gzip re-compression. */
    public static final String COMPRESSION_GZIP_LEVEL_CONFIG = "compression.gzip.level";
    /** Kafka's {@code compression.lz4.level}: the level of a leader's lz4 re-compression. */
    public static final String COMPRESSION_LZ4_LEVEL_CONFIG = "compression.lz4.level";
    /** Kafka's {@code compression.zstd.level}: the level of a leader's zstd re-compression. */
    public static final String COMPRESSION_ZSTD_LEVEL_CONFIG = "compression.zstd.level";
    /** Kafka's {@code max.message.bytes}: the largest record batch accepted. */
    public static final String MAX_MESSAGE_BYTES_CONFIG = "max.message.bytes";
    /** Kafka's {@code message.timestamp.type}: {@code CreateTime} or {@code LogAppendTime}. */
    public static final String MESSAGE_TIMESTAMP_TYPE_CONFIG = "message.timestamp.type";
    /**
     * Kafka's {@code message.timestamp.before.max.ms}: with {@code CreateTime}, how far a record's timestamp may
     * lie before the broker's time.
     */
    public static final String MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG = TopicKeyNames.MESSAGE_TIMESTAMP_BEFORE_MAX_MS;
    /**
     * Kafka's {@code message.timestamp.after.max.ms}: with {@code CreateTime}, how far a record's timestamp may
     * lie after the broker's time.
     */
    public static final String MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG = TopicKeyNames.MESSAGE_TIMESTAMP_AFTER_MAX_MS;
    /** Kafka's {@code retention.ms}; -1 keeps data forever. */
    public static final String RETENTION_MS_CONFIG = "retention.ms";
    /** Kafka's {@code retention.bytes}; -1 means no size limit. */
    public static final String RETENTION_BYTES_CONFIG = "retention.bytes";
    /** Kafka's {@code flush.messages}: unflushed messages that force an fsync. */
    public static final String FLUSH_MESSAGES_CONFIG = "flush.messages";
    /** Kafka's {@code flush.ms}: the age of unflushed data that forces an fsync. */
    public static final String FLUSH_MS_CONFIG = "flush.ms";
    /** Kafka's {@code producer.id.expiration.ms}: how long a producer id's state outlives its last batch. */
    public static final String PRODUCER_ID_EXPIRATION_MS_CONFIG = "producer.id.expiration.ms";
    /** Kafka's {@code producer.id.expiration.check.interval.ms}: how often expired producer ids are removed. */
    public static final String PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS_CONFIG =
        "producer.id.expiration.check.interval.ms";
    /** Kafka's {@code file.delete.delay.ms}: delay between renaming a segment to .deleted and unlinking it. */
    public static final String FILE_DELETE_DELAY_MS_CONFIG = "file.delete.delay.ms";
    /**
     * Seglog-specific (Kafka has no such key): appends of at most this many bytes are copied into a shared
     * mapping of the active segment's tail instead of costing a {@code write} call each (default
     * {@value #DEFAULT_MAPPED_APPEND_MAX_BYTES}); larger appends, or all with 0, are written with
     * {@code FileChannel.write}. The mapping makes the {@code .log} file longer than its data
     * until the segment rolls or closes (then it is trimmed); after a crash the zero tail is a torn tail that
     * recovery truncates.
     */
    public static final String MAPPED_APPEND_MAX_BYTES_CONFIG = "seglog.mapped.append.max.bytes";
    /**
     * Seglog-specific (Kafka has no such key): what crash recovery does with corruption that is not a torn
     * tail, {@code fail} (the default) or {@code truncate}. See {@link CorruptionPolicy}.
     */
    public static final String CORRUPTION_POLICY_CONFIG = TopicKeyNames.CORRUPTION_POLICY;
    /**
     * Kafka's {@code cleanup.policy}: {@code delete} (the default), {@code compact} or both. With
     * {@code compact}, a {@link LogManager} with {@code log.cleaner.enable} compacts the log (see
     * {@code docs/cleaner.md}); the policy also decides what the log accepts and keeps (see {@link CleanupPolicy}).
     */
    public static final String CLEANUP_POLICY_CONFIG = "cleanup.policy";
    /**
     * Seglog-specific (Kafka has no such key): readers read batch headers (offset lookups, slice ends, timestamp
     * searches) through a read-only mapping of each segment's data file instead of a {@code pread} each;
     * {@code true} by default. The mapping costs address space only (it never extends a file); {@code false}
     * reads every header with a positional read.
     */
    public static final String READ_MAPPED_CONFIG = "seglog.read.mapped";
    /**
     * Kafka's {@code min.insync.replicas}: the fewest in-sync replicas for an {@code acks=all} write. Read by the
     * replication layer; validated here because a topic's configuration carries it.
     */
    public static final String MIN_INSYNC_REPLICAS_CONFIG = "min.insync.replicas";
    /**
     * Kafka's {@code unclean.leader.election.enable}: whether a replica outside the ISR may become leader. Read by
     * the replication layer; validated here because a topic's configuration carries it.
     */
    public static final String UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG = "unclean.leader.election.enable";

    /** Kafka's {@code min.cleanable.dirty.ratio}: the dirty share of a compacted log above which it is cleaned. */
    public static final String MIN_CLEANABLE_DIRTY_RATIO_CONFIG = "min.cleanable.dirty.ratio";
    /** Kafka's {@code min.compaction.lag.ms}: how old a record must be before the cleaner may remove it. */
    public static final String MIN_COMPACTION_LAG_MS_CONFIG = "min.compaction.lag.ms";
    /** Kafka's {@code max.compaction.lag.ms}: how long a record may stay uncompacted. */
    public static final String MAX_COMPACTION_LAG_MS_CONFIG = "max.compaction.lag.ms";
    /** Kafka's {@code delete.retention.ms}: how long a tombstone survives cleaning. */
    public static final String DELETE_RETENTION_MS_CONFIG = "delete.retention.ms";
    /** Kafka's default {@code min.cleanable.dirty.ratio}. */
    public static final double DEFAULT_MIN_CLEANABLE_DIRTY_RATIO = 0.5;
    /** Kafka's default {@code delete.retention.ms}: one day. */
    public static final long DEFAULT_DELETE_RETENTION_MS = 24L * 60 * 60 * 1000;
    /** Kafka's default {@code segment.bytes}: 1 GiB. */
    public static final int DEFAULT_SEGMENT_BYTES = 1024 * 1024 * 1024;
    /** Kafka 4.4's minimum {@code segment.bytes}: 1 MiB (smaller values only through the internal key or the builder). */
    public static final int MIN_KAFKA_SEGMENT_BYTES = 1024 * 1024;
    /** The smallest segment the builder accepts: one empty v2 batch header, so any segment can hold a batch. */
    public static final int MIN_SEGMENT_BYTES = 61;
    /** Kafka's default {@code segment.ms}: 7 days. */
    public static final long DEFAULT_SEGMENT_MS = 7L * 24 * 60 * 60 * 1000;
    /** Kafka's default {@code segment.jitter.ms}: none. */
    public static final long DEFAULT_SEGMENT_JITTER_MS = 0;
    /** Kafka's default {@code segment.index.bytes}: 10 MiB. */
    public static final int DEFAULT_SEGMENT_INDEX_BYTES = 10 * 1024 * 1024;
    /** Kafka's minimum {@code segment.index.bytes}. */
    public static final int MIN_SEGMENT_INDEX_BYTES = 4;
    /** Kafka's default {@code index.interval.bytes}: 4 KiB, which bounds the header scan after an index lookup. */
    public static final int DEFAULT_INDEX_INTERVAL_BYTES = 4096;
    /** Kafka's default {@code max.message.bytes}: 1 MiB plus the 12-byte log overhead. */
    public static final int DEFAULT_MAX_MESSAGE_BYTES = 1024 * 1024 + 12;
    /** Kafka 4.4's default {@code message.timestamp.before.max.ms}: unbounded. */
    public static final long DEFAULT_MESSAGE_TIMESTAMP_BEFORE_MAX_MS = Long.MAX_VALUE;
    /** Kafka 4.4's default {@code message.timestamp.after.max.ms}: 1 hour (clock skew a producer may have). */
    public static final long DEFAULT_MESSAGE_TIMESTAMP_AFTER_MAX_MS = 60L * 60 * 1000;
    /** Kafka's default {@code retention.ms}: 7 days. */
    public static final long DEFAULT_RETENTION_MS = 7L * 24 * 60 * 60 * 1000;
    /** Kafka's default {@code retention.bytes}: unlimited. */
    public static final long DEFAULT_RETENTION_BYTES = -1;
    /** Kafka's default {@code flush.messages}: never (durability by replication). */
    public static final long DEFAULT_FLUSH_MESSAGES = Long.MAX_VALUE;
    /** Kafka's default {@code flush.ms}: never. */
    public static final long DEFAULT_FLUSH_MS = Long.MAX_VALUE;
    /** Kafka's default {@code producer.id.expiration.ms}: one day. */
    public static final long DEFAULT_PRODUCER_ID_EXPIRATION_MS = 86_400_000L;
    /** Kafka's default {@code producer.id.expiration.check.interval.ms}: ten minutes. */
    public static final long DEFAULT_PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS = 600_000L;
    /**
     * Default {@value #MAPPED_APPEND_MAX_BYTES_CONFIG}: appends up to 4 KiB go through the mapping, where a copy
     * costs less than a {@code write} call (measured in storage-bench's SeglogAppendBench); larger ones are
     * written. 64 KiB makes 11 KB appends faster but halves durable group-commit throughput (docs/performance.md).
     */
    public static final int DEFAULT_MAPPED_APPEND_MAX_BYTES = 4096;
    /** Default {@value #READ_MAPPED_CONFIG}: on. */
    public static final boolean DEFAULT_READ_MAPPED = true;
    /** Kafka's default {@code file.delete.delay.ms}: 1 minute. */
    public static final long DEFAULT_FILE_DELETE_DELAY_MS = 60_000;
    /** Kafka's default {@code min.insync.replicas}: 1. */
    public static final int DEFAULT_MIN_INSYNC_REPLICAS = 1;
    /** Kafka's default {@code unclean.leader.election.enable}: false. */
    public static final boolean DEFAULT_UNCLEAN_LEADER_ELECTION_ENABLE = false;

    private static final Logger LOG = LoggerFactory.getLogger(LogConfig.class);

    /**
     * The table of every key this class reads, for the configuration reference and for components that read a
     * topic-level key as a broker-wide setting ({@code min.insync.replicas}, {@code unclean.leader.election.enable}).
     *
     * @return the table
     */
    public static ConfigDef configDef() {
        return KEYS;
    }

    private final Object[] values;
    /** Derived once: the plain values the segment layer takes. */
    private final SegmentConfig segmentConfig;

    LogConfig(final Object[] values) {
        this.values = values;
        this.segmentConfig = new SegmentConfig(segmentBytes(), segmentMs(), segmentIndexBytes(), indexIntervalBytes(),
            mappedAppendMaxBytes(), readMapped(), corruptionPolicy() == CorruptionPolicy.TRUNCATE);
    }

    private <T> T get(final ConfigKey<T> key) {
        return ConfigDef.get(values, key);
    }

    /**
     * A builder holding Kafka's defaults.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder(KEYS.defaults());
    }

    /**
     * A configuration with every value at Kafka's default.
     *
     * @return the default configuration
     */
    public static LogConfig defaults() {
        return builder().build();
    }

    /**
     * Reads Kafka's topic-level property names; keys that are absent keep Kafka's defaults. Values may be strings
     * (as in a properties file), numbers or booleans. Keys this class does not know are reported in one WARN line
     * (as Kafka's "supplied but isn't a known config"), not refused: a Kafka configuration has many that concern
     * the broker, not the log.
     *
     * <p>As in Kafka 4.4, {@code segment.bytes} must be at least 1 MiB; {@code internal.segment.bytes}, when
     * present, overrides it without that minimum.
     *
     * @param properties Kafka property names to values
     * @return the validated configuration
     * @throws IllegalArgumentException naming the key and value of the first invalid entry
     */
    public static LogConfig fromProperties(final Map<String, ?> properties) {
        return parse(KEYS.defaults(), properties);
    }

    /**
     * This configuration with Kafka topic-level properties laid over it, by the rules of {@link #fromProperties}
     * (a topic's overrides over its broker's defaults, as Kafka's {@code LogConfig.fromProps(defaults, overrides)}).
     *
     * @param overrides Kafka property names to values
     * @return the validated configuration
     * @throws IllegalArgumentException naming the key and value of the first invalid entry
     */
    public LogConfig withProperties(final Map<String, ?> overrides) {
        return parse(values.clone(), overrides);
    }

    /**
     * Every key's value as a property would spell it (Kafka's text: {@code 604800000}, {@code CreateTime},
     * {@code delete}), in table order; the Seglog-specific keys included.
     *
     * @return key name to value text, ordered
     */
    public Map<String, String> toProperties() {
        return KEYS.toProperties(values);
    }

    private static LogConfig parse(final Object[] values, final Map<String, ?> properties) {
        Objects.requireNonNull(properties, "properties");
        final Map<String, Object> known = new HashMap<>(properties);
        final Object internal = known.remove(INTERNAL_SEGMENT_BYTES_CONFIG);
        final List<String> unknown = KEYS.parse(known, values);
        if (known.containsKey(SEGMENT_BYTES_CONFIG) && ConfigDef.get(values, SEGMENT_BYTES) < MIN_KAFKA_SEGMENT_BYTES) {
            throw new IllegalArgumentException(SEGMENT_BYTES_CONFIG + "=" + ConfigDef.get(values, SEGMENT_BYTES)
                + " must be at least " + MIN_KAFKA_SEGMENT_BYTES + " (" + INTERNAL_SEGMENT_BYTES_CONFIG
                + " sets smaller segments)");
        }
        if (internal != null) {
            ConfigDef.set(values, SEGMENT_BYTES, SEGMENT_BYTES.fromProperty(internal));
        }
        if (!unknown.isEmpty()) {
            LOG.warn("These configurations were supplied but are not known log configs: {}", unknown);
        }
        return new Builder(values).build();
    }

    /**
     * The keys of {@code properties} this class does not read (what {@link #fromProperties} reports), sorted.
     *
     * @param properties property names to values
     * @return the unknown names
     */
    public static List<String> unknownKeys(final Map<String, ?> properties) {
        final List<String> unknown = new ArrayList<>(KEYS.unknown(properties.keySet()));
        unknown.remove(INTERNAL_SEGMENT_BYTES_CONFIG);
        return List.copyOf(unknown);
    }

    /**
     * The names of the keys this class reads, in table order (Kafka's names where Kafka has the key).
     *
     * @return the names
     */
    public static List<String> keyNames() {
        final List<String> names = new ArrayList<>(KEYS.names());
        names.add(INTERNAL_SEGMENT_BYTES_CONFIG);
        return List.copyOf(names);
    }

    /**
     * The size in bytes at which the active segment is rolled ({@code segment.bytes}).
     *
     * @return bytes
     */
    public int segmentBytes() {
        return get(SEGMENT_BYTES);
    }

    /**
     * The record-time age at which the active segment is rolled ({@code segment.ms}).
     *
     * @return milliseconds
     */
    public long segmentMs() {
        return get(SEGMENT_MS);
    }

    /**
     * The maximum jitter subtracted from {@code segment.ms} per segment ({@code segment.jitter.ms}).
     *
     * @return milliseconds
     */
    public long segmentJitterMs() {
        return get(SEGMENT_JITTER_MS);
    }

    /**
     * The preallocated size of each index file ({@code segment.index.bytes}).
     *
     * @return bytes
     */
    public int segmentIndexBytes() {
        return get(SEGMENT_INDEX_BYTES);
    }

    /**
     * Log bytes between two index entries ({@code index.interval.bytes}).
     *
     * @return bytes
     */
    public int indexIntervalBytes() {
        return get(INDEX_INTERVAL_BYTES);
    }

    /**
     * The largest record batch accepted ({@code max.message.bytes}).
     *
     * @return bytes
     */
    public int maxMessageBytes() {
        return get(MAX_MESSAGE_BYTES);
    }

    /**
     * The codec batches are stored in ({@code compression.type}).
     *
     * @return {@link TopicCompression#PRODUCER} to keep each producer's
     */
    public TopicCompression compressionType() {
        return get(COMPRESSION_TYPE);
    }

    /**
     * The gzip level of a leader's re-compression ({@code compression.gzip.level}).
     *
     * @return -1 (zlib's default) or 1 to 9
     */
    public int compressionGzipLevel() {
        return get(COMPRESSION_GZIP_LEVEL);
    }

    /**
     * The lz4 level of a leader's re-compression ({@code compression.lz4.level}).
     *
     * @return 1 to 17
     */
    public int compressionLz4Level() {
        return get(COMPRESSION_LZ4_LEVEL);
    }

    /**
     * The zstd level of a leader's re-compression ({@code compression.zstd.level}).
     *
     * @return -131072 to 22
     */
    public int compressionZstdLevel() {
        return get(COMPRESSION_ZSTD_LEVEL);
    }

    /**
     * Whose timestamps the log keeps ({@code message.timestamp.type}).
     *
     * @return the timestamp type
     */
    public TimestampType messageTimestampType() {
        return get(MESSAGE_TIMESTAMP_TYPE);
    }

    /**
     * How long segments are kept ({@code retention.ms}).
     *
     * @return milliseconds, -1 for forever
     */
    public long retentionMs() {
        return get(RETENTION_MS);
    }

    /**
     * The size above which the oldest segments are deleted ({@code retention.bytes}).
     *
     * @return bytes, negative for no limit
     */
    public long retentionBytes() {
        return get(RETENTION_BYTES);
    }

    /**
     * How far before the broker's time a {@code CreateTime} record timestamp may lie
     * ({@code message.timestamp.before.max.ms}).
     *
     * @return milliseconds
     */
    public long messageTimestampBeforeMaxMs() {
        return get(MESSAGE_TIMESTAMP_BEFORE_MAX_MS);
    }

    /**
     * How far after the broker's time a {@code CreateTime} record timestamp may lie
     * ({@code message.timestamp.after.max.ms}).
     *
     * @return milliseconds
     */
    public long messageTimestampAfterMaxMs() {
        return get(MESSAGE_TIMESTAMP_AFTER_MAX_MS);
    }

    /**
     * Unflushed messages that force an fsync ({@code flush.messages}).
     *
     * @return messages
     */
    public long flushMessages() {
        return get(FLUSH_MESSAGES);
    }

    /**
     * The age of unflushed data that forces an fsync ({@code flush.ms}).
     *
     * @return milliseconds
     */
    public long flushMs() {
        return get(FLUSH_MS);
    }

    /**
     * How long a producer id's state outlives its last batch ({@code producer.id.expiration.ms}).
     *
     * @return milliseconds
     */
    public long producerIdExpirationMs() {
        return get(PRODUCER_ID_EXPIRATION_MS);
    }

    /**
     * How often expired producer ids are removed ({@code producer.id.expiration.check.interval.ms}).
     *
     * @return milliseconds
     */
    public long producerIdExpirationCheckIntervalMs() {
        return get(PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS);
    }

    /**
     * The delay between renaming a deleted segment and unlinking it ({@code file.delete.delay.ms}).
     *
     * @return milliseconds
     */
    public long fileDeleteDelayMs() {
        return get(FILE_DELETE_DELAY_MS);
    }

    /**
     * What recovery does with corruption that is not a torn tail ({@value #CORRUPTION_POLICY_CONFIG}).
     *
     * @return the policy
     */
    public CorruptionPolicy corruptionPolicy() {
        return get(CORRUPTION_POLICY);
    }

    /**
     * The largest append copied through the mapped tail ({@value #MAPPED_APPEND_MAX_BYTES_CONFIG}).
     *
     * @return bytes, 0 when appends are always written
     */
    public int mappedAppendMaxBytes() {
        return get(MAPPED_APPEND_MAX_BYTES);
    }

    /**
     * Kafka's {@code cleanup.policy}.
     *
     * @return the policy
     */
    public CleanupPolicy cleanupPolicy() {
        return get(CLEANUP_POLICY);
    }

    /**
     * Kafka's {@code min.cleanable.dirty.ratio}.
     *
     * @return the ratio in [0, 1]
     */
    public double minCleanableDirtyRatio() {
        return get(MIN_CLEANABLE_DIRTY_RATIO);
    }

    /**
     * Kafka's {@code min.compaction.lag.ms}.
     *
     * @return milliseconds
     */
    public long minCompactionLagMs() {
        return get(MIN_COMPACTION_LAG_MS);
    }

    /**
     * Kafka's {@code max.compaction.lag.ms}.
     *
     * @return milliseconds, {@link Long#MAX_VALUE} for none
     */
    public long maxCompactionLagMs() {
        return get(MAX_COMPACTION_LAG_MS);
    }

    /**
     * Kafka's {@code delete.retention.ms}.
     *
     * @return milliseconds
     */
    public long deleteRetentionMs() {
        return get(DELETE_RETENTION_MS);
    }

    /**
     * Whether readers read batch headers through a mapping of each segment ({@value #READ_MAPPED_CONFIG}).
     *
     * @return true when mapped
     */
    public boolean readMapped() {
        return get(READ_MAPPED);
    }

    /**
     * Kafka's {@code min.insync.replicas}, for the replication layer.
     *
     * @return at least 1
     */
    public int minInsyncReplicas() {
        return get(MIN_INSYNC_REPLICAS);
    }

    /**
     * Kafka's {@code unclean.leader.election.enable}, for the replication layer.
     *
     * @return whether unclean elections are allowed
     */
    public boolean uncleanLeaderElectionEnable() {
        return get(UNCLEAN_LEADER_ELECTION_ENABLE);
    }

    /**
     * The values the segment layer needs, as its own plain record (it does not depend on this API class).
     *
     * @return the segment configuration
     */
    SegmentConfig segmentConfig() {
        return segmentConfig;
    }

    /**
     * A builder holding this configuration's values.
     *
     * @return a new builder
     */
    public Builder toBuilder() {
        return new Builder(values.clone());
    }

    @Override
    public boolean equals(final Object o) {
        return this == o || o instanceof LogConfig && ConfigDef.equal(values, ((LogConfig) o).values);
    }

    @Override
    public int hashCode() {
        return ConfigDef.hash(values);
    }

    @Override
    public String toString() {
        return KEYS.toString(values);
    }

    /**
     * Collects values, each checked against its key's range as it is set, then runs the validation pass in
     * {@link #build()}. Not thread-safe.
     */
    public static final class Builder extends LogConfigBuilder {
        private Builder(final Object[] values) {
            super(values);
        }

        @Override
        Builder self() {
            return this;
        }
    }
}
