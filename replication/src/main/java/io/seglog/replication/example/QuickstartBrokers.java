package io.seglog.replication.example;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The quickstart's three brokers, however they run: as processes started with {@link DemoBrokerMain} (the default,
 * killed with SIGKILL) or inside the demo's JVM ({@code --in-process}, stopped abruptly). Each broker keeps its
 * listener port across a restart, so that {@link #bootstrap()} stays true.
 *
 * <p>Not thread-safe; used by the quickstart's main thread.
 */
interface QuickstartBrokers extends AutoCloseable {
    /** Each broker's ZooKeeper session timeout: a killed broker's leaderships move once its session expires. */
    int SESSION_TIMEOUT_MS = 6_000;
    /** What the topic is created with: acks=all then needs two replicas in the ISR. */
    int MIN_INSYNC_REPLICAS = 2;
    /**
     * {@code group.initial.rebalance.delay.ms}: how long a group's first rebalance waits for more members. Kafka's
     * default, 3 s, lets a fleet of consumers starting together land in one generation; the quickstart's first member
     * is alone by design, and a shorter wait keeps the consumer group step to a few seconds.
     */
    int INITIAL_REBALANCE_DELAY_MS = 500;

    /**
     * Starts a broker (a first start or a restart after {@link #kill}); {@link #awaitReady} waits for it.
     *
     * @param id the broker id, 1 to 3
     * @throws Exception when it cannot be started (the message names the broker)
     */
    void start(int id) throws Exception;

    /**
     * Waits until a started broker serves and is registered in ZooKeeper.
     *
     * @param id       the broker
     * @param deadline the step's deadline
     * @throws Exception naming the broker when it exited or ran out of time
     */
    void awaitReady(int id, Deadline deadline) throws Exception;

    /**
     * Stops a broker abruptly: no controlled shutdown, no goodbye to ZooKeeper or the clients.
     *
     * @param id       the broker
     * @param deadline the step's deadline
     * @return how it was stopped, for the tour ({@code "kill -9 of pid 4242"})
     * @throws Exception when it would not die within the deadline
     */
    String kill(int id, Deadline deadline) throws Exception;

    /**
     * Where a broker runs, for the tour.
     *
     * @param id the broker
     * @return e.g. {@code "pid 4242, log /tmp/.../broker-1.log"}
     */
    String where(int id);

    /**
     * The brokers' listeners.
     *
     * @return {@code bootstrap.servers} for Kafka's clients
     */
    String bootstrap();

    /**
     * Reads one of a running broker's metrics by Kafka's JMX name: over a JMX connector on loopback from a broker
     * process (the JMX port each is started with, as Kafka's {@code JMX_PORT}), or from a broker's own MBean server
     * in this JVM.
     *
     * @param id         the broker
     * @param objectName e.g. {@code kafka.server:type=ReplicaManager,name=UnderReplicatedPartitions}
     * @param attribute  e.g. {@code Value} or {@code Count}
     * @return the value
     * @throws Exception naming the broker when it cannot be read
     */
    Number metric(int id, String objectName, String attribute) throws Exception;

    /**
     * Where a broker's metrics are read, for the tour.
     *
     * @param id the broker
     * @return e.g. {@code "JMX service:jmx:rmi:///jndi/rmi://127.0.0.1:41234/jmxrmi"}
     */
    String metricsAt(int id);

    /** Stops every running broker (a controlled shutdown where the broker runs as a process). Idempotent. */
    @Override
    void close();

    /**
     * A broker's configuration, in Kafka's property names.
     *
     * @param id      the broker id
     * @param port    its listener port (0 for any free one)
     * @param logDir  its log directory
     * @param connect ZooKeeper connection string with chroot
     * @return the properties
     */
    static Map<String, Object> config(final int id, final int port, final Path logDir, final String connect) {
        final Map<String, Object> props = new HashMap<>();
        props.put("broker.id", id);
        props.put("listeners", "PLAINTEXT://127.0.0.1:" + port);
        props.put("log.dirs", logDir.toString());
        props.put("zookeeper.connect", connect);
        props.put("zookeeper.session.timeout.ms", SESSION_TIMEOUT_MS);
        props.put("min.insync.replicas", MIN_INSYNC_REPLICAS);
        // The demo shows failover; a rebalance back to the preferred leader after the restart would blur it.
        props.put("auto.leader.rebalance.enable", false);
        props.put("group.initial.rebalance.delay.ms", INITIAL_REBALANCE_DELAY_MS);
        return props;
    }
}
