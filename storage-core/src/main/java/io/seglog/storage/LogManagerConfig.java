package io.seglog.storage;

import io.seglog.storage.config.ConfigDef;
import io.seglog.storage.config.ConfigKey;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Configuration of a {@link LogManager}: its log directories, the default and per-topic {@link LogConfig}, and
 * the cadence of its background work (Kafka's broker settings, named in each method). Immutable; built by
 * {@link #builder()}, validated once by {@link Builder#build()} with messages naming the setting and value.
 */
public final class LogManagerConfig {
    /** Kafka's {@code log.retention.check.interval.ms} default: 5 minutes. */
    public static final long DEFAULT_RETENTION_CHECK_INTERVAL_MS = 300_000;
    /**
     * How often {@code flush.ms} is checked. Kafka's {@code log.flush.scheduler.interval.ms} defaults to never,
     * which makes {@code flush.ms} inert; Seglog checks every second so a configured {@code flush.ms} works.
     */
    public static final long DEFAULT_FLUSH_CHECK_INTERVAL_MS = 1_000;
    /** Kafka's {@code log.flush.offset.checkpoint.interval.ms} default: 1 minute. */
    public static final long DEFAULT_RECOVERY_POINT_CHECKPOINT_INTERVAL_MS = 60_000;
    /** Kafka's {@code log.flush.start.offset.checkpoint.interval.ms} default: 1 minute. */
    public static final long DEFAULT_LOG_START_CHECKPOINT_INTERVAL_MS = 60_000;
    /** Kafka's {@code replica.high.watermark.checkpoint.interval.ms} default: 5 seconds. */
    public static final long DEFAULT_HIGH_WATERMARK_CHECKPOINT_INTERVAL_MS = 5_000;
    /** Kafka's {@code num.recovery.threads.per.data.dir} default: 2. */
    public static final int DEFAULT_OPEN_THREADS_PER_DIR = 2;

    /** Kafka's broker property name behind {@link Builder#retentionCheckIntervalMs}. */
    public static final String RETENTION_CHECK_INTERVAL_MS_CONFIG = "log.retention.check.interval.ms";
    /** Kafka's broker property name behind {@link Builder#flushCheckIntervalMs}. */
    public static final String FLUSH_SCHEDULER_INTERVAL_MS_CONFIG = "log.flush.scheduler.interval.ms";
    /** Kafka's broker property name behind {@link Builder#recoveryPointCheckpointIntervalMs}. */
    public static final String FLUSH_OFFSET_CHECKPOINT_INTERVAL_MS_CONFIG = "log.flush.offset.checkpoint.interval.ms";
    /** Kafka's broker property name behind {@link Builder#logStartCheckpointIntervalMs}. */
    public static final String FLUSH_START_OFFSET_CHECKPOINT_INTERVAL_MS_CONFIG =
        "log.flush.start.offset.checkpoint.interval.ms";
    /** Kafka's broker property name behind {@link Builder#highWatermarkCheckpointIntervalMs}. */
    public static final String HIGH_WATERMARK_CHECKPOINT_INTERVAL_MS_CONFIG =
        "replica.high.watermark.checkpoint.interval.ms";
    /** Kafka's broker property name behind {@link Builder#openThreadsPerDir}. */
    public static final String RECOVERY_THREADS_PER_DATA_DIR_CONFIG = "num.recovery.threads.per.data.dir";

    private static final String READER = "log manager";
    private static final ConfigDef TABLE = new ConfigDef("LogManagerConfig");
    private static final ConfigKey<Long> RETENTION_CHECK = TABLE.longKey(RETENTION_CHECK_INTERVAL_MS_CONFIG,
        DEFAULT_RETENTION_CHECK_INTERVAL_MS, 1, "how often retention is checked", READER);
    private static final ConfigKey<Long> FLUSH_CHECK = TABLE.longKey(FLUSH_SCHEDULER_INTERVAL_MS_CONFIG,
        DEFAULT_FLUSH_CHECK_INTERVAL_MS, 1, "how often flush.ms is checked (Kafka's default, never, makes flush.ms"
            + " inert)", READER);
    private static final ConfigKey<Long> RECOVERY_POINT_CHECKPOINT = TABLE.longKey(
        FLUSH_OFFSET_CHECKPOINT_INTERVAL_MS_CONFIG, DEFAULT_RECOVERY_POINT_CHECKPOINT_INTERVAL_MS, 1,
        "how often the recovery points are checkpointed", READER);
    private static final ConfigKey<Long> LOG_START_CHECKPOINT = TABLE.longKey(
        FLUSH_START_OFFSET_CHECKPOINT_INTERVAL_MS_CONFIG, DEFAULT_LOG_START_CHECKPOINT_INTERVAL_MS, 1,
        "how often the log start offsets are checkpointed", READER);
    private static final ConfigKey<Long> HIGH_WATERMARK_CHECKPOINT = TABLE.longKey(
        HIGH_WATERMARK_CHECKPOINT_INTERVAL_MS_CONFIG, DEFAULT_HIGH_WATERMARK_CHECKPOINT_INTERVAL_MS, 1,
        "how often the high watermarks are checkpointed", READER);
    private static final ConfigKey<Integer> OPEN_THREADS = TABLE.intKey(RECOVERY_THREADS_PER_DATA_DIR_CONFIG,
        DEFAULT_OPEN_THREADS_PER_DIR, 1, "threads per log directory that open (and recover) logs at start", READER);

    /**
     * The table of the broker keys this class reads (for the configuration reference).
     *
     * @return the table
     */
    public static ConfigDef configDef() {
        return TABLE;
    }

    private final List<Path> logDirs;
    private final LogConfig logConfig;
    private final Map<String, LogConfig> topicConfigs;
    private final long retentionCheckIntervalMs;
    private final long flushCheckIntervalMs;
    private final long recoveryPointCheckpointIntervalMs;
    private final long logStartCheckpointIntervalMs;
    private final long highWatermarkCheckpointIntervalMs;
    private final int openThreadsPerDir;
    private final long brokerEpoch;
    private final CleanerConfig cleanerConfig;

    private LogManagerConfig(final Builder b) {
        this.logDirs = List.copyOf(b.logDirs);
        this.logConfig = b.logConfig;
        this.topicConfigs = Map.copyOf(b.topicConfigs);
        this.retentionCheckIntervalMs = b.retentionCheckIntervalMs;
        this.flushCheckIntervalMs = b.flushCheckIntervalMs;
        this.recoveryPointCheckpointIntervalMs = b.recoveryPointCheckpointIntervalMs;
        this.logStartCheckpointIntervalMs = b.logStartCheckpointIntervalMs;
        this.highWatermarkCheckpointIntervalMs = b.highWatermarkCheckpointIntervalMs;
        this.openThreadsPerDir = b.openThreadsPerDir;
        this.brokerEpoch = b.brokerEpoch;
        this.cleanerConfig = b.cleanerConfig;
    }

    /**
     * A builder with Kafka's defaults and no log directory yet.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The log directories, absolute and normalised ({@code log.dirs}).
     *
     * @return an immutable list, at least one
     */
    public List<Path> logDirs() {
        return logDirs;
    }

    /**
     * The default log configuration.
     *
     * @return the configuration used for topics without their own
     */
    public LogConfig logConfig() {
        return logConfig;
    }

    /**
     * The log configuration of a topic: its own if one was given, else the default.
     *
     * @param topic a topic name
     * @return the configuration
     */
    public LogConfig logConfig(final String topic) {
        return topicConfigs.getOrDefault(topic, logConfig);
    }

    /**
     * How often retention runs ({@code log.retention.check.interval.ms}).
     *
     * @return milliseconds
     */
    public long retentionCheckIntervalMs() {
        return retentionCheckIntervalMs;
    }

    /**
     * How often {@code flush.ms} is checked ({@code log.flush.scheduler.interval.ms}).
     *
     * @return milliseconds
     */
    public long flushCheckIntervalMs() {
        return flushCheckIntervalMs;
    }

    /**
     * How often {@code recovery-point-offset-checkpoint} is written ({@code log.flush.offset.checkpoint.interval.ms}).
     *
     * @return milliseconds
     */
    public long recoveryPointCheckpointIntervalMs() {
        return recoveryPointCheckpointIntervalMs;
    }

    /**
     * How often {@code log-start-offset-checkpoint} is written ({@code log.flush.start.offset.checkpoint.interval.ms}).
     *
     * @return milliseconds
     */
    public long logStartCheckpointIntervalMs() {
        return logStartCheckpointIntervalMs;
    }

    /**
     * How often {@code replication-offset-checkpoint} is written ({@code replica.high.watermark.checkpoint.interval.ms}).
     *
     * @return milliseconds
     */
    public long highWatermarkCheckpointIntervalMs() {
        return highWatermarkCheckpointIntervalMs;
    }

    /**
     * Threads per log directory that open partitions at start ({@code num.recovery.threads.per.data.dir}); they
     * exist only during {@link LogManager#open} and only when there is more than one partition to open.
     *
     * @return at least 1
     */
    public int openThreadsPerDir() {
        return openThreadsPerDir;
    }

    /**
     * The broker epoch written into the clean-shutdown marker, -1 when there is none.
     *
     * @return the broker epoch
     */
    public long brokerEpoch() {
        return brokerEpoch;
    }

    /**
     * The log cleaner's settings ({@code log.cleaner.*}); Kafka's defaults unless set.
     *
     * @return the settings
     */
    public CleanerConfig cleanerConfig() {
        return cleanerConfig;
    }

    /**
     * The log manager's keys from its table ({@code LogManagerConfig{log.retention.check.interval.ms=300000, ...}}),
     * then what it holds beside them: the log directories, the broker epoch, the topic defaults, the names of the
     * topics with overrides and the cleaner's settings, each printed by its own table.
     *
     * @return the text
     */
    @Override
    public String toString() {
        return TABLE.assign().set(RETENTION_CHECK, retentionCheckIntervalMs).set(FLUSH_CHECK, flushCheckIntervalMs)
            .set(RECOVERY_POINT_CHECKPOINT, recoveryPointCheckpointIntervalMs)
            .set(LOG_START_CHECKPOINT, logStartCheckpointIntervalMs)
            .set(HIGH_WATERMARK_CHECKPOINT, highWatermarkCheckpointIntervalMs).set(OPEN_THREADS, openThreadsPerDir)
            + " logDirs=" + logDirs + ", brokerEpoch=" + brokerEpoch + ", " + logConfig + ", topicConfigs="
            + topicConfigs.keySet() + ", " + cleanerConfig;
    }

    /** Builds a {@link LogManagerConfig}. Not thread-safe. */
    public static final class Builder {
        private final List<Path> logDirs = new ArrayList<>();
        private LogConfig logConfig = LogConfig.defaults();
        private final Map<String, LogConfig> topicConfigs = new HashMap<>();
        private CleanerConfig cleanerConfig = CleanerConfig.DEFAULTS;
        private long retentionCheckIntervalMs = DEFAULT_RETENTION_CHECK_INTERVAL_MS;
        private long flushCheckIntervalMs = DEFAULT_FLUSH_CHECK_INTERVAL_MS;
        private long recoveryPointCheckpointIntervalMs = DEFAULT_RECOVERY_POINT_CHECKPOINT_INTERVAL_MS;
        private long logStartCheckpointIntervalMs = DEFAULT_LOG_START_CHECKPOINT_INTERVAL_MS;
        private long highWatermarkCheckpointIntervalMs = DEFAULT_HIGH_WATERMARK_CHECKPOINT_INTERVAL_MS;
        private int openThreadsPerDir = DEFAULT_OPEN_THREADS_PER_DIR;
        private long brokerEpoch = -1;

        private Builder() {
        }

        /**
         * Adds log directories.
         *
         * @param dirs the directories; created if missing
         * @return this
         */
        public Builder logDirs(final Path... dirs) {
            for (final Path dir : dirs) {
                logDirs.add(Objects.requireNonNull(dir, "logDir"));
            }
            return this;
        }

        /**
         * Sets the default log configuration.
         *
         * @param config the configuration
         * @return this
         */
        public Builder logConfig(final LogConfig config) {
            this.logConfig = Objects.requireNonNull(config, "logConfig");
            return this;
        }

        /**
         * Sets one topic's log configuration.
         *
         * @param topic  the topic, validated as a Kafka topic name
         * @param config its configuration
         * @return this
         */
        public Builder topicConfig(final String topic, final LogConfig config) {
            TopicPartition.validateTopic(topic);
            topicConfigs.put(topic, Objects.requireNonNull(config, "config"));
            return this;
        }

        /**
         * Sets the background cadences from Kafka's broker property names present in {@code props} (each key's
         * setter named in this class's table); absent keys keep their values.
         *
         * @param props property names to values (text or numbers)
         * @return this
         * @throws IllegalArgumentException naming the key and the value of an invalid setting
         */
        public Builder properties(final Map<String, ?> props) {
            retentionCheckIntervalMs = read(props, RETENTION_CHECK, retentionCheckIntervalMs);
            flushCheckIntervalMs = read(props, FLUSH_CHECK, flushCheckIntervalMs);
            recoveryPointCheckpointIntervalMs =
                read(props, RECOVERY_POINT_CHECKPOINT, recoveryPointCheckpointIntervalMs);
            logStartCheckpointIntervalMs = read(props, LOG_START_CHECKPOINT, logStartCheckpointIntervalMs);
            highWatermarkCheckpointIntervalMs =
                read(props, HIGH_WATERMARK_CHECKPOINT, highWatermarkCheckpointIntervalMs);
            openThreadsPerDir = read(props, OPEN_THREADS, openThreadsPerDir);
            return this;
        }

        private static <T> T read(final Map<String, ?> props, final ConfigKey<T> key, final T current) {
            return props.get(key.name()) == null ? current : key.read(props);
        }

        /**
         * Sets {@code log.retention.check.interval.ms}.
         *
         * @param ms at least 1
         * @return this
         */
        public Builder retentionCheckIntervalMs(final long ms) {
            this.retentionCheckIntervalMs = RETENTION_CHECK.check(ms);
            return this;
        }

        /**
         * Sets how often {@code flush.ms} is checked.
         *
         * @param ms at least 1
         * @return this
         */
        public Builder flushCheckIntervalMs(final long ms) {
            this.flushCheckIntervalMs = FLUSH_CHECK.check(ms);
            return this;
        }

        /**
         * Sets {@code log.flush.offset.checkpoint.interval.ms}.
         *
         * @param ms at least 1
         * @return this
         */
        public Builder recoveryPointCheckpointIntervalMs(final long ms) {
            this.recoveryPointCheckpointIntervalMs = RECOVERY_POINT_CHECKPOINT.check(ms);
            return this;
        }

        /**
         * Sets {@code log.flush.start.offset.checkpoint.interval.ms}.
         *
         * @param ms at least 1
         * @return this
         */
        public Builder logStartCheckpointIntervalMs(final long ms) {
            this.logStartCheckpointIntervalMs = LOG_START_CHECKPOINT.check(ms);
            return this;
        }

        /**
         * Sets {@code replica.high.watermark.checkpoint.interval.ms}.
         *
         * @param ms at least 1
         * @return this
         */
        public Builder highWatermarkCheckpointIntervalMs(final long ms) {
            this.highWatermarkCheckpointIntervalMs = HIGH_WATERMARK_CHECKPOINT.check(ms);
            return this;
        }

        /**
         * Sets the number of threads per log directory that open partitions at start.
         *
         * @param threads at least 1
         * @return this
         */
        public Builder openThreadsPerDir(final int threads) {
            this.openThreadsPerDir = OPEN_THREADS.check(threads);
            return this;
        }

        /**
         * Sets the broker epoch recorded in the clean-shutdown marker.
         *
         * @param epoch the epoch, or -1
         * @return this
         */
        public Builder brokerEpoch(final long epoch) {
            this.brokerEpoch = epoch;
            return this;
        }

        /**
         * Sets the log cleaner's settings ({@code log.cleaner.*}, see {@link CleanerConfig#fromProperties}).
         *
         * @param cleanerConfig the settings
         * @return this
         */
        public Builder cleanerConfig(final CleanerConfig cleanerConfig) {
            this.cleanerConfig = Objects.requireNonNull(cleanerConfig, "cleanerConfig");
            return this;
        }

        /**
         * Validates and builds.
         *
         * @return the configuration
         * @throws IllegalArgumentException if no log directory was given, or one is given twice
         */
        public LogManagerConfig build() {
            if (logDirs.isEmpty()) {
                throw new IllegalArgumentException("logDirs must name at least one directory");
            }
            final List<Path> normalised = new ArrayList<>();
            for (final Path dir : logDirs) {
                final Path n = dir.toAbsolutePath().normalize();
                if (normalised.contains(n)) {
                    throw new IllegalArgumentException("logDirs lists " + n + " twice");
                }
                normalised.add(n);
            }
            logDirs.clear();
            logDirs.addAll(normalised);
            return new LogManagerConfig(this);
        }
    }
}
