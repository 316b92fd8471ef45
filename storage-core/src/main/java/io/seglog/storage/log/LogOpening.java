package io.seglog.storage.log;

import io.seglog.storage.checkpoint.CorruptCheckpointException;
import io.seglog.storage.checkpoint.LeaderEpochCheckpointFile;
import io.seglog.storage.epoch.LeaderEpochCache;
import io.seglog.storage.io.FileIO;
import io.seglog.storage.segment.CorruptSegmentException;
import io.seglog.storage.segment.EpochAgreement;
import io.seglog.storage.segment.LogLoader;
import io.seglog.storage.segment.LogSegment;
import io.seglog.storage.segment.SegmentConfig;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What opening a partition log computes before the log exists: the segments loaded or recovered (a first empty
 * one in an empty directory), the leader epochs loaded or rebuilt and cut to the log end, the log end itself and
 * what was repaired. The log's constructor takes all of it, so no field is set after construction.
 *
 * @param segments  the open segments, oldest first; at least one
 * @param epochs    the leader-epoch cache, written
 * @param endOffset the log end offset
 * @param repairs   what loading repaired
 */
public record LogOpening(List<LogSegment> segments, LeaderEpochCache epochs, long endOffset, LogLoader.Repairs repairs) {
    private static final Logger LOG = LoggerFactory.getLogger("io.seglog.storage.PartitionLog");

    /**
     * Loads a partition directory, creating it and a first empty segment at offset 0 when it holds none. Closes
     * (or, after an I/O failure, abandons without syncing) whatever it opened when it fails. With
     * {@code options.readOnly()} nothing on disk changes: the directory and a segment must exist, the epochs are
     * kept in memory, the active segment's indexes are not grown, and failures abandon.
     *
     * @param io           the file layer
     * @param dir          the partition directory
     * @param config       the segment configuration
     * @param nowMs        the time
     * @param rollJitterMs each segment's roll jitter
     * @param options      clean shutdown or crash, recovery point, scan start, verification threads (the known
     *                     epochs are filled in here)
     * @param logStartOffset the log-start checkpoint's entry for this log (the log start it will restore), -1 when it
     *                     has none
     * @return what the log is built from
     * @throws IOException if a file cannot be opened, read or written, or the log holds corruption that the policy
     *                     does not truncate ({@code CorruptSegmentException})
     */
    public static LogOpening load(final FileIO io, final Path dir, final SegmentConfig config, final long nowMs,
                                  final LongSupplier rollJitterMs, final LogLoader.Options options,
                                  final long logStartOffset) throws IOException {
        return load(io, dir, config, nowMs, rollJitterMs, options, logStartOffset, null);
    }

    private static LogOpening load(final FileIO io, final Path dir, final SegmentConfig config, final long nowMs,
                                   final LongSupplier rollJitterMs, final LogLoader.Options options,
                                   final long logStartOffset, final LogLoader.Repairs earlier)
        throws IOException {
        final ByteBuffer scratch = ByteBuffer.allocate(64);
        final boolean readOnly = options.readOnly();
        List<LogSegment> loaded = List.of();
        try {
            prepareDirectory(io, dir, readOnly);
            final LeaderEpochCheckpointFile checkpoint =
                new LeaderEpochCheckpointFile(io, dir.resolve(LeaderEpochCheckpointFile.FILE_NAME));
            // Read-only: the checkpoint's entries in a cache that is never persisted.
            final LeaderEpochCache epochs = readOnly ? inMemoryCopy(loadEpochs(checkpoint)) : loadEpochs(checkpoint);
            final boolean rebuildEpochs = epochs.isEmpty();
            final LogLoader.Loaded result = LogLoader.load(io, dir, config, nowMs, rollJitterMs, scratch,
                new LogLoader.Options(options.hadCleanShutdown(), options.recoveryPoint(), options.scanFrom(),
                    rebuildEpochs ? null : epochs, options.verifyExecutor(), options.verifyThreads(), readOnly));
            loaded = result.segments();
            if (loaded.isEmpty()) {
                loaded = List.of(createFirstSegment(io, dir, config, nowMs, rollJitterMs, readOnly));
            }
            final LogSegment active = loaded.get(loaded.size() - 1);
            final long endOffset = active.reader().readNextOffset(active.sizeInBytes(), scratch);
            // A read-only pass changed nothing, so the second pass finds (and reports) again what the first hid.
            LogLoader.Repairs repairs = earlier == null || readOnly ? result.report() : merge(earlier, result.report());
            if (!rebuildEpochs) {
                final CorruptSegmentException disagreement = EpochAgreement.check(epochs, loaded, endOffset,
                    checkpoint.file(), logStartOffset);
                // Where this pass's crash scan began (nothing was scanned after a clean shutdown).
                final long scanned = options.hadCleanShutdown() ? Long.MAX_VALUE
                    : Math.min(options.recoveryPoint(), options.scanFrom());
                final boolean alreadyScanned = disagreement != null && disagreement.finding().offset() >= scanned;
                if (disagreement != null && alreadyScanned && config.truncateOnCorruption()) {
                    // The scan checked every batch from there against the checkpoint (and cut where one
                    // contradicted it), yet an entry still does not begin where the batches' epoch begins (a start
                    // moved within one epoch's batches): the batches decide.
                    LOG.warn("Rebuilding the leader epochs of {} from the batches ({}=truncate): {}", dir,
                        SegmentConfig.CORRUPTION_POLICY_KEY, disagreement.getMessage());
                    epochs.clear();
                    epochs.assign(LogLoader.epochsOf(loaded).entries());
                    repairs = new LogLoader.Repairs(repairs.recovered(), repairs.segmentsScanned(),
                        repairs.bytesScanned(), repairs.truncations(), repairs.deletedSegments(),
                        repairs.rebuiltIndexes(), repairs.removedFiles(), true, repairs.losses());
                } else if (disagreement != null) {
                    if (!config.truncateOnCorruption()) {
                        throw disagreement;
                    }
                    // The truncate policy: treat it as the crash scan treats a batch that contradicts the checkpoint
                    // (the checkpoint is kept, so no epoch is ever answered wrong): scan from there, which cuts the
                    // log at the first batch that disagrees and reports it.
                    final long from = disagreement.finding().offset();
                    LOG.error("Opening {}: {}; scanning from offset {} as {}=truncate says", dir,
                        disagreement.getMessage(), from, SegmentConfig.CORRUPTION_POLICY_KEY);
                    closeAll(loaded, readOnly);
                    loaded = List.of();
                    return load(io, dir, config, nowMs, rollJitterMs, new LogLoader.Options(false,
                        options.recoveryPoint(), from, null, options.verifyExecutor(),
                        options.verifyThreads(), readOnly), logStartOffset, repairs);
                }
            }
            // Every file that says where the log began or ended is heard before the log is trusted (and before
            // the orphan index files, some of them witnesses, are deleted).
            final List<LogLoader.Loss> losses = LossWitnesses.hear(dir, config, loaded, endOffset,
                new LossWitnesses.Evidence(options.hadCleanShutdown(), options.recoveryPoint(), logStartOffset,
                    result.orphanIndexBases(), result.snapshotOffsets(), rebuildEpochs ? LeaderEpochCache.inMemory()
                    : epochs));
            repairs = repairs.with(readOnly ? List.of() : LogLoader.deleteOrphanIndexes(io, dir), losses);
            if (!readOnly) {
                // Grown for appends only once the log is trusted: a refused open leaves every file as it found it.
                active.resizeIndexes(config.segmentIndexBytes());
            }
            if (rebuildEpochs) {
                epochs.clear();
                epochs.assign(result.epochs().entries());
            }
            epochs.truncateFromEnd(endOffset);
            if (!readOnly) {
                epochs.flush();
            }
            return new LogOpening(loaded, epochs, endOffset, repairs);
        } catch (final IOException | RuntimeException e) {
            releaseAfterFailure(loaded, e, readOnly);
            throw e;
        }
    }

