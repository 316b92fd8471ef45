package io.seglog.storage;

import io.seglog.storage.log.LeaderAppendSink;

/**
 * The log's one answer to a leader append ({@link PartitionLog#appendAsLeader(java.nio.ByteBuffer, int, Handler)}):
 * its {@link AppendOutcome} and what each outcome needs.
 * <ul>
 *   <li>{@link AppendOutcome#APPENDED}: {@link #firstOffset()}, {@link #lastOffset()}, {@link #logAppendTimeMs()},
 *       {@link #logStartOffset()};</li>
 *   <li>{@link AppendOutcome#DUPLICATE}: the same, for the original batch;</li>
 *   <li>{@link AppendOutcome#OUT_OF_ORDER_SEQUENCE} and {@link AppendOutcome#INVALID_PRODUCER_EPOCH}:
 *       {@link #producerId()}, {@link #producerEpoch()}, {@link #currentProducerEpoch()}, {@link #firstSequence()},
 *       {@link #currentLastSequence()} and {@link #batchIndex()} name the deciding batch and what the log knew;</li>
 *   <li>{@link AppendOutcome#FENCED_LEADER_EPOCH}: {@link #leaderEpoch()} and {@link #latestLeaderEpoch()}.</li>
 * </ul>
 *
 * <p>Ownership: a partition log owns one, which its writer fills under the log's append lock and hands to the
 * caller's {@link Handler} before releasing the lock; the handler reads what it needs (or copies the whole answer
 * with {@link #copyFrom}) and must not keep it, since the next append overwrites it. So the answer costs no
 * allocation and needs no lock of its own. A caller's own copy is the caller's to guard.
 *
 * <p>Not thread-safe.
 */
public final class LeaderAppendResult {
    /**
     * Reads the log's answer under the log's append lock, in the appending thread. It must be quick and must not
     * call the log's write methods (append, truncate, close); what it returns, the append returns.
     *
     * @param <T> what the handler makes of the answer
     */
    @FunctionalInterface
    public interface Handler<T> {
        /**
         * Reads the answer to the append that just ended.
         *
         * @param result the log's answer, valid during this call only
         * @return the caller's value, returned by the append
         */
        T onLeaderAppend(LeaderAppendResult result);
    }

    /** The writer's view of this answer, made once so that filling it allocates nothing. */
    private final LeaderAppendSink sink = new Sink();
    private String partition = "";
    private AppendOutcome outcome = AppendOutcome.APPENDED;
    private boolean logAppendTime;
    private int leaderEpoch = -1;
    private int latestLeaderEpoch = -1;
    private int sizeInBytes;
    private long firstOffset = -1;
    private long lastOffset = -1;
    private long logAppendTimeMs = -1;
    private long logStartOffset = -1;
    private long producerId = -1;
    private short producerEpoch = -1;
    private short currentProducerEpoch = -1;
    private int firstSequence = -1;
    private int currentLastSequence = -1;
    private int batchIndex = -1;
    private int coordinatorEpoch = -1;
    private int currentCoordinatorEpoch = -1;

    /** Creates an empty answer: a log's own, or a caller's copy ({@link #copyFrom}). */
    public LeaderAppendResult() {
    }

    /** Starts the answer to an append: every field back to "unknown". Writer only. */
    void begin(final String where, final int epoch, final int size, final boolean stampsLogAppendTime) {
        partition = where;
        outcome = AppendOutcome.APPENDED;
        logAppendTime = stampsLogAppendTime;
        leaderEpoch = epoch;
        latestLeaderEpoch = -1;
        sizeInBytes = size;
        firstOffset = -1;
        lastOffset = -1;
        logAppendTimeMs = -1;
        logStartOffset = -1;
        setProducer(-1, -1, (short) -1, (short) -1, -1, -1);
        coordinatorEpoch = -1;
        currentCoordinatorEpoch = -1;
    }

    /** Ends the answer: the log start offset after the append. Writer only. */
    void end(final long startOffset) {
        logStartOffset = startOffset;
    }

    /** The writer's view, for the append path below the API. */
    LeaderAppendSink sink() {
        return sink;
    }

