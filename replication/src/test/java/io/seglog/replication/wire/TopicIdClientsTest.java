package io.seglog.replication.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.Await;
import io.seglog.storage.TopicPartition;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An unmodified kafka-clients 4.4 producer and consumer against one broker whose topics have ids: the broker records
 * the version of every request it answers, which proves that the clients negotiated the topic-id versions (Produce
 * v13, Fetch v13 and up) and not the name-based ones, and that records written and read that way come back.
 */
@Timeout(120)
class TopicIdClientsTest {
    private static final TopicPartition ORDERS = new TopicPartition("orders", 0);
    private static final int COUNT = 200;

    @TempDir
    Path dir;

    private Set<Thread> threadsBefore;
    private KafkaApisBroker broker;

    @BeforeEach
    void start() {
        threadsBefore = Await.threads();
        broker = new KafkaApisBroker(dir);
        broker.lead(ORDERS, 1, List.of(KafkaApisBroker.BROKER), List.of(KafkaApisBroker.BROKER));
    }

    @AfterEach
    void stop() {
        if (broker != null) {
            broker.close();
        }
        Await.noThreadsLeakedSince(threadsBefore, Duration.ofSeconds(30),
            name -> name.startsWith("globalEventExecutor") || name.startsWith("ObjectCleaner"));
    }

    @Test
    void kafkaClients44ProduceAndFetchByTopicId() throws Exception {
        final String bootstrap = "127.0.0.1:" + broker.server.address().getPort();
        final Properties pp = new Properties();
        pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        pp.put(ProducerConfig.ACKS_CONFIG, "1");
        pp.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false); // InitProducerId is another helper's
        pp.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        final List<Future<RecordMetadata>> sends = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(pp, new ByteArraySerializer(),
            new ByteArraySerializer())) {
            for (int i = 0; i < COUNT; i++) {
                sends.add(producer.send(new ProducerRecord<>(ORDERS.topic(), ORDERS.partition(), null,
                    ("value-" + i).getBytes(StandardCharsets.UTF_8))));
            }
            producer.flush();
        }
        for (int i = 0; i < COUNT; i++) {
            assertEquals(i, sends.get(i).get().offset(), "record " + i);
        }

        final Properties cp = new Properties();
        cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        cp.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        // The fixture's broker clock only moves when a test moves it, so a long poll would wait for the client's
        // request timeout: fetches return at once instead.
        cp.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 0);
        final List<ConsumerRecord<byte[], byte[]>> read = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(cp, new ByteArrayDeserializer(),
            new ByteArrayDeserializer())) {
            final org.apache.kafka.common.TopicPartition tp = new org.apache.kafka.common.TopicPartition(
                ORDERS.topic(), ORDERS.partition());
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            Await.until(Duration.ofSeconds(60), () -> {
                consumer.poll(Duration.ofMillis(100)).forEach(read::add);
                return read.size() >= COUNT;
            }, () -> read.size() + " of " + COUNT + " records read");
        }
        for (int i = 0; i < COUNT; i++) {
            assertEquals(i, read.get(i).offset());
            assertEquals("value-" + i, new String(read.get(i).value(), StandardCharsets.UTF_8));
        }

        // The 4.x admin client describes topics with DescribeTopicPartitions when the broker offers it.
        final Properties ap = new Properties();
        ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(ap)) {
            final TopicDescription orders = admin.describeTopics(List.of(ORDERS.topic())).allTopicNames()
                .get(60, TimeUnit.SECONDS).get(ORDERS.topic());
            assertEquals(KafkaApisBroker.uuid(ORDERS.topic()), orders.topicId());
            assertEquals(1, orders.partitions().size());
            assertEquals(KafkaApisBroker.BROKER, orders.partitions().get(0).leader().id());
        }
        assertEquals(Set.of((short) 0), broker.versionsSeen.get(ApiKeys.DESCRIBE_TOPIC_PARTITIONS),
            "DescribeTopicPartitions: " + broker.versionsSeen);

        final Set<Short> produce = broker.versionsSeen.get(ApiKeys.PRODUCE);
        final Set<Short> fetch = broker.versionsSeen.get(ApiKeys.FETCH);
        assertEquals(Set.of((short) 13), produce, "Produce versions the producer used: " + broker.versionsSeen);
        assertTrue(fetch.stream().allMatch(v -> v >= 13), "Fetch versions the consumer used: " + broker.versionsSeen);
        assertEquals(Set.of(KafkaApis.FETCH_MAX), fetch, "the highest stable Fetch: " + broker.versionsSeen);
        assertEquals(Set.of(KafkaApis.METADATA_MAX), broker.versionsSeen.get(ApiKeys.METADATA));
        assertEquals(Set.of(KafkaApis.LIST_OFFSETS_MAX), broker.versionsSeen.get(ApiKeys.LIST_OFFSETS),
            "ListOffsets: " + broker.versionsSeen);
    }
}
