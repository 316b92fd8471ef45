package io.seglog.replication.wire;

import io.seglog.replication.election.LeaderAndIsr;
import io.seglog.replication.replica.AppendResult;
import io.seglog.replication.replica.EpochResult;
import io.seglog.replication.replica.FetchRequest;
import io.seglog.replication.replica.OffsetResult;
import io.seglog.replication.replica.PartitionFetch;
import io.seglog.replication.replica.ReadResult;
import io.seglog.replication.replica.ReplicaError;
import io.seglog.replication.replica.ReplicaManager;
import io.seglog.replication.transport.LiveBroker;
import io.seglog.replication.transport.PartitionStateInfo;
import io.seglog.storage.TopicPartition;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * A broker's Kafka APIs over its replica layer and metadata cache: Metadata, Produce, Fetch, ListOffsets,
 * OffsetForLeaderEpoch and InitProducerId ({@link InitProducerIds}), at the versions listed in {@link #apis()} (from
 * the first version kafka-clients 4.x still sends up to the last one without topic ids, which Seglog has not yet).
 * Everything else gets Kafka's UNSUPPORTED_VERSION through ApiVersions.
 *
 * <p>Stateless apart from its collaborators; handlers run on the connection's event loop and never block (an acks=all
 * produce or a long-poll fetch completes its stage later).
 */
public final class KafkaApis {
    /** Metadata: all versions; v10+ carry a topic id, sent as zero (Seglog has no topic ids yet). */
    static final short METADATA_MAX = 13;
    /** Produce: v3 (the baseline of 4.x and magic v2) to v12; v13 names topics by id. */
    static final short PRODUCE_MIN = 3;
    static final short PRODUCE_MAX = 12;
    /** Fetch: v4 (4.x's baseline) to v12 (LastFetchedEpoch, DivergingEpoch); v13+ name topics by id. */
    static final short FETCH_MIN = 4;
    static final short FETCH_MAX = 12;
    /** ListOffsets: v1 to v7 (max timestamp, KIP-734); v8+ are for tiered storage. */
    static final short LIST_OFFSETS_MIN = 1;
    static final short LIST_OFFSETS_MAX = 7;
    /** OffsetForLeaderEpoch: v2 to v4 (v3 adds the replica id the consumer needs). */
    static final short OFFSET_FOR_LEADER_EPOCH_MIN = 2;
    static final short OFFSET_FOR_LEADER_EPOCH_MAX = 4;
    private static final int NO_TIMESTAMP = -1;
    private static final int NO_LEADER_EPOCH = -1;

    private final int brokerId;
    private final ReplicaManager replicas;
    private final ClusterView cluster;
    private final TopicCreator topicCreator;
    private final InitProducerIds initProducerIds;

    /** Creates topics that a Metadata request names and that do not exist (Kafka's auto topic creation). */
    @FunctionalInterface
    public interface TopicCreator {
        /** A creator that creates nothing ({@code auto.create.topics.enable=false}). */
        TopicCreator NONE = topic -> false;

        /**
         * Asks for a topic to be created with the broker's defaults; must not block (the caller is an event loop).
         *
         * @param topic a legal topic name
         * @return whether creation was requested (the answer is then LEADER_NOT_AVAILABLE until it is led)
         */
        boolean requestCreation(String topic);
    }

    /**
     * APIs without a source of producer ids: InitProducerId answers COORDINATOR_LOAD_IN_PROGRESS, so idempotent
     * producers wait (for a broker whose clients disable idempotence).
     *
     * @param brokerId     this broker
     * @param replicas     its replica layer
     * @param cluster      its metadata cache
     * @param topicCreator auto-creates topics named in Metadata requests, or {@link TopicCreator#NONE}
     */
    public KafkaApis(final int brokerId, final ReplicaManager replicas, final ClusterView cluster,
                     final TopicCreator topicCreator) {
        this(brokerId, replicas, cluster, topicCreator, () -> ProducerIdSource.NONE_AVAILABLE);
    }

