package io.seglog.storage;

import io.seglog.storage.cleaner.LogCleaner;
import io.seglog.storage.config.ConfigDef;
import io.seglog.storage.config.ConfigKey;
import java.util.Map;

/**
 * The broker-level settings of the log cleaner, with Kafka's names and defaults (Kafka's {@code CleanerConfig}).
 * Immutable; validated on construction with messages naming the Kafka key and the value.
 *
 * @param enabled               {@code log.cleaner.enable}: whether a {@link LogManager} runs
 *                              the cleaner
 * @param threads               {@code log.cleaner.threads}: cleaner threads, at least 1
 * @param dedupeBufferBytes     {@code log.cleaner.dedupe.buffer.size}: memory for the offset maps of all threads
 * @param ioBufferBytes         {@code log.cleaner.io.buffer.size}: memory for the read and write buffers of all
 *                              threads (each thread has half of its share for each)
 * @param dedupeLoadFactor      {@code log.cleaner.io.buffer.load.factor}: how full an offset map may get, in
 *                              (0, 1]
 * @param maxIoBytesPerSecond   {@code log.cleaner.io.max.bytes.per.second}: the read-plus-write throttle of all
 *                              threads together
 * @param backoffMs             {@code log.cleaner.backoff.ms}: how long a thread waits when no log needs cleaning
 */
