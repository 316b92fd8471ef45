package io.seglog.replication.wire;

import io.seglog.replication.election.LeaderAndIsr;
import io.seglog.replication.metrics.BrokerTopicMetrics;
import io.seglog.replication.replica.FetchIsolation;
import io.seglog.replication.replica.FetchRequest;
import io.seglog.replication.replica.PartitionFetch;
import io.seglog.replication.replica.ReadResult;
import io.seglog.replication.replica.ReplicaError;
import io.seglog.replication.replica.ReplicaManager;
import io.seglog.replication.transport.LiveBroker;
import io.seglog.replication.transport.PartitionStateInfo;
import io.seglog.storage.TopicId;
import io.seglog.storage.TopicPartition;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * Kafka's Fetch, v4 to v18, over the replica layer: v12 adds the last fetched epoch and the diverging epoch; v13 names
 * topics by id (KIP-516: an id the metadata cache does not know answers UNKNOWN_TOPIC_ID, an id that is not the
 * partition log's INCONSISTENT_TOPIC_ID, as Kafka's ReplicaManager does); v15 moves the replica id into
 * {@code ReplicaState} (KIP-903); v16 answers NOT_LEADER_OR_FOLLOWER and FENCED_LEADER_EPOCH with the current leader
 * and its endpoint (KIP-951); v17 adds the follower's directory id and v18 its high watermark (KIP-853, KIP-1166),
 * which a broker without JBOD or KRaft reads and ignores, as tagged fields. Records go out as zero-copy slices of the
 * segment files ({@link SliceRecords}).
 *
 * <p>Stateless apart from its collaborators; runs on a connection's event loop and never blocks.
 */
final class FetchHandler {
    /** Kafka's FetchResponse.INVALID_HIGH_WATERMARK and friends, for a partition answered with an error only. */
    private static final long INVALID_OFFSET = -1L;

    private final ReplicaManager replicas;
    private final ClusterView cluster;
    private final BrokerTopicMetrics topicMetrics;

    FetchHandler(final ReplicaManager replicas, final ClusterView cluster, final BrokerTopicMetrics topicMetrics) {
        this.replicas = replicas;
        this.cluster = cluster;
        this.topicMetrics = topicMetrics;
    }

    /**
     * One partition of the request, in request order: either read ({@code readIndex} into the replica layer's
     * answers) or answered at once with {@code error}.
     */
    private record Slot(TopicId topicId, String topic, int partition, int readIndex, ReplicaError error) {
    }

    CompletionStage<ApiMessage> fetch(final KafkaRequest request) {
        final FetchRequestData req = (FetchRequestData) request.body();
        final short version = request.version();
        if (req.sessionId() != 0) {
            // Seglog keeps no fetch sessions and never hands out an id; a client with one is confused.
            return CompletableFuture.completedFuture(
                new FetchResponseData().setErrorCode(Errors.FETCH_SESSION_ID_NOT_FOUND.code()));
        }
        final boolean byId = version >= 13;
        final Map<TopicId, String> names = byId ? cluster.topicNames() : Map.of();
        final List<PartitionFetch> parts = new ArrayList<>();
        final List<Slot> slots = new ArrayList<>();
        for (final FetchRequestData.FetchTopic topic : req.topics()) {
            final TopicId id = byId ? TopicIds.of(topic.topicId()) : TopicId.ZERO;
            final String name = byId ? names.get(id) : topic.topic();
            for (final FetchRequestData.FetchPartition p : topic.partitions()) {
                if (name == null) {
                    slots.add(new Slot(id, null, p.partition(), -1, ReplicaError.UNKNOWN_TOPIC_ID));
                    continue;
                }
                final TopicPartition tp = new TopicPartition(name, p.partition());
                if (byId && !consistent(tp, id)) {
                    slots.add(new Slot(id, name, p.partition(), -1, ReplicaError.INCONSISTENT_TOPIC_ID));
                    continue;
                }
                slots.add(new Slot(id, name, p.partition(), parts.size(), null));
                parts.add(new PartitionFetch(tp, p.currentLeaderEpoch(), p.fetchOffset(), p.lastFetchedEpoch(),
                    p.logStartOffset(), SeglogTags.readDurableOffset(p.unknownTaggedFields()), p.partitionMaxBytes()));
            }
        }
        final boolean readCommitted = req.isolationLevel() == 1;
        if (parts.isEmpty()) {
            return CompletableFuture.completedFuture(response(slots, List.of(), readCommitted, version));
        }
        // v15+: the replica's id and epoch travel in ReplicaState (KIP-903); the old field is -1 there.
        final int replicaId = version >= 15 ? req.replicaState().replicaId() : req.replicaId();
        final long replicaEpoch = version >= 15 ? req.replicaState().replicaEpoch() : -1;
        final FetchRequest fetch = new FetchRequest(replicaId, replicaEpoch, req.maxWaitMs(), req.minBytes(),
            req.maxBytes(), parts, FetchIsolation.ofConsumer(req.isolationLevel()));
        return replicas.fetch(fetch).thenApply(results -> {
            if (replicaId < 0) {
                count(slots, results);
            }
            return response(slots, results, readCommitted, version);
        });
    }

