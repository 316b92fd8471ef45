package io.seglog.replication.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.Await;
import io.seglog.replication.ReplicationConfig;
import io.seglog.replication.controller.TopicAdmin;
import io.seglog.replication.election.LeaderAndIsr;
import io.seglog.replication.zk.KafkaZkStore;
import io.seglog.replication.zk.PartitionStateZnode;
import io.seglog.replication.zk.ZkClient;
import io.seglog.replication.zk.ZkSessionListener;
import io.seglog.storage.TopicPartition;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.test.TestingCluster;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three Seglog broker processes (each its own JVM, started with {@code SeglogBrokerMain} as a user would) over a
 * three-node ZooKeeper ensemble; a kafka-clients producer writes with acks=all while the partition leader's process is
 * killed with SIGKILL: no acknowledged record is lost, and the killed broker, restarted, catches up.
 */
@Timeout(300)
class BrokerProcessesIT {
    private static final String TOPIC = "killed";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
    private static final ZkSessionListener QUIET = new ZkSessionListener() {
        @Override
        public void onSessionExpired(final long sessionId) {
        }

        @Override
        public void onNewSession(final long sessionId) {
        }
    };

    @TempDir
    Path dir;
    private TestingCluster ensemble;
    private ZkClient zk;
    private KafkaZkStore store;
    private final Map<Integer, Process> brokers = new TreeMap<>();
    private final Map<Integer, Integer> ports = new HashMap<>();

    @BeforeEach
    void start() throws Exception {
        ensemble = new TestingCluster(3);
        ensemble.start();
        zk = ZkClient.open(ReplicationConfig.builder().brokerId(999).zookeeperConnect(ensemble.getConnectString())
            .build(), Thread::new, QUIET);
        zk.awaitConnected(DataCluster.WAIT.toMillis());
        store = new KafkaZkStore(zk);
        store.createPersistentPaths();
        for (int id = 1; id <= 3; id++) {
            ports.put(id, freePort());
            startBroker(id);
        }
        for (int id = 1; id <= 3; id++) {
            final int broker = id;
            Await.until(DataCluster.WAIT, () -> store.broker(broker).isPresent(), () -> "broker " + broker
                + " registered");
        }
    }

