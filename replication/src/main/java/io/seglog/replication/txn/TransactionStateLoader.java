package io.seglog.replication.txn;

import io.seglog.storage.format.BatchRecordReader;
import io.seglog.storage.format.InvalidRecordException;
import io.seglog.storage.format.RecordBatch;
import io.seglog.storage.format.RecordBatchDescriptor;
import io.seglog.storage.format.RecordView;
import java.nio.ByteBuffer;
import java.util.Map;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Reads a {@code __transaction_state} partition's batches (as its log holds them, compressed or not) into the
 * coordinator's cache, oldest first, as Kafka's {@code TransactionStateManager.loadTransactionMetadata} does: each
 * record's value replaces its transactional id's metadata, a tombstone removes it (an expired id). Control batches are
 * skipped. A record without a key, or one that Kafka's schemas do not allow, is refused with its offset: a coordinator
 * that guessed would answer for transactions it does not know.
 *
 * <p>Not thread-safe: one loader per loading thread; it keeps its decompression buffer between batches.
 */
final class TransactionStateLoader implements AutoCloseable {
    private final BatchRecordReader reader;
    private final RecordBatch batch = new RecordBatch();
    private final RecordView record = new RecordView();
    private final UnsafeBuffer view = new UnsafeBuffer(0, 0);
    private long records;

    /**
     * @param maxDecompressedBytes the most bytes one batch's records may decompress to
     */
    TransactionStateLoader(final int maxDecompressedBytes) {
        this.reader = new BatchRecordReader(maxDecompressedBytes);
    }

    /**
     * Applies every record of whole batches.
     *
     * @param batches whole batches, from their position to their limit (not moved), already checked by the log
     * @param into    the transactional ids' metadata, replaced or removed record by record
     * @param where   names the partition in errors
     * @return the offset after the last batch read, or -1 when there was none
     * @throws MalformedTransactionRecordException naming the record's offset, when a record is not Kafka's
     * @throws InvalidRecordException when a compressed batch cannot be read
     */
    long load(final ByteBuffer batches, final Map<String, TransactionMetadata> into, final String where) {
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
            if (!batch.isControl()) {
                reader.open(batch);
                while (reader.next(record)) {
                    apply(into, where);
                }
            }
            position += size;
        }
        return next;
    }

    private void apply(final Map<String, TransactionMetadata> into, final String where) {
        final String what = "record at offset " + record.offset() + " of " + where;
        if (record.keyLength() < 0) {
            throw new MalformedTransactionRecordException(what, "key", 0, "a record without a key");
        }
        final String id;
        try {
            id = TransactionRecords.decodeKey(ByteBuffer.wrap(record.keyBytes()));
        } catch (final MalformedTransactionRecordException e) {
            throw new MalformedTransactionRecordException(what, e.field(), e.position(), e.getMessage());
        }
        if (record.valueLength() < 0) {
            into.remove(id);
        } else {
            try {
                into.put(id, TransactionMetadata.of(id,
                    TransactionRecords.decodeValue(ByteBuffer.wrap(record.valueBytes()))));
            } catch (final MalformedTransactionRecordException e) {
                throw new MalformedTransactionRecordException(what, e.field(), e.position(), e.getMessage());
            }
        }
        records++;
    }

    /** @return records applied so far */
    long records() {
        return records;
    }

    @Override
    public void close() {
        reader.close();
    }
}