    /** Kafka's BrokerTopicMetrics of a consumer's fetch: each partition read, and the bytes sent. */
    private void count(final List<Slot> slots, final List<ReadResult> results) {
        for (final Slot slot : slots) {
            if (slot.error() == null) {
                final ReadResult r = results.get(slot.readIndex());
                topicMetrics.fetched(slot.topic(), r.records() == null ? 0 : r.records().sizeInBytes());
            }
        }
    }

    /** Kafka's hasConsistentTopicId: a log without an id, or with the request's, is consistent. */
    private boolean consistent(final TopicPartition tp, final TopicId id) {
        final Optional<TopicId> logId = replicas.partition(tp).flatMap(p -> p.log().topicId());
        return logId.isEmpty() || logId.get().equals(id);
    }

    /** A read_committed answer's aborted transactions, (producer id, first offset) pairs, as the response lists them. */
    private static List<FetchResponseData.AbortedTransaction> aborted(final long[] pairs) {
        final List<FetchResponseData.AbortedTransaction> out = new ArrayList<>(pairs == null ? 0 : pairs.length / 2);
        for (int i = 0; pairs != null && i < pairs.length; i += 2) {
            out.add(new FetchResponseData.AbortedTransaction().setProducerId(pairs[i]).setFirstOffset(pairs[i + 1]));
        }
        return out;
    }

    private ApiMessage response(final List<Slot> slots, final List<ReadResult> results, final boolean readCommitted,
                                final short version) {
        final FetchResponseData resp = new FetchResponseData().setSessionId(0).setErrorCode(Errors.NONE.code());
        final Map<Object, FetchResponseData.FetchableTopicResponse> topics = new LinkedHashMap<>();
        final Set<Integer> leadersNamed = new TreeSet<>();
        final Map<TopicPartition, PartitionStateInfo> states = version >= 16 ? cluster.partitions() : Map.of();
        final Map<Integer, LiveBroker> live = version >= 16 ? cluster.liveBrokers() : Map.of();
        for (final Slot slot : slots) {
            final FetchResponseData.PartitionData p;
            if (slot.error() != null) {
                p = new FetchResponseData.PartitionData().setPartitionIndex(slot.partition())
                    .setErrorCode(slot.error().code()).setHighWatermark(INVALID_OFFSET)
                    .setLastStableOffset(INVALID_OFFSET).setLogStartOffset(INVALID_OFFSET)
                    .setRecords(MemoryRecords.EMPTY);
            } else {
                final ReadResult r = results.get(slot.readIndex());
                p = new FetchResponseData.PartitionData()
                    .setPartitionIndex(slot.partition())
                    .setErrorCode(r.error().code())
                    .setHighWatermark(r.highWatermark())
                    .setLastStableOffset(r.lastStableOffset() >= 0 ? r.lastStableOffset() : r.highWatermark())
                    .setLogStartOffset(r.logStartOffset())
                    .setAbortedTransactions(readCommitted ? aborted(r.abortedTransactions()) : null)
                    .setPreferredReadReplica(-1)
                    .setRecords(r.records() == null ? MemoryRecords.EMPTY : new SliceRecords(r.records()));
                if (!r.divergingEpoch().isUndefined()) {
                    p.setDivergingEpoch(new FetchResponseData.EpochEndOffset().setEpoch(r.divergingEpoch().epoch())
                        .setEndOffset(r.divergingEpoch().endOffset()));
                }
                if (version >= 16 && (r.error() == ReplicaError.NOT_LEADER_OR_FOLLOWER
                    || r.error() == ReplicaError.FENCED_LEADER_EPOCH)) {
                    // KIP-951: the client learns the new leader without a Metadata round trip.
                    final PartitionStateInfo state = states.get(new TopicPartition(slot.topic(), slot.partition()));
                    final LeaderAndIsr lai = state == null ? null : state.leaderAndIsr();
                    if (lai != null && lai.hasLeader() && live.containsKey(lai.leader())) {
                        p.setCurrentLeader(new FetchResponseData.LeaderIdAndEpoch().setLeaderId(lai.leader())
                            .setLeaderEpoch(lai.leaderEpoch()));
                        leadersNamed.add(lai.leader());
                    }
                }
            }
            final boolean byId = version >= 13;
            topics.computeIfAbsent(byId ? slot.topicId() : slot.topic(), k -> byId
                    ? new FetchResponseData.FetchableTopicResponse().setTopicId(TopicIds.uuid(slot.topicId()))
                    : new FetchResponseData.FetchableTopicResponse().setTopic(slot.topic()))
                .partitions().add(p);
        }
        resp.setResponses(new ArrayList<>(topics.values()));
        for (final int id : leadersNamed) {
            final LiveBroker b = live.get(id);
            resp.nodeEndpoints().add(new FetchResponseData.NodeEndpoint().setNodeId(id).setHost(b.host())
                .setPort(b.port()).setRack(b.rack().orElse(null)));
        }
        return resp;
    }
}
