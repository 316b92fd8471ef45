package io.seglog.storage.segment;

import io.seglog.storage.format.RecordBatchDescriptor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.agrona.concurrent.UnsafeBuffer;

/** Test helpers for the segment layer: a lookup's answer as a value, and an append of whole batches. */
final class Lookups {
    /** A found batch: where it starts, how long it is, its base offset. */
    record Found(int position, int size, long baseOffset) {
    }

    private Lookups() {
    }

    /** {@link SegmentReader#findBatch} as a value: null when no batch is found. */
    static Found find(final LogSegment segment, final long offset, final int maxPosition, final BatchCursor cursor)
        throws IOException {
        return segment.reader().findBatch(offset, maxPosition, cursor)
            ? new Found(cursor.position(), cursor.size(), cursor.baseOffset()) : null;
    }

    /** The batches of {@code bytes} (whole v2 batches, offsets assigned), as an appender notes them. */
    static AppendBatches batchesOf(final ByteBuffer bytes) {
        final AppendBatches batches = new AppendBatches();
        final ByteBuffer b = bytes.duplicate().order(ByteOrder.BIG_ENDIAN);
        for (int p = b.position(); p < b.limit(); ) {
            final int size = b.getInt(p + RecordBatchDescriptor.LENGTH_OFFSET) + RecordBatchDescriptor.LOG_OVERHEAD;
            final long base = b.getLong(p + RecordBatchDescriptor.BASE_OFFSET_OFFSET);
            final long last = base + b.getInt(p + RecordBatchDescriptor.LAST_OFFSET_DELTA_OFFSET);
            batches.add(size, base, last, b.getLong(p + RecordBatchDescriptor.MAX_TIMESTAMP_OFFSET),
                b.getInt(p + RecordBatchDescriptor.PARTITION_LEADER_EPOCH_OFFSET));
            p += size;
        }
        return batches;
    }

    /** Appends whole batches (from the buffer's position to its limit) to the segment. */
    static void append(final LogSegment segment, final ByteBuffer bytes) throws IOException {
        segment.append(bytes, new UnsafeBuffer(bytes), bytes.position(), batchesOf(bytes));
    }
}
