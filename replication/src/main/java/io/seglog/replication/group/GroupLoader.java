package io.seglog.replication.group;

import io.seglog.replication.records.CoordinatorBatches;
import io.seglog.storage.format.InvalidRecordException;
import io.seglog.storage.format.RecordView;
import java.nio.ByteBuffer;
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

    private final CoordinatorBatches batches;
    private long records;
    private long skipped;

    /**
     * @param maxDecompressedBytes the most bytes one batch's records may decompress to
     */
    public GroupLoader(final int maxDecompressedBytes) {
        this.batches = new CoordinatorBatches(maxDecompressedBytes);
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
        return this.batches.walk(batches, batch -> {
            if (batch.isTransactional()) {
                skipped += batch.recordCount();
                LOG.warn("{}: transactional offset commits at offsets {}-{} are skipped (transactions are not"
                    + " supported)", where, batch.baseOffset(), batch.lastOffset());
                return false;
            }
            return true;
        }, record -> apply(record, into, where));
    }

    private void apply(final RecordView record, final GroupManager into, final String where) {
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
        batches.close();
    }
}
