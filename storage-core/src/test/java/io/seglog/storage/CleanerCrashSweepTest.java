package io.seglog.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.seglog.storage.cleaner.LogCleaner;
import io.seglog.storage.io.FaultInjectingFileIO;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Proof 3 of docs/cleaner.md: a cleaning round made to fail at its Nth call of each kind of file operation (open,
 * write, fsync, directory fsync, rename, delete, map), for N = 1 up to the first N the round no longer reaches;
 * after each failure the log is abandoned and reopened with a plain file layer (recovery from offset 0). The records
 * served are the records before cleaning or after a successful cleaning, group by group in offset order (Kafka swaps
 * group by group too): never a group half old and half new, never a lost record, no {@code .cleaned} or
 * {@code .swap} file left. With one group the answer is exactly "before" or "after". Leftover {@code .cleaned} and
 * {@code .swap} files placed by hand are deleted and finished at open, as Kafka's LogLoader does.
 */
class CleanerCrashSweepTest {
    private static final long SEED = 44_003L;
    private static final int WRITE_SEGMENT_BYTES = 4 * 1024;
    private static final TopicPartition TP = new TopicPartition("t", 0);

    @TempDir
    Path tmp;

    private final ManualClock clock = new ManualClock(CompactedLogs.T0 + 1_000_000);
    private Path original;

    private static LogConfig config(final int segmentBytes) {
        return CompactedLogs.seglogConfig(segmentBytes, 60_000);
    }

    /** A closed compact log of about 18 segments of 4 KiB, written once and copied for every case. */
    @BeforeEach
    void writeOriginal() {
        System.out.println("CleanerCrashSweepTest seed=" + SEED);
        original = tmp.resolve("original").resolve("t-0");
        try (PartitionLog log = PartitionLog.open(original, config(WRITE_SEGMENT_BYTES), FileIO.system(), clock)) {
            for (final CompactedLogs.Input batch : CompactedLogs.input(new SplittableRandom(SEED), 150, 30,
                CompactedLogs.T0)) {
                log.appendAsLeader(batch.bytes(), 0);
            }
        }
    }

    private Path copy(final String name) throws IOException {
        final Path dir = tmp.resolve(name).resolve("t-0");
        Files.createDirectories(dir);
        try (Stream<Path> files = Files.list(original)) {
            for (final Path file : files.toList()) {
                Files.copy(file, dir.resolve(file.getFileName()));
            }
        }
        return dir;
    }

    private LogCleaner cleaner(final PartitionLog log, final FileIO io) throws IOException {
        return new LogCleaner(new CleanerConfig(true, 1, 1 << 20, 1 << 16, 0.9, Double.MAX_VALUE, 0).settings(),
            List.of(log.dir().getParent()), () -> List.of(new PartitionCleaning(log, TP)), io, clock);
    }

    private List<String> reopenAndServe(final Path dir, final int segmentBytes) throws IOException {
        try (PartitionLog log = PartitionLog.open(dir, config(segmentBytes), FileIO.system(), clock)) {
            return CompactedLogs.served(log);
        }
    }

    /** The states a crash may leave: groups 0..k-1 cleaned, the rest not, for every k (the first is "before"). */
    private static List<List<String>> allowedStates(final List<String> before, final List<String> after,
                                                    final long[] groupBounds) {
        final List<List<String>> states = new ArrayList<>();
        for (final long bound : groupBounds) {
            final List<String> state = new ArrayList<>();
            after.stream().filter(r -> offset(r) < bound).forEach(state::add);
            before.stream().filter(r -> offset(r) >= bound).forEach(state::add);
            states.add(state);
        }
        return states;
    }

    private static long offset(final String record) {
        return Long.parseLong(record.substring(0, record.indexOf('|')));
    }

