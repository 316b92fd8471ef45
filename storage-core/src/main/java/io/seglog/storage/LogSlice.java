package io.seglog.storage;

import io.seglog.storage.segment.LogSegment;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;

/**
 * The answer to a {@link PartitionLog#read read}: a byte range {@code [position, position + sizeInBytes)} of
 * one segment file holding whole v2 record batches, exactly as they sit on disk (and on the wire). The first
 * batch is the one that contains the requested offset, so it may start before it; the caller skips the
 * records below the offset it asked for, as Kafka's consumers do.
 *
 * <p>Unlike Kafka's {@code FileRecords} slice, a slice always ends on a batch boundary: when {@code maxBytes}
 * cuts the range, the batches that do not fit whole are left out (Kafka sends a partial tail that clients
 * drop). An empty slice ({@link #sizeInBytes()} 0) means no batch below the upper bound starts at or after
 * the offset, or the first batch is larger than {@code maxBytes} and {@code minOneBatch} was false.
 *
 * <p>The bytes of a slice are immutable for as long as the segment exists: the log only appends after them.
 * Deleting a segment (retention, issue 3) renames it first and unlinks it later, so a slice stays readable
 * for the file-delete delay.
 *
 * <p>A slice can be reused across reads ({@link PartitionLog#read(long, int, long, boolean, LogSlice)}),
 * which makes the read path allocation-free. Not thread-safe: one reader per slice object.
 */
public final class LogSlice {
    /** Header bytes a reader fetches to step over one batch: up to and including {@code lastOffsetDelta}. */
    static final int SCRATCH_BYTES = 64;

    /** Scratch space for the batch headers the read path scans; owned by this slice, so reuse allocates nothing. */
    final ByteBuffer scratch = ByteBuffer.allocate(SCRATCH_BYTES);

    /** Chunk size of a timestamp search's record reads: a few typical batches, a bounded cost per search. */
    static final int SEARCH_SCRATCH_BYTES = 4096;

    /** The published end a read or timestamp search saw; owned by this slice, so taking it allocates nothing. */
    final ReadPath.EndSnapshot end = new ReadPath.EndSnapshot();
    /** Created by the first timestamp search through this slice; reused after. */
    private ByteBuffer searchScratch;

    private FileChannel channel;
    /** The segment, for copies through its read mapping ({@link #readInto}); null when empty. */
    private LogSegment segment;
    private int position;
    private int sizeInBytes;
    private long requestedOffset = -1;
    private long firstOffset = -1;
    private long segmentBaseOffset = -1;

    /**
     * Creates an empty slice, to be filled by {@link PartitionLog#read(long, int, long, boolean, LogSlice)}.
     */
    public LogSlice() {
    }

    void set(final LogSegment segment, final int position, final int sizeInBytes, final long requestedOffset,
             final long firstOffset) {
        this.segment = segment;
        this.channel = segment == null ? null : segment.channel();
        this.segmentBaseOffset = segment == null ? -1 : segment.baseOffset();
        this.position = position;
        this.sizeInBytes = sizeInBytes;
        this.requestedOffset = requestedOffset;
        this.firstOffset = firstOffset;
    }

    ByteBuffer searchScratch() {
        if (searchScratch == null) {
            searchScratch = ByteBuffer.allocate(SEARCH_SCRATCH_BYTES);
        }
        return searchScratch;
    }

    void setEmpty(final long requestedOffset) {
        set(null, 0, 0, requestedOffset, -1);
    }

    /**
     * The segment file's channel, shared with the log; do not close it, and read it only with positional
     * reads ({@link FileChannel#read(ByteBuffer, long)}) or {@link FileChannel#transferTo}.
     *
     * @return the channel, or {@code null} for an empty slice
     */
    public FileChannel channel() {
        return channel;
    }

    /**
     * The byte position of the first batch in the segment file.
     *
     * @return the file position
     */
    public int position() {
        return position;
    }

    /**
     * The length of the slice: whole batches only.
     *
     * @return bytes, 0 when empty
     */
    public int sizeInBytes() {
        return sizeInBytes;
    }

    /**
     * Whether the slice holds no batch.
     *
     * @return {@code sizeInBytes() == 0}
     */
    public boolean isEmpty() {
        return sizeInBytes == 0;
    }

    /**
     * The offset the read asked for.
     *
     * @return the requested start offset
     */
    public long requestedOffset() {
        return requestedOffset;
    }

