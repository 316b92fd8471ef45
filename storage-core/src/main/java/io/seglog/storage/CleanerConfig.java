package io.seglog.storage;

import io.seglog.storage.cleaner.LogCleaner;

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

    /** Kafka's defaults: enabled, one thread, 128 MiB of map, 512 KiB of I/O buffers, 0.9, unthrottled, 15 s. */
    public static final CleanerConfig DEFAULTS = new CleanerConfig(true, 1, 128L * 1024 * 1024, 512 * 1024, 0.9,
        Double.MAX_VALUE, 15_000);

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
        require(threads >= 1, THREADS_CONFIG, threads, "must be at least 1");
        require(dedupeBufferBytes >= LogCleaner.BYTES_PER_MAP_ENTRY * (long) threads, DEDUPE_BUFFER_SIZE_CONFIG,
            dedupeBufferBytes, "must hold at least one " + LogCleaner.BYTES_PER_MAP_ENTRY + "-byte entry per thread ("
                + THREADS_CONFIG + "=" + threads + ")");
        require(ioBufferBytes >= 2 * threads, IO_BUFFER_SIZE_CONFIG, ioBufferBytes, "must be at least 2 per thread");
        require(dedupeLoadFactor > 0 && dedupeLoadFactor <= 1, IO_BUFFER_LOAD_FACTOR_CONFIG, dedupeLoadFactor,
            "must be in (0, 1]");
        require(maxIoBytesPerSecond > 0, IO_MAX_BYTES_PER_SECOND_CONFIG, maxIoBytesPerSecond, "must be positive");
        require(backoffMs >= 0, BACKOFF_MS_CONFIG, backoffMs, "must not be negative");
    }

    /**
     * Reads Kafka's broker property names; absent keys keep Kafka's defaults, other keys are ignored.
     *
     * @param properties names to values (strings, numbers or booleans)
     * @return the configuration
     * @throws IllegalArgumentException naming the key and value of an invalid entry
     */
    public static CleanerConfig fromProperties(final Map<String, ?> properties) {
        final CleanerConfig d = DEFAULTS;
        return new CleanerConfig(
            Boolean.parseBoolean(text(properties, ENABLE_CONFIG, d.enabled)),
            (int) number(properties, THREADS_CONFIG, d.threads),
            (long) number(properties, DEDUPE_BUFFER_SIZE_CONFIG, d.dedupeBufferBytes),
            (int) number(properties, IO_BUFFER_SIZE_CONFIG, d.ioBufferBytes),
            number(properties, IO_BUFFER_LOAD_FACTOR_CONFIG, d.dedupeLoadFactor),
            number(properties, IO_MAX_BYTES_PER_SECOND_CONFIG, d.maxIoBytesPerSecond),
            (long) number(properties, BACKOFF_MS_CONFIG, d.backoffMs));
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

    private static String text(final Map<String, ?> properties, final String key, final Object fallback) {
        final Object value = properties.get(key);
        return String.valueOf(value == null ? fallback : value).trim();
    }

    private static double number(final Map<String, ?> properties, final String key, final double fallback) {
        final Object value = properties.get(key);
        if (value == null) {
            return fallback;
        }
        try {
            return value instanceof Number n ? n.doubleValue() : Double.parseDouble(value.toString().trim());
        } catch (final NumberFormatException e) {
            throw new IllegalArgumentException(key + "=" + value + " is not a number", e);
        }
    }

    private static void require(final boolean ok, final String key, final Object value, final String rule) {
        if (!ok) {
            throw new IllegalArgumentException(key + "=" + value + " " + rule);
        }
    }
}
