package io.seglog.storage.segment;

import static io.seglog.storage.format.RecordBatchDescriptor.BASE_OFFSET_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.BATCH_HEADER_LENGTH;
import static io.seglog.storage.format.RecordBatchDescriptor.LAST_OFFSET_DELTA_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.LENGTH_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.LOG_OVERHEAD;
import static io.seglog.storage.format.RecordBatchDescriptor.MAGIC_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.MAGIC_V2;
import static io.seglog.storage.format.RecordBatchDescriptor.MAX_TIMESTAMP_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.PARTITION_LEADER_EPOCH_OFFSET;
import static java.nio.ByteOrder.BIG_ENDIAN;

import io.seglog.storage.epoch.LeaderEpochCache;
import io.seglog.storage.format.RecordBatchValidator;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The crash-recovery scan of one segment's data file: every batch is checked with
 * {@link RecordBatchValidator#checkBatch} (lengths, magic, CRC-32C and header rules; records are covered by the CRC,
 * see {@code Origin.RECOVERY}) and against the
 * log (its base offset continues the previous batch, its last offset fits the segment's 32-bit relative
 * indexes, its leader epoch never decreases and agrees with the leader-epoch checkpoint); valid batches
 * rebuild the segment's indexes with the append rule and the leader epochs. The scan stops at the first batch
 * that fails and classifies it:
 * <ul>
 *   <li><b>torn tail</b>: the batch fails its format check, starts at or above the recovery point and no valid
 *       batch starts anywhere after it in the file: what a crash leaves behind (a partial batch, zeros from a
 *       file length persisted before its data, garbage);</li>
 *   <li><b>corruption</b>: anything else: a valid batch follows it (found by trying every later byte position
 *       as a batch start: the magic byte and length are filtered first, then the CRC decides), it lies below
 *       the recovery point (those bytes were fsynced), or its checksum is right but its offset or epoch
 *       contradicts the log (fields the CRC does not cover; a crash cannot produce them).</li>
 * </ul>
 * The file is mapped read-only for the scan and unmapped before anything is truncated; the validator's
 * {@code maxBatchBytes} is unbounded (a batch on disk was accepted under whatever limit held then), so a
 * length is bounded only by the file: nothing is allocated from it.
 *
 * <p>Not thread-safe: one per loading thread; the segment is not yet visible to readers.
 */
final class SegmentRecovery {
    /** Bytes walked per run when CRCs are verified in parallel; see {@link #SegmentRecovery(BatchCrcVerifier, int)}. */
    static final int DEFAULT_RUN_BYTES = 8 << 20;
    /** At most this many batches per run (tiny batches end a run early): bounds the walk's arrays to ~1 MiB. */
    static final int MAX_RUN_BATCHES = 1 << 15;

    private final RecordBatchValidator validator =
        new RecordBatchValidator(Integer.MAX_VALUE, RecordBatchValidator.Origin.RECOVERY);
    private final UnsafeBuffer view = new UnsafeBuffer(0, 0);
    private final BatchCrcVerifier verifier;
    private final int runBytes;
    /** The two walks of the parallel scan (one verified, one walked), kept for the next segment of the load. */
    private Walk walkA;
    private Walk walkB;
    /** The base offset of the segment after the one being scanned ({@link Long#MAX_VALUE} for the last): set per scan. */
    private long nextSegmentBase = Long.MAX_VALUE;

    /** A scan on the calling thread only. */
    SegmentRecovery() {
        this(null, DEFAULT_RUN_BYTES);
    }

    /**
     * A scan that verifies CRCs with {@code verifier} when it is not null: the calling thread walks the batch
     * headers of {@code runBytes} of the file at a time (one cache line per batch) with every check but the CRC,
     * then the CRCs of that run are verified in parallel while the next run's pages are touched; the batches
     * before the first one that failed anything are accounted in log order, and the scan goes on one batch at a
     * time from that one, so a failure is found, classified and reported exactly as by the sequential scan.
     *
     * @param verifier      the parallel CRC check, or null for a sequential scan
     * @param runBytes      bytes per run (small values serve tests), at least 1
     */
    SegmentRecovery(final BatchCrcVerifier verifier, final int runBytes) {
        if (runBytes < 1) {
            throw new IllegalArgumentException("runBytes=" + runBytes + " must be >= 1");
        }
        this.verifier = verifier;
        this.runBytes = runBytes;
    }

