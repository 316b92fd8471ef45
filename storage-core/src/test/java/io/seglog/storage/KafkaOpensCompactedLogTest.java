package io.seglog.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.cleaner.LogCleaner;
import io.seglog.storage.io.FileIO;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.kafka.server.util.KafkaScheduler;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proof 1 of docs/cleaner.md: a log Seglog's cleaner compacted (lz4 and uncompressed batches, repeated keys,
 * tombstones, rebuilt and emptied batches, offset gaps) opens in Kafka 4.4's UnifiedLog after an unclean shutdown
 * (recovery point 0: Kafka recovers every segment), every batch and index passes Kafka's checks, Kafka reads the
 * records Seglog serves, and Kafka's recovery leaves every {@code .log}, {@code .index} and {@code .timeindex} file
 * byte for byte as Seglog wrote it.
 */
class KafkaOpensCompactedLogTest {
    private static final long SEED = 44_001L;
    private static final int SEGMENT_BYTES = 16 * 1024;
    private static final long DELETE_RETENTION_MS = 60_000;

    @TempDir
    Path dir;

    @Test
    @Timeout(120)
    void kafkaRecoversALogSeglogCompactedWithoutChangingAByte() throws Exception {
        System.out.println("KafkaOpensCompactedLogTest seed=" + SEED);
        final SplittableRandom random = new SplittableRandom(SEED);
        final Path partitionDir = dir.resolve("t-0");
        final ManualClock clock = new ManualClock(CompactedLogs.T0 + 1_000_000);
        final TopicPartition tp = new TopicPartition("t", 0);
        final List<CompactedLogs.Input> input = CompactedLogs.input(random, 600, 80, CompactedLogs.T0);
        int appended = 0;
        final List<String> served;
        final long logEnd;
        try (PartitionLog log = PartitionLog.open(partitionDir, CompactedLogs.seglogConfig(SEGMENT_BYTES,
            DELETE_RETENTION_MS), FileIO.system(), clock)) {
            for (final CompactedLogs.Input batch : input) {
                log.appendAsLeader(batch.bytes(), 0);
                appended += batch.records().length;
            }
            log.updateHighWatermark(log.logEndOffset());
            assertTrue(log.segmentCount() >= 5, "segments=" + log.segmentCount());
            try (LogCleaner cleaner = new LogCleaner(new CleanerConfig(true, 1, 1 << 20, 1 << 16, 0.9,
                Double.MAX_VALUE, 0).settings(), List.of(dir), () -> List.of(new PartitionCleaning(log, tp)),
                FileIO.system(), clock)) {
                assertTrue(cleaner.cleanOnce(), "the log is dirty");
                assertTrue(cleaner.uncleanablePartitions().isEmpty(), "cleaned without failure");
            }
            served = CompactedLogs.served(log);
            logEnd = log.logEndOffset();
        }
        assertTrue(served.size() < appended / 2, "compacted: " + served.size() + " of " + appended + " records");
        assertTrue(served.stream().anyMatch(r -> r.endsWith("|null")), "tombstones younger than the horizon stay");
        final Map<String, byte[]> before = CompactedLogs.segmentFiles(partitionDir);

        final CompactedLogs.TestTime time = new CompactedLogs.TestTime(clock.millis());
        final KafkaScheduler scheduler = new KafkaScheduler(1);
        scheduler.startup();
        final UnifiedLog kafka = CompactedLogs.openKafka(partitionDir,
            CompactedLogs.kafkaConfig(SEGMENT_BYTES, DELETE_RETENTION_MS), scheduler, time, false);
        try {
            assertEquals(logEnd, kafka.logEndOffset(), "log end offset after Kafka's recovery");
            assertEquals(served, CompactedLogs.readByKafka(kafka), "records Kafka reads vs records Seglog serves");
        } finally {
            scheduler.shutdown(); // first: no asynchronous flush may run against the closed log
            kafka.prepareActiveSegmentForClose(); // a broker's shutdown: the active segment's indexes are trimmed
            kafka.close();
        }
        final Map<String, byte[]> after = CompactedLogs.segmentFiles(partitionDir);
        assertEquals(before.keySet(), after.keySet(), "segment files after Kafka's recovery");
        for (final Map.Entry<String, byte[]> file : before.entrySet()) {
            assertArrayEquals(file.getValue(), after.get(file.getKey()), "Kafka rewrote " + file.getKey());
        }
    }
}
