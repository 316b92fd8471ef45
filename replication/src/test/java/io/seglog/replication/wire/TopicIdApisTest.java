package io.seglog.replication.wire;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.Await;
import io.seglog.replication.election.LeaderAndIsr;
import io.seglog.replication.transport.PartitionStateInfo;
import io.seglog.storage.TopicId;
import io.seglog.storage.TopicPartition;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.DescribeTopicPartitionsRequestData;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Topic ids on the wire (KIP-516) and the versions that came with them, end to end on a {@link KafkaApisBroker}:
 * Metadata v10+ answers each topic's id and v12+ looks topics up by id; Produce v13 and Fetch v13+ name topics by id,
 * an unknown id answered UNKNOWN_TOPIC_ID and an id that is not the log's INCONSISTENT_TOPIC_ID; Fetch v16+ tells
 * the current leader on FENCED_LEADER_EPOCH (KIP-951); ListOffsets v8+ answers the tiered-storage timestamps as Kafka
 * does without remote storage; the replica layer writes the id into the log and refuses a log with another.
 */
@Timeout(120)
class TopicIdApisTest {
    private static final int BROKER = KafkaApisBroker.BROKER;
    private static final TopicPartition ORDERS = new TopicPartition("orders", 0);
    private static final TopicPartition AUDIT_0 = new TopicPartition("audit", 0);
    private static final TopicPartition AUDIT_1 = new TopicPartition("audit", 1);
    private static final Uuid UNKNOWN = new Uuid(0x0dd_1dL, 0x0dd_1dL);
    private static final int LEADER_EPOCH = 3;
    private static final long T0 = 1_700_000_000_000L;

    @TempDir
    Path dir;

    private Set<Thread> threadsBefore;
    private KafkaApisBroker broker;
    private WireClient client;

    @BeforeEach
    void start() {
        threadsBefore = Await.threads();
        broker = new KafkaApisBroker(dir);
        client = broker.newClient();
        broker.lead(ORDERS, LEADER_EPOCH, List.of(BROKER), List.of(BROKER));
        broker.lead(AUDIT_0, 1, List.of(BROKER), List.of(BROKER));
        broker.lead(AUDIT_1, 1, List.of(BROKER), List.of(BROKER));
    }

    @AfterEach
    void stop() {
        if (broker != null) {
            broker.close();
        }
        Await.noThreadsLeakedSince(threadsBefore, Duration.ofSeconds(30),
            name -> name.startsWith("globalEventExecutor") || name.startsWith("ObjectCleaner"));
    }

    private <T extends ApiMessage> T send(final ApiKeys api, final short version, final ApiMessage body) {
        final CompletableFuture<ApiMessage> answer = client.send(api, version, body);
        return KafkaApisBroker.await(answer);
    }

