package io.seglog.storage.log;

import io.seglog.storage.checkpoint.EpochEntry;
import io.seglog.storage.checkpoint.LeaderEpochCheckpointFile;
import io.seglog.storage.checkpoint.OffsetCheckpointFile;
import io.seglog.storage.epoch.LeaderEpochCache;
import io.seglog.storage.segment.CorruptSegmentException;
import io.seglog.storage.segment.LogLoader;
import io.seglog.storage.segment.LogSegment;
import io.seglog.storage.segment.SegmentConfig;
import io.seglog.storage.segment.SegmentFiles;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The files an open hears, once its segments are loaded, before it trusts where the log begins and ends. A segment
 * file can vanish whole (a mistaken {@code rm}, a restore that missed one) and leave a log that looks sound: a missing
 * first segment reads as retention, a missing last one as a shorter log, and appending would reuse the lost offsets.
 * Each of these files was written after the data it describes, so each says an offset existed:
 * <ul>
 *   <li>the <b>recovery point</b> (a log manager's {@code recovery-point-offset-checkpoint}, or the caller's): every
 *       offset below it was flushed, so the log ends at or above it, after a crash as after a clean shutdown; after a
 *       clean shutdown it is the log end at close, so the log ends exactly there (above it, the last batch's base
 *       offset, which no CRC covers, or the checkpoint is damaged);</li>
 *   <li>the <b>log-start checkpoint</b>: the first segment holds the log start, since a segment is deleted only after
 *       the checkpoint has moved past it (a log manager writes it first);</li>
 *   <li>after a clean shutdown, which leaves no stray file: an <b>index file without its data file</b> below the first
 *       segment or at or above the log end (a lost first or last segment; one between segments is judged by the
 *       loader), a <b>producer snapshot</b> above the log end (one is taken at every roll and close, at the log end
 *       then), and a <b>leader-epoch entry</b> starting above the log end (an entry is written before the batch that
 *       begins the epoch).</li>
 * </ul>
 * What a witness says is lost is refused under {@code seglog.corruption.policy=fail}, naming the witness, the offsets
 * and the field; under {@code truncate} the log opens as the files are and the loss is reported. Witnesses that are
 * absent (a standalone log has no checkpoints; a crash leaves strays) say nothing.
 *
 * <p>Stateless.
 */
final class LossWitnesses {
    private static final Logger LOG = LoggerFactory.getLogger("io.seglog.storage.PartitionLog");

    private LossWitnesses() {
    }

    /**
     * What the open knows besides the segments.
     *
     * @param hadCleanShutdown the log was closed cleanly
     * @param recoveryPoint    offsets below it were flushed; 0 when unknown
     * @param knownLogStart    the log-start checkpoint's entry for this log, -1 when it has none
     * @param orphanIndexBases base offsets of index files without their data file, ascending
     * @param snapshotOffsets  offsets of the producer snapshots, ascending
     * @param epochs           the leader-epoch checkpoint's entries (empty when it is being rebuilt)
     */
    record Evidence(boolean hadCleanShutdown, long recoveryPoint, long knownLogStart, long[] orphanIndexBases,
                    long[] snapshotOffsets, LeaderEpochCache epochs) {
    }

