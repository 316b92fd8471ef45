package io.seglog.storage;

import java.util.List;

/**
 * One record batch of a log, as an embedder reads it without the batch flyweights ({@link Records}).
 *
 * @param baseOffset           the first offset of the batch
 * @param lastOffset           the last offset of the batch
 * @param partitionLeaderEpoch the leader epoch it was written in, -1 when none
 * @param maxTimestamp         its largest timestamp, -1 when none
 * @param logAppendTime        whether its records carry the broker's time
 * @param control              whether it is a transaction control batch (Seglog stores these but implements no
 *                             transactions yet)
 * @param records              its records, in offset order
 */
public record LogBatch(long baseOffset, long lastOffset, int partitionLeaderEpoch, long maxTimestamp,
                       boolean logAppendTime, boolean control, List<LogRecord> records) {
    /**
     * Copies the record list.
     *
     * @param baseOffset           the first offset
     * @param lastOffset           the last offset
     * @param partitionLeaderEpoch the leader epoch
     * @param maxTimestamp         the largest timestamp
     * @param logAppendTime        whether it uses log-append time
     * @param control              whether it is a control batch
     * @param records              its records
     */
    public LogBatch {
        records = List.copyOf(records);
    }
}
