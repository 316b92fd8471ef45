package io.seglog.replication.group;

import io.seglog.storage.format.BatchRecordReader;
import io.seglog.storage.format.InvalidRecordException;
import io.seglog.storage.format.RecordBatch;
import io.seglog.storage.format.RecordBatchDescriptor;
import io.seglog.storage.format.RecordView;
import java.nio.ByteBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads an offsets partition's batches (as its log holds them, compressed or not) into a {@link GroupManager}, oldest
 * first: what a new coordinator does before it answers for the partition's groups. Transaction markers are skipped;
 * so are transactional batches (transactional offset commits are not supported, and applying one without its marker
 * could publish an aborted commit). A record without a key is refused, as Kafka refuses it.
 *
 * <p>Not thread-safe: one loader per loading thread; it keeps its decompression buffer between batches.
 */
public final class GroupLoader implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(GroupLoader.class);

    private final BatchRecordReader reader;
    private final RecordBatch batch = new RecordBatch();
    private final RecordView record = new RecordView();
    private final UnsafeBuffer view = new UnsafeBuffer(0, 0);
    private long records;
    private long skipped;

    /**
     * @param maxDecompressedBytes the most bytes one batch's records may decompress to
     */
    public GroupLoader(final int maxDecompressedBytes) {
        this.reader = new BatchRecordReader(maxDecompressedBytes);
    }

    /**
     * Applies every record of whole batches.
     *
     * @param batches whole batches, from their position to their limit (not moved), already checked by the log
     *                (lengths, CRCs)
     * @param into    the groups to apply them to
     * @param where   names the partition in errors
     * @return the offset after the last batch read, or -1 when there was none
     * @throws MalformedGroupRecordException when a record is not one Kafka's schemas allow or has no key, naming
     *     its offset
     * @throws InvalidRecordException when a compressed batch cannot be read
     */
    public long load(final ByteBuffer batches, final GroupManager into, final String where) {
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
            if (batch.isControl() || batch.isTransactional()) {
                if (!batch.isControl()) {
                    skipped += batch.recordCount();
                    LOG.warn("{}: transactional offset commits at offsets {}-{} are skipped (transactions are not"
                        + " supported)", where, batch.baseOffset(), batch.lastOffset());
                }
                position += size;
                continue;
            }
            reader.open(batch);
            while (reader.next(record)) {
                apply(into, where);
            }
            position += size;
        }
        return next;
    }

    private void apply(final GroupManager into, final String where) {
        if (record.keyLength() < 0) {
            throw new MalformedGroupRecordException("record at offset " + record.offset() + " of " + where, "key", 0,
                "a record without a key");
        }
        final ByteBuffer key = ByteBuffer.wrap(record.keyBytes());
        final ByteBuffer value = record.valueLength() < 0 ? null : ByteBuffer.wrap(record.valueBytes());
        try {
            into.replay(key, value);
        } catch (final MalformedGroupRecordException e) {
            throw new MalformedGroupRecordException("record at offset " + record.offset() + " of " + where,
                e.field(), e.position(), e.getMessage());
        }
        records++;
    }

    /**
     * Records applied so far.
     *
     * @return the count
     */
    public long records() {
        return records;
    }

    /**
     * Records of transactional batches skipped so far.
     *
     * @return the count
     */
    long skipped() {
        return skipped;
    }

    @Override
    public void close() {
        reader.close();
    }
}
