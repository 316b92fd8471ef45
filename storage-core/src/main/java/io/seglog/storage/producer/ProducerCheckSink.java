package io.seglog.storage.producer;

/**
 * Where {@link ProducerStateManager#checkLeaderAppend} reports a leader append that must not go ahead: a retry of a
 * retained batch, a sequence gap or a fenced producer. The log's answer to the append implements it, so the check
 * writes the caller's answer directly and no intermediate shape exists. Called at most once per check, by the log's
 * writer under its append lock.
 */
public interface ProducerCheckSink {
    /**
     * A retry of one of the producer's retained batches: nothing is appended and the whole append is answered with
     * that batch's original offsets and timestamp.
     *
     * @param batchIndex    the retried batch's index in the append, from 0
     * @param producerId    its producer id
     * @param producerEpoch its producer epoch (the producer's current one)
     * @param firstSequence its first sequence
     * @param firstOffset   the original batch's first offset
     * @param lastOffset    the original batch's last offset
     * @param maxTimestamp  the original batch's max timestamp (the broker's time under {@code LogAppendTime})
     */
    void duplicate(int batchIndex, long producerId, short producerEpoch, int firstSequence, long firstOffset,
                   long lastOffset, long maxTimestamp);

    /**
     * Kafka's OUT_OF_ORDER_SEQUENCE_NUMBER: a sequence gap, or a new epoch whose first sequence is not 0.
     *
     * @param batchIndex           the refused batch's index in the append, from 0
     * @param producerId           its producer id
     * @param producerEpoch        its producer epoch
     * @param currentEpoch         the producer's epoch as the log (and the batches before it) left it
     * @param firstSequence        its first sequence
     * @param currentLastSequence  the last sequence it had to follow, -1 for a new epoch or none
     */
    void outOfOrderSequence(int batchIndex, long producerId, short producerEpoch, short currentEpoch,
                            int firstSequence, int currentLastSequence);

    /**
     * Kafka's INVALID_PRODUCER_EPOCH: the batch's producer epoch is below the producer's current one.
     *
     * @param batchIndex           the refused batch's index in the append, from 0
     * @param producerId           its producer id
     * @param producerEpoch        its producer epoch
     * @param currentEpoch         the producer's epoch as the log (and the batches before it) left it
     * @param firstSequence        its first sequence
     * @param currentLastSequence  the producer's last sequence, -1 for none
     */
    void invalidProducerEpoch(int batchIndex, long producerId, short producerEpoch, short currentEpoch,
                              int firstSequence, int currentLastSequence);

    /**
     * Kafka's TRANSACTION_COORDINATOR_FENCED: a transaction marker from a coordinator older than the one that wrote
     * the producer's last marker.
     *
     * @param batchIndex              the refused marker's index in the append, from 0
     * @param producerId              its producer id
     * @param producerEpoch           its producer epoch
     * @param coordinatorEpoch        its coordinator epoch
     * @param currentCoordinatorEpoch the coordinator epoch of the producer's last marker
     */
    void coordinatorFenced(int batchIndex, long producerId, short producerEpoch, int coordinatorEpoch,
                           int currentCoordinatorEpoch);
}
