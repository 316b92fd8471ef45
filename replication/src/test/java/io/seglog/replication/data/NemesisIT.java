package io.seglog.replication.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.Await;
import io.seglog.replication.broker.SeglogBroker;
import io.seglog.replication.zk.ZkClient;
import io.seglog.replication.zk.ZkTestSupport;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.TopicPartition;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.Timeout;

/**
 * Seeded nemesis schedules (reliability.md RP-11, RP-13): three brokers over real sockets and a real ZooKeeper, a
 * kafka-clients producer writing with acks=all (no retries, so each acknowledgement names one stored record), and
 * faults one at a time: a broker stopped, crashed (its unflushed tail lost) or cut from the other brokers'
 * replication links, or its ZooKeeper session expired. After the schedule everything is healed and a history checker
 * asks: is every acknowledged record at its acknowledged offset (0 lost), did no offset hold two values, and are the
 * replicas byte-identical below the high watermark? {@code -Dseglog.nemesis.schedules} (default 30) and
 * {@code -Dseglog.nemesis.seed} choose the schedules; a failure names its seed, and one seed replays its schedule
 * (the faults, targets and phase lengths; thread timing is the machine's).
 */
@Timeout(900)
class NemesisIT {
    private static final String TOPIC = "nemesis";
    private static final int PARTITIONS = 2;
    private static final int STEPS = 4;

    private enum Fault { STOP, CRASH, ISOLATE, EXPIRE_SESSION }

    private static TestingServer zk;
    private static Path root;
    /** The session an EXPIRE_SESSION fault ended, and its broker's epoch before, for the heal to wait past. */
    private long expiredSession;
    private long epochBeforeExpiry;

    @BeforeAll
    static void startZooKeeper() throws Exception {
        zk = new TestingServer();
        root = Files.createTempDirectory("seglog-nemesis");
    }

