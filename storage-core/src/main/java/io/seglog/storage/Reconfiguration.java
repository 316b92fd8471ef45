package io.seglog.storage;

import io.seglog.storage.log.Appender;
import io.seglog.storage.log.Retention;
import io.seglog.storage.log.Segments;
import io.seglog.storage.log.Truncation;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The path of {@link PartitionLog#updateConfig}: under the log's append lock (lent here), each owner takes its part of
 * the new configuration ({@link Segments} the segment configuration, {@link Appender} the append rules and
 * compression, {@link Truncation} the index size, {@link Retention} its rules, {@link Flushing}
 * {@code flush.messages}), then {@link LogSettings} replaces the whole. Owns no state.
 */
final class Reconfiguration {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionLog.class);

    private final Path dir;
    private final ReentrantLock appendLock;
    private final LogSettings settings;
    private final Segments segments;
    private final Appender appender;
    private final Truncation truncation;
    private final Retention retention;
    private final Flushing flushing;
    private final LogHealth health;

    Reconfiguration(final Path dir, final ReentrantLock appendLock, final LogSettings settings,
                    final Segments segments, final Appender appender, final Truncation truncation,
                    final Retention retention, final Flushing flushing, final LogHealth health) {
        this.dir = dir;
        this.appendLock = appendLock;
        this.settings = settings;
        this.segments = segments;
        this.appender = appender;
        this.truncation = truncation;
        this.retention = retention;
        this.flushing = flushing;
        this.health = health;
    }

    /** {@link PartitionLog#updateConfig}. */
    void apply(final LogConfig newConfig) {
        Objects.requireNonNull(newConfig, "newConfig");
        health.ensureWritable();
        appendLock.lock();
        try {
            final LogConfig old = settings.current();
            if (old.equals(newConfig)) {
                return;
            }
            segments.reconfigure(newConfig.segmentConfig());
            appender.reconfigure(newConfig.segmentConfig(), LogOpener.appendRules(newConfig),
                LogOpener.compression(newConfig));
            truncation.reconfigure(newConfig.segmentIndexBytes());
            retention.reconfigure(LogOpener.retentionRules(newConfig));
            flushing.reconfigure(newConfig.flushMessages());
            settings.replace(newConfig);
            if (LOG.isInfoEnabled()) {
                final Map<String, String> changed = new TreeMap<>(newConfig.toProperties());
                changed.entrySet().removeAll(old.toProperties().entrySet());
                LOG.info("Configuration of {} updated: {}", dir, changed);
            }
        } finally {
            appendLock.unlock();
        }
    }
}
