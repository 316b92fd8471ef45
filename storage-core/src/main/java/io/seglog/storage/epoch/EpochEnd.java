package io.seglog.storage.epoch;

/**
 * The answer to an OffsetsForLeaderEpoch question: the largest epoch at or below the requested one that this
 * replica knows, and the offset at which it ended here.
 *
 * @param epoch     that epoch, or {@link LeaderEpochCache#UNDEFINED_EPOCH}
 * @param endOffset the start offset of the next known epoch, the log end offset for the latest epoch, or
 *                  {@link LeaderEpochCache#UNDEFINED_EPOCH_OFFSET}
 */
public record EpochEnd(int epoch, long endOffset) {
    /** The undefined answer: the follower must fall back to its high watermark. */
    public static final EpochEnd UNDEFINED =
        new EpochEnd(LeaderEpochCache.UNDEFINED_EPOCH, LeaderEpochCache.UNDEFINED_EPOCH_OFFSET);

    /**
     * Whether the answer is undefined.
     *
     * @return whether both fields are undefined
     */
    public boolean isUndefined() {
        return epoch == LeaderEpochCache.UNDEFINED_EPOCH && endOffset == LeaderEpochCache.UNDEFINED_EPOCH_OFFSET;
    }
}
