package io.seglog.replication.group;

import java.util.concurrent.CompletableFuture;

/**
 * Where the coordinator writes its records: the group's {@code __consumer_offsets} partition, which it leads.
 */
public interface GroupLog {
    /**
     * Appends one record (as acks=all) and completes once it is committed.
     *
     * @param key   the key ({@link GroupRecords})
     * @param value the value, or null for a tombstone
     * @return completes when the record is below the high watermark, or exceptionally with a
     *     {@link GroupWriteException} naming the error the requests waiting on it answer
     */
    CompletableFuture<Void> append(byte[] key, byte[] value);
}
