package io.seglog.storage.cleaner;

import io.seglog.storage.format.RecordBatch;
import io.seglog.storage.segment.LogSegment;
import java.io.IOException;
import java.util.Arrays;
import org.agrona.collections.Long2ObjectHashMap;

/**
 * Which transactional batches of a log belong to aborted transactions, as its segments' transaction indexes record
 * them (Kafka's cleaner asks {@code collectAbortedTransactions} and tracks them in {@code CleanedTransactionMetadata}).
 * A data batch of producer {@code p} is aborted when an entry of {@code p} spans it: its first offset at or below the
 * batch, its ABORT marker after it (a producer has one transaction at a time, so no other batch of {@code p} lies in
 * that span). The cleaner keeps none of their records and never lets their keys into the offset map: an aborted
 * record is no newer value of its key, and a committed value must not be cleaned away for it.
 *
 * <p>Made once per cleaning round (it allocates); not thread-safe.
 */
final class AbortedBatches {
    /** None: a log without aborted transactions (or a round not started). */
    static final AbortedBatches NONE = new AbortedBatches();

    /** Per producer, its aborted transactions' (first offset, marker offset) pairs, in marker order. */
    private final Long2ObjectHashMap<long[]> spans = new Long2ObjectHashMap<>();
    private int count;

    private AbortedBatches() {
    }

    /**
     * Reads every segment's transaction index.
     *
     * @param segments the log's segments
     * @return the aborted transactions
     * @throws IOException when an index cannot be read
     */
    static AbortedBatches of(final LogSegment[] segments) throws IOException {
        final AbortedBatches aborted = new AbortedBatches();
        for (final LogSegment segment : segments) {
            segment.txnIndex().forEachEntry((producerId, firstOffset, lastOffset, lastStableOffset) ->
                aborted.add(producerId, firstOffset, lastOffset));
        }
        return aborted;
    }

    private void add(final long producerId, final long firstOffset, final long lastOffset) {
        final long[] current = spans.get(producerId);
        final long[] next = current == null ? new long[2] : Arrays.copyOf(current, current.length + 2);
        next[next.length - 2] = firstOffset;
        next[next.length - 1] = lastOffset;
        spans.put(producerId, next);
        count++;
    }

    /**
     * Whether a data batch belongs to an aborted transaction.
     *
     * @param batch a batch, not a control batch
     * @return true when its records were aborted
     */
    boolean isAborted(final RecordBatch batch) {
        if (count == 0 || !batch.isTransactional() || batch.isControl()) {
            return false;
        }
        final long[] pairs = spans.get(batch.producerId());
        if (pairs == null) {
            return false;
        }
        final long base = batch.baseOffset();
        // Markers increase: the first span whose marker is after the batch is the only one that can hold it.
        int lo = 0;
        int hi = pairs.length / 2 - 1;
        while (lo <= hi) {
            final int mid = (lo + hi) >>> 1;
            if (pairs[2 * mid + 1] < base) {
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return lo < pairs.length / 2 && pairs[2 * lo] <= base;
    }

    /** @return how many aborted transactions the indexes hold */
    int count() {
        return count;
    }
}
