package io.seglog.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.checkpoint.PartitionKey;
import io.seglog.storage.cleaner.CleanableLog;
import io.seglog.storage.cleaner.CompactionSettings;
import io.seglog.storage.cleaner.LogCleaner;
import io.seglog.storage.io.FileIO;
import io.seglog.storage.segment.LogSegment;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.agrona.concurrent.UnsafeBuffer;
import io.seglog.storage.format.RecordBatchBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A process stopped inside the swap: after the {@code .swap} rename and before the old segments are retired, the
 * next open finishes the swap (the new segments); a stop before it leaves a {@code .cleaned} file that the open
 * deletes (the old segments). Never a mix, never a loss.
 */
class CleanerSwapCrashTest {
    private static final long T0 = 1_700_000_000_000L;

    @TempDir
    Path logDir;

    private final ManualClock clock = new ManualClock(T0);

    private LogConfig config() {
        return LogConfig.builder().cleanupPolicy(CleanupPolicy.COMPACT).segmentBytes(1024)
            .minCleanableDirtyRatio(0.01).fileDeleteDelayMs(0).build();
    }

    private static ByteBuffer batch(final String key, final String value) {
        final UnsafeBuffer b = RecordBatchBuilder.batchOf(0, new long[] {T0},
            new byte[][] {key.getBytes(StandardCharsets.UTF_8)}, new byte[][] {value.getBytes(StandardCharsets.UTF_8)});
        return ByteBuffer.wrap(b.byteArray(), 0, b.capacity());
    }

    /** Stops the round at the log's part of the swap, as a process stopped there would. */
    private static class StopAtSwap implements CleanableLog {
        private final CleanableLog log;

        StopAtSwap(final CleanableLog log) {
            this.log = log;
        }

        @Override public PartitionKey partition() { return log.partition(); }
        @Override public Path dir() { return log.dir(); }
        @Override public CompactionSettings compaction() { return log.compaction(); }
        @Override public FileIO io() { return log.io(); }
        @Override public LogSegment[] segments() { return log.segments(); }
        @Override public long logStartOffset() { return log.logStartOffset(); }
        @Override public long lastStableOffset() { return log.lastStableOffset(); }
        @Override public long logEndOffset() { return log.logEndOffset(); }
        @Override public boolean isClosedOrOffline() { return log.isClosedOrOffline(); }

        @Override
        public boolean replaceSegments(final LogSegment[] group, final Path swapFile, final long nowMs)
            throws IOException {
            throw new IOException("stopped after renaming " + swapFile.getFileName());
        }
    }

    private LogManager openManager() {
        return LogManager.open(LogManagerConfig.builder().logDirs(logDir).logConfig(config())
            .cleanerConfig(new CleanerConfig(false, 1, 1 << 20, 1 << 16, 0.9, Double.MAX_VALUE, 0)).build(),
            FileIO.system(), null, clock);
    }

    @Test
    void reopenFinishesASwapStoppedBeforeTheOldSegmentsWereRetired() throws IOException {
        final TopicPartition tp = new TopicPartition("t", 0);
        final List<LogCleanerTest.Rec> original;
        try (LogManager manager = openManager()) {
            final PartitionLog log = manager.getOrCreate(tp);
            for (int i = 0; i < 60; i++) {
                log.appendAsLeader(batch("k" + (i % 3), "v" + i), 0);
            }
            log.updateHighWatermark(log.logEndOffset());
            original = LogCleanerTest.readAll(log.dir());
            try (LogCleaner cleaner = new LogCleaner(new CleanerConfig(true, 1, 1 << 20, 1 << 16, 0.9,
                Double.MAX_VALUE, 0).settings(), List.of(logDir.toAbsolutePath().normalize()),
                () -> List.of(new StopAtSwap(new PartitionCleaning(log, tp))), FileIO.system(), clock)) {
                assertTrue(cleaner.cleanOnce());
                assertEquals(1, cleaner.uncleanablePartitions().size(), "the failure marks it uncleanable");
            }
            try (Stream<Path> files = Files.list(log.dir())) {
                assertTrue(files.anyMatch(p -> p.getFileName().toString().endsWith(".log.swap")));
            }
        }
        try (LogManager manager = openManager()) {
            final List<LogCleanerTest.Rec> reopened = LogCleanerTest.readAll(manager.log(tp).orElseThrow().dir());
            // The first group's swap completed: its segments' superseded records are gone, the rest are intact.
            assertTrue(reopened.size() < original.size(), "the swap was finished");
            assertTrue(original.containsAll(reopened), "nothing new appeared");
            assertEquals(original.get(original.size() - 1), reopened.get(reopened.size() - 1), "the tail is kept");
            long previous = -1;
            for (final LogCleanerTest.Rec r : reopened) {
                assertTrue(r.offset() > previous);
                previous = r.offset();
            }
        }
    }

