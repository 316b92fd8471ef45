package io.seglog.replication.wire;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.seglog.replication.election.LeaderAndIsr;
import io.seglog.replication.replica.IsrWriter;
import io.seglog.replication.replica.ReplicaManager;
import io.seglog.replication.replica.ReplicaManagerConfig;
import io.seglog.replication.transport.LiveBroker;
import io.seglog.replication.transport.PartitionStateInfo;
import io.seglog.storage.LogManager;
import io.seglog.storage.LogManagerConfig;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.TopicId;
import io.seglog.storage.TopicPartition;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.agrona.CloseHelper;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Test fixture: broker 1's Kafka APIs ({@link KafkaApis}) served by a {@link KafkaWireServer} on loopback, over a real
 * {@link ReplicaManager} and {@link LogManager} in a directory the test owns. Time is a monotonic clock the test moves
 * ({@link #clockMs}); ISR changes are recorded ({@link #proposals}) and written at once; the metadata cache is filled
 * by {@link #lead}, each topic with the id {@link #topicId} gives it; broker 1 follows nothing, so opening a leader endpoint fails the test.
 *
 * <p>Owns everything it opens, and {@link #close()} closes it in reverse order: the clients, their event loop, the
 * server, the replica manager, the log manager. A constructor that fails closes what it had opened.
 */
final class KafkaApisBroker implements AutoCloseable {
    static final int BROKER = 1;
    static final int CONTROLLER_EPOCH = 7;
    static final String CLUSTER_ID = "seglog-apis-test";
    private static final AtomicInteger THREAD_IDS = new AtomicInteger();
    private static final ThreadFactory THREADS = task -> {
        final Thread thread = new Thread(task, "kafka-apis-test-" + THREAD_IDS.incrementAndGet());
        thread.setDaemon(true);
        return thread;
    };

    /** The broker's monotonic clock (the replica layer's: request deadlines, follower lag). */
    final AtomicLong clockMs = new AtomicLong(1_000);
    /** The next producer id InitProducerId hands out; negative: none at hand (the next block still coming). */
    final AtomicLong nextProducerId = new AtomicLong(0);
    /** The ISR changes the leaders proposed, in order. */
    final List<IsrWriter.Proposal> proposals = new CopyOnWriteArrayList<>();
    /** The versions each API was asked at, as the server decoded them (what a client negotiated). */
    final Map<ApiKeys, Set<Short>> versionsSeen = new ConcurrentHashMap<>();
    final LogManager logs;
    final ReplicaManager replicas;
    final KafkaWireServer server;
    private final MutableClusterView cluster = new MutableClusterView();
    private final EventLoopGroup clientLoop;
    private final List<WireClient> clients = new CopyOnWriteArrayList<>();
    private boolean closed;

    /** The metadata cache, filled by {@link #lead}. */
    private static final class MutableClusterView implements ClusterView {
        private final Map<TopicPartition, PartitionStateInfo> partitions = new ConcurrentHashMap<>();
        private volatile Map<Integer, LiveBroker> live = Map.of();

        @Override
        public String clusterId() {
            return CLUSTER_ID;
        }

        @Override
        public int controllerId() {
            return BROKER;
        }

        @Override
        public Map<Integer, LiveBroker> liveBrokers() {
            return live;
        }

        @Override
        public Map<TopicPartition, PartitionStateInfo> partitions() {
            return Map.copyOf(partitions);
        }
    }

    KafkaApisBroker(final Path dir) {
        final List<AutoCloseable> opened = new ArrayList<>();
        try {
            logs = LogManager.open(LogManagerConfig.builder().logDirs(dir).build());
            opened.add(logs);
            final IsrWriter isrWriter = (tp, proposal) -> {
                proposals.add(proposal);
                return CompletableFuture.completedFuture(new IsrWriter.Written(proposal.partitionEpoch() + 1));
            };
            replicas = new ReplicaManager(BROKER, logs, ReplicaManagerConfig.defaults(), clockMs::get, () -> 1L,
                isrWriter, id -> true, (id, host, port) -> {
                    throw new AssertionError("broker " + BROKER + " follows nothing, yet a fetcher asked for " + id);
                }, THREADS);
            opened.add(0, replicas);
            server = KafkaWireServer.start(new WireServerConfig("127.0.0.1", 0,
                WireServerConfig.DEFAULT_MAX_REQUEST_BYTES), recording(new KafkaApis(BROKER, replicas, cluster,
                KafkaApis.TopicCreator.NONE, () -> nextProducerId.get() < 0 ? ProducerIdSource.NONE_AVAILABLE
                : nextProducerId.getAndIncrement()).apis()), 1, THREADS);
            opened.add(0, server);
            cluster.live = Map.of(BROKER, new LiveBroker(BROKER, 1L, "127.0.0.1", server.address().getPort(),
                Optional.empty()));
            clientLoop = new NioEventLoopGroup(1, THREADS);
        } catch (final RuntimeException | Error e) {
            CloseHelper.quietCloseAll(opened);
            throw e;
        }
    }

    /** The same APIs, each noting the version of every request it answers in {@link #versionsSeen}. */
    private List<KafkaApi> recording(final List<KafkaApi> apis) {
        final List<KafkaApi> wrapped = new ArrayList<>();
        for (final KafkaApi api : apis) {
            wrapped.add(new KafkaApi(api.key(), api.minVersion(), api.maxVersion(), request -> {
                versionsSeen.computeIfAbsent(api.key(), k -> new ConcurrentSkipListSet<>()).add(request.version());
                return api.handler().handle(request);
            }));
        }
        return wrapped;
    }

    /**
     * A client of this broker, closed with it.
     *
     * @return the client (it connects at its first request)
     */
    WireClient newClient() {
        final WireClient client = new WireClient(clientLoop, "127.0.0.1", server.address().getPort(), "apis-test",
            64 << 20, 10_000);
        clients.add(client);
        return client;
    }

    /**
     * Makes broker 1 the leader: a LeaderAndIsr to the replica layer, and the same state in the metadata cache.
     *
     * @param tp          the partition
     * @param leaderEpoch the leader epoch
     * @param assignment  the replicas
     * @param isr         the ISR
     */
    void lead(final TopicPartition tp, final int leaderEpoch, final List<Integer> assignment,
              final List<Integer> isr) {
        final PartitionStateInfo state = new PartitionStateInfo(CONTROLLER_EPOCH,
            new LeaderAndIsr(BROKER, leaderEpoch, isr, 0), assignment, true, topicId(tp.topic()));
        replicas.onLeaderAndIsr(Map.of(tp, state), Map.of());
        cluster.partitions.put(tp, state);
    }

    /**
     * Puts a state in the metadata cache only (an UpdateMetadata), leaving the replica layer as it is.
     *
     * @param tp    the partition
     * @param state its state
     */
    void describe(final TopicPartition tp, final PartitionStateInfo state) {
        cluster.partitions.put(tp, state);
    }

    /**
     * The topic id this fixture gives a topic: fixed by the name, so that a test can name a topic by id without
     * asking (and name an unknown topic's id the same way). Never a reserved id.
     *
     * @param topic the topic
     * @return its id
     */
    static TopicId topicId(final String topic) {
        return new TopicId(0x5e61_0000_0000_0000L | topic.length(), 0x1_0000_0000L | (topic.hashCode() & 0xffff_ffffL));
    }

    /**
     * {@link #topicId} as kafka-clients' messages carry it.
     *
     * @param topic the topic
     * @return its id
     */
    static Uuid uuid(final String topic) {
        final TopicId id = topicId(topic);
        return new Uuid(id.mostSignificantBits(), id.leastSignificantBits());
    }

    /**
     * A hosted partition's log.
     *
     * @param tp the partition
     * @return its log
     */
    PartitionLog log(final TopicPartition tp) {
        return replicas.partition(tp).orElseThrow().log();
    }

    /**
     * A response, within a deadline.
     *
     * @param future the request's future
     * @param <T>    the response type
     * @return the response
     */
    @SuppressWarnings("unchecked")
    static <T extends ApiMessage> T await(final CompletableFuture<ApiMessage> future) {
        try {
            return (T) future.get(30, TimeUnit.SECONDS);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        } catch (final ExecutionException | TimeoutException e) {
            throw new AssertionError(e);
        }
    }

    /** Closes everything, keeping every failure. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        final List<AutoCloseable> all = new ArrayList<>(clients);
        all.add(() -> clientLoop.shutdownGracefully(0, 10, TimeUnit.SECONDS).syncUninterruptibly());
        all.add(server);
        all.add(replicas);
        all.add(logs);
        CloseHelper.closeAll(all);
    }
}
