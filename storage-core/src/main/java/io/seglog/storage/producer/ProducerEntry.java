package io.seglog.storage.producer;

import static io.seglog.storage.format.RecordBatchDescriptor.NO_PRODUCER_EPOCH;
import static io.seglog.storage.format.RecordBatchDescriptor.NO_SEQUENCE;
import static io.seglog.storage.format.RecordBatchDescriptor.NO_TIMESTAMP;

/**
 * The state of one producer id (Kafka's {@code ProducerStateEntry}): its epoch, the last
 * {@link #BATCHES_RETAINED} batches it wrote in that epoch (oldest first, in a ring of primitive arrays, so adding a
 * batch allocates nothing), its last timestamp, and the transactional fields a snapshot carries.
 *
 * <p>A batch is kept as Kafka's {@code BatchMetadata} keeps it: last sequence, last offset, offset delta
 * ({@code lastOffset - firstOffset}) and max timestamp; its first sequence is derived from the last and the delta,
 * wrapping at {@link Integer#MAX_VALUE} as Kafka's {@code DefaultRecordBatch.decrementSequence} does.
 *
 * <p>Owned by its {@link ProducerStateManager}; not thread-safe.
 */
final class ProducerEntry {
    /** Kafka's {@code ProducerStateEntry.NUM_BATCHES_TO_RETAIN}: the producer's max.in.flight.requests bound. */
    static final int BATCHES_RETAINED = 5;

    private final long producerId;
    private short epoch;
    private int coordinatorEpoch;
    private long lastTimestamp;
    private long currentTxnFirstOffset;
    private final int[] lastSeqs = new int[BATCHES_RETAINED];
    private final long[] lastOffsets = new long[BATCHES_RETAINED];
    private final int[] offsetDeltas = new int[BATCHES_RETAINED];
    private final long[] timestamps = new long[BATCHES_RETAINED];
    /** Ring slot of the oldest batch. */
    private int head;
    private int count;

    /**
     * A producer with no batch yet (Kafka's {@code ProducerStateEntry.empty}).
     *
     * @param producerId the producer id
     */
    ProducerEntry(final long producerId) {
        this(producerId, NO_PRODUCER_EPOCH, -1, NO_TIMESTAMP, -1);
    }

    ProducerEntry(final long producerId, final short epoch, final int coordinatorEpoch, final long lastTimestamp,
                  final long currentTxnFirstOffset) {
        this.producerId = producerId;
        this.epoch = epoch;
        this.coordinatorEpoch = coordinatorEpoch;
        this.lastTimestamp = lastTimestamp;
        this.currentTxnFirstOffset = currentTxnFirstOffset;
    }

    long producerId() {
        return producerId;
    }

    short epoch() {
        return epoch;
    }

    int coordinatorEpoch() {
        return coordinatorEpoch;
    }

    long lastTimestamp() {
        return lastTimestamp;
    }

    /** The first offset of the producer's open transaction, or -1. */
    long currentTxnFirstOffset() {
        return currentTxnFirstOffset;
    }

    boolean isEmpty() {
        return count == 0;
    }

    int batchCount() {
        return count;
    }

    /** The last sequence of the newest batch, or {@code NO_SEQUENCE} without a batch. */
    int lastSeq() {
        return count == 0 ? NO_SEQUENCE : lastSeqs[slot(count - 1)];
    }

    /** The last offset of the newest batch, or -1 without a batch. */
    long lastDataOffset() {
        return count == 0 ? -1L : lastOffsets[slot(count - 1)];
    }

    /** The offset delta of the newest batch, or 0 without a batch. */
    int lastOffsetDelta() {
        return count == 0 ? 0 : offsetDeltas[slot(count - 1)];
    }

    /**
     * Finds a retained batch with exactly this sequence range (Kafka's {@code batchWithSequenceRange}).
     *
     * @return its index, oldest first, or -1
     */
    int findBatch(final int firstSeq, final int lastSeq) {
        for (int i = 0; i < count; i++) {
            final int s = slot(i);
            if (lastSeqs[s] == lastSeq && firstSeq(s) == firstSeq) {
                return i;
            }
        }
        return -1;
    }