    /**
     * Where and why a scan stopped early.
     *
     * @param position the byte position of the offending batch
     * @param offset   the offset it should have started at
     * @param field    the field that failed
     * @param expected what the field should hold (CRC in hex)
     * @param found    what it held (CRC in hex)
     * @param detail   the explanation
     * @param tornTail whether a crash explains it (otherwise it is corruption)
     * @param zeros    the rest of the file is zero bytes: space preallocated for appends, not a record (a torn tail)
     */
    record Problem(int position, long offset, String field, String expected, String found, String detail,
                   boolean tornTail, boolean zeros) {
        Problem(final int position, final long offset, final String field, final String expected, final String found,
                final String detail, final boolean tornTail) {
            this(position, offset, field, expected, found, detail, tornTail, false);
        }
    }

    /**
     * The result of a scan.
     *
     * @param validBytes bytes of valid batches from the start of the file
     * @param nextOffset the offset after the last valid batch (the base offset when none)
     * @param lastEpoch  the leader epoch of the last valid batch that had one, or the epoch passed in
     * @param problem    why the scan stopped before the end of the file, or null when it reached it
     */
    record Outcome(int validBytes, long nextOffset, int lastEpoch, Problem problem) {
    }

    /**
     * Scans a segment opened with {@link LogSegment#openForRecovery}, rebuilding its indexes.
     *
     * @param segment       the segment; its published size is the file length
     * @param recoveryPoint offsets below it were durable: an invalid batch there is corruption
     * @param previousEpoch the leader epoch of the last batch before this segment, or -1
     * @param knownEpochs   the leader-epoch checkpoint to check batches against, or null when it is being rebuilt
     * @param epochs        receives every batch's (epoch, base offset)
     * @param nextSegmentBase the base offset of the next segment, {@link Long#MAX_VALUE} for the last: every batch
     *                      must end below it (its base offset is not covered by the CRC)
     * @return the outcome
     * @throws IOException if the file cannot be mapped
     */
    Outcome scan(final LogSegment segment, final long recoveryPoint, final int previousEpoch,
                 final LeaderEpochCache knownEpochs, final LeaderEpochCache epochs, final long nextSegmentBase)
        throws IOException {
        this.nextSegmentBase = nextSegmentBase;
        final int size = segment.sizeInBytes();
        if (size == 0) {
            return new Outcome(0, segment.baseOffset(), previousEpoch, null);
        }
        segment.prepareIndexesForRecovery(size);
        final MappedByteBuffer mapped = segment.channel().map(FileChannel.MapMode.READ_ONLY, 0, size);
        try {
            view.wrap(mapped, 0, size);
            if (verifier != null) {
                return scanParallel(mapped, segment, size, recoveryPoint, previousEpoch, knownEpochs, epochs);
            }
            return scanMapped(segment, size, 0, segment.baseOffset(), recoveryPoint, previousEpoch, knownEpochs,
                epochs);
        } finally {
            view.wrap(0, 0);
            IoUtil.unmap(mapped);
        }
    }

