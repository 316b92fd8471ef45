package io.seglog.replication.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.seglog.replication.broker.SeglogBrokerConfig;
import io.seglog.storage.LogConfig;
import io.seglog.storage.config.ConfigKey;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * DescribeConfigs' view of topic configs, derived from the configuration tables: checked against Kafka's list
 * (its {@code TopicConfig} order, {@code ServerTopicConfigSynonyms} and config types), and against LogConfig's table.
 */
class TopicConfigsTest {
    /** The oracle: Kafka 4.4's topic configs Seglog has, with their broker-level synonyms and type ids, in order. */
    private static final List<TopicConfigs.Key> KAFKA = List.of(
        new TopicConfigs.Key("segment.bytes", "log.segment.bytes", TopicConfigs.TYPE_INT),
        new TopicConfigs.Key("segment.ms", "log.roll.ms", TopicConfigs.TYPE_LONG),
        new TopicConfigs.Key("segment.jitter.ms", "log.roll.jitter.ms", TopicConfigs.TYPE_LONG),
        new TopicConfigs.Key("segment.index.bytes", "log.index.size.max.bytes", TopicConfigs.TYPE_INT),
        new TopicConfigs.Key("flush.messages", "log.flush.interval.messages", TopicConfigs.TYPE_LONG),
        new TopicConfigs.Key("flush.ms", "log.flush.interval.ms", TopicConfigs.TYPE_LONG),
        new TopicConfigs.Key("retention.bytes", "log.retention.bytes", TopicConfigs.TYPE_LONG),
        new TopicConfigs.Key("retention.ms", "log.retention.ms", TopicConfigs.TYPE_LONG),
        new TopicConfigs.Key("max.message.bytes", "message.max.bytes", TopicConfigs.TYPE_INT),
        new TopicConfigs.Key("index.interval.bytes", "log.index.interval.bytes", TopicConfigs.TYPE_INT),
        new TopicConfigs.Key("file.delete.delay.ms", "log.segment.delete.delay.ms", TopicConfigs.TYPE_LONG),
        new TopicConfigs.Key("delete.retention.ms", "log.cleaner.delete.retention.ms", TopicConfigs.TYPE_LONG),
        new TopicConfigs.Key("min.compaction.lag.ms", "log.cleaner.min.compaction.lag.ms", TopicConfigs.TYPE_LONG),
        new TopicConfigs.Key("max.compaction.lag.ms", "log.cleaner.max.compaction.lag.ms", TopicConfigs.TYPE_LONG),
        new TopicConfigs.Key("min.cleanable.dirty.ratio", "log.cleaner.min.cleanable.ratio", TopicConfigs.TYPE_DOUBLE),
        new TopicConfigs.Key("cleanup.policy", "log.cleanup.policy", TopicConfigs.TYPE_LIST),
        new TopicConfigs.Key("unclean.leader.election.enable", "unclean.leader.election.enable",
            TopicConfigs.TYPE_BOOLEAN),
        new TopicConfigs.Key("min.insync.replicas", "min.insync.replicas", TopicConfigs.TYPE_INT),
        new TopicConfigs.Key("compression.type", "compression.type", TopicConfigs.TYPE_STRING),
        new TopicConfigs.Key("compression.gzip.level", "compression.gzip.level", TopicConfigs.TYPE_INT),
        new TopicConfigs.Key("compression.lz4.level", "compression.lz4.level", TopicConfigs.TYPE_INT),
        new TopicConfigs.Key("compression.zstd.level", "compression.zstd.level", TopicConfigs.TYPE_INT),
        new TopicConfigs.Key("message.timestamp.type", "log.message.timestamp.type", TopicConfigs.TYPE_STRING),
        new TopicConfigs.Key("message.timestamp.before.max.ms", "log.message.timestamp.before.max.ms",
            TopicConfigs.TYPE_LONG),
        new TopicConfigs.Key("message.timestamp.after.max.ms", "log.message.timestamp.after.max.ms",
            TopicConfigs.TYPE_LONG));

    @Test
    void derivedKeysAreKafkasTopicConfigsWithTheirSynonymsAndTypesInKafkasOrder() {
        assertEquals(KAFKA, TopicConfigs.keys(SeglogBrokerConfig.configDef()));
    }

    @Test
    void everyDynamicKafkaTopicKeyIsDescribedWithItsBrokerSynonym() {
        final TopicConfigs configs = new TopicConfigs(LogConfig.defaults(), SeglogBrokerConfig.configDef());
        final Map<String, TopicConfigs.Entry> described = new HashMap<>();
        for (final TopicConfigs.Entry e : configs.describe(Map.of(), true)) {
            described.put(e.name(), e);
        }
        final Map<String, String> brokerSynonyms = new HashMap<>();
        for (final ConfigKey<?> key : SeglogBrokerConfig.configDef().keys()) {
            if (key.synonymOf() != null) {
                brokerSynonyms.put(key.synonymOf().name(), key.name());
            }
        }
        final Map<String, String> kafkaDefaults = LogConfig.defaults().toProperties();
        int dynamic = 0;
        for (final ConfigKey<?> key : LogConfig.configDef().keys()) {
            if (!key.dynamic() || key.name().startsWith("seglog.")) {
                continue; // Seglog's own topic keys are not Kafka's, so DescribeConfigs does not list them
            }
            dynamic++;
            final TopicConfigs.Entry entry = described.get(key.name());
            assertNotNull(entry, key.name() + " is dynamic but DescribeConfigs does not list it");
            final TopicConfigs.Synonym kafkaDefault = entry.synonyms().get(entry.synonyms().size() - 1);
            assertEquals(TopicConfigs.SOURCE_DEFAULT, kafkaDefault.source(), key.name());
            if (brokerSynonyms.containsKey(key.name())) {
                assertEquals(brokerSynonyms.get(key.name()), kafkaDefault.name(), key.name());
            }
            assertEquals(kafkaDefaults.get(key.name()), kafkaDefault.value(), key.name());
        }
        assertEquals(25, dynamic, "Kafka's dynamic topic keys Seglog has");
    }
}
