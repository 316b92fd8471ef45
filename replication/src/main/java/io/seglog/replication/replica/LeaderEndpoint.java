package io.seglog.replication.replica;

import io.seglog.storage.TopicPartition;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A follower's connection to one leader broker: the three requests a fetcher sends (Kafka's {@code LeaderEndPoint}).
 * The wire layer implements it over Kafka's protocol; a simulation may carry the same requests in memory.
 */
public interface LeaderEndpoint extends AutoCloseable {
    /**
     * Fetches.
     *
     * @param request the fetch (replica id = this broker)
     * @return completes with the partitions' answers (in any order), which the caller closes once it has used them, or
     *     exceptionally when the leader could not be reached or the request timed out. A caller that stops waiting
     *     (cancels the future) leaves it to the endpoint to close an answer that arrives after that.
     */
    CompletableFuture<FetchResponse> fetch(FetchRequest request);

    /**
     * Asks where epochs end (OffsetsForLeaderEpoch).
     *
     * @param replicaId this broker
     * @param epochs    partition to {currentLeaderEpoch, leaderEpoch asked about}
     * @return completes with the answers
     */
    CompletableFuture<Map<TopicPartition, EpochResult>> offsetsForLeaderEpoch(int replicaId,
                                                                            Map<TopicPartition, int[]> epochs);

    /**
     * Asks for the leader's earliest or latest offsets (ListOffsets as a replica: the latest is the log end).
     *
     * @param replicaId          this broker
     * @param currentLeaderEpochs partition to the current leader epoch
     * @param timestamp          {@code PartitionLog.EARLIEST_TIMESTAMP} or {@code LATEST_TIMESTAMP}
     * @return completes with the answers
     */
    CompletableFuture<Map<TopicPartition, OffsetResult>> listOffsets(int replicaId,
                                                                   Map<TopicPartition, Integer> currentLeaderEpochs,
                                                                   long timestamp);

    /** Closes the connection; requests in flight fail. */
    @Override
    void close();

    /** Opens endpoints. */
    @FunctionalInterface
    interface Factory {
        /**
         * Opens a connection to a leader.
         *
         * @param brokerId the leader
         * @param host     its host
         * @param port     its port
         * @return the endpoint, owned by the caller
         */
        LeaderEndpoint open(int brokerId, String host, int port);
    }
}
