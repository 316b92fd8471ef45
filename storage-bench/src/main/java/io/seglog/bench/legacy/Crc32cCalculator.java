package io.seglog.bench.legacy;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;
import org.agrona.DirectBuffer;

/**
 * CRC-32C (Castagnoli) over a range of any Agrona buffer without allocating per call.
 *
 * <p>{@link CRC32C} is a JIT intrinsic for arrays and direct {@link ByteBuffer}s, so the range is handed to it
 * in one of those forms: the backing array of a heap buffer, or a reusable duplicate of the backing direct
 * {@code ByteBuffer} (created once per distinct backing buffer, then only its position and limit move). A
 * buffer wrapping a raw address has neither, so its bytes are copied through a reusable direct scratch buffer.
 *
 * <p>A calculator made with {@code borrowsSourceCursor} skips that duplicate: it moves the source's own position
 * and limit for the call and restores them (a mark on the source is discarded). That keeps an append path that
 * receives a different {@code ByteBuffer} on every call from allocating a duplicate each time; it is for
 * owners of the bytes only, since another thread using the same {@code ByteBuffer}'s cursor meanwhile would
 * see it move.
 *
 * <p>Not thread-safe: one instance per thread (each flyweight and validator owns one).
 */
final class Crc32cCalculator {
    // Large enough that the per-chunk call overhead is noise next to the checksum itself.
    private static final int SCRATCH_BYTES = 16 * 1024;

    private final CRC32C crc = new CRC32C();
    private final boolean borrowsSourceCursor;
    private ByteBuffer viewSource;
    private ByteBuffer view;
    private ByteBuffer scratch;

    /**
     * Creates a calculator that reads a direct {@code ByteBuffer} through a cached duplicate.
     */
    Crc32cCalculator() {
        this(false);
    }

    /**
     * Creates a calculator.
     *
     * @param borrowsSourceCursor whether it may move (and restore) the position and limit of the buffer's own
     *                            {@code ByteBuffer} instead of allocating a duplicate for each new one.
     */
    Crc32cCalculator(final boolean borrowsSourceCursor) {
        this.borrowsSourceCursor = borrowsSourceCursor;
    }

    /**
     * Computes the CRC-32C of {@code buffer[index, index + length)}.
     *
     * @param buffer the bytes.
     * @param index  first byte.
     * @param length number of bytes.
     * @return the CRC as an unsigned 32-bit value.
     * @throws IndexOutOfBoundsException when the range lies outside the buffer.
     */
    long compute(final DirectBuffer buffer, final int index, final int length) {
        // Checked here, not left to Agrona, whose bounds checks can be switched off: with a raw address a bad
        // length would otherwise read outside the mapping.
        if (index < 0 || length < 0 || (long) index + length > buffer.capacity()) {
            throw new IndexOutOfBoundsException("CRC range index=" + index + " length=" + length
                + " outside buffer capacity=" + buffer.capacity());
        }
        crc.reset();
        final byte[] array = buffer.byteArray();
        if (array != null) {
            crc.update(array, buffer.wrapAdjustment() + index, length);
            return crc.getValue();
        }
        final ByteBuffer source = buffer.byteBuffer();
        if (source != null && source != viewSource && borrowsSourceCursor) {
            final int start = buffer.wrapAdjustment() + index;
            final int savedPosition = source.position();
            final int savedLimit = source.limit();
            try {
                source.limit(start + length).position(start);
                crc.update(source);
            } finally {
                source.limit(savedLimit).position(savedPosition);
            }
            return crc.getValue();
        }
        if (source != null) {
            if (source != viewSource) {
                view = source.duplicate();
                viewSource = source;
            }
            final int start = buffer.wrapAdjustment() + index;
            view.limit(start + length).position(start);
            crc.update(view);
            return crc.getValue();
        }
        if (scratch == null) {
            scratch = ByteBuffer.allocateDirect(SCRATCH_BYTES);
        }
        int done = 0;
        while (done < length) {
            final int chunk = Math.min(SCRATCH_BYTES, length - done);
            buffer.getBytes(index + done, scratch, 0, chunk);
            scratch.limit(chunk).position(0);
            crc.update(scratch);
            done += chunk;
        }
        return crc.getValue();
    }
}
