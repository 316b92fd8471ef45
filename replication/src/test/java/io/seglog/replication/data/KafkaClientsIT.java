package io.seglog.replication.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.Await;
import io.seglog.storage.TopicPartition;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Unmodified kafka-clients 4.4 producers and consumers against three Seglog brokers: every acknowledged record is
 * read back, in order, from the leader and after the leader is replaced.
 */
@Timeout(240)
class KafkaClientsIT {
    @TempDir
    Path dir;
    private TestingServer zk;
    private DataCluster cluster;

    @BeforeEach
    void start() throws Exception {
        zk = new TestingServer();
        cluster = new DataCluster(zk.getConnectString(), dir, props -> props.put("min.insync.replicas", 2));
        cluster.startAll(1, 2, 3);
    }

    @AfterEach
    void stop() throws Exception {
        cluster.close();
        zk.close();
    }

    static KafkaProducer<byte[], byte[]> producer(final String bootstrap, final String acks) {
        final Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, acks);
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 30_000);
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    static KafkaConsumer<byte[], byte[]> consumer(final String bootstrap) {
        final Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /** Reads a partition from offset 0 until {@code count} records came back. */
    static List<ConsumerRecord<byte[], byte[]>> readAll(final String bootstrap, final String topic, final int partition,
                                                        final int count) {
        final List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(bootstrap)) {
            final org.apache.kafka.common.TopicPartition tp = new org.apache.kafka.common.TopicPartition(topic, partition);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            Await.until(DataCluster.WAIT, () -> {
                consumer.poll(Duration.ofMillis(200)).forEach(out::add);
                return out.size() >= count;
            }, () -> out.size() + " of " + count + " records read from " + tp);
        }
        return out;
    }

    @Test
    void producesWithAcksAllAndReadsBackInOrderFromEveryReplica() throws Exception {
        cluster.createTopic("orders", Map.of(0, List.of(1, 2, 3)));
        final int count = 5_000;
        final List<Future<RecordMetadata>> sends = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = producer(cluster.bootstrapServers(), "all")) {
            for (int i = 0; i < count; i++) {
                sends.add(producer.send(new ProducerRecord<>("orders", 0, ("k" + i).getBytes(StandardCharsets.UTF_8),
                    ("value-" + i).getBytes(StandardCharsets.UTF_8))));
            }
            producer.flush();
        }
        for (int i = 0; i < count; i++) {
            assertEquals(i, sends.get(i).get().offset(), "acknowledged offset of record " + i);
        }
        final List<ConsumerRecord<byte[], byte[]>> read = readAll(cluster.bootstrapServers(), "orders", 0, count);
        assertEquals(count, read.size());
        for (int i = 0; i < count; i++) {
            assertEquals(i, read.get(i).offset());
            assertEquals("value-" + i, new String(read.get(i).value(), StandardCharsets.UTF_8));
        }
        // Every replica holds the same log up to the high watermark.
        final TopicPartition tp = new TopicPartition("orders", 0);
        Await.until(DataCluster.WAIT, () -> cluster.brokers().values().stream()
                .allMatch(b -> b.partition(tp).map(p -> p.log().highWatermark() == count).orElse(false)),
            () -> "every replica's high watermark at " + count);
        for (final var b : cluster.brokers().values()) {
            assertEquals(count, b.partition(tp).orElseThrow().log().logEndOffset(), "broker " + b.brokerId());
        }
        assertTrue(cluster.state(tp).isr().containsAll(List.of(1, 2, 3)), "ISR " + cluster.state(tp).isr());
    }
}
