package io.seglog.storage;

import io.seglog.storage.checkpoint.PartitionMetadataFile;
import io.seglog.storage.dir.LogDirLock;
import io.seglog.storage.epoch.LeaderEpochCache;
import io.seglog.storage.io.FileIO;
import io.seglog.storage.log.Appender;
import io.seglog.storage.log.Durability;
import io.seglog.storage.log.LogEnd;
import io.seglog.storage.log.LogOpening;
import io.seglog.storage.log.RetiredSegments;
import io.seglog.storage.log.Retention;
import io.seglog.storage.log.Segments;
import io.seglog.storage.log.Truncation;
import io.seglog.storage.log.Watermarks;
import io.seglog.storage.producer.ProducerStateManager;
import io.seglog.storage.segment.LogSegment;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.concurrent.locks.ReentrantLock;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The owners and paths of one {@link PartitionLog}, built once around what {@link LogOpener} opened, in the order
 * their dependencies need (docs/architecture.md has the picture). Every field is final and written here only; each
 * piece of state lives in the owner named beside its field, and the paths get the owners they need, never this
 * object. The log holds it and calls the owners and paths; nothing else sees it.
 */
final class LogComposition {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionLog.class);

    final Path dir;
    final FileIO io;
    final InstantSource time;
    /** One writer at a time: appends, truncations, retention's selection, reconfiguration and close; lent to them. */
    final ReentrantLock appendLock = new ReentrantLock();
    /** Owns the current configuration. */
    final LogSettings settings;
    /** Owns the copy-on-write segment array. */
    final Segments segments;
    /** Owns the published end. */
    final LogEnd end;
    /** Owns the log start offset and the high watermark. */
    final Watermarks watermarks;
    /** Owns the flushed offset and the durability waiters. */
    final Durability durability;
    /** Owns the leader epochs and their checkpoint. */
    final LeaderEpochCache epochs;
    /** What the open repaired. */
    final RecoveryReport recoveryReport;
    /** Owns the closed flag, the offline cause and the directory's lock. */
    final LogHealth health;
    /** Owns {@code flush.messages} and the last active segment an append saw. */
    final Flushing flushing;
    /** Owns the answer to the leader append in progress. */
    final Appends appends;
    /** The truncation entry points. */
    final Truncations truncations;
    /** Retention, DeleteRecords and the cleaner's swap. */
    final Deletions deletions;
    /** Owns the producer state: sequences, epochs and the open transactions (the LSO's input). */
    final ProducerStateManager producers;
    /** Owns the periodic producer-expiration check. */
    final ProducerExpiry producerExpiry;
    /** The topic-id entry points. */
    final TopicIds topicIds;
    /** The close path. */
    final LogClosing closing;
    /** The configuration update path. */
    final Reconfiguration reconfiguration;

    LogComposition(final Path dir, final LogConfig config, final FileIO io, final InstantSource time,
                   final RandomGenerator jitterRandom, final LogOpening opened, final LogEnvironment env,
                   final LogDirLock ownership, final long producerSnapshotLimit,
                   final PartitionMetadataFile metadataFile) {
        this.dir = dir;
        this.io = io;
        this.time = time;
        this.settings = new LogSettings(config);
        // The jitter of each new segment comes from the configuration current at its roll.
        this.segments = new Segments(io, dir, config.segmentConfig(),
            () -> LogOpener.jitter(settings.current(), jitterRandom), opened.segments());
        final LogSegment active = segments.active();
        this.end = new LogEnd(opened.endOffset(), active, active.sizeInBytes());
        this.watermarks = new Watermarks(segments.first().baseOffset());
        if (watermarks.restore(env.logStartOffset(), env.highWatermark(), segments.first().baseOffset(),
            opened.endOffset())) {
            LOG.warn("Checkpointed offsets of {} lie beyond its log end {} (highWatermark={}, logStartOffset={});"
                + " clamped to the log end", dir, opened.endOffset(), env.highWatermark(), env.logStartOffset());
        }
        final ProducerStateManager producers = LogOpener.loadProducers(dir, config, io, time, opened,
            watermarks.logStartOffset(), producerSnapshotLimit, segments.array());
        this.producers = producers;
        final Scheduler scheduler = env.scheduler();
        // A clean open finds everything on disk (close flushes); after a crash, unflushedFrom lowers it below.
        // Group commit runs the log's flush, Flushing's, built below: the flush needs the durability it drives.
        this.durability = new Durability(dir.toString(), opened.endOffset(), active.baseOffset(), this::flush,
            scheduler == null ? null : task -> scheduler.schedule("group-commit " + dir, task, 0, 0));
        this.health = new LogHealth(dir, ownership, env.dirFailure(), e -> durability.failAll(e, true));
        final RetiredSegments retired = new RetiredSegments(io, durability);
        this.epochs = opened.epochs();
        final Appender appender = new Appender(segments, end, epochs, config.segmentConfig(),
            LogOpener.appendRules(config), LogOpener.compression(config), time, producers,
            () -> watermarks.highWatermark(end.offset()));
        final Truncation truncation = new Truncation(dir, io, time, config.segmentIndexBytes(),
            new Truncation.Owners(segments, end, durability, watermarks, epochs, appender, producers),
            env.recoveryPointLowered(), env.logStartRaised());
        final Retention retention = new Retention(segments, end, watermarks, retired, LogOpener.retentionRules(config),
            scheduler == null ? null
                : (name, unlink) -> scheduler.schedule(name, unlink, settings.current().fileDeleteDelayMs(), 0),
            failure -> health.goOffline("unlink of a deleted segment", failure), producers);
        this.recoveryReport = RecoveryReport.of(opened.repairs());
        if (env.unflushedFrom() >= 0) {
            durability.markUnflushedFrom(env.unflushedFrom(), segments, opened.endOffset());
        }
        this.flushing = new Flushing(dir, segments, end, durability, time, scheduler, health, config.flushMessages());
        this.appends = new Appends(String.valueOf(dir.getFileName()), appendLock, appender, watermarks, health,
            flushing);
        this.truncations = new Truncations(appendLock, segments, end, truncation, health);
        this.deletions = new Deletions(dir, io, appendLock, segments, end, watermarks, retention, retired,
            scheduler != null, env.logStartRaised(), settings::segmentConfig, health);
        this.topicIds = new TopicIds(dir, metadataFile, health);
        this.reconfiguration = new Reconfiguration(dir, appendLock, settings, segments, appender, truncation,
            retention, flushing, health);
        health.subscribe();
        // Kafka's PeriodicProducerExpirationCheck, on the log's scheduler (a standalone log's owner calls
        // removeExpiredProducers itself). Last: the first run comes an interval after construction.
        this.producerExpiry = new ProducerExpiry(dir, appendLock, producers, time, health, scheduler,
            config.producerIdExpirationCheckIntervalMs());
        this.closing = new LogClosing(dir, segments, end, durability, appender, retired, producers, producerExpiry,
            health);
    }

    /** A group-commit round: the log's flush, with its failure handling. */
    private void flush() {
        flushing.flush();
    }
}
