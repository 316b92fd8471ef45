package io.seglog.replication.replica;

import io.seglog.storage.TopicPartition;

/**
 * One partition of a fetch (Kafka's {@code FetchRequest.PartitionData}).
 *
 * @param tp                 the partition
 * @param currentLeaderEpoch the leader epoch the fetcher believes current, or -1 to skip the check
 * @param fetchOffset        the first offset wanted (a follower: its log end offset)
 * @param lastFetchedEpoch   a follower's latest epoch (KIP-595), or -1
 * @param logStartOffset     a follower's log start offset, or -1
 * @param durableOffset      a follower's durable end offset (Seglog's durable acks), or -1
 * @param maxBytes           the most bytes for this partition
 */
public record PartitionFetch(TopicPartition tp, int currentLeaderEpoch, long fetchOffset, int lastFetchedEpoch,
                             long logStartOffset, long durableOffset, int maxBytes) {
}
