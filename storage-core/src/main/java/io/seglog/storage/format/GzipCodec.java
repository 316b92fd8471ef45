package io.seglog.storage.format;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * gzip (RFC 1952) on the JDK's raw inflater and deflater, reused across batches: what Kafka's
 * {@code GZIPInputStream}/{@code GZIPOutputStream} read and write, without a stream per batch.
 *
 * <p>Reading: the header (magic {@code 1f 8b}, method 8, optional extra, name, comment and header CRC), the deflate
 * data, then the trailer's CRC-32 and size, both checked. Further members follow as {@code GZIPInputStream} reads
 * them; bytes after the last member that do not start a member are ignored, as it ignores them. Writing: the
 * 10-byte header {@code GZIPOutputStream} writes, deflate at the configured level, the trailer.
 */
final class GzipCodec extends Codec {
    private static final int MAGIC = 0x8b1f;
    private static final int METHOD_DEFLATE = 8;
    private static final int HEADER_BYTES = 10;
    private static final int TRAILER_BYTES = 8;
    private static final int FHCRC = 2;
    private static final int FEXTRA = 4;
    private static final int FNAME = 8;
    private static final int FCOMMENT = 16;
    /** Output asked for per inflate call: Kafka's gzip reads in 16 KiB chunks too. */
    private static final int CHUNK_BYTES = 16 * 1024;

    private final Inflater inflater = new Inflater(true);
    private final Deflater deflater;
    private final CRC32 crc = new CRC32();

    GzipCodec(final int level) {
        deflater = new Deflater(level, true);
    }

    @Override
    public void decompress(final ByteBuffer source, final DecompressionBuffer out) throws CodecException {
        source.order(ByteOrder.LITTLE_ENDIAN);
        final int end = source.limit();
        int member = 0;
        do {
            final int memberStart = out.buffer().position();
            final int dataStart;
            try {
                dataStart = skipHeader(source, source.position(), end, member);
            } catch (final CodecException notAMember) {
                if (member == 0) {
                    throw notAMember;
                }
                return; // GZIPInputStream ignores trailing bytes that do not make a whole member header too
            }
            source.position(dataStart);
            inflate(source, out);
            final int trailer = source.position();
            if (end - trailer < TRAILER_BYTES) {
                throw new CodecException("gzip member " + member + " is cut short before its trailer", false, null);
            }
            final ByteBuffer written = out.buffer();
            crc.reset();
            final int outEnd = written.position();
            final int writtenLimit = written.limit();
            crc.update(written.position(memberStart).limit(outEnd));
            written.limit(writtenLimit);
            final long storedCrc = source.getInt(trailer) & 0xffffffffL;
            final long storedSize = source.getInt(trailer + 4) & 0xffffffffL;
            if (storedCrc != crc.getValue()) {
                throw new CodecException("gzip member " + member + " CRC-32 mismatch: stored=" + storedCrc
                    + " computed=" + crc.getValue(), false, null);
            }
            if (storedSize != ((outEnd - memberStart) & 0xffffffffL)) {
                throw new CodecException("gzip member " + member + " size mismatch: stored=" + storedSize
                    + " decompressed=" + (outEnd - memberStart), false, null);
            }
            source.position(trailer + TRAILER_BYTES);
            member++;
        } while (end - source.position() >= HEADER_BYTES && (source.getShort(source.position()) & 0xffff) == MAGIC);
    }

    private void inflate(final ByteBuffer source, final DecompressionBuffer out) throws CodecException {
        inflater.reset();
        inflater.setInput(source);
        try {
            while (!inflater.finished()) {
                final ByteBuffer target = out.ensureRoom(Math.min(CHUNK_BYTES, Math.max(1, out.roomBeforeLimit())));
                final int n = inflater.inflate(target);
                if (n == 0 && !inflater.finished()) {
                    if (inflater.needsInput()) {
                        throw new CodecException("gzip deflate data is cut short", false, null);
                    }
                    if (inflater.needsDictionary()) {
                        throw new CodecException("gzip deflate data asks for a preset dictionary", false, null);
                    }
                    if (!target.hasRemaining()) {
                        // Full: the next ensureRoom grows it or refuses at the limit.
                        out.ensureRoom(target.capacity() - target.position() + 1);
                    }
                }
            }
        } catch (final DataFormatException e) {
            throw new CodecException("gzip deflate data is damaged: " + e.getMessage(), false, e);
        }
        // setInput(ByteBuffer) moved the source's position past exactly what the inflater consumed: the trailer.
    }

    private static int skipHeader(final ByteBuffer source, final int start, final int end, final int member)
        throws CodecException {
        if (end - start < HEADER_BYTES) {
            throw new CodecException("gzip member " + member + " header is cut short (" + (end - start) + " bytes)",
                false, null);
        }
        final int magic = source.getShort(start) & 0xffff;
        if (magic != MAGIC) {
            throw new CodecException("gzip magic=0x" + Integer.toHexString(magic) + " where 0x8b1f is expected", false,
                null);
        }
        final int method = source.get(start + 2) & 0xff;
        if (method != METHOD_DEFLATE) {
            throw new CodecException("gzip method=" + method + " where 8 (deflate) is expected", false, null);
        }
        final int flags = source.get(start + 3) & 0xff;
        int p = start + HEADER_BYTES;
        if ((flags & FEXTRA) != 0) {
            if (end - p < 2) {
                throw new CodecException("gzip extra field is cut short", false, null);
            }
            p += 2 + (source.getShort(p) & 0xffff);
        }
        if ((flags & FNAME) != 0) {
            p = skipZeroTerminated(source, p, end, "name");
        }
        if ((flags & FCOMMENT) != 0) {
            p = skipZeroTerminated(source, p, end, "comment");
        }
        if ((flags & FHCRC) != 0) {
            p += 2;
        }
        if (p > end) {
            throw new CodecException("gzip header runs past the data", false, null);
        }
        return p;
    }

    private static int skipZeroTerminated(final ByteBuffer source, final int from, final int end, final String field)
        throws CodecException {
        for (int p = from; p < end; p++) {
            if (source.get(p) == 0) {
                return p + 1;
            }
        }
        throw new CodecException("gzip header " + field + " is not terminated", false, null);
    }

    @Override
    public void compress(final ByteBuffer source, final ByteBuffer target) {
        target.order(ByteOrder.LITTLE_ENDIAN);
        crc.reset();
        final int start = source.position();
        crc.update(source);
        source.position(start);
        final int size = source.remaining();
        // GZIPOutputStream's header: magic, deflate, no flags, no time, no extra flags, OS 0.
        target.putShort((short) MAGIC).put((byte) METHOD_DEFLATE).put((byte) 0).putInt(0).put((byte) 0).put((byte) 0);
        deflater.reset();
        deflater.setInput(source);
        deflater.finish();
        while (!deflater.finished()) {
            if (deflater.deflate(target) == 0 && !target.hasRemaining()) {
                throw new IllegalStateException("gzip output passed its bound for " + size + " bytes");
            }
        }
        target.putInt((int) crc.getValue()).putInt(size);
    }

    @Override
    public int maxCompressedBytes(final int sourceBytes) {
        // zlib's deflateBound for stored blocks (5 bytes per 16 KiB block at worst) with room to spare, plus the
        // gzip header and trailer.
        return sourceBytes + (sourceBytes >> 12) + (sourceBytes >> 14) + 64 + HEADER_BYTES + TRAILER_BYTES;
    }

    @Override
    public void close() {
        inflater.end();
        deflater.end();
    }
}
