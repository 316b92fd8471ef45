package io.seglog.storage.producer;

import java.util.Arrays;

/**
 * The transactions of one partition that keep its last stable offset (LSO) down (Kafka's {@code ongoingTxns} and
 * {@code unreplicatedTxns}): each open transaction, and each completed one whose marker is not yet known to be below
 * the high watermark. The LSO for a high watermark {@code hw} is the first offset of the earliest of them whose marker
 * is not below {@code hw} (an open one has none), capped at {@code hw}: Kafka's first unstable offset.
 *
 * <p>Owner and only writer: the producer state, under the log's append lock. Readers (fetches, ListOffsets) compute
 * the LSO without a lock from the published array, replaced whole at each change: one small array per transaction
 * begun or completed, nothing per record.
 */
final class UnstableTransactions {
    /** A marker offset that marks an open transaction. */
    private static final long OPEN = Long.MAX_VALUE;
    private static final long[] NONE = new long[0];

    /** Triples (first offset, marker offset or {@link #OPEN}, producer id), sorted by first offset. */
    private volatile long[] published = NONE;

    /**
     * A producer's transaction began at {@code firstOffset}.
     *
     * @param producerId  the producer
     * @param firstOffset its first batch's base offset
     * @param stableBelow markers below this offset are replicated: their transactions are dropped (-1: none known)
     */
    void begin(final long producerId, final long firstOffset, final long stableBelow) {
        final long[] current = purged(published, stableBelow);
        int at = current.length / 3;
        while (at > 0 && current[3 * (at - 1)] > firstOffset) {
            at--; // a snapshot's transactions come in any order; appends come in offset order (at stays the end)
        }
        final long[] next = new long[current.length + 3];
        System.arraycopy(current, 0, next, 0, 3 * at);
        next[3 * at] = firstOffset;
        next[3 * at + 1] = OPEN;
        next[3 * at + 2] = producerId;
        System.arraycopy(current, 3 * at, next, 3 * at + 3, current.length - 3 * at);
        published = next;
    }

    /**
     * The LSO a completed transaction's abort records in the transaction index (Kafka's {@code lastStableOffset(
     * CompletedTxn)}): the first offset of the earliest open transaction of another producer, else the marker's
     * offset + 1.
     *
     * @param producerId   the producer whose transaction completes
     * @param markerOffset its marker's offset
     * @return the offset
     */
    long lastStableOffsetAfter(final long producerId, final long markerOffset) {
        final long[] current = published;
        for (int i = 0; i < current.length; i += 3) {
            if (current[i + 1] == OPEN && current[i + 2] != producerId) {
                return current[i];
            }
        }
        return markerOffset + 1;
    }

    /**
     * A producer's open transaction completed with a marker at {@code markerOffset}: it stays unstable until the
     * marker is below the high watermark.
     *
     * @param producerId   the producer
     * @param markerOffset the marker's offset
     * @param stableBelow  markers below this offset are replicated (-1: none known)
     */
    void complete(final long producerId, final long markerOffset, final long stableBelow) {
        final long[] next = published.clone();
        for (int i = 0; i < next.length; i += 3) {
            if (next[i + 1] == OPEN && next[i + 2] == producerId) {
                next[i + 1] = markerOffset;
                break;
            }
        }
        published = purged(next, stableBelow);
    }

    /** Forgets every transaction (a reload rebuilds them). */
    void clear() {
        published = NONE;
    }

    /**
     * The last stable offset for a high watermark.
     *
     * @param highWatermark the high watermark
     * @return at most {@code highWatermark}
     */
    long lastStableOffset(final long highWatermark) {
        final long[] current = published;
        for (int i = 0; i < current.length; i += 3) {
            if (current[i + 1] >= highWatermark) {
                return Math.min(current[i], highWatermark);
            }
        }
        return highWatermark;
    }

    /**
     * The first offset of the earliest unstable transaction (Kafka's {@code firstUnstableOffset}), or -1.
     *
     * @return the offset
     */
    long firstUnstableOffset() {
        final long[] current = published;
        return current.length == 0 ? -1 : current[0];
    }

    /** @return how many transactions are open */
    int openCount() {
        final long[] current = published;
        int open = 0;
        for (int i = 1; i < current.length; i += 3) {
            if (current[i] == OPEN) {
                open++;
            }
        }
        return open;
    }

    /** The array without the completed transactions whose marker is below {@code stableBelow}. */
    private static long[] purged(final long[] current, final long stableBelow) {
        int keep = 0;
        for (int i = 1; i < current.length; i += 3) {
            if (current[i] >= stableBelow) {
                keep++;
            }
        }
        if (keep * 3 == current.length) {
            return current;
        }
        final long[] next = new long[keep * 3];
        int j = 0;
        for (int i = 0; i < current.length; i += 3) {
            if (current[i + 1] >= stableBelow) {
                next[j] = current[i];
                next[j + 1] = current[i + 1];
                next[j + 2] = current[i + 2];
                j += 3;
            }
        }
        return next;
    }

    @Override
    public String toString() {
        return "UnstableTransactions" + Arrays.toString(published);
    }
}