    private static MemoryRecords batch(final long timestamp) {
        return MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(timestamp, "k".getBytes(UTF_8),
            "v".getBytes(UTF_8)));
    }

    // ---------------------------------------------------------------------------------------------- the log

    @Test
    void leadingAPartitionWritesItsTopicIdIntoTheLog() {
        assertEquals(Optional.of(KafkaApisBroker.topicId(ORDERS.topic())), broker.log(ORDERS).topicId());
        assertEquals(Optional.of(KafkaApisBroker.topicId(AUDIT_1.topic())), broker.log(AUDIT_1).topicId());
    }

    @Test
    void aLogWithAnotherTopicIdIsRefusedItsRole() {
        final TopicPartition stale = new TopicPartition("recreated", 0);
        final TopicId old = new TopicId(0x0_1d_01dL, 0x0_1d_01dL);
        broker.logs.getOrCreate(stale).assignTopicId(old); // left over from a deleted topic of the same name
        broker.lead(stale, 1, List.of(BROKER), List.of(BROKER)); // the controller's id is another
        assertEquals(Optional.of(old), broker.log(stale).topicId(), "the log keeps its id");
        assertFalse(broker.replicas.partition(stale).orElseThrow().isLeader(), "refused: not made leader");
        final ProduceResponseData resp = send(ApiKeys.PRODUCE, (short) 13, produce(stale.topic(),
            KafkaApisBroker.uuid(stale.topic()), stale.partition()));
        assertEquals(Errors.NOT_LEADER_OR_FOLLOWER.code(), only(resp).errorCode(), "no append to a refused log");
        assertEquals(0, broker.log(stale).logEndOffset());
    }

    // --------------------------------------------------------------------------------------------- metadata

    @Test
    void metadataLooksTopicsUpByIdFromV12() {
        for (short v = 10; v <= KafkaApis.METADATA_MAX; v++) {
            final String at = "Metadata v" + v;
            final MetadataRequestData byName = new MetadataRequestData().setAllowAutoTopicCreation(false);
            byName.topics().add(new MetadataRequestData.MetadataRequestTopic().setName(AUDIT_0.topic()));
            final MetadataResponseData.MetadataResponseTopic audit = this.<MetadataResponseData>send(ApiKeys.METADATA,
                v, byName).topics().find(AUDIT_0.topic());
            assertEquals(KafkaApisBroker.uuid(AUDIT_0.topic()), audit.topicId(), at + ": the id beside the name");
            assertEquals(2, audit.partitions().size(), at);
            if (v < KafkaApis.METADATA_TOPIC_ID_LOOKUP) {
                continue; // kafka-clients cannot even write a lookup by id below v12
            }
            final MetadataRequestData byId = new MetadataRequestData().setAllowAutoTopicCreation(true);
            byId.topics().add(new MetadataRequestData.MetadataRequestTopic().setName(null)
                .setTopicId(KafkaApisBroker.uuid(ORDERS.topic())));
            byId.topics().add(new MetadataRequestData.MetadataRequestTopic().setName(null).setTopicId(UNKNOWN));
            final MetadataResponseData resp = send(ApiKeys.METADATA, v, byId);
            assertEquals(2, resp.topics().size(), at + ": " + resp.topics());
            final List<MetadataResponseData.MetadataResponseTopic> topics = new ArrayList<>(resp.topics());
            final MetadataResponseData.MetadataResponseTopic unknown = topics.stream()
                .filter(t -> t.topicId().equals(UNKNOWN)).findFirst().orElseThrow();
            assertEquals(Errors.UNKNOWN_TOPIC_ID.code(), unknown.errorCode(), at);
            assertNull(unknown.name(), at + ": an unknown id has no name");
            final MetadataResponseData.MetadataResponseTopic orders = topics.stream()
                .filter(t -> ORDERS.topic().equals(t.name())).findFirst().orElseThrow();
            assertEquals(Errors.NONE.code(), orders.errorCode(), at);
            assertEquals(KafkaApisBroker.uuid(ORDERS.topic()), orders.topicId(), at);
            assertEquals(BROKER, orders.partitions().get(0).leaderId(), at);
            assertEquals(LEADER_EPOCH, orders.partitions().get(0).leaderEpoch(), at);
        }
    }

    // ---------------------------------------------------------------------------------------------- produce

    private static ProduceRequestData produce(final String name, final Uuid id, final int... partitions) {
        final ProduceRequestData data = new ProduceRequestData().setAcks((short) 1).setTimeoutMs(30_000);
        final ProduceRequestData.TopicProduceData topic = new ProduceRequestData.TopicProduceData().setTopicId(id);
        for (final int p : partitions) {
            topic.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(p)
                .setRecords(batch(T0 + p)));
        }
        data.topicData().add(topic);
        return data;
    }

    private static ProduceResponseData.PartitionProduceResponse only(final ProduceResponseData resp) {
        assertEquals(1, resp.responses().size(), resp.toString());
        return resp.responses().iterator().next().partitionResponses().get(0);
    }

    @Test
    void produceV13NamesTopicsByIdAndAnswersUnknownTopicIdForAnIdNobodyKnows() {
        final ProduceRequestData request = produce(AUDIT_0.topic(), KafkaApisBroker.uuid(AUDIT_0.topic()), 0, 1);
        final ProduceRequestData.TopicProduceData unknown = new ProduceRequestData.TopicProduceData()
            .setTopicId(UNKNOWN);
        unknown.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(batch(T0)));
        request.topicData().add(unknown);
        final ProduceResponseData resp = send(ApiKeys.PRODUCE, (short) 13, request);
        assertEquals(2, resp.responses().size(), resp.toString());
        final ProduceResponseData.TopicProduceResponse audit = resp.responses().find("",
            KafkaApisBroker.uuid(AUDIT_0.topic()));
        assertEquals(List.of(0, 1), audit.partitionResponses().stream().map(p -> p.index()).toList());
        audit.partitionResponses().forEach(p -> {
            assertEquals(Errors.NONE.code(), p.errorCode(), "audit-" + p.index() + ": " + p.errorMessage());
            assertEquals(0, p.baseOffset(), "audit-" + p.index());
        });
        final ProduceResponseData.TopicProduceResponse nobody = resp.responses().find("", UNKNOWN);
        assertEquals(Errors.UNKNOWN_TOPIC_ID.code(), nobody.partitionResponses().get(0).errorCode());
        assertEquals(-1, nobody.partitionResponses().get(0).baseOffset());
        assertEquals(1, broker.log(AUDIT_0).logEndOffset());
        assertEquals(1, broker.log(AUDIT_1).logEndOffset());
    }

    // ------------------------------------------------------------------------------------------------ fetch

    private static FetchRequestData fetch(final short version, final Uuid id, final int partition,
                                          final int currentLeaderEpoch) {
        final FetchRequestData data = new FetchRequestData().setReplicaId(-1).setMaxWaitMs(0).setMinBytes(1)
            .setMaxBytes(1 << 20).setIsolationLevel((byte) 0).setSessionId(0).setSessionEpoch(-1);
        if (version >= 15) {
            data.setReplicaState(new FetchRequestData.ReplicaState().setReplicaId(-1).setReplicaEpoch(-1));
        }
        data.topics().add(new FetchRequestData.FetchTopic().setTopicId(id).setPartitions(new ArrayList<>(List.of(
            new FetchRequestData.FetchPartition().setPartition(partition).setFetchOffset(0).setLogStartOffset(-1)
                .setPartitionMaxBytes(1 << 20).setCurrentLeaderEpoch(currentLeaderEpoch).setLastFetchedEpoch(-1)))));
        return data;
    }

    private static FetchResponseData.PartitionData only(final FetchResponseData resp, final Uuid id, final String at) {
        assertEquals(Errors.NONE.code(), resp.errorCode(), at);
        assertEquals(1, resp.responses().size(), at + ": " + resp);
        assertEquals(id, resp.responses().get(0).topicId(), at);
        return resp.responses().get(0).partitions().get(0);
    }

    @Test
    void fetchByIdAnswersUnknownTopicIdAndInconsistentTopicIdAtEveryVersionFrom13() {
        send(ApiKeys.PRODUCE, (short) 13, produce(ORDERS.topic(), KafkaApisBroker.uuid(ORDERS.topic()), 0));
        // The metadata cache learns that "audit" is now another topic (deleted and re-created); this broker's logs
        // still belong to the old one.
        final Uuid recreated = new Uuid(0x4ecL, 0x4ecL);
        for (final TopicPartition tp : List.of(AUDIT_0, AUDIT_1)) {
            broker.describe(tp, new PartitionStateInfo(KafkaApisBroker.CONTROLLER_EPOCH,
                new LeaderAndIsr(BROKER, 1, List.of(BROKER), 0), List.of(BROKER), false,
                new TopicId(recreated.getMostSignificantBits(), recreated.getLeastSignificantBits())));
        }
        for (short v = 13; v <= KafkaApis.FETCH_MAX; v++) {
            final String at = "Fetch v" + v;
            final FetchResponseData.PartitionData ok = only(send(ApiKeys.FETCH, v,
                fetch(v, KafkaApisBroker.uuid(ORDERS.topic()), 0, -1)), KafkaApisBroker.uuid(ORDERS.topic()), at);
            assertEquals(Errors.NONE.code(), ok.errorCode(), at);
            assertEquals(1, ok.highWatermark(), at);
            assertEquals(1, MemoryRecords.readableRecords(((MemoryRecords) ok.records()).buffer()).batches()
                .iterator().next().lastOffset() + 1, at + ": the batch");

            final FetchResponseData.PartitionData unknown = only(send(ApiKeys.FETCH, v, fetch(v, UNKNOWN, 0, -1)),
                UNKNOWN, at);
            assertEquals(Errors.UNKNOWN_TOPIC_ID.code(), unknown.errorCode(), at + ": unknown id");
            assertEquals(-1, unknown.highWatermark(), at + ": unknown id");
            assertEquals(0, ((MemoryRecords) unknown.records()).sizeInBytes(), at + ": unknown id");

            final FetchResponseData.PartitionData inconsistent = only(send(ApiKeys.FETCH, v, fetch(v, recreated, 1,
                -1)), recreated, at);
            assertEquals(Errors.INCONSISTENT_TOPIC_ID.code(), inconsistent.errorCode(), at + ": the log's id differs");
        }
    }

    @Test
    void fetchFromV16TellsTheCurrentLeaderOnAFencedEpoch() {
        for (short v = 12; v <= KafkaApis.FETCH_MAX; v++) {
            final String at = "Fetch v" + v;
            final FetchRequestData request = fetch(v, KafkaApisBroker.uuid(ORDERS.topic()), 0, LEADER_EPOCH - 1);
            if (v < 13) {
                request.topics().get(0).setTopicId(Uuid.ZERO_UUID).setTopic(ORDERS.topic());
            }
            final FetchResponseData resp = send(ApiKeys.FETCH, v, request);
            final FetchResponseData.PartitionData p = resp.responses().get(0).partitions().get(0);
            assertEquals(Errors.FENCED_LEADER_EPOCH.code(), p.errorCode(), at);
            if (v >= 16) {
                assertEquals(BROKER, p.currentLeader().leaderId(), at + ": current leader (KIP-951)");
                assertEquals(LEADER_EPOCH, p.currentLeader().leaderEpoch(), at + ": its epoch");
                assertEquals(1, resp.nodeEndpoints().size(), at + ": " + resp.nodeEndpoints());
                final FetchResponseData.NodeEndpoint node = resp.nodeEndpoints().iterator().next();
                assertEquals(BROKER, node.nodeId(), at);
                assertEquals(broker.server.address().getPort(), node.port(), at);
            } else {
                assertEquals(-1, p.currentLeader().leaderId(), at + ": no leader hint before v16");
                assertTrue(resp.nodeEndpoints().isEmpty(), at);
            }
        }
    }

    // ------------------------------------------------------------------------------ describeTopicPartitions

    private DescribeTopicPartitionsResponseData describe(final int limit, final String cursorTopic,
                                                         final int cursorPartition, final String... topics) {
        final DescribeTopicPartitionsRequestData request = new DescribeTopicPartitionsRequestData()
            .setResponsePartitionLimit(limit);
        for (final String t : topics) {
            request.topics().add(new DescribeTopicPartitionsRequestData.TopicRequest().setName(t));
        }
        if (cursorTopic != null) {
            request.setCursor(new DescribeTopicPartitionsRequestData.Cursor().setTopicName(cursorTopic)
                .setPartitionIndex(cursorPartition));
        }
        return send(ApiKeys.DESCRIBE_TOPIC_PARTITIONS, (short) 0, request);
    }

    private static List<String> summary(final DescribeTopicPartitionsResponseData resp) {
        final List<String> out = new ArrayList<>();
        resp.topics().forEach(t -> {
            out.add(t.name() + " " + Errors.forCode(t.errorCode()) + " " + t.topicId());
            t.partitions().forEach(p -> out.add(" " + p.partitionIndex() + " leader=" + p.leaderId() + " epoch="
                + p.leaderEpoch() + " isr=" + p.isrNodes() + " replicas=" + p.replicaNodes() + " elr="
                + p.eligibleLeaderReplicas()));
        });
        out.add("next=" + (resp.nextCursor() == null ? null
            : resp.nextCursor().topicName() + "-" + resp.nextCursor().partitionIndex()));
        return out;
    }

    @Test
    void describeTopicPartitionsPagesTopicsInNameOrderWithTheirIds() {
        final String audit = "audit " + Errors.NONE + " " + KafkaApisBroker.uuid("audit");
        final String orders = "orders " + Errors.NONE + " " + KafkaApisBroker.uuid("orders");
        assertEquals(List.of(audit, " 0 leader=1 epoch=1 isr=[1] replicas=[1] elr=[]",
            " 1 leader=1 epoch=1 isr=[1] replicas=[1] elr=[]", orders,
            " 0 leader=1 epoch=3 isr=[1] replicas=[1] elr=[]", "next=null"), summary(describe(2000, null, 0)),
            "every topic");
        assertEquals(List.of("bad/name " + Errors.INVALID_TOPIC_EXCEPTION + " " + Uuid.ZERO_UUID,
            "nope " + Errors.UNKNOWN_TOPIC_OR_PARTITION + " " + Uuid.ZERO_UUID, orders,
            " 0 leader=1 epoch=3 isr=[1] replicas=[1] elr=[]", "next=null"),
            summary(describe(2000, null, 0, "orders", "nope", "bad/name")), "named topics, sorted");
        // One partition per answer: the cursor walks audit-0, audit-1, then points at the next topic's start.
        assertEquals(List.of(audit, " 0 leader=1 epoch=1 isr=[1] replicas=[1] elr=[]", "next=audit-1"),
            summary(describe(1, null, 0)));
        assertEquals(List.of(audit, " 1 leader=1 epoch=1 isr=[1] replicas=[1] elr=[]", "next=orders-0"),
            summary(describe(1, "audit", 1)));
        assertEquals(List.of(orders, " 0 leader=1 epoch=3 isr=[1] replicas=[1] elr=[]", "next=null"),
            summary(describe(1, "orders", 0)));
        // A cursor naming a topic not asked for, or a negative partition, makes the request invalid (Kafka's rule).
        assertEquals(List.of("orders " + Errors.INVALID_REQUEST + " " + Uuid.ZERO_UUID, "next=null"),
            summary(describe(10, "audit", 0, "orders")));
        assertEquals(List.of("next=null"), summary(describe(10, "audit", -1)));
    }

    // ------------------------------------------------------------------------------------------ listOffsets

    @Test
    void listOffsetsAnswersTheTieredStorageTimestampsAsKafkaDoesWithoutRemoteStorage() {
        for (int i = 0; i < 3; i++) {
            send(ApiKeys.PRODUCE, (short) 13, produce(ORDERS.topic(), KafkaApisBroker.uuid(ORDERS.topic()), 0));
        }
        broker.log(ORDERS).updateHighWatermark(3);
        broker.log(ORDERS).deleteRecordsBefore(1);
        // -4 EARLIEST_LOCAL (v8+): the log start; -5 LATEST_TIERED (v9+) and -6 EARLIEST_PENDING_UPLOAD (v11+): -1.
        final long[][] cases = {{-4, 8, 1, LEADER_EPOCH}, {-5, 9, -1, -1}, {-6, 11, -1, -1}, {-2, 1, 1, LEADER_EPOCH},
            {-1, 1, 3, LEADER_EPOCH}};
        for (short v = 8; v <= KafkaApis.LIST_OFFSETS_MAX; v++) {
            for (final long[] c : cases) {
                if (v < c[1]) {
                    continue;
                }
                final String at = "ListOffsets v" + v + " timestamp " + c[0];
                final ListOffsetsRequestData request = new ListOffsetsRequestData().setReplicaId(-1);
                request.topics().add(new ListOffsetsRequestData.ListOffsetsTopic().setName(ORDERS.topic())
                    .setPartitions(new ArrayList<>(List.of(new ListOffsetsRequestData.ListOffsetsPartition()
                        .setPartitionIndex(0).setTimestamp(c[0]).setCurrentLeaderEpoch(LEADER_EPOCH)))));
                final ListOffsetsResponseData resp = send(ApiKeys.LIST_OFFSETS, v, request);
                final ListOffsetsResponseData.ListOffsetsPartitionResponse p =
                    resp.topics().get(0).partitions().get(0);
                assertEquals(Errors.NONE.code(), p.errorCode(), at);
                assertEquals(c[2], p.offset(), at + ": offset");
                assertEquals(-1, p.timestamp(), at + ": timestamp");
                assertEquals(c[3], p.leaderEpoch(), at + ": leader epoch");
            }
        }
    }
}
