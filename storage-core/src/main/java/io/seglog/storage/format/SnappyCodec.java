package io.seglog.storage.format;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.xerial.snappy.Snappy;

/**
 * snappy in snappy-java's stream framing, which is what Kafka's {@code SnappyOutputStream} writes and its
 * {@code SnappyInputStream} reads:
 * <pre>
 *   magic  82 53 4e 41 50 50 59 00   ("\x82SNAPPY\0")
 *   int32  version = 1               (big-endian)
 *   int32  compatible version = 1
 *   then blocks: int32 compressed length (big-endian), that many bytes of raw snappy; each block holds at most
 *   32 KiB of input. A stream may restart with the magic (concatenated streams).
 * </pre>
 * Bytes that do not start with the magic are read as one raw snappy block, as {@code SnappyInputStream} reads them.
 * Each block's declared decompressed length is checked against the limit before anything is decompressed.
 */
final class SnappyCodec extends Codec {
    private static final byte[] MAGIC = {(byte) 0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};
    /** The magic's first four bytes as a big-endian int: a block length never equals it (it is negative). */
    private static final int MAGIC_HEAD = 0x82534e41;
    private static final int HEADER_BYTES = MAGIC.length + 8;
    private static final int VERSION = 1;
    private static final int MIN_COMPATIBLE_VERSION = 1;
    /** snappy-java's default block size: input bytes per block. */
    private static final int BLOCK_BYTES = 32 * 1024;

    SnappyCodec() {
        // Touches the native library now, so a missing or unloadable one is reported when the codec is first needed.
        Snappy.maxCompressedLength(1);
    }

    @Override
    public void decompress(final ByteBuffer source, final DecompressionBuffer out) throws CodecException {
        source.order(ByteOrder.BIG_ENDIAN);
        final int end = source.limit();
        int p = source.position();
        if (!hasMagic(source, p, end)) {
            decompressBlock(source, p, end, out);
            return;
        }
        p = checkHeader(source, p, end);
        while (p < end) {
            if (end - p < 4) {
                throw new CodecException("snappy block length is cut short at byte " + p, false, null);
            }
            final int length = source.getInt(p);
            if (length == MAGIC_HEAD && hasMagic(source, p, end)) {
                p = checkHeader(source, p, end);
                continue;
            }
            if (length < 0 || length > end - p - 4) {
                throw new CodecException("snappy block length=" + length + " at byte " + p + " runs past the "
                    + (end - p - 4) + " bytes left", false, null);
            }
            decompressBlock(source, p + 4, p + 4 + length, out);
            source.limit(end);
            p += 4 + length;
        }
    }

    private static void decompressBlock(final ByteBuffer source, final int from, final int to,
                                        final DecompressionBuffer out) throws CodecException {
        source.limit(to).position(from);
        try {
            final int length = Snappy.uncompressedLength(source);
            if (length < 0) {
                throw new CodecException("snappy block at byte " + from + " declares length=" + length, false, null);
            }
            final ByteBuffer target = out.ensureRoom(length);
            final int at = target.position();
            final int n = Snappy.uncompress(source, target);
            target.limit(target.capacity()).position(at + n);
        } catch (final IOException e) {
            throw new CodecException("snappy block at byte " + from + " is damaged: " + e.getMessage(), false, e);
        }
    }

    private static boolean hasMagic(final ByteBuffer source, final int p, final int end) {
        if (end - p < MAGIC.length) {
            return false;
        }
        for (int i = 0; i < MAGIC.length; i++) {
            if (source.get(p + i) != MAGIC[i]) {
                return false;
            }
        }
        return true;
    }

    private static int checkHeader(final ByteBuffer source, final int p, final int end) throws CodecException {
        if (end - p < HEADER_BYTES) {
            throw new CodecException("snappy stream header is cut short at byte " + p, false, null);
        }
        final int compatible = source.getInt(p + MAGIC.length + 4);
        if (compatible < MIN_COMPATIBLE_VERSION) {
            throw new CodecException("snappy stream compatible version=" + compatible + " below "
                + MIN_COMPATIBLE_VERSION, false, null);
        }
        return p + HEADER_BYTES;
    }

    @Override
    public void compress(final ByteBuffer source, final ByteBuffer target) {
        target.order(ByteOrder.BIG_ENDIAN);
        target.put(MAGIC).putInt(VERSION).putInt(MIN_COMPATIBLE_VERSION);
        final int end = source.limit();
        try {
            for (int p = source.position(); p < end; p += BLOCK_BYTES) {
                source.limit(Math.min(end, p + BLOCK_BYTES)).position(p);
                final int lengthAt = target.position();
                target.position(lengthAt + 4);
                final int n = Snappy.compress(source, target);
                target.putInt(lengthAt, n);
                target.limit(target.capacity()).position(lengthAt + 4 + n);
            }
        } catch (final IOException e) {
            throw new IllegalStateException("snappy compression failed: " + e.getMessage(), e);
        } finally {
            source.limit(end);
        }
    }

    @Override
    public int maxCompressedBytes(final int sourceBytes) {
        final int blocks = Math.max(1, (sourceBytes + BLOCK_BYTES - 1) / BLOCK_BYTES);
        return HEADER_BYTES + blocks * (4 + Snappy.maxCompressedLength(BLOCK_BYTES));
    }
}
