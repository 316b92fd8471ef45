package io.seglog.storage.checkpoint;

/**
 * One leader epoch and the first offset written in it: a line of the leader-epoch checkpoint and an entry
 * of {@code io.seglog.storage.epoch.LeaderEpochCache}.
 *
 * @param epoch       the leader epoch, zero or more
 * @param startOffset the offset of the first batch written in that epoch, zero or more
 */
public record EpochEntry(int epoch, long startOffset) {
    /**
     * Validates both fields.
     *
     * @param epoch       the leader epoch
     * @param startOffset the start offset
     * @throws IllegalArgumentException naming the field and value when either is negative
     */
    public EpochEntry {
        if (epoch < 0) {
            throw new IllegalArgumentException("epoch=" + epoch + " must be >= 0 (startOffset=" + startOffset + ")");
        }
        if (startOffset < 0) {
            throw new IllegalArgumentException("startOffset=" + startOffset + " must be >= 0 (epoch=" + epoch + ")");
        }
    }
}
