package io.seglog.replication.policy;

import io.seglog.storage.EpochEndOffset;

/**
 * How a leader answers a follower's fetch that names the epoch of the last batch the follower holds (KIP-595's
 * {@code LastFetchedEpoch}, used by Kafka's followers since 2.8, KAFKA-10554; Kafka's {@code Partition.readRecords}):
 * the leader looks up where that epoch ends in its own log and
 * <ul>
 *   <li>answers {@link Outcome#OUT_OF_RANGE} when it knows no such epoch, or the fetch offset is below its log start
 *       (the follower then resets from the leader's log start or end);</li>
 *   <li>answers {@link Outcome#DIVERGING} with that end when the largest epoch it knows at or below the follower's
 *       is smaller than it, or that epoch ended before the fetch offset: the follower's log holds records the
 *       leader's does not, and it must truncate before it may append (nothing is read, and the follower's progress
 *       is not recorded);</li>
 *   <li>else {@link Outcome#READ}: the logs agree up to the fetch offset.</li>
 * </ul>
 * A fetch without a last fetched epoch (a consumer's, or a follower with an empty log) is read as it is.
 *
 * <p>Stateless and thread-safe.
 */
public final class FetchDivergence {
    /** No last fetched epoch in the request. */
    public static final int NO_EPOCH = -1;

    private FetchDivergence() {
    }

    /** What the leader does with the fetch. */
    public enum Outcome {
        /** Read from the fetch offset. */
        READ,
        /** Answer with the diverging epoch and its end offset, and no records. */
        DIVERGING,
        /** Answer OFFSET_OUT_OF_RANGE. */
        OUT_OF_RANGE
    }

    /**
     * Decides.
     *
     * @param lastFetchedEpoch the follower's last fetched epoch, or {@link #NO_EPOCH}
     * @param fetchOffset      the follower's fetch offset
     * @param logStartOffset   the leader's log start offset
     * @param epochEnd         the leader's answer for {@code lastFetchedEpoch} (its {@code endOffsetForEpoch});
     *                         ignored when there is no last fetched epoch
     * @return the outcome
     */
    public static Outcome decide(final int lastFetchedEpoch, final long fetchOffset, final long logStartOffset,
                                 final EpochEndOffset epochEnd) {
        if (lastFetchedEpoch < 0) {
            return Outcome.READ;
        }
        if (epochEnd.isUndefined() || fetchOffset < logStartOffset) {
            return Outcome.OUT_OF_RANGE;
        }
        if (epochEnd.epoch() < lastFetchedEpoch || epochEnd.endOffset() < fetchOffset) {
            return Outcome.DIVERGING;
        }
        return Outcome.READ;
    }
}
