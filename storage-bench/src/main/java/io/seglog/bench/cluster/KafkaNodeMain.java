package io.seglog.bench.cluster;

import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * One Kafka 4.4 node (a KRaft controller or a broker) as a process of its own, as {@code kafka-storage.sh format}
 * followed by {@code kafka-server-start.sh} run it: formats the node's log directories with Kafka's
 * {@link Formatter}, starts a {@link KafkaRaftServer} and prints {@code READY kafka <node.id>}; SIGTERM shuts it
 * down as Kafka's own shutdown hook does.
 *
 * <p>Usage: {@code java <Kafka's JVM flags> -cp benchmarks.jar io.seglog.bench.cluster.KafkaNodeMain
 * server.properties CLUSTER_ID}.
 */
public final class KafkaNodeMain {
    private KafkaNodeMain() {
    }

    /**
     * Formats and runs the node until the process is asked to stop.
     *
     * @param args the node's properties file and the cluster id
     * @throws Exception when the configuration cannot be read or the node cannot start
     */
    public static void main(final String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: KafkaNodeMain server.properties CLUSTER_ID");
            System.exit(2);
        }
        final Properties file = new Properties();
        try (InputStream in = Files.newInputStream(Path.of(args[0]))) {
            file.load(in);
        }
        final Map<String, Object> props = new HashMap<>();
        file.forEach((k, v) -> props.put(k.toString(), v.toString()));
        final KafkaConfig config = new KafkaConfig(props);
        final Formatter formatter = new Formatter()
            .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
            .setNodeId(config.nodeId())
            .setClusterId(args[1])
            .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
            .setControllerListenerName("CONTROLLER")
            .setMetadataLogDirectory(config.metadataLogDir());
        for (final String logDir : config.logDirs()) {
            formatter.addDirectory(logDir);
        }
        formatter.run();
        final KafkaRaftServer server = new KafkaRaftServer(config, Time.SYSTEM);
        final CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                server.shutdown();
                server.awaitShutdown();
            } finally {
                stopped.countDown();
            }
        }, "kafka-shutdown"));
        server.startup();
        System.out.println("READY kafka " + config.nodeId());
        System.out.flush();
        stopped.await();
    }
}
