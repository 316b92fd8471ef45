package io.seglog.replication.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.Await;
import io.seglog.replication.data.KafkaTools.ToolRun;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.tools.ConfigCommand;
import org.apache.kafka.tools.ConsoleProducer;
import org.apache.kafka.tools.GetOffsetShell;
import org.apache.kafka.tools.TopicCommand;
import org.apache.kafka.tools.consumer.ConsoleConsumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka's AdminClient (kafka-clients 4.4) and Kafka's console tools (kafka-tools 4.4's main classes, run in this JVM
 * with their stdout captured) against three Seglog brokers over a real ZooKeeper: topics are created, described,
 * listed, grown, produced to, read back, configured and deleted exactly as against Kafka.
 */
@Timeout(300)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AdminToolsIT {
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

    private static Throwable failure(final org.apache.kafka.common.KafkaFuture<?> future) {
        final ExecutionException e = assertThrows(ExecutionException.class, () -> future.get(90, TimeUnit.SECONDS));
        return e.getCause();
    }

    // ------------------------------------------------------------------------------------------ AdminClient

    @Test
    void adminClientCreatesDescribesGrowsConfiguresAndDeletesTopics() throws Exception {
        get(admin.createTopics(List.of(new NewTopic("orders", 3, (short) 3)
            .configs(Map.of("retention.ms", "3600000")))).all());

        final TopicDescription orders = get(admin.describeTopics(List.of("orders")).allTopicNames()).get("orders");
        assertEquals(3, orders.partitions().size());
        for (final TopicPartitionInfo p : orders.partitions()) {
            assertEquals(3, p.replicas().size(), p.toString());
            assertTrue(p.leader() != null && !p.leader().isEmpty(), "partition " + p.partition() + " led");
        }
        assertTrue(get(admin.listTopics().names()).contains("orders"));

        // Kafka's errors, as Kafka's client exceptions.
        assertInstanceOf(TopicExistsException.class,
            failure(admin.createTopics(List.of(new NewTopic("orders", 1, (short) 1))).all()));
        assertInstanceOf(InvalidReplicationFactorException.class,
            failure(admin.createTopics(List.of(new NewTopic("too-wide", 1, (short) 4))).all()));
        final Throwable badConfig = failure(admin.createTopics(List.of(new NewTopic("bad-config", 1, (short) 1)
            .configs(Map.of("retention.ms", "forever")))).all());
        assertInstanceOf(InvalidConfigurationException.class, badConfig);
        assertTrue(badConfig.getMessage().contains("retention.ms"), badConfig.getMessage());
        get(admin.createTopics(List.of(new NewTopic("checked-only", 2, (short) 2)),
            new CreateTopicsOptions().validateOnly(true)).all());
        final Set<String> names = get(admin.listTopics().names());
        assertFalse(names.contains("checked-only"), names.toString());
        assertFalse(names.contains("bad-config"), names.toString());
        assertFalse(names.contains("too-wide"), names.toString());

        // More partitions; a producer writes to the new one and a consumer reads it back.
        get(admin.createPartitions(Map.of("orders", NewPartitions.increaseTo(5))).all());
        assertInstanceOf(InvalidPartitionsException.class,
            failure(admin.createPartitions(Map.of("orders", NewPartitions.increaseTo(4))).all()));
        Await.until(DataCluster.WAIT, () -> {
            try {
                return get(admin.describeTopics(List.of("orders")).allTopicNames()).get("orders").partitions()
                    .size() == 5;
            } catch (final Exception e) {
                return false;
            }
        }, () -> "orders has 5 partitions");
        final RecordMetadata written;
        try (KafkaProducer<byte[], byte[]> producer = KafkaClientsIT.producer(cluster.bootstrapServers(), "all")) {
            written = producer.send(new ProducerRecord<>("orders", 4, "k".getBytes(StandardCharsets.UTF_8),
                "in partition 4".getBytes(StandardCharsets.UTF_8))).get(60, TimeUnit.SECONDS);
        }
        assertEquals(4, written.partition());
        assertEquals(0, written.offset());
        final List<ConsumerRecord<byte[], byte[]>> read = KafkaClientsIT.readAll(cluster.bootstrapServers(), "orders",
            4, 1);
        assertEquals("in partition 4", new String(read.get(0).value(), StandardCharsets.UTF_8));

        // The cluster.
        final DescribeClusterResult described = admin.describeCluster();
        assertEquals(cluster.broker(1).clusterId(), get(described.clusterId()));
        final Collection<Node> nodes = get(described.nodes());
        assertEquals(Set.of(1, 2, 3), Set.copyOf(nodes.stream().map(Node::id).toList()));
        assertEquals(cluster.store().controllerId(null).getAsInt(), get(described.controller()).id());

        // Configurations: the override, a default, and a broker's own.
        final ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, "orders");
        final ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, "2");
        final Map<ConfigResource, Config> configs = get(admin.describeConfigs(List.of(topic, broker)).all());
        final ConfigEntry retention = configs.get(topic).get("retention.ms");
        assertEquals("3600000", retention.value());
        assertEquals(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG, retention.source());
        final ConfigEntry policy = configs.get(topic).get("cleanup.policy");
        assertEquals("delete", policy.value());
        assertEquals(ConfigEntry.ConfigSource.DEFAULT_CONFIG, policy.source());
        assertEquals("2", configs.get(broker).get("broker.id").value());
        assertInstanceOf(UnknownTopicOrPartitionException.class, failure(admin.describeConfigs(
            List.of(new ConfigResource(ConfigResource.Type.TOPIC, "nowhere"))).all()));

        // Deletion: gone from every listing.
        get(admin.deleteTopics(List.of("orders")).all());
        assertFalse(get(admin.listTopics().names()).contains("orders"));
        assertInstanceOf(UnknownTopicOrPartitionException.class,
            failure(admin.describeTopics(List.of("orders")).allTopicNames()));
        assertInstanceOf(UnknownTopicOrPartitionException.class,
            failure(admin.deleteTopics(List.of("orders")).all()));
    }

    // ---------------------------------------------------------------------------------------- console tools

    private static ToolRun runTool(final String stdin, final KafkaTools.ToolMain main) throws Exception {
        return KafkaTools.run(stdin, main);
    }

    private static void ok(final ToolRun run) {
        assertEquals(0, run.status(), "exit status; stderr: " + run.err());
    }

    @Test
    void consoleToolsCreateListDescribeProduceConsumeAndDescribeConfigs() throws Exception {
        final String bootstrap = cluster.bootstrapServers();
        final ToolRun created = runTool("", () -> TopicCommand.main("--bootstrap-server", bootstrap, "--create",
            "--topic", "events", "--partitions", "2", "--replication-factor", "3", "--config", "retention.ms=86400000"));
        ok(created);
        assertTrue(created.out().contains("Created topic events."), created.out());

        final ToolRun again = runTool("", () -> TopicCommand.main("--bootstrap-server", bootstrap, "--create",
            "--topic", "events", "--partitions", "2", "--replication-factor", "3"));
        assertEquals(1, again.status());
        assertTrue((again.out() + again.err()).contains("Topic 'events' already exists."), again.toString());

        final ToolRun listed = runTool("", () -> TopicCommand.main("--bootstrap-server", bootstrap, "--list"));
        ok(listed);
        assertTrue(listed.out().lines().anyMatch("events"::equals), listed.out());

        final ToolRun described = runTool("", () -> TopicCommand.main("--bootstrap-server", bootstrap, "--describe",
            "--topic", "events"));
        ok(described);
        assertTrue(described.out().contains("Topic: events"), described.out());
        assertTrue(described.out().contains("PartitionCount: 2"), described.out());
        assertTrue(described.out().contains("ReplicationFactor: 3"), described.out());
        assertTrue(described.out().contains("retention.ms=86400000"), described.out());
        assertEquals(2, described.out().lines().filter(l -> l.contains("Partition: ")).count(), described.out());

        // kafka-console-producer with Kafka's producer defaults (idempotent, acks=all): one record per line of stdin,
        // to partition 0 (the default partitioner's sticky choice is not what is tested).
        final ToolRun produced = runTool("first\nsecond\nthird\n", () -> ConsoleProducer.main(new String[] {
            "--bootstrap-server", bootstrap, "--topic", "events", "--sync",
            "--command-property", "partitioner.class=" + PartitionZero.class.getName()}));
        ok(produced);

        final ToolRun consumed = runTool("", () -> ConsoleConsumer.main(new String[] {"--bootstrap-server", bootstrap,
            "--topic", "events", "--partition", "0", "--from-beginning", "--max-messages", "3"}));
        ok(consumed);
        assertEquals(List.of("first", "second", "third"), consumed.out().lines().toList(), consumed.toString());

        final ToolRun offsets = runTool("", () -> GetOffsetShell.main("--bootstrap-server", bootstrap, "--topic",
            "events"));
        ok(offsets);
        assertEquals(List.of("events:0:3", "events:1:0"), offsets.out().lines().sorted().toList(), offsets.out());

        final ToolRun configs = runTool("", () -> ConfigCommand.main(new String[] {"--bootstrap-server", bootstrap,
            "--describe", "--entity-type", "topics", "--entity-name", "events"}));
        ok(configs);
        assertTrue(configs.out().contains("Dynamic configs for topic events are:"), configs.out());
        assertTrue(configs.out().contains("retention.ms=86400000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:"
            + "retention.ms=86400000, DEFAULT_CONFIG:log.retention.ms=604800000}"), configs.out());

        // kafka-configs --alter: IncrementalAlterConfigs, applied by every replica's log.
        final ToolRun altered = runTool("", () -> ConfigCommand.main(new String[] {"--bootstrap-server", bootstrap,
            "--alter", "--entity-type", "topics", "--entity-name", "events", "--add-config",
            "retention.ms=3600000,cleanup.policy=[delete,compact]"}));
        ok(altered);
        assertTrue(altered.out().contains("Completed updating config for topic events."), altered.out());
        for (final int id : List.of(1, 2, 3)) {
            Await.until(DataCluster.WAIT, () -> cluster.broker(id).logs().log(new io.seglog.storage.TopicPartition(
                "events", 0)).map(l -> l.config().retentionMs() == 3_600_000L
                    && l.config().cleanupPolicy() == io.seglog.storage.CleanupPolicy.COMPACT_DELETE).orElse(false),
                () -> "broker " + id + " applies the altered configuration");
        }
        final ToolRun removed = runTool("", () -> ConfigCommand.main(new String[] {"--bootstrap-server", bootstrap,
            "--alter", "--entity-type", "topics", "--entity-name", "events", "--delete-config", "cleanup.policy"}));
        ok(removed);
        final ToolRun described2 = runTool("", () -> ConfigCommand.main(new String[] {"--bootstrap-server", bootstrap,
            "--describe", "--entity-type", "topics", "--entity-name", "events"}));
        ok(described2);
        assertTrue(described2.out().contains("retention.ms=3600000"), described2.out());
        assertFalse(described2.out().contains("cleanup.policy="), described2.out());

        final ToolRun deleted = runTool("", () -> TopicCommand.main("--bootstrap-server", bootstrap, "--delete",
            "--topic", "events"));
        ok(deleted);
        final ToolRun after = runTool("", () -> TopicCommand.main("--bootstrap-server", bootstrap, "--list"));
        ok(after);
        assertFalse(after.out().lines().anyMatch("events"::equals), after.out());
    }

    /** Sends every record to partition 0, so the test knows where the console producer's lines are. */
    public static final class PartitionZero implements org.apache.kafka.clients.producer.Partitioner {
        /** Kafka instantiates partitioners reflectively. */
        public PartitionZero() {
        }

        @Override
        public int partition(final String topic, final Object key, final byte[] keyBytes, final Object value,
                             final byte[] valueBytes, final org.apache.kafka.common.Cluster cluster) {
            return 0;
        }

        @Override
        public void close() {
        }

        @Override
        public void configure(final Map<String, ?> configs) {
        }
    }
}
