package io.seglog.replication.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.Await;
import io.seglog.replication.data.clients.ProducerDriver;
import io.seglog.storage.TopicPartition;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.internals.AppInfoParser;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * kafka-clients producers with Kafka's default settings (only {@code bootstrap.servers} and serializers set:
 * {@code enable.idempotence=true}, {@code acks=all}, unbounded retries) against three Seglog brokers, with the 4.4
 * clients on the class path and the 3.9 clients in a class loader of their own ({@link LegacyClients}): the partition's
 * leader is crashed mid-stream, the producer goes on, and every acknowledged record is read back exactly once at the
 * offset it was acknowledged at, in the order sent, with no duplicate of any record. And what Seglog does not do
 * fails fast: a transactional producer (FindCoordinator for a transactional id answers INVALID_REQUEST, fatal in
 * kafka-clients).
 */
@Timeout(300)
class IdempotentProducersIT {
    private static final int COUNT = 100_000;
    /** The offset past which the followers' fetches do not reach the first leader. */
    private static final long HOLD = COUNT / 4;
    private static final Duration FAIL_FAST = Duration.ofSeconds(60);

    @TempDir
    Path dir;
    private TestingServer zk;
    private DataCluster cluster;

    /** One kafka-clients version's producer workload ({@link ProducerDriver}), however it was loaded. */
    private interface Workload {
        String clientVersion();

        String producerCodeSource();

        long[] produce(Map<String, Object> config, String topic, int partition, int count, int midwayAt,
                       Runnable midway);
    }

    @BeforeEach
    void start() throws Exception {
        zk = new TestingServer();
        cluster = new DataCluster(zk.getConnectString(), dir, props -> props.put("min.insync.replicas", 2));
        cluster.startAll(1, 2, 3);
    }

    @AfterEach
    void stop() throws Exception {
        cluster.close();
        zk.close();
    }

    private long logEnd(final int broker, final TopicPartition tp) {
        return cluster.broker(broker).partition(tp).orElseThrow().log().logEndOffset();
    }

    private static Workload direct() {
        final ProducerDriver driver = new ProducerDriver();
        return new Workload() {
            @Override
            public String clientVersion() {
                return driver.clientVersion();
            }

            @Override
            public String producerCodeSource() {
                return driver.producerCodeSource();
            }

            @Override
            public long[] produce(final Map<String, Object> config, final String topic, final int partition,
                                  final int count, final int midwayAt, final Runnable midway) {
                return driver.produce(config, topic, partition, count, midwayAt, midway);
            }
        };
    }

    private static Workload reflective(final Object driver) {
        return new Workload() {
            private Object call(final String name, final Class<?>[] types, final Object... args) {
                try {
                    final Method m = driver.getClass().getMethod(name, types);
                    return m.invoke(driver, args);
                } catch (final InvocationTargetException e) {
                    throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
                } catch (final ReflectiveOperationException e) {
                    throw new IllegalStateException(e);
                }
            }

            @Override
            public String clientVersion() {
                return (String) call("clientVersion", new Class<?>[0]);
            }

            @Override
            public String producerCodeSource() {
                return (String) call("producerCodeSource", new Class<?>[0]);
            }

            @Override
            public long[] produce(final Map<String, Object> config, final String topic, final int partition,
                                  final int count, final int midwayAt, final Runnable midway) {
                return (long[]) call("produce", new Class<?>[] {Map.class, String.class, int.class, int.class,
                    int.class, Runnable.class}, config, topic, partition, count, midwayAt, midway);
            }
        };
    }

