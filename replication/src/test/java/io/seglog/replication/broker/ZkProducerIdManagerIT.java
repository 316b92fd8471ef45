package io.seglog.replication.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.Await;
import io.seglog.replication.ReplicationConfig;
import io.seglog.replication.wire.ProducerIdSource;
import io.seglog.replication.zk.KafkaZkStore;
import io.seglog.replication.zk.ProducerIdBlockZnode;
import io.seglog.replication.zk.ZkClient;
import io.seglog.replication.zk.ZkPaths;
import io.seglog.replication.zk.ZkSessionListener;
import io.seglog.replication.zk.ZkTestSupport;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Producer ids reserved in blocks in a real ZooKeeper ({@code /latest_producer_id_block}, Kafka's layout): brokers
 * reserving and handing out ids at the same time never hand out one twice, the next block is reserved before the
 * current one runs out, and a ZooKeeper outage or a malformed znode makes InitProducerId wait (retriable), not fail.
 */
@Timeout(120)
class ZkProducerIdManagerIT {
    private static final ThreadFactory THREADS = r -> new Thread(r, "producer-id-it");
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final ZkSessionListener NO_LISTENER = new ZkSessionListener() {
        @Override
        public void onSessionExpired(final long sessionId) {
        }

        @Override
        public void onNewSession(final long sessionId) {
        }
    };

    private ZkTestSupport zk;
    private final List<AutoCloseable> closeables = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws Exception {
        zk = ZkTestSupport.server();
    }

    @AfterEach
    void stop() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
        zk.close();
    }

    /**
     * A store on its own ZooKeeper session. Its request timeout is long enough for a busy machine (a 1.5 s timeout
     * failed a reservation under load); the outage test still sees a reservation fail well within {@link #WAIT}.
     */
    private KafkaZkStore store(final int brokerId) {
        final ZkClient client = ZkClient.open(ReplicationConfig.builder().brokerId(brokerId)
            .zookeeperConnect(zk.connectString()).zookeeperSessionTimeoutMs(6000).zookeeperRequestTimeoutMs(8_000)
            .build(), THREADS, NO_LISTENER);
        closeables.add(client);
        client.awaitConnected(10_000);
        return new KafkaZkStore(client);
    }

    private ZkProducerIdManager manager(final int brokerId, final KafkaZkStore store) {
        final ZkProducerIdManager m = new ZkProducerIdManager(brokerId, () -> store,
            () -> System.nanoTime() / 1_000_000, java.util.concurrent.Executors.newSingleThreadExecutor(THREADS));
        closeables.add(m);
        return m;
    }

    /** Takes an id, retrying while none is at hand, as the client does on COORDINATOR_LOAD_IN_PROGRESS. */
    private static long take(final ProducerIdSource source) {
        final AtomicLong id = new AtomicLong(-1);
        Await.until(WAIT, () -> {
            id.set(source.nextProducerId());
            return id.get() >= 0;
        }, () -> "a producer id");
        return id.get();
    }

    private static ProducerIdBlockZnode latest(final KafkaZkStore store) throws Exception {
        return ProducerIdBlockZnode.fromJson(store.client().getData(ZkPaths.LATEST_PRODUCER_ID_BLOCK, null)
            .orElseThrow().data());
    }

    @Test
    void brokersReservingAtOnceGetDisjointContiguousBlocks() throws Exception {
        final int brokers = 3;
        final int each = 15;
        final ExecutorService pool = Executors.newFixedThreadPool(brokers);
        try {
            final List<Future<List<ProducerIdBlockZnode>>> results = new ArrayList<>();
            for (int b = 1; b <= brokers; b++) {
                final KafkaZkStore store = store(b);
                final int brokerId = b;
                results.add(pool.submit(() -> {
                    final List<ProducerIdBlockZnode> mine = new ArrayList<>();
                    for (int i = 0; i < each; i++) {
                        mine.add(store.reserveProducerIdBlock(brokerId));
                    }
                    return mine;
                }));
            }
            final TreeSet<Long> starts = new TreeSet<>();
            for (int b = 0; b < brokers; b++) {
                for (final ProducerIdBlockZnode block : results.get(b).get()) {
                    assertEquals(b + 1, block.brokerId(), block.toString());
                    assertEquals(ProducerIdBlockZnode.BLOCK_SIZE, block.size(), block.toString());
                    assertTrue(starts.add(block.firstProducerId()), "block reserved twice: " + block);
                }
            }
            // Every block from 0 on was reserved exactly once: the conditional writes never lost or repeated one.
            final List<Long> expected = new ArrayList<>();
            for (int i = 0; i < brokers * each; i++) {
                expected.add((long) i * ProducerIdBlockZnode.BLOCK_SIZE);
            }
            assertEquals(expected, new ArrayList<>(starts));
            assertEquals(brokers * each * (long) ProducerIdBlockZnode.BLOCK_SIZE - 1, latest(store(9)).lastProducerId());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void twoBrokersHandingOutIdsConcurrentlyNeverRepeatOne() throws Exception {
        final ZkProducerIdManager one = manager(1, store(1));
        final ZkProducerIdManager two = manager(2, store(2));
        final int perThread = 2_500;
        final Set<Long> seen = ConcurrentHashMap.newKeySet();
        final ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            final List<Future<Integer>> takers = new ArrayList<>();
            for (final ZkProducerIdManager m : List.of(one, two, one, two)) {
                takers.add(pool.submit(() -> {
                    int repeated = 0;
                    for (int i = 0; i < perThread; i++) {
                        if (!seen.add(take(m))) {
                            repeated++;
                        }
                    }
                    return repeated;
                }));
            }
            for (final Future<Integer> f : takers) {
                assertEquals(0, f.get(), "ids handed out twice");
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(4 * perThread, seen.size());
        // 10,000 ids came from at least ten blocks, all of them recorded in the znode.
        assertTrue(latest(store(9)).lastProducerId() >= 4 * perThread - 1, "latest block " + latest(store(9)));
    }

    @Test
    void firstRequestWaitsForTheFirstBlockAndTheNextIsReservedAhead() throws Exception {
        final KafkaZkStore store = store(1);
        final ZkProducerIdManager m = manager(1, store);
        assertEquals(ProducerIdSource.NONE_AVAILABLE, m.nextProducerId(), "no block before the first request");
        assertEquals(0, take(m));
        assertEquals(new ProducerIdBlockZnode(1, 0, 999), latest(store));
        for (int i = 1; i <= 900; i++) {
            assertEquals(i, m.nextProducerId(), "ids of the first block in order");
        }
        // 90% of the first block handed out: the second is reserved while ids of the first remain.
        Await.until(WAIT, () -> {
            try {
                return latest(store).firstProducerId() == 1000;
            } catch (final Exception e) {
                throw new AssertionError(e);
            }
        }, () -> "the second block reserved ahead");
        for (int i = 901; i < 1100; i++) {
            assertEquals(i, take(m), "ids run on into the second block");
        }
    }

    @Test
    void zooKeeperOutageAnswersRetriablyUntilItIsBack() throws Exception {
        final KafkaZkStore store = store(1);
        final ZkProducerIdManager m = manager(1, store);
        assertEquals(0, take(m));
        zk.stop();
        // Ids of the block at hand go on being handed out; past the block, none (the reservation fails, is logged).
        for (int i = 1; i <= 999; i++) {
            assertEquals(i, m.nextProducerId());
        }
        assertEquals(ProducerIdSource.NONE_AVAILABLE, m.nextProducerId(), "no block while ZooKeeper is down");
        Await.until(WAIT, () -> m.failedReservations() >= 1, () -> "a reservation failed while ZooKeeper was down");
        assertEquals(ProducerIdSource.NONE_AVAILABLE, m.nextProducerId(), "still none while ZooKeeper is down");
        zk.restart();
        assertEquals(1000, take(m), "the next block once ZooKeeper is back");
    }

    @Test
    void malformedZnodeIsNotGuessedAtAndRequestsWaitUntilItIsMended() throws Exception {
        final KafkaZkStore store = store(1);
        store.client().create(ZkPaths.LATEST_PRODUCER_ID_BLOCK, "{\"broker\":".getBytes(StandardCharsets.UTF_8),
            false);
        final ZkProducerIdManager m = manager(1, store);
        assertEquals(ProducerIdSource.NONE_AVAILABLE, m.nextProducerId());
        Await.until(WAIT, () -> m.failedReservations() >= 1, () -> "the reservation failed");
        assertEquals(ProducerIdSource.NONE_AVAILABLE, m.nextProducerId(), "still none: nothing guessed");
        assertEquals("{\"broker\":", new String(store.client().getData(ZkPaths.LATEST_PRODUCER_ID_BLOCK, null)
            .orElseThrow().data(), StandardCharsets.UTF_8), "the broken znode is left as it is");
        store.client().setData(ZkPaths.LATEST_PRODUCER_ID_BLOCK, new ProducerIdBlockZnode(3, 5000, 5999).toJson(), -1);
        assertEquals(6000, take(m), "the block after the mended one");
        assertEquals(new ProducerIdBlockZnode(1, 6000, 6999), latest(store));
    }

    @Test
    void emptyZnodeAsKafkaCreatesItMeansNoBlockYet() throws Exception {
        final KafkaZkStore store = store(1);
        store.createPersistentPaths();
        assertEquals(0, store.client().getData(ZkPaths.LATEST_PRODUCER_ID_BLOCK, null).orElseThrow().data().length);
        assertEquals(new ProducerIdBlockZnode(4, 0, 999), store.reserveProducerIdBlock(4));
        assertEquals(new ProducerIdBlockZnode(5, 1000, 1999), store.reserveProducerIdBlock(5));
    }
}
