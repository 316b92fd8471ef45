package io.seglog.storage.producer;

/**
 * The answer of a leader append's producer check, reused append after append by the log's writer (it lives under
 * the append lock and is copied out to the caller's own result object before the lock is released): appended, a
 * duplicate of a retained batch (with that batch's original offsets and timestamp), or refused with the producer id,
 * epochs and sequences that decided it.
 *
 * <p>Not thread-safe: the log's writer only.
 */
public final class ProducerVerdict {
    /** The batches were appended; {@link #firstOffset()} and {@link #lastOffset()} are theirs. */
    public static final int APPENDED = 0;
    /** A retry of a retained batch: nothing was appended; the offsets and timestamp are the original batch's. */
    public static final int DUPLICATE = 1;
    /** Kafka's OUT_OF_ORDER_SEQUENCE_NUMBER: a sequence gap, or a new epoch that does not start at 0. */
    public static final int OUT_OF_ORDER_SEQUENCE = 2;
    /** Kafka's INVALID_PRODUCER_EPOCH: the batch's epoch is below the producer's current one (fenced). */
    public static final int INVALID_PRODUCER_EPOCH = 3;

    private int outcome;
    private long firstOffset = -1;
    private long lastOffset = -1;
    private long timestamp = -1;
    private long producerId = -1;
    private short producerEpoch = -1;
    private short currentEpoch = -1;
    private int firstSequence = -1;
    private int currentLastSequence = -1;
    private int batchIndex = -1;

    /** Creates an empty verdict (APPENDED, no offsets). */
    public ProducerVerdict() {
    }

    /**
     * Records an append of {@code [firstOffset, lastOffset]}.
     *
     * @param first the first offset assigned
     * @param last  the last offset assigned
     */
    public void appended(final long first, final long last) {
        reset();
        this.firstOffset = first;
        this.lastOffset = last;
    }

    void reset() {
        outcome = APPENDED;
        firstOffset = -1;
        lastOffset = -1;
        timestamp = -1;
        producerId = -1;
        producerEpoch = -1;
        currentEpoch = -1;
        firstSequence = -1;
        currentLastSequence = -1;
        batchIndex = -1;
    }

    void duplicate(final int index, final long pid, final short epoch, final int firstSeq, final long first,
                   final long last, final long batchTimestamp) {
        set(DUPLICATE, index, pid, epoch, epoch, firstSeq, -1);
        this.firstOffset = first;
        this.lastOffset = last;
        this.timestamp = batchTimestamp;
    }

    void set(final int code, final int index, final long pid, final short epoch, final short current,
             final int firstSeq, final int currentLastSeq) {
        outcome = code;
        batchIndex = index;
        producerId = pid;
        producerEpoch = epoch;
        currentEpoch = current;
        firstSequence = firstSeq;
        currentLastSequence = currentLastSeq;
        firstOffset = -1;
        lastOffset = -1;
        timestamp = -1;
    }

    /**
     * The outcome: {@link #APPENDED}, {@link #DUPLICATE}, {@link #OUT_OF_ORDER_SEQUENCE} or
     * {@link #INVALID_PRODUCER_EPOCH}.
     *
     * @return the code
     */
    public int outcome() {
        return outcome;
    }

    /**
     * The first offset appended, or the duplicate's original first offset; -1 when refused.
     *
     * @return the offset
     */
    public long firstOffset() {
        return firstOffset;
    }

    /**
     * The last offset appended, or the duplicate's original last offset; -1 when refused.
     *
     * @return the offset
     */
    public long lastOffset() {
        return lastOffset;
    }

    /**
     * The duplicate's original max timestamp; -1 otherwise.
     *
     * @return the timestamp
     */
    public long timestamp() {
        return timestamp;
    }

    /**
     * The producer id of the batch that decided a duplicate or a refusal; -1 when appended.
     *
     * @return the producer id
     */
    public long producerId() {
        return producerId;
    }

    /**
     * That batch's producer epoch.
     *
     * @return the epoch, -1 when appended
     */
    public short producerEpoch() {
        return producerEpoch;
    }

    /**
     * The producer's epoch as the log knows it (for a batch earlier in the same append, as that batch left it).
     *
     * @return the epoch, -1 when the producer is unknown or the append went through
     */
    public short currentEpoch() {
        return currentEpoch;
    }

    /**
     * That batch's first sequence.
     *
     * @return the sequence, -1 when appended
     */
    public int firstSequence() {
        return firstSequence;
    }

    /**
     * The producer's last sequence the refused batch had to follow (-1 for none, or for a new epoch).
     *
     * @return the sequence
     */
    public int currentLastSequence() {
        return currentLastSequence;
    }

    /**
     * The index of the deciding batch within the append, from 0; -1 when appended.
     *
     * @return the index
     */
    public int batchIndex() {
        return batchIndex;
    }
}
