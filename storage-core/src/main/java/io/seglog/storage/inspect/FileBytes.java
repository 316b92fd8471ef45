package io.seglog.storage.inspect;

import io.seglog.storage.format.RecordBatchDescriptor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.zip.CRC32C;

/**
 * Positional reads of a file for the inspection tools, and a batch's CRC-32C computed in fixed-size chunks, so that
 * no length read from a file sizes an allocation. Not thread-safe: one per tool run.
 */
final class FileBytes {
    private static final int CHUNK = 64 * 1024;

    private final ByteBuffer chunk = ByteBuffer.allocate(CHUNK);
    private final CRC32C crc = new CRC32C();

    /**
     * The offset a segment, index or snapshot file is named after: the decimal digits before its first dot (Kafka writes
     * 20), or -1 when the name is not digits and a suffix or the number is too large.
     */
    static long offsetOf(final String name) {
        final int dot = name.indexOf('.');
        if (dot < 1) {
            return -1;
        }
        for (int i = 0; i < dot; i++) {
            if (name.charAt(i) < '0' || name.charAt(i) > '9') {
                return -1;
            }
        }
        try {
            return Long.parseLong(name, 0, dot, 10);
        } catch (final NumberFormatException tooLarge) {
            return -1;
        }
    }

    /** Fills the buffer from this position; an end of file first is an error naming the position. */
    static void readFully(final FileChannel channel, final ByteBuffer into, final long position) throws IOException {
        long at = position;
        while (into.hasRemaining()) {
            final int n = channel.read(into, at);
            if (n < 0) {
                throw new java.io.EOFException("end of file at position " + at);
            }
            at += n;
        }
    }

    /**
     * Whether every byte in [from, to) is zero: the preallocated space after the last batch of an active segment
     * (mapped appends, Kafka's {@code preallocate}), not damage.
     */
    boolean allZero(final FileChannel channel, final long from, final long to) throws IOException {
        for (long at = from; at < to; ) {
            chunk.clear();
            chunk.limit((int) Math.min(CHUNK, to - at));
            readFully(channel, chunk, at);
            for (int i = 0; i < chunk.limit(); i++) {
                if (chunk.get(i) != 0) {
                    return false;
                }
            }
            at += chunk.limit();
        }
        return true;
    }

    /** The CRC-32C of the bytes in [from, to). */
    long crc32c(final FileChannel channel, final long from, final long to) throws IOException {
        crc.reset();
        for (long at = from; at < to; ) {
            chunk.clear();
            chunk.limit((int) Math.min(CHUNK, to - at));
            readFully(channel, chunk, at);
            chunk.flip();
            crc.update(chunk);
            at += chunk.limit();
        }
        return crc.getValue();
    }

    /**
     * Whether a whole v2 batch with a matching CRC starts anywhere in [from, to): what tells corruption (valid data
     * after the bad bytes) from a tail still being written or torn (nothing valid after it). Magic byte and length
     * filter first; only candidates are CRC-checked.
     */
    boolean validBatchAfter(final FileChannel channel, final long from, final long to) throws IOException {
        final int header = RecordBatchDescriptor.BATCH_HEADER_LENGTH;
        final ByteBuffer window = ByteBuffer.allocate(CHUNK);
        final ByteBuffer head = ByteBuffer.allocate(header);
        // Windows overlap by a header, so a batch start near a window's end is seen whole in the next one.
        for (long windowStart = from; windowStart + header <= to; windowStart += CHUNK - header) {
            window.clear();
            window.limit((int) Math.min(CHUNK, to - windowStart));
            readFully(channel, window, windowStart);
            for (int i = 0; i + header <= window.limit(); i++) {
                if (window.get(i + RecordBatchDescriptor.MAGIC_OFFSET) != RecordBatchDescriptor.MAGIC_V2) {
                    continue;
                }
                final long at = windowStart + i;
                final int length = window.getInt(i + RecordBatchDescriptor.LENGTH_OFFSET);
                if (length < header - RecordBatchDescriptor.LOG_OVERHEAD
                    || length > to - at - RecordBatchDescriptor.LOG_OVERHEAD) {
                    continue;
                }
                head.clear();
                readFully(channel, head, at);
                final long stored = Integer.toUnsignedLong(head.getInt(RecordBatchDescriptor.CRC_OFFSET));
                if (stored == crc32c(channel, at + RecordBatchDescriptor.ATTRIBUTES_OFFSET,
                    at + RecordBatchDescriptor.LOG_OVERHEAD + length)) {
                    return true;
                }
            }
        }
        return false;
    }
}