    private static List<String> strays(final Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString())
                .filter(n -> n.endsWith(".cleaned") || n.endsWith(".swap")).toList();
        }
    }

    /**
     * @param cleanSegmentBytes the segment.bytes of the cleaning round: 1 MiB puts every segment in one group,
     *                          16 KiB makes about five groups
     */
    @ParameterizedTest(name = "cleanSegmentBytes={0}")
    @ValueSource(ints = {1 << 20, 16 * 1024})
    @Timeout(300)
    void aRoundFailingAtAnyFileOperationLeavesBeforeOrAfterGroupByGroup(final int cleanSegmentBytes)
        throws IOException {
        final List<String> before = reopenAndServe(copy("before"), cleanSegmentBytes);
        final Path done = copy("after");
        final long cleanEnd;
        final long[] bounds;
        try (PartitionLog log = PartitionLog.open(done, config(cleanSegmentBytes), FileIO.system(), clock);
             LogCleaner cleaner = cleaner(log, FileIO.system())) {
            log.updateHighWatermark(log.logEndOffset());
            assertTrue(cleaner.cleanOnce());
            assertTrue(cleaner.uncleanablePartitions().isEmpty());
            cleanEnd = cleaner.checkpointedOffset(done.getParent(), new PartitionCleaning(log, TP).partition());
            // Group bases are the bases of the cleaned segments below the end; each is where a state may switch.
            final long[] bases = Arrays.stream(log.segmentBaseOffsets()).filter(b -> b < cleanEnd).toArray();
            bounds = new long[bases.length + 1];
            System.arraycopy(bases, 0, bounds, 0, bases.length);
            bounds[bases.length] = cleanEnd;
        }
        final List<String> after = reopenAndServe(done, cleanSegmentBytes);
        assertTrue(after.size() < before.size(), "cleaning removed records: " + before.size() + " -> " + after.size());
        if (cleanSegmentBytes == 1 << 20) {
            assertEquals(2, bounds.length, "one group: " + Arrays.toString(bounds));
        } else {
            assertTrue(bounds.length >= 4, "several groups: " + Arrays.toString(bounds));
        }
        final List<List<String>> allowed = allowedStates(before, after, bounds);

        int failedRounds = 0;
        final int[] statesSeen = new int[allowed.size()];
        for (final FaultInjectingFileIO.Op op : FaultInjectingFileIO.Op.values()) {
            for (int nth = 1; ; nth++) {
                final String context = "cleanSegmentBytes=" + cleanSegmentBytes + " failing " + op + " #" + nth;
                final Path dir = copy(op + "-" + nth + "-" + cleanSegmentBytes);
                final FaultInjectingFileIO io = new FaultInjectingFileIO();
                final PartitionLog log = PartitionLog.open(dir, config(cleanSegmentBytes), io, clock);
                boolean hit;
                try (LogCleaner cleaner = cleaner(log, io)) {
                    log.updateHighWatermark(log.logEndOffset());
                    io.failOnCall(op, io.count(op) + nth);
                    assertTrue(cleaner.cleanOnce(), context);
                    hit = io.journal().stream().anyMatch(s -> s.endsWith(" FAILED"));
                    assertEquals(hit, !cleaner.uncleanablePartitions().isEmpty(),
                        context + ": a failed round marks the partition uncleanable, only then");
                } finally {
                    try {
                        log.close();
                    } catch (final RuntimeException ignored) {
                        // An offline log may fail to close its files; the crash is what is tested.
                    }
                }
                final List<String> served = reopenAndServe(dir, cleanSegmentBytes);
                final int state = allowed.indexOf(served);
                if (state < 0) {
                    fail(context + ": the reopened log serves " + served.size() + " records, neither before ("
                        + before.size() + "), after (" + after.size() + ") nor a group-wise prefix of the cleaning");
                }
                assertEquals(List.of(), strays(dir), context + ": stray files after the open");
                if (!hit) {
                    assertEquals(allowed.size() - 1, state, context + ": a round that did not fail is complete");
                    break;
                }
                failedRounds++;
                statesSeen[state]++;
                if (nth > 500) {
                    fail(context + ": the round still reaches call " + nth);
                }
            }
        }
        System.out.println("CleanerCrashSweepTest cleanSegmentBytes=" + cleanSegmentBytes + " groups="
            + (bounds.length - 1) + " failed rounds=" + failedRounds + " groups cleaned (0..all) per failure="
            + Arrays.toString(statesSeen));
        assertTrue(failedRounds > 10, "faults were hit: " + failedRounds);
    }

    @Test
    void aLeftoverCleanedFileIsDeletedAtOpen() throws IOException {
        final List<String> before = reopenAndServe(copy("before"), WRITE_SEGMENT_BYTES);
        final Path dir = copy("cleaned");
        final Path cleaned = dir.resolve("00000000000000000000.log.cleaned");
        Files.write(cleaned, Files.readAllBytes(dir.resolve("00000000000000000000.log")));
        assertEquals(before, reopenAndServe(dir, WRITE_SEGMENT_BYTES), "a .cleaned file is never used");
        assertFalse(Files.exists(cleaned), cleaned + " deleted at open");
    }

    @Test
    void aLeftoverSwapFileIsFinishedAtOpen() throws IOException {
        final List<String> before = reopenAndServe(copy("before"), WRITE_SEGMENT_BYTES);
        final Path done = copy("after");
        final long[] cleanedBases;
        try (PartitionLog log = PartitionLog.open(done, config(2 * WRITE_SEGMENT_BYTES), FileIO.system(), clock);
             LogCleaner cleaner = cleaner(log, FileIO.system())) {
            log.updateHighWatermark(log.logEndOffset());
            assertTrue(cleaner.cleanOnce());
            cleanedBases = log.segmentBaseOffsets();
        }
        final List<String> after = reopenAndServe(done, WRITE_SEGMENT_BYTES);
        // The first group's output, put back as the swap file a crash after step 2 of the swap leaves.
        final Path dir = copy("swap");
        final Path swap = dir.resolve("00000000000000000000.log.swap");
        Files.copy(done.resolve("00000000000000000000.log"), swap);
        final long next = cleanedBases[1];
        final List<String> expected = new ArrayList<>();
        after.stream().filter(r -> offset(r) < next).forEach(expected::add);
        before.stream().filter(r -> offset(r) >= next).forEach(expected::add);
        assertTrue(expected.size() < before.size(), "the first group lost superseded records");
        assertEquals(expected, reopenAndServe(dir, WRITE_SEGMENT_BYTES),
            "the swap replaces exactly the segments its offsets cover");
        assertEquals(List.of(), strays(dir), "the swap was renamed to .log at open");
    }
}