    /**
     * The parallel scan (see {@link #SegmentRecovery(BatchCrcVerifier, int)}): while the CRCs of one run are
     * verified, the calling thread walks the next run (the walk only reads the file and writes the other
     * positions array); runs of batches that passed every check are accounted in log order; from the first batch
     * that failed any check on, {@link #scanMapped} takes over and the walk ahead is discarded.
     */
    private Outcome scanParallel(final ByteBuffer mapped, final LogSegment segment, final int size,
                                 final long recoveryPoint, final int previousEpoch, final LeaderEpochCache knownEpochs,
                                 final LeaderEpochCache epochs) throws IOException {
        // One entry per batch of a run, the smallest batch being a bare header; bounded by the file too. Two walks:
        // one being verified, one being walked. Kept for the next segment of the same load.
        final int needed = Math.min(MAX_RUN_BATCHES, (int) Math.min(size, (long) runBytes) / BATCH_HEADER_LENGTH + 1);
        if (walkA == null || walkA.positions.length < needed + 1) {
            walkA = new Walk(needed);
            walkB = new Walk(needed);
        }
        final Path file = segment.logFile();
        verifier.touch(mapped, 0, (int) Math.min(size, 2L * runBytes), file);
        long expected = segment.baseOffset();
        int lastEpoch = previousEpoch;
        Walk walk = walk(walkA, segment, size, 0, expected, lastEpoch, knownEpochs);
        Walk spare = walkB;
        while (true) {
            final int touchFrom = (int) Math.min(size, (long) walk.end + runBytes);
            final BatchCrcVerifier.Pending pending = verifier.start(mapped, walk.positions, walk.count, touchFrom,
                walk.stopped ? touchFrom : (int) Math.min(size, (long) touchFrom + runBytes), file);
            Walk next = null;
            final int bad;
            try {
                if (!walk.stopped && walk.end < size) {
                    next = walk(spare, segment, size, walk.end, walk.expected, walk.epoch, knownEpochs);
                }
            } finally {
                // Always: the verifier's tasks read the mapping until it returns.
                bad = verifier.finish(pending);
            }
            final int good = bad < 0 ? walk.count : bad;
            final int[] at = walk.positions;
            // From the walk's copies of the header fields: the headers themselves are out of the cache by now.
            for (int i = 0; i < good; i++) {
                final int p = at[i];
                final long last = walk.lastOffsets[i];
                final int epoch = walk.epochs[i];
                segment.recoverBatch(last, walk.maxTimestamps[i], p, at[i + 1] - p);
                if (epoch >= 0) {
                    epochs.assign(epoch, walk.baseOffsets[i]);
                    lastEpoch = epoch;
                }
                expected = last + 1;
            }
            final int position = at[good];
            if (good < walk.count || walk.stopped) {
                // The batch at position failed a check: the sequential scan finds and classifies it.
                return scanMapped(segment, size, position, expected, recoveryPoint, lastEpoch, knownEpochs, epochs);
            }
            if (next == null) {
                return new Outcome(position, expected, lastEpoch, null);
            }
            spare = walk;
            walk = next;
        }
    }

    /** One run's header walk: where its batches start and their header fields, where it ended, and why. */
    private static final class Walk {
        final int[] positions;
        final long[] baseOffsets;
        final long[] lastOffsets;
        final long[] maxTimestamps;
        final int[] epochs;
        int count;
        /** Where the walk ended: the end of its last batch, the position of a batch that failed, or the file end. */
        int end;
        /** A batch at {@link #end} failed a check other than the CRC. */
        boolean stopped;
        /** The offset and leader epoch the batch at {@link #end} must continue. */
        long expected;
        int epoch;

        Walk(final int batches) {
            this.positions = new int[batches + 1];
            this.baseOffsets = new long[batches];
            this.lastOffsets = new long[batches];
            this.maxTimestamps = new long[batches];
            this.epochs = new int[batches];
        }
    }

    /**
     * Walks the headers of about {@link #runBytes} from {@code from} with every check but the CRC, in log order,
     * recording the batch starts into {@code into}; stops early at a batch that fails a check.
     */
    private Walk walk(final Walk into, final LogSegment segment, final int size, final int from,
                      final long fromOffset, final int fromEpoch, final LeaderEpochCache knownEpochs) {
        final int[] at = into.positions;
        final int capacity = at.length - 1;
        final int runEnd = (int) Math.min(size, (long) from + runBytes);
        int count = 0;
        int p = from;
        long expected = fromOffset;
        int lastEpoch = fromEpoch;
        boolean stopped = false;
        while (p < runEnd && count < capacity) {
            final int batchSize = RecordBatchValidator.recoveryFrameSize(view, p, size - p);
            if (batchSize < 0) {
                stopped = true;
                break;
            }
            final long base = view.getLong(p + BASE_OFFSET_OFFSET, BIG_ENDIAN);
            final long last = base + view.getInt(p + LAST_OFFSET_DELTA_OFFSET, BIG_ENDIAN);
            final int epoch = view.getInt(p + PARTITION_LEADER_EPOCH_OFFSET, BIG_ENDIAN);
            if (contradiction(segment, p, p + batchSize, size, expected, base, last, epoch, lastEpoch,
                knownEpochs) != null) {
                stopped = true;
                break;
            }
            at[count] = p;
            into.baseOffsets[count] = base;
            into.lastOffsets[count] = last;
            into.maxTimestamps[count] = view.getLong(p + MAX_TIMESTAMP_OFFSET, BIG_ENDIAN);
            into.epochs[count] = epoch;
            count++;
            expected = last + 1;
            if (epoch >= 0) {
                lastEpoch = epoch;
            }
            p += batchSize;
        }
        at[count] = p;
        into.count = count;
        into.end = p;
        into.stopped = stopped;
        into.expected = expected;
        into.epoch = lastEpoch;
        return into;
    }

