package io.seglog.replication.txn;

import io.seglog.replication.records.CoordinatorBatches;
import io.seglog.storage.format.InvalidRecordException;
import io.seglog.storage.format.RecordView;
import java.nio.ByteBuffer;
import java.util.Map;

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
    private final CoordinatorBatches batches;
    private long records;
    private long skipped;

    /**
     * @param maxDecompressedBytes the most bytes one batch's records may decompress to
     */
    TransactionStateLoader(final int maxDecompressedBytes) {
        this.batches = new CoordinatorBatches(maxDecompressedBytes);
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
        return this.batches.walk(batches, batch -> true, record -> apply(record, into, where));
    }

    private void apply(final RecordView record, final Map<String, TransactionMetadata> into,
                       final String where) {
        final String what = "record at offset " + record.offset() + " of " + where;
        if (record.keyLength() < 0) {
            throw new MalformedTransactionRecordException(what, "key", 0, "a record without a key");
        }
        final ByteBuffer key = ByteBuffer.wrap(record.keyBytes());
        if (key.remaining() >= Short.BYTES && key.getShort(0) != TransactionRecords.KEY_VERSION) {
            skipped++; // Kafka's UnknownKey: a record type of a later version, not this coordinator's
            return;
        }
        final String id;
        try {
            id = TransactionRecords.decodeKey(key);
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

    /** @return records of an unknown key version skipped so far */
    long skipped() {
        return skipped;
    }

    /** @return records applied so far */
    long records() {
        return records;
    }

    @Override
    public void close() {
        batches.close();
    }
}
