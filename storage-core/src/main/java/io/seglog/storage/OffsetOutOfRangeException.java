package io.seglog.storage;

/**
 * A read asked for an offset outside the log. Carries the valid range so the caller (a consumer, a follower)
 * can reset to an offset that exists: {@code [logStartOffset, logEndOffset]}, where reading at
 * {@code logEndOffset} is legal and returns nothing.
 *
 * <p>Immutable, so thread-safe.
 */
public final class OffsetOutOfRangeException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final long requestedOffset;
    private final long logStartOffset;
    private final long logEndOffset;

    /**
     * Creates the exception.
     *
     * @param partition       a name for the log (its directory), used in the message
     * @param requestedOffset the offset asked for
     * @param logStartOffset  the first offset the log holds
     * @param logEndOffset    the offset the next append will get
     */
    public OffsetOutOfRangeException(final String partition, final long requestedOffset, final long logStartOffset,
                                     final long logEndOffset) {
        super("offset=" + requestedOffset + " is out of range [logStartOffset=" + logStartOffset + ", logEndOffset="
            + logEndOffset + "] of " + partition);
        this.requestedOffset = requestedOffset;
        this.logStartOffset = logStartOffset;
        this.logEndOffset = logEndOffset;
    }

    /**
     * The offset that was asked for.
     *
     * @return the requested offset
     */
    public long requestedOffset() {
        return requestedOffset;
    }

    /**
     * The first offset of the valid range.
     *
     * @return the log start offset when the read was refused
     */
    public long logStartOffset() {
        return logStartOffset;
    }

    /**
     * The end of the valid range (inclusive: reading there returns nothing).
     *
     * @return the log end offset when the read was refused
     */
    public long logEndOffset() {
        return logEndOffset;
    }
}