    private Outcome scanMapped(final LogSegment segment, final int size, final int from, final long fromOffset,
                               final long recoveryPoint, final int previousEpoch, final LeaderEpochCache knownEpochs,
                               final LeaderEpochCache epochs) throws IOException {
        int position = from;
        long expected = fromOffset;
        int lastEpoch = previousEpoch;
        while (position < size) {
            final int status = validator.checkBatch(view, position, size - position);
            if (status < 0) {
                return new Outcome(position, expected, lastEpoch, invalidBatch(position, expected, size, recoveryPoint));
            }
            final long base = view.getLong(position + BASE_OFFSET_OFFSET, BIG_ENDIAN);
            final long last = base + view.getInt(position + LAST_OFFSET_DELTA_OFFSET, BIG_ENDIAN);
            final int epoch = view.getInt(position + PARTITION_LEADER_EPOCH_OFFSET, BIG_ENDIAN);
            final Problem contradiction = contradiction(segment, position, position + status, size, expected, base,
                last, epoch, lastEpoch, knownEpochs);
            if (contradiction != null) {
                return new Outcome(position, expected, lastEpoch, contradiction);
            }
            segment.recoverBatch(last, view.getLong(position + MAX_TIMESTAMP_OFFSET, BIG_ENDIAN), position, status);
            if (epoch >= 0) {
                epochs.assign(epoch, base);
                lastEpoch = epoch;
            }
            expected = last + 1;
            position += status;
        }
        return new Outcome(position, expected, lastEpoch, null);
    }