    @Test
    void reopenFinishesTheSwapOfTheAbortedTransactionsIndexWithTheLog() throws IOException {
        final TopicPartition tp = new TopicPartition("t", 0);
        final Map<String, String> before;
        try (LogManager manager = openManager()) {
            final PartitionLog log = manager.getOrCreate(tp);
            appendAbortedThenPlain(log);
            before = CleanerTransactionsTest.readCommitted(log);
            try (LogCleaner cleaner = new LogCleaner(new CleanerConfig(true, 1, 1 << 20, 1 << 16, 0.9,
                Double.MAX_VALUE, 0).settings(), List.of(logDir.toAbsolutePath().normalize()),
                () -> List.of(new StopAtSwap(new PartitionCleaning(log, tp))), FileIO.system(), clock)) {
                assertTrue(cleaner.cleanOnce());
            }
            try (Stream<Path> files = Files.list(log.dir())) {
                assertTrue(files.anyMatch(p -> p.getFileName().toString().endsWith(".txnindex.swap")),
                    "the cleaned index waits beside the log's swap file");
            }
        }
        try (LogManager manager = openManager()) {
            final PartitionLog log = manager.log(tp).orElseThrow();
            log.updateHighWatermark(log.logEndOffset());
            assertTrue(Files.size(log.dir().resolve("00000000000000000000.txnindex")) > 0, "the abort is indexed");
            assertEquals(before, CleanerTransactionsTest.readCommitted(log), "read_committed after the swap");
        }
    }

    @Test
    void aSwapTheLogRefusesLeavesNoSwapFileForALaterRound() throws IOException {
        final TopicPartition tp = new TopicPartition("t", 0);
        try (LogManager manager = openManager()) {
            final PartitionLog log = manager.getOrCreate(tp);
            appendAbortedThenPlain(log);
            final CleanableLog refusing = new StopAtSwap(new PartitionCleaning(log, tp)) {
                @Override
                public boolean replaceSegments(final LogSegment[] group, final Path swapFile, final long nowMs) {
                    return false; // the log changed under the round (a truncation, say)
                }
            };
            try (LogCleaner cleaner = new LogCleaner(new CleanerConfig(true, 1, 1 << 20, 1 << 16, 0.9,
                Double.MAX_VALUE, 0).settings(), List.of(logDir.toAbsolutePath().normalize()),
                () -> List.of(refusing), FileIO.system(), clock)) {
                cleaner.cleanOnce();
            }
            try (Stream<Path> files = Files.list(log.dir())) {
                assertTrue(files.noneMatch(p -> p.getFileName().toString().endsWith(".swap")
                    || p.getFileName().toString().endsWith(".cleaned")), "no swap or cleaned file left");
            }
        }
        try (LogManager manager = openManager()) {
            final PartitionLog log = manager.log(tp).orElseThrow();
            log.updateHighWatermark(log.logEndOffset());
            assertEquals("v57", CleanerTransactionsTest.readCommitted(log).get("k0"), "the abort is still hidden");
        }
    }

    /** Producer 9's aborted write of k0, then 60 plain records of k0..k2: a first segment with an abort. */
    private static void appendAbortedThenPlain(final PartitionLog log) {
        final org.apache.kafka.common.record.internal.MemoryRecords aborted =
            org.apache.kafka.common.record.internal.MemoryRecords.withTransactionalRecords(
                org.apache.kafka.common.compress.Compression.NONE, 9L, (short) 0, 0,
                new org.apache.kafka.common.record.internal.SimpleRecord(T0, "k0".getBytes(StandardCharsets.UTF_8),
                    "aborted".getBytes(StandardCharsets.UTF_8)));
        log.appendAsLeader(ByteBuffer.allocate(aborted.sizeInBytes()).put(aborted.buffer()).flip(), 0);
        log.appendTransactionMarker(9L, (short) 0, 0, false, 0);
        for (int i = 0; i < 60; i++) {
            log.appendAsLeader(batch("k" + (i % 3), "v" + i), 0);
        }
        log.updateHighWatermark(log.logEndOffset());
    }
}
