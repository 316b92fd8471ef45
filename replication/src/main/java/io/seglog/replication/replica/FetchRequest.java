package io.seglog.replication.replica;

import java.util.List;

/**
 * A fetch, from a follower (replica id 0 or more) or a consumer (-1): the partitions in order, how long the leader
 * may hold it for {@code minBytes}, and the size limit of the answer.
 *
 * @param replicaId    the fetching broker, or -1 for a consumer
 * @param replicaEpoch the fetching broker's epoch, or -1
 * @param maxWaitMs    how long to wait for {@code minBytes}
 * @param minBytes     the fewest bytes worth answering with before the wait ends
 * @param maxBytes     the most bytes in the answer (the first batch is whole even when larger)
 * @param partitions   the partitions, in the order they are read
 * @param isolation    how far it reads: {@link FetchIsolation#LOG_END} for a follower, a consumer's isolation level
 */
public record FetchRequest(int replicaId, long replicaEpoch, int maxWaitMs, int minBytes, int maxBytes,
                           List<PartitionFetch> partitions, FetchIsolation isolation) {
    /** The replica id of a consumer. */
    public static final int CONSUMER_REPLICA_ID = -1;

    /**
     * Copies the list.
     *
     * @param replicaId    the fetching broker, or -1
     * @param replicaEpoch its epoch, or -1
     * @param maxWaitMs    the wait
     * @param minBytes     the fewest bytes
     * @param maxBytes     the most bytes
     * @param partitions   the partitions
     * @param isolation    the isolation; a follower's is always {@link FetchIsolation#LOG_END}
     */
    public FetchRequest {
        partitions = List.copyOf(partitions);
        isolation = replicaId >= 0 ? FetchIsolation.LOG_END : isolation;
    }

    /**
     * A follower's fetch, or a {@code read_uncommitted} consumer's.
     *
     * @param replicaId    the fetching broker, or -1
     * @param replicaEpoch its epoch, or -1
     * @param maxWaitMs    the wait
     * @param minBytes     the fewest bytes
     * @param maxBytes     the most bytes
     * @param partitions   the partitions
     */
    public FetchRequest(final int replicaId, final long replicaEpoch, final int maxWaitMs, final int minBytes,
                        final int maxBytes, final List<PartitionFetch> partitions) {
        this(replicaId, replicaEpoch, maxWaitMs, minBytes, maxBytes, partitions, FetchIsolation.HIGH_WATERMARK);
    }

    /**
     * Whether a follower sent it.
     *
     * @return replica id 0 or more
     */
    public boolean fromFollower() {
        return replicaId >= 0;
    }
}
