package io.seglog.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.server.util.KafkaScheduler;
import org.apache.kafka.storage.internals.log.LogAppendInfo;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.apache.kafka.storage.internals.log.ProducerStateManagerConfig;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.apache.kafka.storage.log.metrics.BrokerTopicStats;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Producer state across reopen, crash, corruption, truncation, retention and expiration, and across Kafka: a retry
 * of the last batch must still be answered with its original offsets wherever the state was rebuilt from.
 */
@Timeout(120)
class ProducerStateRecoveryTest {
    private static final long PID = 42L;
    /** Near the wall clock: Kafka's logs in the interop tests expire producers against the system time. */
    private static final long START_MS = System.currentTimeMillis();

    @TempDir
    Path root;

    private final ManualClock clock = new ManualClock(START_MS);
    private final LeaderAppendResult info = new LeaderAppendResult();
    private final LeaderAppendResult.Handler<LeaderAppendResult> keep = info::copyFrom;

    private Path dir() {
        return root.resolve("t-0");
    }

    /** Small segments: every 3 batches of 1 record roll a segment (and write a snapshot). */
    private static LogConfig rolling() {
        return LogConfig.builder().segmentBytes(3 * batch(0, 0, 1).remaining()).build();
    }

    private PartitionLog open(final LogConfig config, final long recoveryPoint, final boolean clean) {
        return PartitionLog.open(dir(), config, FileIO.system(), clock, recoveryPoint, clean);
    }

    private static ByteBuffer batch(final int epoch, final int seq, final int records) {
        return batch(PID, epoch, seq, records, START_MS);
    }

    private static ByteBuffer batch(final long pid, final int epoch, final int seq, final int records,
                                    final long timestamp) {
        final SimpleRecord[] r = new SimpleRecord[records];
        for (int i = 0; i < records; i++) {
            r[i] = new SimpleRecord(timestamp, null, ("value-" + seq + "-" + i).getBytes());
        }
        final ByteBuffer built = MemoryRecords.withIdempotentRecords(Compression.NONE, pid, (short) epoch, seq, r)
            .buffer();
        return ByteBuffer.allocate(built.remaining()).put(built).flip();
    }

    /** Appends {@code count} one-record batches from sequence {@code from}. */
    private void appendOneRecordBatches(final PartitionLog log, final int from, final int count) {
        for (int s = from; s < from + count; s++) {
            log.appendAsLeader(batch(0, s, 1), 0, keep);
            assertEquals(AppendOutcome.APPENDED, info.outcome(), info.message());
        }
    }

    private void assertRetryIsDuplicate(final PartitionLog log, final int seq, final long offset) {
        final long end = log.logEndOffset();
        log.appendAsLeader(batch(0, seq, 1), 0, keep);
        assertEquals(AppendOutcome.DUPLICATE, info.outcome(), info.toString());
        assertEquals(offset, info.firstOffset());
        assertEquals(end, log.logEndOffset(), "nothing appended");
    }

