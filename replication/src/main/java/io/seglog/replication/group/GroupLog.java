package io.seglog.replication.group;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * Where the coordinator writes its records: the group's {@code __consumer_offsets} partition, which it leads.
 */
public interface GroupLog {
    /**
     * One record.
     *
     * @param key   the key ({@link GroupRecords})
     * @param value the value, or null for a tombstone
     */
    record Entry(byte[] key, byte[] value) {
        /**
         * Checks the key.
         *
         * @param key   the key
         * @param value the value, or null
         */
        public Entry {
            Objects.requireNonNull(key, "key");
        }
    }

    /**
     * Appends records as one batch (as acks=all: all or none) and completes once they are committed.
     *
     * @param entries the records, at least one
     * @return completes when the records are below the high watermark, or exceptionally with a
     *     {@link GroupWriteException} naming the error the requests waiting on them answer
     */
    CompletableFuture<Void> append(List<Entry> entries);
}
