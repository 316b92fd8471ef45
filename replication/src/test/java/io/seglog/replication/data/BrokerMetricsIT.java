package io.seglog.replication.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.Await;
import io.seglog.replication.metrics.KafkaMetrics;
import io.seglog.storage.TopicPartition;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanServer;
import javax.management.MBeanServerConnection;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXConnectorServer;
import javax.management.remote.JMXConnectorServerFactory;
import javax.management.remote.JMXServiceURL;
import org.apache.curator.test.TestingServer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three brokers, each exporting its metrics to an MBean server of its own behind a JMX connector on loopback; the test
 * reads them over JMX, by Kafka's object names and attributes, and checks each against what happened: the partitions
 * hosted and led, the controller, every log's end offset, size and segments, the messages and bytes produced and
 * consumed, the requests served, and an ISR shrink and expand when a follower's fetches are blocked and healed.
 */
@Timeout(300)
class BrokerMetricsIT {
    private static final String TOPIC = "metered";
    private static final int PARTITIONS = 3;
    private static final int PER_PARTITION = 10;

    @TempDir
    Path dir;

    private final Map<Integer, KafkaMetrics> registries = new HashMap<>();
    private final Map<Integer, JMXConnectorServer> servers = new HashMap<>();
    private final Map<Integer, MBeanServerConnection> jmx = new HashMap<>();
    private final List<JMXConnector> connectors = new ArrayList<>();

    private KafkaMetrics registry(final int id) {
        return registries.computeIfAbsent(id, i -> {
            try {
                final MBeanServer server = MBeanServerFactory.newMBeanServer();
                final JMXConnectorServer connector = JMXConnectorServerFactory.newJMXConnectorServer(
                    new JMXServiceURL("service:jmx:rmi://127.0.0.1"), null, server);
                connector.start();
                servers.put(i, connector);
                final JMXConnector client = JMXConnectorFactory.connect(connector.getAddress());
                connectors.add(client);
                jmx.put(i, client.getMBeanServerConnection());
                return KafkaMetrics.jmx(server);
            } catch (final java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    private long value(final int broker, final String name) {
        return attribute(broker, name, "Value");
    }

    private long count(final int broker, final String name) {
        return attribute(broker, name, "Count");
    }

    private long attribute(final int broker, final String name, final String attribute) {
        try {
            return ((Number) jmx.get(broker).getAttribute(new ObjectName(name), attribute)).longValue();
        } catch (final Exception e) {
            throw new IllegalStateException("broker " + broker + ": " + name + " " + attribute, e);
        }
    }

    /** The sum of an attribute over every MBean matching a pattern on one broker. */
    private long sum(final int broker, final String pattern, final String attribute) throws Exception {
        long total = 0;
        for (final ObjectName n : jmx.get(broker).queryNames(new ObjectName(pattern), null)) {
            total += ((Number) jmx.get(broker).getAttribute(n, attribute)).longValue();
        }
        return total;
    }

    private static String log(final String name, final int partition) {
        return "kafka.log:type=Log,name=" + name + ",topic=" + TOPIC + ",partition=" + partition;
    }

    @Test
    void jmxShowsKafkasBrokerMetricsWithTheValuesOfWhatHappened() throws Exception {
        try (TestingServer zk = new TestingServer();
             DataCluster cluster = new DataCluster(zk.getConnectString(), dir,
                 props -> props.put("replica.lag.time.max.ms", 2_000))
                 .options((id, options) -> options.metrics(registry(id)))) {
            cluster.startAll(1, 2, 3);
            cluster.createSpreadTopic(TOPIC, PARTITIONS);
            final Properties p = new Properties();
            p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.allBootstrapServers());
            p.put(ProducerConfig.ACKS_CONFIG, "all");
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(),
                new StringSerializer())) {
                for (int i = 0; i < PARTITIONS * PER_PARTITION; i++) {
                    producer.send(new ProducerRecord<>(TOPIC, i % PARTITIONS, "k" + i, "value-" + i))
                        .get(60, TimeUnit.SECONDS);
                }
            }
            final Properties c = new Properties();
            c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.allBootstrapServers());
            c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            int consumed = 0;
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c, new StringDeserializer(),
                new StringDeserializer())) {
                final List<org.apache.kafka.common.TopicPartition> all = new ArrayList<>();
                for (int i = 0; i < PARTITIONS; i++) {
                    all.add(new org.apache.kafka.common.TopicPartition(TOPIC, i));
                }
                consumer.assign(all);
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (consumed < PARTITIONS * PER_PARTITION && System.nanoTime() < deadline) {
                    for (final ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                        consumed++;
                    }
                }
            }
            assertEquals(PARTITIONS * PER_PARTITION, consumed);