    private long[] snapshotOffsets() throws IOException {
        try (Stream<Path> files = Files.list(dir())) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".snapshot"))
                .mapToLong(n -> Long.parseLong(n.substring(0, 20))).sorted().toArray();
        }
    }

    @Test
    void cleanCloseWritesASnapshotAtTheLogEndThatTheReopenUses() throws Exception {
        try (PartitionLog log = open(LogConfig.builder().build(), 0, false)) {
            log.appendAsLeader(batch(0, 0, 2), 0, keep);
            log.appendAsLeader(batch(0, 2, 2), 0, keep);
        }
        assertArrayEquals(new long[] {4}, snapshotOffsets());
        // A clean reopen at the snapshot's offset replays nothing: the snapshot alone holds the producer.
        try (PartitionLog log = open(LogConfig.builder().build(), 4, true)) {
            assertEquals(1, log.producerIdCount());
            log.appendAsLeader(batch(0, 2, 2), 0, keep);
            assertEquals(AppendOutcome.DUPLICATE, info.outcome());
            assertEquals(2, info.firstOffset());
            assertEquals(3, info.lastOffset());
            log.appendAsLeader(batch(0, 5, 1), 0, keep);
            assertEquals(AppendOutcome.OUT_OF_ORDER_SEQUENCE, info.outcome(), "the last sequence was 3");
        }
    }

    @Test
    void rollsWriteSnapshotsAtTheNewSegmentBase() throws Exception {
        try (PartitionLog log = open(rolling(), 0, false)) {
            appendOneRecordBatches(log, 0, 7);
            assertArrayEquals(new long[] {0, 3, 6}, log.segmentBaseOffsets());
            assertArrayEquals(new long[] {3, 6}, snapshotOffsets(), "no snapshot for an empty state at 0");
        }
    }

    @Test
    void afterAnUncleanStopStateIsRebuiltFromTheLastTrustedSnapshotAndTheLog() throws Exception {
        try (PartitionLog log = open(rolling(), 0, false)) {
            appendOneRecordBatches(log, 0, 10);
        }
        assertArrayEquals(new long[] {3, 6, 9, 10}, snapshotOffsets());
        // No clean-shutdown marker, recovery point 6: snapshots above it may describe lost batches and go.
        try (PartitionLog log = open(rolling(), 6, false)) {
            assertArrayEquals(new long[] {3, 6}, snapshotOffsets());
            assertRetryIsDuplicate(log, 9, 9);
            assertRetryIsDuplicate(log, 7, 7);
            log.appendAsLeader(batch(0, 10, 1), 0, keep);
            assertEquals(AppendOutcome.APPENDED, info.outcome(), info.message());
            assertEquals(10, info.firstOffset());
        }
        // With no snapshot at all (recovery point 0) the whole log is replayed.
        try (PartitionLog log = open(rolling(), 0, false)) {
            assertArrayEquals(new long[0], snapshotOffsets());
            assertRetryIsDuplicate(log, 10, 10);
        }
    }

    @Test
    void aCorruptSnapshotIsRefusedByItsCrcAndTheStateRebuilt() throws Exception {
        try (PartitionLog log = open(rolling(), 0, false)) {
            appendOneRecordBatches(log, 0, 8);
        }
        final Path latest = dir().resolve("00000000000000000008.snapshot");
        final byte[] bytes = Files.readAllBytes(latest);
        bytes[bytes.length - 20] ^= 0x40;
        Files.write(latest, bytes);

        try (PartitionLog log = open(rolling(), 8, true)) {
            assertFalse(Files.exists(latest), "the corrupt snapshot is deleted at open");
            assertRetryIsDuplicate(log, 7, 7);
        }
        assertArrayEquals(new long[] {3, 6, 8}, snapshotOffsets(), "a good one is written again at close");
    }

    @Test
    void truncationDropsSnapshotsAboveTheNewEndAndReloads() throws Exception {
        try (PartitionLog log = open(rolling(), 0, false)) {
            appendOneRecordBatches(log, 0, 10);
            assertArrayEquals(new long[] {3, 6, 9}, snapshotOffsets());

            assertEquals(5, log.truncateTo(5));

            assertArrayEquals(new long[] {3}, snapshotOffsets());
            log.appendAsLeader(batch(0, 7, 1), 0, keep);
            assertEquals(AppendOutcome.OUT_OF_ORDER_SEQUENCE, info.outcome(), "sequence 5 comes next");
            log.appendAsLeader(batch(0, 5, 1), 0, keep);
            assertEquals(AppendOutcome.APPENDED, info.outcome(), "no longer a duplicate: it was cut");
            assertEquals(5, info.firstOffset());
            assertRetryIsDuplicate(log, 4, 4);

            log.truncateFullyAndStartAt(100);
            assertArrayEquals(new long[0], snapshotOffsets());
            assertEquals(0, log.producerIdCount());
        }
    }

    @Test
    void retentionDeletesSnapshotsBelowTheLogStart() throws Exception {
        try (PartitionLog log = open(rolling(), 0, false)) {
            appendOneRecordBatches(log, 0, 10);
            log.updateHighWatermark(log.logEndOffset());

            log.deleteRecordsBefore(6);

            assertEquals(6, log.logStartOffset());
            assertArrayEquals(new long[] {6, 9}, snapshotOffsets());
            assertRetryIsDuplicate(log, 9, 9);
        }
    }

    @Test
    void producersIdleForTheExpirationAreForgottenAndMayStartAnywhere() throws Exception {
        final LogConfig config = LogConfig.builder().producerIdExpirationMs(60_000).build();
        try (PartitionLog log = open(config, 0, false)) {
            log.appendAsLeader(batch(PID, 0, 0, 1, clock.millis()), 0, keep);
            log.appendAsLeader(batch(7L, 0, 0, 1, clock.millis() + 30_000), 0, keep);
            clock.advanceMs(59_999);
            assertEquals(0, log.removeExpiredProducers());
            clock.advanceMs(1);

            assertEquals(1, log.removeExpiredProducers(), "the last timestamp is the batch's max timestamp");

            assertEquals(1, log.producerIdCount());
            log.appendAsLeader(batch(PID, 0, 17, 1, clock.millis()), 0, keep);
            assertEquals(AppendOutcome.APPENDED, info.outcome(), "an unknown producer starts anywhere");
        }
        clock.advanceMs(120_000);
        try (PartitionLog log = open(config, 3, true)) {
            assertEquals(0, log.producerIdCount(), "expired producers are dropped when the snapshot loads");
        }
    }

    @Test
    void theOldAppendMethodThrowsTypedExceptionsAndReturnsADuplicatesOriginalOffset() throws Exception {
        try (PartitionLog log = open(LogConfig.builder().build(), 0, false)) {
            assertEquals(1, log.appendAsLeader(batch(3, 0, 2), 0));
            assertEquals(1, log.appendAsLeader(batch(3, 0, 2), 0), "a duplicate: the original last offset");
            assertEquals(2, log.logEndOffset());
            final OutOfOrderSequenceException gap = assertThrows(OutOfOrderSequenceException.class,
                () -> log.appendAsLeader(batch(3, 9, 1), 0));
            assertEquals(PID, gap.producerId());
            assertEquals(9, gap.firstSequence());
            assertEquals(1, gap.currentLastSequence());
            final InvalidProducerEpochException fenced = assertThrows(InvalidProducerEpochException.class,
                () -> log.appendAsLeader(batch(2, 2, 1), 0));
            assertEquals(2, fenced.producerEpoch());
            assertEquals(3, fenced.currentProducerEpoch());
            assertTrue(fenced.getMessage().contains("producer " + PID), fenced.getMessage());
        }
    }

    @Test
    void kafkaOpensOurLogAndAnswersARetryFromOurSnapshot() throws Exception {
        try (PartitionLog log = open(LogConfig.builder().build(), 0, false)) {
            log.appendAsLeader(batch(PID, 0, 0, 2, clock.millis()), 0, keep);
            log.appendAsLeader(batch(PID, 0, 2, 3, clock.millis()), 0, keep);
        }
        Files.deleteIfExists(dir().resolve(".lock"));
        final KafkaScheduler scheduler = new KafkaScheduler(1);
        scheduler.startup();
        try {
            final UnifiedLog kafka = UnifiedLog.create(dir().toFile(),
                new org.apache.kafka.storage.internals.log.LogConfig(Map.of()), 0L, 5L, scheduler,
                new BrokerTopicStats(), Time.SYSTEM, 300_000, new ProducerStateManagerConfig(86_400_000, false),
                600_000, new LogDirFailureChannel(10), true, Optional.empty());
            try {
                assertEquals(5, kafka.logEndOffset());
                assertEquals(1, kafka.producerStateManager().activeProducers().size());
                final LogAppendInfo retry = kafka.appendAsLeader(MemoryRecords.readableRecords(
                    batch(PID, 0, 2, 3, clock.millis())), 0);
                assertEquals(2, retry.firstOffset());
                assertEquals(4, retry.lastOffset());
                assertEquals(5, kafka.logEndOffset(), "Kafka saw the duplicate in our snapshot");
            } finally {
                kafka.close();
            }
        } finally {
            scheduler.shutdown();
        }
    }

    @Test
    void weOpenKafkasLogAndAnswerARetryFromItsSnapshot() throws Exception {
        final KafkaScheduler scheduler = new KafkaScheduler(1);
        scheduler.startup();
        try {
            final UnifiedLog kafka = UnifiedLog.create(dir().toFile(),
                new org.apache.kafka.storage.internals.log.LogConfig(Map.of()), 0L, 0L, scheduler,
                new BrokerTopicStats(), Time.SYSTEM, 300_000, new ProducerStateManagerConfig(86_400_000, false),
                600_000, new LogDirFailureChannel(10), true, Optional.of(Uuid.randomUuid()));
            kafka.appendAsLeader(MemoryRecords.readableRecords(batch(PID, 1, 0, 4, clock.millis())), 0);
            kafka.appendAsLeader(MemoryRecords.readableRecords(batch(PID, 1, 4, 1, clock.millis())), 0);
            kafka.takeProducerSnapshot();
            kafka.prepareActiveSegmentForClose();
            kafka.flush(true);
            scheduler.shutdown();
            kafka.close();
        } finally {
            scheduler.shutdown();
        }
        assertTrue(Files.exists(dir().resolve("00000000000000000005.snapshot")), "Kafka wrote its snapshot");
        try (PartitionLog log = open(LogConfig.builder().build(), 5, true)) {
            assertEquals(1, log.producerIdCount());
            log.appendAsLeader(batch(PID, 1, 4, 1, clock.millis()), 0, keep);
            assertEquals(AppendOutcome.DUPLICATE, info.outcome());
            assertEquals(4, info.firstOffset());
            log.appendAsLeader(batch(PID, 0, 5, 1, clock.millis()), 0, keep);
            assertEquals(AppendOutcome.INVALID_PRODUCER_EPOCH, info.outcome());
        }
    }
}
