package io.seglog.storage;

import io.seglog.storage.checkpoint.CorruptCheckpointException;
import io.seglog.storage.checkpoint.PartitionMetadataFile;
import io.seglog.storage.dir.LogDirLock;
import io.seglog.storage.dir.LogDirLockedException;
import io.seglog.storage.io.FileIO;
import io.seglog.storage.log.Appender;
import io.seglog.storage.log.LogOpening;
import io.seglog.storage.log.Retention;
import io.seglog.storage.producer.ProducerStateManager;
import io.seglog.storage.segment.CorruptSegmentException;
import io.seglog.storage.segment.LogLoader;
import io.seglog.storage.segment.LogSegment;
import io.seglog.storage.segment.SegmentConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;

/**
 * The open path of a {@link PartitionLog}: the directory's lock taken before anything is read, the topic id file,
 * the load ({@link LogOpening}: recovery, segments, leader epochs), the producer state, and the failures of each as
 * the API reports them. Owns no state: what it opens goes into the log's constructor, and whatever fails on the way
 * is closed (segments abandoned, the lock released) before the failure is thrown.
 */
final class LogOpener {
    private LogOpener() {
    }

    /** A read-only open: no lock, positional reads only, nothing on disk changed. */
    static PartitionLog openReadOnly(final Path partitionDir, final LogConfig config, final FileIO io,
                                     final InstantSource time, final RecoveryOptions recovery) {
        requireArguments(partitionDir, config, io, time, recovery);
        final FileIO reading = new ReadOnlyFileIO(io, partitionDir);
        // Positional reads, never a mapping of the data files a writer in another process may shrink.
        final SegmentConfig segments = config.segmentConfig();
        final SegmentConfig unmapped = new SegmentConfig(segments.segmentBytes(), segments.segmentMs(),
            segments.segmentIndexBytes(), segments.indexIntervalBytes(), 0, false, segments.truncateOnCorruption());
        final PartitionMetadataFile metadataFile = readMetadataFile(reading, partitionDir, false);
        final LogOpening opened = load(partitionDir, " read-only", () -> LogOpening.load(reading, partitionDir,
            unmapped, time.millis(), () -> 0L, new LogLoader.Options(recovery.hadCleanShutdown(),
                recovery.recoveryPoint(), recovery.scanFromOffset(), null, recovery.verifyExecutor(),
                recovery.verifyThreads(), true), -1));
        return new PartitionLog(new LogComposition(partitionDir, config, reading, time, new SplittableRandom(0), opened,
            LogEnvironment.STANDALONE, null, -1, metadataFile));
    }

    /** A writable open: the lock first, then the load; whatever fails releases what was taken. */
    static PartitionLog open(final Path partitionDir, final LogConfig config, final FileIO io,
                             final InstantSource time, final RandomGenerator jitterRandom,
                             final RecoveryOptions recovery, final LogEnvironment env) {
        requireArguments(partitionDir, config, io, time, recovery);
        Objects.requireNonNull(jitterRandom, "jitterRandom");
        final LogDirLock ownership = lockForWriting(io, partitionDir);
        try {
            final PartitionMetadataFile metadataFile = readMetadataFile(io, partitionDir, true);
            final LogOpening opened = load(partitionDir, "", () -> LogOpening.load(io, partitionDir,
                config.segmentConfig(), time.millis(), () -> jitter(config, jitterRandom),
                new LogLoader.Options(recovery.hadCleanShutdown(), recovery.recoveryPoint(), recovery.scanFromOffset(),
                    null, recovery.verifyExecutor(), recovery.verifyThreads()), env.logStartOffset()));
            try {
                // After a crash a snapshot above the recovery point may describe batches the crash lost (Kafka's rule).
                final long snapshotLimit = recovery.hadCleanShutdown() ? Long.MAX_VALUE
                    : Math.min(recovery.recoveryPoint(), recovery.scanFromOffset());
                return new PartitionLog(new LogComposition(partitionDir, config, io, time, jitterRandom, opened, env,
                    ownership, Math.max(0, snapshotLimit), metadataFile));
            } catch (final RuntimeException | Error e) {
                abandonAll(opened, e);
                throw e;
            }
        } catch (final RuntimeException | Error e) {
            // Whatever failed (an Error included), the lock goes with it: the partition is not left "in use".
            release(ownership, e);
            throw e;
        }
    }