    /**
     * Hears every witness.
     *
     * @param dir       the partition directory
     * @param config    the segment configuration (the corruption policy)
     * @param segments  the loaded segments, oldest first, at least one
     * @param endOffset the loaded log's end offset
     * @param evidence  the witnesses
     * @return the losses found, when the policy opens the log anyway; empty when there is none
     * @throws CorruptSegmentException naming the first loss, under {@code fail}
     */
    static List<LogLoader.Loss> hear(final Path dir, final SegmentConfig config, final List<LogSegment> segments,
                                     final long endOffset, final Evidence evidence) throws CorruptSegmentException {
        final List<LogLoader.Loss> losses = new ArrayList<>();
        final LogSegment first = segments.get(0);
        final LogSegment active = segments.get(segments.size() - 1);
        final long firstBase = first.baseOffset();
        final boolean truncate = config.truncateOnCorruption();
        final Path logDir = dir.toAbsolutePath().getParent();

        final long recoveryPoint = evidence.recoveryPoint();
        if (recoveryPoint > endOffset) {
            final long orphan = firstAtOrAbove(evidence.orphanIndexBases(), endOffset);
            report(losses, truncate, active.logFile(), active.sizeInBytes(), new LogLoader.Loss(endOffset,
                recoveryPoint, logDir == null ? active.logFile() : logDir.resolve(OffsetCheckpointFile.RECOVERY_POINT_FILE),
                "logEndOffset", "the log ends at offset " + endOffset + " below its recovery point " + recoveryPoint
                    + ", below which every offset was flushed" + (orphan >= 0 ? " (the index files of the segment at "
                    + orphan + " remain, its data file is gone)" : "") + ", so flushed data is missing (a segment file"
                    + " was deleted or cut short), or the recovery point is wrong (" + OffsetCheckpointFile.RECOVERY_POINT_FILE
                    + " altered)"), "at least " + recoveryPoint, Long.toString(endOffset));
        } else if (evidence.hadCleanShutdown() && recoveryPoint > 0 && endOffset > recoveryPoint) {
            // Not a loss: the last batch's base offset (outside its CRC) moved up, or the checkpoint moved down.
            endAbove(dir, active, endOffset, recoveryPoint, truncate, "its recovery point " + recoveryPoint + " (the"
                + " log end at close), but it ends at " + endOffset + ": the last batch's base offset (not covered by"
                + " its CRC) is damaged, or " + OffsetCheckpointFile.RECOVERY_POINT_FILE + " is");
        }
        final long[] snapshotOffsets = evidence.snapshotOffsets();
        final long latestSnapshot = snapshotOffsets.length == 0 ? -1 : snapshotOffsets[snapshotOffsets.length - 1];

        final long knownStart = evidence.knownLogStart();
        if (knownStart >= 0 && firstBase > knownStart) {
            report(losses, truncate, first.logFile(), 0, new LogLoader.Loss(knownStart, firstBase,
                logDir == null ? first.logFile() : logDir.resolve(OffsetCheckpointFile.LOG_START_FILE),
                "logStartOffset", "the log-start checkpoint says the log starts at offset " + knownStart + ", but the"
                    + " first segment starts at " + firstBase + ": the segments holding offsets " + knownStart + " to "
                    + (firstBase - 1) + " are gone (a segment is deleted only after the checkpoint has moved past it)"),
                "a segment holding offset " + knownStart, "the first segment at " + firstBase);
        }

        if (!evidence.hadCleanShutdown()) {
            return losses; // a crash leaves strays, snapshots and epochs above what was flushed: no witnesses
        }
        hearOrphanIndexes(losses, truncate, dir, firstBase, endOffset, evidence.orphanIndexBases());
        if (latestSnapshot > endOffset) {
            final long snapshot = latestSnapshot;
            report(losses, truncate, active.logFile(), active.sizeInBytes(), new LogLoader.Loss(endOffset, snapshot,
                dir.resolve(SegmentFiles.fileName(snapshot, SegmentFiles.SNAPSHOT_SUFFIX)), "logEndOffset",
                "the producer snapshot at offset " + snapshot + " was taken when the log ended there (a snapshot is"
                    + " taken at the log end at every roll and close), but the log now ends at " + endOffset
                    + " after a clean shutdown: records were lost from its end"),
                "at least " + snapshot, Long.toString(endOffset));
        }
        final List<EpochEntry> entries = evidence.epochs().entries();
        if (!entries.isEmpty() && entries.get(entries.size() - 1).startOffset() > endOffset) {
            final EpochEntry latest = entries.get(entries.size() - 1);
            report(losses, truncate, active.logFile(), active.sizeInBytes(), new LogLoader.Loss(endOffset,
                latest.startOffset() + 1, dir.resolve(LeaderEpochCheckpointFile.FILE_NAME), "logEndOffset",
                "the leader-epoch checkpoint starts epoch " + latest.epoch() + " at offset " + latest.startOffset()
                    + " (an entry is written before the batch that begins the epoch), but the log ends at "
                    + endOffset + " after a clean shutdown: records were lost from its end"),
                "above " + latest.startOffset(), Long.toString(endOffset));
        }
        return losses;
    }