    private void setProducer(final int index, final long pid, final short epoch, final short currentEpoch,
                             final int firstSeq, final int currentLastSeq) {
        batchIndex = index;
        producerId = pid;
        producerEpoch = epoch;
        currentProducerEpoch = currentEpoch;
        firstSequence = firstSeq;
        currentLastSequence = currentLastSeq;
    }

    /**
     * Copies another answer into this one, to keep it past its handler.
     *
     * @param other the answer to copy
     * @return this answer, so that {@code mine::copyFrom} is a {@link Handler}
     */
    public LeaderAppendResult copyFrom(final LeaderAppendResult other) {
        partition = other.partition;
        outcome = other.outcome;
        logAppendTime = other.logAppendTime;
        leaderEpoch = other.leaderEpoch;
        latestLeaderEpoch = other.latestLeaderEpoch;
        sizeInBytes = other.sizeInBytes;
        firstOffset = other.firstOffset;
        lastOffset = other.lastOffset;
        logAppendTimeMs = other.logAppendTimeMs;
        logStartOffset = other.logStartOffset;
        setProducer(other.batchIndex, other.producerId, other.producerEpoch, other.currentProducerEpoch,
            other.firstSequence, other.currentLastSequence);
        coordinatorEpoch = other.coordinatorEpoch;
        currentCoordinatorEpoch = other.currentCoordinatorEpoch;
        return this;
    }

    /**
     * What the append did.
     *
     * @return the outcome
     */
    public AppendOutcome outcome() {
        return outcome;
    }

    /**
     * Whether the append was a retry of a batch already in the log (nothing appended).
     *
     * @return true for {@link AppendOutcome#DUPLICATE}
     */
    public boolean duplicate() {
        return outcome == AppendOutcome.DUPLICATE;
    }

