package io.seglog.storage;

import static io.seglog.storage.KafkaBatches.batch;
import static io.seglog.storage.KafkaBatches.batches;
import static io.seglog.storage.KafkaBatches.bytesOf;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.format.InvalidRecordException;
import io.seglog.storage.format.RecordBatchBuilder;
import io.seglog.storage.io.FileIO;
import io.seglog.storage.cleaner.LogCleaner;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A live log's configuration replaced by {@link PartitionLog#updateConfig}: each kind of setting takes effect at
 * its next use (the next append, the next roll, the next retention check, the cleaner's next pass), on real files.
 */
class LogConfigUpdateTest {
    private static final long T0 = 1_700_000_000_000L;

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(T0);
    private final int batchBytes = batch(0, T0).remaining();

    private PartitionLog open(final LogConfig config) {
        return PartitionLog.open(dir.resolve("t-0"), config, FileIO.system(), clock);
    }

    private long logFiles(final Path partitionDir) throws IOException {
        try (Stream<Path> files = Files.list(partitionDir)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".log")).count();
        }
    }

    /** The stored batches from {@code offset} on, as Kafka's classes read them. */
    private static List<RecordBatch> storedFrom(final PartitionLog log, final long offset) throws IOException {
        return batches(bytesOf(log.read(offset, 1 << 20, Long.MAX_VALUE, true)));
    }

    @Test
    void smallerSegmentBytesRollsTheActiveSegmentAtTheNextAppend() throws IOException {
        try (PartitionLog log = open(LogConfig.builder().segmentBytes(1 << 20).build())) {
            for (int i = 0; i < 3; i++) {
                log.appendAsLeader(batch(0, T0 + i), 0);
            }
            assertEquals(1, log.segmentCount());
            log.updateConfig(log.config().toBuilder().segmentBytes(batchBytes).build());
            assertEquals(batchBytes, log.config().segmentBytes());
            log.appendAsLeader(batch(0, T0 + 3), 0);
            log.appendAsLeader(batch(0, T0 + 4), 0);
            assertArrayEquals(new long[] {0, 3, 4}, log.segmentBaseOffsets(), "each append after the change rolls");
            assertEquals(3, logFiles(log.dir()));
        }
    }

    @Test
    void segmentIndexBytesAppliesToTheNextSegmentOnly() throws IOException {
        try (PartitionLog log = open(LogConfig.builder().segmentBytes(batchBytes).segmentIndexBytes(4096).build())) {
            log.appendAsLeader(batch(0, T0), 0);
            final Path firstIndex = log.dir().resolve("00000000000000000000.index");
            final long firstSize = Files.size(firstIndex);
            log.updateConfig(log.config().toBuilder().segmentIndexBytes(8192).build());
            assertEquals(firstSize, Files.size(firstIndex), "the active segment keeps its index");
            log.appendAsLeader(batch(0, T0 + 1), 0); // rolls: one batch per segment
            assertEquals(8192, Files.size(log.dir().resolve("00000000000000000001.index")));
            assertEquals(4096, firstSize);
        }
    }

    @Test
    void retentionMsAppliesAtTheNextCheck() {
        try (PartitionLog log = open(LogConfig.builder().segmentBytes(batchBytes).retentionMs(-1)
            .fileDeleteDelayMs(0).build())) {
            for (int i = 0; i < 4; i++) {
                log.appendAsLeader(batch(0, T0 + i * 1000L), 0);
            }
            log.updateHighWatermark(log.logEndOffset());
            clock.advanceMs(60_000);
            assertEquals(0, log.deleteOldSegments(), "retention.ms=-1 keeps everything");
            log.updateConfig(log.config().toBuilder().retentionMs(30_000).build());
            assertEquals(4, log.deleteOldSegments(), "every segment is older than 30 s (Kafka rolls the active one)");
            assertEquals(4, log.logStartOffset());
        }
    }

    @Test
    void retentionBytesAndPolicyApplyAtTheNextCheck() {
        try (PartitionLog log = open(LogConfig.builder().segmentBytes(batchBytes).cleanupPolicy(CleanupPolicy.COMPACT)
            .retentionBytes(batchBytes).fileDeleteDelayMs(0).build())) {
            for (int i = 0; i < 4; i++) {
                log.appendAsLeader(batch(0, T0 + i), 0);
            }
            log.updateHighWatermark(log.logEndOffset());
            assertEquals(0, log.deleteOldSegments(), "cleanup.policy=compact: no size retention");
            log.updateConfig(log.config().toBuilder().cleanupPolicy(CleanupPolicy.DELETE).build());
            assertEquals(3, log.deleteOldSegments(), "retention.bytes keeps one segment under delete");
        }
    }

    @Test
    void compressionTypeAppliesToTheNextAppend() throws IOException {
        try (PartitionLog log = open(LogConfig.defaults())) {
            log.appendAsLeader(batch(0, T0), 0);
            log.updateConfig(log.config().toBuilder().compressionType(TopicCompression.GZIP).build());
            log.appendAsLeader(batch(0, T0 + 1), 0);
            log.updateConfig(log.config().toBuilder().compressionType(TopicCompression.PRODUCER).build());
            log.appendAsLeader(batch(0, T0 + 2), 0);
            final List<RecordBatch> stored = storedFrom(log, 0);
            assertEquals(3, stored.size());
            assertEquals(CompressionType.NONE, stored.get(0).compressionType());
            assertEquals(CompressionType.GZIP, stored.get(1).compressionType(), "re-compressed to the new codec");
            assertEquals(CompressionType.NONE, stored.get(2).compressionType(), "producer's codec kept again");
        }
    }

    @Test
    void timestampTypeAndBoundsApplyToTheNextAppend() throws IOException {
        try (PartitionLog log = open(LogConfig.defaults())) {
            log.appendAsLeader(batch(0, T0 - 5_000), 0);
            log.updateConfig(log.config().toBuilder().messageTimestampType(TimestampType.LOG_APPEND_TIME).build());
            log.appendAsLeader(batch(0, T0 - 5_000), 0);
            final List<RecordBatch> stored = storedFrom(log, 0);
            assertEquals(T0 - 5_000, stored.get(0).maxTimestamp());
            assertEquals(org.apache.kafka.common.record.TimestampType.LOG_APPEND_TIME, stored.get(1).timestampType());
            assertEquals(T0, stored.get(1).maxTimestamp(), "stamped with the broker's time");

            log.updateConfig(log.config().toBuilder().messageTimestampType(TimestampType.CREATE_TIME)
                .messageTimestampBeforeMaxMs(1_000).build());
            final InvalidRecordException e = assertThrows(InvalidRecordException.class,
                () -> log.appendAsLeader(batch(0, T0 - 5_000), 0));
            assertTrue(e.getMessage().contains(LogConfig.MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG), e.getMessage());
            assertEquals(2, log.logEndOffset());
        }
    }

    @Test
    void maxMessageBytesAppliesToTheNextAppend() {
        try (PartitionLog log = open(LogConfig.defaults())) {
            log.appendAsLeader(batch(0, T0), 0);
            log.updateConfig(log.config().toBuilder().maxMessageBytes(batchBytes - 1).build());
            assertThrows(InvalidRecordException.class, () -> log.appendAsLeader(batch(0, T0), 0));
            assertEquals(1, log.logEndOffset());
            log.updateConfig(log.config().toBuilder().maxMessageBytes(batchBytes).build());
            log.appendAsLeader(batch(0, T0), 0);
            assertEquals(2, log.logEndOffset());
        }
    }

    @Test
    void flushMessagesAppliesToTheNextAppend() {
        try (PartitionLog log = open(LogConfig.defaults())) {
            log.appendAsLeader(batch(0, T0), 0);
            assertEquals(0, log.flushedOffset(), "flush.messages=Long.MAX_VALUE by default: nothing forced");
            log.updateConfig(log.config().toBuilder().flushMessages(1).build());
            log.appendAsLeader(batch(0, T0), 0);
            assertEquals(2, log.flushedOffset(), "flush.messages=1 fsyncs after the append");
        }
    }

    @Test
    void sameConfigurationIsANoOpAndReadOnlyOrClosedLogsRefuse() {
        final PartitionLog log = open(LogConfig.defaults());
        final LogConfig before = log.config();
        log.updateConfig(LogConfig.defaults());
        assertSame(before, log.config());
        log.close();
        assertThrows(StorageException.class, () -> log.updateConfig(LogConfig.builder().retentionMs(1).build()));
        try (PartitionLog readOnly = PartitionLog.openReadOnly(dir.resolve("t-0"), LogConfig.defaults(),
            FileIO.system(), clock)) {
            assertThrows(IllegalStateException.class,
                () -> readOnly.updateConfig(LogConfig.builder().retentionMs(1).build()));
            assertEquals(LogConfig.defaults(), readOnly.config());
        }
    }

    private static ByteBuffer keyed(final long ts, final String key, final String value) {
        final org.agrona.concurrent.UnsafeBuffer b = RecordBatchBuilder.batchOf(0, new long[] {ts},
            new byte[][] {key.getBytes(StandardCharsets.UTF_8)}, new byte[][] {value.getBytes(StandardCharsets.UTF_8)});
        return ByteBuffer.wrap(b.byteArray(), 0, b.capacity());
    }

    @Test
    void managerCreatesWithTheTopicConfigAndCleanupPolicyAppliesAtTheCleanersNextPass() throws IOException {
        final CleanerConfig cleaning = new CleanerConfig(true, 1, 1 << 20, 1 << 16, 0.9, Double.MAX_VALUE, 0);
        final LogConfig defaults = LogConfig.builder().segmentBytes(4096).build();
        try (LogManager manager = LogManager.open(LogManagerConfig.builder().logDirs(dir).logConfig(defaults)
                .cleanerConfig(new CleanerConfig(false, 1, 1 << 20, 1 << 16, 0.9, Double.MAX_VALUE, 0)).build(),
            FileIO.system(), null, clock);
             LogCleaner cleaner = new LogCleaner(cleaning.settings(), List.of(dir.toAbsolutePath().normalize()),
                 manager::cleanableLogs, FileIO.system(), clock)) {
            final LogConfig small = defaults.withProperties(Map.of(LogConfig.INTERNAL_SEGMENT_BYTES_CONFIG, "200",
                LogConfig.MIN_CLEANABLE_DIRTY_RATIO_CONFIG, "0.01", LogConfig.FILE_DELETE_DELAY_MS_CONFIG, "0"));
            final PartitionLog a0 = manager.getOrCreate(new TopicPartition("a", 0), small);
            final PartitionLog a1 = manager.getOrCreate(new TopicPartition("a", 1), small);
            final PartitionLog b0 = manager.getOrCreate(new TopicPartition("b", 0));
            assertEquals(200, a0.config().segmentBytes());
            assertEquals(4096, b0.config().segmentBytes(), "the manager's default");
            assertSame(a0, manager.getOrCreate(new TopicPartition("a", 0), defaults), "an existing log as it is");
            for (int i = 0; i < 30; i++) {
                a0.appendAsLeader(keyed(T0 + i, "k" + (i % 3), "v" + i), 0);
            }
            a0.updateHighWatermark(a0.logEndOffset());
            assertTrue(a0.segmentCount() > 3, "segments: " + a0.segmentCount());
            assertFalse(cleaner.cleanOnce(), "cleanup.policy=delete: nothing to compact");

            final LogConfig compact = small.toBuilder().cleanupPolicy(CleanupPolicy.COMPACT).build();
            assertEquals(2, manager.updateTopicConfig("a", compact));
            assertSame(compact, a1.config());
            assertEquals(4096, b0.config().segmentBytes(), "another topic unchanged");
            assertEquals(30, LogCleanerTest.readAll(a0.dir()).size());
            assertTrue(cleaner.cleanOnce(), "cleanup.policy=compact: the next pass cleans");
            final int left = LogCleanerTest.readAll(a0.dir()).size();
            assertTrue(left < 30, "records after compaction of 3 keys: " + left);
        }
    }

    @Test
    void logsLoadedAtOpenAndCreatedLaterAskTheTopicConfigSource() {
        final LogManagerConfig managerConfig = LogManagerConfig.builder().logDirs(dir).build();
        final LogConfig compact = LogConfig.builder().cleanupPolicy(CleanupPolicy.COMPACT).build();
        final java.util.function.Function<String, LogConfig> source =
            topic -> topic.equals("c") ? compact : LogConfig.defaults();
        try (LogManager manager = LogManager.open(managerConfig, FileIO.system(), null, clock, null, source)) {
            assertEquals(compact, manager.getOrCreate(new TopicPartition("c", 0)).config());
            assertEquals(LogConfig.defaults(), manager.getOrCreate(new TopicPartition("d", 0)).config());
        }
        try (LogManager manager = LogManager.open(managerConfig, FileIO.system(), null, clock, null, source)) {
            assertEquals(compact, manager.log(new TopicPartition("c", 0)).orElseThrow().config(), "loaded at open");
            assertEquals(LogConfig.defaults(), manager.log(new TopicPartition("d", 0)).orElseThrow().config());
        }
        try (LogManager manager = LogManager.open(managerConfig, FileIO.system(), null, clock)) {
            assertEquals(LogConfig.defaults(), manager.log(new TopicPartition("c", 0)).orElseThrow().config(),
                "without a source: the manager's configuration");
        }
    }
}
