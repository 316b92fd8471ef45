package io.seglog.replication.broker;

import io.seglog.replication.ReplicationConfig;
import io.seglog.replication.controller.Controller;
import io.seglog.replication.controller.TopicAdmin;
import io.seglog.replication.metrics.KafkaMetrics;
import io.seglog.replication.replica.AppendResult;
import io.seglog.replication.replica.FetchRequest;
import io.seglog.replication.replica.LeaderEndpoint;
import io.seglog.replication.replica.LeadershipListener;
import io.seglog.replication.replica.Partition;
import io.seglog.replication.replica.PartitionFetch;
import io.seglog.replication.replica.ReadResult;
import io.seglog.replication.replica.ReplicaManager;
import io.seglog.replication.transport.ControlChannel;
import io.seglog.replication.transport.ControlHandlerRegistry;
import io.seglog.replication.transport.InJvmControlChannel;
import io.seglog.replication.transport.LiveBroker;
import io.seglog.replication.transport.PartitionStateInfo;
import io.seglog.replication.transport.ReplicaStateListener;
import io.seglog.replication.wire.ProducerIdSource;
import io.seglog.replication.wire.SeglogApi;
import io.seglog.replication.wire.TcpControlChannel;
import io.seglog.replication.wire.TcpControlRegistry;
import io.seglog.replication.zk.ClusterIdZnode;
import io.seglog.replication.zk.KafkaZkStore;
import io.seglog.replication.zk.MalformedZnodeException;
import io.seglog.replication.zk.ZkConnection;
import io.seglog.replication.zk.ZkSessions;
import io.seglog.storage.LogManager;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.TopicPartition;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;
import org.agrona.CloseHelper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A whole Seglog broker in one object: its logs ({@link LogManager}), its replicas ({@link ReplicaManager}: leaders
 * append and acknowledge, followers fetch), its Kafka-protocol listener ({@code KafkaWireServer}: Kafka's clients
 * produce and consume, other brokers fetch), and its control plane ({@link ReplicationBroker}: registration,
 * controller election, the controller's messages). A custom broker builds one from a {@link SeglogBrokerConfig},
 * starts it and closes it; embedders that do not speak the wire protocol use {@link #produce} and the partitions'
 * logs directly.
 *
 * <p>Start order: logs (recovered), replica layer, listener (bound, so its port is known), then the registration in
 * ZooKeeper with the listener's address: a broker is never advertised before it can answer. Close is the reverse:
 * the registration goes first (the controller moves leadership away), then the listener, the replicas and the logs
 * (their checkpoints, the high watermarks among them, are written at close).
 *
 * <p>Thread-safe.
 */
public final class SeglogBroker implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SeglogBroker.class);

    private final SeglogBrokerConfig config;
    private final KafkaMetrics metrics;
    /** Whether {@link #metrics} is the broker's own (closed with it). */
    private final boolean ownMetrics;
    private final String clusterId;
    private final LogManager logs;
    private final ReplicaManager replicas;
    private final ReplicationBroker control;
    private final BrokerSeams.Listener server;
    private final int advertisedPort;
    /** The producer ids InitProducerId hands out. */
    private final ProducerIdSource producerIds;
    /** What the assembly built, the last built first: closed in this order. */
    private final Deque<AutoCloseable> built;
    private boolean closed;

    /**
     * How a broker is wired, beyond its configuration: every seam a custom broker or a test may replace. Build with
     * {@link #options()}.
     *
     * @param threadFactory   makes every thread of the broker
     * @param clockMs         a monotonic clock (replica lag, timeouts)
     * @param channel         how this broker (and its controller) reaches the others; null for TCP over the listener
     *                        (the default)
     * @param registry        where this broker's control handlers are made reachable; null for TCP
     * @param endpointWrapper wraps each follower's connection to a leader (fault injection, metering)
     * @param leadership      told each change of this broker's role for a partition
     * @param metrics         where the broker's metrics go; null for a registry of its own on the platform MBean
     *                        server, closed with the broker (a given one is the caller's to close)
     */
    public record Options(ThreadFactory threadFactory, LongSupplier clockMs, ControlChannel channel,
                          ControlHandlerRegistry registry, EndpointWrapper endpointWrapper,
                          LeadershipListener leadership, KafkaMetrics metrics) {
        /**
         * These options with another thread factory.
         *
         * @param factory the factory
         * @return a copy
         */
        public Options threadFactory(final ThreadFactory factory) {
            return new Options(factory, clockMs, channel, registry, endpointWrapper, leadership, metrics);
        }

        /**
         * These options with another clock.
         *
         * @param clock monotonic milliseconds
         * @return a copy
         */
        public Options clockMs(final LongSupplier clock) {
            return new Options(threadFactory, clock, channel, registry, endpointWrapper, leadership, metrics);
        }

        /**
         * These options with control messages through an in-JVM channel shared by the brokers of one JVM.
         *
         * @param inJvm the channel
         * @return a copy
         */
        public Options inJvmControl(final InJvmControlChannel inJvm) {
            return new Options(threadFactory, clockMs, inJvm, inJvm, endpointWrapper, leadership, metrics);
        }

        /**
         * These options with control messages through any transport.
         *
         * @param controlChannel  how to reach the others
         * @param controlRegistry where to make this broker's handlers reachable
         * @return a copy
         */
        public Options control(final ControlChannel controlChannel, final ControlHandlerRegistry controlRegistry) {
            return new Options(threadFactory, clockMs, controlChannel, controlRegistry, endpointWrapper, leadership,
                metrics);
        }

        /**
         * These options with a wrapper around each follower's connection to a leader.
         *
         * @param wrapper the wrapper
         * @return a copy
         */
        public Options endpointWrapper(final EndpointWrapper wrapper) {
            return new Options(threadFactory, clockMs, channel, registry, wrapper, leadership, metrics);
        }

        /**
         * These options with a listener told each change of this broker's role for a partition (leadership
         * callbacks for a custom broker).
         *
         * @param listener the listener
         * @return a copy
         */
        public Options leadershipListener(final LeadershipListener listener) {
            return new Options(threadFactory, clockMs, channel, registry, endpointWrapper, listener, metrics);
        }

        /**
         * These options with the broker's metrics in a registry of the caller's (its own MBean server, a
         * simulation's manual ticks, or one bound to Micrometer).
         *
         * @param registry the registry; the caller closes it after the broker
         * @return a copy
         */
        public Options metrics(final KafkaMetrics registry) {
            return new Options(threadFactory, clockMs, channel, this.registry, endpointWrapper, leadership, registry);
        }
    }

    /** Wraps a follower's connection to a leader. */
    @FunctionalInterface
    public interface EndpointWrapper {
        /**
         * @param localBrokerId the follower's broker
         * @param leaderId      the leader's broker
         * @param endpoint      the real connection
         * @return the endpoint the fetchers use
         */
        LeaderEndpoint wrap(int localBrokerId, int leaderId, LeaderEndpoint endpoint);
    }

    /**
     * The defaults: daemon threads, the JVM's monotonic clock, control messages over TCP on the broker's listener,
     * connections as they are.
     *
     * @return the options
     */
    public static Options options() {
        return new Options(Thread::new, monotonicMs(), null, null, (local, leader, endpoint) -> endpoint,
            LeadershipListener.NONE, null);
    }

    /**
     * The assembly: the components built in dependency order, each given what it depends on, nothing it does not; on
     * a failure what was built is closed in reverse, every failure kept.
     *
     * <ol>
     *   <li>ZooKeeper: the session is opened first (Kafka's order), Kafka's persistent paths created, the cluster id
     *       read; its session events are fanned out to what follows them as it is built;</li>
     *   <li>the topics' configurations, then the logs (recovered, each with its topic's overrides);</li>
     *   <li>the replica layer, reading this broker's membership (its epoch, the live brokers) from a view the control
     *       handler writes later;</li>
     *   <li>the group coordinator and the producer ids, over the replica layer and the store;</li>
     *   <li>the control handler, which applies the controller's messages to the replica layer and tells the
     *       coordinators of each leadership change;</li>
     *   <li>the Kafka APIs and the listener (bound: its port is the advertised one), then the controller and the
     *       control plane, which registers the broker: a broker is never advertised before it can answer.</li>
     * </ol>
     */
    SeglogBroker(final SeglogBrokerConfig config, final BrokerSeams seams) {
        this.config = config;
        final int id = config.replication().brokerId();
        this.ownMetrics = seams.options().metrics() == null;
        this.metrics = ownMetrics ? KafkaMetrics.jmx() : seams.options().metrics();
        this.built = new ArrayDeque<>();
        if (ownMetrics) {
            built.push(metrics);
        }
        try {
            final ZkSessions sessions = new ZkSessions();
            final ZkConnection zk = built(seams.zooKeeper().connect(config.replication(), sessions));
            final KafkaZkStore store = new KafkaZkStore(zk, seams.fixes().controllerEpochCheck());
            store.createPersistentPaths();
            this.clusterId = readClusterId(store, seams.randoms());
            final TopicConfigManager topicConfigs = built(new TopicConfigManager(id, config.logs().logConfig(), store,
                built(seams.executors().single("config-changes-" + id))));
            this.logs = built(LogManager.open(config.logs(), seams.fileIO(), seams.storageTimers(),
                () -> Instant.ofEpochMilli(seams.wallClockMs().getAsLong()), null, topicConfigs::configFor));
            built(seams.network());
            final BrokerMembership membership = new BrokerMembership();
            this.replicas = built(new ReplicaManager(id, logs, config.replicas(), seams.clockMs(),
                membership::brokerEpoch, new ZkIsrWriter(() -> store, built(seams.executors().single(
                    "isr-writer-" + id))), membership::isLive, seams.endpoints(id,
                    config.replicas().replicaSocketTimeoutMs(), config.replicas().replicaSocketReceiveBufferBytes()),
                seams.options().threadFactory(), LeadershipListener.NONE, seams.storageTimers(),
                seams.fixes().replica()));
            final GroupCoordinator groups = built(groupCoordinator(config, replicas, seams));
            final BrokerMetrics brokerMetrics = new BrokerMetrics(metrics, replicas);
            final BrokerControlHandler handler = new BrokerControlHandler(id, membership,
                replicaControl(replicas, groups, brokerMetrics, seams.options().leadership()));
            this.producerIds = producerIds(id, store, seams);
            final ServedApis served = built(new ServedApis(config, replicas, handler, new HandlerClusterView(handler,
                clusterId), store, producerIds, metrics, groups, seams));
            final Transport transport = transport(id, store, seams);
            this.server = built(seams.network().listen(served.apis(), transport.served(), metrics));
            this.advertisedPort = config.advertisedPort() == 0 ? server.address().getPort() : config.advertisedPort();
            final ReplicationConfig replication = config.replication().toBuilder()
                .advertisedHost(config.advertisedHost()).advertisedPort(advertisedPort).build();
            final Controller controller = built(controller(replication, transport.channel(), handler, seams));
            brokerMetrics.controller(controller::isActive, controller::uncleanLeaderElections);
            // The control plane owns the session and the controller from here, and closes them first.
            built.remove(zk);
            built.remove(controller);
            this.control = built(new ReplicationBroker(replication, transport.channel(), transport.registry(), zk,
                store, sessions, handler, controller, seams.fixes().registrationsRead()));
            sessions.onEachNewSession(topicConfigs::onNewSession);
            topicConfigs.start(logs);
            built.push(topicConfigs); // closed first (again; its close is idempotent): its thread reads the store
        } catch (final RuntimeException | Error e) {
            try {
                CloseHelper.closeAll(built);
            } catch (final RuntimeException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
        LOG.info("broker.id={} serves {}:{} (cluster {}), log dirs {}", id, config.advertisedHost(), advertisedPort,
            clusterId, config.logs().logDirs());
    }

    /** @return the producer ids InitProducerId hands out */
    ProducerIdSource producerIds() {
        return producerIds;
    }

    /** Records a component as built (closed before everything built earlier), and returns it. */
    private <T extends AutoCloseable> T built(final T component) {
        built.push(component);
        return component;
    }

    /** Records an executor as built (shut down before everything built earlier), and returns it. */
    private ScheduledExecutorService built(final ScheduledExecutorService executor) {
        built.push(BrokerThreads.shutdown(executor));
        return executor;
    }

    /**
     * What the control handler tells the replica layer: each accepted change, with the coordinator, the metrics and
     * then the embedder's listener told of each leadership change once it took effect (Kafka's
     * {@code onLeadershipChange}).
     */
    private static ReplicaStateListener replicaControl(final ReplicaManager replicas, final GroupCoordinator groups,
                                                       final BrokerMetrics metrics, final LeadershipListener user) {
        final LeadershipListener told = LeadershipListener.all(List.of(groups, metrics, user));
        return new ReplicaStateListener() {
            @Override
            public void onLeaderAndIsr(final Map<TopicPartition, PartitionStateInfo> applied,
                                       final Map<Integer, LiveBroker> liveLeaders) {
                replicas.onLeaderAndIsr(applied, liveLeaders, told);
            }

            @Override
            public void onStopReplica(final Set<TopicPartition> partitions, final boolean delete) {
                replicas.onStopReplica(partitions, delete, told);
            }

            @Override
            public void onLiveBrokers(final Map<Integer, LiveBroker> live) {
                replicas.onLiveBrokers(live);
            }
        };
    }

    /** The group coordinator: its writes are acks=all appends of the replica layer, its reads the local logs. */
    private static GroupCoordinator groupCoordinator(final SeglogBrokerConfig config, final ReplicaManager replicas,
                                                     final BrokerSeams seams) {
        final GroupCoordinatorConfig groups = config.groups();
        final GroupCoordinator.Replicas appends = new GroupCoordinator.Replicas() {
            @Override
            public CompletableFuture<AppendResult> appendAll(final TopicPartition tp, final ByteBuffer batch,
                                                             final long timeoutMs) {
                return replicas.produce((short) -1, timeoutMs, Map.of(tp, batch)).thenApply(r -> r.get(tp));
            }

            @Override
            public Optional<PartitionLog> log(final TopicPartition tp) {
                return replicas.partition(tp).map(Partition::log);
            }
        };
        final RandomGenerator memberIds = seams.randoms().generator("group-member-ids");
        if (seams.groupScheduler() != null) {
            return new GroupCoordinator(groups.groups(), groups.offsetsPartitions(), groups.offsetsCommitTimeoutMs(),
                appends, seams.groupScheduler(), () -> { }, seams.wallClockMs(), memberIds);
        }
        return new GroupCoordinator(groups.groups(), groups.offsetsPartitions(), groups.offsetsCommitTimeoutMs(),
            appends, seams.options().threadFactory(), seams.clockMs(), seams.wallClockMs(), memberIds,
            "group-coordinator-" + config.replication().brokerId());
    }

    /** InitProducerId's ids, reserved in blocks in ZooKeeper on an executor of their own. */
    private ProducerIdSource producerIds(final int id, final KafkaZkStore store, final BrokerSeams seams) {
        final ZkProducerIdManager manager = built(new ZkProducerIdManager(id, () -> store, seams.clockMs(),
            built(seams.executors().single("producer-id-reserver-" + id))));
        final LongConsumer handedOut = seams.producerIdsHandedOut();
        return () -> {
            final long producerId = manager.nextProducerId();
            if (producerId >= 0) {
                handedOut.accept(producerId);
            }
            return producerId;
        };
    }

    /**
     * How control messages travel: the options' channel and registry (an in-JVM channel), or TCP over the broker's
     * listener (the registry's APIs served beside Kafka's; the controller's connections through the network).
     */
    private record Transport(ControlChannel channel, ControlHandlerRegistry registry, List<SeglogApi> served) {
    }

    private Transport transport(final int id, final KafkaZkStore store, final BrokerSeams seams) {
        final Options options = seams.options();
        if (options.channel() != null && options.registry() != null) {
            return new Transport(options.channel(), options.registry(), List.of());
        }
        final TcpControlRegistry registry = new TcpControlRegistry(id, built(seams.executors().single(
            "control-handler-" + id)));
        final int timeoutMs = config.replication().zookeeperRequestTimeoutMs();
        final TcpControlChannel channel = built(new TcpControlChannel(id, broker -> seams.network().connect(
            broker.id(), broker.host(), broker.port(), "seglog-controller-" + id, timeoutMs, -1),
            built(seams.executors().single("control-sender-" + id)), b -> registration(store, b), timeoutMs));
        return new Transport(channel, registry, registry.apis());
    }

    private static Controller controller(final ReplicationConfig replication, final ControlChannel channel,
                                         final BrokerControlHandler handler, final BrokerSeams seams) {
        final RandomGenerator ids = seams.randoms().generator("controller");
        if (seams.controllerDriver() == null) {
            return new Controller(replication, channel, seams.options().threadFactory(), seams.clockMs(),
                seams.wallClockMs(), handler::brokerEpoch, ids);
        }
        return new Controller(replication, channel, seams.controllerDriver(), seams.clockMs(), seams.wallClockMs(),
            handler::brokerEpoch, ids, 0);
    }

    /**
     * Who holds this broker's registration in ZooKeeper while this broker is not registered: another live broker with
     * the same {@code broker.id}, or this broker's previous process whose session has not expired yet.
     *
     * @return the holder's endpoint and broker epoch, or empty when the registration is free (or this broker's)
     */
    Optional<String> registeredElsewhere() {
        final Optional<LiveBroker> holder = registration(control.store(), brokerId());
        if (holder.isEmpty() || holder.get().epoch() == control.controlHandler().brokerEpoch()) {
            return Optional.empty();
        }
        return Optional.of(holder.get().host() + ":" + holder.get().port() + ", broker epoch "
            + holder.get().epoch());
    }

    /**
     * A broker's registration as the control channel addresses it.
     *
     * @param store    the reading broker's store
     * @param brokerId the broker
     * @return its address and broker epoch, or empty when it is not registered
     */
    static Optional<LiveBroker> registration(final KafkaZkStore store, final int brokerId) {
        return store.broker(brokerId).map(info -> new LiveBroker(info.id(), info.epoch(),
            info.registration().host(), info.registration().port(), info.registration().rack()));
    }

    private static String readClusterId(final KafkaZkStore store, final BrokerSeams.Randoms randoms) {
        try {
            return store.getOrCreateClusterId(ClusterIdZnode.randomId(randoms.generator("cluster-id")));
        } catch (final MalformedZnodeException e) {
            throw new IllegalStateException("cannot read the cluster id: " + e.getMessage(), e);
        }
    }

    /**
     * Starts a broker with the default wiring: control messages over TCP on its listener, daemon threads, the JVM's
     * monotonic clock.
     *
     * @param config the configuration
     * @return the running broker, closed by the caller
     */
    public static SeglogBroker start(final SeglogBrokerConfig config) {
        return start(config, options());
    }

    /**
     * Starts a broker whose control messages travel through the given channel (an {@link InJvmControlChannel}
     * shared by brokers in one JVM).
     *
     * @param config        the configuration
     * @param channel       the in-JVM channel shared by the brokers
     * @param threadFactory makes every thread of the broker
     * @return the running broker, closed by the caller
     */
    public static SeglogBroker start(final SeglogBrokerConfig config, final InJvmControlChannel channel,
                                     final ThreadFactory threadFactory) {
        return start(config, options().threadFactory(threadFactory).inJvmControl(channel));
    }

    /**
     * Starts a broker wired as the options say.
     *
     * @param config  the configuration
     * @param options the seams
     * @return the running broker, closed by the caller
     */
    public static SeglogBroker start(final SeglogBrokerConfig config, final Options options) {
        return new SeglogBroker(config, BrokerSeams.of(config, options));
    }

    private static LongSupplier monotonicMs() {
        final long origin = System.nanoTime();
        return () -> TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - origin);
    }

    // ------------------------------------------------------------------------------------------ for embedders

    /**
     * This broker's id.
     *
     * @return {@code broker.id}
     */
    public int brokerId() {
        return config.replication().brokerId();
    }

    /**
     * Where clients and other brokers reach this broker.
     *
     * @return the advertised host and port
     */
    public InetSocketAddress advertisedAddress() {
        return InetSocketAddress.createUnresolved(config.advertisedHost(), advertisedPort);
    }

    /**
     * The address the listener is bound to.
     *
     * @return the bound address
     */
    public InetSocketAddress boundAddress() {
        return server.address();
    }

    /**
     * {@code host:port} for a client's {@code bootstrap.servers}.
     *
     * @return the advertised address
     */
    public String bootstrapServers() {
        return config.advertisedHost() + ":" + advertisedPort;
    }

    /**
     * The cluster id (from ZooKeeper's {@code /cluster/id}).
     *
     * @return the id
     */
    public String clusterId() {
        return clusterId;
    }

    /**
     * The replica layer.
     *
     * @return the replica manager
     */
    public ReplicaManager replicas() {
        return replicas;
    }

    /**
     * The logs.
     *
     * @return the log manager
     */
    public LogManager logs() {
        return logs;
    }

    /**
     * The control plane (controller, registration, metadata cache).
     *
     * @return the replication broker
     */
    public ReplicationBroker control() {
        return control;
    }

    /**
     * Topic administration through this broker's ZooKeeper session.
     *
     * @return an admin client
     */
    public TopicAdmin admin() {
        return control.admin(new java.util.SplittableRandom());
    }

    /**
     * Creates a topic (as {@code kafka-topics --create} does, through ZooKeeper: replicas spread over the live brokers)
     * and waits until each of its partitions has a leader, and this broker serves as leader the ones it was given, so
     * a {@link #produce} to them may follow at once.
     *
     * @param topic             the topic's name
     * @param partitions        its partition count, at least 1
     * @param replicationFactor replicas per partition, at most the live brokers
     * @param timeoutMs         how long to wait for the leaders
     * @return the replica assignment, partition to brokers (the first is the preferred leader)
     * @throws TimeoutException     when a partition has no leader in time
     * @throws InterruptedException when interrupted while waiting
     * @throws io.seglog.replication.controller.TopicExistsException when the topic exists
     */
    public Map<Integer, List<Integer>> createTopic(final String topic, final int partitions,
                                                   final int replicationFactor, final long timeoutMs)
        throws TimeoutException, InterruptedException {
        final Map<Integer, List<Integer>> assignment = admin().createTopic(topic, partitions, replicationFactor);
        awaitLeaders(topic, partitions, timeoutMs);
        return assignment;
    }

    /**
     * {@link #createTopic} unless the topic exists (then its partitions are waited for the same way): for an embedder
     * whose program runs again on the same cluster.
     *
     * @param topic             the topic's name
     * @param partitions        its partition count when created, at least 1
     * @param replicationFactor replicas per partition when created
     * @param timeoutMs         how long to wait for the leaders
     * @return whether this call created it
     * @throws TimeoutException     when a partition has no leader in time
     * @throws InterruptedException when interrupted while waiting
     */
    public boolean createTopicIfAbsent(final String topic, final int partitions, final int replicationFactor,
                                       final long timeoutMs) throws TimeoutException, InterruptedException {
        final var existing = control.store().topicAssignment(topic, null);
        if (existing.isEmpty()) {
            try {
                createTopic(topic, partitions, replicationFactor, timeoutMs);
                return true;
            } catch (final io.seglog.replication.controller.TopicExistsException raced) {
                // created meanwhile by another client: wait for it as for one that existed
            }
        }
        final int count = control.store().topicAssignment(topic, null).orElseThrow().value().partitions().size();
        awaitLeaders(topic, count, timeoutMs);
        return false;
    }

    private void awaitLeaders(final String topic, final int partitions, final long timeoutMs)
        throws TimeoutException, InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        for (int p = 0; p < partitions; p++) {
            final TopicPartition tp = new TopicPartition(topic, p);
            while (!servedByItsLeader(tp)) {
                if (System.nanoTime() > deadline) {
                    throw new TimeoutException(tp + " has no leader serving it within " + timeoutMs + " ms");
                }
                Thread.sleep(10);
            }
        }
    }

    /** Whether a partition has a leader in ZooKeeper and, when that is this broker, this broker leads it already. */
    private boolean servedByItsLeader(final TopicPartition tp) {
        final var state = control.store().partitionStates(List.of(tp)).getOrDefault(tp, Optional.empty());
        if (state.isEmpty() || state.get().leaderAndIsr().leader() < 0) {
            return false;
        }
        return state.get().leaderAndIsr().leader() != brokerId() || partition(tp).map(Partition::isLeader)
            .orElse(false);
    }

    /**
     * Appends batches to a partition this broker leads, without the wire protocol: the same path as a Kafka
     * produce (validation, offsets, acks).
     *
     * @param tp        the partition
     * @param batches   Kafka v2 record batches (stamped in place)
     * @param acks      -1 (all), 0 or 1
     * @param timeoutMs how long acks=all waits
     * @return completes with the result: its error, and the offsets assigned
     */
    public CompletableFuture<AppendResult> produce(final TopicPartition tp, final ByteBuffer batches, final short acks,
                                                   final long timeoutMs) {
        return replicas.produce(acks, timeoutMs, Map.of(tp, batches)).thenApply(r -> r.get(tp));
    }

    /**
     * Reads a partition this broker leads as a consumer would, without the wire protocol: whole batches from
     * {@code offset} below the high watermark, waiting up to {@code maxWaitMs} for records when there are none yet.
     *
     * @param tp        the partition
     * @param offset    the first offset wanted
     * @param maxBytes  the most bytes (the first batch is returned whole even when larger)
     * @param maxWaitMs how long to wait for a first record
     * @return completes with the result: its error, the high watermark, and the records as a zero-copy
     *     {@code LogSlice} (null when none)
     */
    public CompletableFuture<ReadResult> fetch(final TopicPartition tp, final long offset, final int maxBytes,
                                               final int maxWaitMs) {
        return replicas.fetch(new FetchRequest(FetchRequest.CONSUMER_REPLICA_ID, -1, maxWaitMs, 1, maxBytes,
            List.of(new PartitionFetch(tp, -1, offset, -1, -1, -1, maxBytes)))).thenApply(r -> r.get(0));
    }

    /**
     * The partition as hosted here.
     *
     * @param tp the partition
     * @return it, or empty when this broker hosts no replica of it
     */
    public Optional<Partition> partition(final TopicPartition tp) {
        return replicas.partition(tp);
    }

    /**
     * Waits until the broker is registered in ZooKeeper (it is then visible to the controller).
     *
     * @param timeoutMs how long to wait
     * @return the broker epoch
     * @throws TimeoutException     when not registered in time
     * @throws InterruptedException when interrupted
     */
    public long awaitRegistered(final long timeoutMs) throws TimeoutException, InterruptedException {
        return control.awaitRegistered(timeoutMs);
    }

    /**
     * Controlled shutdown: asks the controller to move this broker's leaderships away before it stops.
     *
     * @param timeoutMs the deadline
     * @return the partitions it still leads
     * @throws TimeoutException     when no controller answered in time
     * @throws InterruptedException when interrupted
     */
    public Set<TopicPartition> controlledShutdown(final long timeoutMs) throws TimeoutException, InterruptedException {
        return control.controlledShutdown(timeoutMs);
    }

    /**
     * Stops: the registration and controller go first, then the listener, the replicas (fetchers, waiting requests)
     * and the logs, whose checkpoints (high watermarks among them) are written. Idempotent.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        CloseHelper.closeAll(built);
    }

    /**
     * The broker's metrics (Kafka's names), as JMX exports them.
     *
     * @return the registry
     */
    public KafkaMetrics metrics() {
        return metrics;
    }

    @Override
    public String toString() {
        return "SeglogBroker[id=" + brokerId() + ", " + bootstrapServers() + "]";
    }
}
