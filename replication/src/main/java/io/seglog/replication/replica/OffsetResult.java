package io.seglog.replication.replica;

/**
 * A partition's answer to a ListOffsets lookup.
 *
 * @param error       NONE, or why there is no answer
 * @param offset      the offset found, -1 when none
 * @param timestampMs the timestamp of the record found (for a lookup by timestamp), else -1
 * @param leaderEpoch the epoch of the batch holding the offset (the current leader epoch for the log end), -1 when
 *                    unknown
 */
public record OffsetResult(ReplicaError error, long offset, long timestampMs, int leaderEpoch) {
    /**
     * A failed lookup.
     *
     * @param error the error
     * @return the result
     */
    public static OffsetResult error(final ReplicaError error) {
        return new OffsetResult(error, -1, -1, -1);
    }
}
