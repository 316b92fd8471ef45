package io.seglog.replication.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.server.config.AbstractKafkaConfig;
import org.junit.jupiter.api.Test;

/**
 * A broker's properties beyond what Seglog reads: typos are heard with the key they probably meant, Kafka's own keys
 * pass without effect, and a key of a feature Seglog does not have stops the start, naming the key.
 */
class BrokerPropertiesTest {
    /** The ZooKeeper-mode server.properties Kafka 3.9 shipped (config/server.properties), comments left out. */
    private static Map<String, Object> kafkaSample() {
        final Map<String, Object> p = new HashMap<>();
        p.put("broker.id", "0");
        p.put("num.network.threads", "3");
        p.put("num.io.threads", "8");
        p.put("socket.send.buffer.bytes", "102400");
        p.put("socket.receive.buffer.bytes", "102400");
        p.put("socket.request.max.bytes", "104857600");
        p.put("log.dirs", "/tmp/kafka-logs");
        p.put("num.partitions", "1");
        p.put("num.recovery.threads.per.data.dir", "1");
        p.put("offsets.topic.replication.factor", "1");
        p.put("transaction.state.log.replication.factor", "1");
        p.put("transaction.state.log.min.isr", "1");
        p.put("log.retention.hours", "168");
        p.put("log.retention.check.interval.ms", "300000");
        p.put("zookeeper.connect", "localhost:2181");
        p.put("zookeeper.connection.timeout.ms", "18000");
        p.put("group.initial.rebalance.delay.ms", "0");
        p.put("listeners", "PLAINTEXT://127.0.0.1:9092");
        return p;
    }

    private static BrokerProperties.Check check(final Map<String, Object> props) {
        return SeglogBrokerConfig.checked(props).check();
    }

    @Test
    void kafkasOwnServerPropertiesStartWithNoWarningAndListWhatHasNoEffect() {
        final BrokerProperties.Check check = check(kafkaSample());
        assertEquals(List.of(), check.unknown(), "no unknown key in Kafka's own sample");
        // The socket buffers are read (and given to the listener's sockets), so they are not in the list.
        assertEquals(new TreeSet<>(List.of("num.io.threads", "transaction.state.log.min.isr",
            "transaction.state.log.replication.factor")), check.kafkaOnly());
        final SeglogBrokerConfig config = SeglogBrokerConfig.fromProperties(kafkaSample());
        assertEquals(102_400, config.listener().sendBufferBytes());
        assertEquals(102_400, config.listener().receiveBufferBytes());
    }

    @Test
    void typosAreWarnedWithTheKeyTheyProbablyMeant() {
        final Map<String, Object> props = kafkaSample();
        props.put("num.partitons", "3");
        props.put("log.retention.hour", "24");
        props.put("auto.create.topic.enable", "false");
        props.put("my.own.setting", "x");
        final BrokerProperties.Check check = check(props);
        assertEquals(List.of(
            new BrokerProperties.Unknown("auto.create.topic.enable", Optional.of("auto.create.topics.enable")),
            new BrokerProperties.Unknown("log.retention.hour", Optional.of("log.retention.hours")),
            new BrokerProperties.Unknown("my.own.setting", Optional.empty()),
            new BrokerProperties.Unknown("num.partitons", Optional.of("num.partitions"))), check.unknown());
        assertEquals("The configuration 'num.partitons' was supplied but isn't a known config. Did you mean"
            + " 'num.partitions'?", check.unknown().get(3).message());
    }

    @Test
    void keysOfFeaturesSeglogDoesNotHaveStopTheStartNamingTheKey() {
        for (final Map.Entry<String, String> refused : Map.of(
            "authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
            "allow.everyone.if.no.acl.found", "false",
            "super.users", "User:admin",
            "ssl.keystore.location", "/etc/kafka/keystore.jks",
            "sasl.enabled.mechanisms", "SCRAM-SHA-256",
            "listener.name.internal.sasl.enabled.mechanisms", "PLAIN",
            "client.quota.callback.class", "com.example.Quotas",
            "process.roles", "broker,controller",
            "remote.log.storage.system.enable", "true").entrySet()) {
            final Map<String, Object> props = kafkaSample();
            props.put(refused.getKey(), refused.getValue());
            final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SeglogBrokerConfig.fromProperties(props), refused.getKey());
            assertTrue(e.getMessage().startsWith(refused.getKey() + "=" + refused.getValue() + ": "), e.getMessage());
        }
        // Kafka's default authorizer (none) promises nothing.
        final Map<String, Object> props = kafkaSample();
        props.put("authorizer.class.name", "");
        SeglogBrokerConfig.fromProperties(props);
    }

    @Test
    void theListOfKafkasKeysIsKafkasOwn() {
        final Set<String> kafka = new TreeSet<>(AbstractKafkaConfig.CONFIG_DEF.names());
        final Set<String> listed = new TreeSet<>(BrokerProperties.KafkaConfigs.NAMES);
        listed.removeAll(Set.of("allow.everyone.if.no.acl.found", "super.users")); // the authorizer's own
        assertEquals(kafka, listed, "kafka-broker-configs.txt is Kafka " + AbstractKafkaConfig.class.getPackage()
            .getImplementationVersion() + "'s CONFIG_DEF");
    }
}