            final int controller = cluster.store().controllerId(null).orElseThrow();
            long leaders = 0;
            long messagesIn = 0;
            long bytesIn = 0;
            long bytesOut = 0;
            long leaderBytes = 0;
            for (int b = 1; b <= 3; b++) {
                assertEquals(b == controller ? 1 : 0, value(b, "kafka.controller:type=KafkaController,"
                    + "name=ActiveControllerCount"), "broker " + b);
                assertEquals(PARTITIONS, value(b, "kafka.server:type=ReplicaManager,name=PartitionCount"));
                assertEquals(0, value(b, "kafka.server:type=ReplicaManager,name=UnderReplicatedPartitions"));
                assertEquals(3, value(b, "kafka.server:type=KafkaServer,name=BrokerState"));
                assertEquals(0, count(b, "kafka.controller:type=ControllerStats,name=UncleanLeaderElectionsPerSec"));
                leaders += value(b, "kafka.server:type=ReplicaManager,name=LeaderCount");
                for (int part = 0; part < PARTITIONS; part++) {
                    assertEquals(PER_PARTITION, value(b, log("LogEndOffset", part)), "broker " + b + " p" + part);
                    assertEquals(0, value(b, log("LogStartOffset", part)));
                    assertEquals(1, value(b, log("NumLogSegments", part)));
                    final long size = value(b, log("Size", part));
                    assertTrue(size > 0);
                    assertEquals(value(1, log("Size", part)), size, "replicas hold the same bytes");
                    if (cluster.state(new TopicPartition(TOPIC, part)).leader() == b) {
                        leaderBytes += size;
                    }
                }
                messagesIn += count(b, "kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec");
                assertEquals(count(b, "kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec"),
                    count(b, "kafka.server:type=BrokerTopicMetrics,name=MessagesInPerSec,topic=" + TOPIC));
                bytesIn += count(b, "kafka.server:type=BrokerTopicMetrics,name=BytesInPerSec,topic=" + TOPIC);
                bytesOut += count(b, "kafka.server:type=BrokerTopicMetrics,name=BytesOutPerSec,topic=" + TOPIC);
                final long produces = sum(b, "kafka.network:type=RequestMetrics,name=RequestsPerSec,request=Produce,*",
                    "Count");
                assertEquals(produces, count(b, "kafka.network:type=RequestMetrics,name=TotalTimeMs,request=Produce"),
                    "every Produce request received was answered and timed");
                assertTrue(sum(b, "kafka.network:type=RequestMetrics,name=RequestsPerSec,request=Fetch,*", "Count") > 0,
                    "followers fetch from every broker");
            }
            assertEquals(PARTITIONS, leaders);
            assertEquals(PARTITIONS * PER_PARTITION, messagesIn, "each record counted once, by its leader");
            assertEquals(leaderBytes, bytesIn, "the bytes appended are the leaders' logs");
            assertTrue(bytesOut >= leaderBytes, "the consumer read every batch: " + bytesOut + " < " + leaderBytes);

            // A follower's fetches are blocked: its leader shrinks the ISR, then expands it once they flow again.
            final TopicPartition first = new TopicPartition(TOPIC, 0);
            final int leader = cluster.state(first).leader();
            final int follower = cluster.state(first).isr().stream().filter(id -> id != leader).findFirst()
                .orElseThrow();
            final String shrinks = "kafka.server:type=ReplicaManager,name=IsrShrinksPerSec";
            final String expands = "kafka.server:type=ReplicaManager,name=IsrExpandsPerSec";
            final long shrinksBefore = count(leader, shrinks);
            // An embedder's own ISR listener beside the broker's metrics: both hear every change.
            final java.util.List<String> heard = new java.util.concurrent.CopyOnWriteArrayList<>();
            cluster.broker(leader).replicas().addIsrChangeListener((tp, before, after) ->
                heard.add(tp + " " + before + " -> " + after));
            cluster.links.block(follower, leader);
            // A caught-up follower stays in sync however long it is silent (Kafka's rule): the leader moves on.
            p.put(ProducerConfig.ACKS_CONFIG, "1");
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(),
                new StringSerializer())) {
                producer.send(new ProducerRecord<>(TOPIC, 0, "late", "value")).get(60, TimeUnit.SECONDS);
            }
            Await.until(DataCluster.WAIT, () -> !cluster.state(first).isr().contains(follower),
                () -> "follower " + follower + " out of the ISR: " + cluster.state(first));
            // The store is written first, then the leader applies the change it wrote: wait for that too.
            Await.until(DataCluster.WAIT, () -> count(leader, shrinks) > shrinksBefore, () -> "a shrink counted");
            Await.until(DataCluster.WAIT, () -> heard.stream().anyMatch(h -> h.startsWith(first + " ")),
                () -> "the embedder's listener heard the shrink: " + heard);
            Await.until(DataCluster.WAIT, () -> value(leader, "kafka.server:type=ReplicaManager,"
                + "name=UnderReplicatedPartitions") >= 1, () -> "an under-replicated partition on the leader");
            final long expandsBefore = count(leader, expands);
            cluster.links.heal(follower, leader);
            Await.until(DataCluster.WAIT, () -> cluster.state(first).isr().contains(follower),
                () -> "follower " + follower + " back in the ISR: " + cluster.state(first));
            Await.until(DataCluster.WAIT, () -> count(leader, expands) > expandsBefore, () -> "an expand counted");
        } finally {
            for (final JMXConnector connector : connectors) {
                connector.close();
            }
            for (final JMXConnectorServer server : servers.values()) {
                server.stop();
            }
            registries.values().forEach(KafkaMetrics::close);
        }
    }
}
