package io.seglog.replication.replica;

import io.seglog.storage.EpochEndOffset;
import io.seglog.storage.LogSlice;

/**
 * A partition's answer to one fetch: an error or the records read, with the leader's offsets.
 *
 * @param error          NONE, or why nothing was read
 * @param highWatermark  the partition's high watermark (-1 when unknown, with an error)
 * @param logStartOffset the log start offset (-1 when unknown)
 * @param logEndOffset   the log end offset (-1 when unknown)
 * @param divergingEpoch for a follower whose log diverged: the largest epoch the leader knows at or below the
 *                       follower's last fetched epoch and where it ends; else {@link EpochEndOffset#UNDEFINED}
 * @param records        the batches read, a zero-copy slice of a segment file; null when none
 * @param lastStableOffset the partition's last stable offset (-1 when unknown)
 * @param abortedTransactions for a {@code read_committed} read: the aborted transactions its records overlap, as
 *                       (producer id, first offset) pairs; null for other reads
 */
public record ReadResult(ReplicaError error, long highWatermark, long logStartOffset, long logEndOffset,
                         EpochEndOffset divergingEpoch, LogSlice records, long lastStableOffset,
                         long[] abortedTransactions) {
    /**
     * A read without transactions' answer: the last stable offset unknown, no aborted transactions.
     *
     * @param error          NONE, or why nothing was read
     * @param highWatermark  the high watermark
     * @param logStartOffset the log start offset
     * @param logEndOffset   the log end offset
     * @param divergingEpoch the diverging epoch, or {@link EpochEndOffset#UNDEFINED}
     * @param records        the batches read, or null
     */
    public ReadResult(final ReplicaError error, final long highWatermark, final long logStartOffset,
                      final long logEndOffset, final EpochEndOffset divergingEpoch, final LogSlice records) {
        this(error, highWatermark, logStartOffset, logEndOffset, divergingEpoch, records, -1, null);
    }

    /**
     * A failed read.
     *
     * @param error the error
     * @return the result
     */
    public static ReadResult error(final ReplicaError error) {
        return new ReadResult(error, -1, -1, -1, EpochEndOffset.UNDEFINED, null);
    }

    /**
     * The bytes read.
     *
     * @return the records' size, 0 when none
     */
    public int sizeInBytes() {
        return records == null ? 0 : records.sizeInBytes();
    }
}