    long batchFirstOffset(final int index) {
        final int s = slot(index);
        return lastOffsets[s] - offsetDeltas[s];
    }

    long batchLastOffset(final int index) {
        return lastOffsets[slot(index)];
    }

    long batchTimestamp(final int index) {
        return timestamps[slot(index)];
    }

    int batchFirstSeq(final int index) {
        return firstSeq(slot(index));
    }

    int batchLastSeq(final int index) {
        return lastSeqs[slot(index)];
    }

    /**
     * Adds a data batch (Kafka's {@code addBatch}): a new epoch forgets the batches of the old one; the oldest of
     * {@link #BATCHES_RETAINED} goes to make room.
     */
    void addBatch(final short batchEpoch, final int lastSeq, final long lastOffset, final int offsetDelta,
                  final long timestamp) {
        maybeUpdateEpoch(batchEpoch);
        final int s;
        if (count == BATCHES_RETAINED) {
            s = head;
            head = (head + 1) % BATCHES_RETAINED;
        } else {
            s = slot(count);
            count++;
        }
        lastSeqs[s] = lastSeq;
        lastOffsets[s] = lastOffset;
        offsetDeltas[s] = offsetDelta;
        timestamps[s] = timestamp;
        lastTimestamp = timestamp;
    }

    /**
     * A transactional data batch that begins a transaction records its first offset.
     *
     * @return whether a transaction began (none was open)
     */
    boolean beginTransactionIfNone(final long firstOffset) {
        if (currentTxnFirstOffset < 0) {
            currentTxnFirstOffset = firstOffset;
            return true;
        }
        return false;
    }

    /**
     * A transaction marker (Kafka's {@code update(producerEpoch, coordinatorEpoch, lastTimestamp)}): the epoch, the
     * coordinator epoch and the timestamp are taken, the open transaction ends.
     */
    void onMarker(final short markerEpoch, final int markerCoordinatorEpoch, final long timestamp) {
        maybeUpdateEpoch(markerEpoch);
        coordinatorEpoch = markerCoordinatorEpoch;
        currentTxnFirstOffset = -1;
        lastTimestamp = timestamp;
    }

    private void maybeUpdateEpoch(final short newEpoch) {
        if (epoch != newEpoch) {
            count = 0;
            head = 0;
            epoch = newEpoch;
        }
    }

    private int firstSeq(final int s) {
        return decrementSequence(lastSeqs[s], offsetDeltas[s]);
    }

    private int slot(final int index) {
        return (head + index) % BATCHES_RETAINED;
    }

    /** Kafka's {@code DefaultRecordBatch.incrementSequence}: sequences wrap from Integer.MAX_VALUE to 0. */
    static int incrementSequence(final int sequence, final int increment) {
        if (sequence == NO_SEQUENCE) {
            return NO_SEQUENCE;
        }
        if (sequence > Integer.MAX_VALUE - increment) {
            return increment - (Integer.MAX_VALUE - sequence) - 1;
        }
        return sequence + increment;
    }

    /** Kafka's {@code DefaultRecordBatch.decrementSequence}. */
    static int decrementSequence(final int sequence, final int decrement) {
        if (sequence < decrement) {
            return Integer.MAX_VALUE - (decrement - sequence) + 1;
        }
        return sequence - decrement;
    }

    @Override
    public String toString() {
        return "ProducerEntry{producerId=" + producerId + ", epoch=" + epoch + ", lastSeq=" + lastSeq()
            + ", lastOffset=" + lastDataOffset() + ", batches=" + count + ", lastTimestamp=" + lastTimestamp
            + ", coordinatorEpoch=" + coordinatorEpoch + ", currentTxnFirstOffset=" + currentTxnFirstOffset + "}";
    }
}