    @ParameterizedTest(name = "kafka-clients {0}")
    @ValueSource(strings = {"4.4", "3.9"})
    void defaultProducerWritesEveryAcknowledgedRecordExactlyOnceThroughALeaderCrash(final String clients)
        throws Exception {
        try (LegacyClients legacy = clients.equals("3.9") ? new LegacyClients() : null) {
            final Workload workload;
            if (legacy == null) {
                workload = direct();
                assertEquals(AppInfoParser.getVersion(), workload.clientVersion());
                assertTrue(workload.clientVersion().startsWith("4.4."), workload.clientVersion());
            } else {
                workload = reflective(legacy.newDriver(ProducerDriver.class));
                // The producer really is the old one: its version, its jar, and a class distinct from 4.4's.
                assertEquals(legacy.version(), workload.clientVersion());
                assertTrue(workload.clientVersion().startsWith("3.9."), workload.clientVersion());
                assertEquals(legacy.jar().toUri().toURL().toString(), workload.producerCodeSource());
                assertNotEquals(KafkaProducer.class, legacy.load(KafkaProducer.class.getName()));
                assertEquals(legacy.version(), legacy.load("org.apache.kafka.common.utils.AppInfoParser")
                    .getMethod("getVersion").invoke(null), "AppInfoParser.getVersion() through the loader");
            }
            final String topic = "idempotent-" + clients.replace('.', '-');
            final TopicPartition tp = new TopicPartition(topic, 0);
            cluster.createTopic(topic, Map.of(0, List.of(1, 2, 3)));
            final int leader = cluster.state(tp).leader();
            final List<Integer> followers = cluster.state(tp).isr().stream().filter(b -> b != leader).toList();
            // The followers' fetches past HOLD never reach the leader: its high watermark stays at HOLD or below
            // (acks=all requests for later records wait), while the followers still receive and append what the
            // leader has past it. When the leader crashes, whichever follower takes over holds records the producer
            // never had acknowledged: its retries of them must be answered as duplicates, not appended again.
            for (final int f : followers) {
                cluster.links.cutFetches(f, leader, r -> Links.fetchOffset(r, tp) > HOLD);
            }
            final long[] atCrash = new long[2];
            final Runnable crashLeader = () -> {
                Await.until(DataCluster.WAIT, () -> followers.stream().allMatch(f -> logEnd(f, tp) > HOLD + 1),
                    () -> "both followers past offset " + HOLD + ": " + followers.stream().map(f -> logEnd(f, tp))
                        .toList());
                atCrash[0] = cluster.broker(leader).partition(tp).orElseThrow().log().highWatermark();
                atCrash[1] = followers.stream().mapToLong(f -> logEnd(f, tp)).min().orElseThrow();
                cluster.crash(leader);
            };
            final long startNs = System.nanoTime();
            final long[] acked = workload.produce(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                cluster.allBootstrapServers()), topic, 0, COUNT, COUNT / 2, crashLeader);
            final long producedNs = System.nanoTime();
            assertTrue(atCrash[0] <= HOLD && atCrash[1] > atCrash[0], "at the crash the leader had acknowledged up to "
                + atCrash[0] + " and the followers held up to " + atCrash[1]);
            final long failed = acked[COUNT];
            Await.until(DataCluster.WAIT, () -> cluster.state(tp).hasLeader() && cluster.state(tp).leader() != leader,
                () -> "a new leader: " + cluster.state(tp));
            final long hw = cluster.broker(cluster.state(tp).leader()).partition(tp).orElseThrow().log()
                .highWatermark();
            final List<ConsumerRecord<byte[], byte[]>> read = KafkaClientsIT.readAll(cluster.bootstrapServers(),
                topic, 0, (int) hw);
            System.out.printf("kafka-clients %s: %d records produced through the crash of leader %d in %d ms"
                    + " (%d sends failed, %d records on the followers unacknowledged at the crash), %d read back in"
                    + " %d ms%n", workload.clientVersion(), COUNT, leader, (producedNs - startNs) / 1_000_000, failed,
                atCrash[1] - atCrash[0], read.size(), (System.nanoTime() - producedNs) / 1_000_000);
            assertTrue(failed <= COUNT / 100, "at most 1% of the sends failed (retries are unbounded): " + failed);
            final Map<Integer, Long> offsetOf = new HashMap<>();
            int previous = -1;
            for (final ConsumerRecord<byte[], byte[]> r : read) {
                final String v = new String(r.value(), StandardCharsets.UTF_8);
                final int i = Integer.parseInt(v.substring(1));
                final Long earlier = offsetOf.put(i, r.offset());
                assertEquals(null, earlier, "record " + v + " stored twice, at " + earlier + " and " + r.offset());
                assertTrue(i > previous, "records in the order sent: " + v + " at " + r.offset() + " after v" + previous);
                previous = i;
            }
            int acknowledged = 0;
            for (int i = 0; i < COUNT; i++) {
                if (acked[i] != ProducerDriver.NOT_ACKNOWLEDGED) {
                    acknowledged++;
                    assertEquals(acked[i], offsetOf.getOrDefault(i, -1L), "acknowledged record v" + i
                        + " read back at the offset it was acknowledged at");
                }
            }
            assertEquals(COUNT - failed, acknowledged);
        }
    }

    @Test
    void transactionalProducerFailsFastInInitTransactions() {
        cluster.createTopic("transfers", Map.of(0, List.of(1, 2, 3)));
        final Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "transfers-tx");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) FAIL_FAST.toMillis());
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(),
            new ByteArraySerializer())) {
            final long startNs = System.nanoTime();
            final KafkaException e = assertThrows(KafkaException.class, producer::initTransactions);
            final long elapsedMs = (System.nanoTime() - startNs) / 1_000_000;
            assertFalse(e instanceof org.apache.kafka.common.errors.TimeoutException,
                "a fatal error, not a timeout after max.block.ms: " + e);
            final String message = e.getMessage() + " / " + e.getCause();
            assertTrue(message.contains("TRANSACTION") && message.contains("transfers-tx"),
                "names the coordinator type and key that are not served: " + message);
            System.out.printf("initTransactions() failed after %d ms: %s%n", elapsedMs, e);
        }
    }
}
