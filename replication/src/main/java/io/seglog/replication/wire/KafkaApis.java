package io.seglog.replication.wire;

import io.seglog.replication.election.LeaderAndIsr;
import io.seglog.replication.metrics.BrokerTopicMetrics;
import io.seglog.replication.replica.AppendResult;
import io.seglog.replication.replica.EpochResult;
import io.seglog.replication.replica.FetchIsolation;
import io.seglog.replication.replica.OffsetResult;
import io.seglog.replication.replica.ReplicaError;
import io.seglog.replication.replica.ReplicaManager;
import io.seglog.replication.transport.LiveBroker;
import io.seglog.replication.transport.PartitionStateInfo;
import io.seglog.storage.TopicId;
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
import org.apache.kafka.common.Uuid;
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
 * OffsetForLeaderEpoch, InitProducerId ({@link InitProducerIds}) and DescribeTopicPartitions, at the versions listed in
 * {@link #apis()} (from the first version kafka-clients 4.x still sends up to the highest stable one of
 * kafka-clients 4.4, topic ids included). Everything else gets Kafka's UNSUPPORTED_VERSION through ApiVersions.
 *
 * <p>Stateless apart from its collaborators; handlers run on the connection's event loop and never block (an acks=all
 * produce or a long-poll fetch completes its stage later).
 */
public final class KafkaApis {
    /** Metadata: all versions; v10+ carry each topic's id, v12+ look topics up by id. */
    static final short METADATA_MAX = 13;
    /** Metadata: the first version whose request may name topics by id. */
    static final short METADATA_TOPIC_ID_LOOKUP = 12;
    /** Produce: v3 (the baseline of 4.x and magic v2) to v13, which names topics by id. */
    static final short PRODUCE_MIN = 3;
    static final short PRODUCE_MAX = 13;
    /** Produce: the first version that names topics by id. */
    static final short PRODUCE_TOPIC_ID = 13;
    /** Fetch: v4 (4.x's baseline) to v18 ({@link FetchHandler} lists what each adds). */
    static final short FETCH_MIN = 4;
    static final short FETCH_MAX = 18;
    /**
     * ListOffsets: v1 to v11. v8 (EARLIEST_LOCAL -4), v9 (LATEST_TIERED -5), v10 (a timeout for remote lookups) and v11
     * (EARLIEST_PENDING_UPLOAD -6) are about tiered storage; a log without it answers them as Kafka does without remote
     * storage: -4 as the earliest offset, -5 and -6 with offset -1.
     */
    static final short LIST_OFFSETS_MIN = 1;
    static final short LIST_OFFSETS_MAX = 11;
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
    private final FetchHandler fetches;
    private final DescribeTopicPartitionsHandler describeTopics;
    private final WriteTxnMarkersHandler txnMarkers;
    private final BrokerTopicMetrics topicMetrics;

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
    KafkaApis(final int brokerId, final ReplicaManager replicas, final ClusterView cluster,
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
        this(brokerId, replicas, cluster, topicCreator, producerIds, BrokerTopicMetrics.NONE);
    }

