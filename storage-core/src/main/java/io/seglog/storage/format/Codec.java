package io.seglog.storage.format;

import java.nio.ByteBuffer;

/**
 * One compression codec in Kafka's framing, with its reusable state (inflater, native contexts). Not
 * thread-safe: each owner holds its own (see {@link Codecs}).
 */
abstract class Codec implements AutoCloseable {
    /**
     * Decompresses {@code [position, limit)} of {@code source} into {@code out}, after its position. The source's
     * position and limit may move; the caller owns it.
     *
     * @param source the compressed bytes, a direct buffer
     * @param out    where the decompressed bytes go
     * @throws CodecException if the bytes are damaged, cut short, not in the framing, or expand past the limit
     */
    public abstract void decompress(ByteBuffer source, DecompressionBuffer out) throws CodecException;

    /**
     * Compresses {@code [position, limit)} of {@code source} into {@code target} from its position, and moves the
     * target's position past what was written.
     *
     * @param source the bytes to compress, a direct buffer; its position and limit may move
     * @param target a direct buffer with at least {@link #maxCompressedBytes} room
     */
    public abstract void compress(ByteBuffer source, ByteBuffer target);

    /**
     * The most bytes {@link #compress} writes for an input of {@code sourceBytes}.
     *
     * @param sourceBytes the input size
     * @return the bound
     */
    public abstract int maxCompressedBytes(int sourceBytes);

    /** Releases native state; idempotent. */
    @Override
    public void close() {
    }
}
