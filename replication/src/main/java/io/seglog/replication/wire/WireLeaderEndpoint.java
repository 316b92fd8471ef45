package io.seglog.replication.wire;

import io.seglog.replication.replica.EpochResult;
import io.seglog.replication.replica.FetchRequest;
import io.seglog.replication.replica.FetchResponse;
import io.seglog.replication.replica.FetchedPartition;
import io.seglog.replication.replica.LeaderEndpoint;
import io.seglog.replication.replica.OffsetResult;
import io.seglog.replication.replica.PartitionFetch;
import io.seglog.replication.replica.ReplicaError;
import io.seglog.storage.EpochEndOffset;
import io.seglog.storage.TopicPartition;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * A follower's {@link LeaderEndpoint} over Kafka's protocol (Kafka's {@code RemoteLeaderEndPoint}): Fetch v12 with
 * the replica id, {@code LastFetchedEpoch} and, for durable acks, Seglog's durable-offset tag; OffsetForLeaderEpoch
 * v4; ListOffsets v7 as a replica. Fixed versions: Seglog brokers serve them all (Kafka's followers pick v12 the same
 * way when there are no topic ids).
 *
 * <p>Thread-safe.
 */
public final class WireLeaderEndpoint implements LeaderEndpoint {
    static final short FETCH_VERSION = 12;
    static final short OFFSET_FOR_LEADER_EPOCH_VERSION = 4;
    static final short LIST_OFFSETS_VERSION = 7;

    private final WireClient client;

    /**
     * @param client the connection to the leader (owned by this endpoint from now on)
     */
    public WireLeaderEndpoint(final WireClient client) {
        this.client = client;
    }

    @Override
    public CompletableFuture<FetchResponse> fetch(final FetchRequest request) {
        final FetchRequestData data = new FetchRequestData()
            .setReplicaId(request.replicaId())
            .setMaxWaitMs(request.maxWaitMs())
            .setMinBytes(request.minBytes())
            .setMaxBytes(request.maxBytes())
            .setIsolationLevel((byte) 0)
            .setSessionId(0)
            .setSessionEpoch(-1);
        final Map<String, FetchRequestData.FetchTopic> topics = new LinkedHashMap<>();
        for (final PartitionFetch p : request.partitions()) {
            final FetchRequestData.FetchPartition part = new FetchRequestData.FetchPartition()
                .setPartition(p.tp().partition())
                .setCurrentLeaderEpoch(p.currentLeaderEpoch())
                .setFetchOffset(p.fetchOffset())
                .setLastFetchedEpoch(p.lastFetchedEpoch())
                .setLogStartOffset(p.logStartOffset())
                .setPartitionMaxBytes(p.maxBytes());
            if (p.durableOffset() >= 0) {
                part.unknownTaggedFields().addAll(SeglogTags.durableOffset(p.durableOffset()));
            }
            topics.computeIfAbsent(p.tp().topic(), t -> new FetchRequestData.FetchTopic().setTopic(t))
                .partitions().add(part);
        }
        data.setTopics(new ArrayList<>(topics.values()));
        // Decoded in place: each partition's records are a view into the receive buffer (no copy, no heap buffer of
        // up to fetch.response.max.bytes per answer), held until the fetcher has appended them and closes the answer.
        return client.sendInPlace(ApiKeys.FETCH, FETCH_VERSION, data, (message, release) -> {
            final FetchResponseData resp = (FetchResponseData) message;
            final List<FetchedPartition> out = new ArrayList<>();
            if (resp.errorCode() != 0) {
                // A top-level error (no partitions): every partition gets it.
                for (final PartitionFetch p : request.partitions()) {
                    out.add(new FetchedPartition(p.tp(), ReplicaError.ofCode(resp.errorCode()), -1, -1,
                        EpochEndOffset.UNDEFINED, null));
                }
                return new FetchResponse(out, release);
            }
            for (final FetchResponseData.FetchableTopicResponse topic : resp.responses()) {
                for (final FetchResponseData.PartitionData p : topic.partitions()) {
                    final EpochEndOffset diverging = p.divergingEpoch().epoch() < 0 ? EpochEndOffset.UNDEFINED
                        : new EpochEndOffset(p.divergingEpoch().epoch(), p.divergingEpoch().endOffset());
                    final ByteBuffer records = p.records() instanceof MemoryRecords m && m.sizeInBytes() > 0
                        ? m.buffer() : null;
                    out.add(new FetchedPartition(new TopicPartition(topic.topic(), p.partitionIndex()),
                        ReplicaError.ofCode(p.errorCode()), p.highWatermark(), p.logStartOffset(), diverging, records));
                }
            }
            return new FetchResponse(out, release);
        });
    }

    @Override
    public CompletableFuture<Map<TopicPartition, EpochResult>> offsetsForLeaderEpoch(
        final int replicaId, final Map<TopicPartition, int[]> epochs) {
        final OffsetForLeaderEpochRequestData data = new OffsetForLeaderEpochRequestData().setReplicaId(replicaId);
        final Map<String, OffsetForLeaderEpochRequestData.OffsetForLeaderTopic> topics = new LinkedHashMap<>();
        epochs.forEach((tp, e) -> topics.computeIfAbsent(tp.topic(),
                t -> new OffsetForLeaderEpochRequestData.OffsetForLeaderTopic().setTopic(t))
            .partitions().add(new OffsetForLeaderEpochRequestData.OffsetForLeaderPartition()
                .setPartition(tp.partition()).setCurrentLeaderEpoch(e[0]).setLeaderEpoch(e[1])));
        topics.values().forEach(t -> data.topics().add(t));
        return client.send(ApiKeys.OFFSET_FOR_LEADER_EPOCH, OFFSET_FOR_LEADER_EPOCH_VERSION, data).thenApply(m -> {
            final Map<TopicPartition, EpochResult> out = new HashMap<>();
            for (final OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult t
                : ((OffsetForLeaderEpochResponseData) m).topics()) {
                for (final OffsetForLeaderEpochResponseData.EpochEndOffset p : t.partitions()) {
                    final ReplicaError error = ReplicaError.ofCode(p.errorCode());
                    out.put(new TopicPartition(t.topic(), p.partition()), error != ReplicaError.NONE
                        ? EpochResult.error(error)
                        : new EpochResult(error, p.endOffset() < 0 ? EpochEndOffset.UNDEFINED
                            : new EpochEndOffset(p.leaderEpoch(), p.endOffset())));
                }
            }
            return out;
        });
    }

    @Override
    public CompletableFuture<Map<TopicPartition, OffsetResult>> listOffsets(
        final int replicaId, final Map<TopicPartition, Integer> currentLeaderEpochs, final long timestamp) {
        final ListOffsetsRequestData data = new ListOffsetsRequestData().setReplicaId(replicaId)
            .setIsolationLevel((byte) 0);
        final Map<String, ListOffsetsRequestData.ListOffsetsTopic> topics = new LinkedHashMap<>();
        currentLeaderEpochs.forEach((tp, epoch) -> topics.computeIfAbsent(tp.topic(),
                t -> new ListOffsetsRequestData.ListOffsetsTopic().setName(t))
            .partitions().add(new ListOffsetsRequestData.ListOffsetsPartition().setPartitionIndex(tp.partition())
                .setCurrentLeaderEpoch(epoch).setTimestamp(timestamp)));
        data.setTopics(new ArrayList<>(topics.values()));
        return client.send(ApiKeys.LIST_OFFSETS, LIST_OFFSETS_VERSION, data).thenApply(m -> {
            final Map<TopicPartition, OffsetResult> out = new HashMap<>();
            for (final ListOffsetsResponseData.ListOffsetsTopicResponse t : ((ListOffsetsResponseData) m).topics()) {
                for (final ListOffsetsResponseData.ListOffsetsPartitionResponse p : t.partitions()) {
                    out.put(new TopicPartition(t.name(), p.partitionIndex()),
                        new OffsetResult(ReplicaError.ofCode(p.errorCode()), p.offset(), p.timestamp(),
                            p.leaderEpoch()));
                }
            }
            return out;
        });
    }

    @Override
    public void close() {
        client.close();
    }
}
