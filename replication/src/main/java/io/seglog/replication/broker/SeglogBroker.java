package io.seglog.replication.broker;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.seglog.replication.ReplicationConfig;
import io.seglog.replication.controller.TopicAdmin;
import io.seglog.replication.metrics.BrokerTopicMetrics;
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
import io.seglog.replication.wire.AdminApis;
import io.seglog.replication.wire.ClusterView;
import io.seglog.replication.wire.GroupApis;
import io.seglog.replication.wire.KafkaApi;
import io.seglog.replication.wire.KafkaApis;
import io.seglog.replication.wire.KafkaWireServer;
import io.seglog.replication.wire.RequestMetrics;
import io.seglog.replication.wire.TcpControlChannel;
import io.seglog.replication.wire.TcpControlRegistry;
import io.seglog.replication.wire.WireClient;
import io.seglog.replication.wire.WireLeaderEndpoint;
import io.seglog.replication.wire.WireServerConfig;
import io.seglog.replication.zk.ClusterIdZnode;
import io.seglog.replication.zk.KafkaZkStore;
import io.seglog.replication.zk.MalformedZnodeException;
import io.seglog.replication.zk.ZkClient;
import io.seglog.replication.zk.ZkSessionListener;
import io.seglog.storage.LogManager;
import io.seglog.storage.TopicPartition;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import org.agrona.CloseHelper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A whole Seglog broker in one object: its logs ({@link LogManager}), its replicas ({@link ReplicaManager}: leaders
 * append and acknowledge, followers fetch), its Kafka-protocol listener ({@link KafkaWireServer}: Kafka's clients
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
    /** Largest response a broker's client (fetcher, control channel) accepts: Kafka's request limit. */
    private static final int MAX_RESPONSE_BYTES = 100 * 1024 * 1024;

    private final SeglogBrokerConfig config;
    private final LogManager logs;
    private final EventLoopGroup clientLoops;
    private final ZkIsrWriter isrWriter;
    private final ReplicaManager replicas;
    private final KafkaWireServer server;
    private final ReplicationBroker control;
    private final String clusterId;
    private final int advertisedPort;
    private volatile ReplicationBroker controlRef;
    private ExecutorService controlThread;
    /** The Kafka APIs the listener serves, with the threads of their ZooKeeper work (topic creation, admin). */
    private ServedApis servedApis;
    private ZkProducerIdManager producerIds;
    /** The topics' configurations: the log manager's source, and the /config/changes watch. */
    private TopicConfigManager topicConfigs;
    private ScheduledExecutorService controlSender;
    private TcpControlChannel tcpChannel;
    private GroupCoordinator groupCoordinator;
    private final KafkaMetrics metrics;
    /** Whether {@link #metrics} is the broker's own (closed with it). */
    private final boolean ownMetrics;
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

    private SeglogBroker(final SeglogBrokerConfig config, final Options options) {
        final ThreadFactory threadFactory = options.threadFactory();
        final LongSupplier clockMs = options.clockMs();
        final boolean tcp = options.channel() == null || options.registry() == null;
        this.config = config;
        final int id = config.replication().brokerId();
        this.ownMetrics = options.metrics() == null;
        this.metrics = ownMetrics ? KafkaMetrics.jmx() : options.metrics();
        final java.util.concurrent.atomic.AtomicReference<BrokerMetrics> brokerMetrics =
            new java.util.concurrent.atomic.AtomicReference<>();
        LogManager openedLogs = null;
        EventLoopGroup loops = null;
        ZkIsrWriter writer = null;
        ReplicaManager replicaManager = null;
        KafkaWireServer listener = null;
        try {
            topicConfigs = new TopicConfigManager(id, config.logs().logConfig(), threadFactory);
            final TopicConfigManager configs = topicConfigs;
            final java.util.function.Supplier<LogManager> openLogs = () -> LogManager.open(config.logs(),
                io.seglog.storage.io.FileIO.system(), null, java.time.InstantSource.system(), null, configs::configFor);
            // Logs found on disk open with their topic's overrides, read over a session of their own (Kafka's order:
            // configuration fetched before the logs load); a broker with empty log directories needs none.
            openedLogs = hasPartitionDirs(config.logs().logDirs()) ? configs.loading(() -> connected(config,
                threadFactory), openLogs) : openLogs.get();
            loops = new NioEventLoopGroup(1, threadFactory);
            final EventLoopGroup clients = loops;
            writer = new ZkIsrWriter(() -> controlRef.store(), threadFactory);
            final LeaderEndpoint.Factory endpoints = (leaderId, host, port) -> options.endpointWrapper().wrap(id,
                leaderId, new WireLeaderEndpoint(new WireClient(clients, host, port, "seglog-replica-fetcher-" + id,
                    MAX_RESPONSE_BYTES, config.replicas().replicaSocketTimeoutMs(),
                    config.replicas().replicaSocketReceiveBufferBytes())));
            final java.util.concurrent.atomic.AtomicReference<ReplicaManager> rmRef =
                new java.util.concurrent.atomic.AtomicReference<>();
            groupCoordinator = new GroupCoordinator(config.groups().groups(), config.groups().offsetsPartitions(),
                config.groups().offsetsCommitTimeoutMs(), new GroupCoordinator.Replicas() {
                    @Override
                    public java.util.concurrent.CompletableFuture<io.seglog.replication.replica.AppendResult> appendAll(
                        final TopicPartition tp, final java.nio.ByteBuffer batch, final long timeoutMs) {
                        return rmRef.get().produce((short) -1, timeoutMs, Map.of(tp, batch)).thenApply(r -> r.get(tp));
                    }

                    @Override
                    public Optional<io.seglog.storage.PartitionLog> log(final TopicPartition tp) {
                        return rmRef.get().partition(tp).map(io.seglog.replication.replica.Partition::log);
                    }
                }, threadFactory, clockMs, System::currentTimeMillis, new java.security.SecureRandom(),
                "group-coordinator-" + id);
            final GroupCoordinator groups = groupCoordinator;
            final LeadershipListener user = options.leadership();
            // The group coordinator hears of its offsets partitions first, then the embedder's listener of everything.
            final LeadershipListener leadership = new LeadershipListener() {
                @Override
                public void onBecomeLeader(final TopicPartition tp, final int leaderEpoch) {
                    groups.onBecomeLeader(tp, leaderEpoch);
                    final BrokerMetrics m = brokerMetrics.get();
                    if (m != null) {
                        m.onBecomeLeader(tp, leaderEpoch);
                    }
                    user.onBecomeLeader(tp, leaderEpoch);
                }

                @Override
                public void onBecomeFollower(final TopicPartition tp, final int leaderId, final int leaderEpoch) {
                    groups.onBecomeFollower(tp, leaderId, leaderEpoch);
                    final BrokerMetrics m = brokerMetrics.get();
                    if (m != null) {
                        m.onBecomeFollower(tp, leaderId, leaderEpoch);
                    }
                    user.onBecomeFollower(tp, leaderId, leaderEpoch);
                }

                @Override
                public void onStopped(final TopicPartition tp, final boolean deleted) {
                    groups.onStopped(tp, deleted);
                    final BrokerMetrics m = brokerMetrics.get();
                    if (m != null) {
                        m.onStopped(tp, deleted);
                    }
                    user.onStopped(tp, deleted);
                }
            };
            replicaManager = new ReplicaManager(id, openedLogs, config.replicas(), clockMs,
                () -> controlRef == null ? -1 : controlRef.controlHandler().brokerEpoch(), writer,
                brokerId -> controlRef != null && controlRef.controlHandler().liveBrokerEndpoints().containsKey(brokerId),
                endpoints, threadFactory, leadership);
            rmRef.set(replicaManager);
            final ReplicaManager rm = replicaManager;
            brokerMetrics.set(new BrokerMetrics(metrics, rm, () -> controlRef != null && controlRef.isController(),
                () -> controlRef == null ? 0 : controlRef.controller().uncleanLeaderElections()));
            producerIds = new ZkProducerIdManager(id, () -> controlRef == null ? null : controlRef.store(), clockMs,
                threadFactory);
            servedApis = new ServedApis(config, rm, new HandlerClusterView(() -> controlRef == null ? null
                : controlRef.controlHandler(), this::clusterId), () -> controlRef, producerIds, metrics,
                groupCoordinator, threadFactory, clockMs);
            final ControlChannel channel;
            final ControlHandlerRegistry registry;
            if (tcp) {
                controlThread = Executors.newSingleThreadExecutor(BrokerThreads.named(threadFactory,
                    "control-handler-" + id));
                controlSender = Executors.newSingleThreadScheduledExecutor(BrokerThreads.named(threadFactory,
                    "control-sender-" + id));
                final TcpControlRegistry tcpRegistry = new TcpControlRegistry(id, controlThread);
                tcpChannel = new TcpControlChannel(id, clients, controlSender, this::registration,
                    config.replication().zookeeperRequestTimeoutMs());
                channel = tcpChannel;
                registry = tcpRegistry;
                listener = KafkaWireServer.start(config.listener(), servedApis.apis(),
                    tcpRegistry.apis(), config.networkThreads(), threadFactory, new RequestMetrics(metrics));
            } else {
                channel = options.channel();
                registry = options.registry();
                listener = KafkaWireServer.start(config.listener(), servedApis.apis(),
                    List.of(), config.networkThreads(), threadFactory, new RequestMetrics(metrics));
            }
            this.advertisedPort = config.advertisedPort() == 0 ? listener.address().getPort() : config.advertisedPort();
            final ReplicationConfig replication = config.replication().toBuilder()
                .advertisedHost(config.advertisedHost()).advertisedPort(advertisedPort).build();
            final ReplicaStateListener onControl = new ReplicaStateListener() {
                @Override
                public void onLeaderAndIsr(final Map<TopicPartition, PartitionStateInfo> applied,
                                           final Map<Integer, LiveBroker> liveLeaders) {
                    rm.onLeaderAndIsr(applied, liveLeaders);
                }

                @Override
                public void onStopReplica(final Set<TopicPartition> partitions, final boolean delete) {
                    rm.onStopReplica(partitions, delete);
                }

                @Override
                public void onLiveBrokers(final Map<Integer, LiveBroker> live) {
                    rm.onLiveBrokers(live);
                }
            };
            this.control = ReplicationBroker.start(replication, channel, registry, threadFactory, clockMs, onControl);
            this.controlRef = control;
            topicConfigs.start(control::store, openedLogs);
            control.onNewSession(topicConfigs::onNewSession);
            this.clusterId = readClusterId(control.store());
        } catch (final RuntimeException | Error e) {
            final EventLoopGroup started = loops;
            try {
                CloseHelper.closeAll(topicConfigs, controlRef, listener, tcpChannel, BrokerThreads.shutdown(controlSender),
                    BrokerThreads.shutdown(controlThread),
                    servedApis, producerIds,
                    groupCoordinator, replicaManager, writer, started == null ? null
                    : () -> started.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly(), openedLogs,
                    ownMetrics ? metrics : null);
            } catch (final RuntimeException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
        this.logs = openedLogs;
        this.clientLoops = loops;
        this.isrWriter = writer;
        this.replicas = replicaManager;
        this.server = listener;
        LOG.info("broker.id={} serves {}:{} (cluster {}), log dirs {}", id, config.advertisedHost(), advertisedPort,
            clusterId, config.logs().logDirs());
    }

    private static boolean hasPartitionDirs(final List<java.nio.file.Path> logDirs) {
        for (final java.nio.file.Path dir : logDirs) {
            try (java.util.stream.Stream<java.nio.file.Path> children = java.nio.file.Files.list(dir)) {
                if (children.anyMatch(java.nio.file.Files::isDirectory)) {
                    return true;
                }
            } catch (final java.io.IOException | java.io.UncheckedIOException e) {
                // Missing or unreadable: the log manager's open reports it.
            }
        }
        return false;
    }

    /** A connected ZooKeeper session of its own, for reading the topics' overrides while the logs load. */
    private static ZkClient connected(final SeglogBrokerConfig config, final ThreadFactory threadFactory) {
        final ZkClient zk = ZkClient.open(config.replication(), threadFactory, new ZkSessionListener() {
            @Override
            public void onSessionExpired(final long sessionId) {
            }

            @Override
            public void onNewSession(final long sessionId) {
            }
        });
        try {
            zk.awaitConnected(config.replication().zookeeperConnectionTimeoutMs());
            return zk;
        } catch (final RuntimeException e) {
            zk.close();
            throw e;
        }
    }

    /**
     * Who holds this broker's registration in ZooKeeper while this broker is not registered: another live broker with
     * the same {@code broker.id}, or this broker's previous process whose session has not expired yet.
     *
     * @return the holder's endpoint and broker epoch, or empty when the registration is free (or this broker's)
     */
    Optional<String> registeredElsewhere() {
        final Optional<LiveBroker> holder = registration(brokerId());
        if (holder.isEmpty() || holder.get().epoch() == control.controlHandler().brokerEpoch()) {
            return Optional.empty();
        }
        return Optional.of(holder.get().host() + ":" + holder.get().port() + ", broker epoch "
            + holder.get().epoch());
    }

    /** A broker's current registration, for the TCP control channel (read from ZooKeeper: authoritative). */
    private Optional<LiveBroker> registration(final int brokerId) {
        final ReplicationBroker c = controlRef;
        return c == null ? Optional.empty() : registration(c.store(), brokerId);
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

    private static String readClusterId(final KafkaZkStore store) {
        try {
            return store.getOrCreateClusterId(ClusterIdZnode.randomId());
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
        return new SeglogBroker(config, options);
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
        CloseHelper.closeAll(topicConfigs, control, server, tcpChannel, BrokerThreads.shutdown(controlSender),
            BrokerThreads.shutdown(controlThread),
            servedApis, producerIds,
            groupCoordinator, replicas,
            isrWriter, () -> clientLoops.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly(), logs,
            ownMetrics ? metrics : null);
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