    /**
     * The base offset of the first batch in the slice, which is at most the requested offset when the batch
     * contains it, or greater when the requested offset fell into a gap.
     *
     * @return the first batch's base offset, or -1 when empty
     */
    public long firstOffset() {
        return firstOffset;
    }

    /**
     * The base offset of the segment the slice lies in (its file is {@code <base, 20 digits>.log}).
     *
     * @return the segment's base offset, or -1 when empty
     */
    public long segmentBaseOffset() {
        return segmentBaseOffset;
    }

    /**
     * Sends the whole slice to {@code target} with {@link FileChannel#transferTo}, which is zero copy
     * ({@code sendfile}) when the target is a socket or a file. Returns a short count only when the target
     * accepts no more bytes (a non-blocking channel whose buffer is full): the caller continues later with
     * {@link #transferTo(WritableByteChannel, int, int)}. A short file (a truncation removed the slice's bytes)
     * is an {@link IOException}, never a silent short count.
     *
     * @param target the channel to write to
     * @return the number of bytes transferred
     * @throws IOException if the transfer fails, or the segment file ends inside the slice
     */
    public long transferTo(final WritableByteChannel target) throws IOException {
        return transferTo(target, 0, sizeInBytes);
    }

    /**
     * Sends part of the slice with {@link FileChannel#transferTo}; a caller that was cut short by a
     * non-blocking target continues from where it stopped.
     *
     * @param target      the channel to write to
     * @param offsetBytes where to start, relative to the slice
     * @param countBytes  how many bytes to send at most
     * @return the number of bytes transferred; fewer than {@code countBytes} only when the target accepted no more
     * @throws IOException if the transfer fails, or the segment file ends inside the slice
     * @throws IllegalArgumentException if the range is not inside the slice
     */
    public long transferTo(final WritableByteChannel target, final int offsetBytes, final int countBytes)
        throws IOException {
        if (offsetBytes < 0 || countBytes < 0 || offsetBytes + (long) countBytes > sizeInBytes) {
            throw new IllegalArgumentException("offsetBytes=" + offsetBytes + " countBytes=" + countBytes
                + " is outside the slice of sizeInBytes=" + sizeInBytes);
        }
        long done = 0;
        while (done < countBytes) {
            final long n = channel.transferTo(position + offsetBytes + done, countBytes - done, target);
            if (n <= 0) {
                // FileChannel.transferTo answers 0 both for a full non-blocking target and for a position at or
                // past the end of the file; only the first is a legitimate short count.
                final long at = position + offsetBytes + done;
                final long fileSize = channel.size();
                if (at >= fileSize) {
                    throw new IOException("segment file ended at size=" + fileSize + " inside a slice of "
                        + sizeInBytes + " bytes at position=" + position + " (a truncation removed them)");
                }
                break;
            }
            done += n;
        }
        return done;
    }

    /**
     * Copies the slice into {@code target} (for embedders that want the bytes in their own buffer; the zero-copy
     * path is {@link #transferTo(WritableByteChannel)}). The copy comes from the segment's read mapping when it
     * covers the slice ({@code seglog.read.mapped}), which spares the kernel-to-user copy of a {@code pread}, else
     * from positional reads.
     *
     * @param target the buffer to fill from its position; must have {@link #sizeInBytes()} bytes remaining
     * @throws IOException if the read fails or the file ends early
     * @throws IllegalArgumentException if the buffer is too small
     */
    public void readInto(final ByteBuffer target) throws IOException {
        if (target.remaining() < sizeInBytes) {
            throw new IllegalArgumentException("target.remaining=" + target.remaining() + " < sizeInBytes="
                + sizeInBytes);
        }
        if (sizeInBytes == 0 || (!target.isReadOnly() && segment.copyMapped(position, target, sizeInBytes))) {
            return;
        }
        int done = 0;
        while (done < sizeInBytes) {
            final int savedLimit = target.limit();
            target.limit(target.position() + sizeInBytes - done);
            final int n;
            try {
                n = channel.read(target, position + (long) done);
            } finally {
                target.limit(savedLimit);
            }
            if (n < 0) {
                throw new IOException("segment file ended at position=" + (position + done) + " inside a slice of "
                    + sizeInBytes + " bytes at position=" + position);
            }
            done += n;
        }
    }

    @Override
    public String toString() {
        return "LogSlice{segmentBaseOffset=" + segmentBaseOffset + ", position=" + position + ", sizeInBytes="
            + sizeInBytes + ", requestedOffset=" + requestedOffset + ", firstOffset=" + firstOffset + "}";
    }
}
