package io.seglog.replication.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Unmodified kafka-clients consumers with {@code subscribe()} against three Seglog brokers: they find their
 * coordinator (the leader of the group's {@code __consumer_offsets} partition, created on first use), split the
 * topic's partitions between them without overlap, commit, and a member that comes later resumes exactly at the
 * committed offsets; the offsets are what Kafka's AdminClient reads back.
 */
class ConsumerGroupsIT {
    private static final String TOPIC = "events";
    private static final String GROUP = "event-readers";
    private static final int PARTITIONS = 4;
    private static final Duration WAIT = Duration.ofSeconds(90);

    @TempDir
    Path dir;

    private TestingServer zk;
    private DataCluster cluster;

    @BeforeEach
    void start() throws Exception {
        zk = new TestingServer();
        cluster = new DataCluster(zk.getConnectString(), dir, props -> {
            props.put("offsets.topic.num.partitions", 5);
            props.put("group.initial.rebalance.delay.ms", 0);
        });
        cluster.startAll(1, 2, 3);
        final Map<Integer, List<Integer>> assignment = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            assignment.put(p, List.of(1 + p % 3, 1 + (p + 1) % 3, 1 + (p + 2) % 3));
        }
        cluster.createTopic(TOPIC, assignment);
    }

    @AfterEach
    void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
        if (zk != null) {
            zk.close();
        }
    }

    private void produce(final int perPartition, final String tag) {
        final Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(),
            new ByteArraySerializer())) {
            for (int i = 0; i < perPartition; i++) {
                for (int part = 0; part < PARTITIONS; part++) {
                    producer.send(new ProducerRecord<>(TOPIC, part, null, (tag + "-" + part + "-" + i)
                        .getBytes(StandardCharsets.UTF_8)));
                }
            }
            producer.flush();
        }
    }

    private KafkaConsumer<byte[], byte[]> consumer(final String clientId) {
        final Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, GROUP);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        final KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
            new ByteArrayDeserializer());
        c.subscribe(List.of(TOPIC));
        return c;
    }

    private static void collect(final KafkaConsumer<byte[], byte[]> c, final List<String> into) {
        for (final ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
            into.add(new String(r.value(), StandardCharsets.UTF_8));
        }
    }

    @Test
    void twoMembersSplitThePartitionsAndALaterMemberResumesAtTheCommittedOffsets() throws Exception {
        produce(100, "first");
        final List<String> readA = new ArrayList<>();
        final List<String> readB = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> a = consumer("member-a"); KafkaConsumer<byte[], byte[]> b =
            consumer("member-b")) {
            final long deadline = System.nanoTime() + WAIT.toNanos();
            boolean split = false;
            while (System.nanoTime() < deadline) {
                collect(a, readA);
                collect(b, readB);
                final Set<TopicPartition> ownedA = a.assignment();
                final Set<TopicPartition> ownedB = b.assignment();
                final Set<TopicPartition> both = new HashSet<>(ownedA);
                both.retainAll(ownedB);
                split = !ownedA.isEmpty() && !ownedB.isEmpty() && both.isEmpty()
                    && ownedA.size() + ownedB.size() == PARTITIONS;
                if (split && distinct(readA, readB) == PARTITIONS * 100 && atEnd(a, 100) && atEnd(b, 100)) {
                    break; // each member is at the end of what it owns: their commits cover everything
                }
            }
            assertTrue(split, "the two members split the " + PARTITIONS + " partitions: " + a.assignment() + " / "
                + b.assignment());
            assertEquals(PARTITIONS * 100, distinct(readA, readB), "every record read by one of them");
            a.commitSync();
            b.commitSync();
        }
        try (Admin admin = cluster.admin()) {
            final Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(GROUP)
                .partitionsToOffsetAndMetadata().get();
            for (int p = 0; p < PARTITIONS; p++) {
                assertEquals(100, committed.get(new TopicPartition(TOPIC, p)).offset(), "committed offset of " + p);
            }
        }
        produce(40, "second");
        final List<String> readC = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = consumer("member-c")) {
            final long deadline = System.nanoTime() + WAIT.toNanos();
            while (readC.size() < PARTITIONS * 40 && System.nanoTime() < deadline) {
                collect(c, readC);
            }
            assertEquals(PARTITIONS * 40, readC.size(), "the later member reads what came after the commits");
            assertFalse(readC.stream().anyMatch(v -> v.startsWith("first-")), "nothing committed is read again");
            c.commitSync();
        }
        try (Admin admin = cluster.admin()) {
            final Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(GROUP)
                .partitionsToOffsetAndMetadata().get();
            for (int p = 0; p < PARTITIONS; p++) {
                assertEquals(140, committed.get(new TopicPartition(TOPIC, p)).offset(), "committed offset of " + p);
            }
        }
    }

    /** Whether a member's position in each partition it owns is at {@code end} (it owns at least one). */
    private static boolean atEnd(final KafkaConsumer<byte[], byte[]> c, final long end) {
        final Set<TopicPartition> owned = c.assignment();
        return !owned.isEmpty() && owned.stream().allMatch(tp -> c.position(tp) == end);
    }

    private static int distinct(final List<String> a, final List<String> b) {
        final Set<String> all = new HashSet<>(a);
        all.addAll(b);
        return all.size();
    }
}
