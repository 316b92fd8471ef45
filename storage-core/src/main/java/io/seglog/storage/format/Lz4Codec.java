package io.seglog.storage.format;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;
import net.jpountz.xxhash.XXHash32;
import net.jpountz.xxhash.XXHashFactory;

/**
 * lz4 in Kafka's LZ4 frame ({@code Lz4BlockOutputStream}/{@code Lz4BlockInputStream}), little-endian:
 * <pre>
 *   int32  magic 0x184D2204
 *   byte   FLG: version 01 (bits 7-6), block independence 1 (bit 5), block checksum (bit 4), content size (bit 3),
 *          content checksum (bit 2), reserved 00
 *   byte   BD: block maximum size (bits 6-4): 4 = 64 KiB .. 7 = 4 MiB; other bits 0
 *   (int64 content size, when FLG says so; skipped)
 *   byte   HC: (XXHash32 of FLG and BD, seed 0) >> 8 & 0xff. For magic v2 batches Kafka computes it over the
 *          descriptor only (the "broken" variant over magic too is for v0 message sets, which Seglog does not take)
 *   blocks: int32 size, high bit set when the block is stored uncompressed; the block; (int32 XXHash32 of the block
 *          when FLG says so)
 *   int32  0: the end mark; (int32 content checksum when FLG says so; not checked, as Kafka does not)
 * </pre>
 * Written as Kafka writes it: version 1, independent 64 KiB blocks, no checksums, no content size; a block that
 * does not shrink is stored. Level 9 (Kafka's default) uses lz4's fast compressor, others its high compressor.
 */
final class Lz4Codec extends Codec {
    private static final int MAGIC = 0x184D2204;
    private static final int INCOMPRESSIBLE = 0x80000000;
    private static final int BLOCK_SIZE_64KB = 4;
    private static final int MAX_BLOCK_BYTES_WRITTEN = 1 << (2 * BLOCK_SIZE_64KB + 8);
    /** Kafka's default lz4 level, for which it uses the fast compressor. */
    static final int DEFAULT_LEVEL = 9;

    private final LZ4SafeDecompressor decompressor;
    private final LZ4Compressor compressor;
    private final XXHash32 hash;

    Lz4Codec(final int level) {
        final LZ4Factory factory = LZ4Factory.fastestInstance();
        decompressor = factory.safeDecompressor();
        compressor = level == DEFAULT_LEVEL ? factory.fastCompressor() : factory.highCompressor(level);
        hash = XXHashFactory.fastestInstance().hash32();
    }

    @Override
    public void decompress(final ByteBuffer source, final DecompressionBuffer out) throws CodecException {
        source.order(ByteOrder.LITTLE_ENDIAN);
        final int end = source.limit();
        int p = source.position();
        if (end - p < 7) {
            throw new CodecException("lz4 frame header is cut short (" + (end - p) + " bytes)", false, null);
        }
        final int magic = source.getInt(p);
        if (magic != MAGIC) {
            throw new CodecException("lz4 magic=0x" + Integer.toHexString(magic) + " where 0x184d2204 is expected",
                false, null);
        }
        final int flg = source.get(p + 4) & 0xff;
        final int bd = source.get(p + 5) & 0xff;
        if ((flg >>> 6) != 1 || (flg & 0x20) == 0 || (flg & 0x03) != 0) {
            throw new CodecException("lz4 FLG=0x" + Integer.toHexString(flg) + ": version 1 with independent blocks"
                + " and reserved bits 0 expected", false, null);
        }
        final int blockSizeValue = (bd >>> 4) & 7;
        if ((bd & 0x8f) != 0 || blockSizeValue < 4) {
            throw new CodecException("lz4 BD=0x" + Integer.toHexString(bd) + ": block size 4-7 and reserved bits 0"
                + " expected", false, null);
        }
        final int maxBlockBytes = 1 << (2 * blockSizeValue + 8);
        final boolean blockChecksum = (flg & 0x10) != 0;
        final boolean contentChecksum = (flg & 0x04) != 0;
        final int descriptorBytes = (flg & 0x08) != 0 ? 10 : 2;
        if (end - p < 4 + descriptorBytes + 1) {
            throw new CodecException("lz4 frame descriptor is cut short", false, null);
        }
        final int expectedHc = (hash.hash(source, p + 4, descriptorBytes, 0) >> 8) & 0xff;
        final int hc = source.get(p + 4 + descriptorBytes) & 0xff;
        if (hc != expectedHc) {
            throw new CodecException("lz4 frame descriptor checksum=" + hc + " where " + expectedHc + " is expected",
                false, null);
        }
        p += 4 + descriptorBytes + 1;
        while (true) {
            if (end - p < 4) {
                throw new CodecException("lz4 block size is cut short at byte " + p, false, null);
            }
            final int word = source.getInt(p);
            p += 4;
            final int size = word & ~INCOMPRESSIBLE;
            if (size == 0) {
                if (contentChecksum && end - p < 4) {
                    throw new CodecException("lz4 content checksum is cut short", false, null);
                }
                return;
            }
            if (size > maxBlockBytes || size > end - p - (blockChecksum ? 4 : 0)) {
                throw new CodecException("lz4 block size=" + size + " at byte " + (p - 4) + " passes the block"
                    + " maximum " + maxBlockBytes + " or the " + (end - p) + " bytes left", false, null);
            }
            if (blockChecksum && hash.hash(source, p, size, 0) != source.getInt(p + size)) {
                throw new CodecException("lz4 block checksum mismatch at byte " + p, false, null);
            }
            if ((word & INCOMPRESSIBLE) != 0) {
                final ByteBuffer target = out.ensureRoom(size);
                source.limit(p + size).position(p);
                target.put(source);
                source.limit(end);
            } else {
                decompressBlock(source, p, size, maxBlockBytes, out);
            }
            p += size + (blockChecksum ? 4 : 0);
        }
    }

