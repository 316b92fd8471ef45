package io.seglog.bench.cluster;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * A real Kafka 4.4 cluster in this JVM: three brokers ({@code process.roles=broker}, node ids 1-3) and one
 * dedicated KRaft controller (node id 4, a single-voter quorum), each a {@link KafkaRaftServer} over its own log
 * directory formatted with Kafka's {@link Formatter}, as {@code kafka-storage.sh format} does.
 *
 * <p>Why a dedicated controller rather than three combined broker+controller nodes: it is the shape of the Seglog
 * cluster it is measured against (three brokers beside one ZooKeeper), and it keeps the metadata quorum's Raft
 * traffic off the brokers, as Kafka recommends for anything but development (combined mode is not supported in
 * production). During a produce workload the controller is idle either way; the choice changes start-up, not the
 * data path.
 *
 * <p>Settings: the {@linkplain VersusKafkaBench#commonBrokerSettings() ones shared with Seglog} (segment size,
 * flush policy, {@code min.insync.replicas}, no leader rebalancing); everything else at Kafka's defaults, in
 * particular {@code num.network.threads=3}, {@code num.io.threads=8}, {@code num.replica.fetchers=1}. Ports are
 * picked free before start (the quorum voters string needs the controller's port up front); a port taken between
 * the pick and the bind fails the start with Kafka's bind error.
 *
 * <p>Not thread-safe.
 */
final class KafkaRaftCluster implements BenchCluster {
    private static final int CONTROLLER_ID = 4;
    private static final PrintStream DISCARD = new PrintStream(OutputStream.nullOutputStream());

    private final List<KafkaRaftServer> servers = new ArrayList<>();
    private final List<Integer> brokerPorts = new ArrayList<>();
    private final Admin admin;

    KafkaRaftCluster(final Path dir) {
        try {
            final String clusterId = Uuid.randomUuid().toString();
            final int controllerPort = freePort();
            final String voters = CONTROLLER_ID + "@127.0.0.1:" + controllerPort;
            final Map<String, Object> controller = new HashMap<>();
            controller.put("process.roles", "controller");
            controller.put("node.id", CONTROLLER_ID);
            controller.put("listeners", "CONTROLLER://127.0.0.1:" + controllerPort);
            controller.put("log.dirs", dir.resolve("controller").toString());
            start(controller, voters, clusterId);
            for (int id = 1; id <= 3; id++) {
                final int port = freePort();
                final Map<String, Object> broker = new HashMap<>(VersusKafkaBench.commonBrokerSettings());
                broker.put("process.roles", "broker");
                broker.put("node.id", id);
                broker.put("listeners", "PLAINTEXT://127.0.0.1:" + port);
                broker.put("log.dirs", dir.resolve("broker-" + id).toString());
                start(broker, voters, clusterId);
                brokerPorts.add(port);
            }
            admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap()));
        } catch (final Exception e) {
            close();
            throw new IllegalStateException("Kafka cluster did not start under " + dir, e);
        }
    }

    /** Formats the node's log directory and starts it; returns when {@link KafkaRaftServer#startup()} does. */
    private void start(final Map<String, Object> props, final String voters, final String clusterId)
        throws Exception {
        props.put("controller.quorum.voters", voters);
        props.put("controller.listener.names", "CONTROLLER");
        props.put("listener.security.protocol.map", "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT");
        final KafkaConfig config = new KafkaConfig(props);
        final Formatter formatter = new Formatter()
            .setPrintStream(DISCARD)
            .setNodeId(config.nodeId())
            .setClusterId(clusterId)
            .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
            .setControllerListenerName("CONTROLLER")
            .setMetadataLogDirectory(config.metadataLogDir());
        for (final String logDir : config.logDirs()) {
            formatter.addDirectory(logDir);
        }
        formatter.run();
        final KafkaRaftServer server = new KafkaRaftServer(config, Time.SYSTEM);
        servers.add(server);
        server.startup();
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress("127.0.0.1", 0));
            return socket.getLocalPort();
        }
    }

    @Override
    public String system() {
        return "Kafka";
    }

    @Override
    public String bootstrap() {
        return brokerPorts.stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
    }

    @Override
    public void createTopic(final String topic, final int replicationFactor) throws Exception {
        final List<Integer> replicas = replicationFactor == 1 ? List.of(1) : List.of(1, 2, 3);
        admin.createTopics(List.of(new NewTopic(topic, Map.of(0, replicas)))).all().get(1, TimeUnit.MINUTES);
        final long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        while (System.nanoTime() < deadline) {
            try {
                final TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames()
                    .get(10, TimeUnit.SECONDS).get(topic);
                final TopicPartitionInfo p = d.partitions().get(0);
                if (p.leader() != null && p.leader().id() == 1 && p.isr().size() == replicationFactor) {
                    return;
                }
            } catch (final java.util.concurrent.ExecutionException e) {
                // Not yet in the metadata of the broker asked: ask again.
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
        }
        throw new IllegalStateException("Kafka " + topic + "-0 not led by broker 1 with an ISR of "
            + replicationFactor + " within a minute");
    }

    @Override
    public void close() {
        RuntimeException failure = null;
        if (admin != null) {
            try {
                admin.close();
            } catch (final RuntimeException e) {
                failure = SeglogZkCluster.keep(failure, e);
            }
        }
        // Brokers before the controller (they deregister through it), in reverse order of start.
        for (int i = servers.size() - 1; i >= 0; i--) {
            try {
                servers.get(i).shutdown();
                servers.get(i).awaitShutdown();
            } catch (final RuntimeException e) {
                failure = SeglogZkCluster.keep(failure, e);
            }
        }
        servers.clear();
        if (failure != null) {
            throw failure;
        }
    }
}
