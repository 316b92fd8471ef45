package io.seglog.replication.data;

import io.seglog.replication.Await;
import io.seglog.replication.broker.SeglogBroker;
import io.seglog.replication.broker.SeglogBrokerConfig;
import io.seglog.replication.election.LeaderAndIsr;
import io.seglog.replication.transport.InJvmControlChannel;
import io.seglog.replication.zk.KafkaZkStore;
import io.seglog.replication.zk.PartitionStateZnode;
import io.seglog.storage.TopicPartition;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.agrona.CloseHelper;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * Seglog brokers in one JVM over one real ZooKeeper, each with its own log directory and its own Kafka-protocol
 * listener on loopback, which carries Kafka's clients, the followers' fetches and the controller's messages.
 */
public final class DataCluster implements AutoCloseable {
    /** How long a test waits for the cluster to reach a state. */
    public static final Duration WAIT = Duration.ofSeconds(60);

    private final String zkConnect;
    private final Path root;
    private final InJvmControlChannel channel = new InJvmControlChannel();
    private final Map<Integer, SeglogBroker> brokers = new TreeMap<>();
    private final Map<Integer, Integer> ports = new HashMap<>();
    private final Consumer<Map<String, Object>> tweak;
    private final AtomicInteger threadIds = new AtomicInteger();
    private final java.util.concurrent.ScheduledExecutorService delays =
        java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
            final Thread t = new Thread(r, "link-delays");
            t.setDaemon(true);
            return t;
        });
    /** Control messages over the brokers' listeners (the default), or through an in-JVM channel. */
    private boolean tcpControl = true;
    /** Faults on the replication links between the brokers. */
    public final Links links = new Links(delays);

    /**
     * @param zkConnect the ZooKeeper connect string
     * @param root      a directory for the brokers' log directories
     * @param tweak     adds or changes broker properties
     */
    private java.util.function.BiFunction<Integer, SeglogBroker.Options, SeglogBroker.Options> optionsTweak =
        (id, options) -> options;

    public DataCluster(final String zkConnect, final Path root, final Consumer<Map<String, Object>> tweak) {
        this.zkConnect = zkConnect;
        this.root = root;
        this.tweak = tweak;
    }

    /** The properties a broker starts with. */
    Map<String, Object> properties(final int id) {
        final Map<String, Object> props = new HashMap<>();
        props.put("broker.id", id);
        props.put("listeners", "PLAINTEXT://127.0.0.1:" + ports.getOrDefault(id, 0));
        props.put("log.dirs", root.resolve("broker-" + id).toString());
        props.put("zookeeper.connect", zkConnect);
        props.put("zookeeper.session.timeout.ms", 6000);
        props.put("zookeeper.request.timeout.ms", 6000);
        props.put("auto.leader.rebalance.enable", "false");
        props.put("num.network.threads", 2);
        props.put("replica.fetch.backoff.ms", 100);
        props.put("replica.fetch.wait.max.ms", 200);
        tweak.accept(props);
        return props;
    }

    private ThreadFactory threads(final int id) {
        return r -> new Thread(r, "broker" + id + "-" + threadIds.incrementAndGet());
    }

    /**
     * Changes each broker's options before it starts (its metrics registry, a listener).
     *
     * @param tweak given the broker id and the cluster's options, the options to start with
     * @return this
     */
    public DataCluster options(final java.util.function.BiFunction<Integer, SeglogBroker.Options,
        SeglogBroker.Options> tweak) {
        this.optionsTweak = tweak;
        return this;
    }

    /**
     * Sends control messages through an in-JVM channel instead of the brokers' listeners (for brokers started after).
     *
     * @return this
     */
    public DataCluster inJvmControl() {
        this.tcpControl = false;
        return this;
    }

    /**
     * Starts (or restarts, on the same port and log directory) a broker.
     *
     * @param id the broker id
     * @return the broker
     */
    public SeglogBroker start(final int id) {
        SeglogBroker.Options options = optionsTweak.apply(id, SeglogBroker.options().threadFactory(threads(id))
            .endpointWrapper(links));
        if (!tcpControl) {
            options = options.inJvmControl(channel);
        }
        final SeglogBroker b = SeglogBroker.start(SeglogBrokerConfig.fromProperties(properties(id)), options);
        brokers.put(id, b);
        ports.put(id, b.boundAddress().getPort());
        return b;
    }

    /**
     * Starts brokers and waits until each is registered.
     *
     * @param ids the broker ids
     * @throws Exception when one does not register in time
     */
    public void startAll(final int... ids) throws Exception {
        for (final int id : ids) {
            start(id);
        }
        for (final int id : ids) {
            brokers.get(id).awaitRegistered(WAIT.toMillis());
        }
    }

    /**
     * Stops a broker cleanly (its checkpoints are written).
     *
     * @param id the broker id
     */
    public void stop(final int id) {
        brokers.remove(id).close();
    }

    /**
     * A running broker.
     *
     * @param id the broker id
     * @return it, or null
     */
    public SeglogBroker broker(final int id) {
        return brokers.get(id);
    }

    /**
     * The running brokers.
     *
     * @return id to broker
     */
    public Map<Integer, SeglogBroker> brokers() {
        return brokers;
    }

    /**
     * {@code bootstrap.servers} naming every broker started so far, running or not (a client that outlives restarts).
     *
     * @return the addresses
     */
    public String allBootstrapServers() {
        return ports.values().stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
    }

    /**
     * {@code bootstrap.servers} for a client.
     *
     * @return every running broker's address
     */
    public String bootstrapServers() {
        return brokers.values().stream().map(SeglogBroker::bootstrapServers).collect(Collectors.joining(","));
    }

    /**
     * A kafka-clients AdminClient for the running brokers, with a 60 s default API timeout; the caller closes it.
     *
     * @return the client
     */
    public Admin admin() {
        final Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 60_000);
        return Admin.create(p);
    }

    /**
     * A running broker's ZooKeeper store, for reads.
     *
     * @return a store
     */
    public KafkaZkStore store() {
        return brokers.values().iterator().next().control().store();
    }

    /**
     * Creates a topic of three replicas per partition on brokers 1-3, each partition's leader the next broker in turn,
     * and waits as {@link #createTopic(String, Map)} does.
     *
     * @param topic      the topic
     * @param partitions its partition count
     */
    public void createSpreadTopic(final String topic, final int partitions) {
        final Map<Integer, List<Integer>> assignment = new java.util.HashMap<>();
        for (int p = 0; p < partitions; p++) {
            assignment.put(p, List.of(1 + p % 3, 1 + (p + 1) % 3, 1 + (p + 2) % 3));
        }
        createTopic(topic, assignment);
    }

    /**
     * Creates a topic with an explicit assignment and waits until every partition has a leader that knows it.
     *
     * @param topic      the topic
     * @param assignment partition to replicas
     */
    public void createTopic(final String topic, final Map<Integer, List<Integer>> assignment) {
        brokers.values().iterator().next().admin().createTopic(topic, assignment);
        final List<TopicPartition> tps = new ArrayList<>();
        assignment.keySet().forEach(p -> tps.add(new TopicPartition(topic, p)));
        Await.until(WAIT, () -> tps.stream().allMatch(this::ledWithFullIsr), () -> "every partition of " + topic
            + " led with its whole assignment in sync: " + store().partitionStates(tps));
    }

    /** Whether a partition's leader leads it and every broker of the assignment is in its ISR. */
    private boolean ledWithFullIsr(final TopicPartition tp) {
        final Optional<PartitionStateZnode> state = store().partitionStates(List.of(tp)).getOrDefault(tp,
            Optional.empty());
        if (state.isEmpty() || !state.get().leaderAndIsr().hasLeader()) {
            return false;
        }
        final SeglogBroker leader = brokers.get(state.get().leaderAndIsr().leader());
        return leader != null && leader.partition(tp).map(p -> p.isLeader()).orElse(false);
    }

    /**
     * The partition's state in ZooKeeper.
     *
     * @param tp the partition
     * @return leader, epoch and ISR
     */
    public LeaderAndIsr state(final TopicPartition tp) {
        return store().partitionStates(List.of(tp)).get(tp).orElseThrow().leaderAndIsr();
    }

    /** Stops every broker. */
    @Override
    public void close() {
        final List<AutoCloseable> all = new ArrayList<>(brokers.values());
        brokers.clear();
        CloseHelper.closeAll(all);
        delays.shutdownNow();
    }

    /**
     * Stops a broker as a power loss would: what was not yet on disk is gone. The broker is closed, then each of its
     * logs is cut back to the offset it had flushed when it stopped.
     *
     * @param id the broker
     * @return partition to the offset its log was cut to
     */
    public Map<TopicPartition, Long> crash(final int id) {
        final SeglogBroker b = brokers.remove(id);
        final Map<TopicPartition, Long> flushed = new HashMap<>();
        b.replicas().partitions().forEach(p -> flushed.put(p.topicPartition(), p.log().flushedOffset()));
        b.close();
        cutLogs(id, flushed);
        return flushed;
    }

    /**
     * Cuts a stopped broker's logs as a disk that lost their tails would leave them: each log ends at the given offset,
     * the clean-shutdown marker is gone, and so is the recovery-point checkpoint (which would claim the lost tail), so
     * the next start recovers every segment.
     *
     * @param id    the broker, stopped
     * @param cutTo partition to its new log end
     */
    public void cutLogs(final int id, final Map<TopicPartition, Long> cutTo) {
        if (brokers.containsKey(id)) {
            throw new IllegalStateException("broker " + id + " is running");
        }
        final Path logDir = root.resolve("broker-" + id);
        cutTo.forEach((tp, offset) -> {
            try (io.seglog.storage.PartitionLog log = io.seglog.storage.PartitionLog.open(
                logDir.resolve(tp.topic() + "-" + tp.partition()), io.seglog.storage.LogConfig.defaults(),
                io.seglog.storage.io.FileIO.system(), java.time.Clock.systemUTC())) {
                log.truncateTo(offset);
            }
        });
        try {
            java.nio.file.Files.deleteIfExists(logDir.resolve(".kafka_cleanshutdown"));
            java.nio.file.Files.deleteIfExists(logDir.resolve("recovery-point-offset-checkpoint"));
        } catch (final java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
