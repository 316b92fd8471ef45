package io.seglog.replication.replica;

/**
 * A partition's answer to one produce.
 *
 * @param error           NONE, or why nothing was appended (or, for acks=all, why it was not acknowledged)
 * @param baseOffset      the first offset assigned, -1 on an error before the append
 * @param lastOffset      the last offset assigned, -1 on an error before the append
 * @param logAppendTimeMs the broker time stamped into the batches under {@code LogAppendTime}, else -1
 * @param logStartOffset  the log start offset after the append, -1 when unknown
 * @param message         a description of the error for the client, or null
 * @param leaderEpoch     the leader epoch the batches were appended in (their acknowledgement belongs to it), -1
 *                        on an error before the append
 */
public record AppendResult(ReplicaError error, long baseOffset, long lastOffset, long logAppendTimeMs,
                           long logStartOffset, String message, int leaderEpoch) {
    /**
     * An error before any append.
     *
     * @param error   the error
     * @param message the description, or null
     * @return the result
     */
    public static AppendResult error(final ReplicaError error, final String message) {
        return new AppendResult(error, -1, -1, -1, -1, message, -1);
    }

    /**
     * The same offsets with another outcome (an acks=all produce that timed out or lost its ISR after the append).
     *
     * @param outcome the error
     * @return the result
     */
    public AppendResult withError(final ReplicaError outcome) {
        return new AppendResult(outcome, baseOffset, lastOffset, logAppendTimeMs, logStartOffset, message,
            leaderEpoch);
    }
}
