package io.seglog.storage.index;

import static java.nio.file.StandardOpenOption.CREATE_NEW;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;

import io.seglog.storage.io.FileIO;
import io.seglog.storage.mapping.SharedMapping;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Path;
import java.util.Set;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * What the offset index and the time index share: a file of fixed-size entries, preallocated and mapped
 * read-write, with a count of valid entries; the lookup of the greatest entry not above a key; truncation,
 * resizing, flushing and closing.
 *
 * <h2>Threads</h2>
 * One writer appends (the segment's owner, under the log's lock). Mutators ({@code append}, truncation,
 * {@code resize}, {@code flush}, {@code close}, {@code renameTo}) are serialised by an internal lock, so a
 * flusher thread may call {@link #flush()} while the writer appends. Readers take no lock: they acquire the
 * published mapping ({@link SharedMapping}, the storage core's one mapping-lifetime protocol), read the published
 * {@code entries}, look only at slots below that count, and release the mapping.
 * The writer writes an entry's bytes and then publishes the new count with a volatile write, so a reader that
 * sees count {@code n} sees every byte of entries {@code 0..n-1}.
 *
 * <p>Resizing (on roll, on close, on truncation back into an old segment) maps the file again, publishes the
 * new mapping and retires the old one, which its last reader unmaps: a lock-free reader may still be searching
 * it, and touching an unmapped page kills the JVM (the reason Kafka first refused to unmap on resize,
 * KAFKA-7442). Both mappings show the same page-cache pages, and a reader clamps its count to its mapping's
 * capacity, so it never reads outside either. How close and truncation meet readers:
 * <ul>
 *   <li>{@link #close()} and {@link #closeAndDelete()} unpublish the mapping (later lookups throw
 *       {@link IllegalStateException}), retire it and wait until the lookups already in progress released it and
 *       it is unmapped, so a close racing with readers (a shutdown while fetches run) cannot make a reader touch
 *       unmapped memory;</li>
 *   <li>truncation followed by new appends rewrites slots a concurrent reader may be reading, and a shrinking
 *       resize after a truncation can cut the file under a reader that read the count before it: truncate
 *       only below what readers may ask for (Kafka's rule: truncation happens under the log lock and readers
 *       read below the high watermark).</li>
 * </ul>
 */
abstract sealed class MappedIndex implements AutoCloseable permits OffsetIndex, TimeIndex {
    private final FileIO io;
    private final long baseOffset;
    private final int maxIndexBytes;
    private final int entrySize;
    /**
     * Entries of the warm tail searched first. Why: a plain binary search over an index that grows page by
     * page keeps touching different pages (for a lookup near the tail of a 13-page index: pages 0, 6, 9, 11,
     * 12; once it grows to 14 pages: 0, 7, 10, 12, 13), and pages it has not touched for a long time are
     * likely evicted from the page cache, so the first lookup after the index crosses into a new page can
     * block on disk for up to a second (Kafka measured such produce-latency spikes). Almost every lookup (an
     * in-sync follower or consumer) targets the tail. Searching the last 8 KiB first keeps those lookups on at
     * most three 4 KiB pages, all touched by every tail lookup and so always warm; 8 KiB of index covers
     * about 4 MB (offset index) or 2.7 MB (time index) of log at Kafka's default index interval.
     */
    private final int warmEntries;
    private final Object lock = new Object();
    /** Mapped read-only (a read-only log): the writer's view is refused, since a write through it kills the JVM. */
    private final boolean readOnly;

    private volatile Path file;
    /** The current mapping; null once closed. Published before any entry written through it. */
    private volatile SharedMapping mapping;
    /** Entries published to readers; written after the entry bytes. */
    private volatile int entries;
    private volatile int maxEntries;
    private volatile long lengthBytes;
    /** Guarded by lock: something changed since the last flush (entries, length). */
    private boolean dirty;
    /** Guarded by lock: the file was created and its directory entry is not yet known to be durable. */
    private boolean directorySyncPending;
    /** Guarded by lock: a flush failed; a failed fsync is never retried. */
    private boolean flushFailed;

    MappedIndex(final FileIO io, final Path file, final long baseOffset, final int maxIndexBytes,
                final int entrySize, final Opened opened) {
        this.io = io;
        this.file = file;
        this.baseOffset = baseOffset;
        this.maxIndexBytes = maxIndexBytes;
        this.entrySize = entrySize;
        this.warmEntries = IndexDescriptor.WARM_SECTION_BYTES / entrySize;
        this.lengthBytes = opened.lengthBytes;
        this.maxEntries = (int) (opened.lengthBytes / entrySize);
        // Kafka's rule for an existing file: every whole slot is an entry; trimming on roll and close is what
        // makes this right on reopen. A new file starts empty.
        this.entries = opened.created ? 0 : maxEntries;
        this.directorySyncPending = opened.created;
        this.mapping = new SharedMapping(opened.mapping);
        this.readOnly = opened.mapping.isReadOnly();
    }

    /** The result of opening and mapping an index file. */
    record Opened(MappedByteBuffer mapping, long lengthBytes, boolean created) {
    }

    /**
     * Opens or creates an index file and maps it. A new file is preallocated to
     * {@code roundDown(maxIndexBytes, entrySize)}; an existing one is mapped at its length.
     */
    static Opened openFile(final FileIO io, final Path file, final long baseOffset, final int maxIndexBytes,
                           final int entrySize) throws IOException {
        if (baseOffset < 0) {
            throw new IllegalArgumentException("baseOffset=" + baseOffset + " must be >= 0 (file=" + file + ")");
        }
        FileChannel channel;
        boolean created;
        try {
            channel = io.open(file, Set.of(CREATE_NEW, READ, WRITE));
            created = true;
        } catch (FileAlreadyExistsException exists) {
            channel = io.open(file, Set.of(READ, WRITE));
            created = false;
        }
        try (FileChannel ch = channel) {
            final long length;
            if (created) {
                // Kafka accepts segment.index.bytes >= 4 and rounds down: a smaller size than one entry gives an
                // index with no slot, which the segment treats as always full (it rolls instead of indexing).
                if (maxIndexBytes < 0) {
                    throw new IllegalArgumentException("maxIndexBytes=" + maxIndexBytes + " must be >= 0 (file="
                        + file + ")");
                }
                length = roundDown(maxIndexBytes, entrySize);
                extend(ch, length);
            } else {
                length = ch.size();
                if (length > Integer.MAX_VALUE) {
                    // A ByteBuffer cannot map more, and no index Kafka or Seglog writes is this large.
                    throw new CorruptIndexException(file, "lengthBytes", length, "<= " + Integer.MAX_VALUE);
                }
            }
            return new Opened(ch.map(FileChannel.MapMode.READ_WRITE, 0, length), length, created);
        } catch (IOException | RuntimeException e) {
            if (created) {
                try {
                    io.deleteIfExists(file);
                } catch (IOException | RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            throw e;
        }
    }

    /**
     * Opens an existing index file for a read-only log: the file is opened for reading only and mapped read-only
     * at its length (every whole slot an entry, as {@link #openFile} counts them), and nothing is created,
     * resized or written; the index is always full, so nothing is ever appended to it.
     *
     * @throws java.nio.file.NoSuchFileException if the file does not exist
     */
    static Opened openFileReadOnly(final FileIO io, final Path file) throws IOException {
        try (FileChannel channel = io.open(file, Set.of(READ))) {
            final long length = channel.size();
            if (length > Integer.MAX_VALUE) {
                throw new CorruptIndexException(file, "lengthBytes", length, "<= " + Integer.MAX_VALUE);
            }
            return new Opened(channel.map(FileChannel.MapMode.READ_ONLY, 0, length), length, false);
        }
    }

    /**
     * An index with no slot for a read-only log whose index file is missing or unusable: every lookup finds no
     * entry, so readers scan the segment from its start. Maps zero bytes of {@code anyFile} (a mapping needs a
     * file; zero bytes of any readable one is an empty read-only mapping), touching nothing.
     */
    static Opened emptyReadOnly(final FileChannel anyFile) throws IOException {
        return new Opened(anyFile.map(FileChannel.MapMode.READ_ONLY, 0, 0), 0, false);
    }

    /**
     * Makes the page-cache pages of the next {@code slots} slots present by writing zeros to them with positional
     * writes, so that appending through the mapping afterwards does not fault on the holes of the sparse,
     * preallocated file page by page (each such fault zero-fills pages one at a time, with readahead; measured
     * about ten times slower for an index rebuilt by a recovery scan). The slots lie above the published entries,
     * which no reader reads, and hold zeros already; nothing else changes. Writer only.
     *
     * @param slots how many slots after the last entry to prepare; capped at the file's length
     * @throws IOException if the file cannot be written
     */
    public void prepareForAppends(final int slots) throws IOException {
        final long from = (long) entries * entrySize;
        final long to = Math.min(lengthBytes, from + (long) Math.max(0, slots) * entrySize);
        if (to <= from) {
            return;
        }
        final ByteBuffer zeros = ByteBuffer.allocate((int) Math.min(64 * 1024, to - from));
        try (FileChannel channel = io.open(file, Set.of(READ, WRITE))) {
            for (long at = from; at < to; ) {
                zeros.clear().limit((int) Math.min(zeros.capacity(), to - at));
                at += channel.write(zeros, at);
            }
        }
    }

    /** Extends a file to a length by writing its last byte, which leaves the rest sparse (as setLength does). */
    private static void extend(final FileChannel channel, final long length) throws IOException {
        if (length == 0) {
            return;
        }
        final ByteBuffer zero = ByteBuffer.allocate(1);
        while (zero.hasRemaining()) {
            channel.write(zero, length - 1 + zero.position());
        }
    }

    static int roundDown(final int number, final int factor) {
        return factor * (number / factor);
    }

    // ----------------------------------------------------------------------------------------- accessors

    /**
     * The base offset of the segment this index belongs to.
     *
     * @return the base offset
     */
    public final long baseOffset() {
        return baseOffset;
    }

    /**
     * The number of valid entries.
     *
     * @return the entry count published to readers
     */
    public final int entries() {
        return entries;
    }

    /**
     * The number of entries the file can hold at its current length.
     *
     * @return the capacity in entries
     */
    public final int maxEntries() {
        return maxEntries;
    }

    /**
     * The maximum size this index was opened with (the segment's {@code segment.index.bytes}).
     *
     * @return the size in bytes used for preallocation and {@link #reset()}
     */
    public final int maxIndexBytes() {
        return maxIndexBytes;
    }

    /**
     * The current length of the file, preallocated slots included.
     *
     * @return the length in bytes
     */
    public final long lengthBytes() {
        return lengthBytes;
    }

    /**
     * The bytes used by valid entries.
     *
     * @return {@code entries() * entry size}
     */
    public final int sizeInBytes() {
        return entries * entrySize;
    }

    /**
     * Whether no entry can be appended (for the time index: none but the reserved roll/close entry).
     *
     * @return whether the index is full
     */
    public boolean isFull() {
        return entries >= maxEntries;
    }

    /**
     * The index file. Changes after {@link #renameTo(Path)}.
     *
     * @return the current path
     */
    public final Path file() {
        return file;
    }

    /**
     * Whether an offset can be stored in this index, that is whether {@code offset - baseOffset()} lies in
     * {@code [0, Integer.MAX_VALUE]}. A segment rolls before it appends an offset that cannot.
     *
     * @param offset an absolute offset
     * @return whether the offset fits
     */
    public final boolean canAppendOffset(final long offset) {
        final long relative = offset - baseOffset;
        return relative >= 0 && relative <= IndexDescriptor.MAX_RELATIVE_OFFSET;
    }

    /**
     * The offset of an entry.
     *
     * @param slot the entry, in {@code [0, entries())}
     * @return its absolute offset
     * @throws IllegalArgumentException if the slot is out of range
     * @throws IllegalStateException    if the index is closed
     */
    public final long entryOffset(final int slot) {
        final SharedMapping read = beginRead();
        final UnsafeBuffer current = read.view();
        try {
            checkSlot(slot, entries(current));
            return offsetAt(current, slot);
        } finally {
            read.release();
        }
    }

    // ----------------------------------------------------------------------------------------- for subclasses

    /** The key searched by lookups: the offset (offset index) or the timestamp (time index) of a slot. */
    abstract long keyAt(UnsafeBuffer buffer, int slot);

    /** The absolute offset of a slot. */
    abstract long offsetAt(UnsafeBuffer buffer, int slot);

    /** The offset of the last entry, or the base offset when the index is empty. */
    final long lastEntryOffsetOrBase() {
        final SharedMapping read = beginRead();
        final UnsafeBuffer current = read.view();
        try {
            final int published = entries(current);
            return published == 0 ? baseOffset : offsetAt(current, published - 1);
        } finally {
            read.release();
        }
    }

    /** The value of a slot (Kafka's {@code IndexSearchType.VALUE}): the position, or the offset (time index). */
    abstract long valueAt(UnsafeBuffer buffer, int slot);

    /** Kafka's extra sanity checks of a non-empty index, run before the common ones. */
    abstract void checkEntries(UnsafeBuffer buffer, int entries);

    /** The index kind in messages: "offset index" or "time index". */
    abstract String kind();

    final Object lock() {
        return lock;
    }

    /** The number of tail entries searched first. */
    final int warmEntries() {
        return warmEntries;
    }

    /**
     * Starts a lock-free read: acquires the current mapping (read its view before {@link #entries(UnsafeBuffer)});
     * throws when closed. Every call must be paired with {@link SharedMapping#release()} in a {@code finally}, and
     * the view must not be touched after it.
     */
    final SharedMapping beginRead() {
        for (;;) {
            final SharedMapping current = mapping;
            if (current == null) {
                throw closedException();
            }
            if (current.acquire()) {
                return current;
            }
            // Retired by a resize that has already published its replacement, or by a close: look again.
        }
    }

    /** The published count, clamped to what the given buffer holds (it may be an older, smaller mapping). */
    final int entries(final UnsafeBuffer readBuffer) {
        return Math.min(entries, readBuffer.capacity() / entrySize);
    }

    /** For the writer, under the lock (which close() also holds): the current buffer, or an exception when closed. */
    final UnsafeBuffer writeBuffer() {
        final SharedMapping current = mapping;
        if (current == null) {
            throw closedException();
        }
        if (readOnly) {
            throw new IllegalStateException("index " + file + " is mapped read-only (a read-only log): not written");
        }
        return current.view();
    }

    /** For the writer, under the lock, after writing slot {@code entries()}'s bytes: publishes it. */
    final void publishAppend(final int newEntries) {
        dirty = true;
        entries = newEntries;
    }

    final IllegalStateException closedException() {
        return new IllegalStateException(kind() + " is closed: file=" + file);
    }

    final int relativeOffset(final long offset) {
        if (!canAppendOffset(offset)) {
            throw new IllegalArgumentException("offset=" + offset + " does not fit the " + kind()
                + ": offset - baseOffset must lie in [0, " + IndexDescriptor.MAX_RELATIVE_OFFSET + "], baseOffset="
                + baseOffset + ", file=" + file);
        }
        return (int) (offset - baseOffset);
    }

    final void checkSlot(final int slot, final int published) {
        if (slot < 0 || slot >= published) {
            throw new IllegalArgumentException("slot=" + slot + " out of range [0, " + published + ") of the "
                + kind() + ", file=" + file);
        }
    }

    /**
     * The slot of the greatest entry whose key is {@code <= target}, or -1 when the index is empty or its first
     * key is above the target. Searches the warm tail first (see {@link #warmEntries}). Allocation-free.
     */
    final int largestLowerBoundSlot(final UnsafeBuffer readBuffer, final int published, final long target) {
        return largestLowerBoundSlot(readBuffer, published, target, false);
    }

    /**
     * As {@link #largestLowerBoundSlot(UnsafeBuffer, int, long)}, comparing either the key or, when
     * {@code byValue}, the value of each entry (Kafka's {@code IndexSearchType}); both grow with the slot.
     */
    final int largestLowerBoundSlot(final UnsafeBuffer readBuffer, final int published, final long target,
                                    final boolean byValue) {
        if (published == 0) {
            return -1;
        }
        final int firstHot = Math.max(0, published - 1 - warmEntries);
        if (searched(readBuffer, firstHot, byValue) < target) {
            return binarySearch(readBuffer, target, firstHot, published - 1, byValue);
        }
        if (searched(readBuffer, 0, byValue) > target) {
            return -1;
        }
        return binarySearch(readBuffer, target, 0, firstHot, byValue);
    }

    private long searched(final UnsafeBuffer readBuffer, final int slot, final boolean byValue) {
        return byValue ? valueAt(readBuffer, slot) : keyAt(readBuffer, slot);
    }

    /** Greatest slot in [lo, hi] with key (or value) <= target, given that of lo is <= target. */
    private int binarySearch(final UnsafeBuffer readBuffer, final long target, final int begin, final int end,
                             final boolean byValue) {
        int lo = begin;
        int hi = end;
        while (lo < hi) {
            // Upper middle, so that lo = mid always makes progress.
            final int mid = (lo + hi + 1) >>> 1;
            final long key = searched(readBuffer, mid, byValue);
            if (key > target) {
                hi = mid - 1;
            } else if (key < target) {
                lo = mid;
            } else {
                return mid;
            }
        }
        return lo;
    }

    // ----------------------------------------------------------------------------------------- mutators

    /**
     * Removes every entry whose offset is {@code >= offset}. Truncating to an offset above the last entry has
     * no effect. The file keeps its length.
     *
     * @param offset the first offset to remove
     * @throws IllegalStateException if the index is closed
     */
    public final void truncateTo(final long offset) {
        synchronized (lock) {
            final UnsafeBuffer current = writeBuffer();
            // Entries' offsets never decrease, so the survivors are a prefix: find its length.
            int lo = 0;
            int hi = entries(current);
            while (lo < hi) {
                final int mid = (lo + hi) >>> 1;
                if (offsetAt(current, mid) < offset) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            truncateToEntries(lo);
        }
    }

    /**
     * Removes all entries. The file keeps its length (its preallocation).
     *
     * @throws IllegalStateException if the index is closed
     */
    public final void truncate() {
        synchronized (lock) {
            writeBuffer();
            truncateToEntries(0);
        }
    }

    private void truncateToEntries(final int newEntries) {
        if (newEntries != entries) {
            entries = newEntries;
            dirty = true;
        }
    }

    /**
     * Removes all entries and resizes the file to {@link #maxIndexBytes()}, so that a segment that becomes
     * active again (after truncation or recovery) is not full.
     *
     * @throws IOException if the file cannot be resized
     */
    public final void reset() throws IOException {
        synchronized (lock) {
            truncate();
            resize(maxIndexBytes);
        }
    }

    /**
     * Resizes the file to the bytes its entries use, dropping the preallocated tail: on roll and on close.
     *
     * @throws IOException if the file cannot be resized
     */
    public final void trimToValidSize() throws IOException {
        synchronized (lock) {
            resize(entries * entrySize);
        }
    }

    /**
     * Resizes the file to {@code roundDown(newMaxBytes, entry size)} bytes and maps it again. Entries are kept.
     * The previous mapping stays mapped until {@link #close()} (see the class comment).
     *
     * @param newMaxBytes the new length in bytes; rounded down to a whole number of entries
     * @return whether the length changed
     * @throws IllegalArgumentException if the new length cannot hold the current entries
     * @throws IOException              if the file cannot be resized or mapped
     */
    public final boolean resize(final int newMaxBytes) throws IOException {
        synchronized (lock) {
            writeBuffer();
            final int rounded = roundDown(Math.max(0, newMaxBytes), entrySize);
            final int used = entries * entrySize;
            if (newMaxBytes < 0 || rounded < used) {
                throw new IllegalArgumentException("newMaxBytes=" + newMaxBytes + " cannot hold the " + entries
                    + " entries (" + used + " bytes) of the " + kind() + ", file=" + file);
            }
            if (rounded == lengthBytes) {
                return false;
            }
            final MappedByteBuffer resized;
            try (FileChannel channel = io.open(file, Set.of(READ, WRITE))) {
                if (rounded < lengthBytes) {
                    channel.truncate(rounded);
                } else {
                    extend(channel, rounded);
                }
                resized = channel.map(FileChannel.MapMode.READ_WRITE, 0, rounded);
            }
            lengthBytes = rounded;
            maxEntries = rounded / entrySize;
            dirty = true;
            // Published last: a reader that sees this mapping sees a file at least as long as its capacity. Then
            // the old one is retired; a reader that fails to acquire it finds this one.
            final SharedMapping old = mapping;
            mapping = new SharedMapping(resized);
            old.retire();
            return true;
        }
    }

    /**
     * Makes the entries and the file length durable: forces the mapping, fsyncs the file (its length is
     * metadata that a crash can otherwise lose: Kafka's KAFKA-20979) and, on the first flush of a new file,
     * fsyncs its directory. A failed flush is never retried: later flushes fail at once and {@link #close()}
     * no longer syncs.
     *
     * @throws IOException if the index is closed, a previous flush failed, or a sync fails
     */
    public final void flush() throws IOException {
        synchronized (lock) {
            if (mapping == null) {
                throw new IOException(kind() + " is closed: file=" + file);
            }
            if (flushFailed) {
                throw new IOException("a previous flush of the " + kind() + " failed and is not retried: file="
                    + file);
            }
            if (!dirty && !directorySyncPending) {
                // Nothing changed since the last successful flush: a group commit that flushes the data file
                // many times between index entries (one per index.interval.bytes) pays no index fsync.
                return;
            }
            try {
                mapping.mapped().force();
                try (FileChannel channel = io.open(file, Set.of(READ, WRITE))) {
                    channel.force(true);
                }
                if (directorySyncPending) {
                    final Path parent = file.toAbsolutePath().getParent();
                    io.fsyncDirectory(parent);
                    directorySyncPending = false;
                }
                dirty = false;
            } catch (UncheckedIOException e) {
                flushFailed = true;
                throw new IOException("cannot force the mapping of " + file, e.getCause());
            } catch (IOException | RuntimeException e) {
                flushFailed = true;
                throw e;
            }
        }
    }

    /**
     * Renames the index file (for example to {@code .deleted} before an asynchronous delete) and fsyncs its
     * directory. The mapping is unaffected.
     *
     * @param target the new path
     * @throws IOException if the rename or the directory sync fails; the index keeps its old path if the
     *                     rename itself failed
     */
    public final void renameTo(final Path target) throws IOException {
        synchronized (lock) {
            io.atomicMove(file, target);
            file = target;
            io.fsyncDirectory(target.toAbsolutePath().getParent());
        }
    }

    /**
     * Trims the file to its entries, makes it durable if anything changed since the last flush (unless a
     * flush failed), and unmaps it. Idempotent. Lookups that start later throw; lookups in progress are waited
     * for before the unmap (see the class comment).
     *
     * @throws IOException if trimming or syncing fails; the mapping is released anyway
     */
    @Override
    public final void close() throws IOException {
        synchronized (lock) {
            if (mapping == null) {
                return;
            }
            Throwable failure = null;
            if (!flushFailed) {
                try {
                    trimToValidSize();
                    if (dirty) {
                        flush();
                    }
                } catch (IOException | RuntimeException e) {
                    failure = e;
                }
            }
            failure = unmapAll(failure);
            rethrow(failure);
        }
    }

    /**
     * Unmaps the file without trimming or syncing it: for a log directory that went offline after a failed write
     * or fsync, where no further fsync may be issued (a retried fsync can report success for lost data).
     * Idempotent.
     *
     * @throws IOException never in practice; declared for symmetry with {@link #close()}
     */
    public final void abandon() throws IOException {
        synchronized (lock) {
            rethrow(unmapAll(null));
        }
    }

    /**
     * Unmaps the index without trimming or syncing it and deletes the file. Idempotent.
     *
     * @throws IOException if the file cannot be deleted
     */
    public final void closeAndDelete() throws IOException {
        synchronized (lock) {
            Throwable failure = unmapAll(null);
            try {
                io.deleteIfExists(file);
            } catch (IOException | RuntimeException e) {
                failure = addFailure(failure, e);
            }
            rethrow(failure);
        }
    }

    /** Unmaps the mapping, explicitly: leaving it to the GC caused long pauses in Kafka (KAFKA-4614). */
    private Throwable unmapAll(final Throwable previous) {
        Throwable failure = previous;
        final SharedMapping current = mapping;
        if (current == null) {
            return failure;
        }
        // Unpublish first, so a reader that starts now fails cleanly instead of touching unmapped memory; then
        // wait for the readers already inside a lookup (a few binary-search steps, no locks, so they finish).
        // Kafka 4.4 guards the same race with a read-write lock around every lookup (KAFKA-19390); the mapping's
        // reader count keeps our lookups lock-free.
        mapping = null;
        try {
            current.retireAndAwait();
        } catch (final RuntimeException e) {
            failure = addFailure(failure, e);
        }
        return failure;
    }

    private static Throwable addFailure(final Throwable first, final Throwable next) {
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }

    private static void rethrow(final Throwable failure) throws IOException {
        if (failure instanceof IOException io) {
            throw io;
        }
        if (failure instanceof RuntimeException runtime) {
            throw runtime;
        }
        if (failure instanceof Error error) {
            throw error;
        }
    }

    /**
     * Kafka's sanity checks: a non-empty index's last offset is not below the base offset (and, for the time
     * index, its last timestamp is not below its first), and the file length is a whole number of entries.
     * An index that was not trimmed before a crash usually fails them (its tail reads as zero entries).
     *
     * @throws CorruptIndexException naming the file, the field and the value found
     * @throws IllegalStateException if the index is closed
     */
    public final void sanityCheck() {
        final SharedMapping read = beginRead();
        final UnsafeBuffer current = read.view();
        try {
            final int published = entries(current);
            if (published != 0) {
                checkEntries(current, published);
                final long lastOffset = offsetAt(current, published - 1);
                if (lastOffset < baseOffset) {
                    throw new CorruptIndexException(file, "lastOffset", lastOffset, ">= baseOffset " + baseOffset
                        + " (" + kind() + " with " + published + " entries)");
                }
            }
            if (lengthBytes % entrySize != 0) {
                throw new CorruptIndexException(file, "lengthBytes", lengthBytes, "a multiple of the entry size "
                    + entrySize);
            }
        } finally {
            read.release();
        }
    }
}
