package io.seglog.storage;

import io.seglog.storage.segment.LogLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What opening a partition log repaired: whether a recovery scan ran, which data was truncated (torn tails,
 * or corruption under {@link CorruptionPolicy#TRUNCATE}), which segments were deleted after a
 * truncation, which index files were rebuilt and which stray files were removed. Immutable.
 *
 * <p>For a log opened with {@link PartitionLog#openReadOnly} nothing on disk changed, and the report says what the
 * read-only log left out instead: {@code truncations} are data it ends before (a writable open would cut them),
 * {@code deletedSegments} segments it left out, {@code rebuiltIndexes} segments it reads without their index
 * files (missing or unusable); {@code removedFiles} is empty.
 *
 * @param recovered         whether the log was scanned (no clean shutdown)
 * @param segmentsScanned   segments CRC-checked by the scan
 * @param bytesScanned      bytes CRC-checked by the scan
 * @param truncations       data cut off, in file order
 * @param deletedSegments   data files deleted because an earlier segment was truncated
 * @param rebuiltIndexes    data files whose indexes were rebuilt (missing, corrupt, or scanned)
 * @param removedFiles      stray files removed ({@code .deleted}, {@code .cleaned}, {@code .tmp}, orphan indexes,
 *                          incomplete {@code .swap})
 * @param epochsRebuilt     whether the leader-epoch cache was rebuilt from the batches (checkpoint missing or
 *                          corrupt)
 * @param losses            offsets that a witness (a checkpoint, an index file, a producer snapshot, the leader-epoch
 *                          checkpoint) says the log held and its files no longer hold, found under
 *                          {@link CorruptionPolicy#TRUNCATE}, which opens the log as the files are; under
 *                          {@link CorruptionPolicy#FAIL} such an open is refused instead (docs/recovery.md lists the
 *                          witnesses)
 */
public record RecoveryReport(boolean recovered, int segmentsScanned, long bytesScanned, List<Truncation> truncations,
                             List<Path> deletedSegments, List<Path> rebuiltIndexes, List<Path> removedFiles,
                             boolean epochsRebuilt, List<Loss> losses) {
    /**
     * Copies the lists.
     *
     * @param recovered       whether the log was scanned
     * @param segmentsScanned segments scanned
     * @param bytesScanned    bytes scanned
     * @param truncations     data cut off
     * @param deletedSegments data files deleted after a truncation
     * @param rebuiltIndexes  data files whose indexes were rebuilt
     * @param removedFiles    stray files removed
     * @param epochsRebuilt   whether the epoch cache was rebuilt
     * @param losses          offsets found missing by a witness, opened under the truncate policy
     */
    public RecoveryReport {
        losses = List.copyOf(losses);
        truncations = List.copyOf(truncations);
        deletedSegments = List.copyOf(deletedSegments);
        rebuiltIndexes = List.copyOf(rebuiltIndexes);
        removedFiles = List.copyOf(removedFiles);
    }

    /**
     * Whether any data was dropped or found missing (a truncation, a deleted segment, a loss a witness reported).
     *
     * @return true when the log holds less than it held before the crash or the damage
     */
    public boolean droppedData() {
        return !truncations.isEmpty() || !deletedSegments.isEmpty() || !losses.isEmpty();
    }

    /**
     * Offsets a log held, by the word of a witness, that its files no longer hold: the open found them missing and,
     * as {@link CorruptionPolicy#TRUNCATE} says, opened the log as it is.
     *
     * @param fromOffset the first offset missing
     * @param toOffset   the offset after the last one missing, as far as the witness can tell
     * @param witness    the file that says the offsets existed
     * @param field      what the witness vouches for: {@code logEndOffset}, {@code logStartOffset} or
     *                   {@code segmentFile}
     * @param detail     what the witness says and what the files hold
     */
    public record Loss(long fromOffset, long toOffset, Path witness, String field, String detail) {
        /**
         * Checks the arguments.
         *
         * @param fromOffset the first offset missing
         * @param toOffset   the offset after the last one missing
         * @param witness    the witness file
         * @param field      what it vouches for
         * @param detail     what it says
         */
        public Loss {
            Objects.requireNonNull(witness, "witness");
            Objects.requireNonNull(field, "field");
            Objects.requireNonNull(detail, "detail");
        }
    }

    /**
     * Why bytes were cut off.
     */
    public enum Reason {
        /** Invalid bytes at the end with nothing valid after them, above the recovery point: a crash. */
        TORN_TAIL,
        /** Corruption that was not a torn tail, truncated because the policy says {@code truncate}. */
        CORRUPTION
    }

    /**
     * One cut: the data file was truncated from {@code position}, dropping {@code bytesDropped} bytes.
     *
     * @param file          the data file
     * @param position      the new length of the file
     * @param offset        the new end offset of the segment (the first offset dropped)
     * @param bytesDropped  bytes removed from the file
     * @param reason        torn tail or corruption
     * @param detail        what was invalid there (field, expected, found)
     */
    public record Truncation(Path file, long position, long offset, long bytesDropped, Reason reason,
                             String detail) {
        /**
         * Checks the arguments.
         *
         * @param file         the data file
         * @param position     the new length
         * @param offset       the first offset dropped
         * @param bytesDropped bytes removed
         * @param reason       why
         * @param detail       what was invalid
         */
        public Truncation {
            Objects.requireNonNull(file, "file");
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(detail, "detail");
        }
    }

    /**
     * The public report of what a load repaired.
     *
     * @param repairs the segment layer's account
     * @return the report
     */
    static RecoveryReport of(final LogLoader.Repairs repairs) {
        final List<RecoveryReport.Truncation> truncations = new ArrayList<>(repairs.truncations().size());
        for (final LogLoader.Cut cut : repairs.truncations()) {
            truncations.add(new RecoveryReport.Truncation(cut.file(), cut.position(), cut.offset(), cut.bytesDropped(),
                cut.tornTail() ? RecoveryReport.Reason.TORN_TAIL : RecoveryReport.Reason.CORRUPTION, cut.detail()));
        }
        final List<RecoveryReport.Loss> losses = new ArrayList<>(repairs.losses().size());
        for (final LogLoader.Loss loss : repairs.losses()) {
            losses.add(new RecoveryReport.Loss(loss.fromOffset(), loss.toOffset(), loss.witness(), loss.field(),
                loss.detail()));
        }
        return new RecoveryReport(repairs.recovered(), repairs.segmentsScanned(), repairs.bytesScanned(), truncations,
            repairs.deletedSegments(), repairs.rebuiltIndexes(), repairs.removedFiles(), repairs.epochsRebuilt(),
            losses);
    }
}
