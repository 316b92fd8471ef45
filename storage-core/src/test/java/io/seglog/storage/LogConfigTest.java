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
        assertEquals(LogConfig.TimestampType.LOG_APPEND_TIME, ours.messageTimestampType());
        assertEquals(kafka.retentionMs, ours.retentionMs());
        assertEquals(kafka.retentionSize, ours.retentionBytes());
        assertEquals(kafka.flushInterval, ours.flushMessages());
        assertEquals(kafka.flushMs, ours.flushMs());
        assertEquals(kafka.fileDeleteDelayMs, ours.fileDeleteDelayMs());
        assertEquals(LogConfig.CleanupPolicy.DELETE, ours.cleanupPolicy());
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
            assertEquals(ours.cleanupPolicy(), LogConfig.CleanupPolicy.fromKafkaName(ours.cleanupPolicy().kafkaName()));
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
}
