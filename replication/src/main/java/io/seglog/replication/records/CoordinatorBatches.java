package io.seglog.replication.records;

import io.seglog.storage.format.BatchRecordReader;
import io.seglog.storage.format.InvalidRecordException;
import io.seglog.storage.format.RecordBatch;
import io.seglog.storage.format.RecordBatchDescriptor;
import io.seglog.storage.format.RecordView;
import java.nio.ByteBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Walks a coordinator partition's batches (as its log holds them, compressed or not) record by record, oldest first:
 * what a coordinator does when it loads {@code __consumer_offsets} or {@code __transaction_state}. Control batches
 * (transaction markers) hold no coordinator record and are skipped; what else to skip is the caller's choice, batch by
 * batch.
 *
 * <p>Not thread-safe: one per loading thread; it keeps its decompression buffer between batches.
 */
public final class CoordinatorBatches implements AutoCloseable {
    /** Told each batch before its records: whether to read them. */
    @FunctionalInterface
    public interface BatchFilter {
        /**
         * @param batch a data batch (never a control batch)
         * @return true to read its records
         */
        boolean read(RecordBatch batch);
    }

    /** Told each record read. */
    @FunctionalInterface
    public interface RecordSink {
        /**
         * @param record the record, valid until the next call
         */
        void record(RecordView record);
    }

    private final BatchRecordReader reader;
    private final RecordBatch batch = new RecordBatch();
    private final RecordView record = new RecordView();
    private final UnsafeBuffer view = new UnsafeBuffer(0, 0);

    /**
     * @param maxDecompressedBytes the most bytes one batch's records may decompress to
     */
    public CoordinatorBatches(final int maxDecompressedBytes) {
        this.reader = new BatchRecordReader(maxDecompressedBytes);
    }

    /**
     * Reads every record of the whole batches in {@code batches} that {@code filter} lets through.
     *
     * @param batches whole batches, from their position to their limit (not moved), already checked by the log
     *                (lengths, CRCs); a partial batch at the end is left for the next read
     * @param filter  which data batches to read
     * @param sink    told each record
     * @return the offset after the last whole batch, or -1 when there was none
     * @throws InvalidRecordException when a compressed batch cannot be read
     */
    public long walk(final ByteBuffer batches, final BatchFilter filter, final RecordSink sink) {
        view.wrap(batches, batches.position(), batches.remaining());
        long next = -1;
        int position = 0;
        final int end = batches.remaining();
        while (end - position >= RecordBatchDescriptor.RECORDS_OFFSET) {
            batch.wrap(view, position);
            final int size = batch.sizeInBytes();
            if (size < RecordBatchDescriptor.RECORDS_OFFSET || size > end - position) {
                break; // a partial batch at the end of a read: the caller reads on from the returned offset
            }
            next = batch.nextOffset();
            if (!batch.isControl() && filter.read(batch)) {
                reader.open(batch);
                while (reader.next(record)) {
                    sink.record(record);
                }
            }
            position += size;
        }
        return next;
    }

    @Override
    public void close() {
        reader.close();
    }
}
