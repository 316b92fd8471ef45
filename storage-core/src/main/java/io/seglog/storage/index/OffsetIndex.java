package io.seglog.storage.index;

import static io.seglog.storage.index.IndexDescriptor.BYTE_ORDER;
import static io.seglog.storage.index.IndexDescriptor.OFFSET_ENTRY_LENGTH;
import static io.seglog.storage.index.IndexDescriptor.OFFSET_ENTRY_POSITION_OFFSET;
import static io.seglog.storage.index.IndexDescriptor.OFFSET_ENTRY_RELATIVE_OFFSET_OFFSET;

import io.seglog.storage.io.FileIO;
import io.seglog.storage.mapping.SharedMapping;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A segment's sparse offset index ({@code <20-digit base offset>.index}): 8-byte entries mapping an offset to
 * the byte position, in the segment's log file, of the batch that holds it (layout: {@link IndexDescriptor}).
 * Byte-compatible with Kafka's {@code OffsetIndex}. Which batches get an entry is the segment's decision
 * (Kafka's {@code index.interval.bytes} rule).
 *
 * <p>Internal: driven by the segment package. Not checksummed: in the event of a crash it is rebuilt from the
 * log.
 *
 * <p>Thread-safety: one appending thread; {@code flush} may run on another thread; lookups and accessors are
 * lock-free and allocation-free from any thread. A reader never sees an entry beyond the published count nor
 * a half-written entry. {@link #close()} and truncation must not race with readers of the affected slots: see
 * {@link MappedIndex} for the exact rules the log must keep.
 */
public final class OffsetIndex extends MappedIndex {

    private OffsetIndex(final FileIO io, final Path file, final long baseOffset, final int maxIndexBytes,
                        final Opened opened) {
        super(io, file, baseOffset, maxIndexBytes, OFFSET_ENTRY_LENGTH, opened);
    }

    /**
     * Opens or creates an offset index. A new file is preallocated to {@code roundDown(maxIndexBytes, 8)} bytes
     * and starts empty; an existing file is mapped at its length and every whole 8-byte slot counts as an entry
     * (Kafka's behaviour: an index is trimmed on roll and close, so this is right for a cleanly closed one; call
     * {@link #sanityCheck()} or rebuild after a crash). An existing file is not resized: the log resizes the
     * active segment's index to {@code maxIndexBytes} with {@link #resize(int)}.
     *
     * @param io            the file-system seam
     * @param file          the file, normally {@code <dir>/<20-digit baseOffset>.index}
     * @param baseOffset    the base offset of the segment, {@code >= 0}
     * @param maxIndexBytes the preallocated size of a new file, {@code >= 0}, rounded down to whole
     *                      entries (below one entry: an index with no slot, always full)
     * @return the open index, which the caller closes
     * @throws IOException              if the file cannot be created, opened or mapped
     * @throws IllegalArgumentException if {@code baseOffset} is negative or, for a new file, {@code maxIndexBytes}
     *                                  is negative
     * @throws CorruptIndexException    if an existing file is too long to map
     */
    public static OffsetIndex open(final FileIO io, final Path file, final long baseOffset, final int maxIndexBytes)
        throws IOException {
        return new OffsetIndex(io, file, baseOffset, maxIndexBytes,
            openFile(io, file, baseOffset, maxIndexBytes, OFFSET_ENTRY_LENGTH));
    }

    /**
     * Opens an existing offset index for a read-only log: read and mapped read-only, never created, resized or written;
     * always full, so nothing is appended. The caller checks it ({@link #sanityCheck()}) before trusting it.
     *
     * @param io         the file-system seam
     * @param file       the file
     * @param baseOffset the base offset of the segment, {@code >= 0}
     * @return the open index, which the caller closes with {@link #abandon()}
     * @throws IOException           if the file does not exist or cannot be opened or mapped
     * @throws CorruptIndexException if the file is too long to map
     */
    public static OffsetIndex openReadOnly(final FileIO io, final Path file, final long baseOffset) throws IOException {
        return new OffsetIndex(io, file, baseOffset, 0, openFileReadOnly(io, file));
    }

    /**
     * A offset index with no slot, for a read-only log whose index file is missing or unusable: lookups find no
     * entry, so the segment is read from its start.
     *
     * @param io         the (read-only) file layer, never called by an index with no slot
     * @param file       the index file it stands for (not opened)
     * @param baseOffset the base offset of the segment, {@code >= 0}
     * @param anyFile    an open readable file, of which zero bytes are mapped
     * @return the empty index, which the caller closes with {@link #abandon()}
     * @throws IOException if the empty mapping cannot be made
     */
    public static OffsetIndex emptyReadOnly(final FileIO io, final Path file, final long baseOffset,
                                       final FileChannel anyFile) throws IOException {
        return new OffsetIndex(io, file, baseOffset, 0, MappedIndex.emptyReadOnly(anyFile));
    }

    /**
     * The offset of the last entry.
     *
     * @return the last entry's offset, or {@link #baseOffset()} when the index is empty
     * @throws IllegalStateException if the index is closed
     */
    public long lastOffset() {
        return lastEntryOffsetOrBase();
    }

    /**
     * Appends an entry. Allocation-free.
     *
     * @param offset   the offset indexed: greater than {@link #lastOffset()} when the index is not empty, and
     *                 {@code offset - baseOffset()} in {@code [0, Integer.MAX_VALUE]}
     * @param position the byte position in the log file of the batch holding {@code offset}, {@code >= 0}
     * @throws IllegalArgumentException if the index is full or an argument breaks a rule above; the message
     *                                  names the file and both values
     * @throws IllegalStateException    if the index is closed
     */
    public void append(final long offset, final int position) {
        synchronized (lock()) {
            final UnsafeBuffer current = writeBuffer();
            final int published = entries(current);
            if (published >= maxEntries()) {
                throw new IllegalArgumentException("offset index is full: entries=" + published + ", maxEntries="
                    + maxEntries() + ", file=" + file());
            }
            if (published > 0) {
                final long last = offsetAt(current, published - 1);
                if (offset <= last) {
                    throw new IllegalArgumentException("offset=" + offset + " must be > lastOffset=" + last
                        + " of the offset index, file=" + file());
                }
            }
            final int relative = relativeOffset(offset);
            if (position < 0) {
                throw new IllegalArgumentException("position=" + position + " must be >= 0 (offset=" + offset
                    + "), file=" + file());
            }
            final int at = published * OFFSET_ENTRY_LENGTH;
            current.putInt(at + OFFSET_ENTRY_RELATIVE_OFFSET_OFFSET, relative, BYTE_ORDER);
            current.putInt(at + OFFSET_ENTRY_POSITION_OFFSET, position, BYTE_ORDER);
            publishAppend(published + 1);
        }
    }

    /**
     * The slot of the greatest entry with offset {@code <= targetOffset}. Lock-free and allocation-free; the
     * last 8 KiB of entries are searched first (see {@link IndexDescriptor#WARM_SECTION_BYTES}).
     *
     * @param targetOffset the offset looked for
     * @return the slot, or -1 when the index is empty or {@code targetOffset} is below its first entry
     * @throws IllegalStateException if the index is closed
     */
    public int lookupSlot(final long targetOffset) {
        final SharedMapping read = beginRead();
        final UnsafeBuffer current = read.view();
        try {
            return largestLowerBoundSlot(current, entries(current), targetOffset);
        } finally {
            read.release();
        }
    }

    /**
     * The greatest indexed position that is {@code <= position}: where a reader that must stop at a byte limit
     * (a fetch's {@code maxBytes}) starts scanning batch headers for the last batch that fits. Kafka's
     * {@code largestLowerBoundSlotFor(position, VALUE)}, with the warm tail searched first like every lookup,
     * and with the buffer and the entry count read once, so a concurrent truncation cannot make it fail half-way.
     * Lock-free and allocation-free.
     *
     * @param position a byte position in the segment's log file
     * @return the greatest indexed position {@code <= position}, or -1 when the index is empty or its first
     *         entry's position is above {@code position}
     * @throws IllegalStateException if the index is closed
     */
    public int lookupPositionAtMost(final int position) {
        final SharedMapping read = beginRead();
        final UnsafeBuffer current = read.view();
        try {
            final int slot = largestLowerBoundSlot(current, entries(current), position, true);
            return slot < 0 ? -1 : positionAt(current, slot);
        } finally {
            read.release();
        }
    }

    /**
     * The greatest entry with offset {@code <= targetOffset}, offset and position: where a reader of
     * {@code targetOffset} starts scanning, and what it checks the batch there against. Lock-free and
     * allocation-free.
     *
     * @param targetOffset the offset looked for
     * @param into         the answer (none found: the base offset at position 0)
     * @throws IllegalStateException if the index is closed
     */
    public void lookup(final long targetOffset, final IndexEntry into) {
        final SharedMapping read = beginRead();
        final UnsafeBuffer current = read.view();
        try {
            fill(current, largestLowerBoundSlot(current, entries(current), targetOffset), into);
        } finally {
            read.release();
        }
    }

    /**
     * The greatest entry whose position is {@code <= position}, offset and position ({@link #lookupPositionAtMost}
     * with the entry's offset, so the caller can check the batch there). Lock-free and allocation-free.
     *
     * @param position a byte position in the segment's log file
     * @param into     the answer (none found: the base offset at position 0)
     * @throws IllegalStateException if the index is closed
     */
    public void lookupAtMost(final int position, final IndexEntry into) {
        final SharedMapping read = beginRead();
        final UnsafeBuffer current = read.view();
        try {
            fill(current, largestLowerBoundSlot(current, entries(current), position, true), into);
        } finally {
            read.release();
        }
    }

    private void fill(final UnsafeBuffer current, final int slot, final IndexEntry into) {
        if (slot < 0) {
            into.none(baseOffset());
        } else {
            into.set(offsetAt(current, slot), positionAt(current, slot), IndexDescriptor.NO_TIMESTAMP, baseOffset());
        }
    }

    /**
     * The log-file position of the greatest entry with offset {@code <= targetOffset}: where a reader of
     * {@code targetOffset} starts scanning batch headers. Lock-free and allocation-free.
     *
     * @param targetOffset the offset looked for
     * @return the entry's position, or 0 when the index is empty or {@code targetOffset} is below its first entry
     * @throws IllegalStateException if the index is closed
     */
    public int lookupPosition(final long targetOffset) {
        final SharedMapping read = beginRead();
        final UnsafeBuffer current = read.view();
        try {
            final int slot = largestLowerBoundSlot(current, entries(current), targetOffset);
            return slot < 0 ? 0 : positionAt(current, slot);
        } finally {
            read.release();
        }
    }

    /**
     * The offset of the greatest entry with offset {@code <= targetOffset} (the entry {@link #lookupPosition}
     * uses). Lock-free and allocation-free.
     *
     * @param targetOffset the offset looked for
     * @return the entry's offset, or {@link #baseOffset()} when the index is empty or {@code targetOffset} is
     *         below its first entry
     * @throws IllegalStateException if the index is closed
     */
    public long lookupOffset(final long targetOffset) {
        final SharedMapping read = beginRead();
        final UnsafeBuffer current = read.view();
        try {
            final int slot = largestLowerBoundSlot(current, entries(current), targetOffset);
            return slot < 0 ? baseOffset() : offsetAt(current, slot);
        } finally {
            read.release();
        }
    }

    /**
     * The offset of the first entry whose position is {@code >= position}: an offset certainly outside a fetch
     * that ends before {@code position} (Kafka's {@code fetchUpperBoundOffset(start, size)} with
     * {@code position = start + size}, used to bound the aborted-transaction scan of a read). Not in general the
     * smallest such offset, since the index is sparse. Lock-free and allocation-free; the warm tail is
     * searched first.
     *
     * @param position a byte position in the log file
     * @return the entry's offset, or -1 when no entry lies at or after {@code position}
     * @throws IllegalStateException if the index is closed
     */
    public long upperBoundOffsetForPosition(final long position) {
        final SharedMapping read = beginRead();
        final UnsafeBuffer current = read.view();
        try {
            final int published = entries(current);
            if (published == 0) {
                return -1;
            }
            final int firstHot = Math.max(0, published - 1 - warmEntries());
            int lo;
            int hi;
            if (positionAt(current, firstHot) < position) {
                lo = firstHot + 1;
                hi = published;
            } else {
                // firstHot qualifies, so it bounds the search of the cold part.
                lo = 0;
                hi = firstHot;
            }
            while (lo < hi) {
                final int mid = (lo + hi) >>> 1;
                if (positionAt(current, mid) < position) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            return lo == published ? -1 : offsetAt(current, lo);
        } finally {
            read.release();
        }
    }

    /**
     * The log-file position of an entry.
     *
     * @param slot the entry, in {@code [0, entries())}
     * @return its position
     * @throws IllegalArgumentException if the slot is out of range
     * @throws IllegalStateException    if the index is closed
     */
    public int entryPosition(final int slot) {
        final SharedMapping read = beginRead();
        final UnsafeBuffer current = read.view();
        try {
            checkSlot(slot, entries(current));
            return positionAt(current, slot);
        } finally {
            read.release();
        }
    }

    @Override
    long keyAt(final UnsafeBuffer buffer, final int slot) {
        return offsetAt(buffer, slot);
    }

    @Override
    long offsetAt(final UnsafeBuffer buffer, final int slot) {
        // Signed, as Kafka reads it: a corrupt negative value shows up as an offset below the base offset.
        return baseOffset()
            + buffer.getInt(slot * OFFSET_ENTRY_LENGTH + OFFSET_ENTRY_RELATIVE_OFFSET_OFFSET, BYTE_ORDER);
    }

    @Override
    long valueAt(final UnsafeBuffer buffer, final int slot) {
        return positionAt(buffer, slot);
    }

    private static int positionAt(final UnsafeBuffer buffer, final int slot) {
        return buffer.getInt(slot * OFFSET_ENTRY_LENGTH + OFFSET_ENTRY_POSITION_OFFSET, BYTE_ORDER);
    }

    @Override
    void checkEntries(final UnsafeBuffer buffer, final int entries) {
        // Kafka checks only what MappedIndex checks for every index.
    }

    @Override
    String kind() {
        return "offset index";
    }
}
