package io.seglog.storage.segment;

import static io.seglog.storage.format.RecordBatchDescriptor.NO_TIMESTAMP;

import io.seglog.storage.index.OffsetIndex;
import io.seglog.storage.index.TimeIndex;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One segment's index rule (Kafka 4.4's {@code LogSegment.append}, per batch; see {@link LogSegment}): the bytes
 * written since the last index entry, the largest batch timestamp so far and the last offset of the first batch that
 * reached it, and the entries this adds to the segment's offset and time indexes (which own their files, mappings
 * and entry counts).
 *
 * <p>Owner of those three values, and their only writer; the segment's writer thread calls every method but
 * {@link #maxTimestampSoFar}, which readers call. The largest timestamp and its offset are published with release
 * stores (no fence per batch) and read with volatile loads, as the segment's size is; the counter is writer-only.
 */
final class SegmentIndexing {
    private static final VarHandle MAX_TIMESTAMP_SO_FAR;
    private static final VarHandle OFFSET_OF_MAX_TIMESTAMP_SO_FAR;

    static {
        try {
            final MethodHandles.Lookup lookup = MethodHandles.lookup();
            MAX_TIMESTAMP_SO_FAR = lookup.findVarHandle(SegmentIndexing.class, "maxTimestampSoFar", long.class);
            OFFSET_OF_MAX_TIMESTAMP_SO_FAR = lookup.findVarHandle(SegmentIndexing.class, "offsetOfMaxTimestampSoFar",
                long.class);
        } catch (final ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final long baseOffset;
    private final OffsetIndex offsetIndex;
    private final TimeIndex timeIndex;
    private final int indexIntervalBytes;

    /** Largest batch timestamp so far and the last offset of the first batch that reached it (Kafka's rule). */
    private volatile long maxTimestampSoFar = NO_TIMESTAMP;
    private volatile long offsetOfMaxTimestampSoFar;
    // Writer-only.
    private int bytesSinceLastIndexEntry;

    SegmentIndexing(final long baseOffset, final OffsetIndex offsetIndex, final TimeIndex timeIndex,
                    final int indexIntervalBytes) {
        this.baseOffset = baseOffset;
        this.offsetIndex = offsetIndex;
        this.timeIndex = timeIndex;
        this.indexIntervalBytes = indexIntervalBytes;
        this.offsetOfMaxTimestampSoFar = baseOffset;
    }

    /** The largest batch timestamp in the segment, or -1 when no batch has one. */
    long maxTimestampSoFar() {
        return maxTimestampSoFar;
    }

    /** How many index entries an append of these (validated) batches would add under the index rule. */
    int entriesFor(final AppendBatches batches) {
        int since = bytesSinceLastIndexEntry;
        int entries = 0;
        for (int i = 0, n = batches.count(); i < n; i++) {
            if (since > indexIntervalBytes) {
                entries++;
                since = 0;
            }
            since += batches.size(i);
        }
        return entries;
    }

    /** Accounts one batch written (or found by a scan) at {@code filePosition}: the rule's entries, if due. */
    void account(final long lastOffset, final long maxTimestamp, final int filePosition, final int size) {
        if (maxTimestamp > maxTimestampSoFar) {
            // Release stores (no fence per batch); readers read each with a volatile load, as before.
            OFFSET_OF_MAX_TIMESTAMP_SO_FAR.setRelease(this, lastOffset);
            MAX_TIMESTAMP_SO_FAR.setRelease(this, maxTimestamp);
        }
        if (bytesSinceLastIndexEntry > indexIntervalBytes) {
            // The guard in shouldRoll makes these full checks dead in practice; they keep an index that is
            // full anyway (a tiny segment.index.bytes) from failing the append half-way: the index is sparser.
            if (!offsetIndex.isFull()) {
                offsetIndex.append(lastOffset, filePosition);
            }
            if (!timeIndex.isFull() && maxTimestampSoFar > timeIndex.lastTimestamp()) {
                timeIndex.maybeAppend(maxTimestampSoFar, offsetOfMaxTimestampSoFar, false);
            }
            bytesSinceLastIndexEntry = 0;
        }
        bytesSinceLastIndexEntry += size;
    }

    /** A reopened, rebuilt, recovered or truncated segment counts index bytes from 0 again (as Kafka's does). */
    void restartCount() {
        bytesSinceLastIndexEntry = 0;
    }

    /** Empties both indexes and forgets the largest timestamp, before a rebuild from the data file. */
    void clearForRebuild() throws IOException {
        offsetIndex.truncate();
        timeIndex.truncate();
        maxTimestampSoFar = NO_TIMESTAMP;
        offsetOfMaxTimestampSoFar = baseOffset;
        bytesSinceLastIndexEntry = 0;
    }

    /**
     * Before a recovery scan of {@code dataBytes}: prepares as many index slots as the rule can fill (an entry per
     * more than {@code index.interval.bytes}), so the rebuild does not fault on the index files' holes page by page.
     */
    void prepareForRecovery(final int dataBytes) throws IOException {
        final int slots = (int) Math.min(Integer.MAX_VALUE, (long) dataBytes / Math.max(1, indexIntervalBytes) + 2);
        offsetIndex.prepareForAppends(slots);
        timeIndex.prepareForAppends(slots);
    }

    /** The largest timestamp and its offset as a scan after a truncation found them (Kafka's loadLargestTimestamp). */
    void reloadedLargestTimestamp(final long maxTimestamp, final long offsetOfMax) {
        offsetOfMaxTimestampSoFar = offsetOfMax;
        maxTimestampSoFar = maxTimestamp;
    }

    /**
     * The time-index entry for the largest timestamp, added on roll and close (Kafka's
     * {@code onBecomeInactiveSegment}), even when the index is otherwise full.
     */
    void appendFinalTimeIndexEntry() {
        // An index smaller than one entry (segment.index.bytes below 12, which Kafka allows) has no reserved slot:
        // the segment then has no time-index entries and a timestamp search scans it from its first batch.
        if (timeIndex.maxEntries() > 0 && maxTimestampSoFar > timeIndex.lastTimestamp()) {
            timeIndex.maybeAppend(maxTimestampSoFar, offsetOfMaxTimestampSoFar, true);
        }
    }
}
