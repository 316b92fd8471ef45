package io.seglog.storage;

import static io.seglog.storage.LogConfig.*;

import io.seglog.storage.config.ConfigDef;
import io.seglog.storage.config.ConfigKey;

/**
 * The key table of {@link LogConfig}: one definition per key (Kafka's name and the default from {@link LogConfig}'s
 * public constants, then type, range, documentation and reader), in the order {@code toString} lists them, and the
 * cross-field rules. It owns the table; {@link LogConfig} (the immutable values) and {@link LogConfigBuilder} (the
 * values being collected) read and write values through its keys. Adding a key is its constants in
 * {@link LogConfig}, its entry here, its accessor and its builder method.
 */
final class LogConfigKeys {
    static final ConfigDef KEYS = new ConfigDef("LogConfig");
    static final ConfigKey<Integer> SEGMENT_BYTES = KEYS.intKey(SEGMENT_BYTES_CONFIG, DEFAULT_SEGMENT_BYTES,
        MIN_SEGMENT_BYTES, "the size at which the active segment rolls", "segments");
    static final ConfigKey<Long> SEGMENT_MS = KEYS.longKey(SEGMENT_MS_CONFIG, DEFAULT_SEGMENT_MS, 1,
        "the record-time age at which the active segment rolls", "segments");
    static final ConfigKey<Long> SEGMENT_JITTER_MS = KEYS.longKey(SEGMENT_JITTER_MS_CONFIG,
        DEFAULT_SEGMENT_JITTER_MS, 0, "the largest random jitter subtracted from segment.ms", "segments");
    static final ConfigKey<Integer> SEGMENT_INDEX_BYTES = KEYS.intKey(SEGMENT_INDEX_BYTES_CONFIG,
        DEFAULT_SEGMENT_INDEX_BYTES, MIN_SEGMENT_INDEX_BYTES, "the preallocated size of each index file", "segments");
    static final ConfigKey<Integer> INDEX_INTERVAL_BYTES = KEYS.intKey(INDEX_INTERVAL_BYTES_CONFIG,
        DEFAULT_INDEX_INTERVAL_BYTES, 0, "log bytes between two sparse index entries", "segments");
    static final ConfigKey<Integer> MAX_MESSAGE_BYTES = KEYS.intKey(MAX_MESSAGE_BYTES_CONFIG,
        DEFAULT_MAX_MESSAGE_BYTES, 0, "the largest record batch an append accepts", "append");
    static final ConfigKey<TimestampType> MESSAGE_TIMESTAMP_TYPE = KEYS.namedKey(MESSAGE_TIMESTAMP_TYPE_CONFIG,
        TimestampType.class, TimestampType.CREATE_TIME, TimestampType::fromKafkaName, TimestampType::kafkaName,
        "CreateTime keeps the producer's timestamps, LogAppendTime stamps the broker's", "append");
    static final ConfigKey<TopicCompression> COMPRESSION_TYPE = KEYS.namedKey(COMPRESSION_TYPE_CONFIG,
        TopicCompression.class, TopicCompression.PRODUCER, TopicCompression::fromKafkaName, TopicCompression::kafkaName,
        "producer, uncompressed, gzip, snappy, lz4 or zstd: producer keeps each producer's codec, another"
            + " re-compresses", "append");
    static final ConfigKey<Integer> COMPRESSION_GZIP_LEVEL = levelKey(COMPRESSION_GZIP_LEVEL_CONFIG, -1, 1, 9,
        "the gzip level of re-compression; -1 is zlib's default");
    static final ConfigKey<Integer> COMPRESSION_LZ4_LEVEL = levelKey(COMPRESSION_LZ4_LEVEL_CONFIG, 9, 1, 17,
        "the lz4 level of re-compression; 9 is lz4's fast compressor");
    static final ConfigKey<Integer> COMPRESSION_ZSTD_LEVEL = levelKey(COMPRESSION_ZSTD_LEVEL_CONFIG, 3, -131072,
        22, "the zstd level of re-compression");
    static final ConfigKey<Long> MESSAGE_TIMESTAMP_BEFORE_MAX_MS = KEYS.longKey(
        MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG, DEFAULT_MESSAGE_TIMESTAMP_BEFORE_MAX_MS, 0,
        "how far before the broker's time a CreateTime timestamp may lie", "append");
    static final ConfigKey<Long> MESSAGE_TIMESTAMP_AFTER_MAX_MS = KEYS.longKey(
        MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG, DEFAULT_MESSAGE_TIMESTAMP_AFTER_MAX_MS, 0,
        "how far after the broker's time a CreateTime timestamp may lie", "append");
    static final ConfigKey<Long> RETENTION_MS = KEYS.longKey(RETENTION_MS_CONFIG, DEFAULT_RETENTION_MS, -1,
        "how long segments are kept, -1 forever", "retention");
    static final ConfigKey<Long> RETENTION_BYTES = KEYS.longKey(RETENTION_BYTES_CONFIG,
        DEFAULT_RETENTION_BYTES, Long.MIN_VALUE, "the size above which the oldest segments go, negative for none",
        "retention");
    static final ConfigKey<Long> FLUSH_MESSAGES = KEYS.longKey(FLUSH_MESSAGES_CONFIG, DEFAULT_FLUSH_MESSAGES,
        1, "unflushed messages that force an fsync", "durability");
    static final ConfigKey<Long> FLUSH_MS = KEYS.longKey(FLUSH_MS_CONFIG, DEFAULT_FLUSH_MS, 0,
        "the age of unflushed data that forces an fsync", "durability");
    static final ConfigKey<Long> PRODUCER_ID_EXPIRATION_MS = KEYS.longKey(PRODUCER_ID_EXPIRATION_MS_CONFIG,
        DEFAULT_PRODUCER_ID_EXPIRATION_MS, 1, "how long a producer id's state outlives its last batch", "producers");
    static final ConfigKey<Long> PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS = KEYS.longKey(
        PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS_CONFIG, DEFAULT_PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS, 1,
        "how often expired producer ids are removed (on the log's scheduler)", "producers");
    static final ConfigKey<Long> FILE_DELETE_DELAY_MS = KEYS.longKey(FILE_DELETE_DELAY_MS_CONFIG,
        DEFAULT_FILE_DELETE_DELAY_MS, 0, "the delay between renaming a segment .deleted and unlinking it",
        "retention");
    static final ConfigKey<CorruptionPolicy> CORRUPTION_POLICY = KEYS.namedKey(CORRUPTION_POLICY_CONFIG,
        CorruptionPolicy.class, CorruptionPolicy.FAIL, CorruptionPolicy::fromConfigName, CorruptionPolicy::configName,
        "fail or truncate: what recovery does with corruption that is not a torn tail", "recovery");
    static final ConfigKey<Integer> MAPPED_APPEND_MAX_BYTES = KEYS.intKey(MAPPED_APPEND_MAX_BYTES_CONFIG,
        DEFAULT_MAPPED_APPEND_MAX_BYTES, 0, "the largest append copied through the mapped tail, 0 for none",
        "segments");
    static final ConfigKey<CleanupPolicy> CLEANUP_POLICY = KEYS.namedKey(CLEANUP_POLICY_CONFIG,
        CleanupPolicy.class, CleanupPolicy.DELETE, CleanupPolicy::fromKafkaName, CleanupPolicy::kafkaName,
        "delete, compact or both: what retention deletes and whether offsets may have gaps", "retention, append");
    static final ConfigKey<Double> MIN_CLEANABLE_DIRTY_RATIO = KEYS.doubleKey(MIN_CLEANABLE_DIRTY_RATIO_CONFIG,
        DEFAULT_MIN_CLEANABLE_DIRTY_RATIO, 0, 1, "the dirty share above which a compacted log is cleaned", "cleaner");
    static final ConfigKey<Long> MIN_COMPACTION_LAG_MS = KEYS.longKey(MIN_COMPACTION_LAG_MS_CONFIG, 0, 0,
        "the age below which records are not compacted", "cleaner");
    static final ConfigKey<Long> MAX_COMPACTION_LAG_MS = KEYS.longKey(MAX_COMPACTION_LAG_MS_CONFIG,
        Long.MAX_VALUE, 1, "the age above which a dirty segment is compacted whatever the ratio", "cleaner");
    static final ConfigKey<Long> DELETE_RETENTION_MS = KEYS.longKey(DELETE_RETENTION_MS_CONFIG,
        DEFAULT_DELETE_RETENTION_MS, 0, "how long tombstones survive cleaning", "cleaner");
    static final ConfigKey<Boolean> READ_MAPPED = KEYS.booleanKey(READ_MAPPED_CONFIG, DEFAULT_READ_MAPPED,
        "read batch headers through a read-only mapping of each segment", "reads");
    static final ConfigKey<Integer> MIN_INSYNC_REPLICAS = KEYS.intKey(MIN_INSYNC_REPLICAS_CONFIG,
        DEFAULT_MIN_INSYNC_REPLICAS, 1, "the fewest in-sync replicas for an acks=all write", "replication");
    static final ConfigKey<Boolean> UNCLEAN_LEADER_ELECTION_ENABLE = KEYS.booleanKey(
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

    /** A codec level key: an int in {@code [min, max]}, or the default (which may lie outside, as gzip's -1). */
    private static ConfigKey<Integer> levelKey(final String name, final int defaultValue, final int min,
                                               final int max, final String doc) {
        return KEYS.intKey(name, defaultValue, min, max, doc, "append");
    }

    private LogConfigKeys() {
    }
}
