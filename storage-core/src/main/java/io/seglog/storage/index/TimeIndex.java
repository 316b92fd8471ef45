package io.seglog.storage.index;

import static io.seglog.storage.index.IndexDescriptor.BYTE_ORDER;
import static io.seglog.storage.index.IndexDescriptor.NO_TIMESTAMP;
import static io.seglog.storage.index.IndexDescriptor.TIME_ENTRY_LENGTH;
import static io.seglog.storage.index.IndexDescriptor.TIME_ENTRY_RELATIVE_OFFSET_OFFSET;
import static io.seglog.storage.index.IndexDescriptor.TIME_ENTRY_TIMESTAMP_OFFSET;

import io.seglog.storage.io.FileIO;
import io.seglog.storage.mapping.SharedMapping;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A segment's sparse time index ({@code <20-digit base offset>.timeindex}): 12-byte entries {@code (t, o)}
 * meaning "the largest timestamp up to and including offset {@code o} is {@code t}" (layout:
 * {@link IndexDescriptor}). Byte-compatible with Kafka's {@code TimeIndex}. Timestamps strictly increase;
 * offsets never decrease.
 *
 * <p>The last slot is reserved: {@link #isFull()} is true one entry early, so that the entry appended when
 * the segment rolls or closes ({@code maybeAppend(ts, offset, true)}) always has room.
 *
 * <p>Internal: driven by the segment package. Not checksummed: in the event of a crash it is rebuilt from the
 * log.
 *
 * <p>Thread-safety: as {@link OffsetIndex}: one appending thread, lock-free allocation-free readers; see
 * {@link MappedIndex} for the rules about close and truncation under readers.
 */
public final class TimeIndex extends MappedIndex {

    private TimeIndex(final FileIO io, final Path file, final long baseOffset, final int maxIndexBytes,
                      final Opened opened) {
        super(io, file, baseOffset, maxIndexBytes, TIME_ENTRY_LENGTH, opened);
    }

    /**
     * Opens or creates a time index. A new file is preallocated to {@code roundDown(maxIndexBytes, 12)} bytes
     * and starts empty; an existing file is mapped at its length and every whole 12-byte slot counts as an
     * entry (Kafka's behaviour; see {@link OffsetIndex#open}).
     *
     * @param io            the file-system seam
     * @param file          the file, normally {@code <dir>/<20-digit baseOffset>.timeindex}
     * @param baseOffset    the base offset of the segment, {@code >= 0}
     * @param maxIndexBytes the preallocated size of a new file, {@code >= 0}, rounded down to whole
     *                      entries (below one entry: an index with no slot, always full)
     * @return the open index, which the caller closes
     * @throws IOException              if the file cannot be created, opened or mapped
     * @throws IllegalArgumentException if {@code baseOffset} is negative or, for a new file, {@code maxIndexBytes}
     *                                  is negative
     * @throws CorruptIndexException    if an existing file is too long to map
     */
    public static TimeIndex open(final FileIO io, final Path file, final long baseOffset, final int maxIndexBytes)
        throws IOException {
        return new TimeIndex(io, file, baseOffset, maxIndexBytes,
            openFile(io, file, baseOffset, maxIndexBytes, TIME_ENTRY_LENGTH));
    }

    /**
     * Opens an existing time index for a read-only log: read and mapped read-only, never created, resized or written;
     * always full, so nothing is appended. The caller checks it ({@link #sanityCheck()}) before trusting it.
     *
     * @param io         the file-system seam
     * @param file       the file
     * @param baseOffset the base offset of the segment, {@code >= 0}
     * @return the open index, which the caller closes with {@link #abandon()}
     * @throws IOException           if the file does not exist or cannot be opened or mapped
     * @throws CorruptIndexException if the file is too long to map
     */
    public static TimeIndex openReadOnly(final FileIO io, final Path file, final long baseOffset) throws IOException {
        return new TimeIndex(io, file, baseOffset, 0, openFileReadOnly(io, file));
    }

    /**
     * A time index with no slot, for a read-only log whose index file is missing or unusable: lookups find no
     * entry, so the segment is read from its start.
     *
     * @param io         the (read-only) file layer, never called by an index with no slot
     * @param file       the index file it stands for (not opened)
     * @param baseOffset the base offset of the segment, {@code >= 0}
     * @param anyFile    an open readable file, of which zero bytes are mapped
     * @return the empty index, which the caller closes with {@link #abandon()}
     * @throws IOException if the empty mapping cannot be made
     */
    public static TimeIndex emptyReadOnly(final FileIO io, final Path file, final long baseOffset,
                                       final FileChannel anyFile) throws IOException {
        return new TimeIndex(io, file, baseOffset, 0, MappedIndex.emptyReadOnly(anyFile));
    }

    /**
     * Whether only the reserved slot is left: {@code entries() >= maxEntries() - 1}.
     *
     * @return whether a regular append would fail
     */
    @Override
    public boolean isFull() {
        return entries() >= maxEntries() - 1;
    }

    /**
     * Appends {@code (timestamp, offset)} when {@code timestamp} is greater than {@link #lastTimestamp()};
     * an equal timestamp is ignored (the roll and close paths repeat the last entry). Allocation-free.
     *
     * @param timestamp     the largest timestamp seen up to and including {@code offset}; when the index is
     *                      empty, a timestamp {@code <= NO_TIMESTAMP (-1)} is ignored, as in Kafka
     * @param offset        the offset of the record holding that timestamp: not below {@link #lastEntryOffset()}
     *                      when the index is not empty, and {@code offset - baseOffset()} in
     *                      {@code [0, Integer.MAX_VALUE]} when an entry is written
     * @param skipFullCheck true only for the entry appended on roll or close, which may use the reserved slot
     * @throws IllegalArgumentException if the index is full (and {@code skipFullCheck} is false), the timestamp
     *                                  is below the last one, or the offset is below the last one or does not
     *                                  fit; the message names the file and both values
     * @throws IllegalStateException    if even the reserved slot is used, or the index is closed
     */
    public void maybeAppend(final long timestamp, final long offset, final boolean skipFullCheck) {
        synchronized (lock()) {
            final UnsafeBuffer current = writeBuffer();
            final int published = entries(current);
            if (!skipFullCheck && published >= maxEntries() - 1) {
                throw new IllegalArgumentException("time index is full: entries=" + published + ", maxEntries="
                    + maxEntries() + " (the last slot is reserved for roll and close), file=" + file());
            }
            final long lastTimestamp;
            if (published > 0) {
                final long lastOffset = offsetAt(current, published - 1);
                lastTimestamp = timestampAt(current, published - 1);
                if (offset < lastOffset) {
                    throw new IllegalArgumentException("offset=" + offset + " must be >= lastEntryOffset="
                        + lastOffset + " of the time index, file=" + file());
                }
                if (timestamp < lastTimestamp) {
                    throw new IllegalArgumentException("timestamp=" + timestamp + " must be >= lastTimestamp="
                        + lastTimestamp + " of the time index (offset=" + offset + "), file=" + file());
                }
            } else {
                lastTimestamp = NO_TIMESTAMP;
            }
            if (timestamp > lastTimestamp) {
                final int relative = relativeOffset(offset);
                if (published >= maxEntries()) {
                    throw new IllegalStateException("time index has no slot left, not even the reserved one: entries="
                        + published + ", maxEntries=" + maxEntries() + ", file=" + file());
                }
                final int at = published * TIME_ENTRY_LENGTH;
                current.putLong(at + TIME_ENTRY_TIMESTAMP_OFFSET, timestamp, BYTE_ORDER);
                current.putInt(at + TIME_ENTRY_RELATIVE_OFFSET_OFFSET, relative, BYTE_ORDER);
                publishAppend(published + 1);
            }
        }
    }

    /**
     * The offset of the greatest entry with timestamp {@code <= targetTimestamp}: records with a timestamp
     * {@code > targetTimestamp} all come after it. Lock-free and allocation-free; the last 8 KiB of entries are
     * searched first.
     *
     * @param targetTimestamp the timestamp looked for
     * @return the entry's offset, or {@link #baseOffset()} when the index is empty or {@code targetTimestamp} is
     *         below its first entry
     * @throws IllegalStateException if the index is closed
     */
    public long lookupOffset(final long targetTimestamp) {
        final SharedMapping read = beginRead();
        final UnsafeBuffer current = read.view();
        try {
            final int slot = largestLowerBoundSlot(current, entries(current), targetTimestamp);
            return slot < 0 ? baseOffset() : offsetAt(current, slot);
        } finally {
            read.release();
        }
    }

    /**
     * The greatest entry with timestamp {@code <= targetTimestamp}, timestamp and offset ({@link #lookupOffset} with
     * the entry's timestamp, so the caller can check the batch it names). Lock-free and allocation-free.
     *
     * @param targetTimestamp the timestamp looked for
     * @param into            the answer (none found: the base offset, no timestamp)
     * @throws IllegalStateException if the index is closed
     */
    public void lookup(final long targetTimestamp, final IndexEntry into) {
        final SharedMapping read = beginRead();
        final UnsafeBuffer current = read.view();
        try {
            final int slot = largestLowerBoundSlot(current, entries(current), targetTimestamp);
            if (slot < 0) {
                into.none(baseOffset());
            } else {
                into.set(offsetAt(current, slot), 0, timestampAt(current, slot),
                    slot == 0 ? baseOffset() : offsetAt(current, slot - 1));
            }
        } finally {
            read.release();
        }
    }

    /**
     * The slot of the greatest entry with timestamp {@code <= targetTimestamp}. Lock-free and allocation-free.
     *
     * @param targetTimestamp the timestamp looked for
     * @return the slot, or -1 when the index is empty or {@code targetTimestamp} is below its first entry
     * @throws IllegalStateException if the index is closed
     */
    public int lookupSlot(final long targetTimestamp) {
        final SharedMapping read = beginRead();
        final UnsafeBuffer current = read.view();
        try {
            return largestLowerBoundSlot(current, entries(current), targetTimestamp);
        } finally {
            read.release();
        }
    }

    /**
     * The timestamp of the last entry.
     *
     * @return it, or {@link IndexDescriptor#NO_TIMESTAMP} (-1) when the index is empty
     * @throws IllegalStateException if the index is closed
     */
    public long lastTimestamp() {
        final SharedMapping read = beginRead();
        final UnsafeBuffer current = read.view();
        try {
            final int published = entries(current);
            return published == 0 ? NO_TIMESTAMP : timestampAt(current, published - 1);
        } finally {
            read.release();
        }
    }

    /**
     * The offset of the last entry.
     *
     * @return it, or {@link #baseOffset()} when the index is empty
     * @throws IllegalStateException if the index is closed
     */
    public long lastEntryOffset() {
        return lastEntryOffsetOrBase();
    }

    /**
     * The timestamp of an entry.
     *
     * @param slot the entry, in {@code [0, entries())}
     * @return its timestamp
     * @throws IllegalArgumentException if the slot is out of range
     * @throws IllegalStateException    if the index is closed
     */
    public long entryTimestamp(final int slot) {
        final SharedMapping read = beginRead();
        final UnsafeBuffer current = read.view();
        try {
            checkSlot(slot, entries(current));
            return timestampAt(current, slot);
        } finally {
            read.release();
        }
    }

    @Override
    long keyAt(final UnsafeBuffer buffer, final int slot) {
        return timestampAt(buffer, slot);
    }

    @Override
    long offsetAt(final UnsafeBuffer buffer, final int slot) {
        return baseOffset()
            + buffer.getInt(slot * TIME_ENTRY_LENGTH + TIME_ENTRY_RELATIVE_OFFSET_OFFSET, BYTE_ORDER);
    }

    @Override
    long valueAt(final UnsafeBuffer buffer, final int slot) {
        return offsetAt(buffer, slot);
    }

    private static long timestampAt(final UnsafeBuffer buffer, final int slot) {
        return buffer.getLong(slot * TIME_ENTRY_LENGTH + TIME_ENTRY_TIMESTAMP_OFFSET, BYTE_ORDER);
    }

    @Override
    void checkEntries(final UnsafeBuffer buffer, final int entries) {
        final long first = timestampAt(buffer, 0);
        final long last = timestampAt(buffer, entries - 1);
        if (last < first) {
            throw new CorruptIndexException(file(), "lastTimestamp", last, ">= the first timestamp " + first
                + " (time index with " + entries + " entries)");
        }
    }

    @Override
    String kind() {
        return "time index";
    }
}
