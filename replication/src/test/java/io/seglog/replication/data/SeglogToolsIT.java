package io.seglog.replication.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.seglog.replication.Await;
import io.seglog.replication.election.LeaderAndIsr;
import io.seglog.replication.tools.SeglogCommand;
import io.seglog.storage.TopicPartition;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code seglog} command line against a running three-broker cluster: {@code zk} shows what the controller wrote
 * (controller, brokers, leaders, ISRs) as text and JSON, and an under-replicated partition once a broker stops;
 * {@code verify} and {@code dump-log} read the stopped broker's real log directory.
 */
@Timeout(300)
class SeglogToolsIT {
    private static final String TOPIC = "tools";

    @TempDir
    Path dir;

    private record Run(int code, String out, String err) {
    }

    private static Run seglog(final String... args) {
        final StringWriter out = new StringWriter();
        final StringWriter err = new StringWriter();
        final int code = SeglogCommand.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void zkShowsTheClusterAndVerifyAndDumpLogReadABrokersLogDirectory() throws Exception {
        try (TestingServer zk = new TestingServer();
             DataCluster cluster = new DataCluster(zk.getConnectString(), dir, props -> { })) {
            cluster.startAll(1, 2, 3);
            cluster.createSpreadTopic(TOPIC, 3);
            final Properties props = new Properties();
            props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.allBootstrapServers());
            props.put(ProducerConfig.ACKS_CONFIG, "all");
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(props, new StringSerializer(),
                new StringSerializer())) {
                for (int i = 0; i < 30; i++) {
                    producer.send(new ProducerRecord<>(TOPIC, i % 3, "k" + i, "v" + i)).get(60, TimeUnit.SECONDS);
                }
            }

            final Run text = seglog("zk", zk.getConnectString());
            assertEquals(0, text.code(), text.out() + text.err());
            final int controller = cluster.store().controllerId(null).orElseThrow();
            assertTrue(text.out().contains("controller: broker " + controller + " (controller epoch "), text.out());
            assertTrue(text.out().contains("brokers (3):"), text.out());
            for (int p = 0; p < 3; p++) {
                final LeaderAndIsr state = cluster.state(new TopicPartition(TOPIC, p));
                assertTrue(text.out().contains("    " + TOPIC + "-" + p + " replicas " + List.of(1 + p % 3,
                    1 + (p + 1) % 3, 1 + (p + 2) % 3) + " leader " + state.leader() + " leader epoch "
                    + state.leaderEpoch() + " isr " + state.isr() + "\n"), text.out());
            }

            final Run json = seglog("zk", "--json", zk.getConnectString());
            assertEquals(0, json.code(), json.err());
            final JsonNode view = new ObjectMapper().readTree(json.out());
            assertEquals(controller, view.get("controllerId").asInt());
            assertEquals(3, view.get("brokers").size());
            assertEquals(TOPIC, view.get("topics").get(0).get("name").asText());
            assertEquals(3, view.get("topics").get(0).get("partitions").size());

            // Broker 3 stops: the controller takes it out of every ISR, and the tool says so.
            cluster.stop(3);
            final TopicPartition first = new TopicPartition(TOPIC, 0);
            Await.until(DataCluster.WAIT, () -> !cluster.state(first).isr().contains(3),
                () -> "broker 3 out of the ISR: " + cluster.state(first));
            final Run shrunk = seglog("zk", zk.getConnectString());
            assertTrue(shrunk.out().contains("brokers (2):"), shrunk.out());
            assertEquals(3, shrunk.out().lines().filter(l -> l.endsWith(" UNDER-REPLICATED")).count(), shrunk.out());

            final Path logDir = dir.resolve("broker-3");
            final Run verify = seglog("verify", "-q", logDir.toString());
            assertEquals(0, verify.code(), verify.out());
            assertTrue(verify.out().startsWith("OK: "), verify.out());
            final Run dump = seglog("dump-log", "--print-data", logDir.resolve(TOPIC + "-0").toString());
            assertEquals(0, dump.code(), dump.err());
            assertEquals(10, dump.out().lines().filter(l -> l.startsWith("| offset: ")).count(), dump.out());
            assertTrue(dump.out().contains(" key: k0 payload: v0"), dump.out());
        }
    }

    @Test
    void verifyPassesOnEveryBrokerOfALiveClusterUnderLoad() throws Exception {
        // Small segments (rolls, and retention deleting segments while verify reads), an empty topic (preallocated
        // index files that no entry was written to), and a producer writing all along: verify must find nothing.
        try (TestingServer zk = new TestingServer();
             DataCluster cluster = new DataCluster(zk.getConnectString(), dir, props -> {
                 props.put("internal.segment.bytes", "8192");
                 props.put("log.retention.bytes", "32768");
                 props.put("log.retention.check.interval.ms", "200");
                 props.put("log.segment.delete.delay.ms", "0");
             })) {
            cluster.startAll(1, 2, 3);
            cluster.createSpreadTopic(TOPIC, 3);
            cluster.createSpreadTopic("empty", 3);
            final Properties props = new Properties();
            props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.allBootstrapServers());
            props.put(ProducerConfig.ACKS_CONFIG, "1");
            props.put(ProducerConfig.LINGER_MS_CONFIG, "1");
            final java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
            final java.util.concurrent.atomic.AtomicLong acked = new java.util.concurrent.atomic.AtomicLong();
            final Thread load = new Thread(() -> {
                try (KafkaProducer<String, String> producer = new KafkaProducer<>(props, new StringSerializer(),
                    new StringSerializer())) {
                    for (long i = 0; !stop.get(); i++) {
                        producer.send(new ProducerRecord<>(TOPIC, (int) (i % 3), "k" + i, "v".repeat(100) + i),
                            (m, e) -> {
                                if (e == null) {
                                    acked.incrementAndGet();
                                }
                            });
                    }
                }
            }, "verify-load");
            load.start();
            try {
                Await.until(DataCluster.WAIT, () -> acked.get() > 2_000, () -> "records acknowledged: " + acked);
                for (int round = 0; round < 6; round++) {
                    for (int broker = 1; broker <= 3; broker++) {
                        final Run verify = seglog("verify", "-q", dir.resolve("broker-" + broker).toString());
                        assertEquals(0, verify.code(), "round " + round + ", broker " + broker + ": " + verify.out()
                            + verify.err());
                        assertTrue(verify.out().startsWith("OK: "), verify.out());
                    }
                }
                final long before = acked.get();
                Await.until(DataCluster.WAIT, () -> acked.get() > before + 1_000, () -> "the load went on");
            } finally {
                stop.set(true);
                load.join(60_000);
            }
        }
    }
}