    /**
     * The witness of index files whose data file is gone, after a clean shutdown (which leaves no stray file): below
     * the first segment or at or above the log end, their records were lost.
     */
    private static void hearOrphanIndexes(final List<LogLoader.Loss> losses, final boolean truncate, final Path dir,
                                          final long firstBase, final long endOffset, final long[] orphanIndexBases)
        throws CorruptSegmentException {
        for (final long orphan : orphanIndexBases) {
            final boolean belowFirst = orphan < firstBase;
            if (!belowFirst && orphan < endOffset) {
                continue; // between segments the loader judged it; inside one, a replaced segment's leftover
            }
            final Path missing = dir.resolve(SegmentFiles.fileName(orphan, SegmentFiles.LOG_SUFFIX));
            report(losses, truncate, missing, 0, new LogLoader.Loss(belowFirst ? orphan : endOffset,
                belowFirst ? firstBase : orphan + 1, dir.resolve(SegmentFiles.fileName(orphan, SegmentFiles.INDEX_SUFFIX)),
                "segmentFile", "the index files of the segment at base offset " + orphan + " remain but its data file"
                    + " is gone, " + (belowFirst ? "below the first segment at " + firstBase
                    : "at or above the log end " + endOffset) + ", after a clean shutdown (which leaves no stray file):"
                    + " its records were lost"), missing.getFileName().toString(), "missing");
        }
    }

    /**
     * A log that ends above where a clean shutdown left it: no data is missing, but its last batch's offsets are not
     * the ones it was written with (or the witness is damaged). Refused under {@code fail}; logged under
     * {@code truncate}, which opens what is there. (A producer snapshot below the end is no such witness: snapshots
     * are a cache an operator may delete.)
     */
    private static void endAbove(final Path dir, final LogSegment active, final long endOffset, final long expected,
                                 final boolean truncate, final String what) throws CorruptSegmentException {
        final String detail = "after a clean shutdown the log must end at " + what;
        if (!truncate) {
            throw new CorruptSegmentException(active.logFile(), new CorruptSegmentException.Finding(
                active.sizeInBytes(), endOffset, "logEndOffset", Long.toString(expected), Long.toString(endOffset),
                detail + "; re-fetch the partition from a replica, or set " + SegmentConfig.CORRUPTION_POLICY_KEY
                    + "=truncate to open it as it is"));
        }
        LOG.error("Opening {}: {}; opened as it is, as {}=truncate says", dir, detail,
            SegmentConfig.CORRUPTION_POLICY_KEY);
    }

    /** Refuses the loss under {@code fail}; under {@code truncate} logs it and adds it to the report. */
    private static void report(final List<LogLoader.Loss> losses, final boolean truncate, final Path file,
                               final long position, final LogLoader.Loss loss, final String expected,
                               final String found) throws CorruptSegmentException {
        if (!truncate) {
            throw new CorruptSegmentException(file, new CorruptSegmentException.Finding(position, loss.fromOffset(),
                loss.field(), expected, found, loss.detail() + "; the witness is " + loss.witness() + "; re-fetch the"
                    + " partition from a replica, or set " + SegmentConfig.CORRUPTION_POLICY_KEY + "=truncate to open"
                    + " it as it is (offsets " + loss.fromOffset() + " to " + (loss.toOffset() - 1) + " stay lost)"));
        }
        LOG.error("Opening {}: offsets {} to {} are lost: {}; opened as it is, as {}=truncate says", file,
            loss.fromOffset(), loss.toOffset() - 1, loss.detail(), SegmentConfig.CORRUPTION_POLICY_KEY);
        losses.add(loss);
    }

    private static long firstAtOrAbove(final long[] sorted, final long offset) {
        for (final long value : sorted) {
            if (value >= offset) {
                return value;
            }
        }
        return -1;
    }
}
