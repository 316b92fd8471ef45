package io.seglog.replication.wire;

import io.seglog.storage.CleanupPolicy;
import io.seglog.storage.LogConfig;
import io.seglog.storage.config.ConfigDef;
import io.seglog.storage.config.ConfigKey;
import java.util.ArrayList;
import java.util.HashMap;
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

    /**
     * Kafka 4.4's topic configs that Seglog's LogConfig reads, in Kafka's {@code TopicConfig} order (the order
     * DescribeConfigs lists them in). Each is LogConfig's name; its synonym and type come from the tables.
     */
    static final List<String> NAMES = List.of(LogConfig.SEGMENT_BYTES_CONFIG, LogConfig.SEGMENT_MS_CONFIG,
        LogConfig.SEGMENT_JITTER_MS_CONFIG, LogConfig.SEGMENT_INDEX_BYTES_CONFIG, LogConfig.FLUSH_MESSAGES_CONFIG,
        LogConfig.FLUSH_MS_CONFIG, LogConfig.RETENTION_BYTES_CONFIG, LogConfig.RETENTION_MS_CONFIG,
        LogConfig.MAX_MESSAGE_BYTES_CONFIG, LogConfig.INDEX_INTERVAL_BYTES_CONFIG, LogConfig.FILE_DELETE_DELAY_MS_CONFIG,
        LogConfig.DELETE_RETENTION_MS_CONFIG, LogConfig.MIN_COMPACTION_LAG_MS_CONFIG,
        LogConfig.MAX_COMPACTION_LAG_MS_CONFIG, LogConfig.MIN_CLEANABLE_DIRTY_RATIO_CONFIG,
        LogConfig.CLEANUP_POLICY_CONFIG, LogConfig.UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG,
        LogConfig.MIN_INSYNC_REPLICAS_CONFIG, LogConfig.COMPRESSION_TYPE_CONFIG, LogConfig.COMPRESSION_GZIP_LEVEL_CONFIG,
        LogConfig.COMPRESSION_LZ4_LEVEL_CONFIG, LogConfig.COMPRESSION_ZSTD_LEVEL_CONFIG,
        LogConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG, LogConfig.MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG,
        LogConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG);

    /**
     * Kafka's broker-level names of the cleaner's topic settings. Seglog's broker does not read them (no table
     * defines them), so they are spelled here only, for DescribeConfigs to name the level Kafka would; every other
     * broker-level synonym is a key of the broker's table, and a topic key without one is its own synonym (Kafka's
     * {@code min.insync.replicas}, {@code compression.type}, ...).
     */
    private static final Map<String, String> UNREAD_SYNONYMS = Map.of(
        LogConfig.DELETE_RETENTION_MS_CONFIG, "log.cleaner.delete.retention.ms",
        LogConfig.MIN_COMPACTION_LAG_MS_CONFIG, "log.cleaner.min.compaction.lag.ms",
        LogConfig.MAX_COMPACTION_LAG_MS_CONFIG, "log.cleaner.max.compaction.lag.ms",
        LogConfig.MIN_CLEANABLE_DIRTY_RATIO_CONFIG, "log.cleaner.min.cleanable.ratio");

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
    private final List<Key> keys;

    /**
     * @param brokerDefaults the broker's topic defaults (its {@code log.*} settings)
     * @param brokerTable    the broker's configuration table: its synonym keys ({@link ConfigKey#synonymOf()}) are
     *                       the broker-level names of the topic keys
     */
    TopicConfigs(final LogConfig brokerDefaults, final ConfigDef brokerTable) {
        this.brokerDefaults = brokerDefaults;
        this.brokerValues = brokerDefaults.toProperties();
        this.kafkaDefaults = LogConfig.defaults().toProperties();
        this.keys = keys(brokerTable);
    }

    /**
     * The topic configs of {@link #NAMES}, each with its broker-level synonym (the broker table's key that stands for
     * it, else Kafka's name the broker does not read, else its own name) and Kafka's type of its {@link LogConfig} key.
     *
     * @param brokerTable the broker's configuration table
     * @return the keys, in {@link #NAMES} order
     */
    static List<Key> keys(final ConfigDef brokerTable) {
        final Map<String, String> synonyms = new HashMap<>(UNREAD_SYNONYMS);
        for (final ConfigKey<?> key : brokerTable.keys()) {
            if (key.synonymOf() != null) {
                synonyms.put(key.synonymOf().name(), key.name());
            }
        }
        final List<Key> out = new ArrayList<>(NAMES.size());
        for (final String name : NAMES) {
            out.add(new Key(name, synonyms.getOrDefault(name, name), kafkaType(LogConfig.configDef().key(name))));
        }
        return List.copyOf(out);
    }

    /**
     * Kafka's config type id of a key: by its value type, with {@code cleanup.policy}'s ({@link CleanupPolicy}, a
     * comma-separated list of policies) Kafka's LIST and every other named value a STRING.
     */
    private static byte kafkaType(final ConfigKey<?> key) {
        final Class<?> type = key.type();
        if (type == Integer.class) {
            return TYPE_INT;
        }
        if (type == Long.class) {
            return TYPE_LONG;
        }
        if (type == Double.class) {
            return TYPE_DOUBLE;
        }
        if (type == Boolean.class) {
            return TYPE_BOOLEAN;
        }
        return type == CleanupPolicy.class ? TYPE_LIST : TYPE_STRING;
    }

    /**
     * The topic configs DescribeConfigs lists, in its order.
     *
     * @return the keys
     */
    List<Key> keys() {
        return keys;
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
     * @return the entries, in {@link #NAMES} order
     */
    List<Entry> describe(final Map<String, String> overrides, final boolean withSynonyms) {
        Map<String, String> effective;
        try {
            effective = brokerDefaults.withProperties(overrides).toProperties();
        } catch (final IllegalArgumentException e) {
            effective = brokerValues; // an override written by another tool that Seglog refuses: show the defaults
        }
        final List<Entry> out = new ArrayList<>(keys.size());
        for (final Key key : keys) {
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
