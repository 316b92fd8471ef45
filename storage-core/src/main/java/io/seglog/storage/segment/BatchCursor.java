package io.seglog.storage.segment;

import static io.seglog.storage.format.RecordBatchDescriptor.BASE_OFFSET_OFFSET;

import io.seglog.storage.index.IndexEntry;
import java.nio.ByteBuffer;

/**
 * One reader's search state over segments: the scratch buffer that batch headers are read into, the chunk
 * buffer of a timestamp search, and the answer of the last lookup as fields (the batch's position, size and
 * base offset), so a lookup returns nothing packed and leaves nothing for a caller to dig out of a buffer.
 * Reusing one cursor makes every lookup allocation-free.
 *
 * <p>Not thread-safe: one reading thread per cursor.
 */
public final class BatchCursor {
    /** Header bytes a lookup reads to step over a batch: everything up to and including {@code maxTimestamp}. */
    static final int SCRATCH_BYTES = 64;
    /** Chunk size of a timestamp search's record reads: a few typical batches, a bounded cost per search. */
    static final int SEARCH_CHUNK_BYTES = 4096;

    final ByteBuffer scratch = ByteBuffer.allocate(SCRATCH_BYTES);
    /** The index entry the last lookup started from, checked against the batch it points to. */
    final IndexEntry entry = new IndexEntry();
    private ByteBuffer searchChunk;
    int position = -1;
    int size;
    long baseOffset = -1;

    /** Creates a cursor with no answer yet. */
    public BatchCursor() {
    }

    /**
     * The byte position of the batch the last successful lookup found.
     *
     * @return the file position
     */
    public int position() {
        return position;
    }

    /**
     * The size of that batch.
     *
     * @return bytes, header included
     */
    public int size() {
        return size;
    }

    /**
     * The base offset of that batch.
     *
     * @return the offset
     */
    public long baseOffset() {
        return baseOffset;
    }

    /**
     * The header scratch buffer, for the writer's own scans (a heap buffer of {@value #SCRATCH_BYTES} bytes).
     *
     * @return the buffer
     */
    public ByteBuffer scratch() {
        return scratch;
    }

    void found(final int position, final int size) {
        this.position = position;
        this.size = size;
        this.baseOffset = scratch.getLong(BASE_OFFSET_OFFSET);
    }

    /** The chunk buffer of timestamp searches, made by the first search through this cursor. */
    ByteBuffer searchChunk() {
        if (searchChunk == null) {
            searchChunk = ByteBuffer.allocate(SEARCH_CHUNK_BYTES);
        }
        return searchChunk;
    }
}
