package io.seglog.storage.format;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDecompressCtx;
import com.github.luben.zstd.ZstdException;
import java.nio.ByteBuffer;

/**
 * zstd frames through zstd-jni's reusable native contexts. Kafka writes one streamed frame (no content size) with
 * {@code ZstdOutputStreamNoFinalizer} and reads any sequence of frames; this reads the same by streaming into the
 * bounded output, so a frame's content-size field is never trusted for an allocation. Writing is one frame at the
 * configured level (Kafka's default 3), with the content size, which Kafka's reader accepts.
 */
final class ZstdCodec extends Codec {
    /** Output asked for per streaming call. */
    private static final int CHUNK_BYTES = 128 * 1024;

    private final ZstdDecompressCtx decompressor = new ZstdDecompressCtx();
    private final int level;
    /** Made at the first compression: readers and validators only decompress. */
    private ZstdCompressCtx compressor;
    private boolean closed;

    ZstdCodec(final int level) {
        this.level = level;
    }

    @Override
    public void decompress(final ByteBuffer source, final DecompressionBuffer out) throws CodecException {
        decompressor.reset();
        boolean frameDone = false;
        try {
            while (source.hasRemaining() || !frameDone) {
                final int room = Math.min(CHUNK_BYTES, out.roomBeforeLimit());
                if (room <= 0) {
                    throw new CodecException("zstd data decompresses past the limit of " + out.limitBytes()
                        + " bytes", true, null);
                }
                final ByteBuffer target = out.ensureRoom(room);
                final int sourceBefore = source.position();
                final int targetBefore = target.position();
                frameDone = decompressor.decompressDirectByteBufferStream(target, source);
                if (!frameDone && source.position() == sourceBefore && target.position() == targetBefore) {
                    throw new CodecException("zstd frame is cut short at byte " + source.position(), false, null);
                }
            }
        } catch (final ZstdException e) {
            throw new CodecException("zstd data is damaged at byte " + source.position() + ": " + e.getMessage(),
                false, e);
        }
    }

    @Override
    public void compress(final ByteBuffer source, final ByteBuffer target) {
        if (compressor == null) {
            compressor = new ZstdCompressCtx().setLevel(level);
        }
        final int n = compressor.compressDirectByteBuffer(target, target.position(), target.remaining(), source,
            source.position(), source.remaining());
        target.position(target.position() + n);
        source.position(source.limit());
    }

    @Override
    public int maxCompressedBytes(final int sourceBytes) {
        return (int) Zstd.compressBound(sourceBytes);
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            decompressor.close();
            if (compressor != null) {
                compressor.close();
            }
        }
    }
}
