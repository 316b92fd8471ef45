package io.seglog.storage;

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
 * by a test). Each key is defined once, in one table ({@code KEYS} below: name, type, default, range,
 * documentation, reader), which drives the builder's defaults, {@link #fromProperties}, the validation pass in
 * {@link Builder#build()} (ranges, then cross-field rules), {@link #equals}, {@link #hashCode} and
 * {@link #toString}; adding a key is its constants, its table entry, its accessor and its builder method, all in
 * this file. Every message names the key (Kafka's property name) and the rejected value.
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

    // ---- The table: one definition per key, in the order toString lists them. ----
    private static final ConfigDef KEYS = new ConfigDef("LogConfig");
    private static final ConfigKey<Integer> SEGMENT_BYTES = KEYS.intKey(SEGMENT_BYTES_CONFIG, DEFAULT_SEGMENT_BYTES,
        MIN_SEGMENT_BYTES, "the size at which the active segment rolls", "segments");
    private static final ConfigKey<Long> SEGMENT_MS = KEYS.longKey(SEGMENT_MS_CONFIG, DEFAULT_SEGMENT_MS, 1,
        "the record-time age at which the active segment rolls", "segments");
    private static final ConfigKey<Long> SEGMENT_JITTER_MS = KEYS.longKey(SEGMENT_JITTER_MS_CONFIG,
        DEFAULT_SEGMENT_JITTER_MS, 0, "the largest random jitter subtracted from segment.ms", "segments");
    private static final ConfigKey<Integer> SEGMENT_INDEX_BYTES = KEYS.intKey(SEGMENT_INDEX_BYTES_CONFIG,
        DEFAULT_SEGMENT_INDEX_BYTES, MIN_SEGMENT_INDEX_BYTES, "the preallocated size of each index file", "segments");
    private static final ConfigKey<Integer> INDEX_INTERVAL_BYTES = KEYS.intKey(INDEX_INTERVAL_BYTES_CONFIG,
        DEFAULT_INDEX_INTERVAL_BYTES, 0, "log bytes between two sparse index entries", "segments");
    private static final ConfigKey<Integer> MAX_MESSAGE_BYTES = KEYS.intKey(MAX_MESSAGE_BYTES_CONFIG,
        DEFAULT_MAX_MESSAGE_BYTES, 0, "the largest record batch an append accepts", "append");
    private static final ConfigKey<TimestampType> MESSAGE_TIMESTAMP_TYPE = KEYS.namedKey(MESSAGE_TIMESTAMP_TYPE_CONFIG,
        TimestampType.class, TimestampType.CREATE_TIME, TimestampType::fromKafkaName, TimestampType::kafkaName,
        "CreateTime keeps the producer's timestamps, LogAppendTime stamps the broker's", "append");
    private static final ConfigKey<TopicCompression> COMPRESSION_TYPE = KEYS.namedKey(COMPRESSION_TYPE_CONFIG,
        TopicCompression.class, TopicCompression.PRODUCER, TopicCompression::fromKafkaName, TopicCompression::kafkaName,
        "producer, uncompressed, gzip, snappy, lz4 or zstd: producer keeps each producer's codec, another"
            + " re-compresses", "append");
    private static final ConfigKey<Integer> COMPRESSION_GZIP_LEVEL = levelKey(COMPRESSION_GZIP_LEVEL_CONFIG, -1, 1, 9,
        "the gzip level of re-compression; -1 is zlib's default");
    private static final ConfigKey<Integer> COMPRESSION_LZ4_LEVEL = levelKey(COMPRESSION_LZ4_LEVEL_CONFIG, 9, 1, 17,
        "the lz4 level of re-compression; 9 is lz4's fast compressor");
    private static final ConfigKey<Integer> COMPRESSION_ZSTD_LEVEL = levelKey(COMPRESSION_ZSTD_LEVEL_CONFIG, 3, -131072,
        22, "the zstd level of re-compression");
    private static final ConfigKey<Long> MESSAGE_TIMESTAMP_BEFORE_MAX_MS = KEYS.longKey(
        MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG, DEFAULT_MESSAGE_TIMESTAMP_BEFORE_MAX_MS, 0,
        "how far before the broker's time a CreateTime timestamp may lie", "append");
    private static final ConfigKey<Long> MESSAGE_TIMESTAMP_AFTER_MAX_MS = KEYS.longKey(
        MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG, DEFAULT_MESSAGE_TIMESTAMP_AFTER_MAX_MS, 0,
        "how far after the broker's time a CreateTime timestamp may lie", "append");
    private static final ConfigKey<Long> RETENTION_MS = KEYS.longKey(RETENTION_MS_CONFIG, DEFAULT_RETENTION_MS, -1,
        "how long segments are kept, -1 forever", "retention");
    private static final ConfigKey<Long> RETENTION_BYTES = KEYS.longKey(RETENTION_BYTES_CONFIG,
        DEFAULT_RETENTION_BYTES, Long.MIN_VALUE, "the size above which the oldest segments go, negative for none",
        "retention");
    private static final ConfigKey<Long> FLUSH_MESSAGES = KEYS.longKey(FLUSH_MESSAGES_CONFIG, DEFAULT_FLUSH_MESSAGES,
        1, "unflushed messages that force an fsync", "durability");
    private static final ConfigKey<Long> FLUSH_MS = KEYS.longKey(FLUSH_MS_CONFIG, DEFAULT_FLUSH_MS, 0,
        "the age of unflushed data that forces an fsync", "durability");
    private static final ConfigKey<Long> PRODUCER_ID_EXPIRATION_MS = KEYS.longKey(PRODUCER_ID_EXPIRATION_MS_CONFIG,
        DEFAULT_PRODUCER_ID_EXPIRATION_MS, 1, "how long a producer id's state outlives its last batch", "producers");
    private static final ConfigKey<Long> PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS = KEYS.longKey(
        PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS_CONFIG, DEFAULT_PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS, 1,
        "how often expired producer ids are removed (on the log's scheduler)", "producers");
    private static final ConfigKey<Long> FILE_DELETE_DELAY_MS = KEYS.longKey(FILE_DELETE_DELAY_MS_CONFIG,
        DEFAULT_FILE_DELETE_DELAY_MS, 0, "the delay between renaming a segment .deleted and unlinking it",
        "retention");
    private static final ConfigKey<CorruptionPolicy> CORRUPTION_POLICY = KEYS.namedKey(CORRUPTION_POLICY_CONFIG,
        CorruptionPolicy.class, CorruptionPolicy.FAIL, CorruptionPolicy::fromConfigName, CorruptionPolicy::configName,
        "fail or truncate: what recovery does with corruption that is not a torn tail", "recovery");
    private static final ConfigKey<Integer> MAPPED_APPEND_MAX_BYTES = KEYS.intKey(MAPPED_APPEND_MAX_BYTES_CONFIG,
        DEFAULT_MAPPED_APPEND_MAX_BYTES, 0, "the largest append copied through the mapped tail, 0 for none",
        "segments");
    private static final ConfigKey<CleanupPolicy> CLEANUP_POLICY = KEYS.namedKey(CLEANUP_POLICY_CONFIG,
        CleanupPolicy.class, CleanupPolicy.DELETE, CleanupPolicy::fromKafkaName, CleanupPolicy::kafkaName,
        "delete, compact or both: what retention deletes and whether offsets may have gaps", "retention, append");
    private static final ConfigKey<Double> MIN_CLEANABLE_DIRTY_RATIO = KEYS.doubleKey(MIN_CLEANABLE_DIRTY_RATIO_CONFIG,
        DEFAULT_MIN_CLEANABLE_DIRTY_RATIO, 0, 1, "the dirty share above which a compacted log is cleaned", "cleaner");
    private static final ConfigKey<Long> MIN_COMPACTION_LAG_MS = KEYS.longKey(MIN_COMPACTION_LAG_MS_CONFIG, 0, 0,
        "the age below which records are not compacted", "cleaner");
    private static final ConfigKey<Long> MAX_COMPACTION_LAG_MS = KEYS.longKey(MAX_COMPACTION_LAG_MS_CONFIG,
        Long.MAX_VALUE, 1, "the age above which a dirty segment is compacted whatever the ratio", "cleaner");
    private static final ConfigKey<Long> DELETE_RETENTION_MS = KEYS.longKey(DELETE_RETENTION_MS_CONFIG,
        DEFAULT_DELETE_RETENTION_MS, 0, "how long tombstones survive cleaning", "cleaner");
    private static final ConfigKey<Boolean> READ_MAPPED = KEYS.booleanKey(READ_MAPPED_CONFIG, DEFAULT_READ_MAPPED,
        "read batch headers through a read-only mapping of each segment", "reads");
    private static final ConfigKey<Integer> MIN_INSYNC_REPLICAS = KEYS.intKey(MIN_INSYNC_REPLICAS_CONFIG,
        DEFAULT_MIN_INSYNC_REPLICAS, 1, "the fewest in-sync replicas for an acks=all write", "replication");
    private static final ConfigKey<Boolean> UNCLEAN_LEADER_ELECTION_ENABLE = KEYS.booleanKey(
        UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG, DEFAULT_UNCLEAN_LEADER_ELECTION_ENABLE,
        "whether a replica outside the ISR may become leader", "replication");

    static {
        // Kafka's LogConfig.validateValues: records may not have to be compacted before they may be.
        KEYS.crossRule(v -> v.get(MIN_COMPACTION_LAG_MS) > v.get(MAX_COMPACTION_LAG_MS)
            ? "conflicting settings: " + MIN_COMPACTION_LAG_MS_CONFIG + "=" + v.get(MIN_COMPACTION_LAG_MS) + " > "
                + MAX_COMPACTION_LAG_MS_CONFIG + "=" + v.get(MAX_COMPACTION_LAG_MS)
            : null);
        // Each applies from a log's next append, roll, retention check or cleaner pass (PartitionLog.updateConfig);
        // these three are read only when a log opens.
        KEYS.dynamicAllBut(PRODUCER_ID_EXPIRATION_MS, PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS, CORRUPTION_POLICY);
    }

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

    private LogConfig(final Object[] values) {
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

    /** A codec level key: an int in {@code [min, max]}, or the default (which may lie outside, as gzip's -1). */
    private static ConfigKey<Integer> levelKey(final String name, final int defaultValue, final int min,
                                               final int max, final String doc) {
        return KEYS.intKey(name, defaultValue, min, max, doc, "append");
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
    public static final class Builder {
        private final Object[] values;

        private Builder(final Object[] values) {
            this.values = values;
        }

        private <T> Builder set(final ConfigKey<T> key, final T value) {
            ConfigDef.put(values, key, value); // checked in build(), so a builder may pass through a bad value
            return this;
        }

        /**
         * Sets Kafka's {@code cleanup.policy}.
         *
         * @param cleanupPolicy the policy
         * @return this builder
         */
        public Builder cleanupPolicy(final CleanupPolicy cleanupPolicy) {
            return set(CLEANUP_POLICY, Objects.requireNonNull(cleanupPolicy, "cleanupPolicy"));
        }

        /**
         * Sets Kafka's {@code min.cleanable.dirty.ratio}.
         *
         * @param ratio in [0, 1]
         * @return this builder
         */
        public Builder minCleanableDirtyRatio(final double ratio) {
            return set(MIN_CLEANABLE_DIRTY_RATIO, ratio);
        }

        /**
         * Sets Kafka's {@code min.compaction.lag.ms}.
         *
         * @param ms 0 or more
         * @return this builder
         */
        public Builder minCompactionLagMs(final long ms) {
            return set(MIN_COMPACTION_LAG_MS, ms);
        }

        /**
         * Sets Kafka's {@code max.compaction.lag.ms}.
         *
         * @param ms at least 1
         * @return this builder
         */
        public Builder maxCompactionLagMs(final long ms) {
            return set(MAX_COMPACTION_LAG_MS, ms);
        }

        /**
         * Sets Kafka's {@code delete.retention.ms}.
         *
         * @param ms 0 or more
         * @return this builder
         */
        public Builder deleteRetentionMs(final long ms) {
            return set(DELETE_RETENTION_MS, ms);
        }

        /**
         * Sets {@code segment.bytes}. Unlike {@link #fromProperties(Map)}, the builder accepts segments below
         * Kafka 4.4's 1 MiB minimum (down to {@link #MIN_SEGMENT_BYTES}), as Kafka's internal key does.
         *
         * @param segmentBytes the roll size in bytes
         * @return this builder
         */
        public Builder segmentBytes(final int segmentBytes) {
            return set(SEGMENT_BYTES, segmentBytes);
        }

        /**
         * Sets {@code segment.ms}.
         *
         * @param segmentMs the record-time span of a segment
         * @return this builder
         */
        public Builder segmentMs(final long segmentMs) {
            return set(SEGMENT_MS, segmentMs);
        }

        /**
         * Sets {@code segment.jitter.ms}.
         *
         * @param segmentJitterMs the maximum jitter, 0 for none
         * @return this builder
         */
        public Builder segmentJitterMs(final long segmentJitterMs) {
            return set(SEGMENT_JITTER_MS, segmentJitterMs);
        }

        /**
         * Sets {@code segment.index.bytes}.
         *
         * @param segmentIndexBytes the preallocated size of each index file
         * @return this builder
         */
        public Builder segmentIndexBytes(final int segmentIndexBytes) {
            return set(SEGMENT_INDEX_BYTES, segmentIndexBytes);
        }

        /**
         * Sets {@code index.interval.bytes}.
         *
         * @param indexIntervalBytes log bytes between index entries
         * @return this builder
         */
        public Builder indexIntervalBytes(final int indexIntervalBytes) {
            return set(INDEX_INTERVAL_BYTES, indexIntervalBytes);
        }

        /**
         * Sets {@code max.message.bytes}.
         *
         * @param maxMessageBytes the largest batch accepted
         * @return this builder
         */
        public Builder maxMessageBytes(final int maxMessageBytes) {
            return set(MAX_MESSAGE_BYTES, maxMessageBytes);
        }

        /**
         * Sets {@code compression.type}.
         *
         * @param compressionType the codec batches are stored in
         * @return this builder
         */
        public Builder compressionType(final TopicCompression compressionType) {
            return set(COMPRESSION_TYPE, Objects.requireNonNull(compressionType, COMPRESSION_TYPE_CONFIG));
        }

        /**
         * Sets {@code compression.gzip.level}, {@code compression.lz4.level} and {@code compression.zstd.level}.
         *
         * @param gzipLevel -1 or 1 to 9
         * @param lz4Level  1 to 17
         * @param zstdLevel -131072 to 22
         * @return this builder (a level out of its range is refused by {@code build()}, naming its key)
         */
        public Builder compressionLevels(final int gzipLevel, final int lz4Level, final int zstdLevel) {
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
        public Builder messageTimestampType(final TimestampType messageTimestampType) {
            return set(MESSAGE_TIMESTAMP_TYPE, messageTimestampType);
        }

        /**
         * Sets {@code retention.ms}.
         *
         * @param retentionMs retention time, -1 for forever
         * @return this builder
         */
        public Builder retentionMs(final long retentionMs) {
            return set(RETENTION_MS, retentionMs);
        }

        /**
         * Sets {@code retention.bytes}.
         *
         * @param retentionBytes retention size, -1 for no limit
         * @return this builder
         */
        public Builder retentionBytes(final long retentionBytes) {
            return set(RETENTION_BYTES, retentionBytes);
        }

        /**
         * Sets {@code message.timestamp.before.max.ms}.
         *
         * @param messageTimestampBeforeMaxMs how far before the broker's time a record timestamp may lie, 0 or more
         * @return this builder
         */
        public Builder messageTimestampBeforeMaxMs(final long messageTimestampBeforeMaxMs) {
            return set(MESSAGE_TIMESTAMP_BEFORE_MAX_MS, messageTimestampBeforeMaxMs);
        }

        /**
         * Sets {@code message.timestamp.after.max.ms}.
         *
         * @param messageTimestampAfterMaxMs how far after the broker's time a record timestamp may lie, 0 or more
         * @return this builder
         */
        public Builder messageTimestampAfterMaxMs(final long messageTimestampAfterMaxMs) {
            return set(MESSAGE_TIMESTAMP_AFTER_MAX_MS, messageTimestampAfterMaxMs);
        }

        /**
         * Sets {@value #MAPPED_APPEND_MAX_BYTES_CONFIG}.
         *
         * @param mappedAppendMaxBytes largest append copied through the mapped tail, 0 for none
         * @return this builder
         */
        public Builder mappedAppendMaxBytes(final int mappedAppendMaxBytes) {
            return set(MAPPED_APPEND_MAX_BYTES, mappedAppendMaxBytes);
        }

        /**
         * Sets {@value #READ_MAPPED_CONFIG}.
         *
         * @param readMapped read batch headers through a mapping of each segment (true) or with positional reads
         * @return this builder
         */
        public Builder readMapped(final boolean readMapped) {
            return set(READ_MAPPED, readMapped);
        }

        /**
         * Sets {@code flush.messages}.
         *
         * @param flushMessages unflushed messages that force an fsync
         * @return this builder
         */
        public Builder flushMessages(final long flushMessages) {
            return set(FLUSH_MESSAGES, flushMessages);
        }

        /**
         * Sets {@code flush.ms}.
         *
         * @param flushMs age of unflushed data that forces an fsync
         * @return this builder
         */
        public Builder flushMs(final long flushMs) {
            return set(FLUSH_MS, flushMs);
        }

        /**
         * Sets {@code producer.id.expiration.ms}.
         *
         * @param producerIdExpirationMs how long a producer id's state outlives its last batch
         * @return this builder
         */
        public Builder producerIdExpirationMs(final long producerIdExpirationMs) {
            return set(PRODUCER_ID_EXPIRATION_MS, producerIdExpirationMs);
        }

        /**
         * Sets {@code producer.id.expiration.check.interval.ms}.
         *
         * @param intervalMs how often expired producer ids are removed
         * @return this builder
         */
        public Builder producerIdExpirationCheckIntervalMs(final long intervalMs) {
            return set(PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS, intervalMs);
        }

        /**
         * Sets {@code file.delete.delay.ms}.
         *
         * @param fileDeleteDelayMs delay before a deleted segment is unlinked
         * @return this builder
         */
        public Builder fileDeleteDelayMs(final long fileDeleteDelayMs) {
            return set(FILE_DELETE_DELAY_MS, fileDeleteDelayMs);
        }

        /**
         * Sets {@value #CORRUPTION_POLICY_CONFIG} (Seglog-specific).
         *
         * @param corruptionPolicy what recovery does with corruption that is not a torn tail
         * @return this builder
         */
        public Builder corruptionPolicy(final CorruptionPolicy corruptionPolicy) {
            return set(CORRUPTION_POLICY, Objects.requireNonNull(corruptionPolicy, CORRUPTION_POLICY_CONFIG));
        }

        /**
         * Sets {@code min.insync.replicas}.
         *
         * @param minInsyncReplicas the fewest in-sync replicas for an acks=all write, at least 1
         * @return this builder
         */
        public Builder minInsyncReplicas(final int minInsyncReplicas) {
            return set(MIN_INSYNC_REPLICAS, minInsyncReplicas);
        }

        /**
         * Sets {@code unclean.leader.election.enable}.
         *
         * @param enable whether a replica outside the ISR may become leader
         * @return this builder
         */
        public Builder uncleanLeaderElectionEnable(final boolean enable) {
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
}
