package io.seglog.storage;

/**
 * The answer to an OffsetsForLeaderEpoch question (KIP-101/KIP-279): the largest leader epoch at or below the
 * requested one that this log knows, and the offset where it ended here (the start offset of the next known epoch,
 * or the log end offset for the latest epoch).
 *
 * @param epoch     that epoch, or {@link #UNDEFINED_EPOCH}
 * @param endOffset where it ended, or {@link #UNDEFINED_EPOCH_OFFSET}
 */
public record EpochEndOffset(int epoch, long endOffset) {
    /** Kafka's {@code UNDEFINED_EPOCH}. */
    public static final int UNDEFINED_EPOCH = -1;
    /** Kafka's {@code UNDEFINED_EPOCH_OFFSET}. */
    public static final long UNDEFINED_EPOCH_OFFSET = -1L;
    /** The undefined answer: the log knows no epoch at or below the one asked about. */
    public static final EpochEndOffset UNDEFINED = new EpochEndOffset(UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET);

    /**
     * Whether the answer is undefined.
     *
     * @return whether both fields are undefined
     */
    public boolean isUndefined() {
        return epoch == UNDEFINED_EPOCH && endOffset == UNDEFINED_EPOCH_OFFSET;
    }
}
