package io.seglog.storage.format;

import java.nio.ByteBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * A {@link RecordBatchBuilder}'s compression: the codecs (with their native state: zstd contexts, the deflater) at
 * the levels the builder was given, and the two reusable direct buffers the records go through (plain, then packed).
 *
 * <p>Owner of those, and their only writer; its builder is its only caller. Allocation-free once the codecs exist and
 * the buffers fit; buffers grown past {@link DecompressionBuffer#RETAINED_BYTES} for one large batch are not kept for
 * small ones. Not thread-safe: one per builder.
 */
final class BatchCompressor implements AutoCloseable {
    private Codecs codecs;
    private ByteBuffer plainRecords;
    private ByteBuffer packedRecords;

    /**
     * Compresses the plain records at {@code buffer[recordsStart, recordsStart + plainBytes)} in place.
     *
     * @param type          the codec
     * @param capacityBytes the most bytes the compressed records may take from {@code recordsStart}
     * @return the compressed records' length
     * @throws IllegalStateException when the compressed records do not fit {@code capacityBytes}; nothing is written
     */
    int compressInPlace(final CompressionType type, final MutableDirectBuffer buffer, final int recordsStart,
                        final int plainBytes, final int capacityBytes) {
        if (codecs == null) {
            codecs = new Codecs();
        }
        final Codec codec = codecs.codec(type);
        if (plainRecords == null || plainRecords.capacity() < plainBytes
            || plainRecords.capacity() > DecompressionBuffer.RETAINED_BYTES
            && plainBytes <= DecompressionBuffer.RETAINED_BYTES) {
            plainRecords = ByteBuffer.allocateDirect(plainBytes);
        }
        final int bound = codec.maxCompressedBytes(plainBytes);
        if (packedRecords == null || packedRecords.capacity() < bound
            || packedRecords.capacity() > DecompressionBuffer.RETAINED_BYTES
            && bound <= DecompressionBuffer.RETAINED_BYTES) {
            packedRecords = ByteBuffer.allocateDirect(bound);
        }
        final ByteBuffer plain = plainRecords.clear();
        buffer.getBytes(recordsStart, plain, 0, plainBytes);
        plain.limit(plainBytes).position(0);
        final ByteBuffer packed = packedRecords.clear();
        codec.compress(plain, packed);
        final int packedBytes = packed.position();
        if (packedBytes > capacityBytes) {
            throw new IllegalStateException("the " + type.kafkaName() + " records take " + packedBytes
                + " bytes, more than the " + capacityBytes + " the batch's capacity leaves (records of "
                + plainBytes + " bytes that do not compress)");
        }
        buffer.putBytes(recordsStart, packed, 0, packedBytes);
        return packedBytes;
    }

    /**
     * Replaces the codecs with ones at these levels (see {@link RecordBatchBuilder#compressionLevels}).
     *
     * @throws IllegalArgumentException naming the level out of its range; the codecs are then unchanged
     */
    void levels(final int gzipLevel, final int lz4Level, final int zstdLevel) {
        final Codecs replacement = new Codecs(gzipLevel, lz4Level, zstdLevel);
        close();
        codecs = replacement;
    }

    /** Releases the codecs' native state; idempotent. */
    @Override
    public void close() {
        if (codecs != null) {
            codecs.close();
            codecs = null;
        }
    }
}
