package io.seglog.storage.segment;

import static io.seglog.storage.format.RecordBatchDescriptor.BASE_OFFSET_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.PARTITION_LEADER_EPOCH_OFFSET;

import io.seglog.storage.epoch.LeaderEpochCache;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the segments of a partition directory and opens them in offset order, recovering them after a crash.
 *
 * <p>Every load first tidies the directory as Kafka's {@code LogLoader} does ({@link StrayFiles}): it
 * deletes {@code .deleted}, {@code .cleaned} and {@code .tmp} files and index files without a data file,
 * completes or discards {@code .swap} files, and leaves unknown files alone with a WARN.
 *
 * <p>After a clean shutdown no batch is read: each segment is opened as it is, and only index files that are
 * missing or fail their sanity check are rebuilt. After a crash, every segment from the one holding
 * {@code min(recoveryPoint, scanFrom)} on is scanned by {@link SegmentRecovery}: CRC-checked batch by batch,
 * its indexes rebuilt. A torn tail is truncated (WARN naming file, position and bytes dropped) and every
 * later segment deleted, as Kafka does. Corruption that a crash cannot explain fails the load with a
 * {@link CorruptSegmentException} carrying its {@link CorruptSegmentException.Finding finding}, unless
 * {@link SegmentConfig#truncateOnCorruption()}, which truncates there instead and reports it. The scanned segments
 * are fsynced at the end, so everything the loaded log holds is durable. The answer carries the {@link Repairs}.
 *
 * <p>Thread-safety: stateless; a load owns the directory while it runs.
 */
public final class LogLoader {
    private static final Logger LOG = LoggerFactory.getLogger(LogLoader.class);

    private LogLoader() {
    }

    /**
     * What to do when loading.
     *
     * @param hadCleanShutdown the log was closed cleanly: no scan
     * @param recoveryPoint    offsets below it were flushed: an invalid batch there is corruption, never a torn
     *                         tail
     * @param scanFrom         the scan starts at the segment holding {@code min(recoveryPoint, scanFrom)}; pass
     *                         {@link Long#MAX_VALUE} for Kafka's rule (from the recovery point), or 0 to verify
     *                         every batch
     * @param knownEpochs      the leader-epoch checkpoint's entries to check scanned batches against, or null when
     *                         the checkpoint was missing or corrupt and must be rebuilt (segments the scan does not
     *                         cover are checked by the open: EpochAgreement)
     * @param verifyExecutor   runs CRC checks of a scan beside the loading thread, or null to scan on it alone
     * @param verifyThreads    how many tasks of {@code verifyExecutor} a scan uses at once (0 without one)
     * @param readOnly         load without changing anything on disk: stray files are left, unusable indexes are
     *                         replaced by empty in-memory ones, and what a scan finds past the valid data (a torn
     *                         tail, damage the policy drops, later segments) is left out of the log, not cut or
     *                         deleted
     */
    public record Options(boolean hadCleanShutdown, long recoveryPoint, long scanFrom, LeaderEpochCache knownEpochs,
                          Executor verifyExecutor, int verifyThreads, boolean readOnly) {
        /**
         * Checks that an executor comes with a thread count and the reverse.
         *
         * @param hadCleanShutdown the log was closed cleanly: no scan
         * @param recoveryPoint    offsets below it were flushed
         * @param scanFrom         the scan starts at the segment holding {@code min(recoveryPoint, scanFrom)}
         * @param knownEpochs      the leader-epoch checkpoint's entries, or null
         * @param verifyExecutor   runs CRC checks beside the loading thread, or null
         * @param verifyThreads    tasks of {@code verifyExecutor} used at once: at least 1 with an executor, else 0
         * @param readOnly         load without changing anything on disk
         * @throws IllegalArgumentException naming both values when they do not agree
         */
        public Options {
            if ((verifyExecutor == null) != (verifyThreads == 0) || verifyThreads < 0) {
                throw new IllegalArgumentException("verifyExecutor=" + verifyExecutor + " verifyThreads="
                    + verifyThreads + ": an executor needs at least 1 thread, and no executor 0");
            }
        }

        /**
         * Options for a scan on the loading thread alone.
         *
         * @param hadCleanShutdown the log was closed cleanly: no scan
         * @param recoveryPoint    offsets below it were flushed
         * @param scanFrom         the scan starts at the segment holding {@code min(recoveryPoint, scanFrom)}
         * @param knownEpochs      the leader-epoch checkpoint's entries, or null
         */
        public Options(final boolean hadCleanShutdown, final long recoveryPoint, final long scanFrom,
                       final LeaderEpochCache knownEpochs) {
            this(hadCleanShutdown, recoveryPoint, scanFrom, knownEpochs, null, 0, false);
        }

        /**
         * Options for a load that may repair the directory.
         *
         * @param hadCleanShutdown the log was closed cleanly: no scan
         * @param recoveryPoint    offsets below it were flushed
         * @param scanFrom         the scan starts at the segment holding {@code min(recoveryPoint, scanFrom)}
         * @param knownEpochs      the leader-epoch checkpoint's entries, or null
         * @param verifyExecutor   runs CRC checks beside the loading thread, or null
         * @param verifyThreads    tasks of {@code verifyExecutor} used at once: at least 1 with an executor, else 0
         */
        public Options(final boolean hadCleanShutdown, final long recoveryPoint, final long scanFrom,
                       final LeaderEpochCache knownEpochs, final Executor verifyExecutor, final int verifyThreads) {
            this(hadCleanShutdown, recoveryPoint, scanFrom, knownEpochs, verifyExecutor, verifyThreads, false);
        }
    }

    /**
     * The loaded segments and what loading did.
     *
     * @param segments the open segments, oldest first; empty when the directory holds none
     * @param report   what was repaired
     * @param epochs   the leader epochs of the batches read: every batch when {@code knownEpochs} was null,
     *                 otherwise those of the scanned segments
     */
    public record Loaded(List<LogSegment> segments, Repairs report, LeaderEpochCache epochs) {
    }

    /**
     * What a load repaired; the partition log reports it as its public recovery report.
     *
     * @param recovered       whether the log was scanned (no clean shutdown)
     * @param segmentsScanned segments CRC-checked by the scan
     * @param bytesScanned    bytes CRC-checked by the scan
     * @param truncations     data cut off, in file order
     * @param deletedSegments data files deleted because an earlier segment was truncated
     * @param rebuiltIndexes  data files whose indexes were rebuilt
     * @param removedFiles    stray files removed
     * @param epochsRebuilt   whether the leader epochs were rebuilt from the batches
     */
    public record Repairs(boolean recovered, int segmentsScanned, long bytesScanned, List<Cut> truncations,
                          List<Path> deletedSegments, List<Path> rebuiltIndexes, List<Path> removedFiles,
                          boolean epochsRebuilt) {
    }

    /**
     * One cut of a data file.
     *
     * @param file         the data file
     * @param position     the new length of the file
     * @param offset       the first offset dropped
     * @param bytesDropped bytes removed
     * @param tornTail     a crash's torn tail (else corruption truncated by policy)
     * @param detail       what was invalid there (field, expected, found)
     */
    public record Cut(Path file, long position, long offset, long bytesDropped, boolean tornTail, String detail) {
    }

    /**
     * Tidies the directory (read-only: leaves it), opens every segment and, after a crash, recovers them; see the
     * class comment.
     * On failure, closes what it opened.
     *
     * @param io      the file layer
     * @param dir     the partition directory
     * @param config  the segment configuration (index sizes and interval, corruption policy)
     * @param nowMs   the current time
     * @param jitter  supplies each segment's roll jitter
     * @param scratch a heap buffer of at least 64 bytes for header reads
     * @param options clean shutdown or not, recovery point, scan start, known epochs
     * @return the segments and the report
     * @throws IOException if a file cannot be listed, opened, read, truncated or deleted
     * @throws CorruptSegmentException with a finding when corruption is not truncated by the policy
     */
    public static Loaded load(final FileIO io, final Path dir, final SegmentConfig config, final long nowMs,
                              final LongSupplier jitter, final ByteBuffer scratch, final Options options)
        throws IOException {
        final List<Path> removed = new ArrayList<>();
        if (options.readOnly()) {
            StrayFiles.refuseUnfinishedSwap(dir);
        } else {
            StrayFiles.tidy(io, dir, scratch, removed);
        }
        final long[] bases = listBaseOffsets(dir);
        final List<LogSegment> segments = new ArrayList<>(bases.length);
        final LeaderEpochCache epochs = LeaderEpochCache.inMemory();
        final Recovery recovery = new Recovery(io, dir, config, options, epochs);
        try {
            final long scanFloor = Math.min(options.recoveryPoint(), options.scanFrom());
            int firstScanned = bases.length;
            if (!options.hadCleanShutdown()) {
                firstScanned = 0;
                for (int i = 1; i < bases.length && bases[i] <= scanFloor; i++) {
                    firstScanned = i;
                }
            }
            final long[] orphans = StrayFiles.orphanIndexBases(dir);
            long expectedNext = -1;
            for (int i = 0; i < firstScanned; i++) {
                if (expectedNext >= 0 && lostSegmentBetween(orphans, expectedNext, bases[i]) >= 0) {
                    recovery.refuseOrDropLostSegment(bases, i, lostSegmentBetween(orphans, expectedNext, bases[i]));
                    firstScanned = bases.length;
                    break;
                }
                if (expectedNext >= 0 && bases[i] < expectedNext) {
                    // Each segment starts after the previous one's last offset (later is a compaction gap, legal
                    // under every policy). A segment named inside the previous one's offsets contradicts it: a file
                    // was replaced, or a base offset or name is damaged; trusting it would answer reads twice.
                    final Path file = dir.resolve(SegmentFiles.fileName(bases[i], SegmentFiles.LOG_SUFFIX));
                    if (!config.truncateOnCorruption()) {
                        throw new CorruptSegmentException(file, new CorruptSegmentException.Finding(0, expectedNext,
                            "segmentBaseOffset", "at least " + expectedNext, Long.toString(bases[i]),
                            "the segment starts inside the previous one's offsets, so a segment file was replaced or"
                                + " damaged; set " + SegmentConfig.CORRUPTION_POLICY_KEY + "=truncate to drop the"
                                + " log from here on, or re-fetch the partition from a replica"));
                    }
                    LOG.error("Opening {}: segment {} starts inside the previous one's offsets (below {}); dropping it"
                        + " and every later one as {}=truncate says{}", dir, file.getFileName(), expectedNext,
                        SegmentConfig.CORRUPTION_POLICY_KEY, options.readOnly() ? " (read-only: left on disk)" : "");
                    recovery.deleteFrom(bases, i);
                    if (!options.readOnly()) {
                        io.fsyncDirectory(dir);
                    }
                    firstScanned = bases.length;
                    break;
                }
                final LogSegment segment = options.readOnly()
                    ? LogSegment.openReadOnly(io, dir, bases[i], config, nowMs, scratch, false, i < bases.length - 1)
                    : LogSegment.open(io, dir, bases[i], config, nowMs, jitter.getAsLong(), scratch);
                segments.add(segment);
                if (segment.indexesRebuiltOnOpen()) {
                    recovery.rebuiltIndexes.add(segment.logFile());
                }
                if (options.knownEpochs() == null) {
                    collectEpochs(segment, epochs, scratch);
                }
                expectedNext = segment.reader().readNextOffset(segment.sizeInBytes(), scratch);
            }
            recovery.recoverFrom(bases, firstScanned, segments, nowMs, jitter, expectedNext, orphans);
            if (!options.readOnly()) {
                StrayFiles.deleteOrphanIndexes(io, dir, removed);
            }
        } catch (final IOException | RuntimeException e) {
            closeAll(segments, e, options.readOnly());
            throw e;
        }
        final Repairs report = new Repairs(!options.hadCleanShutdown(), recovery.segmentsScanned,
            recovery.bytesScanned, recovery.truncations, recovery.deletedSegments, recovery.rebuiltIndexes, removed,
            options.knownEpochs() == null);
        return new Loaded(segments, report, epochs);
    }

    /**
     * The leader epochs of every batch of {@code segments} (a header walk), for an open that cannot use the
     * checkpoint it loaded.
     *
     * @param segments the loaded segments, oldest first
     * @return an in-memory cache of the batches' epochs
     * @throws IOException if a read fails, or a batch length does not fit its file
     */
    public static LeaderEpochCache epochsOf(final List<LogSegment> segments) throws IOException {
        final LeaderEpochCache epochs = LeaderEpochCache.inMemory();
        final ByteBuffer scratch = ByteBuffer.allocate(64);
        for (final LogSegment segment : segments) {
            collectEpochs(segment, epochs, scratch);
        }
        return epochs;
    }

    /**
     * Walks the batch headers of {@code segment} and assigns each batch's leader epoch (when it has one) to
     * {@code epochs}: the rebuild of a missing or corrupt leader-epoch checkpoint for segments the recovery scan
     * does not cover.
     *
     * @throws CorruptSegmentException if a batch length does not fit the file
     */
    private static void collectEpochs(final LogSegment segment, final LeaderEpochCache epochs,
                                      final ByteBuffer scratch) throws IOException {
        final int size = segment.sizeInBytes();
        for (int position = 0; position < size; ) {
            final int batchSize = segment.readHeader(scratch, position, size, LogSegment.OFFSET_HEADER_BYTES);
            final int epoch = scratch.getInt(PARTITION_LEADER_EPOCH_OFFSET);
            if (epoch >= 0) {
                epochs.assign(epoch, scratch.getLong(BASE_OFFSET_OFFSET));
            }
            position += batchSize;
        }
    }

    /** Closes the segments of a failed load; a read-only load abandons them (a close trims and syncs). */
    private static void closeAll(final List<LogSegment> segments, final Throwable primary, final boolean readOnly) {
        for (int i = segments.size() - 1; i >= 0; i--) {
            try {
                if (readOnly) {
                    segments.get(i).abandon();
                    continue;
                }
                segments.get(i).close();
            } catch (final IOException | RuntimeException suppressed) {
                primary.addSuppressed(suppressed);
            }
        }
    }

    /** The scan of the segments from the recovery floor on, with what it did. */
    private static final class Recovery {
        private final FileIO io;
        private final Path dir;
        private final SegmentConfig config;
        private final Options options;
        private final LeaderEpochCache epochs;
        private final SegmentRecovery scanner;
        private final List<Cut> truncations = new ArrayList<>();
        private final List<Path> deletedSegments = new ArrayList<>();
        private final List<Path> rebuiltIndexes = new ArrayList<>();
        private int segmentsScanned;
        private long bytesScanned;

        Recovery(final FileIO io, final Path dir, final SegmentConfig config, final Options options,
                 final LeaderEpochCache epochs) {
            this.io = io;
            this.dir = dir;
            this.config = config;
            this.options = options;
            this.epochs = epochs;
            this.scanner = new SegmentRecovery(
                options.verifyExecutor() == null ? null
                    : new BatchCrcVerifier(options.verifyExecutor(), options.verifyThreads()),
                SegmentRecovery.DEFAULT_RUN_BYTES);
        }

        /**
         * A segment whose data file is gone while its index files remain between two segments: its records are
         * lost. Refused under the fail policy; under truncate, the log is dropped from there, as a cut segment's
         * successors are.
         */
        void refuseOrDropLostSegment(final long[] bases, final int next, final long lostBase) throws IOException {
            final Path index = dir.resolve(SegmentFiles.fileName(lostBase, SegmentFiles.INDEX_SUFFIX));
            final String detail = "the index files of the segment at base offset " + lostBase + " remain but its data"
                + " file is gone, between segments that end below it and start at " + bases[next] + ": its records"
                + " were lost";
            if (!config.truncateOnCorruption()) {
                throw new CorruptSegmentException(index, new CorruptSegmentException.Finding(0, lostBase,
                    "segmentFile", SegmentFiles.fileName(lostBase, SegmentFiles.LOG_SUFFIX), "missing", detail
                        + "; set " + SegmentConfig.CORRUPTION_POLICY_KEY + "=truncate to drop the log from there on,"
                        + " or re-fetch the partition from a replica"));
            }
            LOG.error("Opening {}: {}; dropping every later segment as {}=truncate says{}", dir, detail,
                SegmentConfig.CORRUPTION_POLICY_KEY, options.readOnly() ? " (read-only: left on disk)" : "");
            deleteFrom(bases, next);
            if (!options.readOnly()) {
                io.fsyncDirectory(dir);
            }
        }

        void recoverFrom(final long[] bases, final int first, final List<LogSegment> segments, final long nowMs,
                         final LongSupplier jitter, final long expectedFirst, final long[] orphans)
            throws IOException {
            if (first >= bases.length) {
                return;
            }
            final List<LogSegment> scanned = new ArrayList<>();
            long expected = expectedFirst;
            int lastEpoch = epochs.latestEpoch();
            boolean changedDirectory = false;
            for (int i = first; i < bases.length; i++) {
                if (expected >= 0 && lostSegmentBetween(orphans, expected, bases[i]) >= 0) {
                    refuseOrDropLostSegment(bases, i, lostSegmentBetween(orphans, expected, bases[i]));
                    changedDirectory = true;
                    break;
                }
                final boolean legalGap = bases[i] > expected && expected < options.recoveryPoint();
                if (expected >= 0 && bases[i] != expected && !legalGap) {
                    // A segment that does not start where the previous one ended. Later is a legal gap (Kafka's
                    // cleaner, a replicated gap; under any policy) when the previous segment ended below the
                    // recovery point: the offsets from its end up to the recovery point were durable, so they are a
                    // gap, not a tail the crash cut. A segment ending exactly at the recovery point may have lost a
                    // tail above it, so the later segments (not durable either) go, as a torn tail's do. Otherwise
                    // the files contradict each other.
                    final Path file = dir.resolve(SegmentFiles.fileName(bases[i], SegmentFiles.LOG_SUFFIX));
                    final String detail = "the segment does not start at the end offset of the previous segment";
                    if (expected < options.recoveryPoint() && !config.truncateOnCorruption()) {
                        throw new CorruptSegmentException(file, new CorruptSegmentException.Finding(0, expected,
                            "segmentBaseOffset", Long.toString(expected), Long.toString(bases[i]), detail
                            + " below the recovery point " + options.recoveryPoint()));
                    }
                    LOG.warn("Recovery of {}: deleting segment {} and every later one: {} (expected base offset {}, "
                        + "found {})", dir, file.getFileName(), detail, expected, bases[i]);
                    deleteFrom(bases, i);
                    changedDirectory = true;
                    break;
                }
                final LogSegment segment = options.readOnly()
                    ? LogSegment.openReadOnly(io, dir, bases[i], config, nowMs, null, true, false)
                    : LogSegment.openForRecovery(io, dir, bases[i], config, nowMs, jitter.getAsLong());
                segments.add(segment);
                scanned.add(segment);
                rebuiltIndexes.add(segment.logFile()); // read-only: read without index files
                final int size = segment.sizeInBytes();
                final SegmentRecovery.Outcome outcome = scanner.scan(segment, options.recoveryPoint(), lastEpoch,
                    options.knownEpochs(), epochs);
                segmentsScanned++;
                bytesScanned += outcome.validBytes();
                final SegmentRecovery.Problem problem = outcome.problem();
                if (problem != null) {
                    truncate(segment, size, problem);
                    finish(segment);
                    if (i + 1 < bases.length) {
                        deleteFrom(bases, i + 1);
                    }
                    changedDirectory = true;
                    break;
                }
                finish(segment);
                expected = outcome.nextOffset();
                lastEpoch = outcome.lastEpoch();
            }
            if (options.readOnly()) {
                return; // nothing was written, so nothing is synced
            }
            // Everything the log now holds must be durable, so the recovery point may move to its end.
            for (final LogSegment segment : scanned) {
                segment.flush();
            }
            if (changedDirectory) {
                io.fsyncDirectory(dir);
            }
        }

        /** After a segment's scan: its final index entries and trimmed indexes; nothing in a read-only load. */
        private void finish(final LogSegment segment) throws IOException {
            if (!options.readOnly()) {
                segment.finishRecovery();
            }
        }

        private void truncate(final LogSegment segment, final int size, final SegmentRecovery.Problem problem)
            throws IOException {
            final String what = problem.field() + " expected " + problem.expected() + ", found " + problem.found()
                + " (" + problem.detail() + ")";
            if (!problem.tornTail() && !config.truncateOnCorruption()) {
                throw new CorruptSegmentException(segment.logFile(), new CorruptSegmentException.Finding(
                    problem.position(), problem.offset(), problem.field(), problem.expected(), problem.found(),
                    problem.detail() + "; set " + SegmentConfig.CORRUPTION_POLICY_KEY + "=truncate to drop the data"
                        + " from here on, or re-fetch the partition from a replica"));
            }
            final long dropped = size - problem.position();
            if (options.readOnly()) {
                LOG.warn("Read-only open of {}: leaving {} bytes from position {} (offset {}) out of the log ({}): {}",
                    segment.logFile(), dropped, problem.position(), problem.offset(),
                    problem.tornTail() ? "a torn tail" : "corruption", what);
            } else if (problem.tornTail()) {
                LOG.warn("Recovery of {}: truncating a torn tail at position {} (offset {}), dropping {} bytes: {}",
                    segment.logFile(), problem.position(), problem.offset(), dropped, what);
            } else {
                LOG.error("Recovery of {}: corruption at position {} (offset {}), truncating as {}=truncate says, "
                    + "dropping {} bytes and every later segment: {}", segment.logFile(), problem.position(),
                    problem.offset(), SegmentConfig.CORRUPTION_POLICY_KEY, dropped, what);
            }
            if (options.readOnly()) {
                segment.hideFrom(problem.position());
            } else {
                segment.truncateDataTo(problem.position());
            }
            truncations.add(new Cut(segment.logFile(), problem.position(), problem.offset(), dropped,
                problem.tornTail(), what));
        }

        /** Deletes the segments from {@code from} on (a read-only load only leaves them out and lists them). */
        private void deleteFrom(final long[] bases, final int from) throws IOException {
            for (int j = from; j < bases.length; j++) {
                final Path log = dir.resolve(SegmentFiles.fileName(bases[j], SegmentFiles.LOG_SUFFIX));
                if (options.readOnly()) {
                    LOG.warn("Read-only open of {}: leaving out segment {} after a cut one", dir, log.getFileName());
                    deletedSegments.add(log);
                    continue;
                }
                LOG.warn("Recovery of {}: deleting segment {} after a truncated one", dir, log.getFileName());
                // Index files before the data file: a crash in between must not leave an index without its .log
                // in a gap, which the next open would take for a lost segment.
                io.deleteIfExists(dir.resolve(SegmentFiles.fileName(bases[j], SegmentFiles.INDEX_SUFFIX)));
                io.deleteIfExists(dir.resolve(SegmentFiles.fileName(bases[j], SegmentFiles.TIME_INDEX_SUFFIX)));
                io.deleteIfExists(log);
                deletedSegments.add(log);
            }
        }
    }

    /**
     * An orphan index base offset in {@code [from, to)}: a segment that sat in the gap between the segment ending
     * below {@code from} and the one starting at {@code to}.
     *
     * @return the smallest such base, or -1
     */
    static long lostSegmentBetween(final long[] orphans, final long from, final long to) {
        for (final long base : orphans) {
            if (base >= from && base < to) {
                return base;
            }
        }
        return -1;
    }

    /**
     * The base offsets of the segment data files in a directory, ascending.
     *
     * @param dir the partition directory
     * @return the base offsets
     * @throws IOException if the directory cannot be listed
     */
    public static long[] listBaseOffsets(final Path dir) throws IOException {
        final List<Long> found = new ArrayList<>();
        // Listing is metadata, not file access; FileIO has no call for it.
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*" + SegmentFiles.LOG_SUFFIX)) {
            for (final Path file : files) {
                final long base = SegmentFiles.parseBaseOffset(file.getFileName().toString());
                if (base >= 0) {
                    found.add(base);
                }
            }
        }
        final long[] bases = new long[found.size()];
        for (int i = 0; i < bases.length; i++) {
            bases[i] = found.get(i);
        }
        Arrays.sort(bases);
        return bases;
    }

    /**
     * Opens every segment of the directory, oldest first. On failure, closes the ones already opened.
     *
     * @param io      the file layer
     * @param dir     the partition directory
     * @param config  the log configuration
     * @param nowMs   the current time
     * @param jitter  supplies each segment's roll jitter
     * @param scratch a heap buffer of at least 64 bytes for header reads
     * @return the open segments, in base-offset order; empty when the directory holds none
     * @throws IOException if a segment cannot be opened
     */
    public static List<LogSegment> load(final FileIO io, final Path dir, final SegmentConfig config, final long nowMs,
                                        final LongSupplier jitter, final ByteBuffer scratch) throws IOException {
        final long[] bases = listBaseOffsets(dir);
        final List<LogSegment> segments = new ArrayList<>(bases.length);
        try {
            for (final long base : bases) {
                segments.add(LogSegment.open(io, dir, base, config, nowMs, jitter.getAsLong(), scratch));
            }
        } catch (final IOException | RuntimeException e) {
            for (int i = segments.size() - 1; i >= 0; i--) {
                try {
                    segments.get(i).close();
                } catch (final IOException | RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            throw e;
        }
        return segments;
    }
}