    /**
     * @param brokerId     this broker
     * @param replicas     its replica layer
     * @param cluster      its metadata cache
     * @param topicCreator auto-creates topics named in Metadata requests, or {@link TopicCreator#NONE}
     * @param producerIds  the producer ids InitProducerId hands out (reserved in blocks, never blocking)
     */
    public KafkaApis(final int brokerId, final ReplicaManager replicas, final ClusterView cluster,
                     final TopicCreator topicCreator, final ProducerIdSource producerIds) {
        this.brokerId = brokerId;
        this.replicas = replicas;
        this.cluster = cluster;
        this.topicCreator = topicCreator;
        this.initProducerIds = new InitProducerIds(brokerId, producerIds);
    }

    /**
     * The APIs to give the {@link KafkaWireServer}.
     *
     * @return the list
     */
    public List<KafkaApi> apis() {
        return List.of(
            new KafkaApi(ApiKeys.METADATA, (short) 0, METADATA_MAX, r -> done(metadata(r))),
            new KafkaApi(ApiKeys.PRODUCE, PRODUCE_MIN, PRODUCE_MAX, this::produce),
            new KafkaApi(ApiKeys.FETCH, FETCH_MIN, FETCH_MAX, this::fetch),
            new KafkaApi(ApiKeys.LIST_OFFSETS, LIST_OFFSETS_MIN, LIST_OFFSETS_MAX, r -> done(listOffsets(r))),
            new KafkaApi(ApiKeys.OFFSET_FOR_LEADER_EPOCH, OFFSET_FOR_LEADER_EPOCH_MIN, OFFSET_FOR_LEADER_EPOCH_MAX,
                r -> done(offsetForLeaderEpoch(r))),
            initProducerIds.api());
    }

    private static CompletionStage<ApiMessage> done(final ApiMessage message) {
        return CompletableFuture.completedFuture(message);
    }

    // ------------------------------------------------------------------------------------------- Metadata

