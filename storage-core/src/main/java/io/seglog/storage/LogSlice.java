package io.seglog.storage;

import io.seglog.storage.segment.LogSegment;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;

/**
 * The answer to a read, as a value: a byte range {@code [position, position + sizeInBytes)} of one segment file
 * holding whole v2 record batches, exactly as they sit on disk (and on the wire). The first batch is the one that
 * contains the requested offset, so it may start before it; the caller skips the records below the offset it
 * asked for, as Kafka's consumers do. {@link PartitionLog#read} returns one; a {@link LogReader} answers the same
 * fields without allocating and makes one with {@link LogReader#slice()}.
 *
 * <p>Unlike Kafka's {@code FileRecords} slice, a slice always ends on a batch boundary: when {@code maxBytes}
 * cuts the range, the batches that do not fit whole are left out (Kafka sends a partial tail that clients
 * drop). An empty slice ({@link #sizeInBytes()} 0) means no batch below the upper bound starts at or after
 * the offset, or the first batch is larger than {@code maxBytes} and {@code minOneBatch} was false.
 *
 * <p>The bytes of a slice are immutable for as long as the segment exists: the log only appends after them.
 * Deleting a segment (retention) renames it first and unlinks it later, so a slice stays readable for the
 * file-delete delay. A truncation can remove them (a follower truncates only above what its leader committed, and
 * consumers read below the high watermark, so no bounded reader is given such bytes); a transfer then fails with
 * an {@link IOException} rather than sending other bytes.
 *
 * <p>Immutable and thread-safe; the channel is shared with the log and read only with positional calls.
 */
public final class LogSlice {
    private final LogSegment segment;
    private final int position;
    private final int sizeInBytes;
    private final long requestedOffset;
    private final long firstOffset;

    LogSlice(final LogSegment segment, final int position, final int sizeInBytes, final long requestedOffset,
             final long firstOffset) {
        this.segment = segment;
        this.position = position;
        this.sizeInBytes = sizeInBytes;
        this.requestedOffset = requestedOffset;
        this.firstOffset = firstOffset;
    }

    /**
     * The segment file's channel, shared with the log; do not close it, and read it only with positional
     * reads ({@link FileChannel#read(ByteBuffer, long)}) or {@link FileChannel#transferTo}.
     *
     * @return the channel, or {@code null} for an empty slice
     */
    public FileChannel channel() {
        return segment == null ? null : segment.channel();
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
        return segment == null ? -1 : segment.baseOffset();
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
     * @throws StorageException if the log was closed since the read
     */
    public long transferTo(final WritableByteChannel target) throws IOException {
        return transfer(segment, channel(), position, sizeInBytes, target, 0, sizeInBytes);
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
     * @throws StorageException if the log was closed since the read
     */
    public long transferTo(final WritableByteChannel target, final int offsetBytes, final int countBytes)
        throws IOException {
        return transfer(segment, channel(), position, sizeInBytes, target, offsetBytes, countBytes);
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
     * @throws StorageException if the log was closed since the read
     */
    public void readInto(final ByteBuffer target) throws IOException {
        copy(segment, position, sizeInBytes, target);
    }

    /** The transfer shared by slices and readers. */
    static long transfer(final LogSegment segment, final FileChannel channel, final int position,
                         final int sizeInBytes, final WritableByteChannel target, final int offsetBytes,
                         final int countBytes) throws IOException {
        if (offsetBytes < 0 || countBytes < 0 || offsetBytes + (long) countBytes > sizeInBytes) {
            throw new IllegalArgumentException("offsetBytes=" + offsetBytes + " countBytes=" + countBytes
                + " is outside the slice of sizeInBytes=" + sizeInBytes);
        }
        long done = 0;
        try {
            while (done < countBytes) {
                final long n = channel.transferTo(position + offsetBytes + done, countBytes - done, target);
                if (n <= 0) {
                    // FileChannel.transferTo answers 0 both for a full non-blocking target and for a position at
                    // or past the end of the file; only the first is a legitimate short count.
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
        } catch (final ClosedChannelException e) {
            throw closedSince(segment, e);
        }
        return done;
    }

    /** The copy shared by slices and readers. */
    static void copy(final LogSegment segment, final int position, final int sizeInBytes, final ByteBuffer target)
        throws IOException {
        if (target.remaining() < sizeInBytes) {
            throw new IllegalArgumentException("target.remaining=" + target.remaining() + " < sizeInBytes="
                + sizeInBytes);
        }
        if (sizeInBytes == 0 || (!target.isReadOnly() && segment.reader().copyMapped(position, target, sizeInBytes))) {
            return;
        }
        final FileChannel channel = segment.channel();
        int done = 0;
        try {
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
                    throw new IOException("segment file ended at position=" + (position + done) + " inside a slice "
                        + "of " + sizeInBytes + " bytes at position=" + position);
                }
                done += n;
            }
        } catch (final ClosedChannelException e) {
            throw closedSince(segment, e);
        }
    }

    private static StorageException closedSince(final LogSegment segment, final ClosedChannelException e) {
        return new StorageException("the slice's segment was closed (its log closed, or retention unlinked it) since "
            + "the read; read again", segment.logFile(), e);
    }

    @Override
    public String toString() {
        return "LogSlice{segmentBaseOffset=" + segmentBaseOffset() + ", position=" + position + ", sizeInBytes="
            + sizeInBytes + ", requestedOffset=" + requestedOffset + ", firstOffset=" + firstOffset + "}";
    }
}
