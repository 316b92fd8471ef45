package io.seglog.storage;

/**
 * How a leader append ended: the one typed outcome of the append path, from the log ({@link LeaderAppendResult}) up
 * through a broker's replica layer, which maps it to Kafka's error code in one place. Each constant names the Kafka
 * answer it stands for (Kafka's idempotent-producer rules, {@code ProducerAppendInfo} with origin CLIENT).
 */
public enum AppendOutcome {
    /** The batches were appended; Kafka answers NONE with their offsets. */
    APPENDED,
    /**
     * A batch repeats one of its producer's last five batches (same producer id, epoch and sequence range): nothing
     * was appended, and the offsets are the original batch's (Kafka answers the retry with NONE and those offsets).
     */
    DUPLICATE,
    /**
     * A sequence gap, or a new producer epoch whose first sequence is not 0 (Kafka's OUT_OF_ORDER_SEQUENCE_NUMBER);
     * nothing was appended.
     */
    OUT_OF_ORDER_SEQUENCE,
    /**
     * The batch's producer epoch is below the producer's current one, a fenced producer (Kafka's
     * INVALID_PRODUCER_EPOCH); nothing was appended.
     */
    INVALID_PRODUCER_EPOCH,
    /**
     * The append's leader epoch is below the log's latest: a newer leader's records (or its epoch) reached this log,
     * so this leader is fenced and must not append (a Kafka broker answers the produce NOT_LEADER_OR_FOLLOWER);
     * nothing was appended.
     */
    FENCED_LEADER_EPOCH,
    /**
     * A transaction marker's coordinator epoch is below the one the producer's last marker carried: a deposed
     * transaction coordinator (Kafka's TRANSACTION_COORDINATOR_FENCED); nothing was appended.
     */
    TRANSACTION_COORDINATOR_FENCED;

    /**
     * Whether the batches are in the log: appended now, or by the original of a duplicate.
     *
     * @return true for {@link #APPENDED} and {@link #DUPLICATE}
     */
    public boolean succeeded() {
        return this == APPENDED || this == DUPLICATE;
    }
}
