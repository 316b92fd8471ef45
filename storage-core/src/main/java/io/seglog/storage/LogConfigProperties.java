package io.seglog.storage;

import static io.seglog.storage.LogConfig.CLEANUP_POLICY_CONFIG;
import static io.seglog.storage.LogConfig.CORRUPTION_POLICY_CONFIG;
import static io.seglog.storage.LogConfig.FILE_DELETE_DELAY_MS_CONFIG;
import static io.seglog.storage.LogConfig.FLUSH_MESSAGES_CONFIG;
import static io.seglog.storage.LogConfig.FLUSH_MS_CONFIG;
import static io.seglog.storage.LogConfig.INDEX_INTERVAL_BYTES_CONFIG;
import static io.seglog.storage.LogConfig.INTERNAL_SEGMENT_BYTES_CONFIG;
import static io.seglog.storage.LogConfig.MAPPED_APPEND_MAX_BYTES_CONFIG;
import static io.seglog.storage.LogConfig.MAX_MESSAGE_BYTES_CONFIG;
import static io.seglog.storage.LogConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG;
import static io.seglog.storage.LogConfig.MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG;
import static io.seglog.storage.LogConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG;
import static io.seglog.storage.LogConfig.MIN_KAFKA_SEGMENT_BYTES;
import static io.seglog.storage.LogConfig.READ_MAPPED_CONFIG;
import static io.seglog.storage.LogConfig.RETENTION_BYTES_CONFIG;
import static io.seglog.storage.LogConfig.RETENTION_MS_CONFIG;
import static io.seglog.storage.LogConfig.SEGMENT_BYTES_CONFIG;
import static io.seglog.storage.LogConfig.SEGMENT_INDEX_BYTES_CONFIG;
import static io.seglog.storage.LogConfig.SEGMENT_JITTER_MS_CONFIG;
import static io.seglog.storage.LogConfig.SEGMENT_MS_CONFIG;

import io.seglog.storage.LogConfig.CorruptionPolicy;
import io.seglog.storage.LogConfig.TimestampType;
import java.util.Map;
import java.util.Objects;

/**
 * Reads Kafka's topic-level property names into a {@link LogConfig} ({@link LogConfig#fromProperties}): string
 * or number values, each checked for its type and range before the builder's validation pass.
 *
 * <p>Thread-safety: stateless.
 */
final class LogConfigProperties {
    private LogConfigProperties() {
    }

