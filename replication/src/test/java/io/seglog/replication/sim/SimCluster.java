package io.seglog.replication.sim;

import io.seglog.replication.ReplicationConfig;
import io.seglog.replication.broker.BrokerControlHandler;
import io.seglog.replication.broker.SeglogBroker;
import io.seglog.replication.broker.SeglogBrokerConfig;
import io.seglog.replication.metrics.KafkaMetrics;
import io.seglog.replication.broker.SimBrokerParts;
import io.seglog.replication.controller.Controller;
import io.seglog.replication.replica.FetchIsolation;
import io.seglog.replication.replica.AppendResult;
import io.seglog.replication.replica.EpochResult;
import io.seglog.replication.replica.FetchRequest;
import io.seglog.replication.replica.FetchResponse;
import io.seglog.replication.replica.FetchedPartition;
import io.seglog.replication.replica.LeaderEndpoint;
import io.seglog.replication.replica.OffsetResult;
import io.seglog.replication.replica.PartitionFetch;
import io.seglog.replication.replica.Partition;
import io.seglog.replication.replica.ReadResult;
import io.seglog.replication.replica.ReplicaError;
import io.seglog.replication.replica.ReplicaFixtures;
import io.seglog.replication.replica.ReplicaManager;
import io.seglog.replication.replica.ReplicaManagerConfig;
import io.seglog.replication.replica.SafetyFixes;
import io.seglog.replication.transport.BrokerUnreachableException;
import io.seglog.replication.transport.ControlChannel;
import io.seglog.replication.transport.ControlRequest;
import io.seglog.replication.transport.ControlRequestRefusedException;
import io.seglog.replication.transport.ControlResponse;
import io.seglog.replication.wire.ControlCodec;
import io.seglog.replication.wire.KafkaApi;
import io.seglog.replication.wire.ProducerIdSource;
import io.seglog.replication.wire.SimWireParts;
import io.seglog.replication.wire.WireClient;
import io.seglog.replication.wire.WireLeaderEndpoint;
import io.seglog.replication.zk.KafkaZkStore;
import io.seglog.replication.zk.MalformedZnodeException;
import io.seglog.replication.zk.PartitionStateZnode;
import io.seglog.replication.zk.ReassignPartitionsZnode;
import io.seglog.replication.zk.TopicAssignmentZnode;
import io.seglog.replication.zk.ZkException;
import io.seglog.replication.zk.ZkNode;
import io.seglog.replication.zk.ZkPaths;
import io.seglog.storage.LogBatch;
import io.seglog.storage.LogConfig;
import io.seglog.storage.LogManager;
import io.seglog.storage.LogManagerConfig;
import io.seglog.storage.LogRecord;
import io.seglog.storage.LogSlice;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.Records;
import io.seglog.storage.Scheduler;
import io.seglog.storage.TopicPartition;
import io.seglog.storage.format.RecordBatchBuilder;
import io.seglog.storage.io.FaultInjectingFileIO;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.zip.CRC32;
import org.agrona.concurrent.UnsafeBuffer;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * A whole Seglog cluster on one {@link SimScheduler} (issue 15): per broker the production {@link Controller} (driven
 * in steps), {@link BrokerControlHandler}, {@link ReplicaManager} with its fetchers, the ZooKeeper ISR writer and a
 * {@link LogManager} on a {@link FaultInjectingFileIO} disk, all wired as {@code ReplicationBroker} and
 * {@code SeglogBroker} wire them; one {@link SimZooKeeper}; and a network of directed links with a delay each way,
 * cuts, and crashed nodes that answer nothing. Clients (producers, consumers) are node 0 and send to the leader
 * ZooKeeper names.
 *
 * <p>With {@link Settings#wire()} (the default) every request between processes travels as bytes over {@link SimNet}
 * through the production code at both ends: the controller's control requests through {@code TcpControlChannel} into
 * each broker's {@code TcpControlRegistry}, the followers' Fetch, OffsetsForLeaderEpoch and ListOffsets through
 * {@code WireLeaderEndpoint}, the clients' Produce, Fetch and InitProducerId into each broker's {@code KafkaApis}.
 * Without it they are calls carried as events, as when seeds 1056 and 2199 were found.
 *
 * <p>After every event the {@link ReplicationInvariants} see a snapshot of every running broker's replicas and
 * ZooKeeper's partition states; {@link #checkEnd} checks acknowledged records and replica agreement.
 *
 * <p>Confined to the simulation's thread.
 */
final class SimCluster implements AutoCloseable {
    /** The node id of the clients (producers) on the network. */
    static final int CLIENT = 0;
    static final String TOPIC = "sim";

    /**
     * What a cluster is made of.
     *
     * @param brokers           broker count (ids 1..n)
     * @param partitions        partitions of the one topic
     * @param replicationFactor replicas per partition
     * @param minInsyncReplicas {@code min.insync.replicas}
     * @param uncleanElection   {@code unclean.leader.election.enable}
     * @param replicaLagMs      {@code replica.lag.time.max.ms}
     * @param sessionTimeoutMs  ZooKeeper session timeout
     * @param minLinkDelayMs    shortest one-way network delay
     * @param maxLinkDelayMs    longest one-way network delay
     * @param fixes             the safety fixes switched on
     * @param durableAcks       {@code seglog.acks.all.durable}: acks=all waits for the disks too; the nemesis
     *                          crashes with power loss (only what was fsynced survives) only then, since without it
     *                          Kafka's design, and Seglog's, trusts replication and not the disk
     * @param fetchMaxBytes     {@code replica.fetch.max.bytes}, or 0 to let the run choose by its seed (a small
     *                          value makes followers catch up in many steps)
     * @param initProducerIds   whether idempotent producers get their ids through InitProducerId and restart
     * @param wire              whether the followers', producers' and consumers' requests travel as Kafka's request
     *                          and response bytes through each broker's server pipeline ({@link SimNet}); off, they
     *                          are calls on the leader's replica layer carried as events, as when seeds 1056 and 2199
     *                          were found (their regression tests)
     * @param groupMembers      whether a consumer group's members may run (in the runs their seed chooses)
     */
    record Settings(int brokers, int partitions, int replicationFactor, int minInsyncReplicas, boolean uncleanElection,
                    long replicaLagMs, int sessionTimeoutMs, long minLinkDelayMs, long maxLinkDelayMs,
                    Fixes fixes, boolean durableAcks, int fetchMaxBytes, boolean initProducerIds, boolean wire,
                    boolean groupMembers) {
        static Settings defaults() {
            return new Settings(3, 2, 3, 2, false, 2_000, 4_000, 1, 10, Fixes.ALL, false, 0, true, true, true);
        }

        /** Whether the clients' and followers' requests travel as bytes (see {@link Settings}). */
        Settings withWire(final boolean bytes) {
            return new Settings(brokers, partitions, replicationFactor, minInsyncReplicas, uncleanElection,
                replicaLagMs, sessionTimeoutMs, minLinkDelayMs, maxLinkDelayMs, fixes, durableAcks, fetchMaxBytes,
                initProducerIds, bytes, groupMembers);
        }

        /**
         * Whether idempotent producers ask brokers for their ids (InitProducerId) and restart now and then; off, they
         * use fixed ids for the whole run, as the workload did when seed 2199 was found (its regression test).
         */
        Settings withInitProducerIds(final boolean init) {
            return new Settings(brokers, partitions, replicationFactor, minInsyncReplicas, uncleanElection,
                replicaLagMs, sessionTimeoutMs, minLinkDelayMs, maxLinkDelayMs, fixes, durableAcks, fetchMaxBytes, init,
                wire, groupMembers);
        }

        Settings with(final Fixes f) {
            return new Settings(brokers, partitions, replicationFactor, minInsyncReplicas, uncleanElection,
                replicaLagMs, sessionTimeoutMs, minLinkDelayMs, maxLinkDelayMs, f, durableAcks, fetchMaxBytes,
                initProducerIds, wire, groupMembers);
        }

        Settings withUncleanElection(final boolean unclean) {
            return new Settings(brokers, partitions, replicationFactor, minInsyncReplicas, unclean, replicaLagMs,
                sessionTimeoutMs, minLinkDelayMs, maxLinkDelayMs, fixes, durableAcks, fetchMaxBytes, initProducerIds,
                wire, groupMembers);
        }

        Settings withFetchMaxBytes(final int bytes) {
            return new Settings(brokers, partitions, replicationFactor, minInsyncReplicas, uncleanElection,
                replicaLagMs, sessionTimeoutMs, minLinkDelayMs, maxLinkDelayMs, fixes, durableAcks, bytes,
                initProducerIds, wire, groupMembers);
        }

        /**
         * Whether a consumer group's members may join, sync and heartbeat in a run (its seed decides); off, the runs
         * are as when seeds 9 and 20 were found (their regression tests).
         */
        Settings withGroupMembers(final boolean members) {
            return new Settings(brokers, partitions, replicationFactor, minInsyncReplicas, uncleanElection,
                replicaLagMs, sessionTimeoutMs, minLinkDelayMs, maxLinkDelayMs, fixes, durableAcks, fetchMaxBytes,
                initProducerIds, wire, members);
        }

        Settings withDurableAcks(final boolean durable) {
            return new Settings(brokers, partitions, replicationFactor, minInsyncReplicas, uncleanElection,
                replicaLagMs, sessionTimeoutMs, minLinkDelayMs, maxLinkDelayMs, fixes, durable, fetchMaxBytes,
                initProducerIds, wire, groupMembers);
        }
    }

    /**
     * The replication fixes in force: the replica layer's and the controller-epoch check on ZooKeeper writes
     * (KAFKA-6082).
     *
     * @param replica              the replica layer's fixes
     * @param controllerEpochCheck whether controller writes are fenced by the controller epoch
     * @param registrationsRead    whether a starting broker reads the registrations' zxid before it serves (seed
     *                             5840's fix; off only to replay seed 2199 as it was found)
     */
    record Fixes(SafetyFixes replica, boolean controllerEpochCheck, boolean registrationsRead) {
        static final Fixes ALL = new Fixes(SafetyFixes.ALL, true);

        Fixes(final SafetyFixes replica, final boolean controllerEpochCheck) {
            this(replica, controllerEpochCheck, true);
        }
    }

    /** One broker, across its incarnations (a restart is a new incarnation on the same disk). */
    final class Node {
        final int id;
        int incarnation;
        boolean up;
        FaultInjectingFileIO disk;
        Scheduler storage;
        LogManager logs;
        ReplicaManager replicas;
        BrokerControlHandler handler;
        Controller controller;
        SimZkConnection zk;
        KafkaZkStore store;
        SimScheduler.Timer wake;
        ControlChannel channel;
        /** Seglog's own APIs its listener serves (the control messages, with {@link Settings#wire()}). */
        List<io.seglog.replication.wire.SeglogApi> seglogApis = List.of();
        boolean stepQueued;
        /** Its disk is full (until a restart frees it). */
        boolean diskFull;
        /** A pause that begins as soon as the controller has work queued (0: none). */
        long pauseOnWorkMs;
        /** This incarnation's broker, built through SeglogBroker's assembly; the fields above are its parts. */
        SeglogBroker broker;
        /** The Kafka APIs its server answers (this incarnation's), for each connection {@link SimNet} opens to it. */
        Map<ApiKeys, KafkaApi> served;
        /** Its disk is slow until then (simulated time; it stays slow across restarts, being the disk). */
        long slowDiskUntilMs;
        /** How long each fsync and each write takes while the disk is slow. */
        long slowFsyncMs;
        long slowWriteMs;
        final Map<TopicPartition, Long> lastLogEnd = new HashMap<>();

        Node(final int id) {
            this.id = id;
        }

        Path dir() {
            return root.resolve("broker-" + id);
        }
    }

    private final SimScheduler sim;
    private final SimZooKeeper zk;
    private final Path root;
    private final Settings settings;
    private final TreeMap<Integer, Node> nodes = new TreeMap<>();
    private final Set<String> cutLinks = new TreeSet<>();
    private final ReplicationInvariants invariants = new ReplicationInvariants();
    /** acks=all answers: per partition, offset to the record's digest. */
    private final Map<TopicPartition, Map<Long, Long>> acknowledged = new TreeMap<>(ReplicationInvariants.BY_TP);
    /**
     * {@code -Dseglog.sim.debug=<partition>}: prints that partition's ZooKeeper state and replicas after every event
     * that changes them (to follow a failing seed).
     */
    private static final TopicPartition DEBUG_TP = System.getProperty("seglog.sim.debug") == null ? null
        : new TopicPartition(TOPIC, Integer.getInteger("seglog.sim.debug"));
    private String debugLast = "";
    /** Every producer id a broker handed out, with the broker. */
    private final Map<Long, Integer> producerIdsHandedOut = new HashMap<>();
    /**
     * A violation found inside a channel handler (where Netty would catch it and close the connection), thrown by the
     * check after the event.
     */
    private ReplicationInvariants.Violation deferredViolation;
    /** The network the clients' and followers' requests travel on as bytes (with {@link Settings#wire()}). */
    private final SimNet net;
    /** The clients' connections, by client and broker. */
    private final Map<String, WireClient> clients = new TreeMap<>();
    /** What consumers read: per partition, offset to the record's digest. */
    private final Map<TopicPartition, Map<Long, Long>> consumed = new TreeMap<>(ReplicationInvariants.BY_TP);
    /** The consumers' link delays: a random of their own, so that they shift no other draw of the run. */
    private final SplittableRandom consumerLinks;
    private long consumedCount;
    /** Every answer an idempotent producer got, for reports. */
    private final List<String> idempotentTrace = new ArrayList<>();
    /** The acknowledged records' values, for reports. */
    private final Map<TopicPartition, Map<Long, String>> acknowledgedValues = new HashMap<>();
    /** Every partition the checks cover (internal topics' too). */
    private final List<TopicPartition> partitions = new ArrayList<>();
    /** The partitions clients write and read and the operator moves (no internal topic). */
    private final List<TopicPartition> clientPartitions = new ArrayList<>();
    /**
     * Topics an operator asked to create and whose assignment has not appeared in ZooKeeper yet; their partitions
     * join {@link #partitions} (and every check) in the event that creates the znode.
     */
    private final Set<String> topicsAwaited = new TreeSet<>();
    /** Topics being created whose operator has no answer yet (the cluster has not settled while one is). */
    private final Set<String> creationsUnanswered = new TreeSet<>();
    /** Each topic's id as first seen in its assignment znode: a topic is created once. */
    private final Map<String, String> topicIds = new TreeMap<>();
    /** Every topic whose partitions the checks cover. */
    private final Set<String> knownTopics = new TreeSet<>(Set.of(TOPIC));
    /** Each topic's assignment znode (creation zxid and version) as the last check saw it. */
    private final Map<String, String> topicZnodesSeen = new TreeMap<>();
    /** The operator's link delays: a random of its own, so that it shifts no other draw of the run. */
    private final SplittableRandom adminLinks;
    private long topicsCreated;
    private long createdTopicAcks;
    /** Partitions the operator asked to reassign. */
    private final Set<TopicPartition> reassigned = new TreeSet<>(ReplicationInvariants.BY_TP);
    private long produced;
    private long acknowledgements;
    private long producerErrors;
    private long idempotentRetries;
    private boolean checking;
    /** Set once healing begins: faults still scheduled from before do nothing. */
    private boolean healing;
    private final Map<TopicPartition, Long> stateVersion = new HashMap<>();
    private final Map<TopicPartition, Integer> stateWriterEpoch = new HashMap<>();
    private final Map<TopicPartition, Integer> stateLeaderEpoch = new HashMap<>();
    private java.util.function.BiConsumer<Integer, TopicPartition> isrExpanded = (id, tp) -> { };

    SimCluster(final long seed, final Path root, final Settings settings) {
        this.sim = new SimScheduler(seed);
        this.consumerLinks = new SplittableRandom(seed ^ 0xc0_45e5L);
        this.adminLinks = new SplittableRandom(seed ^ 0xad_3147L);
        this.zk = new SimZooKeeper(sim);
        this.root = root;
        this.settings = settings;
        for (int p = 0; p < settings.partitions(); p++) {
            partitions.add(new TopicPartition(TOPIC, p));
            clientPartitions.add(new TopicPartition(TOPIC, p));
        }
        for (int id = 1; id <= settings.brokers(); id++) {
            nodes.put(id, new Node(id));
        }
        this.net = new SimNet(sim, new SimNet.Topology() {
            @Override
            public int incarnation(final int node) {
                final Node n = nodes.get(node);
                return node == CLIENT ? 0 : n != null && n.up ? n.incarnation : -1;
            }

            @Override
            public boolean linkUp(final int from, final int to) {
                return SimCluster.this.linkUp(from, to);
            }

            @Override
            public io.netty.channel.ChannelHandler[] serverHandlers(final int node) {
                final Node n = nodes.get(node);
                return SimWireParts.serverHandlers(n.served, n.seglogApis, MAX_FRAME_BYTES);
            }

            @Override
            public long delayMs(final java.util.random.RandomGenerator random) {
                return random.nextLong(settings.minLinkDelayMs(), settings.maxLinkDelayMs() + 1);
            }
        });
    }

    /**
     * The group coordinators' settings: Kafka's, but for three offsets partitions (of three replicas) instead of 50.
     */
    static final io.seglog.replication.broker.GroupCoordinatorConfig GROUPS =
        new io.seglog.replication.broker.GroupCoordinatorConfig(io.seglog.replication.group.GroupConfig.defaults(), 3,
            3, 100 << 20, 5_000);

    /** A process's group scheduler whose tasks and timers do nothing once the process has crashed or restarted. */
    private static io.seglog.replication.group.GroupScheduler aliveOnly(
        final io.seglog.replication.group.GroupScheduler scheduler, final java.util.function.BooleanSupplier alive) {
        return new io.seglog.replication.group.GroupScheduler() {
            @Override
            public long nowMs() {
                return scheduler.nowMs();
            }

            @Override
            public void schedule(final String key, final long delayMs, final Runnable task) {
                scheduler.schedule(key, delayMs, () -> {
                    if (alive.getAsBoolean()) {
                        task.run();
                    }
                });
            }

            @Override
            public void cancel(final String key) {
                scheduler.cancel(key);
            }

            @Override
            public void execute(final Runnable task) {
                scheduler.execute(() -> {
                    if (alive.getAsBoolean()) {
                        task.run();
                    }
                });
            }
        };
    }

    /** The largest request and response frame on the simulated wire (a fetch answer is up to 10 MiB). */
    private static final int MAX_FRAME_BYTES = 16 << 20;
    /** Produce v12: the last version that names topics (v13 names them by id). */
    private static final short PRODUCE_VERSION = 12;
    /** Fetch v12, as a consumer (replica id -1) and as the followers' {@code WireLeaderEndpoint} send it. */
    private static final short FETCH_VERSION = 12;
    private static final short INIT_PRODUCER_ID_VERSION = 4;
    /** CreateTopics v7: the last this broker serves (it answers topic ids). */
    private static final short CREATE_TOPICS_VERSION = 7;

    /** A client of a broker whose connections {@link SimNet} carries. */
    private WireClient wireClient(final int from, final int incarnation, final int to, final String clientId,
                                  final java.util.random.RandomGenerator random) {
        return SimWireParts.client(pipeline -> net.connect(from, incarnation, to, random, clientId, pipeline),
            "broker" + to, clientId, MAX_FRAME_BYTES);
    }

    /** The client process's connection to a broker for one client (each producer and consumer has its own). */
    private WireClient client(final String clientId, final int broker, final java.util.random.RandomGenerator random) {
        return clients.computeIfAbsent(clientId + ">" + broker, k -> wireClient(CLIENT, 0, broker, clientId, random));
    }

    /**
     * A client's process ended: its connections close (the brokers see them go a link delay later).
     *
     * @param clientId the client
     */
    void clientEnded(final String clientId) {
        final java.util.Iterator<Map.Entry<String, WireClient>> it = clients.entrySet().iterator();
        while (it.hasNext()) {
            final Map.Entry<String, WireClient> e = it.next();
            if (e.getKey().startsWith(clientId + ">")) {
                e.getValue().close();
                it.remove();
            }
        }
    }

    /** An idempotent producer's client id: one process per producer id. */
    static String idempotentClientId(final long producerId) {
        return "idempotent-" + producerId;
    }

    /** Remembers a producer id handed out; one handed out twice, by any brokers, is a violation. */
    private void handedOut(final long producerId, final int brokerId) {
        final Integer before = producerIdsHandedOut.putIfAbsent(producerId, brokerId);
        if (before != null && deferredViolation == null) {
            deferredViolation = new ReplicationInvariants.Violation("init-producer-id", "producer id " + producerId
                + " handed out by broker " + brokerId + " was handed out before by broker " + before + describe());
        }
    }

    SimScheduler sim() {
        return sim;
    }

    SimZooKeeper zooKeeper() {
        return zk;
    }

    /**
     * How many partitions of a topic the checks cover.
     *
     * @param topic the topic
     * @return its partitions known so far
     */
    int partitionCount(final String topic) {
        return (int) partitions.stream().filter(tp -> tp.topic().equals(topic)).count();
    }

    /** The partitions clients write and read (internal topics' are checked but not among them). */
    List<TopicPartition> partitions() {
        return clientPartitions;
    }

    Node node(final int id) {
        return nodes.get(id);
    }

    List<Integer> brokerIds() {
        return List.copyOf(nodes.keySet());
    }

    /**
     * Tells a nemesis when a leader has written a larger ISR (it may crash the leader right then).
     *
     * @param listener the leader's id and the partition
     */
    void onIsrExpanded(final java.util.function.BiConsumer<Integer, TopicPartition> listener) {
        this.isrExpanded = listener;
    }

    /** Whether healing has begun (faults no longer act). */
    boolean healing() {
        return healing;
    }

    /** Whether crashes may lose unsynced data (durable acks are on then). */
    boolean powerLoss() {
        return settings.durableAcks();
    }

    long acknowledgedCount() {
        return acknowledgements;
    }

    long idempotentRetries() {
        return idempotentRetries;
    }

    void countIdempotentRetry() {
        idempotentRetries++;
    }

    long producedCount() {
        return produced;
    }

    long producerErrors() {
        return producerErrors;
    }

    ReplicationInvariants invariants() {
        return invariants;
    }

    /** Starts every broker, checks the invariants after every event from now on, and creates the topic. */
    void start() {
        nodes.values().forEach(this::startNode);
        sim.afterEach(event -> {
            net.pump();
            check(event);
        });
        checking = true;
        if (!sim.runUntil(() -> nodes.values().stream().anyMatch(n -> n.up && n.controller.isActive())
            && registeredBrokers() == settings.brokers(), sim.nowMs() + 30_000)) {
            throw new AssertionError("seed=" + sim.seed() + ": no controller or not every broker registered");
        }
        final Map<Integer, List<Integer>> assignment = new TreeMap<>();
        for (int p = 0; p < settings.partitions(); p++) {
            final List<Integer> replicas = new ArrayList<>();
            for (int r = 0; r < settings.replicationFactor(); r++) {
                replicas.add(1 + (p + r) % settings.brokers());
            }
            assignment.put(p, replicas);
        }
        anyUpNode().store.createTopic(TOPIC, assignment, "AAAAAAAAAAAAAAAAAAAAAA");
        if (!sim.runUntil(this::allLeadersKnown, sim.nowMs() + 30_000)) {
            throw new AssertionError("seed=" + sim.seed() + ": the topic got no leaders");
        }
    }

    private long registeredBrokers() {
        return nodes.keySet().stream().filter(id -> zk.peek(ZkPaths.brokerPath(id)).isPresent()).count();
    }

    private Node anyUpNode() {
        return nodes.values().stream().filter(n -> n.up).findFirst().orElseThrow();
    }

    private boolean allLeadersKnown() {
        for (final TopicPartition tp : partitions) {
            final Optional<ReplicationInvariants.ZkPartition> z = zkState(tp);
            if (z.isEmpty() || z.get().leader() < 0) {
                return false;
            }
            final Node leader = nodes.get(z.get().leader());
            if (leader == null || !leader.up || leader.replicas.partition(tp).map(p -> !p.isLeader()).orElse(true)) {
                return false;
            }
        }
        return true;
    }

    // ------------------------------------------------------------------------------------------------ brokers

    private void startNode(final Node n) {
        n.incarnation++;
        n.up = true;
        n.diskFull = false;
        n.pauseOnWorkMs = 0;
        n.stepQueued = false;
        if (n.wake != null) {
            n.wake.cancel();
            n.wake = null;
        }
        n.lastLogEnd.clear();
        final int id = n.id;
        n.disk = new FaultInjectingFileIO().onCall(op -> chargeSlowDisk(n, op));
        n.storage = sim.storageScheduler(id);
        final int incarnation = n.incarnation;
        final java.util.function.BooleanSupplier alive = () -> n.up && n.incarnation == incarnation;
        final LogConfig logConfig = LogConfig.builder().minInsyncReplicas(settings.minInsyncReplicas())
            .mappedAppendMaxBytes(0).retentionMs(-1).uncleanLeaderElectionEnable(settings.uncleanElection()).build();
        final ReplicationConfig replication = ReplicationConfig.builder().brokerId(id).zookeeperConnect("sim:2181")
            .advertisedHost("broker" + id).advertisedPort(9092).zookeeperSessionTimeoutMs(settings.sessionTimeoutMs())
            .uncleanLeaderElectionEnable(settings.uncleanElection()).minInsyncReplicas(settings.minInsyncReplicas())
            .replicaLagTimeMaxMs(settings.replicaLagMs()).autoLeaderRebalanceEnable(true)
            .leaderImbalanceCheckIntervalSeconds(5).build();
        final SeglogBrokerConfig config = new SeglogBrokerConfig(replication,
            new io.seglog.replication.wire.WireServerConfig("broker" + id, 9092, 100 << 20), "broker" + id, 9092, 1,
            LogManagerConfig.builder().logDirs(n.dir()).logConfig(logConfig).openThreadsPerDir(1).build(),
            new ReplicaManagerConfig(settings.replicaLagMs(), 500, 1,
                settings.fetchMaxBytes() > 0 ? settings.fetchMaxBytes() : 1 << 20, 10 << 20, 200, 1, 3_000,
                settings.durableAcks()),
            1, 1, false, GROUPS);
        // Without the wire, control messages and follower fetches are method calls between the processes (still
        // events, with the network's delays and faults); with it, bytes over SimNet, as SeglogBroker sends them.
        SeglogBroker.Options options = SeglogBroker.options().metrics(KafkaMetrics.manual(null, () -> sim.nowMs() * 1_000_000L))
            .threadFactory(r -> {
                throw new AssertionError("the simulated broker starts no thread: " + r);
            });
        if (!settings.wire()) {
            options = options.control(new SimControlChannel(n, incarnation), NO_REGISTRY)
                .endpointWrapper((local, leaderId, wire) -> new SimEndpoint(n, incarnation, leaderId));
        }
        final long seed = sim.seed();
        n.broker = SimBrokerParts.start(config, options, new SimBrokerParts.Seams(sim::nowMs,
            () -> sim.clock().wallMs(), n.disk, n.storage,
            name -> new SimScheduledExecutor(sim, name, id, alive),
            (zkConfig, sessions) -> n.zk = zk.connect(id, sessions, settings.sessionTimeoutMs(), 2_000),
            new SimBrokerParts.Network() {
                @Override
                public WireClient connect(final int brokerId, final String clientId) {
                    return wireClient(id, incarnation, brokerId, clientId, sim.random());
                }

                @Override
                public java.net.InetSocketAddress listen(final List<KafkaApi> apis,
                                                         final List<io.seglog.replication.wire.SeglogApi> control) {
                    n.served = SimWireParts.served(apis);
                    n.seglogApis = control;
                    return java.net.InetSocketAddress.createUnresolved("broker" + id, 9092);
                }
            }, aliveOnly(sim.groupScheduler(id), alive), () -> wakeup(n, incarnation),
            purpose -> new SplittableRandom(seed * 137 + id * 19L + incarnation * 7919L + purpose.hashCode()),
            settings.fixes().replica(), settings.fixes().controllerEpochCheck(), settings.fixes().registrationsRead(),
            producerId -> handedOut(producerId, id)));
        n.logs = n.broker.logs();
        n.replicas = n.broker.replicas();
        n.handler = n.broker.control().controlHandler();
        n.controller = n.broker.control().controller();
        n.store = n.broker.control().store();
        n.channel = SimBrokerParts.channel(n.broker);
        n.replicas.addIsrChangeListener((tp, before, after) -> {
            if (after.size() > before.size()) {
                isrExpanded.accept(id, tp);
            }
        });
    }

    /** Without the wire, the control handlers are reached by method calls: nothing to register. */
    private static final io.seglog.replication.transport.ControlHandlerRegistry NO_REGISTRY =
        new io.seglog.replication.transport.ControlHandlerRegistry() {
            @Override
            public void register(final int brokerId, final io.seglog.replication.transport.ControlRequestHandler broker,
                                 final io.seglog.replication.transport.ControllerRequestHandler controller) {
            }

            @Override
            public void unregister(final int brokerId) {
            }
        };

    /** The controller's driver: a step event soon, never inline; after it, a timer at its next due work. */
    private void wakeup(final Node n, final int incarnation) {
        if (!n.stepQueued && n.up && n.incarnation == incarnation) {
            n.stepQueued = true;
            sim.execute("controller " + n.id + " step", n.id, () -> controllerStep(n, incarnation));
            if (n.pauseOnWorkMs > 0) {
                final long ms = n.pauseOnWorkMs;
                n.pauseOnWorkMs = 0;
                pause(n.id, ms);
            }
        }
    }

    private void controllerStep(final Node n, final int incarnation) {
        if (!n.up || n.incarnation != incarnation) {
            return; // an earlier process's step: its flags belong to the new one now
        }
        n.stepQueued = false;
        while (n.controller.runOnce()) {
            // every due step now
        }
        if (n.wake != null) {
            n.wake.cancel();
            n.wake = null;
        }
        final long next = n.controller.nextWakeMs();
        if (next != Long.MAX_VALUE) {
            n.wake = sim.at("controller " + n.id + " timer", n.id, Math.max(next, sim.nowMs()),
                () -> controllerStep(n, incarnation));
        }
    }

    /**
     * Crashes a broker: its process stops at once (no more writes, fsyncs or renames reach the disk, nothing is
     * closed cleanly), its ZooKeeper connection drops (the session expires after its timeout), and, for a power loss,
     * its disk keeps only what was fsynced.
     *
     * @param id        the broker
     * @param powerLoss whether unsynced data is lost too
     */
    void crash(final int id, final boolean powerLoss) {
        final Node n = nodes.get(id);
        if (!n.up || healing) {
            return;
        }
        crashNow(n, powerLoss);
    }

    private void crashNow(final Node n, final boolean powerLoss) {
        final int id = n.id;
        n.up = false;
        sim.unpause(id);
        if (n.wake != null) {
            n.wake.cancel();
            n.wake = null;
        }
        for (final FaultInjectingFileIO.Op op : List.of(FaultInjectingFileIO.Op.WRITE, FaultInjectingFileIO.Op.FORCE,
            FaultInjectingFileIO.Op.ATOMIC_MOVE, FaultInjectingFileIO.Op.DELETE,
            FaultInjectingFileIO.Op.FSYNC_DIRECTORY)) {
            n.disk.failFromCall(op, n.disk.count(op) + 1);
        }
        // The process is gone: its connection drops (the session expires after its timeout), and nothing it would
        // still do reaches ZooKeeper, its close included; its components stop making events.
        n.zk.crash();
        quietly(n.broker::close);
        net.ended(id);
        quietly(n.storage::close);
        if (powerLoss) {
            try {
                n.disk.loseUnsyncedData();
            } catch (final IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /**
     * Stops a broker cleanly, in {@code SeglogBroker.close}'s order: its session closed first (registration and
     * controllership go), then replicas and logs (a clean-shutdown marker written). Each step runs even when one before
     * it fails (a full disk fails the logs' close), as the process ends anyway: a session left open would keep the
     * broker's ephemerals, and a controllership, for good.
     *
     * @param id the broker
     */
    void stop(final int id) {
        final Node n = nodes.get(id);
        if (!n.up) {
            return;
        }
        n.up = false;
        if (n.wake != null) {
            n.wake.cancel();
            n.wake = null;
        }
        quietly(n.broker::close);
        net.ended(id);
        quietly(n.storage::close);
    }

    /**
     * Shuts a broker down as Kafka's brokers do: asks the controller to move its leaderships away (up to three
     * attempts while some remain), then stops cleanly.
     *
     * @param id       the broker
     * @param attempts attempts left
     * @param stopped  run once it stopped
     */
    void controlledShutdown(final int id, final int attempts, final Runnable stopped) {
        final Node n = nodes.get(id);
        if (!n.up) {
            return;
        }
        final int incarnation = n.incarnation;
        n.channel.controlledShutdown(n.handler.controllerId(), id, n.handler.brokerEpoch())
            .whenComplete((stillLed, failure) -> {
                if (!n.up || n.incarnation != incarnation) {
                    return;
                }
                if (failure == null && stillLed.isEmpty() || attempts <= 1) {
                    // A broker that asked to shut down does, even once healing began (then it starts again at once).
                    stop(id);
                    if (healing) {
                        restart(id);
                    } else {
                        stopped.run();
                    }
                } else {
                    sim.schedule("controlled-shutdown-retry " + id, id, 500,
                        () -> controlledShutdown(id, attempts - 1, stopped));
                }
            });
    }

    /**
     * Fills a broker's disk: every write from now on fails (ENOSPC), and its log directory goes offline at the
     * first one, as a failed write does.
     *
     * @param id the broker
     */
    void fillDisk(final int id) {
        final Node n = nodes.get(id);
        if (n.up && !healing) {
            n.diskFull = true;
            n.disk.failFromCall(FaultInjectingFileIO.Op.WRITE, n.disk.count(FaultInjectingFileIO.Op.WRITE) + 1);
        }
    }

    /**
     * Makes a broker's disk slow for a while: after each fsync and each write the broker's own work stalls (its
     * events wait) as its threads would behind the disk, while its ZooKeeper session lives on, so it keeps its
     * leaderships: the broker Kafka cannot tell from a healthy one but that followers and producers time out on.
     *
     * @param id         the broker
     * @param durationMs how long the disk stays slow
     * @param fsyncMs    what each fsync costs then
     * @param writeMs    what each write costs then
     */
    void slowDisk(final int id, final long durationMs, final long fsyncMs, final long writeMs) {
        final Node n = nodes.get(id);
        if (!healing) {
            n.slowDiskUntilMs = sim.nowMs() + durationMs;
            n.slowFsyncMs = fsyncMs;
            n.slowWriteMs = writeMs;
        }
    }

    private void chargeSlowDisk(final Node n, final FaultInjectingFileIO.Op op) {
        if (sim.nowMs() >= n.slowDiskUntilMs || healing) {
            return;
        }
        final long cost = switch (op) {
            case FORCE, FSYNC_DIRECTORY -> n.slowFsyncMs;
            case WRITE -> n.slowWriteMs;
            default -> 0;
        };
        if (cost > 0) {
            sim.pause(n.id, sim.nowMs() + cost);
        }
    }

    /**
     * Starts a stopped or crashed broker again on its disk.
     *
     * @param id the broker
     */
    void restart(final int id) {
        final Node n = nodes.get(id);
        if (n.up) {
            return;
        }
        invariants.restarted(id);
        startNode(n);
    }

    /**
     * Pauses a broker's process (a long garbage-collection stop): nothing of it runs and its ZooKeeper connection
     * is silent until the pause ends, so a pause longer than the session timeout expires its session; when it
     * resumes, what was due meanwhile runs first, in order, before it hears of the expiry (a zombie).
     *
     * @param id         the broker
     * @param durationMs how long
     */
    void pause(final int id, final long durationMs) {
        final Node n = nodes.get(id);
        if (!n.up || sim.paused(id) || healing) {
            return;
        }
        final int incarnation = n.incarnation;
        n.zk.disconnect();
        sim.schedule("resume " + id, SimScheduler.NO_NODE, durationMs, () -> {
            if (n.up && n.incarnation == incarnation) {
                n.zk.reconnect();
            }
        });
        sim.pause(id, sim.nowMs() + durationMs);
    }

    /**
     * Pauses a broker as soon as its controller has work queued: the stop falls between an event's arrival and its
     * handling, so that a pause past the session timeout leaves a zombie with that event to handle.
     *
     * @param id         the broker
     * @param durationMs how long
     */
    void pauseOnControllerWork(final int id, final long durationMs) {
        final Node n = nodes.get(id);
        if (n.up && !healing) {
            n.pauseOnWorkMs = durationMs;
        }
    }

    /**
     * Expires a broker's ZooKeeper session as the server does after a long pause.
     *
     * @param id the broker
     */
    void expireSession(final int id) {
        final Node n = nodes.get(id);
        if (n.up && !healing) {
            zk.expire(n.zk.serverSessionId());
        }
    }

    /**
     * The broker that ZooKeeper names as controller, if any is running.
     *
     * @return its id
     */
    Optional<Integer> activeController() {
        return nodes.values().stream().filter(n -> n.up && n.controller.isActive()).map(n -> n.id).findFirst();
    }

    private static void quietly(final Runnable close) {
        try {
            close.run();
        } catch (final RuntimeException e) {
            // A crashed process's close: its failures are the crash's.
        }
    }

    // ------------------------------------------------------------------------------------------------ network

    /**
     * Cuts the link from one node to another (one way).
     *
     * @param from the sender
     * @param to   the receiver
     */
    void cut(final int from, final int to) {
        if (!healing) {
            cutLinks.add(from + ">" + to);
        }
    }

    /**
     * Resets every connection of a broker's process, with what is in flight on them ({@link SimNet#reset}).
     *
     * @param id the broker
     * @return the connections reset; 0 without {@link Settings#wire()}, which has no connections
     */
    int resetConnections(final int id) {
        return settings.wire() ? net.reset(id) : 0;
    }

    /** Restores every link. */
    void healLinks() {
        cutLinks.clear();
    }

    private boolean linkUp(final int from, final int to) {
        final Node f = nodes.get(from);
        return (from == CLIENT || f != null && f.up) && !cutLinks.contains(from + ">" + to);
    }

    /** Sends a message: it arrives after the link's delay unless the link is cut or the receiver is down then. */
    private void send(final int from, final int to, final String what, final Runnable onArrival) {
        send(from, to, what, sim.random(), onArrival);
    }

    /** Sends a message with its delay drawn from a random of its own (consumers', so that they change no other draw). */
    private void send(final int from, final int to, final String what, final java.util.random.RandomGenerator random,
                      final Runnable onArrival) {
        if (!linkUp(from, to)) {
            return;
        }
        final long delay = random.nextLong(settings.minLinkDelayMs(), settings.maxLinkDelayMs() + 1);
        sim.schedule(what + " " + from + ">" + to, to, delay, () -> {
            final Node receiver = nodes.get(to);
            if (to == CLIENT || receiver != null && receiver.up) {
                onArrival.run();
            }
        });
    }

    /** A follower's connection to a leader over the simulated network. */
    private final class SimEndpoint implements LeaderEndpoint {
        private final Node local;
        private final int incarnation;
        private final int leaderId;
        private final List<CompletableFuture<?>> inFlight = new ArrayList<>();
        private boolean closed;

        SimEndpoint(final Node local, final int incarnation, final int leaderId) {
            this.local = local;
            this.incarnation = incarnation;
            this.leaderId = leaderId;
        }

        /** Sends a request; the leader's answer comes back over the link, or never (the fetcher times out). */
        private <T> CompletableFuture<T> request(final String what, final java.util.function.Function<Node,
            CompletableFuture<T>> serve) {
            final CompletableFuture<T> answer = new CompletableFuture<>();
            if (closed) {
                return CompletableFuture.failedFuture(new IllegalStateException("endpoint closed"));
            }
            inFlight.add(answer);
            answer.whenComplete((v, e) -> inFlight.remove(answer));
            send(local.id, leaderId, what, () -> {
                final Node leader = nodes.get(leaderId);
                serve.apply(leader).whenComplete((value, failure) -> send(leaderId, local.id, what + "-answer", () -> {
                    if (!local.up || local.incarnation != incarnation) {
                        release(value);
                        return;
                    }
                    final boolean taken = failure == null ? answer.complete(value)
                        : answer.completeExceptionally(failure);
                    if (!taken) {
                        release(value);
                    }
                }));
            });
            return answer;
        }

        @Override
        public CompletableFuture<FetchResponse> fetch(final FetchRequest request) {
            return request("fetch", leader -> leader.replicas.fetch(request).thenApply(results -> {
                final List<FetchedPartition> out = new ArrayList<>(results.size());
                for (int i = 0; i < results.size(); i++) {
                    final ReadResult r = results.get(i);
                    out.add(new FetchedPartition(request.partitions().get(i).tp(), r.error(), r.highWatermark(),
                        r.logStartOffset(), r.divergingEpoch(), bytesOf(r.records())));
                }
                return FetchResponse.of(out);
            }));
        }

        @Override
        public CompletableFuture<Map<TopicPartition, EpochResult>> offsetsForLeaderEpoch(
            final int replicaId, final Map<TopicPartition, int[]> epochs) {
            return request("offsets-for-leader-epoch", leader -> {
                final Map<TopicPartition, EpochResult> out = new LinkedHashMap<>();
                epochs.forEach((tp, q) -> out.put(tp, leader.replicas.endOffsetForEpoch(tp, q[0], q[1])));
                return CompletableFuture.completedFuture(out);
            });
        }

        @Override
        public CompletableFuture<Map<TopicPartition, OffsetResult>> listOffsets(
            final int replicaId, final Map<TopicPartition, Integer> currentLeaderEpochs, final long timestamp) {
            return request("list-offsets", leader -> {
                final Map<TopicPartition, OffsetResult> out = new LinkedHashMap<>();
                currentLeaderEpochs.forEach((tp, epoch) -> out.put(tp,
                    leader.replicas.listOffset(tp, epoch, timestamp, FetchIsolation.LOG_END)));
                return CompletableFuture.completedFuture(out);
            });
        }

        @Override
        public void close() {
            closed = true;
            for (final CompletableFuture<?> f : new ArrayList<>(inFlight)) {
                f.completeExceptionally(new IllegalStateException("endpoint closed"));
            }
        }
    }

    private static void release(final Object answer) {
        if (answer instanceof FetchResponse r) {
            r.close();
        }
    }

    private static ByteBuffer bytesOf(final LogSlice slice) {
        return ReplicaFixtures.bytesOf(slice);
    }

    /**
     * The controller's messages to one broker: one at a time in order, each sent again after a timeout and a pause
     * while the broker stays registered (so a message whose answer was lost arrives twice), failed once it is not, as
     * {@code TcpControlChannel} does.
     */
    private final class SimControlChannel implements ControlChannel {
        private static final long RETRY_BACKOFF_MS = 100;
        private static final long ATTEMPT_TIMEOUT_MS = 2_000;

        private final class Message {
            final int target;
            final ControlRequest request;
            final CompletableFuture<ControlResponse> answer = new CompletableFuture<>();
            int attempt;

            Message(final int target, final ControlRequest request) {
                this.target = target;
                this.request = request;
            }
        }

        private final Node local;
        private final int incarnation;
        private final Map<Integer, ArrayDeque<Message>> queues = new TreeMap<>();

        SimControlChannel(final Node local, final int incarnation) {
            this.local = local;
            this.incarnation = incarnation;
        }

        private boolean alive() {
            return local.up && local.incarnation == incarnation;
        }

        @Override
        public CompletableFuture<ControlResponse> send(final int brokerId, final ControlRequest request) {
            final Message m = new Message(brokerId, request);
            final ArrayDeque<Message> queue = queues.computeIfAbsent(brokerId, k -> new ArrayDeque<>());
            queue.add(m);
            if (queue.size() == 1) {
                sim.execute("control-send " + local.id + ">" + brokerId, local.id, () -> attempt(m));
            }
            return m.answer;
        }

        private void attempt(final Message m) {
            if (!alive() || m.answer.isDone()) {
                return;
            }
            if (zk.peek(ZkPaths.brokerPath(m.target)).isEmpty()) {
                finish(m, null, new BrokerUnreachableException(m.target));
                return;
            }
            final int attempt = ++m.attempt;
            final String name = m.request.getClass().getSimpleName();
            // The message and its answer travel as ControlCodec's bytes, as over TCP.
            final short key = ControlCodec.apiKey(m.request);
            final short version = ControlCodec.latestVersion(key);
            final ByteBuffer request = ControlCodec.encodeRequest(m.request);
            SimCluster.this.send(local.id, m.target, "control " + name, () -> {
                final ControlRequest received = ControlCodec.decodeRequest(key, version, request.duplicate());
                ByteBuffer answer;
                try {
                    answer = ControlCodec.encodeResponse(nodes.get(m.target).handler.handle(received));
                } catch (final ControlRequestRefusedException refused) {
                    answer = ControlCodec.encodeRefusal(refused);
                }
                final ByteBuffer bytes = answer;
                SimCluster.this.send(m.target, local.id, "control-answer " + name, () -> {
                    if (alive() && m.attempt == attempt) {
                        ControlResponse response = null;
                        RuntimeException refusal = null;
                        try {
                            response = ControlCodec.decodeResponse(key, version, bytes.duplicate());
                        } catch (final ControlRequestRefusedException e) {
                            refusal = e;
                        }
                        finish(m, response, refusal);
                    }
                });
            });
            sim.schedule("control-timeout " + local.id + ">" + m.target, local.id, ATTEMPT_TIMEOUT_MS, () -> {
                if (alive() && !m.answer.isDone() && m.attempt == attempt) {
                    sim.schedule("control-retry " + local.id + ">" + m.target, local.id, RETRY_BACKOFF_MS,
                        () -> attempt(m));
                }
            });
        }

        private void finish(final Message m, final ControlResponse response, final RuntimeException failure) {
            final ArrayDeque<Message> queue = queues.get(m.target);
            queue.remove(m);
            if (failure != null) {
                m.answer.completeExceptionally(failure);
            } else {
                m.answer.complete(response);
            }
            final Message next = queue.peek();
            if (next != null) {
                sim.execute("control-send " + local.id + ">" + next.target, local.id, () -> attempt(next));
            }
        }

        @Override
        public CompletableFuture<Set<TopicPartition>> controlledShutdown(final int controllerId, final int brokerId,
                                                                         final long brokerEpoch) {
            final CompletableFuture<Set<TopicPartition>> answer = new CompletableFuture<>();
            final ByteBuffer request = ControlCodec.encodeControlledShutdownRequest(brokerId, brokerEpoch);
            SimCluster.this.send(local.id, controllerId, "controlled-shutdown", () -> {
                final ControlCodec.ControlledShutdown received = ControlCodec.decodeControlledShutdownRequest(
                    ControlCodec.FIRST_VERSION, request.duplicate());
                nodes.get(controllerId).controller.controlledShutdown(received.brokerId(), received.brokerEpoch())
                    .whenComplete((stillLed, failure) -> {
                        final Throwable cause = failure instanceof java.util.concurrent.CompletionException
                            && failure.getCause() != null ? failure.getCause() : failure;
                        final ByteBuffer bytes = failure == null
                            ? ControlCodec.encodeControlledShutdownResponse(stillLed)
                            : ControlCodec.encodeControlledShutdownRefusal(cause instanceof RuntimeException r ? r
                                : new IllegalStateException(cause));
                        SimCluster.this.send(controllerId, local.id, "controlled-shutdown-answer", () -> {
                            try {
                                answer.complete(ControlCodec.decodeControlledShutdownResponse(
                                    ControlCodec.FIRST_VERSION, bytes.duplicate()));
                            } catch (final RuntimeException e) {
                                answer.completeExceptionally(e);
                            }
                        });
                    });
            });
            sim.schedule("controlled-shutdown-timeout " + local.id, local.id, ATTEMPT_TIMEOUT_MS,
                () -> answer.completeExceptionally(new java.util.concurrent.TimeoutException(
                    "no answer to the controlled shutdown of broker " + brokerId)));
            return answer;
        }
    }

    // ------------------------------------------------------------------------------------------------ admin

    /**
     * The topic's assignment znode as it stands (during a reassignment its replica lists hold the old and the new
     * replicas, with the adding and removing ones named).
     *
     * @return the assignment, or empty before the topic exists
     */
    Optional<TopicAssignmentZnode> assignment() {
        return assignment(TOPIC);
    }

    /**
     * A topic's assignment znode as it stands.
     *
     * @param topic the topic
     * @return the assignment, or empty before the topic exists
     */
    Optional<TopicAssignmentZnode> assignment(final String topic) {
        return zk.peek(ZkPaths.topicPath(topic)).map(node -> {
            try {
                return TopicAssignmentZnode.fromJson(topic, node.data());
            } catch (final MalformedZnodeException e) {
                throw new AssertionError("seed=" + sim.seed() + ": " + topic + "'s assignment znode does not parse", e);
            }
        });
    }

    /**
     * An operator's CreateTopics (v7, as kafka-topics and the AdminClient send it) to a broker; the topic's partitions
     * join the workload and every check once its assignment is in ZooKeeper, and the cluster does not count as settled
     * until the operator has an answer ({@link #topicCreationAnswered}).
     *
     * @param brokerId the broker asked
     * @param topic    the topic
     * @param request  the topic's entry (a count and a replication factor, or an assignment)
     * @param timeoutMs how long the broker waits for the partitions' leaders
     * @param answered the topic's result at the client; not called when the request or its answer is lost
     */
    void createTopic(final int brokerId, final String topic, final CreateTopicsRequestData.CreatableTopic request,
                     final int timeoutMs,
                     final java.util.function.Consumer<CreateTopicsResponseData.CreatableTopicResult> answered) {
        if (!settings.wire()) {
            throw new IllegalStateException("topics are created over the wire (Settings.wire)");
        }
        if (!topic.equals(request.name())) {
            throw new IllegalArgumentException(topic + " != " + request.name());
        }
        topicsAwaited.add(topic);
        creationsUnanswered.add(topic);
        final CreateTopicsRequestData data = new CreateTopicsRequestData().setTimeoutMs(timeoutMs);
        data.topics().add(request.duplicate());
        client("admin", brokerId, adminLinks).send(ApiKeys.CREATE_TOPICS, CREATE_TOPICS_VERSION, data)
            .whenComplete((m, failure) -> {
                if (failure == null) {
                    final CreateTopicsResponseData.CreatableTopicResult result =
                        ((CreateTopicsResponseData) m).topics().find(topic);
                    if (result == null) {
                        deferredViolation = new ReplicationInvariants.Violation("create-topics", "broker " + brokerId
                            + " answered a CreateTopics for " + topic + " without a result for it: " + m);
                        return;
                    }
                    sim.execute("create-topics-answer", CLIENT, () -> answered.accept(result));
                }
            });
    }

    /**
     * The operator has its answer for a topic (created, or created by an earlier attempt).
     *
     * @param topic the topic
     */
    void topicCreationAnswered(final String topic) {
        creationsUnanswered.remove(topic);
    }

    /**
     * A topic a broker reported created is in ZooKeeper as the operator asked for it: its partitions, and each
     * partition's replicas (as assigned, or as many as the factor) unless the operator has reassigned it since.
     *
     * @param topic   the topic
     * @param request what the operator asked for
     * @throws ReplicationInvariants.Violation when it is not
     */
    void checkCreatedTopic(final String topic, final CreateTopicsRequestData.CreatableTopic request) {
        final Optional<TopicAssignmentZnode> a = assignment(topic);
        final String what = "broker answered the creation of " + topic + " (" + request + ") without error but ";
        if (a.isEmpty()) {
            throw new ReplicationInvariants.Violation("create-topics-answer", what + "it is not in ZooKeeper"
                + describe());
        }
        final Map<Integer, List<Integer>> expected = new TreeMap<>();
        request.assignments().forEach(r -> expected.put(r.partitionIndex(), r.brokerIds()));
        final int count = expected.isEmpty() ? request.numPartitions() : expected.size();
        if (a.get().partitions().size() != count) {
            throw new ReplicationInvariants.Violation("create-topics-answer", what + "it has the partitions "
                + a.get().partitions() + describe());
        }
        a.get().partitions().forEach((p, replicas) -> {
            if (reassigned.contains(new TopicPartition(topic, p))) {
                return;
            }
            final boolean ok = expected.isEmpty() ? replicas.size() == request.replicationFactor()
                && new TreeSet<>(replicas).size() == replicas.size() : replicas.equals(expected.get(p));
            if (!ok) {
                throw new ReplicationInvariants.Violation("create-topics-answer", what + "partition " + p
                    + " has the replicas " + replicas + describe());
            }
        });
    }

    /** Acknowledgements of records in topics created during the run. */
    long createdTopicAcks() {
        return createdTopicAcks;
    }

    /**
     * A topic a broker creates (the offsets topic at the first FindCoordinator) joins the checks once it exists.
     *
     * @param topic the topic
     */
    void awaitTopic(final String topic) {
        if (assignment(topic).isEmpty() && !partitions.stream().anyMatch(tp -> tp.topic().equals(topic))) {
            topicsAwaited.add(topic);
        }
    }

    /** Topics an operator created whose assignment appeared in ZooKeeper during the run. */
    long topicsCreated() {
        return topicsCreated;
    }

    /**
     * Topics the operator asked for join the checks in the event that writes their assignment; every topic's id is
     * the one it was created with.
     */
    private void watchTopics(final String event) {
        for (final java.util.Iterator<String> it = topicsAwaited.iterator(); it.hasNext(); ) {
            final String topic = it.next();
            final Optional<TopicAssignmentZnode> a = assignment(topic);
            if (a.isPresent()) {
                it.remove();
                if (!topic.startsWith("__")) {
                    topicsCreated++; // the operator's (the offsets topic is created by a broker)
                }
                knownTopics.add(topic);
                for (final int p : new TreeSet<>(a.get().partitions().keySet())) {
                    partitions.add(new TopicPartition(topic, p));
                    if (!topic.startsWith("__")) {
                        clientPartitions.add(new TopicPartition(topic, p));
                    }
                }
            }
        }
        for (final String topic : knownTopics) {
            final Optional<ZkNode> node = zk.peek(ZkPaths.topicPath(topic));
            final String seen = node.map(z -> z.stat().czxid() + "/" + z.stat().version()).orElse("none");
            if (seen.equals(topicZnodesSeen.put(topic, seen))) {
                continue; // unchanged since the last event
            }
            final String id = assignment(topic).flatMap(TopicAssignmentZnode::topicId).orElse("none");
            final String first = topicIds.putIfAbsent(topic, id);
            if (first != null && !first.equals(id)) {
                throw new ReplicationInvariants.Violation(event, topic + "'s id changed from " + first + " to " + id
                    + " (the topic was deleted, or created again over itself)");
            }
        }
    }

    /**
     * An operator asks the controller to move a partition to other replicas (Kafka's
     * {@code /admin/reassign_partitions}, as kafka-reassign-partitions writes it over ZooKeeper), through a running
     * broker's session.
     *
     * @param tp     the partition
     * @param target the new replica list (the first is the preferred leader)
     * @return whether the request was written (not when one is pending, no broker is up or the session is lost)
     */
    boolean reassign(final TopicPartition tp, final List<Integer> target) {
        reassigned.add(tp);
        return adminWrite(n -> n.store.admin().requestReassignment(new ReassignPartitionsZnode(Map.of(tp, target))));
    }

    /**
     * An operator asks for a preferred-leader election (Kafka's {@code /admin/preferred_replica_election}).
     *
     * @param tps the partitions
     * @return whether the request was written
     */
    boolean requestPreferredElection(final Set<TopicPartition> tps) {
        return adminWrite(n -> n.store.requestPreferredElection(tps));
    }

    private boolean adminWrite(final java.util.function.Consumer<Node> write) {
        if (healing) {
            return false;
        }
        final Optional<Node> n = nodes.values().stream().filter(x -> x.up).findFirst();
        if (n.isEmpty()) {
            return false;
        }
        try {
            write.accept(n.get());
            return true;
        } catch (final ZkException e) {
            return false; // a request already pending, or a lost session: the operator tries again later
        }
    }

    // ------------------------------------------------------------------------------------------------ clients

    /**
     * A producer sends one record to the partition's leader as ZooKeeper names it; with acks=all, an answer without an
     * error is an acknowledgement, recorded for the end check (an acks=1 answer promises nothing once the leader
     * fails, so it is not).
     *
     * @param tp    the partition
     * @param value the record's value (unique in the run)
     * @param acks  -1 (all) or 1
     */
    void produce(final TopicPartition tp, final String value, final short acks) {
        final Optional<ReplicationInvariants.ZkPartition> state = zkState(tp);
        if (state.isEmpty() || state.get().leader() < 0) {
            return;
        }
        final int leaderId = state.get().leader();
        final byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        final long digest = digest(ByteBuffer.wrap(bytes));
        produced++;
        if (settings.wire()) {
            final UnsafeBuffer built = RecordBatchBuilder.batchOf(0, sim.clock().wallMs(), bytes);
            final ByteBuffer batch = ByteBuffer.allocate(built.capacity());
            built.getBytes(0, batch, built.capacity());
            client(acks == -1 ? "producer-all" : "producer-one", leaderId, sim.random())
                .send(ApiKeys.PRODUCE, PRODUCE_VERSION, produceRequest(tp, acks, batch.flip()))
                .whenComplete((m, failure) -> sim.execute("produce-answer", CLIENT, () -> {
                    final ProduceResponseData.PartitionProduceResponse r = failure == null
                        ? partitionOf((ProduceResponseData) m) : null;
                    if (r == null || r.errorCode() != 0) {
                        producerErrors++;
                    } else if (acks == -1) {
                        acknowledgements++;
                        acknowledge(tp, r.baseOffset(), digest, value);
                    }
                }));
            return;
        }
        send(CLIENT, leaderId, "produce", () -> {
            final Node leader = nodes.get(leaderId);
            final UnsafeBuffer built = RecordBatchBuilder.batchOf(0, sim.clock().wallMs(), bytes);
            final ByteBuffer batch = ByteBuffer.allocate(built.capacity());
            built.getBytes(0, batch, built.capacity());
            batch.flip();
            leader.replicas.produce(acks, 5_000, Map.of(tp, batch)).whenComplete((results, failure) ->
                send(leaderId, CLIENT, "produce-answer", () -> {
                    final AppendResult r = failure == null ? results.get(tp) : null;
                    if (r == null || r.error() != ReplicaError.NONE) {
                        producerErrors++;
                    } else if (acks == -1) {
                        acknowledgements++;
                        acknowledge(tp, r.baseOffset(), digest, value);
                    }
                }));
        });
    }

    /**
     * A consumer's fetch from the partition's leader as ZooKeeper names it, from an offset: the leader answers at
     * once with what lies below its high watermark (copied then: a later truncation must not change an answer already
     * sent). With {@code withLeaderEpoch} it sends ZooKeeper's leader epoch (KIP-320, as kafka-clients 2.1+ do), so a
     * deposed leader refuses it; without, it reads from whoever still thinks it leads, as older clients did. Every
     * record read is remembered: the end check wants each on every ISR member at the same offset (what a consumer saw
     * is never lost), and an offset read twice must hold the same record.
     *
     * @param tp              the partition
     * @param offset          the first offset wanted
     * @param withLeaderEpoch whether the fetch carries the leader epoch
     * @param answered        the next offset to fetch from, or -1 after an error (called only when an answer comes)
     * @return whether it was sent (ZooKeeper names a leader)
     */
    boolean consume(final TopicPartition tp, final long offset, final boolean withLeaderEpoch,
                    final java.util.function.LongConsumer answered) {
        final Optional<ReplicationInvariants.ZkPartition> state = zkState(tp);
        if (state.isEmpty() || state.get().leader() < 0) {
            return false;
        }
        final int leaderId = state.get().leader();
        final int epoch = withLeaderEpoch ? state.get().leaderEpoch() : -1;
        if (settings.wire()) {
            final FetchRequestData data = new FetchRequestData().setReplicaId(FetchRequest.CONSUMER_REPLICA_ID)
                .setMaxWaitMs(0).setMinBytes(1).setMaxBytes(64 << 10).setIsolationLevel((byte) 0).setSessionId(0)
                .setSessionEpoch(-1);
            data.topics().add(new FetchRequestData.FetchTopic().setTopic(tp.topic()).setPartitions(List.of(
                new FetchRequestData.FetchPartition().setPartition(tp.partition()).setCurrentLeaderEpoch(epoch)
                    .setFetchOffset(offset).setLastFetchedEpoch(-1).setLogStartOffset(-1)
                    .setPartitionMaxBytes(64 << 10))));
            client(withLeaderEpoch ? "consumer-epoch" : "consumer", leaderId, consumerLinks)
                .send(ApiKeys.FETCH, FETCH_VERSION, data)
                .whenComplete((m, failure) -> sim.execute("consume-answer", CLIENT, () -> {
                    final FetchResponseData resp = (FetchResponseData) m;
                    final FetchResponseData.PartitionData p = failure != null || resp.errorCode() != 0
                        || resp.responses().size() != 1 || resp.responses().get(0).partitions().size() != 1 ? null
                        : resp.responses().get(0).partitions().get(0);
                    final ReplicaError error = p == null ? null : ReplicaError.ofCode(p.errorCode());
                    final ByteBuffer bytes = error == ReplicaError.NONE && p.records() instanceof MemoryRecords r
                        ? r.buffer() : null;
                    consumed(tp, offset, leaderId, error, p == null ? -1 : p.highWatermark(), bytes, answered);
                }));
            return true;
        }
        send(CLIENT, leaderId, "consume", consumerLinks, () -> {
            final Node leader = nodes.get(leaderId);
            final FetchRequest request = new FetchRequest(FetchRequest.CONSUMER_REPLICA_ID, -1, 0, 1, 64 << 10,
                List.of(new PartitionFetch(tp, epoch, offset, -1, -1, -1, 64 << 10)));
            leader.replicas.fetch(request).whenComplete((results, failure) -> {
                final ReadResult r = failure == null ? results.get(0) : null;
                final ReplicaError error = r == null ? null : r.error();
                final ByteBuffer bytes = r == null || error != ReplicaError.NONE ? null : bytesOf(r.records());
                final long highWatermark = r == null ? -1 : r.highWatermark();
                send(leaderId, CLIENT, "consume-answer", consumerLinks,
                    () -> consumed(tp, offset, leaderId, error, highWatermark, bytes, answered));
            });
        });
        return true;
    }

    /**
     * A consumer's answer at the client: an out-of-range answer below every high watermark it was shown is a loss;
     * every record read is remembered, and an offset read twice must hold the same record.
     *
     * @param error         the partition's error, or null when the request failed
     * @param highWatermark the leader's, for reports
     * @param bytes         the records read (null for none)
     */
    private void consumed(final TopicPartition tp, final long offset, final int leaderId, final ReplicaError error,
                          final long highWatermark, final ByteBuffer bytes,
                          final java.util.function.LongConsumer answered) {
        if (error != ReplicaError.NONE) {
            if (error == ReplicaError.OFFSET_OUT_OF_RANGE) {
                throw new ReplicationInvariants.Violation("consume " + tp, "a consumer at offset "
                    + offset + ", below every high watermark it was shown, is out of range on leader "
                    + leaderId + " (high watermark " + highWatermark + "): records it may have read"
                    + " are gone" + describe());
            }
            answered.accept(-1);
            return;
        }
        long next = offset;
        if (bytes != null) {
            for (final LogBatch batch : Records.batches(bytes)) {
                for (final LogRecord record : batch.records()) {
                    if (record.offset() < offset) {
                        continue; // the first batch starts before the offset asked for
                    }
                    final long digest = record.value() == null ? 0 : digest(record.value());
                    final Long before = consumed.computeIfAbsent(tp, k -> new TreeMap<>())
                        .put(record.offset(), digest);
                    if (before != null && before != digest) {
                        throw new ReplicationInvariants.Violation("consume " + tp, "a consumer read"
                            + " offset " + record.offset() + " twice and found another record the second"
                            + " time (from leader " + leaderId + "): a record below a high watermark"
                            + " was replaced" + describe());
                    }
                    consumedCount++;
                    next = record.offset() + 1;
                }
            }
        }
        answered.accept(next);
    }

    /** Frames the simulated network carried as bytes (0 without {@link Settings#wire()}). */
    long wireFrames() {
        return net.frames();
    }

    long consumedCount() {
        return consumedCount;
    }

    /**
     * Records an acknowledgement. An offset acknowledged before with another record is an acknowledged record lost
     * (truncated away, and the offset reused): a violation at once, since the end check keeps one record per offset.
     */
    private void acknowledge(final TopicPartition tp, final long offset, final long digest, final String value) {
        final Map<Long, String> values = acknowledgedValues.computeIfAbsent(tp, k -> new HashMap<>());
        final Long before = acknowledged.computeIfAbsent(tp, k -> new TreeMap<>()).put(offset, digest);
        final String earlier = values.put(offset, value);
        if (!TOPIC.equals(tp.topic())) {
            createdTopicAcks++;
        }
        if (before != null && before != digest) {
            throw new ReplicationInvariants.Violation("acknowledgement " + tp, "offset " + offset + " was acknowledged"
                + " for " + earlier + " and now for " + value + ": the first acknowledged record was lost"
                + describe() + "\nthe idempotent producers' last answers: " + idempotentTrace.subList(Math.max(0,
                idempotentTrace.size() - 40), idempotentTrace.size()));
        }
    }

    /**
     * InitProducerId (no transactional id) to a broker: it hands out an id from the block it reserved in ZooKeeper, or
     * none while it is reserving one. An id handed out twice, by any brokers, fails at once.
     *
     * @param brokerId the broker asked
     * @param answered the id, or {@code ProducerIdSource.NONE_AVAILABLE}; not called when the request or answer is lost
     */
    void initProducerId(final int brokerId, final java.util.function.LongConsumer answered) {
        if (settings.wire()) {
            final InitProducerIdRequestData data = new InitProducerIdRequestData().setTransactionalId(null)
                .setTransactionTimeoutMs(-1).setProducerId(-1).setProducerEpoch((short) -1);
            client("init-producer-id", brokerId, sim.random())
                .send(ApiKeys.INIT_PRODUCER_ID, INIT_PRODUCER_ID_VERSION, data)
                .whenComplete((m, failure) -> {
                    if (failure == null) {
                        final InitProducerIdResponseData r = (InitProducerIdResponseData) m;
                        final long id = r.errorCode() == 0 ? r.producerId() : ProducerIdSource.NONE_AVAILABLE;
                        sim.execute("init-producer-id-answer", CLIENT, () -> answered.accept(id));
                    }
                });
            return;
        }
        send(CLIENT, brokerId, "init-producer-id", () -> {
            final Node n = nodes.get(brokerId);
            final long id = SimBrokerParts.producerIds(n.broker).nextProducerId(); // the broker records it
            send(brokerId, CLIENT, "init-producer-id-answer", () -> answered.accept(id));
        });
    }

    /** FindCoordinator v4 (batched keys), OffsetCommit v8 and OffsetFetch v7, as kafka-clients 3.x sends them. */
    private static final short FIND_COORDINATOR_VERSION = 4;
    private static final short OFFSET_COMMIT_VERSION = 8;
    private static final short OFFSET_FETCH_VERSION = 7;

    /**
     * A client asks a broker for a group's coordinator (the broker creates the offsets topic if it is missing).
     *
     * @param clientId the client (its own connection)
     * @param brokerId the broker asked
     * @param group    the group
     * @param answered the error and the coordinator's id (-1 with an error); not called when the answer is lost
     */
    void findCoordinator(final String clientId, final int brokerId, final String group,
                         final java.util.function.BiConsumer<Errors, Integer> answered) {
        final FindCoordinatorRequestData data = new FindCoordinatorRequestData().setKeyType((byte) 0)
            .setCoordinatorKeys(List.of(group));
        request(clientId, brokerId, ApiKeys.FIND_COORDINATOR, FIND_COORDINATOR_VERSION, data, "find-coordinator", m -> {
            final FindCoordinatorResponseData.Coordinator c = ((FindCoordinatorResponseData) m).coordinators()
                .stream().filter(x -> x.key().equals(group)).findFirst().orElseThrow(() -> new ReplicationInvariants
                    .Violation("find-coordinator", "broker " + brokerId + " answered a FindCoordinator for " + group
                        + " without it: " + m));
            answered.accept(Errors.forCode(c.errorCode()), c.nodeId());
        });
    }

    /**
     * A standalone consumer's OffsetCommit (generation -1, no member id, as {@code KafkaConsumer.assign} users commit)
     * of one partition's offset.
     *
     * @param clientId    the client
     * @param coordinator the broker it takes for the coordinator
     * @param group       the group
     * @param tp          the partition
     * @param offset      the offset committed
     * @param answered    the partition's error; not called when the answer is lost
     */
    void commitOffset(final String clientId, final int coordinator, final String group, final TopicPartition tp,
                      final long offset, final java.util.function.Consumer<Errors> answered) {
        final OffsetCommitRequestData data = new OffsetCommitRequestData().setGroupId(group).setGenerationIdOrMemberEpoch(-1)
            .setMemberId("").setGroupInstanceId(null).setTopics(List.of(new OffsetCommitRequestData.OffsetCommitRequestTopic()
                .setName(tp.topic()).setPartitions(List.of(new OffsetCommitRequestData.OffsetCommitRequestPartition()
                    .setPartitionIndex(tp.partition()).setCommittedOffset(offset).setCommittedLeaderEpoch(-1)
                    .setCommittedMetadata("")))));
        request(clientId, coordinator, ApiKeys.OFFSET_COMMIT, OFFSET_COMMIT_VERSION, data, "offset-commit", m ->
            answered.accept(((OffsetCommitResponseData) m).topics().stream()
                .filter(t -> t.name().equals(tp.topic())).flatMap(t -> t.partitions().stream())
                .filter(p -> p.partitionIndex() == tp.partition()).findFirst()
                .map(p -> Errors.forCode(p.errorCode())).orElseThrow(() -> new ReplicationInvariants.Violation(
                    "offset-commit", "broker " + coordinator + " answered an OffsetCommit of " + group + " " + tp
                        + " without it: " + m))));
    }

    /**
     * A consumer's OffsetFetch of one partition's committed offset.
     *
     * @param clientId    the client
     * @param coordinator the broker it takes for the coordinator
     * @param group       the group
     * @param tp          the partition
     * @param answered    the error (the group's, else the partition's) and the offset (-1: none committed); not
     *                    called when the answer is lost
     */
    void fetchOffset(final String clientId, final int coordinator, final String group, final TopicPartition tp,
                     final java.util.function.BiConsumer<Errors, Long> answered) {
        final OffsetFetchRequestData data = new OffsetFetchRequestData().setGroupId(group).setRequireStable(false)
            .setTopics(List.of(new OffsetFetchRequestData.OffsetFetchRequestTopic().setName(tp.topic())
                .setPartitionIndexes(List.of(tp.partition()))));
        request(clientId, coordinator, ApiKeys.OFFSET_FETCH, OFFSET_FETCH_VERSION, data, "offset-fetch", m -> {
            final OffsetFetchResponseData r = (OffsetFetchResponseData) m;
            final OffsetFetchResponseData.OffsetFetchResponsePartition p = r.topics().stream()
                .filter(t -> t.name().equals(tp.topic())).flatMap(t -> t.partitions().stream())
                .filter(x -> x.partitionIndex() == tp.partition()).findFirst().orElse(null);
            if (r.errorCode() == 0 && p == null) {
                throw new ReplicationInvariants.Violation("offset-fetch", "broker " + coordinator
                    + " answered an OffsetFetch of " + group + " " + tp + " without it: " + m);
            }
            final Errors error = r.errorCode() != 0 ? Errors.forCode(r.errorCode()) : Errors.forCode(p.errorCode());
            answered.accept(error, error == Errors.NONE ? p.committedOffset() : -1);
        });
    }

    /**
     * A client's request to a broker over the simulated TCP, answered at the client as an event (a violation thrown
     * by {@code answered} fails the run there).
     *
     * @param clientId the client (its own connection to each broker)
     * @param brokerId the broker
     * @param api      the API
     * @param version  its version
     * @param data     the request
     * @param what     names the answer's event ({@code <what>-answer})
     * @param answered the response; not called when the request or its answer is lost
     */
    void request(final String clientId, final int brokerId, final ApiKeys api, final short version,
                 final org.apache.kafka.common.protocol.ApiMessage data, final String what,
                 final java.util.function.Consumer<org.apache.kafka.common.protocol.ApiMessage> answered) {
        client(clientId, brokerId, adminLinks).send(api, version, data).whenComplete((m, failure) -> {
            if (failure == null) {
                sim.execute(what + "-answer", CLIENT, () -> answered.accept(m));
            }
        });
    }

    long producerIdsHandedOut() {
        return producerIdsHandedOut.size();
    }

    /** The value prefix of an idempotent producer's records: {@code idem-<producer id>-<sequence>}. */
    static final String IDEMPOTENT = "idem-";

    /**
     * An idempotent producer's attempt at one batch of one record, with its producer id, epoch 0 and the batch's
     * sequence, to the partition's leader as ZooKeeper names it. The answer reaches {@code answered} at the client
     * unless the request or its answer is lost (a crash, a cut link), which the producer's request timeout covers;
     * an answer without an error is an acknowledgement (a retried batch the leader already holds is answered with its
     * first offsets).
     *
     * @param tp         the partition
     * @param producerId the producer id
     * @param sequence   the batch's sequence
     * @param answered   the result at the client (null when the leader's answer was an exception)
     * @return whether it was sent (ZooKeeper names a leader)
     */
    boolean produceIdempotent(final TopicPartition tp, final long producerId, final int sequence,
                           final java.util.function.Consumer<AppendResult> answered) {
        final Optional<ReplicationInvariants.ZkPartition> state = zkState(tp);
        if (state.isEmpty() || state.get().leader() < 0) {
            return false;
        }
        final int leaderId = state.get().leader();
        final byte[] bytes = idempotentValue(producerId, sequence).getBytes(StandardCharsets.UTF_8);
        final long digest = digest(ByteBuffer.wrap(bytes));
        produced++;
        if (settings.wire()) {
            final UnsafeBuffer buffer = new UnsafeBuffer(new byte[256]);
            final RecordBatchBuilder builder = new RecordBatchBuilder().wrap(buffer, 0, buffer.capacity())
                .producer(producerId, (short) 0, sequence);
            builder.appendRecord(sim.clock().wallMs(), null, bytes);
            final ByteBuffer batch = ByteBuffer.wrap(buffer.byteArray(), 0, builder.build()).slice();
            client(idempotentClientId(producerId), leaderId, sim.random())
                .send(ApiKeys.PRODUCE, PRODUCE_VERSION, produceRequest(tp, (short) -1, batch))
                .whenComplete((m, failure) -> sim.execute("produce-idempotent-answer", CLIENT, () -> {
                    final ProduceResponseData.PartitionProduceResponse p = failure == null
                        ? partitionOf((ProduceResponseData) m) : null;
                    final AppendResult r = p == null ? null : p.errorCode() != 0
                        ? AppendResult.error(ReplicaError.ofCode(p.errorCode()), p.errorMessage())
                        : new AppendResult(ReplicaError.NONE, null, p.baseOffset(), -1, p.logAppendTimeMs(),
                            p.logStartOffset(), null, -1);
                    idempotentAnswer(tp, producerId, sequence, leaderId, digest, r, failure, answered);
                }));
            return true;
        }
        send(CLIENT, leaderId, "produce-idempotent", () -> {
            final Node leader = nodes.get(leaderId);
            final UnsafeBuffer buffer = new UnsafeBuffer(new byte[256]);
            final RecordBatchBuilder builder = new RecordBatchBuilder().wrap(buffer, 0, buffer.capacity())
                .producer(producerId, (short) 0, sequence);
            builder.appendRecord(sim.clock().wallMs(), null, bytes);
            final ByteBuffer batch = ByteBuffer.wrap(buffer.byteArray(), 0, builder.build()).slice();
            leader.replicas.produce((short) -1, 5_000, Map.of(tp, batch)).whenComplete((results, failure) ->
                send(leaderId, CLIENT, "produce-idempotent-answer", () -> idempotentAnswer(tp, producerId,
                    sequence, leaderId, digest, failure == null ? results.get(tp) : null, failure, answered)));
        });
        return true;
    }

    /** An idempotent producer's answer at the client: an acknowledgement, or an error the producer acts on. */
    private void idempotentAnswer(final TopicPartition tp, final long producerId, final int sequence,
                                  final int leaderId, final long digest, final AppendResult r, final Throwable failure,
                                  final java.util.function.Consumer<AppendResult> answered) {
        idempotentTrace.add(sim.nowMs() + " " + tp + " producer " + producerId + " seq " + sequence + " leader "
            + leaderId + " -> " + (r == null ? String.valueOf(failure) : r.error() + "@" + r.baseOffset() + " epoch "
            + r.leaderEpoch()));
        if (r == null || r.error() != ReplicaError.NONE) {
            producerErrors++;
        } else {
            acknowledgements++;
            acknowledge(tp, r.baseOffset(), digest, idempotentValue(producerId, sequence));
        }
        answered.accept(r);
    }

    /** A Produce request of one batch to one partition. */
    private static ProduceRequestData produceRequest(final TopicPartition tp, final short acks, final ByteBuffer batch) {
        final ProduceRequestData data = new ProduceRequestData().setAcks(acks).setTimeoutMs(5_000);
        data.topicData().add(new ProduceRequestData.TopicProduceData().setName(tp.topic()).setPartitionData(List.of(
            new ProduceRequestData.PartitionProduceData().setIndex(tp.partition())
                .setRecords(MemoryRecords.readableRecords(batch)))));
        return data;
    }

    /** The one partition's answer of a Produce of one partition, or null when the answer names another shape. */
    private static ProduceResponseData.PartitionProduceResponse partitionOf(final ProduceResponseData response) {
        if (response.responses().size() != 1) {
            return null;
        }
        final List<ProduceResponseData.PartitionProduceResponse> parts = response.responses().iterator().next()
            .partitionResponses();
        return parts.size() == 1 ? parts.get(0) : null;
    }

    /**
     * Where each running replica holds an idempotent producer's batches from a sequence on, for a report.
     *
     * @param tp         the partition
     * @param producerId the producer
     * @param from       the first sequence of interest
     * @return one line per running replica: its high watermark, log end and the offsets of those sequences
     */
    String locateIdempotent(final TopicPartition tp, final long producerId, final int from) {
        final StringBuilder out = new StringBuilder();
        for (int sequence = from; sequence < from + 4; sequence++) {
            final long digest = digest(ByteBuffer.wrap(idempotentValue(producerId, sequence)
                .getBytes(StandardCharsets.UTF_8)));
            final int seq = sequence;
            acknowledged.getOrDefault(tp, Map.of()).forEach((offset, d) -> {
                if (d == digest) {
                    out.append("\n  sequence ").append(seq).append(" was acknowledged at offset ").append(offset);
                }
            });
        }
        for (final Node n : nodes.values()) {
            if (!n.up) {
                continue;
            }
            n.replicas.partition(tp).ifPresent(p -> {
                final PartitionLog log = p.log();
                out.append("\n  broker ").append(n.id).append(p.isLeader() ? " leader" : " follower").append(" hw=")
                    .append(log.highWatermark()).append(" leo=").append(log.logEndOffset()).append(":");
                final LogSlice slice = log.read(log.logStartOffset(), Integer.MAX_VALUE, Long.MAX_VALUE, true);
                if (slice == null) {
                    return;
                }
                final String prefix = IDEMPOTENT + producerId + "-";
                for (final LogBatch batch : Records.batches(slice)) {
                    for (final LogRecord record : batch.records()) {
                        final String value = record.value() == null ? ""
                            : StandardCharsets.UTF_8.decode(record.value().duplicate()).toString();
                        if (value.startsWith(prefix) && Integer.parseInt(value.substring(prefix.length())) >= from) {
                            out.append(' ').append(value.substring(prefix.length())).append('@').append(record.offset())
                                .append("/e").append(batch.partitionLeaderEpoch());
                        }
                    }
                }
            });
        }
        return out.toString();
    }

    static String idempotentValue(final long producerId, final int sequence) {
        return IDEMPOTENT + producerId + "-" + sequence;
    }

    /**
     * Every replica's log holds each idempotent batch at most once, and each producer's sequences in the order they
     * were sent: a retry the leader did not recognise as a duplicate would be there twice.
     */
    void checkIdempotence() {
        for (final TopicPartition tp : partitions) {
            for (final Node n : nodes.values()) {
                if (!n.up) {
                    continue;
                }
                final Optional<Partition> p = n.replicas.partition(tp);
                if (p.isEmpty()) {
                    continue;
                }
                final PartitionLog log = p.get().log();
                final LogSlice slice = log.read(log.logStartOffset(), Integer.MAX_VALUE, Long.MAX_VALUE, true);
                if (slice == null) {
                    continue;
                }
                final Map<Long, String> values = new TreeMap<>();
                for (final LogBatch batch : Records.batches(slice)) {
                    for (final LogRecord record : batch.records()) {
                        if (record.value() != null) {
                            values.put(record.offset(),
                                StandardCharsets.UTF_8.decode(record.value().duplicate()).toString());
                        }
                    }
                }
                try {
                    ReplicationInvariants.checkIdempotent(tp + " on broker " + n.id, IDEMPOTENT, values);
                } catch (final ReplicationInvariants.Violation v) {
                    throw v.with(describe());
                }
            }
        }
    }

    private static long digest(final ByteBuffer value) {
        final CRC32 crc = new CRC32();
        crc.update(value.duplicate());
        return crc.getValue();
    }

    // ------------------------------------------------------------------------------------------------ checks

    /** A partition state znode as last parsed, with the stat it was parsed at (the checks read it after each event). */
    private record ParsedState(long czxid, int version, PartitionStateZnode state) {
    }

    private final Map<TopicPartition, ParsedState> parsedStates = new HashMap<>();

    private Optional<ParsedState> partitionState(final TopicPartition tp) {
        final Optional<ZkNode> node = zk.peek(ZkPaths.partitionStatePath(tp.topic(), tp.partition()));
        if (node.isEmpty()) {
            return Optional.empty();
        }
        final ParsedState cached = parsedStates.get(tp);
        if (cached != null && cached.czxid() == node.get().stat().czxid()
            && cached.version() == node.get().stat().version()) {
            return Optional.of(cached);
        }
        try {
            final ParsedState parsed = new ParsedState(node.get().stat().czxid(), node.get().stat().version(),
                PartitionStateZnode.fromJson(node.get().data(), node.get().stat().version()));
            parsedStates.put(tp, parsed);
            return Optional.of(parsed);
        } catch (final io.seglog.replication.zk.MalformedZnodeException e) {
            throw new AssertionError("seed=" + sim.seed() + ": malformed partition state of " + tp, e);
        }
    }

    Optional<ReplicationInvariants.ZkPartition> zkState(final TopicPartition tp) {
        return partitionState(tp).map(p -> new ReplicationInvariants.ZkPartition(p.state().leaderAndIsr().leader(),
            p.state().leaderAndIsr().leaderEpoch(), p.state().leaderAndIsr().isr()));
    }

    /**
     * A partition's state is written by controllers in epoch order: a write stamped with an older controller epoch
     * than one before it is a deposed controller's (what the controller-epoch check on writes, KAFKA-6082, stops).
     */
    private void checkWriterEpoch(final String event, final TopicPartition tp) {
        final Optional<ParsedState> parsed = partitionState(tp);
        if (parsed.isEmpty()) {
            return;
        }
        final long version = parsed.get().version();
        final Long seen = stateVersion.put(tp, version);
        if (seen != null && seen == version) {
            return;
        }
        final PartitionStateZnode state = parsed.get().state();
        final int epoch = state.controllerEpoch();
        final int leaderEpoch = state.leaderAndIsr().leaderEpoch();
        final Integer lastLeaderEpoch = stateLeaderEpoch.put(tp, leaderEpoch);
        final int current = zkControllerEpoch();
        if (lastLeaderEpoch != null && leaderEpoch != lastLeaderEpoch && epoch != current) {
            // Only a controller moves the leader epoch, and only the current one may.
            throw new ReplicationInvariants.Violation(event, tp + "'s leader epoch moved from " + lastLeaderEpoch
                + " to " + leaderEpoch + " (leader " + state.leaderAndIsr().leader() + ") in a write of controller epoch "
                + epoch + " while the controller epoch is " + current + " (a deposed controller's election landed)");
        }
        final Integer highest = stateWriterEpoch.get(tp);
        if (highest != null && epoch < highest) {
            throw new ReplicationInvariants.Violation(event, tp + "'s state was written by controller epoch " + epoch
                + " after controller epoch " + highest + " had written it (a deposed controller's write landed)");
        }
        stateWriterEpoch.merge(tp, epoch, Math::max);
    }

    private int zkControllerEpoch() {
        final Optional<ZkNode> node = zk.peek(ZkPaths.CONTROLLER_EPOCH);
        if (node.isEmpty()) {
            return -1;
        }
        if (node.get().stat().version() != controllerEpochVersion) {
            controllerEpochVersion = node.get().stat().version();
            controllerEpoch = Integer.parseInt(new String(node.get().data(), StandardCharsets.US_ASCII).trim());
        }
        return controllerEpoch;
    }

    private int controllerEpochVersion = -1;
    private int controllerEpoch = -1;

    /** After every event: truncations seen since the last one, then the snapshot. */
    private void check(final String event) {
        if (deferredViolation != null) {
            throw deferredViolation;
        }
        if (!checking) {
            return;
        }
        if (!topicsAwaited.isEmpty() || knownTopics.size() > 1) {
            watchTopics(event);
        }
        final Map<TopicPartition, List<ReplicationInvariants.Replica>> replicas = new TreeMap<>(
            ReplicationInvariants.BY_TP);
        final Map<Integer, Integer> controllerEpochs = new TreeMap<>();
        for (final Node n : nodes.values()) {
            if (!n.up) {
                continue;
            }
            controllerEpochs.put(n.id, n.handler.controllerEpoch());
            for (final Partition p : n.replicas.partitions()) {
                final PartitionLog log = p.log();
                final long end = log.logEndOffset();
                final Long before = n.lastLogEnd.put(p.topicPartition(), end);
                if (before != null && end < before) {
                    invariants.truncated(event, n.id, p.topicPartition(), end);
                }
                replicas.computeIfAbsent(p.topicPartition(), k -> new ArrayList<>()).add(
                    new ReplicationInvariants.Replica(n.id, p.isLeader(), p.leaderEpoch(), log.highWatermark(), end));
            }
        }
        final Map<TopicPartition, ReplicationInvariants.ZkPartition> states = new TreeMap<>(
            ReplicationInvariants.BY_TP);
        for (final TopicPartition tp : partitions) {
            zkState(tp).ifPresent(s -> states.put(tp, s));
            checkWriterEpoch(event, tp);
        }
        if (DEBUG_TP != null) {
            final String line = states.get(DEBUG_TP) + " " + replicas.get(DEBUG_TP);
            if (!line.equals(debugLast)) {
                debugLast = line;
                System.out.println("DEBUG " + sim.nowMs() + " " + event + " :: " + line);
            }
        }
        invariants.observe(new ReplicationInvariants.Snapshot(event, replicas, states, zkControllerEpoch(),
            controllerEpochs));
    }

    /**
     * Heals the cluster (faults end, links restored, every broker running) and runs until every partition has its whole
     * assignment in the ISR and every replica at the leader's high watermark, or a deadline.
     *
     * @param withinMs how long to wait
     * @return whether it converged
     */
    boolean healAndSettle(final long withinMs) {
        healing = true;
        healLinks();
        for (final Node n : nodes.values()) {
            if (n.up && n.diskFull) {
                // The operator frees the space and restarts the broker, whose log directory went offline.
                crashNow(n, false);
            }
        }
        nodes.keySet().forEach(this::restart);
        return sim.runUntil(this::settled, sim.nowMs() + withinMs);
    }

    /**
     * What every partition looks like now: ZooKeeper's state and each running replica's, for a report.
     *
     * @return one line per partition
     */
    String describe() {
        final StringBuilder out = new StringBuilder();
        out.append("\ncontroller znode=").append(zk.peek(ZkPaths.CONTROLLER).map(z -> new String(z.data(),
            StandardCharsets.UTF_8)).orElse("none")).append(" owner session=").append(zk.peek(ZkPaths.CONTROLLER)
            .map(z -> z.stat().ephemeralOwner()).orElse(0L)).append(" epoch=").append(zkControllerEpoch());
        for (final Node n : nodes.values()) {
            out.append("\nbroker ").append(n.id).append(n.up ? " up" : " down").append(sim.paused(n.id) ? " paused" : "")
                .append(" registered=").append(zk.peek(ZkPaths.brokerPath(n.id)).isPresent());
            if (n.up) {
                out.append(" active=").append(n.controller.isActive()).append(" brokerEpoch=")
                    .append(n.handler.brokerEpoch()).append(" knownControllerEpoch=")
                    .append(n.handler.controllerEpoch()).append(" session=").append(n.zk.serverSessionId())
                    .append(" alive=").append(zk.isAlive(n.zk.serverSessionId()));
            }
        }
        for (final TopicPartition tp : partitions) {
            out.append('\n').append(tp).append(" zk=").append(zkState(tp).orElse(null));
            for (final Node n : nodes.values()) {
                if (!n.up) {
                    out.append(" | ").append(n.id).append(" down");
                    continue;
                }
                n.replicas.partition(tp).ifPresent(p -> out.append(" | ").append(n.id)
                    .append(p.isLeader() ? " leader" : " follower").append(" epoch=").append(p.leaderEpoch())
                    .append(" start=").append(p.log().logStartOffset())
                    .append(" hw=").append(p.log().highWatermark()).append(" leo=").append(p.log().logEndOffset())
                    .append(" epochs=").append(p.log().leaderEpochs()));
            }
        }
        for (final String topic : new TreeSet<>(partitions.stream().map(TopicPartition::topic).toList())) {
            assignment(topic).ifPresent(a -> out.append("\nassignment ").append(topic).append(' ').append(a.partitions())
                .append(" adding ").append(a.addingReplicas()).append(" removing ").append(a.removingReplicas()));
        }
        if (!creationsUnanswered.isEmpty()) {
            out.append("\ntopic creations unanswered ").append(creationsUnanswered).append(" not in ZooKeeper yet ")
                .append(topicsAwaited);
        }
        zk.peek(ZkPaths.REASSIGN).ifPresent(r -> out.append("\npending reassignment ")
            .append(new String(r.data(), StandardCharsets.UTF_8)));
        return out.toString();
    }

    private boolean settled() {
        if (nodes.values().stream().anyMatch(n -> !n.up)) {
            return false;
        }
        if (zk.peek(ZkPaths.REASSIGN).isPresent() || !creationsUnanswered.isEmpty()) {
            return false;
        }
        final Map<String, Optional<TopicAssignmentZnode>> assignments = new TreeMap<>();
        for (final TopicPartition tp : partitions) {
            final Optional<TopicAssignmentZnode> assignment = assignments.computeIfAbsent(tp.topic(), this::assignment);
            if (assignment.isEmpty()) {
                return false;
            }
            final Optional<ReplicationInvariants.ZkPartition> z = zkState(tp);
            final List<Integer> replicas = assignment.get().partitions().get(tp.partition());
            if (z.isEmpty() || z.get().leader() < 0 || replicas == null
                || assignment.get().addingReplicas().containsKey(tp.partition())
                || assignment.get().removingReplicas().containsKey(tp.partition())
                || !new TreeSet<>(z.get().isr()).equals(new TreeSet<>(replicas))) {
                return false;
            }
            final Node leader = nodes.get(z.get().leader());
            final Optional<Partition> lp = leader.replicas.partition(tp);
            if (lp.isEmpty() || !lp.get().isLeader()) {
                return false;
            }
            final long hw = lp.get().log().highWatermark();
            if (hw != lp.get().log().logEndOffset()) {
                return false;
            }
            for (final int member : z.get().isr()) {
                final Optional<Partition> rp = nodes.get(member).replicas.partition(tp);
                if (rp.isEmpty() || rp.get().log().logEndOffset() != hw) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * After a cluster failed to settle: whether a replica holds, at an offset the leader has too, another record than
     * the leader's (logs that diverged and never came back together, long after every fault healed), which is a
     * violation; otherwise the failure to settle is one of liveness.
     *
     * @throws ReplicationInvariants.Violation naming the partition, the replica and the offset
     */
    void checkNoDivergence() {
        for (final TopicPartition tp : partitions) {
            final Optional<ReplicationInvariants.ZkPartition> z = zkState(tp);
            if (z.isEmpty() || z.get().leader() < 0 || !nodes.get(z.get().leader()).up) {
                continue;
            }
            final Node leader = nodes.get(z.get().leader());
            final Optional<Partition> lp = leader.replicas.partition(tp);
            if (lp.isEmpty() || !lp.get().isLeader()) {
                continue;
            }
            final long hw = lp.get().log().highWatermark();
            final Map<Long, Long> leaderRecords = recordDigests(lp.get().log());
            for (final Node n : nodes.values()) {
                if (n == leader || !n.up) {
                    continue;
                }
                final Optional<Partition> rp = n.replicas.partition(tp);
                if (rp.isEmpty()) {
                    continue;
                }
                for (final Map.Entry<Long, Long> e : recordDigests(rp.get().log()).entrySet()) {
                    if (leaderRecords.containsKey(e.getKey()) && !leaderRecords.get(e.getKey()).equals(e.getValue())) {
                        throw new ReplicationInvariants.Violation("healing", tp + ": replica " + n.id + " holds "
                            + "another record than leader " + leader.id + " at offset " + e.getKey() + " (high watermark "
                            + hw + ") and the two logs never settled: " + describe());
                    }
                }
            }
        }
    }

    /**
     * The end-of-run checks: every acknowledged record on every ISR member, ISR members identical below the high
     * watermark, no offset with two values.
     */
    void checkEnd() {
        final Map<TopicPartition, Map<Integer, Map<Long, Long>>> logs = new TreeMap<>(ReplicationInvariants.BY_TP);
        final Map<TopicPartition, List<Integer>> isr = new TreeMap<>(ReplicationInvariants.BY_TP);
        final Map<TopicPartition, Long> hw = new TreeMap<>(ReplicationInvariants.BY_TP);
        for (final TopicPartition tp : partitions) {
            final Optional<ReplicationInvariants.ZkPartition> z = zkState(tp);
            if (z.isEmpty()) {
                continue;
            }
            isr.put(tp, z.get().isr());
            final Node leader = nodes.get(z.get().leader());
            if (leader != null && leader.up) {
                leader.replicas.partition(tp).ifPresent(p -> hw.put(tp, p.log().highWatermark()));
            }
            for (final Node n : nodes.values()) {
                if (n.up) {
                    n.replicas.partition(tp).ifPresent(p -> logs.computeIfAbsent(tp, k -> new TreeMap<>())
                        .put(n.id, recordDigests(p.log())));
                }
            }
        }
        checkIdempotence();
        // What a consumer read counts as acknowledged: it lay below a high watermark, so it must survive too.
        final Map<TopicPartition, Map<Long, Long>> mustSurvive = new TreeMap<>(ReplicationInvariants.BY_TP);
        acknowledged.forEach((tp, m) -> mustSurvive.put(tp, new TreeMap<>(m)));
        consumed.forEach((tp, m) -> m.forEach((offset, digest) -> {
            final Long acked = mustSurvive.computeIfAbsent(tp, k -> new TreeMap<>()).putIfAbsent(offset, digest);
            if (acked != null && !acked.equals(digest)) {
                throw new ReplicationInvariants.Violation("the end", tp + ": a consumer read offset " + offset
                    + " as another record than the one acknowledged there" + describe());
            }
        }));
        try {
            ReplicationInvariants.checkEnd(mustSurvive, logs, isr, hw);
        } catch (final ReplicationInvariants.Violation v) {
            throw v.with(describe());
        }
    }

    private static Map<Long, Long> recordDigests(final PartitionLog log) {
        final Map<Long, Long> out = new TreeMap<>();
        final LogSlice slice = log.read(log.logStartOffset(), Integer.MAX_VALUE, Long.MAX_VALUE, true);
        if (slice == null) {
            return out;
        }
        for (final LogBatch batch : Records.batches(slice)) {
            for (final LogRecord record : batch.records()) {
                out.put(record.offset(), record.value() == null ? 0 : digest(record.value()));
            }
        }
        return out;
    }

    @Override
    public void close() {
        checking = false;
        for (final Node n : nodes.values()) {
            if (n.up) {
                n.up = false;
                quietly(n.broker::close);
                quietly(n.storage::close);
            }
        }
    }
}
