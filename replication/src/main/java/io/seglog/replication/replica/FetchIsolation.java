package io.seglog.replication.replica;

import io.seglog.storage.PartitionLog;

/**
 * How far a read may go (Kafka's {@code FetchIsolation}): a follower reads up to the log end, a
 * {@code read_uncommitted} consumer below the high watermark, a {@code read_committed} consumer below the last stable
 * offset, with the aborted transactions its records overlap. ListOffsets' LATEST answers the same bound.
 */
public enum FetchIsolation {
    /** A follower: up to the log end. */
    LOG_END,
    /** A {@code read_uncommitted} consumer: below the high watermark. */
    HIGH_WATERMARK,
    /** A {@code read_committed} consumer: below the last stable offset. */
    TXN_COMMITTED;

    /**
     * The isolation of a consumer's request.
     *
     * @param isolationLevel the request's {@code isolation_level}: 0 read_uncommitted, 1 read_committed
     * @return {@link #HIGH_WATERMARK} or {@link #TXN_COMMITTED}
     */
    public static FetchIsolation ofConsumer(final byte isolationLevel) {
        return isolationLevel == 1 ? TXN_COMMITTED : HIGH_WATERMARK;
    }

    /**
     * The offset a read with this isolation stops below.
     *
     * @param log the partition's log
     * @return the log end, the high watermark or the last stable offset
     */
    public long bound(final PartitionLog log) {
        switch (this) {
            case LOG_END:
                return log.logEndOffset();
            case TXN_COMMITTED:
                return log.lastStableOffset();
            default:
                return log.highWatermark();
        }
    }
}
