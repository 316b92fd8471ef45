package io.seglog.replication.wire;

import io.seglog.storage.LogConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Topic configurations as Kafka's admin APIs see them: which of Kafka 4.4's topic configs Seglog has (those its
 * {@link LogConfig} reads), each with its broker-level synonym and Kafka's config type; how a topic's overrides are
 * checked (by {@link LogConfig}'s own rules, over the broker's defaults); and how a topic's configuration is described
 * (Kafka's {@code ConfigHelper.createTopicConfigEntry}: the override as {@code DYNAMIC_TOPIC_CONFIG}, the broker's
 * setting as {@code STATIC_BROKER_CONFIG}, Kafka's default as {@code DEFAULT_CONFIG}).
 *
 * <p>Immutable and thread-safe.
 */
final class TopicConfigs {
    /** Kafka's {@code DescribeConfigsResponse.ConfigSource} ids. */
    static final byte SOURCE_TOPIC = 1;
    static final byte SOURCE_STATIC_BROKER = 4;
    static final byte SOURCE_DEFAULT = 5;
    /** Kafka's {@code DescribeConfigsResponse.ConfigType} ids. */
    static final byte TYPE_BOOLEAN = 1;
    static final byte TYPE_STRING = 2;
    static final byte TYPE_INT = 3;
    static final byte TYPE_LONG = 5;
    static final byte TYPE_DOUBLE = 6;
    static final byte TYPE_LIST = 7;

    /**
     * A Kafka topic config Seglog has.
     *
     * @param name          Kafka's topic-level name (= {@link LogConfig}'s)
     * @param brokerSynonym the broker-level name of its default (Kafka's {@code ServerTopicConfigSynonyms})
     * @param type          Kafka's config type id
     */
    record Key(String name, String brokerSynonym, byte type) {
    }

    /** Kafka 4.4's topic configs that Seglog's LogConfig reads, in Kafka's {@code TopicConfig} order. */
    static final List<Key> KEYS = List.of(
        new Key(LogConfig.SEGMENT_BYTES_CONFIG, "log.segment.bytes", TYPE_INT),
        new Key(LogConfig.SEGMENT_MS_CONFIG, "log.roll.ms", TYPE_LONG),
        new Key(LogConfig.SEGMENT_JITTER_MS_CONFIG, "log.roll.jitter.ms", TYPE_LONG),
        new Key(LogConfig.SEGMENT_INDEX_BYTES_CONFIG, "log.index.size.max.bytes", TYPE_INT),
        new Key(LogConfig.FLUSH_MESSAGES_CONFIG, "log.flush.interval.messages", TYPE_LONG),
        new Key(LogConfig.FLUSH_MS_CONFIG, "log.flush.interval.ms", TYPE_LONG),
        new Key(LogConfig.RETENTION_BYTES_CONFIG, "log.retention.bytes", TYPE_LONG),
        new Key(LogConfig.RETENTION_MS_CONFIG, "log.retention.ms", TYPE_LONG),
        new Key(LogConfig.MAX_MESSAGE_BYTES_CONFIG, "message.max.bytes", TYPE_INT),
        new Key(LogConfig.INDEX_INTERVAL_BYTES_CONFIG, "log.index.interval.bytes", TYPE_INT),
        new Key(LogConfig.FILE_DELETE_DELAY_MS_CONFIG, "log.segment.delete.delay.ms", TYPE_LONG),
        new Key(LogConfig.DELETE_RETENTION_MS_CONFIG, "log.cleaner.delete.retention.ms", TYPE_LONG),
        new Key(LogConfig.MIN_COMPACTION_LAG_MS_CONFIG, "log.cleaner.min.compaction.lag.ms", TYPE_LONG),
        new Key(LogConfig.MAX_COMPACTION_LAG_MS_CONFIG, "log.cleaner.max.compaction.lag.ms", TYPE_LONG),
        new Key(LogConfig.MIN_CLEANABLE_DIRTY_RATIO_CONFIG, "log.cleaner.min.cleanable.ratio", TYPE_DOUBLE),
        new Key(LogConfig.CLEANUP_POLICY_CONFIG, "log.cleanup.policy", TYPE_LIST),
        new Key(LogConfig.UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG, LogConfig.UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG,
            TYPE_BOOLEAN),
        new Key(LogConfig.MIN_INSYNC_REPLICAS_CONFIG, LogConfig.MIN_INSYNC_REPLICAS_CONFIG, TYPE_INT),
        new Key(LogConfig.COMPRESSION_TYPE_CONFIG, LogConfig.COMPRESSION_TYPE_CONFIG, TYPE_STRING),
        new Key(LogConfig.COMPRESSION_GZIP_LEVEL_CONFIG, LogConfig.COMPRESSION_GZIP_LEVEL_CONFIG, TYPE_INT),
        new Key(LogConfig.COMPRESSION_LZ4_LEVEL_CONFIG, LogConfig.COMPRESSION_LZ4_LEVEL_CONFIG, TYPE_INT),
        new Key(LogConfig.COMPRESSION_ZSTD_LEVEL_CONFIG, LogConfig.COMPRESSION_ZSTD_LEVEL_CONFIG, TYPE_INT),
        new Key(LogConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG, "log.message.timestamp.type", TYPE_STRING),
        new Key(LogConfig.MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG, "log.message.timestamp.before.max.ms", TYPE_LONG),
        new Key(LogConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG, "log.message.timestamp.after.max.ms", TYPE_LONG));

    /** Kafka 4.4's topic configs that Seglog does not have (tiered storage, preallocation, throttles, ...). */
    static final Set<String> KAFKA_ONLY = Set.of("remote.storage.enable", "local.retention.ms",
        "local.retention.bytes", "remote.log.copy.disable", "remote.copy.lag.ms", "remote.copy.lag.bytes",
        "remote.log.delete.on.disable", "max.decompressed.message.bytes", "preallocate",
        "message.downconversion.enable", "errors.deadletterqueue.group.enable", "leader.replication.throttled.replicas",
        "follower.replication.throttled.replicas");

    /**
     * One described config.
     *
     * @param name     the topic-level name
     * @param value    its effective value's text
     * @param source   where it comes from (Kafka's source id)
     * @param type     Kafka's type id
     * @param synonyms every level that sets it, most specific first
     */
    record Entry(String name, String value, byte source, byte type, List<Synonym> synonyms) {
    }

    /**
     * One level that sets a config.
     *
     * @param name   the name at that level
     * @param value  the value set there
     * @param source the level (Kafka's source id)
     */
    record Synonym(String name, String value, byte source) {
    }

    private final LogConfig brokerDefaults;
    private final Map<String, String> brokerValues;
    private final Map<String, String> kafkaDefaults;

    /**
     * @param brokerDefaults the broker's topic defaults (its {@code log.*} settings)
     */
    TopicConfigs(final LogConfig brokerDefaults) {
        this.brokerDefaults = brokerDefaults;
        this.brokerValues = brokerDefaults.toProperties();
        this.kafkaDefaults = LogConfig.defaults().toProperties();
    }

    /**
     * Checks a topic's overrides as Kafka's {@code LogConfig.validate} does: every name a topic config, every value
     * valid over the broker's defaults.
     *
     * @param overrides name to value (no null value)
     * @return null when valid, else the message of Kafka's INVALID_CONFIG
     */
    String validate(final Map<String, String> overrides) {
        final Set<String> unknown = new TreeSet<>(LogConfig.unknownKeys(overrides));
        final Set<String> unsupported = new TreeSet<>(unknown);
        unsupported.retainAll(KAFKA_ONLY);
        unknown.removeAll(KAFKA_ONLY);
        if (!unknown.isEmpty()) {
            return "Unknown topic config name: " + String.join(", ", unknown);
        }
        if (!unsupported.isEmpty()) {
            return "Topic config " + String.join(", ", unsupported) + " is not supported by Seglog";
        }
        try {
            brokerDefaults.withProperties(overrides);
            return null;
        } catch (final IllegalArgumentException e) {
            return "Invalid topic config: " + e.getMessage();
        }
    }

    /**
     * A topic's configuration, Kafka's topic configs only.
     *
     * @param overrides    the topic's overrides (valid)
     * @param withSynonyms whether to list each entry's synonyms
     * @return the entries, in {@link #KEYS} order
     */
    List<Entry> describe(final Map<String, String> overrides, final boolean withSynonyms) {
        Map<String, String> effective;
        try {
            effective = brokerDefaults.withProperties(overrides).toProperties();
        } catch (final IllegalArgumentException e) {
            effective = brokerValues; // an override written by another tool that Seglog refuses: show the defaults
        }
        final List<Entry> out = new ArrayList<>(KEYS.size());
        for (final Key key : KEYS) {
            final List<Synonym> synonyms = new ArrayList<>(3);
            final String override = overrides.get(key.name());
            if (override != null) {
                synonyms.add(new Synonym(key.name(), effective.get(key.name()), SOURCE_TOPIC));
            }
            final String broker = brokerValues.get(key.name());
            if (!broker.equals(kafkaDefaults.get(key.name()))) {
                synonyms.add(new Synonym(key.brokerSynonym(), broker, SOURCE_STATIC_BROKER));
            }
            synonyms.add(new Synonym(key.brokerSynonym(), kafkaDefaults.get(key.name()), SOURCE_DEFAULT));
            out.add(new Entry(key.name(), effective.get(key.name()), synonyms.get(0).source(), key.type(),
                withSynonyms ? List.copyOf(synonyms) : List.of()));
        }
        return out;
    }
}
