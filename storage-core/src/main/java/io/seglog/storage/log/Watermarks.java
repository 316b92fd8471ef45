package io.seglog.storage.log;

/**
 * The two offsets a partition log is told or decides besides its end: the log start offset (below it nothing is
 * readable; raised by retention and DeleteRecords, never lowered except by a full truncation) and the high
 * watermark (below it everything is committed; set by the replication layer, never past the log end, and never
 * deleted by retention). The only writer of both.
 *
 * <p>The stored high watermark may lie outside {@code [logStartOffset, logEndOffset]} for a moment (the end moves
 * without telling this class); {@link #highWatermark(long)} clamps it on every read, as Kafka's
 * {@code updateHighWatermark} does on every write.
 *
 * <p>Threads: the mutators from the log's writer (under its append lock), the reads from any thread.
 */
public final class Watermarks {
    private volatile long logStartOffset;
    private volatile long highWatermark;

    /**
     * Starts with the log start at {@code logStartOffset} and the high watermark there too.
     *
     * @param logStartOffset the first segment's base offset
     */
    public Watermarks(final long logStartOffset) {
        this.logStartOffset = logStartOffset;
        this.highWatermark = logStartOffset;
    }

    /**
     * The log start offset.
     *
     * @return the offset
     */
    public long logStartOffset() {
        return logStartOffset;
    }

    /**
     * The high watermark within {@code [logStartOffset, endOffset]}.
     *
     * @param endOffset the log end offset
     * @return the clamped high watermark
     */
    public long highWatermark(final long endOffset) {
        return Math.max(logStartOffset, Math.min(highWatermark, endOffset));
    }

    /**
     * Sets the high watermark, clamped to {@code [logStartOffset, endOffset]}.
     *
     * @param offset    the new high watermark
     * @param endOffset the log end offset
     * @return the value stored
     */
    public long setHighWatermark(final long offset, final long endOffset) {
        final long clamped = Math.max(logStartOffset, Math.min(offset, endOffset));
        highWatermark = clamped;
        return clamped;
    }

    /**
     * Raises the log start offset; a lower value is ignored.
     *
     * @param offset the new log start offset
     */
    public void raiseLogStartOffset(final long offset) {
        if (offset > logStartOffset) {
            logStartOffset = offset;
        }
    }

    /**
     * A truncation removed every offset at or above {@code newEnd}: the high watermark drops to it when above.
     *
     * @param newEnd the new log end offset
     */
    public void lowerTo(final long newEnd) {
        highWatermark = Math.min(highWatermark, newEnd);
    }

    /**
     * A full truncation restarts the log at {@code offset}: both offsets become it.
     *
     * @param offset the new log start and end
     */
    public void restartAt(final long offset) {
        logStartOffset = offset;
        highWatermark = offset;
    }

    /**
     * Restores the offsets read from a log directory's checkpoints after open, clamped to the log.
     *
     * @param checkpointedLogStart the log-start checkpoint's value (used when above the first segment's base)
     * @param checkpointedHw       the replication checkpoint's value
     * @param firstBaseOffset      the first segment's base offset
     * @param endOffset            the log end offset
     * @return whether either value lay beyond the log end (and was clamped)
     */
    public boolean restore(final long checkpointedLogStart, final long checkpointedHw, final long firstBaseOffset,
                           final long endOffset) {
        if (checkpointedLogStart > firstBaseOffset) {
            logStartOffset = Math.min(checkpointedLogStart, endOffset);
        }
        highWatermark = Math.max(logStartOffset, Math.min(checkpointedHw, endOffset));
        return checkpointedHw > endOffset || checkpointedLogStart > endOffset;
    }
}
