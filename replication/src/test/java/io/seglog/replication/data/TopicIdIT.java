package io.seglog.replication.data;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.seglog.replication.Await;
import io.seglog.replication.broker.SeglogBroker;
import io.seglog.storage.TopicId;
import io.seglog.storage.TopicPartition;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Topic ids in a three-broker cluster with TCP control messages (ControlCodec v1): a topic created through Seglog
 * gets an id at creation, a topic an older tool wrote without one gets one from the controller (when it appears and
 * when a controller loads the topics), every replica records it in {@code partition.metadata}, clients see it in
 * Metadata, and neither a reassignment, nor a restart of every broker, nor a new controller changes it.
 */
@Timeout(300)
class TopicIdIT {
    @TempDir
    Path dir;
    private TestingServer zk;
    private DataCluster cluster;

    @BeforeEach
    void start() throws Exception {
        zk = new TestingServer();
        cluster = new DataCluster(zk.getConnectString(), dir, props -> { });
        cluster.startAll(1, 2, 3);
    }

    @AfterEach
    void stop() throws Exception {
        cluster.close();
        zk.close();
    }

    private Optional<TopicId> znodeId(final String topic) {
        return cluster.store().topicAssignment(topic, null).flatMap(a -> a.value().topicId()).map(TopicId::fromString);
    }

    /** Writes {@code /brokers/topics/<topic>} as a Kafka tool before KIP-516 did: version 2, no topic_id. */
    private void writeWithoutId(final String topic) throws Exception {
        try (CuratorFramework raw = CuratorFrameworkFactory.newClient(zk.getConnectString(), new RetryOneTime(100))) {
            raw.start();
            raw.blockUntilConnected(30, TimeUnit.SECONDS);
            raw.create().creatingParentsIfNeeded().forPath("/brokers/topics/" + topic,
                "{\"version\":2,\"partitions\":{\"0\":[1,2,3]},\"adding_replicas\":{},\"removing_replicas\":{}}"
                    .getBytes(StandardCharsets.UTF_8));
        }
    }

    /** Waits until every broker's replica of {@code tp} holds {@code id} in its log. */
    private void awaitReplicasHold(final TopicPartition tp, final TopicId id) {
        Await.until(DataCluster.WAIT, () -> cluster.brokers().values().stream().allMatch(b -> b.partition(tp)
                .flatMap(p -> p.log().topicId()).equals(Optional.of(id))),
            () -> "every replica of " + tp + " holding topic id " + id);
        for (final SeglogBroker b : cluster.brokers().values()) {
            final Path file = b.partition(tp).orElseThrow().log().dir().resolve("partition.metadata");
            try {
                assertEquals("version: 0\ntopic_id: " + id, Files.readString(file), "broker " + b.brokerId());
            } catch (final java.io.IOException e) {
                throw new AssertionError(file + " unreadable", e);
            }
        }
    }

    @Test
    void everyTopicGetsAnIdThatReplicasRecordAndClientsSee() throws Exception {
        cluster.createTopic("orders", Map.of(0, List.of(1, 2, 3)));
        final TopicId orders = znodeId("orders").orElseThrow(() -> new AssertionError("TopicAdmin wrote no id"));
        awaitReplicasHold(new TopicPartition("orders", 0), orders);

        writeWithoutId("legacy");
        Await.until(DataCluster.WAIT, () -> znodeId("legacy").isPresent(), () -> "the controller's id for legacy");
        final TopicId legacy = znodeId("legacy").orElseThrow();
        awaitReplicasHold(new TopicPartition("legacy", 0), legacy);
        assertEquals(Optional.of(orders), znodeId("orders"), "an existing id is never changed");

        // The admin client's describeTopics (DescribeTopicPartitions) sees the ids.
        final Properties ap = new Properties();
        ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        try (Admin admin = Admin.create(ap)) {
            final Map<String, TopicDescription> described = admin.describeTopics(List.of("orders", "legacy"))
                .allTopicNames().get(60, TimeUnit.SECONDS);
            assertEquals(orders.toString(), described.get("orders").topicId().toString());
            assertEquals(legacy.toString(), described.get("legacy").topicId().toString());
        }

        // Clients write and read the topic the controller gave an id (Produce v13 and Fetch v13+ by id).
        try (KafkaProducer<byte[], byte[]> producer = KafkaClientsIT.producer(cluster.bootstrapServers(), "all")) {
            for (int i = 0; i < 100; i++) {
                producer.send(new ProducerRecord<>("legacy", 0, null, ("v" + i).getBytes(StandardCharsets.UTF_8)));
            }
            producer.flush();
        }
        final List<ConsumerRecord<byte[], byte[]>> read = KafkaClientsIT.readAll(cluster.bootstrapServers(), "legacy",
            0, 100);
        assertEquals("v99", new String(read.get(99).value(), StandardCharsets.UTF_8));

        // A reassignment rewrites the assignment znode and keeps the id; the new replica records the same id.
        cluster.createTopic("moved", Map.of(0, List.of(1, 2)));
        final TopicId moved = znodeId("moved").orElseThrow();
        cluster.broker(1).admin().reassignPartitions(Map.of(new TopicPartition("moved", 0), List.of(2, 3)));
        Await.until(DataCluster.WAIT, () -> cluster.store().topicAssignment("moved", null)
                .map(a -> a.value().partitions().get(0).equals(List.of(2, 3)) && a.value().addingReplicas().isEmpty())
                .orElse(false), () -> "moved-0 reassigned to [2, 3]");
        assertEquals(Optional.of(moved), znodeId("moved"), "the reassignment kept the id");
        Await.until(DataCluster.WAIT, () -> cluster.broker(3).partition(new TopicPartition("moved", 0))
                .flatMap(p -> p.log().topicId()).equals(Optional.of(moved)),
            () -> "the new replica on broker 3 holding " + moved);
    }

    @Test
    void restartsAndNewControllersKeepTheIdsAndAssignMissingOnesOnLoad() throws Exception {
        cluster.createTopic("orders", Map.of(0, List.of(1, 2, 3)));
        final TopicId orders = znodeId("orders").orElseThrow();
        final TopicPartition tp = new TopicPartition("orders", 0);
        awaitReplicasHold(tp, orders);
        for (final int id : List.of(1, 2, 3)) {
            cluster.stop(id);
        }
        // Written while no controller runs: the next controller assigns its id when it loads the topics.
        writeWithoutId("legacy");
        cluster.startAll(1, 2, 3);
        Await.until(DataCluster.WAIT, () -> znodeId("legacy").isPresent(), () -> "the loading controller's id");
        awaitReplicasHold(new TopicPartition("legacy", 0), znodeId("legacy").orElseThrow());
        assertEquals(Optional.of(orders), znodeId("orders"), "the id survives a full restart");
        awaitReplicasHold(tp, orders);
    }
}
