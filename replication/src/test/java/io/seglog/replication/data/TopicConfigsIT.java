package io.seglog.replication.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.Await;
import io.seglog.replication.broker.SeglogBroker;
import io.seglog.storage.CleanupPolicy;
import io.seglog.storage.LogConfig;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.TopicPartition;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Per-topic configuration on a three-broker cluster, driven by Kafka's AdminClient: the overrides given at creation
 * reach every replica's log (segments rolled at the topic's size, its cleanup policy and retention), a change made
 * with IncrementalAlterConfigs reaches every broker through {@code /config/changes}, a topic's
 * {@code min.insync.replicas} decides acks=all produces, and a restarted broker opens its logs with the overrides,
 * including one changed while it was down.
 */
@Timeout(300)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TopicConfigsIT {
    private static final String TOPIC = "compacted";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
    private static final int SEGMENT_BYTES = 1024 * 1024; // Kafka 4.4's smallest segment.bytes

    @TempDir
    static Path dir;
    private TestingServer zk;
    private DataCluster cluster;
    private Admin admin;

    @BeforeAll
    void start() throws Exception {
        zk = new TestingServer();
        cluster = new DataCluster(zk.getConnectString(), dir, props -> { });
        cluster.startAll(1, 2, 3);
        admin = cluster.admin();
    }

    @AfterAll
    void stop() throws Exception {
        if (admin != null) {
            admin.close();
        }
        cluster.close();
        zk.close();
    }

    private static <T> T get(final org.apache.kafka.common.KafkaFuture<T> future) throws Exception {
        return future.get(90, TimeUnit.SECONDS);
    }

    private KafkaProducer<byte[], byte[]> producer() {
        final Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.allBootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60_000);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 30_000);
        p.put(ProducerConfig.RETRIES_CONFIG, 0); // a refusal is the answer, not a reason to retry
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        return new KafkaProducer<>(p);
    }

    private Optional<PartitionLog> log(final int broker) {
        final SeglogBroker b = cluster.broker(broker);
        return b == null ? Optional.empty() : b.logs().log(TP);
    }

    /** Waits until every listed broker has the topic's log and its configuration passes {@code check}. */
    private void awaitConfigs(final String what, final Predicate<LogConfig> check, final int... brokers) {
        for (final int id : brokers) {
            Await.until(DataCluster.WAIT, () -> log(id).map(l -> check.test(l.config())).orElse(false),
                () -> "broker " + id + ": " + what + "; its configuration: " + log(id).map(PartitionLog::config));
        }
    }

    private static long logFilesOver(final Path partitionDir, final long bytes) throws Exception {
        try (Stream<Path> files = Files.list(partitionDir)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".log")).filter(f -> {
                try {
                    return Files.size(f) > bytes;
                } catch (final java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }).count();
        }
    }

    @Test
    void overridesReachEveryReplicaAndChangesReachEveryBrokerAndSurviveARestart() throws Exception {
        get(admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 3).configs(Map.of(
            LogConfig.SEGMENT_BYTES_CONFIG, String.valueOf(SEGMENT_BYTES),
            LogConfig.CLEANUP_POLICY_CONFIG, "compact",
            LogConfig.RETENTION_MS_CONFIG, "3600000")))).all());
        final Predicate<LogConfig> created = c -> c.segmentBytes() == SEGMENT_BYTES
            && c.cleanupPolicy() == CleanupPolicy.COMPACT && c.retentionMs() == 3_600_000L;
        awaitConfigs("the creation's overrides", created, 1, 2, 3);

        // 3 MiB of records, keyed: every replica rolls its segments at the topic's 1 MiB, not the broker's 1 GiB.
        final byte[] value = new byte[10 * 1024];
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            for (int i = 0; i < 300; i++) {
                producer.send(new ProducerRecord<>(TOPIC, 0, ("k" + (i % 50)).getBytes(), value));
            }
            producer.flush();
        }
        for (int id = 1; id <= 3; id++) {
            final int broker = id;
            Await.until(DataCluster.WAIT, () -> log(broker).map(l -> l.logEndOffset() == 300 && l.segmentCount() >= 3)
                .orElse(false), () -> "broker " + broker + " has every record in segments of 1 MiB: "
                + log(broker).map(l -> l.logEndOffset() + " records, " + l.segmentCount() + " segments"));
            assertEquals(0, logFilesOver(log(broker).orElseThrow().dir(), SEGMENT_BYTES), "broker " + broker);
        }

        // kafka-configs --alter --add-config retention.ms=7200000,min.insync.replicas=3 --delete-config segment.bytes
        final ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, TOPIC);
        get(admin.incrementalAlterConfigs(Map.of(resource, List.of(
            new AlterConfigOp(new ConfigEntry(LogConfig.RETENTION_MS_CONFIG, "7200000"), AlterConfigOp.OpType.SET),
            new AlterConfigOp(new ConfigEntry(LogConfig.MIN_INSYNC_REPLICAS_CONFIG, "3"), AlterConfigOp.OpType.SET),
            new AlterConfigOp(new ConfigEntry(LogConfig.SEGMENT_BYTES_CONFIG, null), AlterConfigOp.OpType.DELETE))))
            .all());
        final Predicate<LogConfig> altered = c -> c.retentionMs() == 7_200_000L && c.minInsyncReplicas() == 3
            && c.segmentBytes() == LogConfig.DEFAULT_SEGMENT_BYTES && c.cleanupPolicy() == CleanupPolicy.COMPACT;
        awaitConfigs("the altered configuration", altered, 1, 2, 3);
        assertEquals("7200000", get(admin.describeConfigs(List.of(resource)).all()).get(resource)
            .get(LogConfig.RETENTION_MS_CONFIG).value());
        final ExecutionException invalid = assertThrows(ExecutionException.class, () -> get(admin
            .incrementalAlterConfigs(Map.of(resource, List.of(new AlterConfigOp(new ConfigEntry(
                LogConfig.RETENTION_MS_CONFIG, "-7"), AlterConfigOp.OpType.SET)))).all()));
        assertInstanceOf(InvalidConfigurationException.class, invalid.getCause());

        // Written straight into ZooKeeper, as another tool would (the overrides and a change notification).
        cluster.store().admin().changeTopicConfig(TOPIC, new io.seglog.replication.zk.TopicConfigZnode(Map.of(
            LogConfig.CLEANUP_POLICY_CONFIG, "compact", LogConfig.RETENTION_MS_CONFIG, "7200000",
            LogConfig.MIN_INSYNC_REPLICAS_CONFIG, "3", LogConfig.SEGMENT_MS_CONFIG, "86400000")));
        awaitConfigs("the overrides written into ZooKeeper", altered.and(c -> c.segmentMs() == 86_400_000L), 1, 2, 3);

        // A broker down: the ISR shrinks to two, below the topic's min.insync.replicas=3 (the broker default is 1).
        final int follower = followerOf(TP);
        cluster.stop(follower);
        Await.until(DataCluster.WAIT, () -> isrSize() == 2, () -> "ISR shrinks to 2: " + isrSize());
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            final ExecutionException refused = assertThrows(ExecutionException.class,
                () -> producer.send(new ProducerRecord<>(TOPIC, 0, "k".getBytes(), value)).get(90, TimeUnit.SECONDS));
            assertInstanceOf(NotEnoughReplicasException.class, refused.getCause());
        }

        // Changed while the broker is down: it reads the change when it comes back, and keeps the others.
        get(admin.incrementalAlterConfigs(Map.of(resource, List.of(new AlterConfigOp(new ConfigEntry(
            LogConfig.MIN_INSYNC_REPLICAS_CONFIG, "2"), AlterConfigOp.OpType.SET)))).all());
        final Predicate<LogConfig> afterRestart = c -> c.retentionMs() == 7_200_000L && c.minInsyncReplicas() == 2
            && c.cleanupPolicy() == CleanupPolicy.COMPACT;
        final int[] running = java.util.stream.IntStream.rangeClosed(1, 3).filter(i -> i != follower).toArray();
        awaitConfigs("min.insync.replicas=2", afterRestart, running);
        try (KafkaProducer<byte[], byte[]> producer = producer()) {
            assertEquals(300, producer.send(new ProducerRecord<>(TOPIC, 0, "k".getBytes(), value))
                .get(90, TimeUnit.SECONDS).offset(), "two in-sync replicas are enough now");
        }
        final SeglogBroker restarted = cluster.start(follower);
        // Loaded with its topic's configuration at open (read before the broker registered), not patched later.
        final LogConfig loaded = restarted.logs().log(TP).orElseThrow().config();
        assertTrue(afterRestart.test(loaded), "loaded with the overrides: " + loaded);
        restarted.awaitRegistered(DataCluster.WAIT.toMillis());
        awaitConfigs("the overrides after a restart", afterRestart, follower);
        Await.until(DataCluster.WAIT, () -> log(follower).map(l -> l.logEndOffset() == 301).orElse(false),
            () -> "the restarted broker catches up: " + log(follower).map(PartitionLog::logEndOffset));
    }

    @Test
    void aBrokerWhoseSessionExpiredStillHearsOfChanges() throws Exception {
        final String topic = "after-expiry";
        final TopicPartition tp = new TopicPartition(topic, 0);
        get(admin.createTopics(List.of(new NewTopic(topic, 1, (short) 3))).all());
        final int target = 2;
        Await.until(DataCluster.WAIT, () -> cluster.broker(target).logs().log(tp).isPresent(),
            () -> "broker " + target + " has " + tp);
        final SeglogBroker b = cluster.broker(target);
        final long sessionBefore = b.control().zkClient().sessionId();
        io.seglog.replication.zk.ZkTestSupport.expireSession(zk.getConnectString(),
            b.control().zkClient().sessionCredentials());
        Await.until(DataCluster.WAIT, () -> {
            final long now = b.control().zkClient().sessionId();
            return now != 0 && now != sessionBefore;
        }, () -> "broker " + target + " has a new session");
        // The watch on /config/changes went with the old session: the new session re-arms it (and re-reads).
        final ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        get(admin.incrementalAlterConfigs(Map.of(resource, List.of(new AlterConfigOp(new ConfigEntry(
            LogConfig.RETENTION_MS_CONFIG, "123456"), AlterConfigOp.OpType.SET)))).all());
        for (final int id : List.of(1, 2, 3)) {
            Await.until(DataCluster.WAIT, () -> cluster.broker(id).logs().log(tp)
                .map(l -> l.config().retentionMs() == 123_456L).orElse(false),
                () -> "broker " + id + " applies the change: " + cluster.broker(id).logs().log(tp)
                    .map(l -> l.config().retentionMs()));
        }
    }

    private int followerOf(final TopicPartition tp) {
        final int leader = cluster.state(tp).leader();
        return leader == 3 ? 2 : 3;
    }

    private int isrSize() {
        return cluster.state(TP).isr().size();
    }
}
