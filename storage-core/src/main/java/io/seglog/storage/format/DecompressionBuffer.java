package io.seglog.storage.format;

import java.nio.ByteBuffer;

/**
 * The output of a decompression: a direct buffer, reused across batches, that grows on demand (doubling) up to a
 * hard limit. A codec asks for room before it writes ({@link #ensureRoom}), so the memory taken never exceeds the
 * limit however far the input claims to expand (a decompression bomb is refused at the limit, not after).
 *
 * <p>Decompressed bytes are {@code [0, position)} of {@link #buffer()}. A buffer grown past 1 MiB is dropped at the
 * next {@link #reset()}. Not thread-safe.
 */
final class DecompressionBuffer {
    private static final int INITIAL_BYTES = 64 * 1024;
    /** The largest buffer kept from one decompression to the next: producer batches are far smaller. */
    static final int RETAINED_BYTES = 1 << 20;

    private final int limitBytes;
    private ByteBuffer buffer;

    /**
     * Creates an empty buffer; nothing is allocated until the first batch.
     *
     * @param limitBytes the most bytes one decompression may produce
     */
    public DecompressionBuffer(final int limitBytes) {
        if (limitBytes <= 0) {
            throw new IllegalArgumentException("limitBytes=" + limitBytes + " must be positive");
        }
        this.limitBytes = limitBytes;
    }

    /**
     * Starts a decompression: position 0, the limit at the capacity.
     *
     * @return the buffer to write into
     */
    public ByteBuffer reset() {
        if (buffer == null || buffer.capacity() > RETAINED_BYTES) {
            // A buffer grown past RETAINED_BYTES by one large (or refused) batch is dropped, so that an owner per
            // partition does not keep up to the limit of direct memory for an outlier.
            buffer = ByteBuffer.allocateDirect(Math.min(INITIAL_BYTES, limitBytes));
        }
        return buffer.clear();
    }

    /**
     * Makes room for {@code bytes} more bytes after the position, growing the buffer (the written bytes are kept)
     * when the decompression may still grow within the limit.
     *
     * @param bytes the room wanted
     * @return the buffer (a new one after growth), position unchanged, limit at its capacity
     * @throws CodecException if the room would take the output past the limit
     */
    public ByteBuffer ensureRoom(final int bytes) throws CodecException {
        final ByteBuffer current = buffer;
        if (current.capacity() - current.position() >= bytes) {
            return current.limit(current.capacity());
        }
        final long needed = (long) current.position() + bytes;
        if (needed > limitBytes) {
            throw new CodecException("decompressed size would pass the limit of " + limitBytes + " bytes ("
                + current.position() + " decompressed, " + bytes + " more wanted)", true, null);
        }
        final int grown = (int) Math.min(limitBytes, Math.max(needed, 2L * current.capacity()));
        final ByteBuffer bigger = ByteBuffer.allocateDirect(grown);
        bigger.put(current.flip());
        buffer = bigger;
        return bigger;
    }

    /**
     * Room left before the limit, from the position.
     *
     * @return bytes that may still be written
     */
    public int roomBeforeLimit() {
        return limitBytes - buffer.position();
    }

    /**
     * The buffer; decompressed bytes are {@code [0, position)}.
     *
     * @return the current buffer
     */
    public ByteBuffer buffer() {
        return buffer;
    }

    /**
     * The limit given at creation.
     *
     * @return the most bytes one decompression may produce
     */
    public int limitBytes() {
        return limitBytes;
    }
}
