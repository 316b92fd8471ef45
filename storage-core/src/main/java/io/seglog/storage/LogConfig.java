package io.seglog.storage;

import io.seglog.storage.segment.SegmentConfig;
import java.util.Map;
import java.util.Objects;

/**
 * Configuration of one partition log: segment size and age, index sizing, message limits, timestamp type,
 * retention and flush policy. Immutable; built by {@link #builder()} or read from Kafka's topic-level
 * property names by {@link #fromProperties(Map)}, so a Kafka operator's configuration carries over.
 *
 * <p>Every default is Kafka 4.4.0's (checked against {@code org.apache.kafka.storage.internals.log.LogConfig}
 * by a test). Validation happens once, in {@link Builder#build()}, and each message names the key (Kafka's
 * property name) and the rejected value.
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
    /** Kafka's {@code max.message.bytes}: the largest record batch accepted. */
    public static final String MAX_MESSAGE_BYTES_CONFIG = "max.message.bytes";
    /** Kafka's {@code message.timestamp.type}: {@code CreateTime} or {@code LogAppendTime}. */
    public static final String MESSAGE_TIMESTAMP_TYPE_CONFIG = "message.timestamp.type";
    /**
     * Kafka's {@code message.timestamp.before.max.ms}: with {@code CreateTime}, how far a record's timestamp may
     * lie before the broker's time.
     */
    public static final String MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG = "message.timestamp.before.max.ms";
    /**
     * Kafka's {@code message.timestamp.after.max.ms}: with {@code CreateTime}, how far a record's timestamp may
     * lie after the broker's time.
     */
    public static final String MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG = "message.timestamp.after.max.ms";
    /** Kafka's {@code retention.ms}; -1 keeps data forever. */
    public static final String RETENTION_MS_CONFIG = "retention.ms";
    /** Kafka's {@code retention.bytes}; -1 means no size limit. */
    public static final String RETENTION_BYTES_CONFIG = "retention.bytes";
    /** Kafka's {@code flush.messages}: unflushed messages that force an fsync. */
    public static final String FLUSH_MESSAGES_CONFIG = "flush.messages";
    /** Kafka's {@code flush.ms}: the age of unflushed data that forces an fsync. */
    public static final String FLUSH_MS_CONFIG = "flush.ms";
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
    public static final String CORRUPTION_POLICY_CONFIG = "seglog.corruption.policy";
    /**
     * Kafka's {@code cleanup.policy}: {@code delete} (the default), {@code compact} or both. Seglog has no log
     * cleaner; the policy decides what the log accepts and keeps (see {@link CleanupPolicy}).
     */
    public static final String CLEANUP_POLICY_CONFIG = "cleanup.policy";
    /**
     * Seglog-specific (Kafka has no such key): readers read batch headers (offset lookups, slice ends, timestamp
     * searches) through a read-only mapping of each segment's data file instead of a {@code pread} each;
     * {@code true} by default. The mapping costs address space only (it never extends a file); {@code false}
     * reads every header with a positional read.
     */
    public static final String READ_MAPPED_CONFIG = "seglog.read.mapped";

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

    /**
     * Kafka's {@code cleanup.policy}. With {@code delete}, retention by time and size deletes old segments and
     * the log's offsets are contiguous, so a follower append or a recovered batch that leaves a gap is refused
     * (the base offset is outside the CRC: contiguity is what catches a flipped bit there). With
     * {@code compact}, offset gaps between batches are legal (Kafka's cleaner drops whole batches, and a
     * follower keeps the gaps it replicates) and retention by time and size does not delete (Kafka's rule);
     * Seglog does not compact logs itself.
     */
    public enum CleanupPolicy {
        /** Retention deletes old segments; offsets are contiguous. */
        DELETE("delete", false, true),
        /** Compacted (by Kafka, or a leader's cleaner): offset gaps are legal; retention does not delete. */
        COMPACT("compact", true, false),
        /** Both: offset gaps are legal and retention deletes. */
        COMPACT_DELETE("compact,delete", true, true);

        private final String kafkaName;
        private final boolean compact;
        private final boolean delete;

        CleanupPolicy(final String kafkaName, final boolean compact, final boolean delete) {
            this.kafkaName = kafkaName;
            this.compact = compact;
            this.delete = delete;
        }

        /**
         * The value as Kafka writes it.
         *
         * @return {@code delete}, {@code compact} or {@code compact,delete}
         */
        public String kafkaName() {
            return kafkaName;
        }

        /**
         * Whether the log may be compacted, so offset gaps between batches are legal.
         *
         * @return true for {@code compact} and {@code compact,delete}
         */
        public boolean compact() {
            return compact;
        }

        /**
         * Whether retention by time and size deletes old segments.
         *
         * @return true for {@code delete} and {@code compact,delete}
         */
        public boolean delete() {
            return delete;
        }

        /**
         * Whether a batch may start at {@code baseOffset} where the log (or the batch before it) ends at
         * {@code nextOffset}: exactly there, or, in a compacted log, anywhere after (a gap). Never before.
         *
         * @param baseOffset the batch's first offset
         * @param nextOffset the offset after the log's (or the previous batch's) last offset
         * @return whether the batch continues the log under this policy
         */
        public boolean allowsBatchAt(final long baseOffset, final long nextOffset) {
            return baseOffset == nextOffset || compact && baseOffset > nextOffset;
        }

        /**
         * Parses Kafka's value: a comma-separated list of {@code delete} and {@code compact}, in any order,
         * ignoring case and spaces.
         *
         * @param value the configured value
         * @return the policy
         * @throws IllegalArgumentException naming the key and value when it holds anything else or nothing
         */
        public static CleanupPolicy fromKafkaName(final String value) {
            boolean compact = false;
            boolean delete = false;
            for (final String part : value.split(",", -1)) {
                final String name = part.trim();
                if (name.equalsIgnoreCase("compact")) {
                    compact = true;
                } else if (name.equalsIgnoreCase("delete")) {
                    delete = true;
                } else {
                    throw new IllegalArgumentException(CLEANUP_POLICY_CONFIG + "=" + value
                        + " must be a list of delete and compact");
                }
            }
            return compact ? (delete ? COMPACT_DELETE : COMPACT) : DELETE;
        }
    }

    /** Which timestamp the log keeps in a batch: the producer's or the broker's at append. */
    public enum TimestampType {
        /** Records keep the timestamps their producer set (Kafka's {@code CreateTime}). */
        CREATE_TIME("CreateTime"),
        /** The leader stamps its clock into each batch on append (Kafka's {@code LogAppendTime}). */
        LOG_APPEND_TIME("LogAppendTime");

        private final String kafkaName;

        TimestampType(final String kafkaName) {
            this.kafkaName = kafkaName;
        }

        /**
         * The value of {@code message.timestamp.type} for this type.
         *
         * @return {@code CreateTime} or {@code LogAppendTime}
         */
        public String kafkaName() {
            return kafkaName;
        }

        /**
         * Parses Kafka's name for a timestamp type.
         *
         * @param name {@code CreateTime} or {@code LogAppendTime}
         * @return the type
         * @throws IllegalArgumentException naming the key and the value when the name is neither
         */
        public static TimestampType fromKafkaName(final String name) {
            for (final TimestampType type : values()) {
                if (type.kafkaName.equals(name)) {
                    return type;
                }
            }
            throw new IllegalArgumentException(
                MESSAGE_TIMESTAMP_TYPE_CONFIG + "=" + name + " must be CreateTime or LogAppendTime");
        }
    }

    /**
     * What crash recovery does when it finds corruption that a crash cannot explain: an invalid batch with
     * valid batches after it, or one below the recovery point (data that was already durable). Seglog-specific
     * ({@value #CORRUPTION_POLICY_CONFIG}); Kafka always truncates.
     */
    public enum CorruptionPolicy {
        /** Refuse to open the partition with a {@link CorruptLogException}; a replica re-fetches it. */
        FAIL("fail"),
        /** Truncate the log at the first invalid batch (Kafka's behaviour) and report what was dropped. */
        TRUNCATE("truncate");

        private final String configName;

        CorruptionPolicy(final String configName) {
            this.configName = configName;
        }

        /**
         * The value as written in a configuration.
         *
         * @return {@code fail} or {@code truncate}
         */
        public String configName() {
            return configName;
        }

        /**
         * Parses a configuration value, ignoring case.
         *
         * @param name {@code fail} or {@code truncate}
         * @return the policy
         * @throws IllegalArgumentException naming the key and value otherwise
         */
        public static CorruptionPolicy fromConfigName(final String name) {
            for (final CorruptionPolicy policy : values()) {
                if (policy.configName.equalsIgnoreCase(name)) {
                    return policy;
                }
            }
            throw new IllegalArgumentException(CORRUPTION_POLICY_CONFIG + "=" + name + " must be fail or truncate");
        }
    }

    private final int segmentBytes;
    private final long segmentMs;
    private final long segmentJitterMs;
    private final int segmentIndexBytes;
    private final int indexIntervalBytes;
    private final int maxMessageBytes;
    private final TimestampType messageTimestampType;
    private final long messageTimestampBeforeMaxMs;
    private final long messageTimestampAfterMaxMs;
    private final long retentionMs;
    private final long retentionBytes;
    private final long flushMessages;
    private final long flushMs;
    private final long fileDeleteDelayMs;
    private final CorruptionPolicy corruptionPolicy;
    private final int mappedAppendMaxBytes;
    private final CleanupPolicy cleanupPolicy;
    private final boolean readMapped;

    private LogConfig(final Builder b) {
        this.segmentBytes = b.segmentBytes;
        this.segmentMs = b.segmentMs;
        this.segmentJitterMs = b.segmentJitterMs;
        this.segmentIndexBytes = b.segmentIndexBytes;
        this.indexIntervalBytes = b.indexIntervalBytes;
        this.maxMessageBytes = b.maxMessageBytes;
        this.messageTimestampType = b.messageTimestampType;
        this.messageTimestampBeforeMaxMs = b.messageTimestampBeforeMaxMs;
        this.messageTimestampAfterMaxMs = b.messageTimestampAfterMaxMs;
        this.retentionMs = b.retentionMs;
        this.retentionBytes = b.retentionBytes;
        this.flushMessages = b.flushMessages;
        this.flushMs = b.flushMs;
        this.fileDeleteDelayMs = b.fileDeleteDelayMs;
        this.corruptionPolicy = b.corruptionPolicy;
        this.mappedAppendMaxBytes = b.mappedAppendMaxBytes;
        this.cleanupPolicy = b.cleanupPolicy;
        this.readMapped = b.readMapped;
    }

    /**
     * A builder holding Kafka's defaults.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
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
     * Reads Kafka's topic-level property names; keys that are absent keep Kafka's defaults and keys this
     * class does not know are ignored (a Kafka configuration has many that concern the broker, not the log).
     * Values may be strings (as in a properties file) or numbers.
     *
     * <p>As in Kafka 4.4, {@code segment.bytes} must be at least 1 MiB; {@code internal.segment.bytes}, when
     * present, overrides it without that minimum.
     *
     * @param properties Kafka property names to values
     * @return the validated configuration
     * @throws IllegalArgumentException naming the key and value of the first invalid entry
     */
    public static LogConfig fromProperties(final Map<String, ?> properties) {
        return LogConfigProperties.parse(properties);
    }

    static IllegalArgumentException invalid(final String key, final long value, final String rule) {
        return new IllegalArgumentException(key + "=" + value + " " + rule);
    }

    /**
     * The size in bytes at which the active segment is rolled ({@code segment.bytes}).
     *
     * @return bytes, at least {@link #MIN_SEGMENT_BYTES}
     */
    public int segmentBytes() {
        return segmentBytes;
    }

    /**
     * The record-time span after which the active segment is rolled ({@code segment.ms}).
     *
     * @return milliseconds, at least 1
     */
    public long segmentMs() {
        return segmentMs;
    }

    /**
     * The upper bound (exclusive) of the random jitter subtracted from {@code segment.ms} per segment.
     *
     * @return milliseconds, 0 for none
     */
    public long segmentJitterMs() {
        return segmentJitterMs;
    }

    /**
     * The preallocated size of each offset index and time index ({@code segment.index.bytes}).
     *
     * @return bytes, at least 4
     */
    public int segmentIndexBytes() {
        return segmentIndexBytes;
    }

    /**
     * Log bytes written between two sparse index entries ({@code index.interval.bytes}).
     *
     * @return bytes, 0 or more (0 indexes every batch after the first)
     */
    public int indexIntervalBytes() {
        return indexIntervalBytes;
    }

    /**
     * The largest record batch, header included, that an append accepts ({@code max.message.bytes}).
     *
     * @return bytes
     */
    public int maxMessageBytes() {
        return maxMessageBytes;
    }

    /**
     * Whether the leader keeps the producer's timestamps or stamps its own ({@code message.timestamp.type}).
     *
     * @return the timestamp type
     */
    public TimestampType messageTimestampType() {
        return messageTimestampType;
    }

    /**
     * How long a segment is kept after its newest record ({@code retention.ms}); used by retention.
     *
     * @return milliseconds, -1 for forever
     */
    public long retentionMs() {
        return retentionMs;
    }

    /**
     * The size the log is trimmed to by retention ({@code retention.bytes}).
     *
     * @return bytes, -1 for no limit
     */
    public long retentionBytes() {
        return retentionBytes;
    }

    /**
     * How far before the broker's time a {@code CreateTime} record's timestamp may lie
     * ({@code message.timestamp.before.max.ms}); a leader append with an earlier record is rejected.
     *
     * @return milliseconds, {@link Long#MAX_VALUE} for no bound
     */
    public long messageTimestampBeforeMaxMs() {
        return messageTimestampBeforeMaxMs;
    }

    /**
     * How far after the broker's time a {@code CreateTime} record's timestamp may lie
     * ({@code message.timestamp.after.max.ms}); a leader append with a later record is rejected.
     *
     * @return milliseconds, {@link Long#MAX_VALUE} for no bound
     */
    public long messageTimestampAfterMaxMs() {
        return messageTimestampAfterMaxMs;
    }

    /**
     * Unflushed messages after which an append forces an fsync ({@code flush.messages}).
     *
     * @return messages, {@link Long#MAX_VALUE} for never
     */
    public long flushMessages() {
        return flushMessages;
    }

    /**
     * Age of unflushed data after which a scheduled flush forces an fsync ({@code flush.ms}).
     *
     * @return milliseconds, {@link Long#MAX_VALUE} for never
     */
    public long flushMs() {
        return flushMs;
    }

    /**
     * Delay between renaming a deleted segment to {@code .deleted} and unlinking it.
     *
     * @return milliseconds
     */
    public long fileDeleteDelayMs() {
        return fileDeleteDelayMs;
    }

    /**
     * What crash recovery does with corruption that is not a torn tail ({@value #CORRUPTION_POLICY_CONFIG},
     * Seglog-specific).
     *
     * @return the policy, {@link CorruptionPolicy#FAIL} by default
     */
    public CorruptionPolicy corruptionPolicy() {
        return corruptionPolicy;
    }

    /**
     * Largest append copied through the mapped tail ({@value #MAPPED_APPEND_MAX_BYTES_CONFIG}, Seglog-specific).
     *
     * @return bytes, 0 when every append is a {@code write} call
     */
    public int mappedAppendMaxBytes() {
        return mappedAppendMaxBytes;
    }

    /**
     * Kafka's {@code cleanup.policy} ({@value #CLEANUP_POLICY_CONFIG}).
     *
     * @return the policy, {@link CleanupPolicy#DELETE} by default
     */
    public CleanupPolicy cleanupPolicy() {
        return cleanupPolicy;
    }

    /**
     * Whether readers read batch headers through a mapping of each segment ({@value #READ_MAPPED_CONFIG},
     * Seglog-specific).
     *
     * @return true when mapped (the default), false for a positional read per header
     */
    public boolean readMapped() {
        return readMapped;
    }

    /**
     * The values the segment layer needs, as its own plain record (it does not depend on this API class).
     *
     * @return the segment configuration
     */
    SegmentConfig segmentConfig() {
        return new SegmentConfig(segmentBytes, segmentMs, segmentIndexBytes, indexIntervalBytes, mappedAppendMaxBytes,
            readMapped, cleanupPolicy.compact(), corruptionPolicy == CorruptionPolicy.TRUNCATE);
    }

    /**
     * A builder starting from this configuration's values.
     *
     * @return a new builder
     */
    public Builder toBuilder() {
        return builder().segmentBytes(segmentBytes).segmentMs(segmentMs).segmentJitterMs(segmentJitterMs)
            .segmentIndexBytes(segmentIndexBytes).indexIntervalBytes(indexIntervalBytes)
            .maxMessageBytes(maxMessageBytes).messageTimestampType(messageTimestampType)
            .messageTimestampBeforeMaxMs(messageTimestampBeforeMaxMs).messageTimestampAfterMaxMs(messageTimestampAfterMaxMs)
            .retentionMs(retentionMs).retentionBytes(retentionBytes).flushMessages(flushMessages)
            .flushMs(flushMs).fileDeleteDelayMs(fileDeleteDelayMs).corruptionPolicy(corruptionPolicy)
            .mappedAppendMaxBytes(mappedAppendMaxBytes).cleanupPolicy(cleanupPolicy).readMapped(readMapped);
    }

    @Override
    public boolean equals(final Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof LogConfig)) {
            return false;
        }
        final LogConfig that = (LogConfig) o;
        return segmentBytes == that.segmentBytes && segmentMs == that.segmentMs
            && segmentJitterMs == that.segmentJitterMs && segmentIndexBytes == that.segmentIndexBytes
            && indexIntervalBytes == that.indexIntervalBytes && maxMessageBytes == that.maxMessageBytes
            && messageTimestampType == that.messageTimestampType
            && messageTimestampBeforeMaxMs == that.messageTimestampBeforeMaxMs
            && messageTimestampAfterMaxMs == that.messageTimestampAfterMaxMs && retentionMs == that.retentionMs
            && retentionBytes == that.retentionBytes && flushMessages == that.flushMessages
            && flushMs == that.flushMs && fileDeleteDelayMs == that.fileDeleteDelayMs
            && corruptionPolicy == that.corruptionPolicy && mappedAppendMaxBytes == that.mappedAppendMaxBytes
            && cleanupPolicy == that.cleanupPolicy && readMapped == that.readMapped;
    }

    @Override
    public int hashCode() {
        return Objects.hash(segmentBytes, segmentMs, segmentJitterMs, segmentIndexBytes, indexIntervalBytes,
            maxMessageBytes, messageTimestampType, messageTimestampBeforeMaxMs, messageTimestampAfterMaxMs,
            retentionMs, retentionBytes, flushMessages, flushMs, fileDeleteDelayMs, corruptionPolicy,
            mappedAppendMaxBytes, cleanupPolicy, readMapped);
    }

    @Override
    public String toString() {
        return "LogConfig{" + SEGMENT_BYTES_CONFIG + "=" + segmentBytes + ", " + SEGMENT_MS_CONFIG + "=" + segmentMs
            + ", " + SEGMENT_JITTER_MS_CONFIG + "=" + segmentJitterMs + ", " + SEGMENT_INDEX_BYTES_CONFIG + "="
            + segmentIndexBytes + ", " + INDEX_INTERVAL_BYTES_CONFIG + "=" + indexIntervalBytes + ", "
            + MAX_MESSAGE_BYTES_CONFIG + "=" + maxMessageBytes + ", " + MESSAGE_TIMESTAMP_TYPE_CONFIG + "="
            + messageTimestampType.kafkaName() + ", " + MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG + "="
            + messageTimestampBeforeMaxMs + ", " + MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG + "="
            + messageTimestampAfterMaxMs + ", " + RETENTION_MS_CONFIG + "=" + retentionMs + ", "
            + RETENTION_BYTES_CONFIG + "=" + retentionBytes + ", " + FLUSH_MESSAGES_CONFIG + "=" + flushMessages
            + ", " + FLUSH_MS_CONFIG + "=" + flushMs + ", " + FILE_DELETE_DELAY_MS_CONFIG + "=" + fileDeleteDelayMs
            + ", " + CORRUPTION_POLICY_CONFIG + "=" + corruptionPolicy.configName() + ", "
            + MAPPED_APPEND_MAX_BYTES_CONFIG + "=" + mappedAppendMaxBytes + ", " + CLEANUP_POLICY_CONFIG + "="
            + cleanupPolicy.kafkaName() + ", " + READ_MAPPED_CONFIG + "=" + readMapped + "}";
    }

    /**
     * Collects values, then validates them all in {@link #build()}. Not thread-safe.
     */
    public static final class Builder {
        private int segmentBytes = DEFAULT_SEGMENT_BYTES;
        private long segmentMs = DEFAULT_SEGMENT_MS;
        private long segmentJitterMs = DEFAULT_SEGMENT_JITTER_MS;
        private int segmentIndexBytes = DEFAULT_SEGMENT_INDEX_BYTES;
        private int indexIntervalBytes = DEFAULT_INDEX_INTERVAL_BYTES;
        private int maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES;
        private TimestampType messageTimestampType = TimestampType.CREATE_TIME;
        private long messageTimestampBeforeMaxMs = DEFAULT_MESSAGE_TIMESTAMP_BEFORE_MAX_MS;
        private long messageTimestampAfterMaxMs = DEFAULT_MESSAGE_TIMESTAMP_AFTER_MAX_MS;
        private long retentionMs = DEFAULT_RETENTION_MS;
        private long retentionBytes = DEFAULT_RETENTION_BYTES;
        private long flushMessages = DEFAULT_FLUSH_MESSAGES;
        private long flushMs = DEFAULT_FLUSH_MS;
        private long fileDeleteDelayMs = DEFAULT_FILE_DELETE_DELAY_MS;
        private CorruptionPolicy corruptionPolicy = CorruptionPolicy.FAIL;
        private int mappedAppendMaxBytes = DEFAULT_MAPPED_APPEND_MAX_BYTES;
        private CleanupPolicy cleanupPolicy = CleanupPolicy.DELETE;
        private boolean readMapped = DEFAULT_READ_MAPPED;

        private Builder() {
        }

        /**
         * Sets Kafka's {@code cleanup.policy}.
         *
         * @param cleanupPolicy the policy
         * @return this builder
         */
        public Builder cleanupPolicy(final CleanupPolicy cleanupPolicy) {
            this.cleanupPolicy = Objects.requireNonNull(cleanupPolicy, "cleanupPolicy");
            return this;
        }

        /**
         * Sets {@code segment.bytes}. Unlike {@link #fromProperties(Map)}, the builder accepts segments below
         * Kafka 4.4's 1 MiB minimum (down to {@link #MIN_SEGMENT_BYTES}), as Kafka's internal key does.
         *
         * @param segmentBytes the roll size in bytes
         * @return this builder
         */
        public Builder segmentBytes(final int segmentBytes) {
            this.segmentBytes = segmentBytes;
            return this;
        }

        /**
         * Sets {@code segment.ms}.
         *
         * @param segmentMs the record-time span of a segment
         * @return this builder
         */
        public Builder segmentMs(final long segmentMs) {
            this.segmentMs = segmentMs;
            return this;
        }

        /**
         * Sets {@code segment.jitter.ms}.
         *
         * @param segmentJitterMs the maximum jitter, 0 for none
         * @return this builder
         */
        public Builder segmentJitterMs(final long segmentJitterMs) {
            this.segmentJitterMs = segmentJitterMs;
            return this;
        }

        /**
         * Sets {@code segment.index.bytes}.
         *
         * @param segmentIndexBytes the preallocated size of each index file
         * @return this builder
         */
        public Builder segmentIndexBytes(final int segmentIndexBytes) {
            this.segmentIndexBytes = segmentIndexBytes;
            return this;
        }

        /**
         * Sets {@code index.interval.bytes}.
         *
         * @param indexIntervalBytes log bytes between index entries
         * @return this builder
         */
        public Builder indexIntervalBytes(final int indexIntervalBytes) {
            this.indexIntervalBytes = indexIntervalBytes;
            return this;
        }

        /**
         * Sets {@code max.message.bytes}.
         *
         * @param maxMessageBytes the largest batch accepted
         * @return this builder
         */
        public Builder maxMessageBytes(final int maxMessageBytes) {
            this.maxMessageBytes = maxMessageBytes;
            return this;
        }

        /**
         * Sets {@code message.timestamp.type}.
         *
         * @param messageTimestampType the timestamp type
         * @return this builder
         */
        public Builder messageTimestampType(final TimestampType messageTimestampType) {
            this.messageTimestampType = messageTimestampType;
            return this;
        }

        /**
         * Sets {@code retention.ms}.
         *
         * @param retentionMs retention time, -1 for forever
         * @return this builder
         */
        public Builder retentionMs(final long retentionMs) {
            this.retentionMs = retentionMs;
            return this;
        }

        /**
         * Sets {@code retention.bytes}.
         *
         * @param retentionBytes retention size, -1 for no limit
         * @return this builder
         */
        public Builder retentionBytes(final long retentionBytes) {
            this.retentionBytes = retentionBytes;
            return this;
        }

        /**
         * Sets {@code message.timestamp.before.max.ms}.
         *
         * @param messageTimestampBeforeMaxMs how far before the broker's time a record timestamp may lie, 0 or more
         * @return this builder
         */
        public Builder messageTimestampBeforeMaxMs(final long messageTimestampBeforeMaxMs) {
            this.messageTimestampBeforeMaxMs = messageTimestampBeforeMaxMs;
            return this;
        }

        /**
         * Sets {@code message.timestamp.after.max.ms}.
         *
         * @param messageTimestampAfterMaxMs how far after the broker's time a record timestamp may lie, 0 or more
         * @return this builder
         */
        public Builder messageTimestampAfterMaxMs(final long messageTimestampAfterMaxMs) {
            this.messageTimestampAfterMaxMs = messageTimestampAfterMaxMs;
            return this;
        }

        /**
         * Sets {@value #MAPPED_APPEND_MAX_BYTES_CONFIG}.
         *
         * @param mappedAppendMaxBytes largest append copied through the mapped tail, 0 for none
         * @return this builder
         */
        public Builder mappedAppendMaxBytes(final int mappedAppendMaxBytes) {
            this.mappedAppendMaxBytes = mappedAppendMaxBytes;
            return this;
        }

        /**
         * Sets {@value #READ_MAPPED_CONFIG}.
         *
         * @param readMapped read batch headers through a mapping of each segment (true) or with positional reads
         * @return this builder
         */
        public Builder readMapped(final boolean readMapped) {
            this.readMapped = readMapped;
            return this;
        }

        /**
         * Sets {@code flush.messages}.
         *
         * @param flushMessages unflushed messages that force an fsync
         * @return this builder
         */
        public Builder flushMessages(final long flushMessages) {
            this.flushMessages = flushMessages;
            return this;
        }

        /**
         * Sets {@code flush.ms}.
         *
         * @param flushMs age of unflushed data that forces an fsync
         * @return this builder
         */
        public Builder flushMs(final long flushMs) {
            this.flushMs = flushMs;
            return this;
        }

        /**
         * Sets {@code file.delete.delay.ms}.
         *
         * @param fileDeleteDelayMs delay before a deleted segment is unlinked
         * @return this builder
         */
        public Builder fileDeleteDelayMs(final long fileDeleteDelayMs) {
            this.fileDeleteDelayMs = fileDeleteDelayMs;
            return this;
        }

        /**
         * Sets {@value #CORRUPTION_POLICY_CONFIG} (Seglog-specific).
         *
         * @param corruptionPolicy what recovery does with corruption that is not a torn tail
         * @return this builder
         */
        public Builder corruptionPolicy(final CorruptionPolicy corruptionPolicy) {
            this.corruptionPolicy = Objects.requireNonNull(corruptionPolicy, CORRUPTION_POLICY_CONFIG);
            return this;
        }

        /**
         * Validates every value with Kafka's ranges and builds the configuration.
         *
         * @return the immutable configuration
         * @throws IllegalArgumentException naming the key (Kafka's property name) and the value of the first
         *                                  invalid setting
         */
        public LogConfig build() {
            if (segmentBytes < MIN_SEGMENT_BYTES) {
                throw invalid(SEGMENT_BYTES_CONFIG, segmentBytes, "must be at least " + MIN_SEGMENT_BYTES);
            }
            if (segmentMs < 1) {
                throw invalid(SEGMENT_MS_CONFIG, segmentMs, "must be at least 1");
            }
            if (segmentJitterMs < 0) {
                throw invalid(SEGMENT_JITTER_MS_CONFIG, segmentJitterMs, "must be at least 0");
            }
            if (segmentIndexBytes < MIN_SEGMENT_INDEX_BYTES) {
                throw invalid(SEGMENT_INDEX_BYTES_CONFIG, segmentIndexBytes, "must be at least " + MIN_SEGMENT_INDEX_BYTES);
            }
            if (indexIntervalBytes < 0) {
                throw invalid(INDEX_INTERVAL_BYTES_CONFIG, indexIntervalBytes, "must be at least 0");
            }
            if (maxMessageBytes < 0) {
                throw invalid(MAX_MESSAGE_BYTES_CONFIG, maxMessageBytes, "must be at least 0");
            }
            Objects.requireNonNull(messageTimestampType, MESSAGE_TIMESTAMP_TYPE_CONFIG);
            if (messageTimestampBeforeMaxMs < 0) {
                throw invalid(MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG, messageTimestampBeforeMaxMs, "must be at least 0");
            }
            if (messageTimestampAfterMaxMs < 0) {
                throw invalid(MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG, messageTimestampAfterMaxMs, "must be at least 0");
            }
            if (retentionMs < -1) {
                throw invalid(RETENTION_MS_CONFIG, retentionMs, "must be at least -1");
            }
            if (flushMessages < 1) {
                throw invalid(FLUSH_MESSAGES_CONFIG, flushMessages, "must be at least 1");
            }
            if (flushMs < 0) {
                throw invalid(FLUSH_MS_CONFIG, flushMs, "must be at least 0");
            }
            if (fileDeleteDelayMs < 0) {
                throw invalid(FILE_DELETE_DELAY_MS_CONFIG, fileDeleteDelayMs, "must be at least 0");
            }
            if (mappedAppendMaxBytes < 0) {
                throw invalid(MAPPED_APPEND_MAX_BYTES_CONFIG, mappedAppendMaxBytes, "must be at least 0");
            }
            return new LogConfig(this);
        }
    }
}