public record CleanerConfig(boolean enabled, int threads, long dedupeBufferBytes, int ioBufferBytes,
                            double dedupeLoadFactor, double maxIoBytesPerSecond, long backoffMs) {
    /** Kafka's property name. */
    public static final String ENABLE_CONFIG = "log.cleaner.enable";
    /** Kafka's property name. */
    public static final String THREADS_CONFIG = "log.cleaner.threads";
    /** Kafka's property name. */
    public static final String DEDUPE_BUFFER_SIZE_CONFIG = "log.cleaner.dedupe.buffer.size";
    /** Kafka's property name. */
    public static final String IO_BUFFER_SIZE_CONFIG = "log.cleaner.io.buffer.size";
    /** Kafka's property name (the load factor of the dedupe buffer, despite the name). */
    public static final String IO_BUFFER_LOAD_FACTOR_CONFIG = "log.cleaner.io.buffer.load.factor";
    /** Kafka's property name. */
    public static final String IO_MAX_BYTES_PER_SECOND_CONFIG = "log.cleaner.io.max.bytes.per.second";
    /** Kafka's property name. */
    public static final String BACKOFF_MS_CONFIG = "log.cleaner.backoff.ms";

    private static final ConfigDef TABLE = new ConfigDef("CleanerConfig");
    private static final ConfigKey<Boolean> ENABLE = TABLE.booleanKey(ENABLE_CONFIG, true,
        "whether the log manager runs the cleaner (logs with cleanup.policy=compact are compacted)", "cleaner");
    private static final ConfigKey<Integer> THREADS = TABLE.intKey(THREADS_CONFIG, 1, 1, "cleaner threads",
        "cleaner");
    private static final ConfigKey<Long> DEDUPE_BUFFER_SIZE = TABLE.longKey(DEDUPE_BUFFER_SIZE_CONFIG,
        128L * 1024 * 1024, 0, "memory for the offset maps of all cleaner threads", "cleaner");
    private static final ConfigKey<Integer> IO_BUFFER_SIZE = TABLE.intKey(IO_BUFFER_SIZE_CONFIG, 512 * 1024, 0,
        "memory for the read and write buffers of all cleaner threads", "cleaner");
    private static final ConfigKey<Double> IO_BUFFER_LOAD_FACTOR = TABLE.doubleKeyWhere(IO_BUFFER_LOAD_FACTOR_CONFIG,
        0.9, v -> v > 0 && v <= 1, "must be in (0, 1]", "how full an offset map may get", "cleaner");
    private static final ConfigKey<Double> IO_MAX_BYTES_PER_SECOND = TABLE.doubleKeyWhere(
        IO_MAX_BYTES_PER_SECOND_CONFIG, Double.MAX_VALUE, v -> v > 0, "must be positive",
        "the read-plus-write throttle of all cleaner threads together", "cleaner");
    private static final ConfigKey<Long> BACKOFF_MS = TABLE.longKey(BACKOFF_MS_CONFIG, 15_000, 0,
        "how long a cleaner thread waits when no log needs cleaning", "cleaner");

    static {
        TABLE.crossRule(v -> v.get(DEDUPE_BUFFER_SIZE) >= LogCleaner.BYTES_PER_MAP_ENTRY * (long) v.get(THREADS) ? null
            : DEDUPE_BUFFER_SIZE_CONFIG + "=" + v.get(DEDUPE_BUFFER_SIZE) + " must hold at least one "
                + LogCleaner.BYTES_PER_MAP_ENTRY + "-byte entry per thread (" + THREADS_CONFIG + "=" + v.get(THREADS)
                + ")");
        TABLE.crossRule(v -> v.get(IO_BUFFER_SIZE) >= 2L * v.get(THREADS) ? null
            : IO_BUFFER_SIZE_CONFIG + "=" + v.get(IO_BUFFER_SIZE) + " must be at least 2 per thread ("
                + THREADS_CONFIG + "=" + v.get(THREADS) + ")");
    }

    /** Kafka's defaults: enabled, one thread, 128 MiB of map, 512 KiB of I/O buffers, 0.9, unthrottled, 15 s. */
    public static final CleanerConfig DEFAULTS = fromProperties(Map.of());

    /**
     * Validates.
     *
     * @param enabled             {@code log.cleaner.enable}
     * @param threads             {@code log.cleaner.threads}
     * @param dedupeBufferBytes   {@code log.cleaner.dedupe.buffer.size}
     * @param ioBufferBytes       {@code log.cleaner.io.buffer.size}
     * @param dedupeLoadFactor    {@code log.cleaner.io.buffer.load.factor}
     * @param maxIoBytesPerSecond {@code log.cleaner.io.max.bytes.per.second}
     * @param backoffMs           {@code log.cleaner.backoff.ms}
     * @throws IllegalArgumentException naming the key and value of an invalid setting
     */
    public CleanerConfig {
        TABLE.assign().set(ENABLE, enabled).set(THREADS, threads).set(DEDUPE_BUFFER_SIZE, dedupeBufferBytes)
            .set(IO_BUFFER_SIZE, ioBufferBytes).set(IO_BUFFER_LOAD_FACTOR, dedupeLoadFactor)
            .set(IO_MAX_BYTES_PER_SECOND, maxIoBytesPerSecond).set(BACKOFF_MS, backoffMs).validate();
    }

    /**
     * Reads Kafka's broker property names; absent keys keep Kafka's defaults, other keys are ignored.
     *
     * @param properties names to values (strings, numbers or booleans)
     * @return the configuration
     * @throws IllegalArgumentException naming the key and value of an invalid entry
     */
    public static CleanerConfig fromProperties(final Map<String, ?> properties) {
        return new CleanerConfig(ENABLE.read(properties), THREADS.read(properties),
            DEDUPE_BUFFER_SIZE.read(properties), IO_BUFFER_SIZE.read(properties),
            IO_BUFFER_LOAD_FACTOR.read(properties), IO_MAX_BYTES_PER_SECOND.read(properties),
            BACKOFF_MS.read(properties));
    }

    /**
     * The table of this class's keys (for the configuration reference).
     *
     * @return the table
     */
    public static ConfigDef configDef() {
        return TABLE;
    }

    /**
     * The memory of one thread's offset map (Kafka divides the dedupe buffer among the threads, at most 2 GiB each).
     *
     * @return bytes
     */
    public int dedupeBytesPerThread() {
        return (int) Math.min(dedupeBufferBytes / threads, Integer.MAX_VALUE);
    }

    /**
     * The size of one thread's read buffer and of its write buffer (half of its share each, as Kafka).
     *
     * @return bytes
     */
    public int ioBufferBytesPerThread() {
        return ioBufferBytes / threads / 2;
    }

    /**
     * These settings as the cleaner package takes them (per thread).
     *
     * @return the settings
     */
    LogCleaner.Settings settings() {
        return new LogCleaner.Settings(threads, dedupeBytesPerThread(), dedupeLoadFactor, ioBufferBytesPerThread(),
            maxIoBytesPerSecond, backoffMs);
    }

    /**
     * Kafka's names and this configuration's values, from the table.
     *
     * @return e.g. {@code CleanerConfig{log.cleaner.enable=true, log.cleaner.threads=1, ...}}
     */
    @Override
    public String toString() {
        return TABLE.assign().set(ENABLE, enabled).set(THREADS, threads).set(DEDUPE_BUFFER_SIZE, dedupeBufferBytes)
            .set(IO_BUFFER_SIZE, ioBufferBytes).set(IO_BUFFER_LOAD_FACTOR, dedupeLoadFactor)
            .set(IO_MAX_BYTES_PER_SECOND, maxIoBytesPerSecond).set(BACKOFF_MS, backoffMs).toString();
    }
}