    @AfterAll
    static void stopZooKeeper() throws Exception {
        zk.close();
        try (Stream<Path> files = Files.walk(root)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
    }

    @TestFactory
    Stream<DynamicTest> schedules() {
        final int count = Integer.getInteger("seglog.nemesis.schedules", 30);
        final long base = Long.getLong("seglog.nemesis.seed", 20261202L);
        return IntStream.range(0, count).mapToObj(i -> base + i)
            .map(seed -> DynamicTest.dynamicTest("seed " + seed, () -> runSchedule(seed)));
    }

    /** One acknowledged write. */
    private record Ack(int partition, long offset, String value) {
    }

    private void runSchedule(final long seed) throws Exception {
        final SplittableRandom random = new SplittableRandom(seed);
        final Path dir = root.resolve("seed-" + seed);
        final String chroot = "/nemesis-" + seed;
        final DataCluster cluster = new DataCluster(zk.getConnectString() + chroot, dir, p -> {
            p.put("min.insync.replicas", 2);
            p.put("replica.lag.time.max.ms", 1_500);
            p.put("zookeeper.session.timeout.ms", 6_000);
        });
        final List<Ack> acks = new ArrayList<>();
        final List<String> log = new ArrayList<>();
        final AtomicBoolean writing = new AtomicBoolean(true);
        final AtomicLong sent = new AtomicLong();
        Thread writer = null;
        try {
            cluster.startAll(1, 2, 3);
            final Map<Integer, List<Integer>> assignment = new HashMap<>();
            for (int p = 0; p < PARTITIONS; p++) {
                assignment.put(p, List.of(1 + p % 3, 1 + (p + 1) % 3, 1 + (p + 2) % 3));
            }
            cluster.createTopic(TOPIC, assignment);
            writer = startWriter(cluster.allBootstrapServers(), seed, acks, writing, sent);
            awaitProgress(sent, 200, 200);
            for (int step = 0; step < STEPS; step++) {
                final Fault fault = Fault.values()[random.nextInt(Fault.values().length)];
                final int target = 1 + random.nextInt(3);
                final long faultMs = 300 + random.nextInt(900);
                final long healMs = 300 + random.nextInt(600);
                if (fault == Fault.CRASH || fault == Fault.STOP) {
                    awaitFullIsr(cluster); // one broker down at a time, and none before the last is back in sync
                }
                log.add(step + ": " + fault + " broker " + target + " for " + faultMs + " ms");
                apply(cluster, fault, target);
                awaitProgress(sent, 50, faultMs);
                heal(cluster, fault, target);
                awaitProgress(sent, 50, healMs);
            }
            writing.set(false);
            writer.join(Duration.ofSeconds(60).toMillis());
            check(cluster, acks);
            System.out.println("nemesis seed " + seed + ": " + log + "; " + acks.size() + " of " + sent.get()
                + " writes acknowledged, none lost");
        } catch (final Throwable t) {
            throw new AssertionError("nemesis seed " + seed + " (rerun: -Dseglog.nemesis.seed=" + seed
                + " -Dseglog.nemesis.schedules=1) failed after " + log + ": " + t, t);
        } finally {
            writing.set(false);
            if (writer != null) {
                writer.join(Duration.ofSeconds(60).toMillis());
            }
            cluster.close();
        }
    }

    private static void awaitProgress(final AtomicLong sent, final long records, final long atLeastMs) {
        final long from = sent.get();
        final long start = System.nanoTime();
        Await.until(Duration.ofSeconds(60), () -> sent.get() >= from + records
                && System.nanoTime() - start >= atLeastMs * 1_000_000,
            () -> "the writer made progress: " + sent.get() + " sent");
    }

    private static void awaitFullIsr(final DataCluster cluster) {
        Await.until(DataCluster.WAIT, () -> IntStream.range(0, PARTITIONS).allMatch(p -> {
            final var s = cluster.state(new TopicPartition(TOPIC, p));
            return s.hasLeader() && s.isr().size() == 3;
        }), () -> "every partition led with a full ISR");
    }

    private void apply(final DataCluster cluster, final Fault fault, final int target) throws Exception {
        switch (fault) {
            case STOP -> cluster.stop(target);
            case CRASH -> cluster.crash(target);
            case ISOLATE -> cluster.links.isolate(target, others(target));
            case EXPIRE_SESSION -> {
                final SeglogBroker b = cluster.broker(target);
                final ZkClient.SessionCredentials session = b.control().zkClient().sessionCredentials();
                expiredSession = session.sessionId();
                epochBeforeExpiry = b.control().controlHandler().brokerEpoch();
                ZkTestSupport.expireSession(zk.getConnectString(), session);
            }
        }
    }

    private void heal(final DataCluster cluster, final Fault fault, final int target) throws Exception {
        switch (fault) {
            case STOP, CRASH -> cluster.start(target).awaitRegistered(DataCluster.WAIT.toMillis());
            case ISOLATE -> cluster.links.healAll();
            case EXPIRE_SESSION -> {
                // Healed once the broker noticed: a new session and a registration newer than the expired one's.
                final SeglogBroker b = cluster.broker(target);
                ZkTestSupport.awaitNewSession(b.control().zkClient(), expiredSession, DataCluster.WAIT);
                Await.until(DataCluster.WAIT, () -> b.control().controlHandler().brokerEpoch() > epochBeforeExpiry,
                    () -> "broker " + target + " registered again after its session 0x"
                        + Long.toHexString(expiredSession) + " expired");
            }
        }
    }

    private static int[] others(final int target) {
        return IntStream.rangeClosed(1, 3).filter(b -> b != target).toArray();
    }

    /**
     * Writes sequence-numbered values round-robin over the partitions, paced to about 2,000 a second with at most 200
     * in flight, until told to stop.
     */
    private static Thread startWriter(final String bootstrap, final long seed, final List<Ack> acks,
                                      final AtomicBoolean writing, final AtomicLong sent) {
        final Thread t = new Thread(() -> {
            final Properties p = new Properties();
            p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            p.put(ProducerConfig.ACKS_CONFIG, "all");
            p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
            p.put(ProducerConfig.RETRIES_CONFIG, 0);
            p.put(ProducerConfig.LINGER_MS_CONFIG, 1);
            p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 3_000);
            p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 4_000);
            p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 3_000);
            p.put(ProducerConfig.METADATA_MAX_AGE_CONFIG, 1_000);
            final Semaphore inFlight = new Semaphore(200);
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(),
                new ByteArraySerializer())) {
                long i = 0;
                while (writing.get()) {
                    inFlight.acquireUninterruptibly();
                    final String value = seed + "-" + i;
                    final int partition = (int) (i % PARTITIONS);
                    try {
                        producer.send(new ProducerRecord<>(TOPIC, partition, null,
                            value.getBytes(StandardCharsets.UTF_8)), (md, e) -> {
                                if (e == null) {
                                    synchronized (acks) {
                                        acks.add(new Ack(md.partition(), md.offset(), value));
                                    }
                                }
                                inFlight.release();
                            });
                    } catch (final RuntimeException e) {
                        inFlight.release(); // metadata not available within max.block.ms: not sent
                    }
                    sent.incrementAndGet();
                    i++;
                    // Load pacing, not a wait: about 2,000 records a second keeps every schedule's logs small
                    // enough to compare byte for byte at the end.
                    java.util.concurrent.locks.LockSupport.parkNanos(500_000);
                }
                producer.flush();
            }
        }, "nemesis-writer-" + seed);
        t.setDaemon(true);
        t.start();
        return t;
    }

    /** Heals the cluster fully, then checks the history against every replica. */
    private static void check(final DataCluster cluster, final List<Ack> acks) {
        cluster.links.healAll();
        awaitFullIsr(cluster);
        final Map<TopicPartition, Map<Long, String>> byOffset = new HashMap<>();
        synchronized (acks) {
            for (final Ack a : acks) {
                final String before = byOffset.computeIfAbsent(new TopicPartition(TOPIC, a.partition()),
                    k -> new HashMap<>()).put(a.offset(), a.value());
                assertTrue(before == null || before.equals(a.value()), "offset " + a.offset() + " of partition "
                    + a.partition() + " acknowledged with two values: " + before + " and " + a.value());
            }
        }
        assertTrue(acks.size() > 0, "some writes were acknowledged");
        for (int p = 0; p < PARTITIONS; p++) {
            final TopicPartition tp = new TopicPartition(TOPIC, p);
            final long end = ScenarioSupport.awaitConverged(cluster, tp);
            final PartitionLog leaderLog = ScenarioSupport.log(cluster, cluster.state(tp).leader(), tp);
            final List<String> values = LogBytes.values(leaderLog, leaderLog.logStartOffset(), end);
            final Map<Long, String> acked = byOffset.getOrDefault(tp, Map.of());
            final Map<String, Long> seen = new ConcurrentHashMap<>();
            for (int o = 0; o < values.size(); o++) {
                final Long twice = seen.put(values.get(o), (long) o);
                assertTrue(twice == null, tp + ": value " + values.get(o) + " stored at " + twice + " and " + o);
            }
            for (final Map.Entry<Long, String> a : acked.entrySet()) {
                assertTrue(a.getKey() < end, tp + ": acknowledged offset " + a.getKey() + " (" + a.getValue()
                    + ") is past the end " + end + ": lost");
                assertEquals(a.getValue(), values.get(a.getKey().intValue()), tp + ": offset " + a.getKey()
                    + " holds another value than was acknowledged");
            }
        }
    }
}