    private void decompressBlock(final ByteBuffer source, final int p, final int size, final int maxBlockBytes,
                                 final DecompressionBuffer out) throws CodecException {
        final int room = Math.min(maxBlockBytes, out.roomBeforeLimit());
        if (room <= 0) {
            throw new CodecException("lz4 data decompresses past the limit of " + out.limitBytes() + " bytes", true,
                null);
        }
        final ByteBuffer target = out.ensureRoom(room);
        final int at = target.position();
        try {
            final int n = decompressor.decompress(source, p, size, target, at, room);
            target.position(at + n);
        } catch (final LZ4Exception e) {
            final boolean limited = room < maxBlockBytes;
            throw new CodecException(limited
                ? "lz4 block at byte " + p + " decompresses past the limit of " + out.limitBytes() + " bytes (or is"
                    + " damaged)"
                : "lz4 block at byte " + p + " is damaged: " + e.getMessage(), limited, e);
        }
    }

    @Override
    public void compress(final ByteBuffer source, final ByteBuffer target) {
        target.order(ByteOrder.LITTLE_ENDIAN);
        final int headerAt = target.position();
        target.putInt(MAGIC).put((byte) 0x60).put((byte) (BLOCK_SIZE_64KB << 4));
        target.put((byte) ((hash.hash(target, headerAt + 4, 2, 0) >> 8) & 0xff));
        final int end = source.limit();
        for (int p = source.position(); p < end; p += MAX_BLOCK_BYTES_WRITTEN) {
            final int length = Math.min(MAX_BLOCK_BYTES_WRITTEN, end - p);
            final int sizeAt = target.position();
            final int dataAt = sizeAt + 4;
            final int room = target.capacity() - dataAt;
            final int n = compressor.compress(source, p, length, target, dataAt, room);
            if (n >= length) {
                // Kafka stores a block that does not shrink.
                target.putInt(sizeAt, length | INCOMPRESSIBLE);
                target.position(dataAt);
                target.put(source.duplicate().limit(p + length).position(p));
            } else {
                target.putInt(sizeAt, n);
                target.position(dataAt + n);
            }
        }
        target.putInt(0);
    }

    @Override
    public int maxCompressedBytes(final int sourceBytes) {
        final int blocks = Math.max(1, (sourceBytes + MAX_BLOCK_BYTES_WRITTEN - 1) / MAX_BLOCK_BYTES_WRITTEN);
        return 7 + blocks * 4 + compressor.maxCompressedLength(sourceBytes) + blocks * 16 + 4;
    }
}