    ApiMessage metadata(final KafkaRequest request) {
        final MetadataRequestData req = (MetadataRequestData) request.body();
        final Map<Integer, LiveBroker> live = cluster.liveBrokers();
        final Map<TopicPartition, PartitionStateInfo> states = cluster.partitions();
        final MetadataResponseData resp = new MetadataResponseData()
            .setClusterId(cluster.clusterId())
            .setControllerId(cluster.controllerId());
        for (final LiveBroker b : new TreeMap<>(live).values()) {
            resp.brokers().add(new MetadataResponseData.MetadataResponseBroker().setNodeId(b.id()).setHost(b.host())
                .setPort(b.port()).setRack(b.rack().orElse(null)));
        }
        final Map<String, Map<Integer, PartitionStateInfo>> byTopic = new TreeMap<>();
        states.forEach((tp, s) -> byTopic.computeIfAbsent(tp.topic(), t -> new TreeMap<>()).put(tp.partition(), s));
        final List<String> wanted;
        if (req.topics() == null || request.version() == 0 && req.topics().isEmpty()) {
            wanted = new ArrayList<>(byTopic.keySet()); // all topics (v0: an empty list means all)
        } else {
            wanted = new ArrayList<>();
            req.topics().forEach(t -> wanted.add(t.name()));
        }
        for (final String name : wanted) {
            final MetadataResponseData.MetadataResponseTopic topic = new MetadataResponseData.MetadataResponseTopic()
                .setName(name).setIsInternal(false);
            final Map<Integer, PartitionStateInfo> parts = name == null ? null : byTopic.get(name);
            if (parts == null) {
                // Kafka's auto topic creation: asked for by the client (v4+) and allowed by the broker; the answer is
                // LEADER_NOT_AVAILABLE (retriable) until the controller has elected the new partitions' leaders.
                final boolean create = name != null && (request.version() < 4 || req.allowAutoTopicCreation())
                    && legalTopic(name) && topicCreator.requestCreation(name);
                topic.setErrorCode(create ? Errors.LEADER_NOT_AVAILABLE.code() : Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
            } else {
                parts.forEach((p, s) -> topic.partitions().add(partitionMetadata(p, s, live)));
            }
            resp.topics().add(topic);
        }
        return resp;
    }

    private static boolean legalTopic(final String name) {
        try {
            TopicPartition.validateTopic(name);
            return true;
        } catch (final IllegalArgumentException e) {
            return false;
        }
    }

    private static MetadataResponseData.MetadataResponsePartition partitionMetadata(
        final int partition, final PartitionStateInfo state, final Map<Integer, LiveBroker> live) {
        final LeaderAndIsr lai = state.leaderAndIsr();
        final List<Integer> offline = new ArrayList<>();
        state.replicas().forEach(r -> {
            if (!live.containsKey(r)) {
                offline.add(r);
            }
        });
        final boolean leaderLive = lai.hasLeader() && live.containsKey(lai.leader());
        return new MetadataResponseData.MetadataResponsePartition()
            .setPartitionIndex(partition)
            .setErrorCode(leaderLive ? Errors.NONE.code() : Errors.LEADER_NOT_AVAILABLE.code())
            .setLeaderId(leaderLive ? lai.leader() : -1)
            .setLeaderEpoch(lai.leaderEpoch())
            .setReplicaNodes(state.replicas())
            .setIsrNodes(lai.isr())
            .setOfflineReplicas(offline);
    }

    // -------------------------------------------------------------------------------------------- Produce

    CompletionStage<ApiMessage> produce(final KafkaRequest request) {
        final ProduceRequestData req = (ProduceRequestData) request.body();
        final Map<TopicPartition, ByteBuffer> batches = new LinkedHashMap<>();
        final Map<TopicPartition, AppendResult> refused = new LinkedHashMap<>();
        final Map<TopicPartition, PartitionStateInfo> states = cluster.partitions();
        for (final ProduceRequestData.TopicProduceData topic : req.topicData()) {
            for (final ProduceRequestData.PartitionProduceData p : topic.partitionData()) {
                final TopicPartition tp = new TopicPartition(topic.name(), p.index());
                if (!states.containsKey(tp)) {
                    refused.put(tp, AppendResult.error(ReplicaError.UNKNOWN_TOPIC_OR_PARTITION, null));
                } else if (!(p.records() instanceof MemoryRecords records) || records.sizeInBytes() == 0) {
                    refused.put(tp, AppendResult.error(ReplicaError.CORRUPT_MESSAGE, "no records"));
                } else {
                    batches.put(tp, records.buffer());
                }
            }
        }
        if (req.transactionalId() != null) {
            // Transactions are not implemented: refuse rather than store batches whose markers would never come.
            batches.keySet().forEach(tp -> refused.put(tp, AppendResult.error(ReplicaError.INVALID_REQUEST,
                "transactions are not supported by Seglog yet")));
            batches.clear();
        }
        return replicas.produce(req.acks(), req.timeoutMs(), batches).thenApply(results -> {
            if (req.acks() == 0) {
                return null; // acks=0: no response
            }
            final Map<TopicPartition, AppendResult> all = new LinkedHashMap<>(refused);
            all.putAll(results);
            return produceResponse(all, request.version());
        });
    }

    private ApiMessage produceResponse(final Map<TopicPartition, AppendResult> results, final short version) {
        final ProduceResponseData resp = new ProduceResponseData();
        final Map<String, ProduceResponseData.TopicProduceResponse> topics = new LinkedHashMap<>();
        final Map<Integer, LiveBroker> live = cluster.liveBrokers();
        final Map<TopicPartition, PartitionStateInfo> states = cluster.partitions();
        final Set<Integer> leadersNamed = new java.util.TreeSet<>();
        results.forEach((tp, r) -> {
            final ProduceResponseData.TopicProduceResponse topic = topics.computeIfAbsent(tp.topic(),
                t -> new ProduceResponseData.TopicProduceResponse().setName(t));
            final ProduceResponseData.PartitionProduceResponse p = new ProduceResponseData.PartitionProduceResponse()
                .setIndex(tp.partition())
                .setErrorCode(r.error().code())
                .setBaseOffset(r.baseOffset())
                .setLogAppendTimeMs(r.logAppendTimeMs())
                .setLogStartOffset(r.logStartOffset())
                .setErrorMessage(r.error() == ReplicaError.NONE ? null : r.message());
            if (r.error() == ReplicaError.NOT_LEADER_OR_FOLLOWER && states.containsKey(tp)) {
                // KIP-951: tell the client the new leader so it need not ask for metadata first.
                final LeaderAndIsr lai = states.get(tp).leaderAndIsr();
                if (lai.hasLeader() && live.containsKey(lai.leader()) && lai.leader() != brokerId) {
                    p.setCurrentLeader(new ProduceResponseData.LeaderIdAndEpoch().setLeaderId(lai.leader())
                        .setLeaderEpoch(lai.leaderEpoch()));
                    leadersNamed.add(lai.leader());
                }
            }
            topic.partitionResponses().add(p);
        });
        topics.values().forEach(t -> resp.responses().add(t));
        if (version >= 10) {
            for (final int id : leadersNamed) {
                final LiveBroker b = live.get(id);
                resp.nodeEndpoints().add(new ProduceResponseData.NodeEndpoint().setNodeId(id).setHost(b.host())
                    .setPort(b.port()).setRack(b.rack().orElse(null)));
            }
        }
        return resp;
    }

    // ---------------------------------------------------------------------------------------------- Fetch

    CompletionStage<ApiMessage> fetch(final KafkaRequest request) {
        final FetchRequestData req = (FetchRequestData) request.body();
        if (req.sessionId() != 0) {
            // Seglog keeps no fetch sessions and never hands out an id; a client with one is confused.
            return done(new FetchResponseData().setErrorCode(Errors.FETCH_SESSION_ID_NOT_FOUND.code()));
        }
        final List<PartitionFetch> parts = new ArrayList<>();
        for (final FetchRequestData.FetchTopic topic : req.topics()) {
            for (final FetchRequestData.FetchPartition p : topic.partitions()) {
                parts.add(new PartitionFetch(new TopicPartition(topic.topic(), p.partition()), p.currentLeaderEpoch(),
                    p.fetchOffset(), p.lastFetchedEpoch(), p.logStartOffset(), durableOffset(p),
                    p.partitionMaxBytes()));
            }
        }
        final FetchRequest fetch = new FetchRequest(req.replicaId(), -1, req.maxWaitMs(), req.minBytes(),
            req.maxBytes(), parts);
        final boolean readCommitted = req.isolationLevel() == 1;
        return replicas.fetch(fetch).thenApply(results -> fetchResponse(parts, results, readCommitted));
    }

    /**
     * Seglog's followers report their durable offset in a tagged field of the fetch partition (tag
     * {@link SeglogTags#DURABLE_OFFSET}); Kafka's brokers ignore unknown tags.
     */
    private static long durableOffset(final FetchRequestData.FetchPartition p) {
        return SeglogTags.readDurableOffset(p.unknownTaggedFields());
    }

    private static ApiMessage fetchResponse(final List<PartitionFetch> parts, final List<ReadResult> results,
                                            final boolean readCommitted) {
        final FetchResponseData resp = new FetchResponseData().setSessionId(0).setErrorCode(Errors.NONE.code());
        final Map<String, FetchResponseData.FetchableTopicResponse> topics = new LinkedHashMap<>();
        for (int i = 0; i < parts.size(); i++) {
            final TopicPartition tp = parts.get(i).tp();
            final ReadResult r = results.get(i);
            final FetchResponseData.PartitionData p = new FetchResponseData.PartitionData()
                .setPartitionIndex(tp.partition())
                .setErrorCode(r.error().code())
                .setHighWatermark(r.highWatermark())
                .setLastStableOffset(r.highWatermark())
                .setLogStartOffset(r.logStartOffset())
                .setAbortedTransactions(readCommitted ? new ArrayList<>() : null)
                .setPreferredReadReplica(-1)
                .setRecords(r.records() == null ? MemoryRecords.EMPTY : new SliceRecords(r.records()));
            if (!r.divergingEpoch().isUndefined()) {
                p.setDivergingEpoch(new FetchResponseData.EpochEndOffset().setEpoch(r.divergingEpoch().epoch())
                    .setEndOffset(r.divergingEpoch().endOffset()));
            }
            topics.computeIfAbsent(tp.topic(), t -> new FetchResponseData.FetchableTopicResponse().setTopic(t))
                .partitions().add(p);
        }
        resp.setResponses(new ArrayList<>(topics.values()));
        return resp;
    }

    // ---------------------------------------------------------------------------------------- ListOffsets

    ApiMessage listOffsets(final KafkaRequest request) {
        final ListOffsetsRequestData req = (ListOffsetsRequestData) request.body();
        final ListOffsetsResponseData resp = new ListOffsetsResponseData();
        final boolean fromReplica = req.replicaId() >= 0;
        for (final ListOffsetsRequestData.ListOffsetsTopic topic : req.topics()) {
            final ListOffsetsResponseData.ListOffsetsTopicResponse t =
                new ListOffsetsResponseData.ListOffsetsTopicResponse().setName(topic.name());
            for (final ListOffsetsRequestData.ListOffsetsPartition p : topic.partitions()) {
                final OffsetResult r = replicas.listOffset(new TopicPartition(topic.name(), p.partitionIndex()),
                    p.currentLeaderEpoch(), p.timestamp(), fromReplica);
                t.partitions().add(new ListOffsetsResponseData.ListOffsetsPartitionResponse()
                    .setPartitionIndex(p.partitionIndex())
                    .setErrorCode(r.error().code())
                    .setOffset(r.offset())
                    .setTimestamp(r.error() == ReplicaError.NONE ? r.timestampMs() : NO_TIMESTAMP)
                    // A v4+ field that is not ignorable: kafka-clients refuses to write it non-default below v4.
                    .setLeaderEpoch(request.version() >= 4 ? r.leaderEpoch() : NO_LEADER_EPOCH));
            }
            resp.topics().add(t);
        }
        return resp;
    }

    // ------------------------------------------------------------------------------- OffsetForLeaderEpoch

    ApiMessage offsetForLeaderEpoch(final KafkaRequest request) {
        final OffsetForLeaderEpochRequestData req = (OffsetForLeaderEpochRequestData) request.body();
        final OffsetForLeaderEpochResponseData resp = new OffsetForLeaderEpochResponseData();
        for (final OffsetForLeaderEpochRequestData.OffsetForLeaderTopic topic : req.topics()) {
            final OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult t =
                new OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult().setTopic(topic.topic());
            for (final OffsetForLeaderEpochRequestData.OffsetForLeaderPartition p : topic.partitions()) {
                final EpochResult r = replicas.endOffsetForEpoch(new TopicPartition(topic.topic(), p.partition()),
                    p.currentLeaderEpoch(), p.leaderEpoch());
                t.partitions().add(new OffsetForLeaderEpochResponseData.EpochEndOffset()
                    .setPartition(p.partition())
                    .setErrorCode(r.error().code())
                    .setLeaderEpoch(r.epochEnd().epoch())
                    .setEndOffset(r.epochEnd().endOffset()));
            }
            resp.topics().add(t);
        }
        return resp;
    }
}
