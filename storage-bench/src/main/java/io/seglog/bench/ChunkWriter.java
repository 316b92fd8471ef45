package io.seglog.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * The raw write limit's inner loop: the data set's batch bytes are consumed one operation (group of
 * {@link BenchData#RECORDS_PER_OP} records) at a time and written with one positional
 * {@code FileChannel.write} per {@link #CHUNK_BYTES}, the coalescing an ideal log would do.
 *
 * <p>Not thread-safe: one per benchmark thread.
 */
final class ChunkWriter {

    /** 128 KiB: the write size at which this VM's page cache reaches its plateau (perf-anchors §2). */
    static final int CHUNK_BYTES = 128 << 10;

    private final BenchData data;
    private final ByteBuffer view;
    private final long wrapAtBytes;
    private FileChannel channel;
    private long filePosition;
    private int cursor;
    private long pendingBytes;
    private int nextGroup;

    /**
     * @param data the bytes to write
     * @param wrapAtBytes file position at which writing starts again at 0 (a recycled file), or
     *                    {@link Long#MAX_VALUE} to grow the file
     */
    ChunkWriter(BenchData data, long wrapAtBytes) {
        this.data = data;
        this.view = data.batches.duplicate();
        this.wrapAtBytes = wrapAtBytes;
    }

    void reset(FileChannel target) {
        this.channel = target;
        filePosition = 0;
        pendingBytes = 0;
        cursor = 0;
    }

    /** Accounts one operation's bytes, writing every full chunk. */
    void onOperation() throws IOException {
        int g = nextGroup;
        pendingBytes += data.batchPositions[(g + 1) * data.batchesPerOp] - data.batchPositions[g * data.batchesPerOp];
        nextGroup = g + 1 == data.groups ? 0 : g + 1;
        int total = data.totalBytes();
        while (pendingBytes >= CHUNK_BYTES) {
            int length = Math.min(CHUNK_BYTES, total - cursor);
            if (filePosition + length > wrapAtBytes) {
                filePosition = 0;
            }
            view.clear();
            view.position(cursor).limit(cursor + length);
            while (view.hasRemaining()) {
                filePosition += channel.write(view, filePosition);
            }
            pendingBytes -= length;
            cursor = cursor + length == total ? 0 : cursor + length;
        }
    }
}
