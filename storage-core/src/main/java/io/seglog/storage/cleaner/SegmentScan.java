package io.seglog.storage.cleaner;

import static io.seglog.storage.format.RecordBatchDescriptor.BATCH_HEADER_LENGTH;
import static io.seglog.storage.format.RecordBatchDescriptor.LENGTH_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.LOG_OVERHEAD;
import static io.seglog.storage.format.RecordBatchDescriptor.MAGIC_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.MAGIC_V2;

import io.seglog.storage.format.RecordBatch;
import io.seglog.storage.segment.LogSegment;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Reads the whole batches of one segment in chunks of a reused heap buffer (Kafka's cleaner reads the same way,
 * {@code readInto} then {@code MemoryRecords}); a batch larger than the buffer grows it to the batch's size, bounded
 * by the bytes left in the segment. Each batch is checked to be a v2 batch whose length fits the file: a cleaner
 * must not copy bytes it cannot frame. Not thread-safe.
 */
final class SegmentScan {
    private ByteBuffer chunk;
    private final UnsafeBuffer view = new UnsafeBuffer(new byte[0]);
    private final RecordBatch batch = new RecordBatch();
    private final int initialBytes;
    private final Throttler throttler;

    private LogSegment segment;
    private FileChannel channel;
    private long fileSize;
    /** File position of {@code chunk}'s first byte. */
    private long chunkStart;
    private int chunkLength;
    /** File position of the next batch. */
    private long position;

    /**
     * Creates a scanner.
     *
     * @param bufferBytes the initial chunk size
     * @param throttler   charged with every byte read
     */
    SegmentScan(final int bufferBytes, final Throttler throttler) {
        this.initialBytes = Math.max(bufferBytes, BATCH_HEADER_LENGTH);
        this.chunk = ByteBuffer.allocate(initialBytes);
        this.throttler = throttler;
    }

    /**
     * Starts reading {@code segment} from its first batch, up to its published size.
     *
     * @param segment the segment
     */
    void open(final LogSegment segment) {
        this.segment = segment;
        this.channel = segment.channel();
        this.fileSize = segment.sizeInBytes();
        this.position = 0;
        this.chunkStart = 0;
        this.chunkLength = 0;
        if (chunk.capacity() > initialBytes) {
            chunk = ByteBuffer.allocate(initialBytes); // a large batch grew it; give the memory back
        }
    }

    /**
     * The next batch, wrapped in a flyweight valid until the next call, or null at the segment's end.
     *
     * @return the batch or null
     * @throws IOException if the read fails, or the batch is not a framed v2 batch (naming file and position)
     */
    RecordBatch next() throws IOException {
        if (position >= fileSize) {
            return null;
        }
        if (fileSize - position < LOG_OVERHEAD) {
            throw corrupt("a partial batch header of " + (fileSize - position) + " bytes");
        }
        ensure(LOG_OVERHEAD);
        final int length = chunk.getInt((int) (position - chunkStart) + LENGTH_OFFSET);
        final long size = (long) length + LOG_OVERHEAD;
        if (size < BATCH_HEADER_LENGTH || size > fileSize - position) {
            throw corrupt("batchLength=" + length + " (bytes left " + (fileSize - position) + ")");
        }
        ensure((int) size);
        final int at = (int) (position - chunkStart);
        if (chunk.get(at + MAGIC_OFFSET) != MAGIC_V2) {
            throw corrupt("magic=" + chunk.get(at + MAGIC_OFFSET) + " (only v2 batches are cleaned)");
        }
        batch.wrap(view, at);
        position += size;
        return batch;
    }

    /**
     * Whether the batch last returned is the segment's last.
     *
     * @return true when no batch follows
     */
    boolean atEnd() {
        return position >= fileSize;
    }

    /**
     * The file position of the batch last returned.
     *
     * @param batch the batch last returned
     * @return its position in the segment file
     */
    long positionOf(final RecordBatch batch) {
        return chunkStart + batch.startIndex();
    }

    /** Makes {@code bytes} from {@code position} readable in the chunk. */
    private void ensure(final int bytes) throws IOException {
        if (position >= chunkStart && position + bytes <= chunkStart + chunkLength) {
            return;
        }
        if (bytes > chunk.capacity()) {
            chunk = ByteBuffer.allocate(bytes);
        }
        chunk.clear();
        final int want = (int) Math.min(chunk.capacity(), fileSize - position);
        chunk.limit(want);
        while (chunk.hasRemaining()) {
            if (channel.read(chunk, position + chunk.position()) < 0) {
                throw corrupt("end of file at " + (position + chunk.position()) + " below the segment size "
                    + fileSize);
            }
        }
        throttler.maybeThrottle(want);
        chunkStart = position;
        chunkLength = want;
        chunk.order(ByteOrder.BIG_ENDIAN);
        view.wrap(chunk.array(), 0, want);
    }

    private IOException corrupt(final String what) {
        return new IOException("cannot clean " + segment.logFile() + ": at position " + position + " " + what);
    }
}
