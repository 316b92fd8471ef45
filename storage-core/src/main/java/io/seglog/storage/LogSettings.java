package io.seglog.storage;

import io.seglog.storage.segment.SegmentConfig;

/**
 * The configuration one {@link PartitionLog} runs with: it owns the current {@link LogConfig}, replaced whole by
 * {@link Reconfiguration} (so no reader sees half of each), and answers the settings its owners read at their next
 * use rather than at construction: the jitter and segment configuration of a new segment, the delay of an unlink,
 * the {@code flush.ms} rule.
 *
 * <p>Threads: the configuration is volatile; it is replaced under the log's append lock.
 */
final class LogSettings {
    private volatile LogConfig current;

    LogSettings(final LogConfig initial) {
        this.current = initial;
    }

    LogConfig current() {
        return current;
    }

    /** The new configuration, once every owner took its part (see {@link Reconfiguration}). */
    void replace(final LogConfig newConfig) {
        this.current = newConfig;
    }

    SegmentConfig segmentConfig() {
        return current.segmentConfig();
    }
}
