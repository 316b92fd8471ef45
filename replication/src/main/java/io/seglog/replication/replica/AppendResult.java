package io.seglog.replication.replica;

import io.seglog.storage.AppendOutcome;
import io.seglog.storage.InvalidProducerEpochException;
import io.seglog.storage.LeaderAppendResult;
import io.seglog.storage.StorageException;
import io.seglog.storage.TransactionCoordinatorFencedException;

/**
 * A partition's answer to one produce: the log's {@link AppendOutcome} when the append reached the log, and the
 * Kafka error the wire answers with.
 *
 * @param error           NONE, or why nothing was appended (or, for acks=all, why it was not acknowledged)
 * @param outcome         how the log's append ended, or null when the append did not reach the log (refused before
 *                        it, or failed in it: {@code error} says why)
 * @param baseOffset      the first offset assigned, -1 on an error before the append
 * @param lastOffset      the last offset assigned, -1 on an error before the append
 * @param logAppendTimeMs the broker time stamped into the batches under {@code LogAppendTime}, else -1
 * @param logStartOffset  the log start offset after the append, -1 when unknown
 * @param message         a description of the error for the client, or null
 * @param leaderEpoch     the leader epoch the batches were appended in (their acknowledgement belongs to it), -1
 *                        on an error before the append
 */
public record AppendResult(ReplicaError error, AppendOutcome outcome, long baseOffset, long lastOffset,
                           long logAppendTimeMs, long logStartOffset, String message, int leaderEpoch) {
    /**
     * An error before any append.
     *
     * @param error   the error
     * @param message the description, or null
     * @return the result
     */
    public static AppendResult error(final ReplicaError error, final String message) {
        return new AppendResult(error, null, -1, -1, -1, -1, message, -1);
    }

    /**
     * The result of the log's answer: {@link ReplicaError#of(AppendOutcome)} is the error; an appended batch or a
     * duplicate keeps the offsets, times and epoch (Kafka answers a retried batch with NONE and its original
     * offsets); a refusal keeps only the description, as an error before the append does.
     *
     * @param appended the log's answer, read under the log's append lock
     * @return the result
     */
    static AppendResult of(final LeaderAppendResult appended) {
        final ReplicaError error = ReplicaError.of(appended.outcome());
        if (!appended.succeeded()) {
            return new AppendResult(error, appended.outcome(), -1, -1, -1, -1, appended.message(), -1);
        }
        return new AppendResult(error, appended.outcome(), appended.firstOffset(), appended.lastOffset(),
            appended.logAppendTimeMs(), appended.logStartOffset(), null, appended.leaderEpoch());
    }

    /**
     * A transaction marker the log refused: a newer producer epoch (INVALID_PRODUCER_EPOCH) or coordinator epoch
     * (TRANSACTION_COORDINATOR_FENCED) wrote there, a newer leader epoch reached the log (NOT_LEADER_OR_FOLLOWER), or
     * the log failed (KAFKA_STORAGE_ERROR).
     *
     * @param refusal the log's exception
     * @return the result
     */
    static AppendResult markerRefused(final RuntimeException refusal) {
        final ReplicaError error = refusal instanceof InvalidProducerEpochException ? ReplicaError.INVALID_PRODUCER_EPOCH
            : refusal instanceof TransactionCoordinatorFencedException ? ReplicaError.TRANSACTION_COORDINATOR_FENCED
            : refusal instanceof StorageException ? ReplicaError.KAFKA_STORAGE_ERROR
            : ReplicaError.NOT_LEADER_OR_FOLLOWER;
        return error(error, refusal.getMessage());
    }

    /**
     * The same offsets with another outcome (an acks=all produce that timed out or lost its ISR after the append).
     *
     * @param outcome the error
     * @return the result
     */
    AppendResult withError(final ReplicaError outcome) {
        return new AppendResult(outcome, this.outcome, baseOffset, lastOffset, logAppendTimeMs, logStartOffset, message,
            leaderEpoch);
    }
}
