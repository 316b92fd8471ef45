package io.seglog.storage;

import io.seglog.storage.checkpoint.CorruptCheckpointException;
import io.seglog.storage.checkpoint.LeaderEpochCheckpointFile;
import io.seglog.storage.epoch.LeaderEpochCache;
import io.seglog.storage.io.FileIO;
import io.seglog.storage.segment.LogLoader;
import io.seglog.storage.segment.LogSegment;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opening a {@link PartitionLog} (documented on {@link PartitionLog#open(Path, LogConfig, FileIO, InstantSource,
 * RandomGenerator, RecoveryOptions)}): load or recover the segments, create the first one in an empty
 * directory, load or rebuild the leader epochs, and close what was opened if anything fails. Split out of
 * PartitionLog to keep files to one concern.
 *
 * <p>Thread-safety: stateless.
 */
final class LogOpener {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionLog.class);

    private LogOpener() {
    }

    static PartitionLog open(final Path partitionDir, final LogConfig config, final FileIO io,
                             final InstantSource time, final RandomGenerator jitterRandom,
                             final RecoveryOptions recovery) {
        final ByteBuffer scratch = ByteBuffer.allocate(LogSlice.SCRATCH_BYTES);
        List<LogSegment> loaded = List.of();
        try {
            io.createDirectories(partitionDir);
            final long nowMs = time.millis();
            final LeaderEpochCheckpointFile checkpoint =
                new LeaderEpochCheckpointFile(io, partitionDir.resolve(LeaderEpochCheckpointFile.FILE_NAME));
            final LeaderEpochCache epochs = loadEpochs(checkpoint);
            final boolean rebuildEpochs = epochs.isEmpty();
            final LogLoader.Loaded result = LogLoader.load(io, partitionDir, config, nowMs,
                () -> PartitionLog.jitter(config, jitterRandom), scratch,
                new LogLoader.Options(recovery.hadCleanShutdown(), recovery.recoveryPoint(), recovery.scanFromOffset(),
                    rebuildEpochs ? null : epochs, recovery.verifyExecutor(), recovery.verifyThreads()));
            loaded = result.segments();
            if (loaded.isEmpty()) {
                loaded = List.of(LogSegment.create(io, partitionDir, 0, config, nowMs,
                    PartitionLog.jitter(config, jitterRandom)));
                io.fsyncDirectory(partitionDir);
                if (partitionDir.toAbsolutePath().getParent() != null) {
                    io.fsyncDirectory(partitionDir.toAbsolutePath().getParent());
                }
            }
            final LogSegment active = loaded.get(loaded.size() - 1);
            active.resizeIndexes(config.segmentIndexBytes());
            final long logEndOffset = active.readNextOffset(scratch);
            if (rebuildEpochs) {
                epochs.clear();
                epochs.assign(result.epochs().entries());
            }
            epochs.truncateFromEnd(logEndOffset);
            epochs.flush();
            final PartitionLog log = PartitionLog.create(partitionDir, config, io, time, jitterRandom, loaded,
                logEndOffset);
            log.epochs = epochs;
            log.recoveryReport = result.report();
            return log;
        } catch (final IOException | RuntimeException e) {
            // After an I/O failure nothing may be synced again (the directory goes offline): abandon, not close.
            final boolean ioFailure = e instanceof IOException || e instanceof StorageException;
            for (int i = loaded.size() - 1; i >= 0; i--) {
                try {
                    if (ioFailure) {
                        loaded.get(i).abandon();
                        continue;
                    }
                    loaded.get(i).close();
                } catch (final IOException | RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            if (e instanceof StorageException) {
                throw (StorageException) e;
            }
            throw new StorageException("cannot open the log: " + e.getMessage(), partitionDir, e);
        }
    }

    /** The checkpoint's epochs; an empty cache (to be rebuilt from the batches) when it is missing or corrupt. */
    private static LeaderEpochCache loadEpochs(final LeaderEpochCheckpointFile checkpoint) throws IOException {
        // Existence is metadata, not file access; FileIO has no call for it.
        if (!Files.exists(checkpoint.file())) {
            return LeaderEpochCache.empty(checkpoint);
        }
        try {
            return LeaderEpochCache.load(checkpoint);
        } catch (final CorruptCheckpointException e) {
            LOG.warn("Rebuilding the leader epochs of {} from the batches: {}", checkpoint.file(), e.getMessage());
            return LeaderEpochCache.empty(checkpoint);
        }
    }
}
