package io.seglog.replication.policy;

import io.seglog.storage.EpochEndOffset;

/**
 * Where a follower truncates when its leader says where an epoch ends, in a fetch's diverging epoch or an
 * OffsetsForLeaderEpoch answer (KIP-101 and KIP-279; Kafka's {@code AbstractFetcherThread.getOffsetTruncationState}).
 * The follower never truncates to its high watermark: that rule lost acknowledged records (KIP-101 scenario 1) and let
 * logs diverge (scenario 2).
 *
 * <ul>
 *   <li>The leader knows no such epoch (undefined end offset): the follower cannot tell where the logs agree.
 *       Kafka truncates to its fetch offset (its log end, so nothing); Seglog does the same and then fetches, which
 *       the leader answers OUT_OF_RANGE or with a diverging epoch it does know.</li>
 *   <li>The follower knows the leader's epoch: it truncates to the smaller of the two ends (and its own log end), and
 *       is done.</li>
 *   <li>The follower does not know the leader's epoch (KIP-279): it truncates to the end of the largest epoch it
 *       knows below that one, and asks again with its new latest epoch.</li>
 *   <li>The follower knows no epoch at or below the leader's: every epoch it holds is newer, so it truncates to the
 *       leader's end offset.</li>
 * </ul>
 *
 * <p>Stateless and thread-safe.
 */
public final class FollowerTruncation {
    private FollowerTruncation() {
    }

    /**
     * Where to truncate and whether that settles it.
     *
     * @param offset   the offset to truncate to (the new log end offset)
     * @param complete whether the follower may fetch from there, or must ask again (OffsetsForLeaderEpoch)
     */
    public record Result(long offset, boolean complete) {
    }

    /**
     * Decides.
     *
     * @param leader            the leader's answer: the largest epoch it knows at or below the one asked about, and
     *                          where that epoch ends in its log
     * @param followerEpochEnd  the follower's own answer for the leader's epoch ({@code endOffsetForEpoch(leader.epoch)})
     * @param followerLogEndOffset the follower's log end offset
     * @return where to truncate
     */
    public static Result decide(final EpochEndOffset leader, final EpochEndOffset followerEpochEnd,
                                final long followerLogEndOffset) {
        if (leader.endOffset() == EpochEndOffset.UNDEFINED_EPOCH_OFFSET) {
            return new Result(followerLogEndOffset, true);
        }
        if (leader.epoch() == EpochEndOffset.UNDEFINED_EPOCH) {
            return new Result(Math.min(leader.endOffset(), followerLogEndOffset), true);
        }
        if (followerEpochEnd.isUndefined()) {
            return new Result(Math.min(leader.endOffset(), followerLogEndOffset), true);
        }
        if (followerEpochEnd.epoch() != leader.epoch()) {
            return new Result(Math.min(followerEpochEnd.endOffset(), followerLogEndOffset), false);
        }
        return new Result(Math.min(Math.min(followerEpochEnd.endOffset(), leader.endOffset()), followerLogEndOffset),
            true);
    }
}
