package io.seglog.replication.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.AbstractMap;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The configuration reference is the tables': docs/configuration.md is what they generate, and every key a broker's
 * components read is in them (so the unknown-key report, which trusts the tables, never warns about a key Seglog
 * reads).
 */
class ConfigReferenceTest {
    /** Set to {@code true} ({@code -Dseglog.regenerate.config.reference=true}) to rewrite the committed file. */
    private static final String REGENERATE = "seglog.regenerate.config.reference";
    private static final Path REFERENCE = Path.of("..", "docs", "configuration.md");

    @Test
    void theCommittedReferenceIsWhatTheTablesGenerate() throws IOException {
        final String generated = ConfigReference.markdown();
        if (Boolean.getBoolean(REGENERATE)) {
            Files.writeString(REFERENCE, generated, StandardCharsets.UTF_8);
        }
        final String committed = Files.exists(REFERENCE) ? Files.readString(REFERENCE, StandardCharsets.UTF_8) : "";
        assertEquals(generated, committed, "docs/configuration.md differs from the configuration tables; regenerate"
            + " it from the worktree root with: mvn -o -pl storage-core,replication -am test"
            + " -Dtest=ConfigReferenceTest -Dsurefire.failIfNoSpecifiedTests=false -D" + REGENERATE + "=true");
    }

    @Test
    void everyKeyTheBrokerReadsIsInATable() {
        final Map<String, Object> props = new HashMap<>();
        props.put("broker.id", "1");
        props.put("zookeeper.connect", "localhost:2181");
        props.put("listeners", "PLAINTEXT://127.0.0.1:0");
        props.put("log.dirs", "/tmp/seglog-config-reference");
        final Recording recording = new Recording(props);
        SeglogBrokerConfig.read(recording);
        final Set<String> known = ConfigReference.brokerKeys(SeglogBrokerConfig.TOPIC_KEYS);
        final Set<String> missing = new TreeSet<>(recording.asked());
        missing.removeAll(known);
        assertEquals(Set.of(), missing, "read by a component but in no table");
        assertTrue(known.containsAll(Set.of("num.partitions", "replica.lag.time.max.ms", "min.insync.replicas",
            "log.cleaner.threads", "offsets.topic.num.partitions", "log.retention.hours")), known.toString());
    }

    @Test
    void eachKeyIsDefinedOnce() {
        final Set<String> seen = new HashSet<>();
        final Set<String> twice = new TreeSet<>();
        for (final var section : ConfigReference.sections()) {
            for (final var key : section.table().keys()) {
                if (!seen.add(key.name())) {
                    twice.add(key.name());
                }
            }
        }
        assertEquals(Set.of(), twice, "defined in two tables");
        for (final String shared : new String[] {"unclean.leader.election.enable", "min.insync.replicas",
            "replica.lag.time.max.ms", "seglog.corruption.policy", "message.timestamp.before.max.ms",
            "message.timestamp.after.max.ms"}) {
            assertTrue(seen.contains(shared), shared);
        }
    }

    @Test
    void configurationsPrintKafkasNamesFromTheirTables() {
        assertTrue(io.seglog.replication.replica.ReplicaManagerConfig.defaults().toString()
            .startsWith("ReplicaManagerConfig{replica.lag.time.max.ms=30000, replica.fetch.wait.max.ms=500, "));
        assertEquals("WireServerConfig{listeners=PLAINTEXT://127.0.0.1:0, socket.request.max.bytes=104857600,"
            + " connections.max.idle.ms=600000, socket.send.buffer.bytes=-1, socket.receive.buffer.bytes=-1}",
            io.seglog.replication.wire.WireServerConfig.loopback().toString());
        assertTrue(GroupCoordinatorConfig.defaults().toString()
            .startsWith("GroupCoordinatorConfig{offsets.topic.num.partitions=50, "));
        assertTrue(io.seglog.storage.CleanerConfig.DEFAULTS.toString()
            .startsWith("CleanerConfig{log.cleaner.enable=true, log.cleaner.threads=1, "));
        assertTrue(io.seglog.replication.group.GroupConfig.defaults().toString()
            .startsWith("GroupConfig{group.min.session.timeout.ms=6000, group.max.session.timeout.ms=1800000, "));
        assertTrue(io.seglog.replication.group.GroupConfig.defaults().toString()
            .contains("offsets.retention.minutes=10080, "));
    }

    @Test
    void theBrokersConfigurationPrintsEveryComponentFromItsTableWithSecretsHidden() {
        final String text = SeglogBrokerConfig.fromProperties(Map.of("broker.id", "3", "zookeeper.connect",
            "zk:2181/seglog", "listeners", "PLAINTEXT://:9092", "zookeeper.set.acl", "true", "zookeeper.digest.credentials", "seglog:s3cret",
            "log.dirs", "/tmp/seglog-a,/tmp/seglog-b", "log.segment.bytes", "2097152",
            "log.retention.check.interval.ms", "1000")).toString();
        assertTrue(text.startsWith("SeglogBrokerConfig{advertised.listeners=PLAINTEXT://localhost:9092,"
            + " num.network.threads=3, log.dirs=/tmp/seglog-a,/tmp/seglog-b, log.dir=, "), text);
        assertTrue(text.contains(", log.segment.bytes=2097152, "), text);
        assertTrue(text.contains(" ReplicationConfig{broker.id=3, "), text);
        assertTrue(text.contains("zookeeper.digest.credentials=[hidden]"), text);
        assertTrue(!text.contains("s3cret"), text);
        assertTrue(text.contains(" LogManagerConfig{log.retention.check.interval.ms=1000, "), text);
        assertTrue(text.contains(" ReplicaManagerConfig{replica.lag.time.max.ms=30000, "), text);
        assertTrue(text.contains(" GroupCoordinatorConfig{offsets.topic.num.partitions=50, "), text);
    }

    /** A read-only view of properties that records every key asked for, present or not. */
    private static final class Recording extends AbstractMap<String, Object> {
        private final Map<String, ?> properties;
        private final Set<String> asked = Collections.synchronizedSet(new HashSet<>());

        Recording(final Map<String, ?> properties) {
            this.properties = properties;
        }

        @Override
        public Object get(final Object key) {
            asked.add(String.valueOf(key));
            return properties.get(key);
        }

        @Override
        public boolean containsKey(final Object key) {
            asked.add(String.valueOf(key));
            return properties.containsKey(key);
        }

        @Override
        @SuppressWarnings("unchecked")
        public Set<Entry<String, Object>> entrySet() {
            return Collections.unmodifiableSet((Set<Entry<String, Object>>) (Set<?>) properties.entrySet());
        }

        Set<String> asked() {
            return Set.copyOf(asked);
        }
    }
}
