package io.seglog.storage.segment;

import static io.seglog.storage.format.RecordBatchDescriptor.BASE_OFFSET_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.PARTITION_LEADER_EPOCH_OFFSET;

import io.seglog.storage.epoch.LeaderEpochCache;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the segments of a partition directory and opens them in offset order, recovering them after a crash.
 *
 * <p>Every load first tidies the directory as Kafka's {@code LogLoader} does ({@link StrayFiles}): it
 * deletes {@code .deleted}, {@code .cleaned} and {@code .tmp} files, completes or discards {@code .swap} files, and
 * leaves unknown files alone with a WARN. Index files without a data file are left until the open has heard them as
 * witnesses ({@link #deleteOrphanIndexes}): one between two segments refuses the load here, others the open judges.
 *
 * <p>After a clean shutdown no batch is read: each segment is opened as it is, and only index files that are
 * missing or fail their sanity check are rebuilt. After a crash, every segment from the one holding
 * {@code min(recoveryPoint, scanFrom)} on is scanned by {@link SegmentRecovery}: CRC-checked batch by batch,
 * its indexes rebuilt. A torn tail is truncated (WARN naming file, position and bytes dropped) and every
 * later segment deleted, as Kafka does. A gap between segments above the recovery point is kept unless a witness
 * (the earlier segment's index files, a producer snapshot inside the gap) says the earlier segment lost its tail,
 * which is then handled as a torn tail: an open never deletes valid segments on a guess. Corruption that a crash cannot explain fails the load with a
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
     * @param orphanIndexBases the base offsets of index files left without their data file, ascending: still on disk
     *                 (the open deletes them with {@link #deleteOrphanIndexes} once its witnesses have judged them)
     * @param snapshotOffsets the offsets of the producer snapshots in the directory, ascending
     */
    public record Loaded(List<LogSegment> segments, Repairs report, LeaderEpochCache epochs, long[] orphanIndexBases,
                         long[] snapshotOffsets) {
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
     * @param losses          offsets a witness says the log held and the files no longer hold, opened as they are
     *                        because the policy is {@code truncate} (under {@code fail} the open is refused instead)
     */
    public record Repairs(boolean recovered, int segmentsScanned, long bytesScanned, List<Cut> truncations,
                          List<Path> deletedSegments, List<Path> rebuiltIndexes, List<Path> removedFiles,
                          boolean epochsRebuilt, List<Loss> losses) {
        /**
         * The same repairs with more files removed and more losses.
         *
         * @param removed files removed since
         * @param found   losses found since
         * @return new repairs
         */
        public Repairs with(final List<Path> removed, final List<Loss> found) {
            if (removed.isEmpty() && found.isEmpty()) {
                return this;
            }
            final List<Path> allRemoved = new ArrayList<>(removedFiles);
            allRemoved.addAll(removed);
            final List<Loss> allLosses = new ArrayList<>(losses);
            allLosses.addAll(found);
            return new Repairs(recovered, segmentsScanned, bytesScanned, truncations, deletedSegments, rebuiltIndexes,
                List.copyOf(allRemoved), epochsRebuilt, List.copyOf(allLosses));
        }
    }

    /**
     * Offsets a log held, by the word of a witness, that its files no longer hold, found at open.
     *
     * @param fromOffset the first offset missing
     * @param toOffset   the offset after the last one missing (as far as the witness can tell)
     * @param witness    the file that says the offsets existed (a checkpoint, an index, a snapshot)
     * @param field      what the witness holds: {@code logEndOffset}, {@code logStartOffset}, {@code segmentFile}...
     * @param detail     what the witness says and what the files hold
     */
    public record Loss(long fromOffset, long toOffset, Path witness, String field, String detail) {
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
        final long[] snapshots = SegmentFiles.listOffsets(dir, SegmentFiles.SNAPSHOT_SUFFIX);
        final List<LogSegment> segments = new ArrayList<>(bases.length);
        final LeaderEpochCache epochs = LeaderEpochCache.inMemory();
        final Recovery recovery = new Recovery(io, dir, config, options, epochs, snapshots);
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
                if (segment.lostTailOnOpen() != null) {
                    // The truncate policy: the segment's index files proved batches lost from its end. What is left is
                    // kept; the later segments go, as after a lost middle segment.
                    recovery.dropAfterCutSegment(segment, expectedNext, bases, i + 1);
                    firstScanned = bases.length;
                    break;
                }
            }
            recovery.recoverFrom(bases, firstScanned, segments, nowMs, jitter, expectedNext, orphans);
        } catch (final IOException | RuntimeException e) {
            closeAll(segments, e, options.readOnly());
            throw e;
        }
        final Repairs report = new Repairs(!options.hadCleanShutdown(), recovery.segmentsScanned,
            recovery.bytesScanned, recovery.truncations, recovery.deletedSegments, recovery.rebuiltIndexes, removed,
            options.knownEpochs() == null, List.of());
        // Orphans are witnesses the open still has to hear (a lost first or last segment): left on disk till then.
        return new Loaded(segments, report, epochs, StrayFiles.orphanIndexBases(dir), snapshots);
    }

    /**
     * Deletes the index files whose data file is missing (Kafka's {@code loadSegmentFiles} does), once the open has
     * found none of them to be a lost segment's.
     *
     * @param io  the file layer
     * @param dir the partition directory
     * @return the files deleted
     * @throws IOException if a file cannot be deleted
     */
    public static List<Path> deleteOrphanIndexes(final FileIO io, final Path dir) throws IOException {
        final List<Path> removed = new ArrayList<>();
        StrayFiles.deleteOrphanIndexes(io, dir, removed);
        return removed;
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
        /** The producer snapshots' offsets: each was a log end the log had (at a roll or a close). */
        private final long[] snapshots;
        private final List<Cut> truncations = new ArrayList<>();
        private final List<Path> deletedSegments = new ArrayList<>();
        private final List<Path> rebuiltIndexes = new ArrayList<>();
        private int segmentsScanned;
        private long bytesScanned;

        Recovery(final FileIO io, final Path dir, final SegmentConfig config, final Options options,
                 final LeaderEpochCache epochs, final long[] snapshots) {
            this.io = io;
            this.snapshots = snapshots;
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

        /**
         * A segment whose index files proved batches lost from the end of its data file, under the truncate policy:
         * the cut is reported (no byte is removed: the bytes are gone already) and the later segments go.
         */
        void dropAfterCutSegment(final LogSegment segment, final long end, final long[] bases, final int next)
            throws IOException {
            final CorruptSegmentException lost = segment.lostTailOnOpen();
            LOG.error("Opening {}: {}; keeping what is left and dropping every later segment, as {}=truncate says{}",
                segment.logFile(), lost.getMessage(), SegmentConfig.CORRUPTION_POLICY_KEY,
                options.readOnly() ? " (read-only: left on disk)" : "");
            truncations.add(new Cut(segment.logFile(), segment.sizeInBytes(), end, 0, false,
                "lastOffset: " + lost.finding().detail()));
            deleteFrom(bases, next);
            if (!options.readOnly() && next < bases.length) {
                io.fsyncDirectory(dir);
            }
        }

        /**
         * A segment named inside the previous one's offsets: the files contradict each other (a crash cannot make
         * this). Below the recovery point it is corruption; above it, the later segments were not durable either and
         * go, as after a torn tail.
         */
        private void refuseOrDropOverlap(final long[] bases, final int i, final long expected) throws IOException {
            final Path file = dir.resolve(SegmentFiles.fileName(bases[i], SegmentFiles.LOG_SUFFIX));
            final String detail = "the segment starts inside the previous segment's offsets";
            if (expected < options.recoveryPoint() && !config.truncateOnCorruption()) {
                throw new CorruptSegmentException(file, new CorruptSegmentException.Finding(0, expected,
                    "segmentBaseOffset", Long.toString(expected), Long.toString(bases[i]), detail
                    + " below the recovery point " + options.recoveryPoint()));
            }
            LOG.warn("Recovery of {}: deleting segment {} and every later one: {} (expected base offset {}, "
                + "found {})", dir, file.getFileName(), detail, expected, bases[i]);
            deleteFrom(bases, i);
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
            LogSegment previous = null;
            IndexClaims previousClaims = IndexClaims.NONE;
            for (int i = first; i < bases.length; i++) {
                if (expected >= 0 && lostSegmentBetween(orphans, expected, bases[i]) >= 0) {
                    refuseOrDropLostSegment(bases, i, lostSegmentBetween(orphans, expected, bases[i]));
                    changedDirectory = true;
                    break;
                }
                if (expected >= 0 && bases[i] > expected && expected >= options.recoveryPoint()) {
                    // A gap above the recovery point: legal (Kafka's cleaner, a replicated gap, a follower's batch far
                    // above its log end) or the previous segment's tail, lost in the crash. Only a witness decides
                    // for the loss; without one the segment is kept, since its batches are valid (they are scanned
                    // next) and an open never deletes valid data on a guess.
                    final String witness = lostTailWitness(previous, previousClaims, expected, bases[i]);
                    if (witness != null) {
                        dropAfterLostTail(previous, expected, bases, i, witness);
                        changedDirectory = true;
                        break;
                    }
                    LOG.info("Recovery of {}: segment {} starts at offset {}, after the previous segment's end {}"
                        + " above the recovery point {}: a gap, kept (no index entry or producer snapshot says the"
                        + " previous segment held more)", dir, SegmentFiles.fileName(bases[i], SegmentFiles.LOG_SUFFIX),
                        bases[i], expected, options.recoveryPoint());
                } else if (expected >= 0 && bases[i] < expected) {
                    refuseOrDropOverlap(bases, i, expected);
                    changedDirectory = true;
                    break;
                }
                // The index files' claims are read before the scan replaces them: a witness of a tail this segment
                // lost, should the next segment start after a gap.
                final IndexClaims claims = i + 1 < bases.length ? claimsOf(bases[i]) : IndexClaims.NONE;
                final LogSegment segment = options.readOnly()
                    ? LogSegment.openReadOnly(io, dir, bases[i], config, nowMs, null, true, false)
                    : LogSegment.openForRecovery(io, dir, bases[i], config, nowMs, jitter.getAsLong());
                segments.add(segment);
                scanned.add(segment);
                rebuiltIndexes.add(segment.logFile()); // read-only: read without index files
                final int size = segment.sizeInBytes();
                final SegmentRecovery.Outcome outcome = scanner.scan(segment, options.recoveryPoint(), lastEpoch,
                    options.knownEpochs(), epochs, i + 1 < bases.length ? bases[i + 1] : Long.MAX_VALUE);
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
                previous = segment;
                previousClaims = claims;
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

        /** What a segment's index files claim, read before a scan replaces them; nothing when they are missing. */
        private IndexClaims claimsOf(final long base) throws IOException {
            final Path log = dir.resolve(SegmentFiles.fileName(base, SegmentFiles.LOG_SUFFIX));
            final Path index = dir.resolve(SegmentFiles.fileName(base, SegmentFiles.INDEX_SUFFIX));
            final Path timeIndex = dir.resolve(SegmentFiles.fileName(base, SegmentFiles.TIME_INDEX_SUFFIX));
            // Existence and size are metadata, not file access; FileIO has no call for them.
            if (!Files.exists(index) || !Files.exists(timeIndex)) {
                return IndexClaims.NONE;
            }
            return IndexClaims.read(io, index, timeIndex, base, (int) Math.min(Files.size(log), Integer.MAX_VALUE));
        }

        /**
         * What says that the scanned segment before a gap held offsets from {@code end} on, or null: its index files'
         * claims past its data, or a producer snapshot in {@code (end, nextBase]} (a snapshot is written at a roll
         * at the log end then, and fsynced, so one there says the log once ended past what the segment now holds).
         */
        private String lostTailWitness(final LogSegment previous, final IndexClaims claims, final long end,
                                       final long nextBase) {
            if (previous != null) {
                final IndexClaims.DataEnd data = new IndexClaims.DataEnd(
                    end > previous.baseOffset() ? end - 1 : -1, previous.maxTimestampSoFar());
                if (claims.proveLossPast(data)) {
                    return "the index files of " + previous.logFile().getFileName() + " say so: " + claims.describe(data);
                }
            }
            for (final long snapshot : snapshots) {
                if (snapshot > end && snapshot <= nextBase) {
                    return "the producer snapshot " + SegmentFiles.fileName(snapshot, SegmentFiles.SNAPSHOT_SUFFIX)
                        + " was taken when the log ended at offset " + snapshot;
                }
            }
            return null;
        }

        /**
         * The segment before a gap lost its tail in the crash: as after a torn tail, the later segments (above the
         * recovery point, so never durable) are deleted, and the loss is reported as a cut of no bytes.
         */
        private void dropAfterLostTail(final LogSegment previous, final long end, final long[] bases, final int next,
                                       final String witness) throws IOException {
            final Path file = previous != null ? previous.logFile()
                : dir.resolve(SegmentFiles.fileName(bases[next - 1], SegmentFiles.LOG_SUFFIX));
            final String what = "lastOffset expected at least " + end + ", found " + (end - 1) + " (the segment's tail"
                + " was lost in the crash: " + witness + ")";
            LOG.warn("Recovery of {}: the segment ends at offset {} but lost its tail ({}); dropping every later"
                + " segment, as after a torn tail{}", file, end, witness,
                options.readOnly() ? " (read-only: left on disk)" : "");
            truncations.add(new Cut(file, previous != null ? previous.sizeInBytes() : 0, end, 0, true, what));
            deleteFrom(bases, next);
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
            } else if (problem.zeros()) {
                LOG.info("Recovery of {}: cutting the {} zero bytes preallocated after the last batch (position {},"
                    + " offset {}): no record was in them", segment.logFile(), dropped, problem.position(),
                    problem.offset());
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
                io.deleteIfExists(dir.resolve(SegmentFiles.fileName(bases[j], SegmentFiles.TXN_INDEX_SUFFIX)));
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
        return SegmentFiles.listOffsets(dir, SegmentFiles.LOG_SUFFIX);
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
