package io.seglog.storage.segment;

import io.seglog.storage.index.OffsetIndex;
import io.seglog.storage.index.TimeIndex;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.file.Path;

/**
 * What a segment's index files claim about its data file, read before they are rebuilt, to tell data lost from the
 * end of the data file from a damaged index. The indexes are written after the data they describe, so a claim past
 * the data's end is either a damaged index or data that is gone. Each claim is a witness: every offset-index entry
 * whose position lies at or past the end of the file (or, when none does, a last entry naming an offset past the
 * data's last offset), and the time index's last entry naming such an offset. Two witnesses or more mean lost data
 * (a single flipped bit damages one entry, in one file); one is a damaged index, rebuilt.
 *
 * <p>Why it is needed: with offset gaps legal under every cleanup policy (compaction), the next segment's base offset
 * no longer tells a shortened data file. Blind spot: data cut after the last index entry (within
 * {@code index.interval.bytes} of the end) when the time index's last entry lies below the cut leaves at most one
 * witness. docs/recovery.md lists it.
 *
 * @param offsetIndexLast the offset index's last entry offset, -1 for none
 * @param entriesPastEnd  offset-index entries whose position lies at or past the end of the data file
 * @param timeIndexLast   the time index's last entry offset, -1 for none
 */
record IndexClaims(long offsetIndexLast, int entriesPastEnd, long timeIndexLast) {
    /** No index to claim anything. */
    static final IndexClaims NONE = new IndexClaims(-1, 0, -1);

    /** The claims of open indexes over a data file of {@code dataBytes}; indexes that cannot be read claim nothing. */
    static IndexClaims ofOrNone(final OffsetIndex offsetIndex, final TimeIndex timeIndex, final int dataBytes) {
        try {
            return of(offsetIndex, timeIndex, dataBytes);
        } catch (final RuntimeException unreadable) {
            return NONE;
        }
    }

    /** The claims of open indexes over a data file of {@code dataBytes}. */
    static IndexClaims of(final OffsetIndex offsetIndex, final TimeIndex timeIndex, final int dataBytes) {
        final int entries = offsetIndex.entries();
        int pastEnd = 0;
        for (int slot = 0; slot < entries; slot++) {
            if (offsetIndex.entryPosition(slot) >= dataBytes) {
                pastEnd++;
            }
        }
        return new IndexClaims(entries > 0 ? offsetIndex.lastOffset() : -1, pastEnd,
            timeIndex.entries() > 0 ? timeIndex.lastEntryOffset() : -1);
    }

    /** The claims of index files, opened read-only for the purpose; an unreadable one claims nothing. */
    static IndexClaims read(final FileIO io, final Path offsetIndexFile, final Path timeIndexFile,
                            final long baseOffset, final int dataBytes) {
        OffsetIndex offsetIndex = null;
        TimeIndex timeIndex = null;
        try {
            offsetIndex = OffsetIndex.openReadOnly(io, offsetIndexFile, baseOffset);
            timeIndex = TimeIndex.openReadOnly(io, timeIndexFile, baseOffset);
            return of(offsetIndex, timeIndex, dataBytes);
        } catch (final IOException | RuntimeException unreadable) {
            return NONE;
        } finally {
            abandon(timeIndex, offsetIndex);
        }
    }

    private static void abandon(final TimeIndex timeIndex, final OffsetIndex offsetIndex) {
        try {
            if (timeIndex != null) {
                timeIndex.abandon();
            }
        } catch (final IOException ignored) {
            // Read-only and unmodified: nothing to lose; the mapping goes with the object.
        }
        try {
            if (offsetIndex != null) {
                offsetIndex.abandon();
            }
        } catch (final IOException ignored) {
            // as above
        }
    }

    /**
     * Refuses the segment when two witnesses say its data file lost batches from its end.
     *
     * @param logFile        the data file, for the error
     * @param fileLastOffset the last offset of the data file's last batch, -1 when it holds none
     * @throws CorruptSegmentException naming the file, the data's last offset and the claims
     */
    void checkNotCutShort(final Path logFile, final long fileLastOffset) throws CorruptSegmentException {
        final int offsetWitnesses = entriesPastEnd > 0 ? entriesPastEnd : offsetIndexLast > fileLastOffset ? 1 : 0;
        final int witnesses = offsetWitnesses + (timeIndexLast > fileLastOffset ? 1 : 0);
        if (witnesses >= 2) {
            throw new CorruptSegmentException(logFile, new CorruptSegmentException.Finding(0, fileLastOffset,
                "lastOffset", "at least " + offsetIndexLast, Long.toString(fileLastOffset),
                "the data file ends at offset " + fileLastOffset + " but its offset index names offset "
                    + offsetIndexLast + " (" + entriesPastEnd + " entries at or past the end of the file) and its"
                    + " time index offset " + timeIndexLast + ": batches were lost from the end of the file;"
                    + " re-fetch the partition from a replica"));
        }
    }
}