    /** A batch whose CRC is right but whose uncovered fields contradict the log: always corruption. */
    private Problem contradiction(final LogSegment segment, final int position, final int nextPosition,
                                  final int size, final long expected, final long base, final long last,
                                  final int epoch, final int lastEpoch, final LeaderEpochCache knownEpochs) {
        // The base offset is not covered by the CRC, so each batch is checked against its neighbours: above the
        // previous batch's last offset (offsets only grow), and ending below the next batch's base. Gaps are legal
        // under every policy (what compaction leaves stays when a topic is switched to delete; a crash cannot make
        // one inside a file, since lost bytes fail the CRC instead). docs/recovery.md lists what this catches.
        if (!SegmentConfig.allowsBatchAt(base, expected)) {
            return new Problem(position, expected, "baseOffset", "at least " + expected, Long.toString(base),
                "the batch's offsets go back into the log (the base offset is not covered by the CRC)", false);
        }
        if (nextPosition < size
            && RecordBatchValidator.recoveryFrameSize(view, nextPosition, size - nextPosition) >= 0) {
            // Only a next batch that frames: a torn or zero-filled tail is not a neighbour to judge by.
            final long nextBase = view.getLong(nextPosition + BASE_OFFSET_OFFSET, BIG_ENDIAN);
            // Blamed here only when the next batch starts above where this one should (it agrees with the previous
            // batch, this one does not agree with it: this one moved up). Otherwise the next batch's own check
            // names it (it moved down). Which of two disagreeing batches is damaged cannot always be told.
            if (nextBase <= last && nextBase > expected) {
                return new Problem(position, expected, "lastOffset", "below " + nextBase, Long.toString(last),
                    "the batch's offsets reach the next batch's base offset " + nextBase + " at position "
                        + nextPosition + " (base offsets are not covered by the CRC: one of the two is damaged)",
                    false);
            }
        }
        if (!segment.canConvertToRelativeOffset(last)) {
            return new Problem(position, expected, "lastOffset", "at most " + (segment.baseOffset() + Integer.MAX_VALUE),
                Long.toString(last), "the batch does not fit the segment's 32-bit relative offsets", false);
        }
        if (last >= nextSegmentBase) {
            // A segment holds the offsets below the next one's base: a batch reaching past it would be answered
            // twice (here and there), so its base offset, which the CRC does not cover, is damaged.
            return new Problem(position, expected, "lastOffset", "below " + nextSegmentBase, Long.toString(last),
                "the batch's offsets reach the next segment's base offset " + nextSegmentBase + " (the base offset"
                    + " is not covered by the CRC)", false);
        }
        if (epoch < -1) {
            return new Problem(position, expected, "partitionLeaderEpoch", "-1 or more", Integer.toString(epoch),
                "negative leader epoch", false);
        }
        if (epoch >= 0 && epoch < lastEpoch) {
            return new Problem(position, expected, "partitionLeaderEpoch", "at least " + lastEpoch,
                Integer.toString(epoch), "leader epochs never decrease along a log", false);
        }
        if (epoch >= 0 && knownEpochs != null) {
            final int known = knownEpochs.epochForOffset(base);
            if (known != LeaderEpochCache.UNDEFINED_EPOCH && known != epoch) {
                return new Problem(position, expected, "partitionLeaderEpoch", Integer.toString(known),
                    Integer.toString(epoch), "the leader-epoch checkpoint assigns offset " + base + " to epoch " + known,
                    false);
            }
        }
        return null;
    }

    /** Classifies a batch that failed its format check; uses the validator's last-failure fields first. */
    private Problem invalidBatch(final int position, final long expected, final int size, final long recoveryPoint) {
        final String field = validator.lastField();
        // CRCs in decimal, as Kafka's tools print them.
        final String expectedText = Long.toString(validator.lastExpected());
        final String foundText = Long.toString(validator.lastValue());
        final String detail = validator.lastDetail();
        if (expected < recoveryPoint) {
            return new Problem(position, expected, field, expectedText, foundText, detail
                + "; the batch lies below the recovery point " + recoveryPoint + ", so it was durable", false);
        }
        final int next = findValidBatchAfter(position + 1, size);
        if (next >= 0) {
            return new Problem(position, expected, field, expectedText, foundText, detail
                + "; a valid batch follows at position " + next + ", so this is not a torn tail", false);
        }
        if (allZero(position, size)) {
            // What mapped appends reserve ahead of the data (and a crash leaves): space, not a record.
            return new Problem(position, expected, field, expectedText, foundText, "the " + (size - position)
                + " bytes after the last batch are all zero: space preallocated for appends, no record was in them",
                true, true);
        }
        return new Problem(position, expected, field, expectedText, foundText, detail, true);
    }

    /** Whether every byte of {@code [from, to)} of the mapped file is zero. */
    private boolean allZero(final int from, final int to) {
        int at = from;
        for (; at + Long.BYTES <= to; at += Long.BYTES) {
            if (view.getLong(at) != 0) {
                return false;
            }
        }
        for (; at < to; at++) {
            if (view.getByte(at) != 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * The first position after {@code from} where a complete valid batch starts, or -1. Cheap filters first
     * (magic byte, a length that fits the file), then the full check with its CRC.
     */
    private int findValidBatchAfter(final int from, final int size) {
        for (int q = from; q <= size - BATCH_HEADER_LENGTH; q++) {
            if (view.getByte(q + MAGIC_OFFSET) != MAGIC_V2) {
                continue;
            }
            final int length = view.getInt(q + LENGTH_OFFSET, BIG_ENDIAN);
            if (length < BATCH_HEADER_LENGTH - LOG_OVERHEAD || length > size - q - LOG_OVERHEAD) {
                continue;
            }
            if (validator.checkBatch(view, q, size - q) > 0) {
                return q;
            }
        }
        return -1;
    }
}
