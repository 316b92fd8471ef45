package io.seglog.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LogConfigTest {
    @Test
    void defaultsAreKafka44Defaults() {
        final org.apache.kafka.storage.internals.log.LogConfig kafka =
            new org.apache.kafka.storage.internals.log.LogConfig(Map.of());
        final LogConfig ours = LogConfig.defaults();
        assertEquals(kafka.segmentSize(), ours.segmentBytes());
        assertEquals(kafka.segmentMs, ours.segmentMs());
        assertEquals(kafka.segmentJitterMs, ours.segmentJitterMs());
        assertEquals(kafka.maxIndexSize, ours.segmentIndexBytes());
        assertEquals(kafka.indexInterval, ours.indexIntervalBytes());
        assertEquals(kafka.maxMessageSize(), ours.maxMessageBytes());
        assertEquals(kafka.messageTimestampType.name, ours.messageTimestampType().kafkaName());
        assertEquals(kafka.retentionMs, ours.retentionMs());
        assertEquals(kafka.retentionSize, ours.retentionBytes());
        assertEquals(kafka.flushInterval, ours.flushMessages());
        assertEquals(kafka.flushMs, ours.flushMs());
        assertEquals(kafka.fileDeleteDelayMs, ours.fileDeleteDelayMs());
        // Broker-level in Kafka (TransactionLogConfig, not on this class path): one day, checked every ten minutes.
        assertEquals(86_400_000L, ours.producerIdExpirationMs());
        assertEquals(600_000L, ours.producerIdExpirationCheckIntervalMs());
        assertEquals(1234L, LogConfig.fromProperties(Map.of("producer.id.expiration.ms", "1234"))
            .producerIdExpirationMs(), "Kafka's property name");
    }

    @Test
    void readsKafkaPropertyNamesAsKafkaDoes() {
        final Map<String, Object> props = new HashMap<>();
        props.put("segment.bytes", "2097152");
        props.put("segment.ms", 3_600_000L);
        props.put("segment.jitter.ms", "1000");
        props.put("segment.index.bytes", "4096");
        props.put("index.interval.bytes", 100);
        props.put("max.message.bytes", "5000");
        props.put("message.timestamp.type", "LogAppendTime");
        props.put("retention.ms", "-1");
        props.put("retention.bytes", "123456");
        props.put("flush.messages", "10");
        props.put("flush.ms", "500");
        props.put("file.delete.delay.ms", "0");
        props.put("cleanup.policy", "delete");
        final LogConfig ours = LogConfig.fromProperties(props);
        final org.apache.kafka.storage.internals.log.LogConfig kafka =
            new org.apache.kafka.storage.internals.log.LogConfig(props);
        assertEquals(kafka.segmentSize(), ours.segmentBytes());
        assertEquals(kafka.segmentMs, ours.segmentMs());
        assertEquals(kafka.segmentJitterMs, ours.segmentJitterMs());
        assertEquals(kafka.maxIndexSize, ours.segmentIndexBytes());
        assertEquals(kafka.indexInterval, ours.indexIntervalBytes());
        assertEquals(kafka.maxMessageSize(), ours.maxMessageBytes());
        assertEquals(TimestampType.LOG_APPEND_TIME, ours.messageTimestampType());
        assertEquals(kafka.retentionMs, ours.retentionMs());
        assertEquals(kafka.retentionSize, ours.retentionBytes());
        assertEquals(kafka.flushInterval, ours.flushMessages());
        assertEquals(kafka.flushMs, ours.flushMs());
        assertEquals(kafka.fileDeleteDelayMs, ours.fileDeleteDelayMs());
        assertEquals(CleanupPolicy.DELETE, ours.cleanupPolicy());
        assertEquals(ours, ours.toBuilder().build());
    }

    @Test
    void readsCleanupPolicyAsKafkaDoes() {
        for (final String value : new String[] {"delete", "compact", "compact,delete", "delete,compact",
            "delete, compact"}) {
            final LogConfig ours = LogConfig.fromProperties(Map.of("cleanup.policy", value));
            final org.apache.kafka.storage.internals.log.LogConfig kafka =
                new org.apache.kafka.storage.internals.log.LogConfig(Map.of("cleanup.policy", value));
            assertEquals(kafka.compact, ours.cleanupPolicy().compact(), value);
            assertEquals(kafka.delete, ours.cleanupPolicy().delete(), value);
            assertEquals(ours, ours.toBuilder().build());
            assertEquals(ours.cleanupPolicy(), CleanupPolicy.fromKafkaName(ours.cleanupPolicy().kafkaName()));
        }
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> LogConfig.fromProperties(Map.of("cleanup.policy", "compact,shred")));
        assertTrue(e.getMessage().contains("cleanup.policy=compact,shred"), e.getMessage());
    }

    @Test
    void segmentBytesBelowOneMebibyteNeedsTheInternalKey() {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> LogConfig.fromProperties(Map.of("segment.bytes", "1000")));
        assertTrue(e.getMessage().contains("segment.bytes=1000"), e.getMessage());
        assertTrue(e.getMessage().contains("1048576"), e.getMessage());
        assertEquals(1000, LogConfig.fromProperties(Map.of("internal.segment.bytes", "1000")).segmentBytes());
    }

    @Test
    void validationNamesKeyAndValue() {
        assertMessage(() -> LogConfig.builder().segmentMs(0).build(), "segment.ms=0");
        assertMessage(() -> LogConfig.builder().segmentJitterMs(-1).build(), "segment.jitter.ms=-1");
        assertMessage(() -> LogConfig.builder().segmentIndexBytes(3).build(), "segment.index.bytes=3");
        assertMessage(() -> LogConfig.builder().indexIntervalBytes(-5).build(), "index.interval.bytes=-5");
        assertMessage(() -> LogConfig.builder().segmentBytes(10).build(), "segment.bytes=10");
        assertMessage(() -> LogConfig.builder().retentionMs(-2).build(), "retention.ms=-2");
        assertMessage(() -> LogConfig.builder().flushMessages(0).build(), "flush.messages=0");
        assertMessage(() -> LogConfig.builder().flushMs(-1).build(), "flush.ms=-1");
        assertMessage(() -> LogConfig.builder().fileDeleteDelayMs(-1).build(), "file.delete.delay.ms=-1");
        assertMessage(() -> LogConfig.builder().maxMessageBytes(-1).build(), "max.message.bytes=-1");
        assertMessage(() -> LogConfig.fromProperties(Map.of("message.timestamp.type", "Wallclock")),
            "message.timestamp.type=Wallclock");
        assertMessage(() -> LogConfig.fromProperties(Map.of("segment.ms", "soon")), "segment.ms=soon");
        assertMessage(() -> LogConfig.fromProperties(Map.of("segment.index.bytes", "99999999999")),
            "segment.index.bytes=99999999999");
    }

    @Test
    void readMappedIsOnByDefaultAndReadFromItsKey() {
        assertTrue(LogConfig.defaults().readMapped());
        assertEquals(false, LogConfig.fromProperties(Map.of("seglog.read.mapped", "false")).readMapped());
        assertEquals(false, LogConfig.fromProperties(Map.of("seglog.read.mapped", Boolean.FALSE)).readMapped());
        assertEquals(true, LogConfig.fromProperties(Map.of("seglog.read.mapped", " TRUE ")).readMapped());
        final LogConfig off = LogConfig.builder().readMapped(false).build();
        assertEquals(off, off.toBuilder().build());
        assertTrue(!off.equals(LogConfig.defaults()), "the key takes part in equals");
        assertTrue(off.toString().contains("seglog.read.mapped=false"), off.toString());
        assertMessage(() -> LogConfig.fromProperties(Map.of("seglog.read.mapped", "yes")), "seglog.read.mapped=yes");
    }

    private static void assertMessage(final org.junit.jupiter.api.function.Executable call, final String expected) {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        assertTrue(e.getMessage().contains(expected), () -> "'" + e.getMessage() + "' should contain " + expected);
    }

    @Test
    void keysAComponentClaimsAreValidatedByIt() {
        assertMessage(() -> LogConfig.fromProperties(Map.of("min.insync.replicas", "abc")), "min.insync.replicas=abc");
        assertMessage(() -> LogConfig.fromProperties(Map.of("min.insync.replicas", 0)), "min.insync.replicas=0");
        assertMessage(() -> LogConfig.fromProperties(Map.of("unclean.leader.election.enable", "maybe")),
            "unclean.leader.election.enable=maybe");
        final LogConfig read = LogConfig.fromProperties(Map.of("min.insync.replicas", "2",
            "unclean.leader.election.enable", "true"));
        assertEquals(2, read.minInsyncReplicas());
        assertTrue(read.uncleanLeaderElectionEnable());
        final org.apache.kafka.storage.internals.log.LogConfig kafka =
            new org.apache.kafka.storage.internals.log.LogConfig(Map.of());
        assertEquals(kafka.minInSyncReplicas, LogConfig.defaults().minInsyncReplicas());
        assertEquals(kafka.uncleanLeaderElectionEnable, LogConfig.defaults().uncleanLeaderElectionEnable());
    }

    @Test
    void unknownKeysAreReportedNotDropped() {
        final Map<String, Object> props = Map.of("segment.ms", "10", "broker.id", "1", "log.dirs", "/tmp/x",
            "internal.segment.bytes", "4096");
        assertEquals(java.util.List.of("broker.id", "log.dirs"), LogConfig.unknownKeys(props));
        assertEquals(10, LogConfig.fromProperties(props).segmentMs(), "unknown keys do not stop the known ones");
    }

    @Test
    void everyKeyRoundTripsThroughToStringAndProperties() {
        // A configuration with every key away from its default, printed by the table and read back by the table.
        final LogConfig changed = LogConfig.builder().segmentBytes(2 << 20).segmentMs(11).segmentJitterMs(3)
            .segmentIndexBytes(8192).indexIntervalBytes(100).maxMessageBytes(5000)
            .messageTimestampType(TimestampType.LOG_APPEND_TIME).messageTimestampBeforeMaxMs(7)
            .messageTimestampAfterMaxMs(8).retentionMs(9).retentionBytes(10).flushMessages(12).flushMs(13)
            .fileDeleteDelayMs(14).corruptionPolicy(CorruptionPolicy.TRUNCATE).mappedAppendMaxBytes(15)
            .cleanupPolicy(CleanupPolicy.COMPACT_DELETE).readMapped(false).minInsyncReplicas(2)
            .uncleanLeaderElectionEnable(true).compressionType(TopicCompression.ZSTD).compressionLevels(5, 12, 7)
            .minCleanableDirtyRatio(0.25).minCompactionLagMs(16).maxCompactionLagMs(17).deleteRetentionMs(18)
            .producerIdExpirationMs(19).producerIdExpirationCheckIntervalMs(20)
            .build();
        final Map<String, Object> parsed = properties(changed);
        final Map<String, Object> defaults = properties(LogConfig.defaults());
        for (final String key : LogConfig.keyNames()) {
            if (!key.equals(LogConfig.INTERNAL_SEGMENT_BYTES_CONFIG)) {
                assertTrue(parsed.containsKey(key), "toString lists " + key + ": " + changed);
                assertTrue(!parsed.get(key).equals(defaults.get(key)), "the test moves every key off its default: "
                    + key);
            }
        }
        final LogConfig back = LogConfig.fromProperties(parsed);
        assertEquals(changed, back);
        assertEquals(changed.hashCode(), back.hashCode());
        assertTrue(!changed.equals(LogConfig.defaults()));
    }

    @Test
    void compressionKeysReadKafkasNamesAndRefuseBadValuesByName() {
        final LogConfig config = LogConfig.fromProperties(Map.of("compression.type", "lz4",
            "compression.lz4.level", "17", "compression.gzip.level", "-1", "compression.zstd.level", "-5"));
        assertEquals(TopicCompression.LZ4, config.compressionType());
        assertEquals(17, config.compressionLz4Level());
        assertEquals(-1, config.compressionGzipLevel());
        assertEquals(-5, config.compressionZstdLevel());
        assertEquals(TopicCompression.PRODUCER, LogConfig.defaults().compressionType());
        final IllegalArgumentException type = assertThrows(IllegalArgumentException.class,
            () -> LogConfig.fromProperties(Map.of("compression.type", "brotli")));
        assertTrue(type.getMessage().contains("compression.type=brotli"), type.getMessage());
        final IllegalArgumentException level = assertThrows(IllegalArgumentException.class,
            () -> LogConfig.fromProperties(Map.of("compression.gzip.level", "10")));
        assertTrue(level.getMessage().contains("compression.gzip.level=10"), level.getMessage());
        assertThrows(IllegalArgumentException.class,
            () -> LogConfig.builder().compressionLevels(0, 9, 3).build());
    }

    @Test
    void aMinimumCompactionLagAboveTheMaximumIsRefusedNamingBothKeys() {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> LogConfig.fromProperties(Map.of("min.compaction.lag.ms", "5000", "max.compaction.lag.ms", "4000")));
        assertTrue(e.getMessage().contains("min.compaction.lag.ms=5000") && e.getMessage().contains(
            "max.compaction.lag.ms=4000"), e.getMessage());
        assertEquals(4000, LogConfig.fromProperties(Map.of("min.compaction.lag.ms", "4000", "max.compaction.lag.ms",
            "4000")).maxCompactionLagMs());
    }

    /** The {@code key=value} pairs of a configuration's toString. */
    private static Map<String, Object> properties(final LogConfig config) {
        final String text = config.toString();
        final Map<String, Object> parsed = new HashMap<>();
        final String body = text.substring(text.indexOf('{') + 1, text.length() - 1);
        for (final String pair : body.split(", (?=[a-z0-9.]+=)")) {
            parsed.put(pair.substring(0, pair.indexOf('=')), pair.substring(pair.indexOf('=') + 1));
        }
        return parsed;
    }

    @Test
    void toPropertiesSpellsEveryValueAsKafkaDoesAndReadsBackEqual() {
        final LogConfig config = LogConfig.fromProperties(Map.of("retention.ms", "3600000", "cleanup.policy", "compact",
            "message.timestamp.type", "LogAppendTime", "min.cleanable.dirty.ratio", "0.25"));
        final Map<String, String> props = config.toProperties();
        assertEquals("3600000", props.get("retention.ms"));
        assertEquals("compact", props.get("cleanup.policy"));
        assertEquals("LogAppendTime", props.get("message.timestamp.type"));
        assertEquals("0.25", props.get("min.cleanable.dirty.ratio"));
        assertEquals("producer", props.get("compression.type"));
        assertEquals(String.valueOf(LogConfig.DEFAULT_SEGMENT_BYTES), props.get("segment.bytes"));
        assertEquals(config, LogConfig.fromProperties(props));
    }

    @Test
    void withPropertiesLaysOverridesOverTheBaseByTheSameRules() {
        final LogConfig base = LogConfig.builder().segmentBytes(4096).retentionMs(1000).build();
        final LogConfig topic = base.withProperties(Map.of("retention.ms", "5000", "max.message.bytes", "2048"));
        assertEquals(4096, topic.segmentBytes(), "the base's value stays where no override is given");
        assertEquals(5000, topic.retentionMs());
        assertEquals(2048, topic.maxMessageBytes());
        assertEquals(1000, base.retentionMs(), "the base is unchanged");
        final IllegalArgumentException small = assertThrows(IllegalArgumentException.class,
            () -> base.withProperties(Map.of("segment.bytes", "4096")));
        assertTrue(small.getMessage().contains("segment.bytes=4096"), small.getMessage());
        final IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
            () -> base.withProperties(Map.of("retention.ms", "soon")));
        assertTrue(bad.getMessage().contains("retention.ms"), bad.getMessage());
    }

    @Test
    void everyKeyARunningLogTakesOverIsDynamicAndTheThreeReadAtOpenAreNot() {
        final java.util.Set<String> readAtOpen = new java.util.TreeSet<>();
        for (final io.seglog.storage.config.ConfigKey<?> key : LogConfig.configDef().keys()) {
            if (!key.dynamic()) {
                readAtOpen.add(key.name());
            }
        }
        // PartitionLog.updateConfig: these keep their value until the log is opened again.
        assertEquals(java.util.Set.of(LogConfig.PRODUCER_ID_EXPIRATION_MS_CONFIG,
            LogConfig.PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS_CONFIG, LogConfig.CORRUPTION_POLICY_CONFIG), readAtOpen);
        assertEquals("compression.gzip.level=0 must be in [1, 9] or -1", assertThrows(IllegalArgumentException.class,
            () -> LogConfig.builder().compressionLevels(0, 9, 3).build()).getMessage());
    }
}
