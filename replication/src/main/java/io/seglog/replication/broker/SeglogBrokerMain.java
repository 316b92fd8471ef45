package io.seglog.replication.broker;

import io.seglog.replication.ReplicationConfig;
import io.seglog.replication.controller.TopicAdmin;
import io.seglog.replication.zk.EmbeddedZooKeeper;
import io.seglog.replication.zk.KafkaZkStore;
import io.seglog.replication.zk.ZkClient;
import io.seglog.replication.zk.ZkError;
import io.seglog.replication.zk.ZkException;
import io.seglog.replication.zk.ZkSessionListener;
import io.seglog.storage.StorageException;
import io.seglog.storage.TopicPartition;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one Seglog broker as a process, from a Kafka {@code server.properties}:
 * <pre>
 * java -cp ... io.seglog.replication.broker.SeglogBrokerMain broker.properties
 * java -cp ... io.seglog.replication.broker.SeglogBrokerMain --zookeeper DATA_DIR PORT
 * java -cp ... io.seglog.replication.broker.SeglogBrokerMain --create-topic ZOOKEEPER_CONNECT TOPIC PARTITIONS RF
 * </pre>
 * The first form starts a broker and stops it on SIGTERM/SIGINT (a controlled shutdown first: the controller moves its
 * leaderships away, then the broker closes and writes its checkpoints). The second runs a standalone ZooKeeper on
 * {@code 127.0.0.1:PORT} for a local cluster (production brokers use a real ensemble). Each prints one line,
 * {@code READY <what>}, once it serves, so that a script can wait for it. The third creates a topic with replicas
 * spread over the live brokers and exits (the brokers' controller then elects its leaders).
 */
public final class SeglogBrokerMain {
    /** How long the shutdown hook waits for the controller to move leaderships away. */
    private static final long CONTROLLED_SHUTDOWN_MS = 30_000;

    private SeglogBrokerMain() {
    }

    /**
     * Runs a broker (or a ZooKeeper server) until the process is asked to stop.
     *
     * @param args {@code broker.properties}, or {@code --zookeeper DATA_DIR PORT}
     * @throws Exception when it cannot start (the message names the file or setting)
     */
    public static void main(final String[] args) throws Exception {
        // slf4j-simple logs every library at INFO by default: keep warnings of libraries and Seglog's own INFO (either
        // property given on the command line wins). Set before the first logger is made. ZooKeeper's client logs a
        // WARN with a stack trace at every reconnect attempt; Seglog says in one line what the connection does.
        System.getProperties().putIfAbsent("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        System.getProperties().putIfAbsent("org.slf4j.simpleLogger.log.io.seglog", "info");
        System.getProperties().putIfAbsent("org.slf4j.simpleLogger.log.org.apache.zookeeper", "error");
        System.getProperties().putIfAbsent("org.slf4j.simpleLogger.log.org.apache.curator", "error");
        System.getProperties().putIfAbsent("org.slf4j.simpleLogger.showDateTime", "true");
        final Logger log = LoggerFactory.getLogger(SeglogBrokerMain.class);
        final PrintStream out = System.out;
        if (args.length == 3 && "--zookeeper".equals(args[0])) {
            final EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(Path.of(args[1]), Integer.parseInt(args[2]));
            runUntilStopped(zk, "READY zookeeper " + zk.connectString(), out, log);
            return;
        }
        if (args.length == 5 && "--create-topic".equals(args[0])) {
            createTopic(args[1], args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]), out);
            return;
        }
        if (args.length != 1 || args[0].startsWith("-")) {
            System.err.println("usage: SeglogBrokerMain broker.properties | --zookeeper DATA_DIR PORT"
                + " | --create-topic ZOOKEEPER_CONNECT TOPIC PARTITIONS REPLICATION_FACTOR");
            System.exit(USAGE);
        }
        final Started started = start(Path.of(args[0]));
        if (started.broker() == null) {
            System.err.println(started.failure());
            System.exit(started.exitCode());
        }
        final SeglogBroker broker = started.broker();
        runUntilStopped(() -> {
            try {
                final Set<TopicPartition> stillLed = broker.controlledShutdown(CONTROLLED_SHUTDOWN_MS);
                if (!stillLed.isEmpty()) {
                    log.warn("broker.id={} stops while still leading {}", broker.brokerId(), stillLed);
                }
            } catch (final TimeoutException e) {
                log.warn("broker.id={} controlled shutdown not acknowledged: {}", broker.brokerId(), e.getMessage());
            } finally {
                broker.close();
            }
        }, "READY broker " + broker.brokerId() + " " + broker.bootstrapServers(), out, log);
    }

    /** Exit code of a configuration that cannot be read or is invalid. */
    static final int USAGE = 2;
    /** Exit code of a broker that cannot start: ZooKeeper unreachable, its id taken, its logs unusable. */
    static final int CANNOT_START = 1;

    /**
     * A start: the broker, registered and serving, or the one line that says why not and the exit code.
     *
     * @param broker   the running broker, or null
     * @param failure  one line naming the cause, or null
     * @param exitCode 0, {@link #USAGE} or {@link #CANNOT_START}
     */
    record Started(SeglogBroker broker, String failure, int exitCode) {
        static Started failed(final int exitCode, final String why) {
            return new Started(null, "seglog: " + why, exitCode);
        }
    }

    /**
     * Starts a broker from a properties file and waits, for a bounded time, until it is registered: a configuration
     * that cannot be read, ZooKeeper out of reach, a {@code broker.id} another live broker holds and log directories
     * that cannot be opened each end in one line naming the cause (Kafka exits on a duplicate broker id too).
     *
     * @param file the broker's properties
     * @return the broker, or the failure
     */
    static Started start(final Path file) {
        final SeglogBrokerConfig config;
        try {
            config = SeglogBrokerConfig.fromProperties(load(file));
        } catch (final IOException e) {
            return Started.failed(USAGE, e.getMessage());
        } catch (final IllegalArgumentException e) {
            return Started.failed(USAGE, "invalid configuration in " + file + ": " + e.getMessage());
        }
        final ReplicationConfig zk = config.replication();
        final SeglogBroker broker;
        try {
            broker = SeglogBroker.start(config);
        } catch (final ZkException e) {
            return Started.failed(CANNOT_START, unreachable(e, zk) ? "cannot reach ZooKeeper at "
                + zk.zookeeperConnect() + " (" + ReplicationConfig.ZOOKEEPER_CONNECT + ") within "
                + ReplicationConfig.ZOOKEEPER_CONNECTION_TIMEOUT_MS + "=" + zk.zookeeperConnectionTimeoutMs()
                + " ms: is it running, and is the address right?"
                : "ZooKeeper at " + zk.zookeeperConnect() + " refused the broker: " + e.getMessage());
        } catch (final StorageException e) {
            return Started.failed(CANNOT_START, "cannot open the log directories: " + e.getMessage());
        } catch (final RuntimeException e) {
            return Started.failed(CANNOT_START, "cannot start broker.id=" + zk.brokerId() + ": " + e);
        }
        // A previous process of this broker may still hold its registration until its session expires; longer than
        // that, another live broker holds the id.
        final long waitMs = zk.zookeeperSessionTimeoutMs() + zk.zookeeperRequestTimeoutMs()
            + zk.zookeeperConnectionTimeoutMs();
        try {
            broker.awaitRegistered(waitMs);
            return new Started(broker, null, 0);
        } catch (final TimeoutException e) {
            final String holder = registrationHolder(broker, zk.brokerId());
            broker.close();
            return Started.failed(CANNOT_START, holder != null ? ReplicationConfig.BROKER_ID + "=" + zk.brokerId()
                + " is registered in ZooKeeper by another live broker (" + holder + ") and was not released within "
                + waitMs + " ms: each broker needs its own " + ReplicationConfig.BROKER_ID
                : ReplicationConfig.BROKER_ID + "=" + zk.brokerId() + " was not registered within " + waitMs + " ms");
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            broker.close();
            return Started.failed(CANNOT_START, "interrupted while starting");
        }
    }

    /** Whether a ZooKeeper failure at start means the ensemble was never reached. */
    private static boolean unreachable(final ZkException e, final ReplicationConfig zk) {
        return e.error() == ZkError.TIMEOUT || e.error() == ZkError.CONNECTION_LOSS;
    }

    /** Who holds {@code /brokers/ids/<id>}, or null when nobody (or it cannot be read). */
    private static String registrationHolder(final SeglogBroker broker, final int brokerId) {
        try {
            return broker.registeredElsewhere().orElse(null);
        } catch (final RuntimeException e) {
            return null;
        }
    }

    private static void runUntilStopped(final AutoCloseable resource, final String ready, final PrintStream out,
                                        final Logger log) throws InterruptedException {
        final CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                resource.close();
            } catch (final Exception e) {
                log.error("stopping failed", e);
            } finally {
                stopped.countDown();
            }
        }, "seglog-shutdown"));
        out.println(ready);
        out.flush();
        stopped.await();
    }

    private static void createTopic(final String connect, final String topic, final int partitions, final int rf,
                                    final PrintStream out) {
        final ReplicationConfig config = ReplicationConfig.builder().brokerId(0).zookeeperConnect(connect).build();
        try (ZkClient zk = ZkClient.open(config, Thread::new, new ZkSessionListener() {
            @Override
            public void onSessionExpired(final long sessionId) {
            }

            @Override
            public void onNewSession(final long sessionId) {
            }
        })) {
            zk.awaitConnected(config.zookeeperConnectionTimeoutMs());
            final Map<Integer, List<Integer>> assignment = new TopicAdmin(new KafkaZkStore(zk),
                new java.util.SplittableRandom()).createTopic(topic, partitions, rf);
            out.println("created " + topic + " " + assignment);
        }
    }

    /** Reads a properties file into Kafka's name/value map. */
    static Map<String, Object> load(final Path file) throws IOException {
        final Properties props = new Properties();
        try (InputStream in = Files.newInputStream(file)) {
            props.load(in);
        } catch (final IOException e) {
            throw new IOException("cannot read broker configuration " + file + ": " + e, e);
        }
        final Map<String, Object> map = new HashMap<>();
        props.forEach((k, v) -> map.put(k.toString(), v.toString().trim()));
        return map;
    }
}
