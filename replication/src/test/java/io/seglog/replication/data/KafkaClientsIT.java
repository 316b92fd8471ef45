package io.seglog.replication.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.Await;
import io.seglog.replication.broker.SeglogBroker;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.TopicPartition;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Unmodified kafka-clients 4.4 producers and consumers against three Seglog brokers: every acknowledged record is
 * read back, in order, from the leader and after the leader is stopped under load and replaced.
 */
@Timeout(300)
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

    /**
     * Batches compressed by the producer with each of Kafka's codecs are stored as sent (the leader checks their
     * CRC and assigns offsets, as the storage core accepts them), replicated, and decompressed by the consumer.
     */
    @Test
    void compressedBatchesAreStoredReplicatedAndReadBack() throws Exception {
        final int count = 2_000;
        for (final String codec : List.of("gzip", "snappy", "lz4", "zstd")) {
            final String topic = "compressed-" + codec;
            cluster.createTopic(topic, Map.of(0, List.of(1, 2, 3)));
            final Properties p = new Properties();
            p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
            p.put(ProducerConfig.ACKS_CONFIG, "all");
            p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
            p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, codec);
            p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
            final List<Future<RecordMetadata>> sends = new ArrayList<>();
            final long baseTimestamp = System.currentTimeMillis() - 60_000;
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(),
                new ByteArraySerializer())) {
                for (int i = 0; i < count; i++) {
                    sends.add(producer.send(new ProducerRecord<>(topic, 0, baseTimestamp + i, null,
                        (codec + "-value-" + i).getBytes(StandardCharsets.UTF_8))));
                }
                producer.flush();
            }
            for (int i = 0; i < count; i++) {
                assertEquals(i, sends.get(i).get().offset(), codec + ": acknowledged offset of record " + i);
            }
            final List<ConsumerRecord<byte[], byte[]>> read = readAll(cluster.bootstrapServers(), topic, 0, count);
            assertEquals(count, read.size(), codec);
            for (int i = 0; i < count; i++) {
                assertEquals(i, read.get(i).offset(), codec);
                assertEquals(codec + "-value-" + i, new String(read.get(i).value(), StandardCharsets.UTF_8), codec);
            }
            final TopicPartition tp = new TopicPartition(topic, 0);
            Await.until(DataCluster.WAIT, () -> cluster.brokers().values().stream()
                    .allMatch(b -> b.partition(tp).map(x -> x.log().highWatermark() == count).orElse(false)),
                () -> codec + ": every replica's high watermark at " + count);
            final Map<Integer, PartitionLog> logs = new HashMap<>();
            cluster.brokers().forEach((id, b) -> logs.put(id, b.partition(tp).orElseThrow().log()));
            LogBytes.assertIdenticalBelowHighWatermark(logs, count);
            // Stored as the producer compressed them: every batch in the log carries the codec (read by Kafka's own
            // record classes from the leader's bytes).
            final byte[] stored = LogBytes.bytes(logs.get(cluster.state(tp).leader()), 0, count);
            int batches = 0;
            for (final RecordBatch b : MemoryRecords.readableRecords(ByteBuffer.wrap(stored)).batches()) {
                assertEquals(CompressionType.forName(codec), b.compressionType(),
                    codec + ": batch at " + b.baseOffset());
                batches++;
            }
            assertTrue(batches > 0 && batches < count, codec + ": records went in batches: " + batches);
            // ListOffsets by timestamp lands inside compressed batches: the broker decompresses to answer.
            try (KafkaConsumer<byte[], byte[]> consumer = consumer(cluster.bootstrapServers())) {
                final org.apache.kafka.common.TopicPartition kafkaTp =
                    new org.apache.kafka.common.TopicPartition(topic, 0);
                for (final int target : new int[] {0, 1_234, count - 1}) {
                    final var answer = consumer.offsetsForTimes(Map.of(kafkaTp, baseTimestamp + target),
                        Duration.ofSeconds(30)).get(kafkaTp);
                    assertEquals(target, answer.offset(), codec + ": offset for timestamp base+" + target);
                    assertEquals(baseTimestamp + target, answer.timestamp(), codec);
                }
            }
        }
    }

    /**
     * A producer writes with acks=all while the partition's leader is stopped: every acknowledged record is read back
     * exactly once and in order, the restarted broker catches up, and all three replicas hold the same bytes below the
     * high watermark.
     */
    @Test
    void everyAcknowledgedRecordSurvivesTheLeadersLoss() throws Exception {
        final TopicPartition tp = new TopicPartition("payments", 0);
        cluster.createTopic("payments", Map.of(0, List.of(1, 2, 3)));
        final int leader = cluster.state(tp).leader();
        final int count = 20_000;
        final Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        // No retries: a record is acknowledged by the one attempt that stored it, so "exactly once" is checkable.
        p.put(ProducerConfig.RETRIES_CONFIG, 0);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 2);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 20_000);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 25_000);
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, 2_048);
        final List<Future<RecordMetadata>> sends = new ArrayList<>(count);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(),
            new ByteArraySerializer())) {
            for (int i = 0; i < count; i++) {
                sends.add(producer.send(new ProducerRecord<>("payments", 0, null,
                    ("v" + i).getBytes(StandardCharsets.UTF_8))));
                if (i == count / 4) {
                    producer.flush();
                    cluster.stop(leader); // the leader goes while writes continue
                }
                if (i % 1_000 == 999) {
                    producer.flush(); // keep some writes landing after the failover
                }
            }
            producer.flush();
        }
        final List<Integer> acked = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            try {
                sends.get(i).get();
                acked.add(i);
            } catch (final ExecutionException e) {
                // not acknowledged: may or may not be stored
            }
        }
        assertTrue(acked.size() > count / 2, "most writes were acknowledged: " + acked.size());
        Await.until(DataCluster.WAIT, () -> cluster.state(tp).hasLeader() && cluster.state(tp).leader() != leader,
            () -> "a new leader: " + cluster.state(tp));
        final SeglogBroker newLeader = cluster.broker(cluster.state(tp).leader());
        final long hw = newLeader.partition(tp).orElseThrow().log().highWatermark();
        final List<ConsumerRecord<byte[], byte[]>> read = readAll(cluster.bootstrapServers(), "payments",
            0, (int) hw);
        final Map<String, Integer> seen = new HashMap<>();
        final List<Integer> order = new ArrayList<>();
        for (final ConsumerRecord<byte[], byte[]> r : read) {
            final String v = new String(r.value(), StandardCharsets.UTF_8);
            seen.merge(v, 1, Integer::sum);
            order.add(Integer.parseInt(v.substring(1)));
        }
        for (final int i : acked) {
            assertEquals(1, seen.getOrDefault("v" + i, 0), "acknowledged record v" + i + " read exactly once");
        }
        int previous = -1;
        for (final int i : order) {
            assertTrue(i > previous, "records in the order they were sent: " + i + " after " + previous);
            previous = i;
        }
        // The old leader comes back, truncates by epoch if it must, and catches up.
        cluster.start(leader);
        Await.until(DataCluster.WAIT, () -> cluster.state(tp).isr().size() == 3, () -> "ISR back to 3: "
            + cluster.state(tp));
        final long end = newLeader.partition(tp).orElseThrow().log().logEndOffset();
        Await.until(DataCluster.WAIT, () -> cluster.brokers().values().stream().allMatch(b ->
                b.partition(tp).map(x -> x.log().highWatermark() == end).orElse(false)),
            () -> "every replica's high watermark at " + end);
        final Map<Integer, PartitionLog> logs = new HashMap<>();
        cluster.brokers().forEach((id, b) -> logs.put(id, b.partition(tp).orElseThrow().log()));
        LogBytes.assertIdenticalBelowHighWatermark(logs, end);
    }
}
