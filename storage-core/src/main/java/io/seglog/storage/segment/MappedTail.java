package io.seglog.storage.segment;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A shared read-write mapping of a window at the end of a segment's data file, through which small appends are
 * copied instead of costing a {@code write} system call each (3-5 us on a VM, more than copying a few hundred
 * bytes). Readers keep reading through the {@code FileChannel}: a shared mapping and the channel see the same
 * page-cache pages, and a reader never looks past the segment's published size, which the writer raises only
 * after the copy.
 *
 * <p>Mapping a window past the end of the file makes the file that long: the bytes past the data are zeros
 * until the segment trims the file ({@link LogSegment#onBecomeInactive()}, {@link LogSegment#close()}). After
 * a crash those zeros are a torn tail, which recovery truncates. The window never reaches past
 * {@code maxFileBytes} (the segment size rounded up to a page), so a small segment does not grow a 4 MiB file.
 *
 * <p>Durability: on Linux, {@code fsync} on the channel ({@code FileChannel.force}) writes back every dirty page
 * of the file, including pages dirtied through a shared mapping (the kernel tracks them through write faults;
 * {@code msync} is {@code fsync} of the range there), so the segment's flush needs no
 * {@code MappedByteBuffer.force}, which would race with the writer's remap.
 *
 * <p>No SIGBUS: a page of a shared mapping that has no file block behind it raises SIGBUS when touched, which
 * HotSpot reports as an {@link InternalError} at some later point of the thread, not from the faulting copy, so
 * it cannot be caught where it happens. Two causes exist, and both are excluded. A page past the end of the file:
 * the window is released (unmapped) before the segment truncates the file, and only the segment's writer
 * truncates it. A hole that cannot get a block (disk full) or a failing read of it: the copy never touches a page
 * of the window past the data before it was filled with zeros by a {@code write} call ({@code fillAhead}, a
 * chunk ahead of the copies), so its blocks are reserved (or the {@code write} fails with an
 * {@link IOException}: the log goes offline). The fill also puts the pages in the page cache, which turns the
 * copies' page faults into one per 64 KiB (fault-around) instead of one per page. The copy still turns an
 * {@link InternalError} it sees into an {@link IOException} (the interpreter raises it synchronously).
 *
 * <p>Faults: the mapping and the zero fill go through the segment's channel, which the {@code FileIO} seam
 * supplies, so a fault-injecting file layer can fail either.
 *
 * <p>Not thread-safe: the segment's writer only.
 */
final class MappedTail {
    /** Window size: each remap is one mmap/munmap pair, a few microseconds, amortised over 4 MiB of appends. */
    static final int WINDOW_BYTES = 4 << 20;
    private static final long PAGE_BYTES = 4096;
    private static final long PAGE_MASK = ~(PAGE_BYTES - 1);
    /** Zero-fill chunk: the kernel's fault-around size; one write call per 64 KiB, a few percent of its copy. */
    private static final int FILL_CHUNK_BYTES = 64 << 10;

    private final FileChannel channel;
    private final long maxFileBytes;
    private final UnsafeBuffer view = new UnsafeBuffer(0, 0);
    private MappedByteBuffer window;
    private long windowStart;
    /** Bytes in the window; 0 while unmapped, so the one range check in {@link #write} also catches that. */
    private long windowBytes;
    /** Bytes below this file position are data or zero-filled; the copy never touches a page above it. */
    private long filledEnd;
    /** Zeros for the fill; allocated on the first remap, freed by {@link #release} (roll, close, truncation). */
    private ByteBuffer zeros;

    /**
     * @param channel      the data file, open for reading and writing
     * @param maxFileBytes the largest size the data file may reach (the segment size); windows stop at the page
     *                     that holds it unless a single write needs more
     */
    MappedTail(final FileChannel channel, final long maxFileBytes) {
        this.channel = channel;
        this.maxFileBytes = maxFileBytes;
    }

    /**
     * Copies {@code source[offset, offset + length)} to the data file at {@code filePosition}, remapping the window
     * when the range lies outside it.
     *
     * @param source       the bytes
     * @param offset       index of the first byte in {@code source}
     * @param length       number of bytes, more than 0
     * @param filePosition where they go in the file
     * @throws IOException if the window cannot be mapped, or the copy faulted (SIGBUS)
     */
    void write(final DirectBuffer source, final int offset, final int length, final long filePosition)
        throws IOException {
        final long at = filePosition - windowStart;
        if (at < 0 || at + length > windowBytes) {
            remap(filePosition, length);
        }
        final long end = filePosition + length;
        if (end > filledEnd) {
            fillAhead(filePosition, end);
        }
        try {
            view.putBytes((int) (filePosition - windowStart), source, offset, length);
        } catch (final InternalError e) {
            // HotSpot's answer to SIGBUS inside an Unsafe copy: the page had no backing (file cut, disk full).
            throw new IOException("copy of " + length + " bytes through the mapping at filePosition=" + filePosition
                + " faulted (SIGBUS: the mapped page has no file behind it)", e);
        }
    }

    private void remap(final long filePosition, final int length) throws IOException {
        unmapWindow();
        final long start = filePosition & PAGE_MASK;
        final long needed = filePosition + length - start;
        final long capped = Math.min(WINDOW_BYTES, ((maxFileBytes + PAGE_BYTES - 1) & PAGE_MASK) - start);
        final long size = Math.max(needed, capped);
        final MappedByteBuffer mapped = channel.map(FileChannel.MapMode.READ_WRITE, start, size);
        window = mapped;
        view.wrap(mapped);
        windowStart = start;
        windowBytes = size;
        // Nothing of the new window past the data is known to be filled (the map may have extended the file
        // sparsely, another writer may have extended it).
        filledEnd = filePosition;
    }

    /**
     * Fills the window with zeros from the data end to the next 64 KiB-aligned boundary at least
     * one chunk past {@code end}: the pages the copy touches next are in the page cache, block-reserved, and their
     * lines still in the CPU cache (a fill of the whole window at map time left them in memory, 4 MiB ago), and a
     * page fault maps the whole aligned chunk at once (the kernel's fault-around), not one page.
     */
    private void fillAhead(final long filePosition, final long end) throws IOException {
        final long from = Math.max(filledEnd, filePosition);
        final long target = ((end + FILL_CHUNK_BYTES - 1) & -(long) FILL_CHUNK_BYTES) + FILL_CHUNK_BYTES;
        final long to = Math.max(end, Math.min(windowStart + windowBytes, target));
        fillWithZeros(from, to);
        filledEnd = to;
    }

    /** Writes zeros over {@code [from, to)}, which lies past the data: blocks reserved, pages cached. */
    private void fillWithZeros(final long from, final long to) throws IOException {
        if (zeros == null) {
            zeros = ByteBuffer.allocateDirect(FILL_CHUNK_BYTES);
        }
        for (long at = from; at < to; ) {
            zeros.clear().limit((int) Math.min(FILL_CHUNK_BYTES, to - at));
            while (zeros.hasRemaining()) {
                at += channel.write(zeros, at);
            }
        }
    }

    /**
     * Whether a window is mapped (the file may then be longer than its data).
     *
     * @return true while mapped
     */
    boolean isMapped() {
        return window != null;
    }

    /**
     * Unmaps the window, if any, and frees the zero buffer; the next {@link #write} maps a new window. Idempotent.
     */
    void release() {
        unmapWindow();
        if (zeros != null) {
            final ByteBuffer buffer = zeros;
            zeros = null;
            BufferUtil.free(buffer);
        }
    }

    private void unmapWindow() {
        if (window != null) {
            final MappedByteBuffer mapped = window;
            window = null;
            windowStart = 0;
            windowBytes = 0;
            filledEnd = 0;
            view.wrap(0, 0);
            IoUtil.unmap(mapped);
        }
    }
}
