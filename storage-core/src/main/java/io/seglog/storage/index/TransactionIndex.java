package io.seglog.storage.index;

import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.EnumSet;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One segment's aborted-transaction index, {@code <base offset>.txnindex}, in Kafka's format ({@code TransactionIndex},
 * {@code AbortedTxn}): one 34-byte big-endian entry per transaction aborted in the segment, in the order the aborts
 * were written (their markers' offsets increasing):
 *
 * <pre>
 *   int16 version (0) | int64 producerId | int64 firstOffset | int64 lastOffset (the ABORT marker's) | int64 lastStableOffset
 * </pre>
 *
 * {@code lastStableOffset} is the partition's last stable offset once the abort completed: a reader that has passed it
 * needs no older segment's index. Like Kafka's, the file is created by the first append only (a segment with no abort
 * has none), is not memory-mapped, and a trailing partial entry (a crash mid-write) is ignored by readers and cut by
 * {@link #truncateTo} or recovery's rebuild.
 *
 * <p>Reads ({@link #collect}) allocate nothing: the caller gives a scratch buffer and a sink. Threads: one writer (the
 * log's, under its append lock); readers at any time, each with its own scratch buffer, see whole entries only (the
 * size they read up to is published after each entry is written).
 */
public final class TransactionIndex implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TransactionIndex.class);
    /** The file suffix. */
    public static final String SUFFIX = ".txnindex";
    /** The entry format's version. */
    public static final short VERSION = 0;
    /** Bytes of one entry. */
    public static final int ENTRY_LENGTH = 2 + 8 + 8 + 8 + 8;
    private static final int PRODUCER_ID_OFFSET = 2;
    private static final int FIRST_OFFSET_OFFSET = 10;
    private static final int LAST_OFFSET_OFFSET = 18;
    private static final int LAST_STABLE_OFFSET_OFFSET = 26;
    private static final Set<StandardOpenOption> READ_WRITE = EnumSet.of(StandardOpenOption.READ,
        StandardOpenOption.WRITE);
    private static final Set<StandardOpenOption> CREATE = EnumSet.of(StandardOpenOption.READ,
        StandardOpenOption.WRITE, StandardOpenOption.CREATE);

    /** Told each aborted transaction a read overlaps. */
    @FunctionalInterface
    public interface AbortedSink {
        /**
         * @param producerId  the transaction's producer
         * @param firstOffset its first offset
         */
        void aborted(long producerId, long firstOffset);
    }

    /** Told each entry of the index ({@link #forEachEntry}). */
    @FunctionalInterface
    public interface EntrySink {
        /**
         * @param producerId       the producer
         * @param firstOffset      the transaction's first offset
         * @param lastOffset       its ABORT marker's offset
         * @param lastStableOffset the partition's last stable offset once it was aborted
         * @throws IOException when the sink's own write fails
         */
        void entry(long producerId, long firstOffset, long lastOffset, long lastStableOffset) throws IOException;
    }

    private final FileIO io;
    private final long startOffset;
    private final boolean readOnly;
    private volatile Path file;
    /** Null until the first entry exists (the file is created then). */
    private volatile FileChannel channel;
    /** Bytes of whole entries written: what readers read up to. */
    private volatile long size;
    /** The last entry's last offset, or -1. */
    private long lastOffset = -1;
    /** The file was created since the last flush: its directory entry is not durable yet. */
    private volatile boolean created;
    /** Set when the open found the file corrupt and discarded it: its entries must be rebuilt. */
    private boolean discardedOnOpen;
    private final ByteBuffer entry = ByteBuffer.allocate(ENTRY_LENGTH).order(ByteOrder.BIG_ENDIAN);

    private TransactionIndex(final FileIO io, final Path file, final long startOffset, final boolean readOnly) {
        this.io = io;
        this.file = file;
        this.startOffset = startOffset;
        this.readOnly = readOnly;
    }

    /**
     * Opens a segment's index; the file need not exist.
     *
     * @param io          the file layer
     * @param file        {@code <base offset>.txnindex}
     * @param startOffset the segment's base offset
     * @return the index
     * @throws IOException          when the file exists and cannot be opened or read
     * @throws CorruptIndexException when an entry has another version or ends before the segment starts
     */
    public static TransactionIndex open(final FileIO io, final Path file, final long startOffset) throws IOException {
        return open(io, file, startOffset, false);
    }

    private static TransactionIndex open(final FileIO io, final Path file, final long startOffset,
                                         final boolean readOnly) throws IOException {
        final TransactionIndex index = new TransactionIndex(io, file, startOffset, readOnly);
        if (Files.exists(file)) {
            index.channel = io.open(file, readOnly ? EnumSet.of(StandardOpenOption.READ) : READ_WRITE);
            try {
                final long length = index.channel.size();
                index.size = length - length % ENTRY_LENGTH;
                index.sanityCheck();
            } catch (final IOException | RuntimeException e) {
                index.closeAfter(e);
                throw e;
            }
        }
        return index;
    }

    /**
     * Opens a segment's index, discarding a file that fails its checks (Kafka rebuilds such a segment's indexes):
     * the index comes back empty with {@link #discardedOnOpen()} set, so that the log rebuilds its entries from the
     * segment's batches, and the damaged file is deleted unless {@code readOnly}.
     *
     * @param io          the file layer
     * @param file        {@code <base offset>.txnindex}
     * @param startOffset the segment's base offset
     * @param readOnly    open the file for reading only, and never write or delete it
     * @return the index
     * @throws IOException when the file exists and cannot be opened, read or deleted
     */
    public static TransactionIndex openOrDiscard(final FileIO io, final Path file, final long startOffset,
                                                 final boolean readOnly) throws IOException {
        try {
            return open(io, file, startOffset, readOnly);
        } catch (final CorruptIndexException corrupt) {
            // The file stays until its rebuild replaces it whole ({@link #replaceWith}): a stop before then finds it
            // corrupt again, never missing (which would read as "no abort here").
            LOG.warn("The aborted-transaction index {} is corrupt ({}); {}", file, corrupt.getMessage(),
                readOnly ? "a read-only log cannot rebuild it, so read_committed reads of its segment are refused"
                    : "its entries are rebuilt from the log");
            final TransactionIndex empty = new TransactionIndex(io, file, startOffset, readOnly);
            empty.discardedOnOpen = true;
            return empty;
        }
    }

    /**
     * Whether {@link #openOrDiscard} found the file corrupt and discarded it, and no {@link #replaceWith} has rebuilt it
     * since; appends are refused meanwhile.
     *
     * @return true when this segment's aborted transactions must be indexed again
     */
    public boolean discardedOnOpen() {
        return discardedOnOpen;
    }

    /**
     * Replaces the whole file with these entries, atomically: a temporary file written and synced, renamed over the
     * file, the directory synced (a rebuild of a discarded index: the corrupt file stays until the new one is whole).
     * No entries: the file is deleted.
     *
     * @param entries {producerId, firstOffset, lastOffset, lastStableOffset} per entry, in marker order
     * @param count   how many entries
     * @throws IOException when a write, rename or sync fails
     */
    public void replaceWith(final long[] entries, final int count) throws IOException {
        if (readOnly) {
            throw new IllegalStateException(file + " is open read-only");
        }
        close();
        size = 0;
        lastOffset = -1;
        final Path dir = file.getParent();
        if (count == 0) {
            io.deleteIfExists(file);
        } else {
            final Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            io.deleteIfExists(tmp);
            final ByteBuffer out = ByteBuffer.allocate(count * ENTRY_LENGTH).order(ByteOrder.BIG_ENDIAN);
            for (int i = 0; i < count; i++) {
                out.putShort(VERSION).putLong(entries[4 * i]).putLong(entries[4 * i + 1]).putLong(entries[4 * i + 2])
                    .putLong(entries[4 * i + 3]);
            }
            out.flip();
            try (FileChannel ch = io.open(tmp, EnumSet.of(StandardOpenOption.WRITE, StandardOpenOption.CREATE_NEW))) {
                for (long position = 0; out.hasRemaining(); ) {
                    position += ch.write(out, position);
                }
                ch.force(true);
            }
            io.atomicMove(tmp, file);
            channel = io.open(file, READ_WRITE);
            lastOffset = entries[4 * (count - 1) + 2];
            size = (long) count * ENTRY_LENGTH;
        }
        io.fsyncDirectory(dir);
        created = false;
        discardedOnOpen = false;
    }

    /**
     * Appends the entry of an aborted transaction.
     *
     * @param producerId       the producer
     * @param firstOffset      the transaction's first offset
     * @param lastOffset       its ABORT marker's offset
     * @param lastStableOffset the partition's last stable offset once it was aborted
     * @throws IOException              when the write fails
     * @throws IllegalArgumentException when {@code lastOffset} is not above the last entry's (Kafka's rule)
     */
    public void append(final long producerId, final long firstOffset, final long lastOffset,
                       final long lastStableOffset) throws IOException {
        if (lastOffset <= this.lastOffset) {
            throw new IllegalArgumentException("the last offset of appended transactions must increase: " + lastOffset
                + " is not above " + this.lastOffset + " in " + file);
        }
        if (readOnly || discardedOnOpen) {
            throw new IllegalStateException(file + (readOnly ? " is open read-only" : " is corrupt and not rebuilt"));
        }
        if (channel == null) {
            created = true; // before the channel: a flush that sees the channel sees this
            channel = io.open(file, CREATE);
        }
        entry.clear();
        entry.putShort(VERSION).putLong(producerId).putLong(firstOffset).putLong(lastOffset).putLong(lastStableOffset)
            .flip();
        long position = size;
        while (entry.hasRemaining()) {
            position += channel.write(entry, position);
        }
        this.lastOffset = lastOffset;
        size = position;
    }

    /**
     * Tells the sink each aborted transaction that overlaps {@code [fetchOffset, upperBoundOffset)} (its marker at or
     * after {@code fetchOffset}, its first offset before {@code upperBoundOffset}), in index order.
     *
     * @param fetchOffset      the read's first offset
     * @param upperBoundOffset the read's end (exclusive)
     * @param scratch          the caller's buffer, at least {@link #ENTRY_LENGTH} bytes, big-endian
     * @param sink             told each one
     * @return whether the search is complete: an entry's last stable offset reached {@code upperBoundOffset}, so no
     *     later segment's index holds another (Kafka's {@code TxnIndexSearchResult.isComplete})
     * @throws IOException when the file cannot be read
     */
    public boolean collect(final long fetchOffset, final long upperBoundOffset, final ByteBuffer scratch,
                           final AbortedSink sink) throws IOException {
        final FileChannel ch = channel;
        if (ch == null) {
            return false;
        }
        final long end = size;
        final int perRead = scratch.capacity() / ENTRY_LENGTH * ENTRY_LENGTH;
        for (long position = 0; position < end; ) {
            scratch.clear().limit((int) Math.min(perRead, end - position));
            if (!readUpTo(ch, scratch, position)) {
                // A truncation cut the file since the size was read: the entries it removed have markers at or
                // above the cut, past any bounded read's end.
                return false;
            }
            final int read = scratch.position();
            for (int p = 0; p < read; p += ENTRY_LENGTH) {
                final long first = scratch.getLong(p + FIRST_OFFSET_OFFSET);
                final long last = scratch.getLong(p + LAST_OFFSET_OFFSET);
                if (last >= fetchOffset && first < upperBoundOffset) {
                    sink.aborted(scratch.getLong(p + PRODUCER_ID_OFFSET), first);
                }
                if (scratch.getLong(p + LAST_STABLE_OFFSET_OFFSET) >= upperBoundOffset) {
                    return true;
                }
            }
            position += read;
        }
        return false;
    }

    /**
     * Tells the sink every entry, in index order (the cleaner's pass over a segment; it allocates a buffer).
     *
     * @param sink told each entry
     * @throws IOException when the file cannot be read, or the sink fails
     */
    public void forEachEntry(final EntrySink sink) throws IOException {
        final FileChannel ch = channel;
        if (ch == null) {
            return;
        }
        final ByteBuffer one = ByteBuffer.allocate(ENTRY_LENGTH).order(ByteOrder.BIG_ENDIAN);
        for (long position = 0, end = size; position < end; position += ENTRY_LENGTH) {
            one.clear();
            readFully(ch, one, position);
            sink.entry(one.getLong(PRODUCER_ID_OFFSET), one.getLong(FIRST_OFFSET_OFFSET),
                one.getLong(LAST_OFFSET_OFFSET), one.getLong(LAST_STABLE_OFFSET_OFFSET));
        }
    }

    /**
     * Removes the entries whose marker is at or after {@code offset} (a truncation of the log to it).
     *
     * @param offset the new log end
     * @throws IOException when the file cannot be read or cut
     */
    public void truncateTo(final long offset) throws IOException {
        final FileChannel ch = channel;
        if (ch == null || readOnly || discardedOnOpen) {
            return;
        }
        final ByteBuffer one = ByteBuffer.allocate(ENTRY_LENGTH).order(ByteOrder.BIG_ENDIAN);
        long keep = 0;
        long last = -1;
        for (long position = 0; position < size; position += ENTRY_LENGTH) {
            one.clear();
            readFully(ch, one, position);
            final long entryLast = one.getLong(LAST_OFFSET_OFFSET);
            if (entryLast >= offset) {
                break;
            }
            keep = position + ENTRY_LENGTH;
            last = entryLast;
        }
        size = keep;
        ch.truncate(keep);
        lastOffset = last;
    }

    /**
     * Empties the index (a segment truncated whole, or rebuilt by recovery).
     *
     * @throws IOException when the file cannot be cut
     */
    public void reset() throws IOException {
        if (channel != null && !readOnly) {
            size = 0;
            channel.truncate(0);
        }
        lastOffset = -1;
    }

    /**
     * Checks every entry: Kafka's version, and a marker not before the segment's start.
     *
     * @throws IOException          when the file cannot be read
     * @throws CorruptIndexException naming the file and the field
     */
    public void sanityCheck() throws IOException {
        final FileChannel ch = channel;
        if (ch == null) {
            return;
        }
        final ByteBuffer one = ByteBuffer.allocate(ENTRY_LENGTH).order(ByteOrder.BIG_ENDIAN);
        long last = -1;
        for (long position = 0; position < size; position += ENTRY_LENGTH) {
            one.clear();
            readFully(ch, one, position);
            final short version = one.getShort(0);
            if (version != VERSION) {
                throw new CorruptIndexException(file, "version at byte " + position, version, "0");
            }
            last = one.getLong(LAST_OFFSET_OFFSET);
            if (last < startOffset) {
                throw new CorruptIndexException(file, "lastOffset at byte " + position, last,
                    "at least the segment's base offset " + startOffset);
            }
        }
        lastOffset = last;
    }

    /**
     * Forces the entries to disk, and the directory entry of a file created since the last flush (the file appears
     * with a segment's first abort, after the segment's own directory entry was made durable).
     *
     * @throws IOException when an fsync fails
     */
    public void flush() throws IOException {
        final FileChannel ch = channel;
        if (ch != null && !readOnly) {
            ch.force(true);
            if (created) {
                io.fsyncDirectory(file.getParent());
                created = false;
            }
        }
    }

    /**
     * Renames the file (a segment's swap or deletion suffix); the open channel follows it.
     *
     * @param target the new name
     * @throws IOException when the move fails
     */
    public void renameTo(final Path target) throws IOException {
        if (channel != null || Files.exists(file)) {
            io.atomicMove(file, target);
        }
        file = target;
    }

    /**
     * Closes the file and deletes it.
     *
     * @return whether a file was deleted
     * @throws IOException when the delete fails
     */
    public boolean deleteIfExists() throws IOException {
        close();
        return io.deleteIfExists(file);
    }

    /** @return the file (it may not exist) */
    public Path file() {
        return file;
    }

    /** @return bytes of whole entries */
    public long sizeInBytes() {
        return size;
    }

    private void closeAfter(final Throwable primary) {
        try {
            close();
        } catch (final IOException | RuntimeException suppressed) {
            primary.addSuppressed(suppressed);
        }
    }

    @Override
    public void close() throws IOException {
        final FileChannel ch = channel;
        channel = null;
        if (ch != null) {
            ch.close();
        }
    }

    /** Fills {@code into} from {@code position}; false when the file ends first. */
    private static boolean readUpTo(final FileChannel ch, final ByteBuffer into, final long position)
        throws IOException {
        long at = position;
        while (into.hasRemaining()) {
            final int n = ch.read(into, at);
            if (n < 0) {
                return false;
            }
            at += n;
        }
        return true;
    }

    private void readFully(final FileChannel ch, final ByteBuffer into, final long position) throws IOException {
        long at = position;
        while (into.hasRemaining()) {
            final int n = ch.read(into, at);
            if (n < 0) {
                throw new CorruptIndexException(file, "size", at, "whole entries up to " + size);
            }
            at += n;
        }
    }
}
