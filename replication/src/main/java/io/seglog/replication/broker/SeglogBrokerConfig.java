package io.seglog.replication.broker;

import io.seglog.replication.ReplicationConfig;
import io.seglog.replication.replica.ReplicaManagerConfig;
import io.seglog.replication.wire.WireServerConfig;
import io.seglog.storage.LogConfig;
import io.seglog.storage.LogManagerConfig;
import io.seglog.storage.config.ConfigDef;
import io.seglog.storage.config.ConfigKey;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The configuration of a {@link SeglogBroker}, read from a Kafka {@code server.properties}: one immutable object
 * holding the configuration of each component, every one read from Kafka's property names.
 *
 * <ul>
 *   <li>{@code broker.id}, {@code broker.rack}, {@code zookeeper.*}, {@code unclean.leader.election.enable},
 *       {@code auto.leader.rebalance.enable}, ...: {@link ReplicationConfig};</li>
 *   <li>{@code listeners} (one {@code PLAINTEXT://host:port}; port 0 picks a free one), {@code advertised.listeners}
 *       (default: the listener, with {@code localhost} for an empty host), {@code socket.request.max.bytes},
 *       {@code connections.max.idle.ms}, {@code num.network.threads}: the Kafka-protocol server;</li>
 *   <li>{@code log.dirs} (or {@code log.dir}), and the broker's topic defaults under Kafka's broker names
 *       ({@code log.segment.bytes}, {@code log.retention.ms}/{@code .minutes}/{@code .hours},
 *       {@code log.retention.bytes}, {@code log.flush.interval.messages}, {@code log.flush.interval.ms},
 *       {@code log.index.interval.bytes}, {@code log.cleanup.policy}, {@code message.max.bytes},
 *       {@code log.message.timestamp.type}, {@code min.insync.replicas}, ...) or their topic names
 *       ({@code segment.bytes}, ...): {@link LogManagerConfig};</li>
 *   <li>{@code replica.*}, {@code num.replica.fetchers}, {@code seglog.acks.all.durable}: {@link ReplicaManagerConfig};</li>
 *   <li>{@code default.replication.factor} and {@code num.partitions}: topics created through the broker.</li>
 * </ul>
 * A key of a feature Seglog does not have (TLS, SASL, ACLs, quotas, KRaft) is refused, naming it; a key Kafka knows
 * and Seglog does not read is listed once at INFO (no effect); any other key is an unknown one, a WARN with the
 * nearest known key ({@code BrokerProperties}). So a whole Kafka {@code server.properties} can be passed, and a typo
 * is heard.
 *
 * @param replication        the control plane's configuration
 * @param listener           where the Kafka-protocol server listens
 * @param advertisedHost     the host other brokers and clients are told
 * @param advertisedPort     the port they are told, 0 for the bound one
 * @param networkThreads     the server's event-loop threads
 * @param logs               the log directories and topic defaults
 * @param replicas           fetch, lag and acknowledgement settings
 * @param defaultReplicationFactor {@code default.replication.factor}
 * @param numPartitions      {@code num.partitions}
 * @param autoCreateTopics   {@code auto.create.topics.enable} (Kafka's default, true)
 * @param groups             the group coordinator's settings ({@code group.*}, {@code offsets.*})
 */
public record SeglogBrokerConfig(ReplicationConfig replication, WireServerConfig listener, String advertisedHost,
                                 int advertisedPort, int networkThreads, LogManagerConfig logs,
                                 ReplicaManagerConfig replicas, int defaultReplicationFactor, int numPartitions,
                                 boolean autoCreateTopics, GroupCoordinatorConfig groups) {
    /** Kafka's advertised listener list. */
    public static final String ADVERTISED_LISTENERS = "advertised.listeners";
    /** Kafka's event-loop thread count of the network layer. */
    public static final String NUM_NETWORK_THREADS = "num.network.threads";
    /** Kafka's log directories. */
    public static final String LOG_DIRS = "log.dirs";
    /** Kafka's single log directory (used when {@value #LOG_DIRS} is absent). */
    public static final String LOG_DIR = "log.dir";
    /** Kafka's replication factor of topics created without one. */
    public static final String DEFAULT_REPLICATION_FACTOR = "default.replication.factor";
    /** Kafka's partition count of topics created without one. */
    public static final String NUM_PARTITIONS = "num.partitions";
    /** Kafka's switch for creating the topics a producer's or consumer's Metadata request names. */
    public static final String AUTO_CREATE_TOPICS_ENABLE = "auto.create.topics.enable";
    /** Kafka's retention check interval. */
    public static final String LOG_RETENTION_CHECK_INTERVAL_MS =
        LogManagerConfig.RETENTION_CHECK_INTERVAL_MS_CONFIG;
    /** Kafka's check of {@code flush.ms}. */
    public static final String LOG_FLUSH_SCHEDULER_INTERVAL_MS =
        LogManagerConfig.FLUSH_SCHEDULER_INTERVAL_MS_CONFIG;
    /** Kafka's recovery-point checkpoint interval. */
    public static final String LOG_FLUSH_OFFSET_CHECKPOINT_INTERVAL_MS =
        LogManagerConfig.FLUSH_OFFSET_CHECKPOINT_INTERVAL_MS_CONFIG;
    /** Kafka's log-start checkpoint interval. */
    public static final String LOG_FLUSH_START_OFFSET_CHECKPOINT_INTERVAL_MS =
        LogManagerConfig.FLUSH_START_OFFSET_CHECKPOINT_INTERVAL_MS_CONFIG;
    /** Kafka's high-watermark checkpoint interval. */
    public static final String REPLICA_HIGH_WATERMARK_CHECKPOINT_INTERVAL_MS =
        LogManagerConfig.HIGH_WATERMARK_CHECKPOINT_INTERVAL_MS_CONFIG;
    /** Kafka's threads per log directory that open (and recover) logs at start. */
    public static final String NUM_RECOVERY_THREADS_PER_DATA_DIR =
        LogManagerConfig.RECOVERY_THREADS_PER_DATA_DIR_CONFIG;

    /** The control plane's advertised host and port, which a broker's {@value #ADVERTISED_LISTENERS} stands for. */
    private static final java.util.Set<String> ADVERTISED_BY_LISTENERS = java.util.Set.of(
        ReplicationConfig.ADVERTISED_HOST, ReplicationConfig.ADVERTISED_PORT);

    private static final ConfigDef TABLE = new ConfigDef("SeglogBrokerConfig");
    private static final ConfigKey<String> ADVERTISED = TABLE.stringKey(ADVERTISED_LISTENERS, null,
        "the PLAINTEXT://host:port other brokers and clients are told (default: the listener, localhost for an empty"
            + " host)", "broker");
    private static final ConfigKey<Integer> NETWORK_THREADS = TABLE.intKey(NUM_NETWORK_THREADS, 3, 1,
        "the Kafka-protocol server's event-loop threads", "wire");
    private static final ConfigKey<String> DIRS = TABLE.stringKey(LOG_DIRS, null,
        "comma-separated log directories (default: log.dir)", "log manager");
    private static final ConfigKey<String> DIR = TABLE.stringKey(LOG_DIR, "/tmp/kafka-logs",
        "the log directory when log.dirs is absent", "log manager");
    private static final ConfigKey<Integer> REPLICATION_FACTOR = TABLE.intKey(DEFAULT_REPLICATION_FACTOR, 1, 1,
        "the replication factor of topics created without one", "broker");
    private static final ConfigKey<Integer> PARTITIONS = TABLE.intKey(NUM_PARTITIONS, 1, 1,
        "the partition count of topics created without one", "broker");
    private static final ConfigKey<Boolean> AUTO_CREATE = TABLE.booleanKey(AUTO_CREATE_TOPICS_ENABLE, true,
        "whether a Metadata request creates the topics it names", "broker");
    private static final ConfigKey<Long> RETENTION_MINUTES = TABLE.optionalLongKey("log.retention.minutes",
        Long.MIN_VALUE, "retention.ms's broker-wide default in minutes, when log.retention.ms is absent",
        "log manager");
    private static final ConfigKey<Long> RETENTION_HOURS = TABLE.optionalLongKey("log.retention.hours",
        Long.MIN_VALUE, "retention.ms's broker-wide default in hours, when log.retention.ms and"
            + " log.retention.minutes are absent", "log manager");
    /** Kafka's broker-level names of topic settings: each the broker-wide default of the topic-level key. */
    private static final List<ConfigKey<?>> BROKER_TO_TOPIC = List.of(
        synonym("log.segment.bytes", LogConfig.SEGMENT_BYTES_CONFIG, Integer.class),
        synonym("log.roll.ms", LogConfig.SEGMENT_MS_CONFIG, Long.class),
        synonym("log.roll.jitter.ms", LogConfig.SEGMENT_JITTER_MS_CONFIG, Long.class),
        synonym("log.index.size.max.bytes", LogConfig.SEGMENT_INDEX_BYTES_CONFIG, Integer.class),
        synonym("log.index.interval.bytes", LogConfig.INDEX_INTERVAL_BYTES_CONFIG, Integer.class),
        synonym("message.max.bytes", LogConfig.MAX_MESSAGE_BYTES_CONFIG, Integer.class),
        synonym("log.message.timestamp.type", LogConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG,
            io.seglog.storage.TimestampType.class),
        synonym("log.message.timestamp.before.max.ms", LogConfig.MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG, Long.class),
        synonym("log.message.timestamp.after.max.ms", LogConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG, Long.class),
        synonym("log.retention.ms", LogConfig.RETENTION_MS_CONFIG, Long.class),
        synonym("log.retention.bytes", LogConfig.RETENTION_BYTES_CONFIG, Long.class),
        synonym("log.flush.interval.messages", LogConfig.FLUSH_MESSAGES_CONFIG, Long.class),
        synonym("log.flush.interval.ms", LogConfig.FLUSH_MS_CONFIG, Long.class),
        synonym("log.segment.delete.delay.ms", LogConfig.FILE_DELETE_DELAY_MS_CONFIG, Long.class),
        synonym("log.cleanup.policy", LogConfig.CLEANUP_POLICY_CONFIG, io.seglog.storage.CleanupPolicy.class));

    /** The topic-level names {@link LogConfig} reads, accepted here as broker-wide defaults. */
    static final java.util.Set<String> TOPIC_KEYS = java.util.Set.of(LogConfig.SEGMENT_BYTES_CONFIG,
        LogConfig.INTERNAL_SEGMENT_BYTES_CONFIG, LogConfig.SEGMENT_MS_CONFIG, LogConfig.SEGMENT_JITTER_MS_CONFIG,
        LogConfig.SEGMENT_INDEX_BYTES_CONFIG, LogConfig.INDEX_INTERVAL_BYTES_CONFIG, LogConfig.MAX_MESSAGE_BYTES_CONFIG,
        LogConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG, LogConfig.MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG,
        LogConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG, LogConfig.RETENTION_MS_CONFIG, LogConfig.RETENTION_BYTES_CONFIG,
        LogConfig.FLUSH_MESSAGES_CONFIG, LogConfig.FLUSH_MS_CONFIG, LogConfig.FILE_DELETE_DELAY_MS_CONFIG,
        LogConfig.MAPPED_APPEND_MAX_BYTES_CONFIG, LogConfig.CORRUPTION_POLICY_CONFIG, LogConfig.CLEANUP_POLICY_CONFIG,
        LogConfig.READ_MAPPED_CONFIG, LogConfig.MIN_INSYNC_REPLICAS_CONFIG,
        LogConfig.UNCLEAN_LEADER_ELECTION_ENABLE_CONFIG);

    /**
     * Checks the values that are this object's own.
     *
     * @param replication    the control plane's configuration
     * @param listener       the listener
     * @param advertisedHost the advertised host, not empty
     * @param advertisedPort the advertised port, 0 to 65535
     * @param networkThreads at least 1
     * @param logs           the log configuration
     * @param replicas       the replica configuration
     * @param defaultReplicationFactor at least 1
     * @param numPartitions  at least 1
     * @param autoCreateTopics whether Metadata requests create unknown topics
     * @param groups         the group coordinator's settings
     * @throws IllegalArgumentException naming the key and value
     */
    public SeglogBrokerConfig {
        Objects.requireNonNull(replication, "replication");
        Objects.requireNonNull(groups, "groups");
        Objects.requireNonNull(listener, "listener");
        Objects.requireNonNull(logs, "logs");
        Objects.requireNonNull(replicas, "replicas");
        if (advertisedHost == null || advertisedHost.isBlank()) {
            throw new IllegalArgumentException(ADVERTISED_LISTENERS + " host=" + advertisedHost + " must not be empty");
        }
        if (advertisedPort < 0 || advertisedPort > 65_535) {
            throw new IllegalArgumentException(ADVERTISED_LISTENERS + " port=" + advertisedPort + " outside [0, 65535]");
        }
        TABLE.assign().set(NETWORK_THREADS, networkThreads).set(REPLICATION_FACTOR, defaultReplicationFactor)
            .set(PARTITIONS, numPartitions).set(AUTO_CREATE, autoCreateTopics).validate();
    }

    private static <T> ConfigKey<T> synonym(final String brokerName, final String topicName, final Class<T> type) {
        return TABLE.synonym(brokerName, LogConfig.configDef().key(topicName, type), "log manager");
    }

    private static String topicName(final ConfigKey<?> synonym) {
        return synonym.synonymOf().name();
    }

    /**
     * The table of the broker's own keys (for the configuration reference); each component's keys are in its own
     * table, and the broker's reference (docs/configuration.md) lists them all.
     *
     * @return the table
     */
    public static ConfigDef configDef() {
        return TABLE;
    }

    /**
     * Reads a Kafka {@code server.properties}: a WARN for each unknown key (with the nearest known one), one INFO line
     * for Kafka's keys that have no effect here.
     *
     * @param supplied property name to value
     * @return the configuration
     * @throws IllegalArgumentException naming the key and value of the first invalid or missing setting, or of a key
     *     of a feature Seglog does not have (TLS, SASL, ACLs, quotas, KRaft, tiered storage)
     */
    public static SeglogBrokerConfig fromProperties(final Map<String, ?> supplied) {
        final Checked checked = checked(supplied);
        BrokerProperties.log(checked.check());
        return checked.config();
    }

    /** The configuration and the verdict on the keys it did not read. */
    record Checked(SeglogBrokerConfig config, BrokerProperties.Check check) {
    }

    /** Reads the properties and judges the keys it did not read (see {@link BrokerProperties}). */
    static Checked checked(final Map<String, ?> supplied) {
        // What Seglog knows is what the components' tables define (ConfigReferenceTest checks that every key a
        // component reads is in them).
        final SeglogBrokerConfig config = read(supplied);
        return new Checked(config, BrokerProperties.check(supplied, ConfigReference.brokerKeys(TOPIC_KEYS)));
    }

    static SeglogBrokerConfig read(final Map<String, ?> props) {
        final ReplicationConfig replication = ReplicationConfig.fromProperties(props);
        final WireServerConfig listener = WireServerConfig.fromProperties(props);
        String advertisedHost = listener.host().isEmpty() || "0.0.0.0".equals(listener.host()) ? "localhost"
            : listener.host();
        int advertisedPort = listener.port();
        final String advertised = ADVERTISED.read(props);
        if (advertised != null && !advertised.isBlank()) {
            final WireServerConfig parsed = WireServerConfig.fromProperties(
                Map.of(WireServerConfig.LISTENERS, advertised));
            advertisedHost = parsed.host().isEmpty() ? advertisedHost : parsed.host();
            advertisedPort = parsed.port();
        }
        final Map<String, Object> topicDefaults = new HashMap<>();
        props.forEach((k, v) -> {
            if (TOPIC_KEYS.contains(k)) {
                topicDefaults.put(k, v); // a topic-level name given as the broker's default
            }
        });
        for (final ConfigKey<?> broker : BROKER_TO_TOPIC) {
            final String topic = topicName(broker);
            if (props.containsKey(broker.name()) && !props.containsKey(topic)) {
                topicDefaults.put(topic, props.get(broker.name()));
            }
        }
        retention(props).ifPresent(ms -> topicDefaults.putIfAbsent(LogConfig.RETENTION_MS_CONFIG, ms));
        final LogManagerConfig logs = LogManagerConfig.builder()
            .logDirs(logDirs(props).toArray(new Path[0]))
            .logConfig(LogConfig.fromProperties(topicDefaults))
            .cleanerConfig(io.seglog.storage.CleanerConfig.fromProperties(props))
            .brokerEpoch(-1)
            .properties(props)
            .build();
        return new SeglogBrokerConfig(replication, listener, advertisedHost, advertisedPort,
            NETWORK_THREADS.read(props), logs, ReplicaManagerConfig.fromProperties(props),
            REPLICATION_FACTOR.read(props), PARTITIONS.read(props), AUTO_CREATE.read(props),
            GroupCoordinatorConfig.fromProperties(props));
    }

    /**
     * This configuration under Kafka's broker property names, as DescribeConfigs shows a broker's: the control plane
     * ({@code broker.id}, {@code zookeeper.*}, elections), the listener, the topic defaults under their broker names
     * ({@code log.retention.ms}, {@code message.max.bytes}, ...), the replica fetchers and topic creation. Effective
     * values (a default where the properties set nothing), each component's from its table: every key with a value
     * but secrets and the control plane's advertised host and port, for which a broker has {@code
     * advertised.listeners}.
     *
     * @return name to value, sorted by name
     */
    public Map<String, String> kafkaProperties() {
        final Map<String, String> out = new java.util.TreeMap<>(replication.kafkaProperties());
        out.keySet().removeAll(ADVERTISED_BY_LISTENERS);
        out.putAll(listener.kafkaProperties());
        out.putAll(replicas.kafkaProperties());
        out.putAll(assigned().shownProperties());
        out.putAll(groups.kafkaProperties());
        return java.util.Collections.unmodifiableMap(out);
    }

    /**
     * The broker's own keys from its table, the topic defaults under their broker-level names, then each component's
     * configuration as its own table prints it (secrets hidden): {@code SeglogBrokerConfig{advertised.listeners=...,
     * ...} ReplicationConfig{...} WireServerConfig{...} LogManagerConfig{...} ReplicaManagerConfig{...}
     * GroupCoordinatorConfig{...}}. {@code log.dirs} shows the directories in use, which {@code log.dir} and the
     * retention minutes and hours (folded into {@code log.retention.ms}) leave unset.
     *
     * @return the text
     */
    @Override
    public String toString() {
        return assigned() + " " + replication + " " + listener + " " + logs + " " + replicas + " " + groups;
    }

    /**
     * The broker's own keys and the topic defaults under their broker-level names; log.dir and the retention's minutes
     * and hours, which log.dirs and log.retention.ms stand for once read, unset.
     */
    private ConfigDef.Assignment assigned() {
        final ConfigDef.Assignment own = TABLE.assign()
            .set(ADVERTISED, "PLAINTEXT://" + advertisedHost + ":" + advertisedPort)
            .set(NETWORK_THREADS, networkThreads)
            .set(DIRS, String.join(",", logs.logDirs().stream().map(Path::toString).toList())).set(DIR, null)
            .set(REPLICATION_FACTOR, defaultReplicationFactor).set(PARTITIONS, numPartitions)
            .set(AUTO_CREATE, autoCreateTopics);
        final Map<String, String> topic = logs.logConfig().toProperties();
        BROKER_TO_TOPIC.forEach(broker -> setText(own, broker, topic.get(topicName(broker))));
        return own;
    }

    private static <T> void setText(final ConfigDef.Assignment values, final ConfigKey<T> key, final String text) {
        values.set(key, key.fromProperty(text));
    }

    /** Kafka's retention keys by precedence: ms, then minutes, then hours. */
    private static java.util.Optional<Long> retention(final Map<String, ?> props) {
        if (props.get("log.retention.ms") != null) {
            return java.util.Optional.empty(); // mapped above
        }
        final Long minutes = RETENTION_MINUTES.read(props);
        if (minutes != null) {
            return java.util.Optional.of(minutes * 60_000L);
        }
        final Long hours = RETENTION_HOURS.read(props);
        return hours == null ? java.util.Optional.empty() : java.util.Optional.of(hours * 3_600_000L);
    }

    private static List<Path> logDirs(final Map<String, ?> props) {
        final String dirs = DIRS.read(props);
        final String value = dirs != null ? dirs : DIR.read(props);
        final List<Path> out = new ArrayList<>();
        for (final String d : value.split(",")) {
            if (!d.isBlank()) {
                out.add(Path.of(d.trim()));
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException(LOG_DIRS + "=" + value + " names no directory");
        }
        return out;
    }




}