    /** The topic id file, its failures as the API reports them: both name the file (and the line). */
    private static PartitionMetadataFile readMetadataFile(final FileIO io, final Path partitionDir,
                                                          final boolean writable) {
        try {
            return PartitionMetadataFile.open(io, partitionDir, writable);
        } catch (final CorruptCheckpointException e) {
            throw new StorageException("cannot open the log: " + e.getMessage(), e.file(), e);
        } catch (final IOException e) {
            throw new StorageException("cannot read " + PartitionMetadataFile.FILE_NAME + ": " + e, partitionDir, e);
        }
    }

    private static void requireArguments(final Path partitionDir, final LogConfig config, final FileIO io,
                                         final InstantSource time, final RecoveryOptions recovery) {
        Objects.requireNonNull(partitionDir, "partitionDir");
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(io, "io");
        Objects.requireNonNull(time, "time");
        Objects.requireNonNull(recovery, "recovery");
    }

    /** A load, with its failures as the API reports them: corruption as itself, anything else as StorageException. */
    @FunctionalInterface
    private interface Load {
        LogOpening run() throws IOException;
    }

    private static LogOpening load(final Path partitionDir, final String mode, final Load load) {
        try {
            return load.run();
        } catch (final CorruptSegmentException e) {
            throw CorruptLogException.of(e);
        } catch (final IOException | RuntimeException e) {
            throw e instanceof StorageException ? (StorageException) e
                : new StorageException("cannot open the log" + mode + ": " + e.getMessage(), partitionDir, e);
        }
    }

    private static void abandonAll(final LogOpening opened, final Throwable primary) {
        for (final LogSegment segment : opened.segments()) {
            try {
                segment.abandon();
            } catch (final IOException | RuntimeException e) {
                primary.addSuppressed(e);
            }
        }
    }

    /**
     * Creates the partition directory if needed and takes its {@code .lock}, before anything in it is read or
     * repaired: a second writer (another log or log manager in this JVM, or another process) is refused here.
     */
    private static LogDirLock lockForWriting(final FileIO io, final Path partitionDir) {
        try {
            io.createDirectories(partitionDir);
            return LogDirLock.acquire(io, partitionDir);
        } catch (final LogDirLockedException e) {
            throw new LogInUseException(partitionDir, e.inThisProcess() ? "another log in this process"
                : "another process", e);
        } catch (final IOException e) {
            throw new StorageException("cannot create or lock the partition directory: " + e, partitionDir, e);
        }
    }

    private static void release(final LogDirLock ownership, final Throwable failure) {
        try {
            ownership.close();
        } catch (final IOException e) {
            failure.addSuppressed(e);
        }
    }

    static long jitter(final LogConfig config, final RandomGenerator random) {
        // Kafka's LogConfig.randomSegmentJitter: uniform in [0, min(segment.jitter.ms, segment.ms)).
        return config.segmentJitterMs() == 0 ? 0 : random.nextLong(Math.min(config.segmentJitterMs(), config.segmentMs()));
    }

    /**
     * The producer state at open: read-only logs keep none (they never append); otherwise snapshots above
     * {@code snapshotLimit} are distrusted and the state is rebuilt from the latest remaining snapshot and the log.
     */
    static ProducerStateManager loadProducers(final Path dir, final LogConfig config, final FileIO io,
                                               final InstantSource time, final LogOpening opened,
                                               final long logStartOffset, final long snapshotLimit,
                                               final LogSegment[] segs) {
        if (snapshotLimit < 0) {
            return ProducerStateManager.inMemory(dir, opened.endOffset());
        }
        try {
            return ProducerStateManager.load(io, dir, config.producerIdExpirationMs(), time.millis(), segs,
                logStartOffset, opened.endOffset(), snapshotLimit);
        } catch (final IOException e) {
            throw new StorageException("cannot load the producer state: " + e.getMessage(), dir, e);
        }
    }

    /** The append rules of a configuration, for {@code Appender}. */
    static Appender.Rules appendRules(final LogConfig config) {
        return new Appender.Rules(config.maxMessageBytes(),
            config.messageTimestampType() == TimestampType.LOG_APPEND_TIME, config.messageTimestampBeforeMaxMs(),
            config.messageTimestampAfterMaxMs());
    }

    /** The compression of a configuration, for {@code Appender}. */
    static Appender.Compression compression(final LogConfig config) {
        return new Appender.Compression(config.compressionType().codec(), config.compressionGzipLevel(),
            config.compressionLz4Level(), config.compressionZstdLevel());
    }

    /** The retention rules of a configuration, for {@code Retention}. */
    static Retention.Rules retentionRules(final LogConfig config) {
        return new Retention.Rules(config.retentionMs(), config.retentionBytes(), config.cleanupPolicy().delete(),
            config.fileDeleteDelayMs());
    }
}