    /**
     * @param brokerId     this broker
     * @param replicas     its replica layer
     * @param cluster      its metadata cache
     * @param topicCreator auto-creates topics named in Metadata requests, or {@link TopicCreator#NONE}
     * @param producerIds  the producer ids InitProducerId hands out (reserved in blocks, never blocking)
     * @param topicMetrics where produce and consumer-fetch traffic is counted (Kafka's BrokerTopicMetrics)
     */
    public KafkaApis(final int brokerId, final ReplicaManager replicas, final ClusterView cluster,
                     final TopicCreator topicCreator, final ProducerIdSource producerIds,
                     final BrokerTopicMetrics topicMetrics) {
        this.topicMetrics = java.util.Objects.requireNonNull(topicMetrics, "topicMetrics");
        this.brokerId = brokerId;
        this.replicas = replicas;
        this.cluster = cluster;
        this.topicCreator = topicCreator;
        this.initProducerIds = new InitProducerIds(brokerId, producerIds);
        this.fetches = new FetchHandler(replicas, cluster, topicMetrics);
        this.describeTopics = new DescribeTopicPartitionsHandler(cluster);
        this.txnMarkers = new WriteTxnMarkersHandler(replicas, cluster);
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
            initProducerIds.api(),
            new KafkaApi(ApiKeys.DESCRIBE_TOPIC_PARTITIONS, (short) 0, (short) 0,
                r -> done(describeTopics.describe(r))),
            txnMarkers.api());
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
        final Map<String, TopicId> ids = cluster.topicIds();
        final List<String> wanted;
        final boolean byId = req.topics() != null
            && req.topics().stream().anyMatch(t -> !t.topicId().equals(Uuid.ZERO_UUID));
        if (req.topics() == null || request.version() == 0 && req.topics().isEmpty()) {
            wanted = new ArrayList<>(byTopic.keySet()); // all topics (v0: an empty list means all)
        } else if (byId) {
            wanted = new ArrayList<>();
            lookUpByIds(req, request.version(), resp, wanted);
        } else {
            wanted = new ArrayList<>();
            req.topics().forEach(t -> wanted.add(t.name()));
        }
        for (final String name : wanted) {
            final MetadataResponseData.MetadataResponseTopic topic = new MetadataResponseData.MetadataResponseTopic()
                .setName(name).setIsInternal(false);
            if (request.version() >= 10 && name != null) {
                topic.setTopicId(TopicIds.uuid(ids.getOrDefault(name, TopicId.ZERO)));
            }
            final Map<Integer, PartitionStateInfo> parts = name == null ? null : byTopic.get(name);
            if (parts == null && byId) {
                topic.setErrorCode(Errors.UNKNOWN_TOPIC_ID.code()); // known a moment ago, gone now
            } else if (parts == null) {
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

    /**
     * Kafka's Metadata by topic id (v12+): when any topic is named by id, the names are ignored, known ids become the
     * topics answered, unknown ones are answered UNKNOWN_TOPIC_ID with a null name; ids below v12 are refused with
     * INVALID_REQUEST (Kafka's handleTopicMetadataRequest). Never creates topics.
     */
    private void lookUpByIds(final MetadataRequestData req, final short version, final MetadataResponseData resp,
                             final List<String> wanted) {
        final Map<TopicId, String> names = cluster.topicNames();
        for (final MetadataRequestData.MetadataRequestTopic t : req.topics()) {
            if (t.topicId().equals(Uuid.ZERO_UUID)) {
                continue;
            }
            final String name = version < METADATA_TOPIC_ID_LOOKUP ? null : names.get(TopicIds.of(t.topicId()));
            if (name == null) {
                resp.topics().add(new MetadataResponseData.MetadataResponseTopic().setName(null)
                    .setTopicId(t.topicId()).setIsInternal(false).setErrorCode(version < METADATA_TOPIC_ID_LOOKUP
                        ? Errors.INVALID_REQUEST.code() : Errors.UNKNOWN_TOPIC_ID.code()));
            } else if (!wanted.contains(name)) {
                wanted.add(name);
            }
        }
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
        final boolean byId = request.version() >= PRODUCE_TOPIC_ID;
        final Map<TopicId, String> names = byId ? cluster.topicNames() : Map.of();
        // v13+: the name each id resolved to, for the response; ids nobody knows are answered on their own.
        final Map<String, TopicId> requestIds = new LinkedHashMap<>();
        final List<ProduceResponseData.TopicProduceResponse> unknownIds = new ArrayList<>();
        for (final ProduceRequestData.TopicProduceData topic : req.topicData()) {
            final String name = byId ? names.get(TopicIds.of(topic.topicId())) : topic.name();
            if (name == null) {
                unknownIds.add(unknownTopicId(topic));
                continue;
            }
            if (byId) {
                requestIds.put(name, TopicIds.of(topic.topicId()));
            }
            for (final ProduceRequestData.PartitionProduceData p : topic.partitionData()) {
                final TopicPartition tp = new TopicPartition(name, p.index());
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
        final Map<TopicPartition, Integer> sizes = new LinkedHashMap<>();
        batches.forEach((tp, b) -> sizes.put(tp, b.remaining()));
        return replicas.produce(req.acks(), req.timeoutMs(), batches).thenApply(results -> {
            count(refused, results, sizes);
            if (req.acks() == 0) {
                return null; // acks=0: no response
            }
            final Map<TopicPartition, AppendResult> all = new LinkedHashMap<>(refused);
            all.putAll(results);
            final ProduceResponseData resp = produceResponse(all, request.version(), requestIds);
            unknownIds.forEach(t -> resp.responses().add(t));
            return resp;
        });
    }

    /** A v13+ topic whose id the metadata cache does not know: every partition UNKNOWN_TOPIC_ID, as Kafka answers. */
    /** Kafka's BrokerTopicMetrics of a produce request: bytes and records appended, failed partitions. */
    private void count(final Map<TopicPartition, AppendResult> refused, final Map<TopicPartition, AppendResult> results,
                       final Map<TopicPartition, Integer> sizes) {
        refused.keySet().forEach(tp -> topicMetrics.produceFailed(tp.topic()));
        results.forEach((tp, r) -> {
            if (r.error() == ReplicaError.NONE) {
                topicMetrics.appended(tp.topic(), sizes.getOrDefault(tp, 0), r.lastOffset() - r.baseOffset() + 1);
            } else {
                topicMetrics.produceFailed(tp.topic());
            }
        });
    }

    private static ProduceResponseData.TopicProduceResponse unknownTopicId(final ProduceRequestData.TopicProduceData t) {
        final ProduceResponseData.TopicProduceResponse topic = new ProduceResponseData.TopicProduceResponse()
            .setTopicId(t.topicId());
        for (final ProduceRequestData.PartitionProduceData p : t.partitionData()) {
            topic.partitionResponses().add(new ProduceResponseData.PartitionProduceResponse().setIndex(p.index())
                .setErrorCode(Errors.UNKNOWN_TOPIC_ID.code()).setBaseOffset(-1).setLogAppendTimeMs(-1)
                .setLogStartOffset(-1));
        }
        return topic;
    }

    private ProduceResponseData produceResponse(final Map<TopicPartition, AppendResult> results, final short version,
                                                final Map<String, TopicId> requestIds) {
        final ProduceResponseData resp = new ProduceResponseData();
        final Map<String, ProduceResponseData.TopicProduceResponse> topics = new LinkedHashMap<>();
        final Map<Integer, LiveBroker> live = cluster.liveBrokers();
        final Map<TopicPartition, PartitionStateInfo> states = cluster.partitions();
        final Set<Integer> leadersNamed = new java.util.TreeSet<>();
        results.forEach((tp, r) -> {
            final ProduceResponseData.TopicProduceResponse topic = topics.computeIfAbsent(tp.topic(),
                t -> version >= PRODUCE_TOPIC_ID
                    ? new ProduceResponseData.TopicProduceResponse().setTopicId(TopicIds.uuid(requestIds.get(t)))
                    : new ProduceResponseData.TopicProduceResponse().setName(t));
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
        return fetches.fetch(request);
    }

    // ---------------------------------------------------------------------------------------- ListOffsets

    ApiMessage listOffsets(final KafkaRequest request) {
        final ListOffsetsRequestData req = (ListOffsetsRequestData) request.body();
        final ListOffsetsResponseData resp = new ListOffsetsResponseData();
        // Kafka's rule: a replica reads to the log end; a consumer below the HW, or the LSO for read_committed.
        final FetchIsolation isolation = req.replicaId() >= 0 ? FetchIsolation.LOG_END
            : FetchIsolation.ofConsumer(req.isolationLevel());
        for (final ListOffsetsRequestData.ListOffsetsTopic topic : req.topics()) {
            final ListOffsetsResponseData.ListOffsetsTopicResponse t =
                new ListOffsetsResponseData.ListOffsetsTopicResponse().setName(topic.name());
            for (final ListOffsetsRequestData.ListOffsetsPartition p : topic.partitions()) {
                final OffsetResult r = replicas.listOffset(new TopicPartition(topic.name(), p.partitionIndex()),
                    p.currentLeaderEpoch(), p.timestamp(), isolation);
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