    /**
     * Whether the batches are in the log: appended now, or by the original of a duplicate.
     *
     * @return true for {@link AppendOutcome#APPENDED} and {@link AppendOutcome#DUPLICATE}
     */
    public boolean succeeded() {
        return outcome.succeeded();
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
     * Under {@code message.timestamp.type=LogAppendTime}, the broker time stamped into the batches (for a duplicate,
     * the time the original was stamped with); -1 under {@code CreateTime} or when refused.
     *
     * @return the timestamp
     */
    public long logAppendTimeMs() {
        return logAppendTimeMs;
    }

    /**
     * The log start offset after the append (a produce response carries it); -1 when the append ended in an
     * exception.
     *
     * @return the offset
     */
    public long logStartOffset() {
        return logStartOffset;
    }

    /**
     * The append's leader epoch: the epoch the batches were stamped with, or the fenced one.
     *
     * @return the epoch
     */
    public int leaderEpoch() {
        return leaderEpoch;
    }

    /**
     * The log's latest leader epoch, above {@link #leaderEpoch()}, for {@link AppendOutcome#FENCED_LEADER_EPOCH};
     * -1 otherwise.
     *
     * @return the epoch
     */
    public int latestLeaderEpoch() {
        return latestLeaderEpoch;
    }

    /**
     * The bytes of the batches the caller passed (before any re-compression to the topic's codec).
     *
     * @return the size
     */
    public int sizeInBytes() {
        return sizeInBytes;
    }

    /**
     * The producer id of the deciding batch (duplicate or producer refusal); -1 otherwise.
     *
     * @return the producer id
     */
    public long producerId() {
        return producerId;
    }

    /**
     * The deciding batch's producer epoch; -1 when none decided.
     *
     * @return the epoch
     */
    public short producerEpoch() {
        return producerEpoch;
    }

    /**
     * The producer's epoch as the log knew it (for a batch earlier in the same append, as that batch left it); -1
     * when unknown or none decided.
     *
     * @return the epoch
     */
    public short currentProducerEpoch() {
        return currentProducerEpoch;
    }

    /**
     * The deciding batch's first sequence; -1 when none decided.
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
     * A fenced marker's coordinator epoch (-1 otherwise).
     *
     * @return the epoch
     */
    public int coordinatorEpoch() {
        return coordinatorEpoch;
    }

    /**
     * The coordinator epoch of the producer's last marker, when a marker was fenced (-1 otherwise).
     *
     * @return the epoch
     */
    public int currentCoordinatorEpoch() {
        return currentCoordinatorEpoch;
    }

    /**
     * The deciding batch's index in the append, from 0; -1 when none decided.
     *
     * @return the index
     */
    public int batchIndex() {
        return batchIndex;
    }

    /**
     * A description of a duplicate or refusal naming producer, epochs and sequences, or both leader epochs (Kafka's
     * wording where Kafka has one); allocates.
     *
     * @return the message, or null when appended
     */
    public String message() {
        switch (outcome) {
            case FENCED_LEADER_EPOCH:
                return "leaderEpoch=" + leaderEpoch + " is below the latest leader epoch " + latestLeaderEpoch
                    + " of " + partition + " (a fenced leader must not append)";
            case TRANSACTION_COORDINATOR_FENCED:
                return "Invalid coordinator epoch for producer " + producerId + " in " + partition + ": "
                    + coordinatorEpoch + " (zombie), " + currentCoordinatorEpoch + " (current)";
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
        return "LeaderAppendResult{outcome=" + outcome + ", firstOffset=" + firstOffset + ", lastOffset=" + lastOffset
            + ", leaderEpoch=" + leaderEpoch
            + (outcome == AppendOutcome.FENCED_LEADER_EPOCH ? ", latestLeaderEpoch=" + latestLeaderEpoch : "")
            + (outcome == AppendOutcome.APPENDED || outcome == AppendOutcome.FENCED_LEADER_EPOCH ? ""
                : ", producerId=" + producerId + ", producerEpoch=" + producerEpoch + ", currentProducerEpoch="
                    + currentProducerEpoch + ", firstSequence=" + firstSequence + ", currentLastSequence="
                    + currentLastSequence)
            + "}";
    }

    /** The writer's side: each outcome sets its own fields, the rest stay as {@link #begin} left them. */
    private final class Sink implements LeaderAppendSink {
        @Override
        public void appended(final long first, final long last, final long appendTimeMs) {
            outcome = AppendOutcome.APPENDED;
            firstOffset = first;
            lastOffset = last;
            logAppendTimeMs = appendTimeMs;
        }

        @Override
        public void fencedLeaderEpoch(final int epoch, final int latestEpoch) {
            outcome = AppendOutcome.FENCED_LEADER_EPOCH;
            leaderEpoch = epoch;
            latestLeaderEpoch = latestEpoch;
        }

        @Override
        public void duplicate(final int index, final long pid, final short epoch, final int firstSeq,
                              final long first, final long last, final long maxTimestamp) {
            outcome = AppendOutcome.DUPLICATE;
            setProducer(index, pid, epoch, epoch, firstSeq, -1);
            firstOffset = first;
            lastOffset = last;
            logAppendTimeMs = logAppendTime ? maxTimestamp : -1;
        }

        @Override
        public void outOfOrderSequence(final int index, final long pid, final short epoch, final short currentEpoch,
                                       final int firstSeq, final int currentLastSeq) {
            outcome = AppendOutcome.OUT_OF_ORDER_SEQUENCE;
            setProducer(index, pid, epoch, currentEpoch, firstSeq, currentLastSeq);
        }

        @Override
        public void invalidProducerEpoch(final int index, final long pid, final short epoch,
                                         final short currentEpoch, final int firstSeq, final int currentLastSeq) {
            outcome = AppendOutcome.INVALID_PRODUCER_EPOCH;
            setProducer(index, pid, epoch, currentEpoch, firstSeq, currentLastSeq);
        }

        @Override
        public void coordinatorFenced(final int index, final long pid, final short epoch, final int markerEpoch,
                                      final int currentMarkerEpoch) {
            outcome = AppendOutcome.TRANSACTION_COORDINATOR_FENCED;
            setProducer(index, pid, epoch, epoch, -1, -1);
            coordinatorEpoch = markerEpoch;
            currentCoordinatorEpoch = currentMarkerEpoch;
        }
    }
}
