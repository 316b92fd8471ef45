package io.seglog.storage.segment;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
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
 * a crash those zeros are a torn tail, which recovery truncates. {@code fsync} on the channel also writes the
 * pages dirtied through the mapping (one page cache), so flushing is unchanged.
 *
 * <p>The mapping is released (unmapped) before the file is truncated: a mapped page past the end of a file
 * raises SIGBUS when touched. Only the writer touches this mapping, so it can be unmapped at any time.
 *
 * <p>Not thread-safe: the segment's writer only.
 */
final class MappedTail {
    /** Window size: each remap is one mmap/munmap pair, a few microseconds, amortised over 4 MiB of appends. */
    static final int WINDOW_BYTES = 4 << 20;
    private static final long PAGE_MASK = ~4095L;

    private final FileChannel channel;
    private final UnsafeBuffer view = new UnsafeBuffer(0, 0);
    private MappedByteBuffer window;
    private long windowStart;
    private long windowEnd;

    MappedTail(final FileChannel channel) {
        this.channel = channel;
    }

    /**
     * Copies {@code source[offset, offset + length)} to the data file at {@code filePosition}, remapping the window
     * when the range lies outside it.
     *
     * @param source       the bytes
     * @param offset       index of the first byte in {@code source}
     * @param length       number of bytes
     * @param filePosition where they go in the file
     * @throws IOException if the window cannot be mapped
     */
    void write(final DirectBuffer source, final int offset, final int length, final long filePosition)
        throws IOException {
        if (window == null || filePosition < windowStart || filePosition + length > windowEnd) {
            remap(filePosition, length);
        }
        view.putBytes((int) (filePosition - windowStart), source, offset, length);
    }

    private void remap(final long filePosition, final int length) throws IOException {
        release();
        final long start = filePosition & PAGE_MASK;
        final long size = Math.max(WINDOW_BYTES, filePosition + length - start);
        window = channel.map(FileChannel.MapMode.READ_WRITE, start, size);
        view.wrap(window);
        windowStart = start;
        windowEnd = start + size;
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
     * Unmaps the window, if any; the next {@link #write} maps a new one. Idempotent.
     */
    void release() {
        if (window != null) {
            final MappedByteBuffer mapped = window;
            window = null;
            view.wrap(0, 0);
            IoUtil.unmap(mapped);
        }
    }
}
