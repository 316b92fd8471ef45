package io.seglog.storage.segment;

import io.seglog.storage.index.OffsetIndex;
import io.seglog.storage.index.TimeIndex;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.file.Path;

/**
 * What a segment's index files claim about its data file, read before they are rebuilt, to tell data lost from the
 * end of the data file from a damaged index. The indexes are written after the data they describe, so a claim past
 * the data's end is either a damaged index or data that is gone.
 *
 * <p>How much a claim proves depends on how many independent fields make it, because a flipped bit (the damage an
 * index suffers without a crash) changes one field of one entry:
 * <ul>
 *   <li>an offset-index entry whose position lies at or past the end of the data file <em>and</em> whose offset lies
 *       past the data's last offset says twice over that a batch stood there: it proves the loss on its own (a cut
 *       exactly at the last entry's position, which leaves no other trace, is caught so);</li>
 *   <li>likewise the time index's last entry when its offset lies past the data's last offset <em>and</em> its
 *       timestamp lies above the data's largest (an entry is only ever appended for a new largest timestamp, so one
 *       naming a lost batch carries a timestamp no remaining batch reaches);</li>
 *   <li>a claim made by one field only (an entry past the end whose offset the data still holds, a last offset past
 *       the data's, a time entry past the data in one field) is a witness that needs a second one: two mean lost
 *       data, one is a damaged index, rebuilt.</li>
 * </ul>
 *
 * <p>Why it is needed: with offset gaps legal under every cleanup policy (compaction), the next segment's base offset
 * no longer tells a shortened data file. Blind spot: data cut after the last offset-index entry (within
 * {@code index.interval.bytes} of the end) whose time index's last entry lies below the cut leaves no claim at all.
 * docs/recovery.md lists it.
 *
 * @param offsetIndexLast       the offset index's last entry offset, -1 for none
 * @param entriesPastEnd        offset-index entries whose position lies at or past the end of the data file
 * @param largestOffsetPastEnd  the largest offset among those entries, -1 for none
 * @param timeIndexLast         the time index's last entry offset, -1 for none
 * @param timeIndexLastTimestamp the time index's last entry timestamp, -1 for none
 */
record IndexClaims(long offsetIndexLast, int entriesPastEnd, long largestOffsetPastEnd, long timeIndexLast,
                   long timeIndexLastTimestamp) {
    /** No index to claim anything. */
    static final IndexClaims NONE = new IndexClaims(-1, 0, -1, -1, -1);

    /**
     * Where a data file's batches end, as a walk of their headers found it.
     *
     * @param lastOffset   the last offset of the last batch, -1 when the file holds none
     * @param maxTimestamp the largest batch timestamp, -1 when none
     */
    record DataEnd(long lastOffset, long maxTimestamp) {
    }

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
        long largestPastEnd = -1;
        for (int slot = 0; slot < entries; slot++) {
            if (offsetIndex.entryPosition(slot) >= dataBytes) {
                pastEnd++;
                largestPastEnd = Math.max(largestPastEnd, offsetIndex.entryOffset(slot));
            }
        }
        final int timeEntries = timeIndex.entries();
        return new IndexClaims(entries > 0 ? offsetIndex.lastOffset() : -1, pastEnd, largestPastEnd,
            timeEntries > 0 ? timeIndex.lastEntryOffset() : -1,
            timeEntries > 0 ? timeIndex.entryTimestamp(timeEntries - 1) : -1);
    }

    /** The claims of index files, opened read-only for the purpose; an unreadable or missing one claims nothing. */
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
     * Whether these claims prove that batches were lost from the end of a data file that ends as {@code data}
     * says: a claim made by two fields of one entry, or two witnesses (see the class comment).
     *
     * @param data where the data file's batches end
     * @return true when the data file lost batches from its end
     */
    boolean proveLossPast(final DataEnd data) {
        final boolean offsetEntryProves = entriesPastEnd > 0 && largestOffsetPastEnd > data.lastOffset();
        final boolean timeEntryProves = timeIndexLast > data.lastOffset()
            && timeIndexLastTimestamp > data.maxTimestamp();
        if (offsetEntryProves || timeEntryProves) {
            return true;
        }
        final int offsetWitnesses = entriesPastEnd > 0 ? entriesPastEnd : offsetIndexLast > data.lastOffset() ? 1 : 0;
        return offsetWitnesses + (timeIndexLast > data.lastOffset() ? 1 : 0) >= 2;
    }

    /**
     * What the claims say, for a message.
     *
     * @param data where the data file's batches end
     * @return e.g. "its offset index names offset 149 at position 18176, at or past the end of the file, ..."
     */
    String describe(final DataEnd data) {
        return "the data file ends at offset " + data.lastOffset() + " but its offset index names offset "
            + offsetIndexLast + " (" + entriesPastEnd + " entries at or past the end of the file"
            + (entriesPastEnd > 0 ? ", the largest naming offset " + largestOffsetPastEnd : "") + ") and its time"
            + " index offset " + timeIndexLast + " with timestamp " + timeIndexLastTimestamp + " (the data's largest is "
            + data.maxTimestamp() + ")";
    }

    /**
     * Refuses the segment when the claims prove that its data file lost batches from its end.
     *
     * @param logFile the data file, for the error
     * @param data    where the data file's batches end
     * @throws CorruptSegmentException naming the file, the data's last offset and the claims
     */
    void checkNotCutShort(final Path logFile, final DataEnd data) throws CorruptSegmentException {
        if (proveLossPast(data)) {
            throw new CorruptSegmentException(logFile, new CorruptSegmentException.Finding(0, data.lastOffset(),
                "lastOffset", "at least " + Math.max(offsetIndexLast, Math.max(largestOffsetPastEnd, timeIndexLast)),
                Long.toString(data.lastOffset()), describe(data) + ": batches were lost from the end of the file;"
                    + " re-fetch the partition from a replica"));
        }
    }
}
