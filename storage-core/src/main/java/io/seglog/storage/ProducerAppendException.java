package io.seglog.storage;

/**
 * A leader append refused by its producer's state (thrown by {@link PartitionLog#appendAsLeader(java.nio.ByteBuffer,
 * int)}; the overload that takes a {@link LeaderAppendResult.Handler} answers with an {@link AppendOutcome} instead).
 * Names the producer id, both epochs and the sequences; nothing was appended.
 */
public abstract class ProducerAppendException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final long producerId;
    private final short producerEpoch;
    private final short currentProducerEpoch;
    private final int firstSequence;
    private final int currentLastSequence;

    ProducerAppendException(final LeaderAppendResult info) {
        super(info.message());
        this.producerId = info.producerId();
        this.producerEpoch = info.producerEpoch();
        this.currentProducerEpoch = info.currentProducerEpoch();
        this.firstSequence = info.firstSequence();
        this.currentLastSequence = info.currentLastSequence();
    }

    /**
     * The refused batch's producer id.
     *
     * @return the producer id
     */
    public long producerId() {
        return producerId;
    }

    /**
     * The refused batch's producer epoch.
     *
     * @return the epoch
     */
    public short producerEpoch() {
        return producerEpoch;
    }

    /**
     * The producer's epoch as the log knew it.
     *
     * @return the epoch
     */
    public short currentProducerEpoch() {
        return currentProducerEpoch;
    }

    /**
     * The refused batch's first sequence.
     *
     * @return the sequence
     */
    public int firstSequence() {
        return firstSequence;
    }

    /**
     * The last sequence the batch had to follow (-1 for a new epoch or none).
     *
     * @return the sequence
     */
    public int currentLastSequence() {
        return currentLastSequence;
    }
}
