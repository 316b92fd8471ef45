package io.seglog.replication.wire;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.Await;
import io.seglog.storage.TopicPartition;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * InitProducerId (API 22) on the wire, at every advertised version (0 to 5), through a real {@link KafkaWireServer}
 * and {@link WireClient} over loopback ({@link KafkaApisBroker}): a new producer id at epoch 0 for every request
 * without a transactional id (whatever id and epoch a v3+ request carries), COORDINATOR_LOAD_IN_PROGRESS while no id
 * is at hand, INVALID_REQUEST for a transactional id; and an unmodified kafka-clients 4.4 producer with its default
 * settings (idempotent, acks=all) writing batches that carry the id it was given.
 */
@Timeout(60)
class InitProducerIdTest {
    private static final TopicPartition ORDERS = new TopicPartition("orders", 0);

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
        broker.lead(ORDERS, 3, List.of(KafkaApisBroker.BROKER), List.of(KafkaApisBroker.BROKER));
    }

    @AfterEach
    void stop() {
        broker.close();
        Await.noThreadsLeakedSince(threadsBefore, Duration.ofSeconds(30),
            name -> name.startsWith("globalEventExecutor") || name.startsWith("ObjectCleaner")
                || name.startsWith("kafka-producer-network-thread"));
    }

    private InitProducerIdResponseData init(final short version, final InitProducerIdRequestData request) {
        return KafkaApisBroker.await(client.send(ApiKeys.INIT_PRODUCER_ID, version, request));
    }

    private static InitProducerIdRequestData idempotent() {
        return new InitProducerIdRequestData().setTransactionalId(null).setTransactionTimeoutMs(Integer.MAX_VALUE);
    }

    @Test
    void versionSixIsUnstableInThePinnedClientsSoFiveIsTheLastServed() {
        assertEquals(6, ApiKeys.INIT_PRODUCER_ID.latestVersion(true));
        assertEquals(InitProducerIds.MAX_VERSION, ApiKeys.INIT_PRODUCER_ID.latestVersion(false));
        assertEquals(ApiKeys.INIT_PRODUCER_ID.oldestVersion(), InitProducerIds.MIN_VERSION);
    }

    @Test
    void everyRequestWithoutTransactionalIdGetsANewProducerIdAtEpochZero() {
        broker.nextProducerId.set(4_000);
        final Set<Long> handedOut = new HashSet<>();
        for (short v = InitProducerIds.MIN_VERSION; v <= InitProducerIds.MAX_VERSION; v++) {
            final String at = "InitProducerId v" + v;
            final InitProducerIdResponseData first = init(v, idempotent());
            assertEquals(Errors.NONE, Errors.forCode(first.errorCode()), at);
            assertEquals(0, first.producerEpoch(), at + ": epoch of a new id");
            assertEquals(0, first.throttleTimeMs(), at);
            assertTrue(handedOut.add(first.producerId()), at + ": a new id " + first.producerId());
            // An idempotent producer bumping its epoch (v3+ carries its id and epoch) gets a new id at epoch 0, as
            // Kafka's TransactionCoordinator answers a null transactional id.
            final InitProducerIdRequestData bump = idempotent();
            if (v >= 3) {
                bump.setProducerId(first.producerId()).setProducerEpoch((short) 7);
            }
            final InitProducerIdResponseData second = init(v, bump);
            assertEquals(Errors.NONE, Errors.forCode(second.errorCode()), at + " bump");
            assertEquals(0, second.producerEpoch(), at + " bump: epoch 0");
            assertTrue(handedOut.add(second.producerId()), at + " bump: a new id " + second.producerId());
        }
        assertEquals(Set.of(4_000L, 4_001L, 4_002L, 4_003L, 4_004L, 4_005L, 4_006L, 4_007L, 4_008L, 4_009L,
            4_010L, 4_011L), handedOut);
    }

    @Test
    void noIdAtHandAnswersCoordinatorLoadInProgressWhichClientsRetry() {
        broker.nextProducerId.set(ProducerIdSource.NONE_AVAILABLE);
        assertTrue(Errors.COORDINATOR_LOAD_IN_PROGRESS.exception() instanceof
            org.apache.kafka.common.errors.RetriableException, "retriable in kafka-clients");
        for (short v = InitProducerIds.MIN_VERSION; v <= InitProducerIds.MAX_VERSION; v++) {
            final InitProducerIdResponseData resp = init(v, idempotent());
            assertEquals(Errors.COORDINATOR_LOAD_IN_PROGRESS, Errors.forCode(resp.errorCode()), "v" + v);
            assertEquals(-1, resp.producerId(), "v" + v);
            assertEquals(-1, resp.producerEpoch(), "v" + v);
        }
    }

    @Test
    void transactionalIdIsRefusedWithInvalidRequestAndNoIdIsUsed() {
        broker.nextProducerId.set(10);
        for (short v = InitProducerIds.MIN_VERSION; v <= InitProducerIds.MAX_VERSION; v++) {
            final InitProducerIdResponseData resp = init(v, new InitProducerIdRequestData()
                .setTransactionalId("payments-tx").setTransactionTimeoutMs(60_000));
            assertEquals(Errors.INVALID_REQUEST, Errors.forCode(resp.errorCode()), "v" + v);
            assertEquals(-1, resp.producerId(), "v" + v);
            assertEquals(-1, resp.producerEpoch(), "v" + v);
        }
        assertEquals(10, broker.nextProducerId.get(), "no producer id taken for a refused request");
    }

    @Test
    void defaultKafkaProducerWritesIdempotentBatchesWithTheIdItWasGiven() throws Exception {
        broker.nextProducerId.set(77_000);
        final Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + broker.server.address().getPort());
        final int count = 300;
        final List<Future<RecordMetadata>> sends = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(),
            new ByteArraySerializer())) {
            for (int i = 0; i < count; i++) {
                sends.add(producer.send(new ProducerRecord<>(ORDERS.topic(), ORDERS.partition(), null,
                    ("v" + i).getBytes(UTF_8))));
            }
            producer.flush();
        }
        for (int i = 0; i < count; i++) {
            assertEquals(i, sends.get(i).get().offset(), "record " + i);
        }
        final FetchResponseData fetched = KafkaApisBroker.await(client.send(ApiKeys.FETCH, KafkaApis.FETCH_MAX,
            new FetchRequestData().setReplicaId(-1).setMaxWaitMs(0).setMinBytes(0).setMaxBytes(1 << 20)
                .setSessionId(0).setSessionEpoch(-1).setTopics(List.of(new FetchRequestData.FetchTopic()
                    .setTopic(ORDERS.topic()).setTopicId(KafkaApisBroker.uuid(ORDERS.topic()))
                    .setPartitions(List.of(new FetchRequestData.FetchPartition()
                        .setPartition(ORDERS.partition()).setFetchOffset(0).setCurrentLeaderEpoch(-1)
                        .setLastFetchedEpoch(-1).setLogStartOffset(-1).setPartitionMaxBytes(1 << 20)))))));
        final MemoryRecords records = (MemoryRecords) fetched.responses().get(0).partitions().get(0).records();
        int expectedSequence = 0;
        for (final RecordBatch batch : records.batches()) {
            assertEquals(77_000, batch.producerId(), "batch at " + batch.baseOffset());
            assertEquals(0, batch.producerEpoch(), "batch at " + batch.baseOffset());
            assertEquals(expectedSequence, batch.baseSequence(), "batch at " + batch.baseOffset());
            assertEquals(batch.baseOffset(), batch.baseSequence(), "one producer from offset 0: sequence = offset");
            expectedSequence = batch.lastSequence() + 1;
        }
        assertEquals(count, expectedSequence, "every record in a batch of the producer");
        assertEquals(77_001, broker.nextProducerId.get(), "one id for one producer");
    }
}