    @AfterEach
    void stop() throws Exception {
        for (final Process p : brokers.values()) {
            p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
        if (zk != null) {
            zk.close();
        }
        if (ensemble != null) {
            ensemble.close();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private void startBroker(final int id) throws IOException {
        final Path props = dir.resolve("broker-" + id + ".properties");
        Files.writeString(props, String.join("\n",
            "broker.id=" + id,
            "listeners=PLAINTEXT://127.0.0.1:" + ports.get(id),
            "log.dirs=" + dir.resolve("broker-" + id),
            "zookeeper.connect=" + ensemble.getConnectString(),
            "zookeeper.session.timeout.ms=6000",
            "min.insync.replicas=2",
            "auto.leader.rebalance.enable=false",
            "replica.fetch.wait.max.ms=200",
            "replica.fetch.backoff.ms=100"), StandardCharsets.UTF_8);
        // Outside the temporary directory, so that a failed run leaves the brokers' own account of it.
        final Path logs = Path.of("target", "broker-processes-it");
        Files.createDirectories(logs);
        final Path log = logs.resolve("broker-" + id + ".log");
        final Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx256m", "-cp", System.getProperty("java.class.path"),
            "io.seglog.replication.broker.SeglogBrokerMain", props.toString())
            .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        brokers.put(id, p);
        Await.until(DataCluster.WAIT, () -> readyIn(log) || !p.isAlive(), () -> "broker " + id + " READY");
        assertTrue(p.isAlive(), () -> "broker " + id + " exited: " + tail(log));
    }

    private static boolean readyIn(final Path log) {
        try {
            return Files.readString(log).lines().anyMatch(l -> l.startsWith("READY broker"));
        } catch (final IOException e) {
            return false;
        }
    }

    private static String tail(final Path log) {
        try {
            final List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (final IOException e) {
            return e.toString();
        }
    }

    private String bootstrap() {
        final List<String> out = new ArrayList<>();
        ports.values().forEach(p -> out.add("127.0.0.1:" + p));
        return String.join(",", out);
    }

    private LeaderAndIsr state() {
        final Optional<PartitionStateZnode> s = store.partitionStates(List.of(TP)).getOrDefault(TP, Optional.empty());
        return s.map(PartitionStateZnode::leaderAndIsr).orElse(null);
    }

    @Test
    void sigkillOfTheLeaderProcessLosesNoAcknowledgedRecord() throws Exception {
        new TopicAdmin(store, new java.util.SplittableRandom(1)).createTopic(TOPIC, Map.of(0, List.of(1, 2, 3)));
        Await.until(DataCluster.WAIT, () -> state() != null && state().hasLeader() && state().isr().size() == 3,
            () -> "led with a full ISR: " + state());
        final Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        p.put(ProducerConfig.RETRIES_CONFIG, 0);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 1);
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 15_000);
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 20_000);
        final Map<Integer, Boolean> acked = new ConcurrentHashMap<>();
        final AtomicBoolean stop = new AtomicBoolean();
        final List<CompletableFuture<Void>> sends = new ArrayList<>();
        int sent = 0;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(),
            new ByteArraySerializer())) {
            final int leader = state().leader();
            int killedAt = -1;
            while (!stop.get()) {
                final int i = sent++;
                final CompletableFuture<Void> done = new CompletableFuture<>();
                producer.send(new ProducerRecord<>(TOPIC, 0, null, ("v" + i).getBytes(StandardCharsets.UTF_8)),
                    (md, e) -> {
                        if (e == null) {
                            acked.put(i, true);
                        }
                        done.complete(null);
                    });
                sends.add(done);
                if (killedAt < 0 && acked.size() >= 2_000) {
                    brokers.remove(leader).destroyForcibly().waitFor(30, TimeUnit.SECONDS); // SIGKILL
                    killedAt = i;
                }
                final int after = killedAt + 2_000;
                if (killedAt >= 0 && acked.keySet().stream().anyMatch(k -> k > after)) {
                    stop.set(true);
                }
                if (i % 500 == 499) {
                    producer.flush();
                }
                if (sent > 200_000) {
                    throw new AssertionError("writes never resumed after the leader was killed; acked " + acked.size());
                }
            }
            producer.flush();
            final int killedLeader = leader;
            Await.until(DataCluster.WAIT, () -> state().hasLeader() && state().leader() != killedLeader,
                () -> "a new leader: " + state());
        }
        CompletableFuture.allOf(sends.toArray(new CompletableFuture<?>[0])).get(60, TimeUnit.SECONDS);
        final int newLeader = state().leader();
        final List<ConsumerRecord<byte[], byte[]>> read = readUntil(acked.keySet().stream().max(Integer::compare)
            .orElseThrow());
        final Map<Integer, Integer> seen = new HashMap<>();
        int previous = -1;
        for (final ConsumerRecord<byte[], byte[]> r : read) {
            final int v = Integer.parseInt(new String(r.value(), StandardCharsets.UTF_8).substring(1));
            seen.merge(v, 1, Integer::sum);
            assertTrue(v > previous, "in order: v" + v + " after v" + previous);
            previous = v;
        }
        for (final int i : acked.keySet()) {
            assertEquals(1, seen.getOrDefault(i, 0), "acknowledged v" + i + " read exactly once (leader now "
                + newLeader + ")");
        }
        assertTrue(acked.size() > 4_000, "writes were acknowledged before and after the kill: " + acked.size());
        // The killed broker recovers its log (no clean-shutdown marker), rejoins as a follower and catches up.
        final int killed = java.util.stream.IntStream.rangeClosed(1, 3).filter(id -> !brokers.containsKey(id))
            .findFirst().orElseThrow();
        startBroker(killed);
        Await.until(DataCluster.WAIT, () -> state().isr().contains(killed), () -> "broker " + killed
            + " back in the ISR: " + state());
    }

    /** Reads the partition from its start until the record with value {@code v<last>} has been read. */
    private List<ConsumerRecord<byte[], byte[]>> readUntil(final int last) {
        final List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        final byte[] wanted = ("v" + last).getBytes(StandardCharsets.UTF_8);
        try (var consumer = KafkaClientsIT.consumer(bootstrap())) {
            final var tp = new org.apache.kafka.common.TopicPartition(TOPIC, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            Await.until(DataCluster.WAIT, () -> {
                consumer.poll(Duration.ofMillis(200)).forEach(out::add);
                return out.stream().anyMatch(r -> java.util.Arrays.equals(r.value(), wanted));
            }, () -> "v" + last + " read; " + out.size() + " records so far");
        }
        return out;
    }
}
