package io.seglog.replication.wire;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.Await;
import io.seglog.replication.replica.ReplicaManager;
import io.seglog.storage.LogManager;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.TopicPartition;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.MessageSizeAccumulator;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker's Kafka APIs end to end: a real {@link KafkaWireServer} on loopback serving {@link KafkaApis} over a real
 * {@link ReplicaManager} and {@link LogManager}, spoken to with kafka-clients' message classes at every version each
 * API serves (each assertion names the version; the broker is a {@link KafkaApisBroker}). The oracle for the bytes a
 * fetch returns is kafka-clients itself: the batch as the producer built it, with the offsets and leader epoch set by
 * {@link MutableRecordBatch}'s setters.
 */
@Timeout(120)
class KafkaApisTest {
    private static final int BROKER = KafkaApisBroker.BROKER;
    private static final int FOLLOWER = 2;
    private static final int LEADER_EPOCH = 3;
    private static final TopicPartition ORDERS = new TopicPartition("orders", 0);
    private static final TopicPartition AUDIT_0 = new TopicPartition("audit", 0);
    private static final TopicPartition AUDIT_1 = new TopicPartition("audit", 1);
    /** A fixed create time in the past: inside the default message.timestamp.*.max.ms whatever the wall clock says. */
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
        lead(ORDERS, LEADER_EPOCH, List.of(BROKER), List.of(BROKER));
        lead(AUDIT_0, 1, List.of(BROKER), List.of(BROKER));
        lead(AUDIT_1, 1, List.of(BROKER), List.of(BROKER));
    }

    @AfterEach
    void stop() {
        if (broker != null) {
            broker.close();
        }
        Await.noThreadsLeakedSince(threadsBefore, Duration.ofSeconds(30),
            name -> name.startsWith("globalEventExecutor") || name.startsWith("ObjectCleaner"));
    }

    private void lead(final TopicPartition tp, final int leaderEpoch, final List<Integer> assignment,
                      final List<Integer> isr) {
        broker.lead(tp, leaderEpoch, assignment, isr);
    }

    private PartitionLog log(final TopicPartition tp) {
        return broker.log(tp);
    }

    private static <T extends ApiMessage> T await(final CompletableFuture<ApiMessage> future) {
        return KafkaApisBroker.await(future);
    }

    private <T extends ApiMessage> T send(final ApiKeys api, final short version, final ApiMessage body) {
        return await(client.send(api, version, body));
    }

    // ---------------------------------------------------------------------------------------------- records

    /** One batch, one record per timestamp, as a producer builds it (base offset 0, no leader epoch). */
    private static MemoryRecords batch(final long... timestamps) {
        final SimpleRecord[] records = new SimpleRecord[timestamps.length];
        for (int i = 0; i < timestamps.length; i++) {
            records[i] = new SimpleRecord(timestamps[i], ("key-" + i).getBytes(UTF_8),
                ("value-" + timestamps[i]).getBytes(UTF_8));
        }
        return MemoryRecords.withRecords(Compression.NONE, records);
    }

    /** The batch as the log must hold it: kafka-clients' setters give it the offsets and epoch (CRC untouched). */
    private static byte[] stamped(final MemoryRecords sent, final long baseOffset, final int leaderEpoch) {
        final ByteBuffer copy = ByteBuffer.allocate(sent.sizeInBytes()).put(sent.buffer().duplicate()).flip();
        long next = baseOffset;
        for (final MutableRecordBatch b : MemoryRecords.readableRecords(copy).batches()) {
            final long count = b.lastOffset() - b.baseOffset() + 1;
            b.setLastOffset(next + count - 1);
            b.setPartitionLeaderEpoch(leaderEpoch);
            next += count;
        }
        return copy.array();
    }

    private static byte[] bytes(final BaseRecords records) {
        if (records == null) {
            return new byte[0];
        }
        final ByteBuffer buffer = assertInstanceOf(MemoryRecords.class, records).buffer();
        final byte[] out = new byte[buffer.remaining()];
        buffer.duplicate().get(out);
        return out;
    }

    private static byte[] concat(final byte[]... parts) {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (final byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    // ---------------------------------------------------------------------------------------------- produce

    /** A produce of one batch; v13+ name the topic by its id ({@link KafkaApisBroker#topicId}). */
    private static ProduceRequestData produceRequest(final short version, final short acks, final TopicPartition tp,
                                                     final MemoryRecords records, final String transactionalId) {
        final ProduceRequestData data = new ProduceRequestData().setAcks(acks).setTimeoutMs(30_000)
            .setTransactionalId(transactionalId);
        final ProduceRequestData.TopicProduceData topic = version >= 13
            ? new ProduceRequestData.TopicProduceData().setTopicId(KafkaApisBroker.uuid(tp.topic()))
            : new ProduceRequestData.TopicProduceData().setName(tp.topic());
        topic.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(tp.partition())
            .setRecords(records));
        data.topicData().add(topic);
        return data;
    }

    private ProduceResponseData.PartitionProduceResponse produce(final short version, final short acks,
                                                                 final TopicPartition tp, final MemoryRecords records,
                                                                 final String transactionalId) {
        final ProduceResponseData resp = send(ApiKeys.PRODUCE, version, produceRequest(version, acks, tp, records,
            transactionalId));
        assertEquals(1, resp.responses().size(), "Produce v" + version + ": topics in " + resp);
        final ProduceResponseData.TopicProduceResponse topic = resp.responses().iterator().next();
        if (version >= 13) {
            assertEquals(KafkaApisBroker.uuid(tp.topic()), topic.topicId(), "Produce v" + version + ": topic id");
        } else {
            assertEquals(tp.topic(), topic.name(), "Produce v" + version);
        }
        assertEquals(1, topic.partitionResponses().size(), "Produce v" + version + ": partitions in " + resp);
        final ProduceResponseData.PartitionProduceResponse p = topic.partitionResponses().get(0);
        assertEquals(tp.partition(), p.index(), "Produce v" + version);
        return p;
    }

    /** Produces at the latest version with acks=1 and answers the batch as the log must now hold it. */
    private byte[] produceOk(final TopicPartition tp, final int leaderEpoch, final MemoryRecords records) {
        final long expectedBase = log(tp).logEndOffset();
        final ProduceResponseData.PartitionProduceResponse p = produce(KafkaApis.PRODUCE_MAX, (short) 1, tp, records,
            null);
        assertEquals(Errors.NONE, Errors.forCode(p.errorCode()), p.errorMessage());
        assertEquals(expectedBase, p.baseOffset());
        return stamped(records, expectedBase, leaderEpoch);
    }

    @Test
    void produceAnswersTheBaseOffsetOfEachBatchAtEveryVersion() {
        long next = 0;
        for (short v = KafkaApis.PRODUCE_MIN; v <= KafkaApis.PRODUCE_MAX; v++) {
            final String at = "Produce v" + v;
            final int count = 1 + v % 3;
            final long[] timestamps = new long[count];
            for (int i = 0; i < count; i++) {
                timestamps[i] = T0 + 10L * v + i;
            }
            final ProduceResponseData.PartitionProduceResponse p = produce(v, (short) 1, ORDERS, batch(timestamps),
                null);
            assertEquals(Errors.NONE, Errors.forCode(p.errorCode()), at + ": " + p.errorMessage());
            assertEquals(next, p.baseOffset(), at + ": baseOffset");
            assertEquals(-1, p.logAppendTimeMs(), at + ": logAppendTimeMs (CreateTime)");
            assertEquals(v >= 5 ? 0 : -1, p.logStartOffset(), at + ": logStartOffset (v5+)");
            if (v >= 8) {
                assertNull(p.errorMessage(), at + ": errorMessage");
                assertTrue(p.recordErrors().isEmpty(), at + ": recordErrors");
            }
            next += count;
            assertEquals(next, log(ORDERS).logEndOffset(), at + ": log end after the append");
            assertEquals(next, log(ORDERS).highWatermark(), at + ": RF 1, the high watermark follows the log end");
        }
    }

    @Test
    void produceWithAcksZeroGetsNoResponseAndIsAppended() throws IOException {
        try (RawConnection raw = new RawConnection(broker.server.address())) {
            long end = 0;
            for (short v = KafkaApis.PRODUCE_MIN; v <= KafkaApis.PRODUCE_MAX; v++) {
                final String at = "Produce v" + v + " acks=0";
                raw.send(ApiKeys.PRODUCE, v, 1000 + v, produceRequest(v, (short) 0, ORDERS, batch(T0 + v, T0 + v + 1),
                    null));
                final MetadataRequestData metadata = new MetadataRequestData();
                metadata.topics().add(new MetadataRequestData.MetadataRequestTopic().setName(ORDERS.topic()));
                raw.send(ApiKeys.METADATA, (short) 12, 2000 + v, metadata);
                // Responses come in request order: the Metadata answer first means the produce got none.
                final MetadataResponseData answer = raw.receive(ApiKeys.METADATA, (short) 12, 2000 + v, at);
                assertEquals(Errors.NONE.code(), answer.topics().find(ORDERS.topic()).errorCode(), at);
                end += 2;
                // The produce was handled before the Metadata request behind it (handlers run in arrival order).
                assertEquals(end, log(ORDERS).logEndOffset(), at + ": appended");
            }
        }
    }

    @Test
    void produceToAnUnknownPartitionAnswersUnknownTopicOrPartition() {
        for (short v = KafkaApis.PRODUCE_MIN; v <= KafkaApis.PRODUCE_MAX; v++) {
            for (final TopicPartition tp : List.of(new TopicPartition("nope", 0), new TopicPartition("orders", 9))) {
                final ProduceResponseData.PartitionProduceResponse p = produce(v, (short) 1, tp, batch(T0), null);
                // v13+ name the topic by id: an id nobody knows is UNKNOWN_TOPIC_ID (Kafka's answer), a known id with
                // an unknown partition still UNKNOWN_TOPIC_OR_PARTITION.
                final Errors expected = v >= 13 && tp.topic().equals("nope") ? Errors.UNKNOWN_TOPIC_ID
                    : Errors.UNKNOWN_TOPIC_OR_PARTITION;
                assertEquals(expected, Errors.forCode(p.errorCode()), "Produce v" + v + " " + tp);
                assertEquals(-1, p.baseOffset(), "Produce v" + v + " " + tp);
            }
        }
        assertEquals(0, log(ORDERS).logEndOffset(), "nothing appended");
    }

    @Test
    void produceWithAcksTwoAnswersInvalidRequiredAcksAndAppendsNothing() {
        for (short v = KafkaApis.PRODUCE_MIN; v <= KafkaApis.PRODUCE_MAX; v++) {
            final ProduceResponseData.PartitionProduceResponse p = produce(v, (short) 2, ORDERS, batch(T0), null);
            assertEquals(Errors.INVALID_REQUIRED_ACKS, Errors.forCode(p.errorCode()), "Produce v" + v);
            assertEquals(0, log(ORDERS).logEndOffset(), "Produce v" + v + ": nothing appended");
        }
    }

    @Test
    void aCorruptedBatchAnswersCorruptMessageAndAppendsNothing() {
        for (short v = KafkaApis.PRODUCE_MIN; v <= KafkaApis.PRODUCE_MAX; v++) {
            final MemoryRecords records = batch(T0, T0 + 1);
            final ByteBuffer buffer = records.buffer();
            final int inLastValue = buffer.limit() - 2; // the last record's value: covered by the CRC, not a length
            buffer.put(inLastValue, (byte) (buffer.get(inLastValue) ^ 0x5A));
            final ProduceResponseData.PartitionProduceResponse p = produce(v, (short) 1, ORDERS, records, null);
            assertEquals(Errors.CORRUPT_MESSAGE, Errors.forCode(p.errorCode()), "Produce v" + v);
            assertEquals(0, log(ORDERS).logEndOffset(), "Produce v" + v + ": nothing appended");
        }
        // The partition still takes good batches.
        assertEquals(0, produce(KafkaApis.PRODUCE_MAX, (short) 1, ORDERS, batch(T0), null).baseOffset());
    }

    @Test
    void aTransactionalProduceIsRefusedAndAppendsNothing() {
        for (short v = KafkaApis.PRODUCE_MIN; v <= KafkaApis.PRODUCE_MAX; v++) {
            final MemoryRecords records = MemoryRecords.withTransactionalRecords(Compression.NONE, 42L, (short) 0, 0,
                new SimpleRecord(T0, "k".getBytes(UTF_8), "v".getBytes(UTF_8)));
            for (final short acks : new short[] {1, -1}) {
                final ProduceResponseData.PartitionProduceResponse p = produce(v, acks, ORDERS, records, "tx-1");
                assertEquals(Errors.INVALID_REQUEST, Errors.forCode(p.errorCode()), "Produce v" + v + " acks=" + acks);
                assertEquals(0, log(ORDERS).logEndOffset(), "Produce v" + v + " acks=" + acks + ": nothing appended");
            }
        }
    }

    // --------------------------------------------------------------------------------------------- metadata

    private MetadataResponseData metadata(final short version, final List<String> topics) {
        final MetadataRequestData request = new MetadataRequestData();
        if (topics == null) {
            request.setTopics(null);
        } else {
            topics.forEach(t -> request.topics().add(new MetadataRequestData.MetadataRequestTopic().setName(t)));
        }
        return send(ApiKeys.METADATA, version, request);
    }

    @Test
    void metadataDescribesBrokersControllerClusterAndPartitionsAtEveryVersion() {
        for (short v = 0; v <= KafkaApis.METADATA_MAX; v++) {
            final String at = "Metadata v" + v;
            final MetadataResponseData resp = metadata(v, List.of(ORDERS.topic(), "nope"));
            assertEquals(1, resp.brokers().size(), at + ": brokers");
            final MetadataResponseData.MetadataResponseBroker node = resp.brokers().iterator().next();
            assertEquals(BROKER, node.nodeId(), at);
            assertEquals("127.0.0.1", node.host(), at);
            assertEquals(broker.server.address().getPort(), node.port(), at);
            assertNull(node.rack(), at);
            assertEquals(v >= 1 ? BROKER : -1, resp.controllerId(), at + ": controllerId (v1+)");
            assertEquals(v >= 2 ? KafkaApisBroker.CLUSTER_ID : null, resp.clusterId(), at + ": clusterId (v2+)");
            assertEquals(List.of(ORDERS.topic(), "nope"), resp.topics().stream().map(t -> t.name()).toList(), at);

            final MetadataResponseData.MetadataResponseTopic orders = resp.topics().find(ORDERS.topic());
            assertEquals(Errors.NONE.code(), orders.errorCode(), at);
            assertFalse(orders.isInternal(), at);
            assertEquals(v >= 10 ? KafkaApisBroker.uuid(ORDERS.topic()) : Uuid.ZERO_UUID, orders.topicId(),
                at + ": topic id (v10+)");
            assertEquals(1, orders.partitions().size(), at);
            final MetadataResponseData.MetadataResponsePartition p = orders.partitions().get(0);
            assertEquals(Errors.NONE.code(), p.errorCode(), at);
            assertEquals(ORDERS.partition(), p.partitionIndex(), at);
            assertEquals(BROKER, p.leaderId(), at + ": leader");
            assertEquals(v >= 7 ? LEADER_EPOCH : -1, p.leaderEpoch(), at + ": leaderEpoch (v7+)");
            assertEquals(List.of(BROKER), p.replicaNodes(), at + ": replicas");
            assertEquals(List.of(BROKER), p.isrNodes(), at + ": isr");
            assertEquals(List.of(), p.offlineReplicas(), at + ": offline replicas");

            final MetadataResponseData.MetadataResponseTopic unknown = resp.topics().find("nope");
            assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.forCode(unknown.errorCode()), at);
            assertEquals(Uuid.ZERO_UUID, unknown.topicId(), at + ": an unknown topic has no id");
            assertTrue(unknown.partitions().isEmpty(), at);
        }
    }

    @Test
    void metadataTopicListsNullMeansAllEmptyMeansAllAtV0AndNoneAfter() {
        final List<String> all = List.of(AUDIT_0.topic(), ORDERS.topic());
        for (short v = 0; v <= KafkaApis.METADATA_MAX; v++) {
            final String at = "Metadata v" + v;
            final MetadataResponseData empty = metadata(v, List.of());
            if (v == 0) {
                assertEquals(all, empty.topics().stream().map(t -> t.name()).toList(), at + ": [] means all topics");
                assertEquals(2, empty.topics().find(AUDIT_0.topic()).partitions().size(), at + ": audit partitions");
            } else {
                assertTrue(empty.topics().isEmpty(), at + ": [] means no topic, got " + empty.topics());
                final MetadataResponseData nul = metadata(v, null);
                assertEquals(all, nul.topics().stream().map(t -> t.name()).toList(), at + ": null means all topics");
                final MetadataResponseData.MetadataResponseTopic audit = nul.topics().find(AUDIT_0.topic());
                assertEquals(List.of(0, 1), audit.partitions().stream().map(p -> p.partitionIndex()).toList(), at);
                assertEquals(v >= 7 ? 1 : -1, audit.partitions().get(1).leaderEpoch(), at);
            }
            assertEquals(1, empty.brokers().size(), at + ": the brokers are there whatever the topics");
        }
    }

    // ------------------------------------------------------------------------------------------------ fetch

    private static FetchRequestData fetchRequest(final short version, final int replicaId, final TopicPartition tp,
                                                 final long fetchOffset, final int currentLeaderEpoch,
                                                 final int lastFetchedEpoch, final int maxWaitMs) {
        final FetchRequestData.FetchPartition p = new FetchRequestData.FetchPartition().setPartition(tp.partition())
            .setFetchOffset(fetchOffset).setLogStartOffset(replicaId >= 0 ? 0 : -1).setPartitionMaxBytes(1 << 20)
            .setCurrentLeaderEpoch(currentLeaderEpoch);
        if (version >= 12) {
            p.setLastFetchedEpoch(lastFetchedEpoch); // not in older versions, and not ignorable
        }
        final FetchRequestData data = new FetchRequestData().setReplicaId(replicaId).setMaxWaitMs(maxWaitMs)
            .setMinBytes(1).setMaxBytes(16 << 20).setIsolationLevel((byte) 0).setSessionId(0).setSessionEpoch(-1);
        // v13+ name the topic by id (KIP-516); v15+ carry the replica in ReplicaState (KIP-903).
        data.topics().add((version >= 13 ? new FetchRequestData.FetchTopic().setTopicId(KafkaApisBroker.uuid(tp.topic()))
            : new FetchRequestData.FetchTopic().setTopic(tp.topic())).setPartitions(new ArrayList<>(List.of(p))));
        if (version >= 15) {
            data.setReplicaId(-1).setReplicaState(new FetchRequestData.ReplicaState().setReplicaId(replicaId)
                .setReplicaEpoch(replicaId >= 0 ? 1 : -1));
        }
        return data;
    }

    /** The one partition of a fetch response without a top-level error. */
    private static FetchResponseData.PartitionData only(final FetchResponseData resp, final TopicPartition tp,
                                                        final String at) {
        assertEquals(Errors.NONE, Errors.forCode(resp.errorCode()), at + ": top-level error");
        assertEquals(1, resp.responses().size(), at + ": topics in " + resp);
        // v13+ answer by topic id and leave the name out; older versions the other way round.
        final FetchResponseData.FetchableTopicResponse topic = resp.responses().get(0);
        if (topic.topicId().equals(Uuid.ZERO_UUID)) {
            assertEquals(tp.topic(), topic.topic(), at);
        } else {
            assertEquals(KafkaApisBroker.uuid(tp.topic()), topic.topicId(), at + ": topic id");
            assertEquals("", topic.topic(), at + ": no name beside the id");
        }
        assertEquals(1, resp.responses().get(0).partitions().size(), at + ": partitions in " + resp);
        final FetchResponseData.PartitionData p = resp.responses().get(0).partitions().get(0);
        assertEquals(tp.partition(), p.partitionIndex(), at);
        return p;
    }

    private FetchResponseData.PartitionData consumerFetch(final short version, final TopicPartition tp,
                                                          final long offset, final int currentLeaderEpoch) {
        final String at = "Fetch v" + version + " from " + offset;
        return only(send(ApiKeys.FETCH, version, fetchRequest(version, -1, tp, offset, currentLeaderEpoch, -1, 0)), tp,
            at);
    }

    @Test
    void aConsumerFetchReturnsTheProducedBatchesByteForByteAtEveryVersion() {
        final byte[] a = produceOk(ORDERS, LEADER_EPOCH, batch(T0, T0 + 1));
        final byte[] b = produceOk(ORDERS, LEADER_EPOCH, batch(T0 + 2, T0 + 3, T0 + 4));
        final byte[] c = produceOk(ORDERS, LEADER_EPOCH, batch(T0 + 5));
        for (short v = KafkaApis.FETCH_MIN; v <= KafkaApis.FETCH_MAX; v++) {
            final String at = "Fetch v" + v;
            final FetchResponseData.PartitionData all = consumerFetch(v, ORDERS, 0, -1);
            assertEquals(Errors.NONE, Errors.forCode(all.errorCode()), at);
            assertArrayEquals(concat(a, b, c), bytes(all.records()), at + ": the batches as produced");
            assertEquals(6, all.highWatermark(), at + ": highWatermark");
            assertEquals(6, all.lastStableOffset(), at + ": lastStableOffset");
            assertEquals(v >= 5 ? 0 : -1, all.logStartOffset(), at + ": logStartOffset (v5+)");
            assertEquals(-1, all.preferredReadReplica(), at + ": no preferred read replica (v11+)");
            assertEquals(-1, all.divergingEpoch().epoch(), at + ": no diverging epoch for a consumer");
            final List<Long> bases = new ArrayList<>();
            ((MemoryRecords) all.records()).batches().forEach(batch -> {
                batch.ensureValid();
                bases.add(batch.baseOffset());
            });
            assertEquals(List.of(0L, 2L, 5L), bases, at + ": batch base offsets");

            // From inside a batch: the whole batch that holds the offset comes back (the consumer skips below it).
            assertArrayEquals(concat(b, c), bytes(consumerFetch(v, ORDERS, 3, -1).records()), at + " from 3");
            assertArrayEquals(c, bytes(consumerFetch(v, ORDERS, 5, -1).records()), at + " from 5");

            final FetchResponseData.PartitionData atEnd = consumerFetch(v, ORDERS, 6, -1);
            assertEquals(Errors.NONE, Errors.forCode(atEnd.errorCode()), at + " at the log end");
            assertEquals(0, bytes(atEnd.records()).length, at + " at the log end: no records");
            assertEquals(6, atEnd.highWatermark(), at + " at the log end");

            final FetchResponseData.PartitionData past = consumerFetch(v, ORDERS, 7, -1);
            assertEquals(Errors.OFFSET_OUT_OF_RANGE, Errors.forCode(past.errorCode()), at + " past the log end");
            assertEquals(0, bytes(past.records()).length, at + " past the log end");

            final FetchResponseData.PartitionData unknown = consumerFetch(v, new TopicPartition("nope", 0), 0, -1);
            assertEquals(v >= 13 ? Errors.UNKNOWN_TOPIC_ID : Errors.UNKNOWN_TOPIC_OR_PARTITION,
                Errors.forCode(unknown.errorCode()), at + " unknown");
        }
    }

    @Test
    void aFetchLargerThanItsPartitionLimitStillReturnsTheFirstBatchWhole() {
        final byte[] a = produceOk(ORDERS, LEADER_EPOCH, batch(T0, T0 + 1));
        produceOk(ORDERS, LEADER_EPOCH, batch(T0 + 2));
        for (short v = KafkaApis.FETCH_MIN; v <= KafkaApis.FETCH_MAX; v++) {
            final FetchRequestData request = fetchRequest(v, -1, ORDERS, 0, -1, -1, 0);
            request.topics().get(0).partitions().get(0).setPartitionMaxBytes(1);
            final FetchResponseData.PartitionData p = only(send(ApiKeys.FETCH, v, request), ORDERS, "Fetch v" + v);
            assertArrayEquals(a, bytes(p.records()), "Fetch v" + v + ": one whole batch (KIP-74), no more");
        }
    }

    @Test
    void consumerFetchesStopAtTheHighWatermark() {
        final TopicPartition replicated = new TopicPartition("replicated", 0);
        final byte[] a = replicatedPartitionWithHighWatermarkBelowLogEnd(replicated);
        for (short v = KafkaApis.FETCH_MIN; v <= KafkaApis.FETCH_MAX; v++) {
            final String at = "Fetch v" + v;
            final FetchResponseData.PartitionData p = consumerFetch(v, replicated, 0, -1);
            assertEquals(Errors.NONE, Errors.forCode(p.errorCode()), at);
            assertArrayEquals(a, bytes(p.records()), at + ": only the batch below the high watermark");
            assertEquals(2, p.highWatermark(), at + ": highWatermark");
            assertEquals(2, p.lastStableOffset(), at + ": lastStableOffset");
            assertEquals(v >= 5 ? 0 : -1, p.logStartOffset(), at + ": logStartOffset (v5+)");
            for (final long offset : new long[] {2, 4, 5}) {
                final FetchResponseData.PartitionData above = consumerFetch(v, replicated, offset, -1);
                assertEquals(Errors.NONE, Errors.forCode(above.errorCode()), at + " from " + offset);
                assertEquals(0, bytes(above.records()).length, at + " from " + offset + ": nothing committed there");
            }
        }
    }

    /**
     * Replicas [1, 2], ISR [1, 2], epoch 4: a batch of 2 then one of 3 records, and follower 2 has fetched the first
     * only, so the high watermark is 2 and the log end 5.
     *
     * @return the first batch as stored
     */
    private byte[] replicatedPartitionWithHighWatermarkBelowLogEnd(final TopicPartition tp) {
        final int epoch = 4;
        lead(tp, epoch, List.of(BROKER, FOLLOWER), List.of(BROKER, FOLLOWER));
        final byte[] a = produceOk(tp, epoch, batch(T0, T0 + 1));
        assertEquals(0, log(tp).highWatermark(), "follower 2 holds the high watermark back");
        final FetchResponseData.PartitionData first = only(send(ApiKeys.FETCH, KafkaApis.FETCH_MAX, fetchRequest(
            KafkaApis.FETCH_MAX, FOLLOWER, tp, 0, epoch, -1, 0)), tp, "follower fetch from 0");
        assertArrayEquals(a, bytes(first.records()), "the follower reads above the high watermark");
        final byte[] b = produceOk(tp, epoch, batch(T0 + 2, T0 + 3, T0 + 4));
        final FetchResponseData.PartitionData second = only(send(ApiKeys.FETCH, KafkaApis.FETCH_MAX, fetchRequest(
            KafkaApis.FETCH_MAX, FOLLOWER, tp, 2, epoch, epoch, 0)), tp, "follower fetch from 2");
        assertArrayEquals(b, bytes(second.records()), "follower fetch from 2");
        assertEquals(2, second.highWatermark(), "the follower's fetch from 2 moved the high watermark to 2");
        assertEquals(2, log(tp).highWatermark());
        assertEquals(5, log(tp).logEndOffset());
        return a;
    }

    @Test
    void leaderEpochsAreCheckedFromV9AndSessionsRefusedFromV7() {
        final byte[] a = produceOk(ORDERS, LEADER_EPOCH, batch(T0));
        for (short v = KafkaApis.FETCH_MIN; v <= KafkaApis.FETCH_MAX; v++) {
            final String at = "Fetch v" + v;
            final FetchResponseData.PartitionData stale = consumerFetch(v, ORDERS, 0, LEADER_EPOCH - 1);
            final FetchResponseData.PartitionData future = consumerFetch(v, ORDERS, 0, LEADER_EPOCH + 1);
            if (v >= 9) {
                assertEquals(Errors.FENCED_LEADER_EPOCH, Errors.forCode(stale.errorCode()), at + ": stale epoch");
                assertEquals(0, bytes(stale.records()).length, at + ": stale epoch");
                assertEquals(Errors.UNKNOWN_LEADER_EPOCH, Errors.forCode(future.errorCode()), at + ": future epoch");
                assertEquals(0, bytes(future.records()).length, at + ": future epoch");
            } else {
                // CurrentLeaderEpoch is not in the request before v9 (kafka-clients leaves it out): nothing to check.
                assertArrayEquals(a, bytes(stale.records()), at + ": no epoch on the wire");
                assertArrayEquals(a, bytes(future.records()), at + ": no epoch on the wire");
            }
            assertArrayEquals(a, bytes(consumerFetch(v, ORDERS, 0, LEADER_EPOCH).records()), at + ": current epoch");

            final FetchRequestData withSession = fetchRequest(v, -1, ORDERS, 0, -1, -1, 0).setSessionId(77)
                .setSessionEpoch(1);
            final FetchResponseData resp = send(ApiKeys.FETCH, v, withSession);
            if (v >= 7) {
                assertEquals(Errors.FETCH_SESSION_ID_NOT_FOUND, Errors.forCode(resp.errorCode()), at + ": session");
                assertTrue(resp.responses().isEmpty(), at + ": no partitions with a top-level error");
            } else {
                assertArrayEquals(a, bytes(only(resp, ORDERS, at).records()), at + ": no session on the wire");
            }
        }
    }

    @Test
    void aFollowerWhoseLastFetchedEpochEndedBeforeItsOffsetGetsTheDivergingEpoch() {
        // v12 (Seglog's followers, by name) and the latest (by topic id, the replica in ReplicaState).
        divergingFollower((short) 12);
        divergingFollower(KafkaApis.FETCH_MAX);
    }

    private void divergingFollower(final short v) {
        final TopicPartition tp = new TopicPartition("diverged-" + v, 0);
        broker.proposals.clear();
        lead(tp, 1, List.of(BROKER, FOLLOWER), List.of(BROKER));
        produceOk(tp, 1, batch(T0, T0 + 1)); // offsets 0-1 in epoch 1
        lead(tp, 2, List.of(BROKER, FOLLOWER), List.of(BROKER));
        final byte[] epoch2 = produceOk(tp, 2, batch(T0 + 2, T0 + 3)); // offsets 2-3 in epoch 2
        // The follower has offsets 0-2 with offset 2 in epoch 1: its log diverged at 2, where epoch 1 ended here.
        final FetchResponseData.PartitionData diverging = only(send(ApiKeys.FETCH, v, fetchRequest(v, FOLLOWER, tp, 3,
            2, 1, 0)), tp, "Fetch v" + v + " diverging");
        assertEquals(Errors.NONE, Errors.forCode(diverging.errorCode()), "Fetch v" + v + " diverging");
        assertEquals(1, diverging.divergingEpoch().epoch(), "Fetch v" + v + ": diverging epoch");
        assertEquals(2, diverging.divergingEpoch().endOffset(), "Fetch v" + v + ": where it ended on the leader");
        assertEquals(0, bytes(diverging.records()).length, "Fetch v" + v + ": no records with a diverging epoch");
        assertEquals(4, diverging.highWatermark(), "Fetch v" + v + " diverging");
        assertTrue(broker.proposals.isEmpty(), "a diverged follower is not recorded as caught up: "
            + broker.proposals);

        // The same follower after truncating to 2: it reads epoch 2's batch, then catches up and joins the ISR.
        final FetchResponseData.PartitionData read = only(send(ApiKeys.FETCH, v, fetchRequest(v, FOLLOWER, tp, 2, 2,
            1, 0)), tp, "Fetch v" + v + " from 2");
        assertEquals(-1, read.divergingEpoch().epoch(), "Fetch v" + v + " from 2: no divergence");
        assertArrayEquals(epoch2, bytes(read.records()), "Fetch v" + v + " from 2");
        final FetchResponseData.PartitionData caughtUp = only(send(ApiKeys.FETCH, v, fetchRequest(v, FOLLOWER, tp, 4,
            2, 2, 0)), tp, "Fetch v" + v + " from 4");
        assertEquals(0, bytes(caughtUp.records()).length, "Fetch v" + v + " from 4");
        assertEquals(1, broker.proposals.size(), "one ISR proposal: " + broker.proposals);
        assertEquals(List.of(BROKER, FOLLOWER), broker.proposals.get(0).isr());
        assertEquals(2, broker.proposals.get(0).leaderEpoch());
        assertEquals(List.of(BROKER, FOLLOWER), broker.replicas.partition(tp).orElseThrow().isr(),
            "written, so in effect");
    }

    @Test
    void aLongPollFetchIsAnsweredByTheNextProduceOrByTheBrokerClock() {
        long end = 0;
        for (short v = KafkaApis.FETCH_MIN; v <= KafkaApis.FETCH_MAX; v++) {
            final String at = "Fetch v" + v;
            // One connection: the server hands requests to their handlers in arrival order, so the fetch is waiting
            // when the produce arrives (the fetch is answered first, the produce after it).
            final CompletableFuture<ApiMessage> waiting = client.send(ApiKeys.FETCH, v, fetchRequest(v, -1, ORDERS,
                end, -1, -1, 600_000));
            final MemoryRecords records = batch(T0 + v);
            final CompletableFuture<ApiMessage> produced = client.send(ApiKeys.PRODUCE, KafkaApis.PRODUCE_MAX,
                produceRequest(KafkaApis.PRODUCE_MAX, (short) 1, ORDERS, records, null));
            final FetchResponseData.PartitionData p = only(await(waiting), ORDERS, at);
            assertArrayEquals(stamped(records, end, LEADER_EPOCH), bytes(p.records()), at + ": the batch that came");
            final ProduceResponseData resp = await(produced);
            assertEquals(end, resp.responses().iterator().next().partitionResponses().get(0).baseOffset(), at);
            end++;

            // Nothing comes: the wait ends on the broker's clock (the reaper's). Its 10 minutes never pass on the
            // wall clock here, and the clock moves until the answer comes, however late the fetch was armed.
            final CompletableFuture<ApiMessage> idle = client.send(ApiKeys.FETCH, v, fetchRequest(v, -1, ORDERS, end,
                -1, -1, 600_000));
            Await.until(Duration.ofSeconds(20), () -> {
                broker.clockMs.addAndGet(10_000);
                return idle.isDone();
            }, () -> at + ": the wait expired on the broker clock");
            final FetchResponseData.PartitionData empty = only(await(idle), ORDERS, at + " expired");
            assertEquals(Errors.NONE, Errors.forCode(empty.errorCode()), at + " expired");
            assertEquals(0, bytes(empty.records()).length, at + " expired: no records");
            assertEquals(end, empty.highWatermark(), at + " expired");
        }
    }

    // ------------------------------------------------------------------------------------------ listOffsets

    private ListOffsetsResponseData.ListOffsetsPartitionResponse listOffsets(final short version, final int replicaId,
                                                                           final TopicPartition tp,
                                                                           final long timestamp,
                                                                           final int currentLeaderEpoch) {
        final ListOffsetsRequestData.ListOffsetsPartition p = new ListOffsetsRequestData.ListOffsetsPartition()
            .setPartitionIndex(tp.partition()).setTimestamp(timestamp);
        if (version >= 4) {
            p.setCurrentLeaderEpoch(currentLeaderEpoch);
        }
        final ListOffsetsRequestData request = new ListOffsetsRequestData().setReplicaId(replicaId)
            .setIsolationLevel((byte) 0);
        request.topics().add(new ListOffsetsRequestData.ListOffsetsTopic().setName(tp.topic())
            .setPartitions(new ArrayList<>(List.of(p))));
        final ListOffsetsResponseData resp = send(ApiKeys.LIST_OFFSETS, version, request);
        assertEquals(1, resp.topics().size(), "ListOffsets v" + version);
        assertEquals(tp.topic(), resp.topics().get(0).name());
        assertEquals(1, resp.topics().get(0).partitions().size(), "ListOffsets v" + version);
        final ListOffsetsResponseData.ListOffsetsPartitionResponse answer = resp.topics().get(0).partitions().get(0);
        assertEquals(tp.partition(), answer.partitionIndex());
        return answer;
    }

    private static void assertOffset(final String at, final long offset, final long timestamp, final int epoch,
                                     final ListOffsetsResponseData.ListOffsetsPartitionResponse answer,
                                     final short version) {
        assertEquals(Errors.NONE, Errors.forCode(answer.errorCode()), at);
        assertEquals(offset, answer.offset(), at + ": offset");
        assertEquals(timestamp, answer.timestamp(), at + ": timestamp");
        assertEquals(version >= 4 ? epoch : -1, answer.leaderEpoch(), at + ": leaderEpoch (v4+)");
    }

    @Test
    void listOffsetsFindsEarliestLatestByTimestampAndMaxTimestampAtEveryVersion() {
        produceOk(ORDERS, LEADER_EPOCH, batch(T0, T0 + 10)); // offsets 0-1, epoch 3
        lead(ORDERS, LEADER_EPOCH + 1, List.of(BROKER), List.of(BROKER));
        produceOk(ORDERS, LEADER_EPOCH + 1, batch(T0 + 100, T0 + 110)); // offsets 2-3, epoch 4
        produceOk(ORDERS, LEADER_EPOCH + 1, batch(T0 + 50, T0 + 60)); // offsets 4-5: timestamps go back
        final int current = LEADER_EPOCH + 1;
        for (short v = KafkaApis.LIST_OFFSETS_MIN; v <= KafkaApis.LIST_OFFSETS_MAX; v++) {
            final String at = "ListOffsets v" + v;
            assertOffset(at + " EARLIEST", 0, -1, LEADER_EPOCH, listOffsets(v, -1, ORDERS, -2, current), v);
            assertOffset(at + " LATEST", 6, -1, current, listOffsets(v, -1, ORDERS, -1, current), v);
            assertOffset(at + " T0+5", 1, T0 + 10, LEADER_EPOCH, listOffsets(v, -1, ORDERS, T0 + 5, current), v);
            // Between the first two batches: the first offset at or after it, though a later one is closer in time.
            assertOffset(at + " T0+20", 2, T0 + 100, current, listOffsets(v, -1, ORDERS, T0 + 20, current), v);
            assertOffset(at + " T0+105", 3, T0 + 110, current, listOffsets(v, -1, ORDERS, T0 + 105, current), v);
            assertOffset(at + " after every record", -1, -1, -1, listOffsets(v, -1, ORDERS, T0 + 1_000, current), v);
            if (v >= 7) {
                assertOffset(at + " MAX_TIMESTAMP", 3, T0 + 110, current, listOffsets(v, -1, ORDERS, -3, current), v);
            }
            if (v >= 4) {
                assertEquals(Errors.FENCED_LEADER_EPOCH, Errors.forCode(listOffsets(v, -1, ORDERS, -1, current - 1)
                    .errorCode()), at + ": stale epoch");
                assertEquals(Errors.UNKNOWN_LEADER_EPOCH, Errors.forCode(listOffsets(v, -1, ORDERS, -1, current + 1)
                    .errorCode()), at + ": future epoch");
            }
            assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, Errors.forCode(listOffsets(v, -1,
                new TopicPartition("nope", 0), -1, -1).errorCode()), at + ": unknown partition");
        }
    }

    @Test
    void listOffsetsLatestIsTheHighWatermarkForConsumersAndTheLogEndForReplicas() {
        final TopicPartition replicated = new TopicPartition("replicated", 0);
        replicatedPartitionWithHighWatermarkBelowLogEnd(replicated);
        for (short v = KafkaApis.LIST_OFFSETS_MIN; v <= KafkaApis.LIST_OFFSETS_MAX; v++) {
            final String at = "ListOffsets v" + v;
            assertOffset(at + " LATEST (consumer)", 2, -1, 4, listOffsets(v, -1, replicated, -1, 4), v);
            assertOffset(at + " LATEST (replica)", 5, -1, 4, listOffsets(v, FOLLOWER, replicated, -1, 4), v);
            // Offset 2 carries T0+2, but it is not committed: a consumer is not told of it.
            assertOffset(at + " T0+2 (consumer)", -1, -1, -1, listOffsets(v, -1, replicated, T0 + 2, 4), v);
        }
    }

    // ------------------------------------------------------------------------------ offsetForLeaderEpoch

    private OffsetForLeaderEpochResponseData.EpochEndOffset epochEnd(final short version, final TopicPartition tp,
                                                                     final int currentLeaderEpoch,
                                                                     final int leaderEpoch) {
        final OffsetForLeaderEpochRequestData request = new OffsetForLeaderEpochRequestData();
        final OffsetForLeaderEpochRequestData.OffsetForLeaderTopic topic =
            new OffsetForLeaderEpochRequestData.OffsetForLeaderTopic().setTopic(tp.topic());
        topic.partitions().add(new OffsetForLeaderEpochRequestData.OffsetForLeaderPartition()
            .setPartition(tp.partition()).setCurrentLeaderEpoch(currentLeaderEpoch).setLeaderEpoch(leaderEpoch));
        request.topics().add(topic);
        final OffsetForLeaderEpochResponseData resp = send(ApiKeys.OFFSET_FOR_LEADER_EPOCH, version, request);
        assertEquals(1, resp.topics().size(), "OffsetForLeaderEpoch v" + version);
        final OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult t = resp.topics().iterator().next();
        assertEquals(tp.topic(), t.topic());
        assertEquals(1, t.partitions().size());
        assertEquals(tp.partition(), t.partitions().get(0).partition());
        return t.partitions().get(0);
    }

    private static void assertEpochEnd(final String at, final Errors error, final int epoch, final long endOffset,
                                       final OffsetForLeaderEpochResponseData.EpochEndOffset answer) {
        assertEquals(error, Errors.forCode(answer.errorCode()), at);
        assertEquals(epoch, answer.leaderEpoch(), at + ": leaderEpoch");
        assertEquals(endOffset, answer.endOffset(), at + ": endOffset");
    }

    @Test
    void offsetForLeaderEpochAnswersWhereEachEpochEndsAtEveryVersion() {
        produceOk(ORDERS, LEADER_EPOCH, batch(T0, T0 + 1)); // epoch 3: offsets 0-1
        final int current = LEADER_EPOCH + 2;
        lead(ORDERS, current, List.of(BROKER), List.of(BROKER));
        produceOk(ORDERS, current, batch(T0 + 2, T0 + 3, T0 + 4)); // epoch 5: offsets 2-4
        for (short v = KafkaApis.OFFSET_FOR_LEADER_EPOCH_MIN; v <= KafkaApis.OFFSET_FOR_LEADER_EPOCH_MAX; v++) {
            final String at = "OffsetForLeaderEpoch v" + v;
            assertEpochEnd(at + " current epoch", Errors.NONE, current, 5, epochEnd(v, ORDERS, current, current));
            assertEpochEnd(at + " no current epoch", Errors.NONE, current, 5, epochEnd(v, ORDERS, -1, current));
            assertEpochEnd(at + " epoch 3", Errors.NONE, LEADER_EPOCH, 2, epochEnd(v, ORDERS, current, LEADER_EPOCH));
            // Epoch 4 never led here: the largest epoch below it, ending where the next began.
            assertEpochEnd(at + " epoch 4", Errors.NONE, LEADER_EPOCH, 2, epochEnd(v, ORDERS, current, current - 1));
            // Older than every epoch here: Kafka answers that epoch, ending where the first one here began.
            assertEpochEnd(at + " epoch 2", Errors.NONE, LEADER_EPOCH - 1, 0,
                epochEnd(v, ORDERS, current, LEADER_EPOCH - 1));
            // Newer than every epoch here (the caller sends no current epoch): undefined.
            assertEpochEnd(at + " epoch 6", Errors.NONE, -1, -1, epochEnd(v, ORDERS, -1, current + 1));
            assertEpochEnd(at + " stale current epoch", Errors.FENCED_LEADER_EPOCH, -1, -1,
                epochEnd(v, ORDERS, current - 1, LEADER_EPOCH));
            assertEpochEnd(at + " future current epoch", Errors.UNKNOWN_LEADER_EPOCH, -1, -1,
                epochEnd(v, ORDERS, current + 1, LEADER_EPOCH));
            assertEpochEnd(at + " unknown partition", Errors.UNKNOWN_TOPIC_OR_PARTITION, -1, -1,
                epochEnd(v, new TopicPartition("nope", 0), -1, LEADER_EPOCH));
        }
    }

    // ------------------------------------------------------------------------------------------ apiVersions

    @Test
    void apiVersionsAdvertisesExactlyTheServedRanges() {
        final Map<ApiKeys, short[]> expected = new EnumMap<>(ApiKeys.class);
        expected.put(ApiKeys.METADATA, new short[] {0, 13});
        expected.put(ApiKeys.PRODUCE, new short[] {3, 13});
        expected.put(ApiKeys.FETCH, new short[] {4, 18});
        expected.put(ApiKeys.LIST_OFFSETS, new short[] {1, 11});
        expected.put(ApiKeys.OFFSET_FOR_LEADER_EPOCH, new short[] {2, 4});
        expected.put(ApiKeys.INIT_PRODUCER_ID, new short[] {0, 5});
        expected.put(ApiKeys.DESCRIBE_TOPIC_PARTITIONS, new short[] {0, 0});
        expected.put(ApiKeys.WRITE_TXN_MARKERS, new short[] {WriteTxnMarkersHandler.VERSION,
            WriteTxnMarkersHandler.VERSION});
        assertArrayEquals(new short[] {0, KafkaApis.METADATA_MAX}, expected.get(ApiKeys.METADATA));
        assertArrayEquals(new short[] {KafkaApis.PRODUCE_MIN, KafkaApis.PRODUCE_MAX}, expected.get(ApiKeys.PRODUCE));
        assertArrayEquals(new short[] {KafkaApis.FETCH_MIN, KafkaApis.FETCH_MAX}, expected.get(ApiKeys.FETCH));
        assertArrayEquals(new short[] {KafkaApis.LIST_OFFSETS_MIN, KafkaApis.LIST_OFFSETS_MAX},
            expected.get(ApiKeys.LIST_OFFSETS));
        assertArrayEquals(new short[] {KafkaApis.OFFSET_FOR_LEADER_EPOCH_MIN, KafkaApis.OFFSET_FOR_LEADER_EPOCH_MAX},
            expected.get(ApiKeys.OFFSET_FOR_LEADER_EPOCH));
        assertArrayEquals(new short[] {InitProducerIds.MIN_VERSION, InitProducerIds.MAX_VERSION},
            expected.get(ApiKeys.INIT_PRODUCER_ID));
        expected.put(ApiKeys.API_VERSIONS, new short[] {0, KafkaWireServer.API_VERSIONS_MAX});
        for (short v = 0; v <= KafkaWireServer.API_VERSIONS_MAX; v++) {
            final String at = "ApiVersions v" + v;
            final ApiVersionsResponseData resp = send(ApiKeys.API_VERSIONS, v, new ApiVersionsRequestData()
                .setClientSoftwareName("seglog-test").setClientSoftwareVersion("1"));
            assertEquals(Errors.NONE, Errors.forCode(resp.errorCode()), at);
            final Map<ApiKeys, short[]> advertised = new EnumMap<>(ApiKeys.class);
            resp.apiKeys().forEach(k -> advertised.put(ApiKeys.forId(k.apiKey()), new short[] {k.minVersion(),
                k.maxVersion()}));
            assertEquals(expected.keySet(), advertised.keySet(), at + ": the APIs advertised");
            expected.forEach((api, range) -> assertArrayEquals(range, advertised.get(api), at + ": " + api));
        }
    }

    /**
     * Every Kafka API this broker does not serve, and the versions just outside each served range that
     * kafka-clients' classes still decode, are answered with the API's response at the request's version, with
     * UNSUPPORTED_VERSION where it has a top-level error code, on a connection that stays open; a version no class
     * decodes closes the connection (Kafka's broker does the same).
     */
    @Test
    void aRequestForAnApiOrVersionNotServedIsAnsweredUnsupported() throws Exception {
        final Map<ApiKeys, KafkaApi> served = broker.server.apis();
        final List<short[]> unserved = new ArrayList<>(); // {apiKey, version}
        final List<ApiKeys> removed = new ArrayList<>(); // known keys with no version left (LeaderAndIsr, ...)
        for (final ApiKeys api : ApiKeys.values()) {
            final KafkaApi range = served.get(api);
            if (!api.hasValidVersion()) {
                removed.add(api);
            } else if (range == null) {
                unserved.add(new short[] {api.id, api.oldestVersion()});
                unserved.add(new short[] {api.id, api.latestVersion(true)});
            } else if (api != ApiKeys.API_VERSIONS) {
                if (range.minVersion() > api.oldestVersion()) {
                    unserved.add(new short[] {api.id, (short) (range.minVersion() - 1)});
                }
                if (range.maxVersion() < api.latestVersion(true)) {
                    unserved.add(new short[] {api.id, (short) (range.maxVersion() + 1)});
                }
            }
        }
        assertTrue(unserved.stream().anyMatch(r -> r[0] == ApiKeys.JOIN_GROUP.id), "JoinGroup is not served");
        int withErrorCode = 0;
        try (RawConnection raw = new RawConnection(broker.server.address())) {
            int correlationId = 100;
            for (final short[] r : unserved) {
                final ApiKeys api = ApiKeys.forId(r[0]);
                final String at = api + " v" + r[1];
                raw.send(api, r[1], ++correlationId, api.messageType.newRequest());
                final ApiMessage answer = raw.receive(api, r[1], correlationId, at);
                if (hasTopLevelErrorCode(api, r[1])) {
                    assertEquals(Errors.UNSUPPORTED_VERSION.code(),
                        answer.getClass().getMethod("errorCode").invoke(answer), at);
                    withErrorCode++;
                }
            }
        }
        assertTrue(withErrorCode > 20, "most APIs answer with a top-level error code: " + withErrorCode);
        // A version no class decodes (past the newest, or of an API Kafka 4.x removed) closes the connection, and the
        // server keeps serving others.
        assertTrue(removed.contains(ApiKeys.LEADER_AND_ISR), "kafka-clients 4.x has no LeaderAndIsr version");
        final List<short[]> undecodable = new ArrayList<>();
        for (final ApiKeys api : List.of(ApiKeys.JOIN_GROUP, ApiKeys.METADATA, ApiKeys.FETCH)) {
            undecodable.add(new short[] {api.id, (short) (api.latestVersion(true) + 1)});
        }
        removed.forEach(api -> undecodable.add(new short[] {api.id, 0}));
        for (final short[] r : undecodable) {
            try (RawConnection raw = new RawConnection(broker.server.address())) {
                raw.sendHeaderOnly(r[0], r[1], 5);
                assertTrue(raw.closedByServer(), "closed: " + ApiKeys.forId(r[0]) + " v" + r[1]);
            }
        }
        // Through a real client: the answer arrives, and the connection serves the next request.
        final JoinGroupResponseData join = (JoinGroupResponseData) client.send(ApiKeys.JOIN_GROUP, (short) 5,
            new JoinGroupRequestData().setGroupId("g").setProtocolType("consumer")).get(30, TimeUnit.SECONDS);
        assertEquals(Errors.UNSUPPORTED_VERSION.code(), join.errorCode());
        final MetadataResponseData still = metadata((short) 12, List.of(ORDERS.topic()));
        assertEquals(Errors.NONE.code(), still.topics().find(ORDERS.topic()).errorCode(), "still serving");
    }

    /** Whether the API's response carries a top-level error code at this version (a set code survives encoding). */
    private static boolean hasTopLevelErrorCode(final ApiKeys api, final short version) throws Exception {
        final ApiMessage probe = api.messageType.newResponse();
        final java.lang.reflect.Method set;
        try {
            set = probe.getClass().getMethod("setErrorCode", short.class);
        } catch (final NoSuchMethodException perItemErrorsOnly) {
            return false;
        }
        set.invoke(probe, Errors.UNSUPPORTED_VERSION.code());
        final ObjectSerializationCache cache = new ObjectSerializationCache();
        final MessageSizeAccumulator size = new MessageSizeAccumulator();
        try {
            probe.addSize(size, cache, version);
        } catch (final org.apache.kafka.common.errors.UnsupportedVersionException notInThisVersion) {
            return false;
        }
        final java.nio.ByteBuffer buffer = java.nio.ByteBuffer.allocate(size.totalSize());
        try {
            probe.write(new ByteBufferAccessor(buffer), cache, version);
        } catch (final org.apache.kafka.common.errors.UnsupportedVersionException notInThisVersion) {
            return false;
        }
        buffer.flip();
        final ApiMessage read = api.messageType.newResponse();
        read.read(new ByteBufferAccessor(buffer), version);
        return Errors.UNSUPPORTED_VERSION.code() == (short) read.getClass().getMethod("errorCode").invoke(read);
    }

    @Test
    void theRawConnectionSeesAResponseWhenThereIsOne() throws IOException {
        // The acks=0 test relies on receive() naming the correlation id it read: prove it tells them apart.
        try (RawConnection raw = new RawConnection(broker.server.address())) {
            raw.send(ApiKeys.PRODUCE, KafkaApis.PRODUCE_MAX, 1, produceRequest(KafkaApis.PRODUCE_MAX, (short) 1, ORDERS, batch(T0), null));
            raw.send(ApiKeys.METADATA, (short) 12, 2, new MetadataRequestData());
            final AssertionError error = assertThrows(AssertionError.class,
                () -> raw.receive(ApiKeys.METADATA, (short) 12, 2, "acks=1"),
                "an acks=1 produce is answered, so the next response is not the Metadata one");
            assertTrue(error.getMessage().contains("another request"), error.getMessage());
        }
    }
}
