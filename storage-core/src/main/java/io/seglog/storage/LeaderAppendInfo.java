package io.seglog.storage;

/**
 * The answer to one {@link PartitionLog#appendAsLeader(java.nio.ByteBuffer, int, LeaderAppendInfo)}: owned by the
 * caller, who reuses it append after append (the log fills it, so the call allocates nothing for the answer).
 *
 * <p>Outcomes (Kafka's idempotent-producer rules, {@code ProducerAppendInfo} with origin CLIENT):
 * <ul>
 *   <li>{@link Outcome#APPENDED}: the batches were appended at {@code [firstOffset, lastOffset]};</li>
 *   <li>{@link Outcome#DUPLICATE}: a batch repeats one of its producer's last five batches (same producer id,
 *       epoch and sequence range): nothing was appended, and {@code firstOffset}/{@code lastOffset} are the original
 *       batch's (Kafka answers the retry with NONE and those offsets);</li>
 *   <li>{@link Outcome#OUT_OF_ORDER_SEQUENCE}: a sequence gap, or a new epoch whose first sequence is not 0
 *       (Kafka's OUT_OF_ORDER_SEQUENCE_NUMBER); nothing was appended;</li>
 *   <li>{@link Outcome#INVALID_PRODUCER_EPOCH}: the batch's producer epoch is below the producer's current one, a
 *       fenced producer (Kafka's INVALID_PRODUCER_EPOCH); nothing was appended.</li>
 * </ul>
 * For a duplicate or a refusal, {@link #producerId()}, {@link #producerEpoch()}, {@link #currentProducerEpoch()},
 * {@link #firstSequence()} and {@link #currentLastSequence()} name the deciding batch and what the log knew.
 *
 * <p>Not thread-safe: one per appending thread.
 */
public final class LeaderAppendInfo {
    /** What an append did. */
    public enum Outcome {
        /** Appended. */
        APPENDED,
        /** A retried batch: nothing appended; the offsets are the original batch's. */
        DUPLICATE,
        /** Kafka's OUT_OF_ORDER_SEQUENCE_NUMBER: nothing appended. */
        OUT_OF_ORDER_SEQUENCE,
        /** Kafka's INVALID_PRODUCER_EPOCH (a fenced producer): nothing appended. */
        INVALID_PRODUCER_EPOCH
    }

    private Outcome outcome = Outcome.APPENDED;
    private long firstOffset = -1;
    private long lastOffset = -1;
    private long duplicateTimestamp = -1;
    private long producerId = -1;
    private short producerEpoch = -1;
    private short currentProducerEpoch = -1;
    private int firstSequence = -1;
    private int currentLastSequence = -1;
    private int batchIndex = -1;
    private String partition = "";

    /** Creates an empty answer, filled by the log. */
    public LeaderAppendInfo() {
    }

    void fill(final Outcome what, final long first, final long last, final long timestamp, final long pid,
              final short epoch, final short currentEpoch, final int firstSeq, final int currentLastSeq,
              final int index, final String where) {
        this.outcome = what;
        this.firstOffset = first;
        this.lastOffset = last;
        this.duplicateTimestamp = timestamp;
        this.producerId = pid;
        this.producerEpoch = epoch;
        this.currentProducerEpoch = currentEpoch;
        this.firstSequence = firstSeq;
        this.currentLastSequence = currentLastSeq;
        this.batchIndex = index;
        this.partition = where;
    }

    /**
     * What the append did.
     *
     * @return the outcome
     */
    public Outcome outcome() {
        return outcome;
    }

    /**
     * Whether the append was a retry of a batch already in the log (nothing appended).
     *
     * @return true for {@link Outcome#DUPLICATE}
     */
    public boolean duplicate() {
        return outcome == Outcome.DUPLICATE;
    }

    /**
     * Whether the batches are in the log: appended now, or by the original of a duplicate.
     *
     * @return true for {@link Outcome#APPENDED} and {@link Outcome#DUPLICATE}
     */
    public boolean succeeded() {
        return outcome == Outcome.APPENDED || outcome == Outcome.DUPLICATE;
    }

    /**
     * The first offset appended, or the original batch's for a duplicate; -1 when refused.
     *
     * @return the offset
     */
    public long firstOffset() {
        return firstOffset;
    }

    /**
     * The last offset appended, or the original batch's for a duplicate; -1 when refused.
     *
     * @return the offset
     */
    public long lastOffset() {
        return lastOffset;
    }

    /**
     * A duplicate's original max timestamp (the broker time it was stamped with under {@code LogAppendTime}); -1
     * otherwise.
     *
     * @return the timestamp
     */
    public long duplicateTimestamp() {
        return duplicateTimestamp;
    }

    /**
     * The producer id of the deciding batch (duplicate or refusal); -1 when appended.
     *
     * @return the producer id
     */
    public long producerId() {
        return producerId;
    }

    /**
     * The deciding batch's producer epoch; -1 when appended.
     *
     * @return the epoch
     */
    public short producerEpoch() {
        return producerEpoch;
    }

    /**
     * The producer's epoch as the log knew it; -1 when unknown or appended.
     *
     * @return the epoch
     */
    public short currentProducerEpoch() {
        return currentProducerEpoch;
    }

    /**
     * The deciding batch's first sequence; -1 when appended.
     *
     * @return the sequence
     */
    public int firstSequence() {
        return firstSequence;
    }

    /**
     * The last sequence an out-of-order batch had to follow (-1 for a new epoch or none).
     *
     * @return the sequence
     */
    public int currentLastSequence() {
        return currentLastSequence;
    }

    /**
     * The deciding batch's index in the append, from 0; -1 when appended.
     *
     * @return the index
     */
    public int batchIndex() {
        return batchIndex;
    }

    /**
     * A description of a duplicate or refusal naming producer, epochs and sequences (Kafka's wording); allocates.
     *
     * @return the message, or null when appended
     */
    public String message() {
        switch (outcome) {
            case INVALID_PRODUCER_EPOCH:
                return "Epoch of producer " + producerId + " in batch " + batchIndex + " to " + partition + " is "
                    + producerEpoch + ", which is smaller than the last seen epoch " + currentProducerEpoch;
            case OUT_OF_ORDER_SEQUENCE:
                return producerEpoch != currentProducerEpoch
                    ? "Invalid sequence number for new epoch of producer " + producerId + " in batch " + batchIndex
                        + " to " + partition + ": " + producerEpoch + " (request epoch), " + firstSequence
                        + " (seq. number), " + currentProducerEpoch + " (current producer epoch); a new epoch starts"
                        + " at sequence 0"
                    : "Out of order sequence number for producer " + producerId + " in batch " + batchIndex + " to "
                        + partition + ": " + firstSequence + " (incoming seq. number), " + currentLastSequence
                        + " (current end sequence number), epoch " + producerEpoch;
            case DUPLICATE:
                return "Duplicate of the batch of producer " + producerId + " (epoch " + producerEpoch
                    + ", first sequence " + firstSequence + ") at offsets [" + firstOffset + ", " + lastOffset + "]";
            default:
                return null;
        }
    }

    @Override
    public String toString() {
        return "LeaderAppendInfo{outcome=" + outcome + ", firstOffset=" + firstOffset + ", lastOffset=" + lastOffset
            + (outcome == Outcome.APPENDED ? "" : ", producerId=" + producerId + ", producerEpoch=" + producerEpoch
                + ", currentProducerEpoch=" + currentProducerEpoch + ", firstSequence=" + firstSequence
                + ", currentLastSequence=" + currentLastSequence) + "}";
    }
}