    /** {@link LogConfig#fromProperties}. */
    static LogConfig parse(final Map<String, ?> properties) {
        Objects.requireNonNull(properties, "properties");
        final LogConfig.Builder b = LogConfig.builder();
        if (properties.containsKey(SEGMENT_BYTES_CONFIG)) {
            final int bytes = intValue(properties, SEGMENT_BYTES_CONFIG);
            if (bytes < MIN_KAFKA_SEGMENT_BYTES) {
                throw LogConfig.invalid(SEGMENT_BYTES_CONFIG, bytes, "must be at least " + MIN_KAFKA_SEGMENT_BYTES);
            }
            b.segmentBytes(bytes);
        }
        if (properties.containsKey(INTERNAL_SEGMENT_BYTES_CONFIG) && properties.get(INTERNAL_SEGMENT_BYTES_CONFIG) != null) {
            b.segmentBytes(intValue(properties, INTERNAL_SEGMENT_BYTES_CONFIG));
        }
        if (properties.containsKey(SEGMENT_MS_CONFIG)) {
            b.segmentMs(longValue(properties, SEGMENT_MS_CONFIG));
        }
        if (properties.containsKey(SEGMENT_JITTER_MS_CONFIG)) {
            b.segmentJitterMs(longValue(properties, SEGMENT_JITTER_MS_CONFIG));
        }
        if (properties.containsKey(SEGMENT_INDEX_BYTES_CONFIG)) {
            b.segmentIndexBytes(intValue(properties, SEGMENT_INDEX_BYTES_CONFIG));
        }
        if (properties.containsKey(INDEX_INTERVAL_BYTES_CONFIG)) {
            b.indexIntervalBytes(intValue(properties, INDEX_INTERVAL_BYTES_CONFIG));
        }
        if (properties.containsKey(MAX_MESSAGE_BYTES_CONFIG)) {
            b.maxMessageBytes(intValue(properties, MAX_MESSAGE_BYTES_CONFIG));
        }
        if (properties.containsKey(MESSAGE_TIMESTAMP_TYPE_CONFIG)) {
            b.messageTimestampType(TimestampType.fromKafkaName(String.valueOf(properties.get(MESSAGE_TIMESTAMP_TYPE_CONFIG)).trim()));
        }
        if (properties.containsKey(MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG)) {
            b.messageTimestampBeforeMaxMs(longValue(properties, MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG));
        }
        if (properties.containsKey(MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG)) {
            b.messageTimestampAfterMaxMs(longValue(properties, MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG));
        }
        if (properties.containsKey(RETENTION_MS_CONFIG)) {
            b.retentionMs(longValue(properties, RETENTION_MS_CONFIG));
        }
        if (properties.containsKey(RETENTION_BYTES_CONFIG)) {
            b.retentionBytes(longValue(properties, RETENTION_BYTES_CONFIG));
        }
        if (properties.containsKey(FLUSH_MESSAGES_CONFIG)) {
            b.flushMessages(longValue(properties, FLUSH_MESSAGES_CONFIG));
        }
        if (properties.containsKey(FLUSH_MS_CONFIG)) {
            b.flushMs(longValue(properties, FLUSH_MS_CONFIG));
        }
        if (properties.containsKey(FILE_DELETE_DELAY_MS_CONFIG)) {
            b.fileDeleteDelayMs(longValue(properties, FILE_DELETE_DELAY_MS_CONFIG));
        }
        if (properties.containsKey(MAPPED_APPEND_MAX_BYTES_CONFIG)) {
            b.mappedAppendMaxBytes(intValue(properties, MAPPED_APPEND_MAX_BYTES_CONFIG));
        }
        if (properties.containsKey(CLEANUP_POLICY_CONFIG)) {
            b.cleanupPolicy(LogConfig.CleanupPolicy.fromKafkaName(String.valueOf(properties.get(CLEANUP_POLICY_CONFIG))));
        }
        if (properties.containsKey(READ_MAPPED_CONFIG)) {
            b.readMapped(booleanValue(properties, READ_MAPPED_CONFIG));
        }
        if (properties.containsKey(CORRUPTION_POLICY_CONFIG)) {
            b.corruptionPolicy(CorruptionPolicy.fromConfigName(
                String.valueOf(properties.get(CORRUPTION_POLICY_CONFIG)).trim()));
        }
        return b.build();
    }

    private static long longValue(final Map<String, ?> properties, final String key) {
        final Object value = properties.get(key);
        if (value instanceof Long || value instanceof Integer || value instanceof Short) {
            return ((Number) value).longValue();
        }
        if (value instanceof String) {
            try {
                return Long.parseLong(((String) value).trim());
            } catch (final NumberFormatException e) {
                throw new IllegalArgumentException(key + "=" + value + " is not a long", e);
            }
        }
        throw new IllegalArgumentException(key + "=" + value + " is not a long");
    }

    private static boolean booleanValue(final Map<String, ?> properties, final String key) {
        final Object value = properties.get(key);
        if (value instanceof Boolean) {
            return (Boolean) value;
        }
        final String text = String.valueOf(value).trim();
        if ("true".equalsIgnoreCase(text) || "false".equalsIgnoreCase(text)) {
            return Boolean.parseBoolean(text);
        }
        throw new IllegalArgumentException(key + "=" + value + " is not a boolean (true or false)");
    }

    private static int intValue(final Map<String, ?> properties, final String key) {
        final long value = longValue(properties, key);
        if (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(key + "=" + value + " does not fit an int");
        }
        return (int) value;
    }
}