    /** Creates the partition directory, or (read-only) requires it. */
    private static void prepareDirectory(final FileIO io, final Path dir, final boolean readOnly) throws IOException {
        if (!readOnly) {
            io.createDirectories(dir);
        } else if (!Files.isDirectory(dir)) {
            throw new NoSuchFileException(dir.toString(), null, "no partition directory to open read-only");
        }
    }

    /** A directory without segments starts empty at offset 0 (read-only: refused), its entry made durable. */
    private static LogSegment createFirstSegment(final FileIO io, final Path dir, final SegmentConfig config,
                                                 final long nowMs, final LongSupplier rollJitterMs,
                                                 final boolean readOnly) throws IOException {
        if (readOnly) {
            throw new NoSuchFileException(dir.toString(), null, "holds no segment file to open read-only");
        }
        final LogSegment segment = LogSegment.create(io, dir, 0, config, nowMs, rollJitterMs.getAsLong());
        io.fsyncDirectory(dir);
        if (dir.toAbsolutePath().getParent() != null) {
            io.fsyncDirectory(dir.toAbsolutePath().getParent());
        }
        return segment;
    }

    /**
     * Lets go of the segments a failed load opened, keeping every failure on {@code failure}. After an I/O failure
     * nothing may be synced again (the directory goes offline): abandon, not close. A read-only load always
     * abandons: a close trims and syncs.
     */
    private static void releaseAfterFailure(final List<LogSegment> loaded, final Exception failure,
                                            final boolean readOnly) {
        final boolean ioFailure = failure instanceof IOException || readOnly;
        for (int i = loaded.size() - 1; i >= 0; i--) {
            try {
                if (ioFailure) {
                    loaded.get(i).abandon();
                    continue;
                }
                loaded.get(i).close();
            } catch (final IOException | RuntimeException suppressed) {
                failure.addSuppressed(suppressed);
            }
        }
    }

    /** What two passes of a load did, together (the first pass's cuts and removals are on disk already). */
    private static LogLoader.Repairs merge(final LogLoader.Repairs first, final LogLoader.Repairs second) {
        return new LogLoader.Repairs(first.recovered() || second.recovered(),
            first.segmentsScanned() + second.segmentsScanned(), first.bytesScanned() + second.bytesScanned(),
            concat(first.truncations(), second.truncations()), concat(first.deletedSegments(), second.deletedSegments()),
            concat(first.rebuiltIndexes(), second.rebuiltIndexes()), concat(first.removedFiles(), second.removedFiles()),
            first.epochsRebuilt() || second.epochsRebuilt(), concat(first.losses(), second.losses()));
    }

    private static <T> List<T> concat(final List<T> a, final List<T> b) {
        final java.util.LinkedHashSet<T> all = new java.util.LinkedHashSet<>(a);
        all.addAll(b); // a file rebuilt or scanned in both passes is listed once
        return List.copyOf(all);
    }

    /** Closes (read-only: abandons) segments loaded by a pass that is thrown away. */
    private static void closeAll(final List<LogSegment> segments, final boolean readOnly) throws IOException {
        for (int i = segments.size() - 1; i >= 0; i--) {
            if (readOnly) {
                segments.get(i).abandon();
            } else {
                segments.get(i).close();
            }
        }
    }

    private static LeaderEpochCache inMemoryCopy(final LeaderEpochCache fromFile) throws IOException {
        final LeaderEpochCache copy = LeaderEpochCache.inMemory();
        copy.assign(fromFile.entries());
        return copy;
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
