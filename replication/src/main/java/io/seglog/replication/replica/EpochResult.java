package io.seglog.replication.replica;

import io.seglog.storage.EpochEndOffset;

/**
 * A partition's answer to OffsetsForLeaderEpoch.
 *
 * @param error    NONE, or why there is no answer
 * @param epochEnd the largest epoch at or below the one asked about and where it ends (undefined when unknown)
 */
public record EpochResult(ReplicaError error, EpochEndOffset epochEnd) {
    /**
     * A failed lookup.
     *
     * @param error the error
     * @return the result
     */
    public static EpochResult error(final ReplicaError error) {
        return new EpochResult(error, EpochEndOffset.UNDEFINED);
    }
}
