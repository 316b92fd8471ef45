package io.seglog.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.io.FileIO;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** offsetForTimestamp against a linear scan, with out-of-order timestamps across several segments. */
class OffsetForTimestampTest {
    @TempDir
    Path dir;

    @ParameterizedTest(name = "seed={0}")
    @ValueSource(longs = {1L, 42L, 20261129L})
    void matchesALinearScanOracle(final long seed) {
        System.out.println("OffsetForTimestampTest seed=" + seed);
        final SplittableRandom random = new SplittableRandom(seed);
        final LogConfig config = LogConfig.builder().segmentBytes(3_000).indexIntervalBytes(200).build();
        final List<long[]> records = new ArrayList<>(); // {offset, timestamp}
        final Path logDir = dir.resolve("ts-0");
        try (PartitionLog log = PartitionLog.open(logDir, config, FileIO.system(), new ManualClock(0))) {
            long drift = 1_000_000;
            for (int b = 0; b < 150; b++) {
                final SimpleRecord[] batch = new SimpleRecord[1 + random.nextInt(6)];
                drift += random.nextInt(300); // a rising trend with records scattered around it
                for (int r = 0; r < batch.length; r++) {
                    batch[r] = KafkaBatches.randomRecord(random, drift);
                }
                final long base = log.logEndOffset();
                log.appendAsLeader(KafkaBatches.batch(0, batch), 0);
                for (int r = 0; r < batch.length; r++) {
                    records.add(new long[] {base + r, batch[r].timestamp()});
                }
            }
            assertTrue(log.segmentCount() > 3, "segments=" + log.segmentCount());
            checkAll(log, records, seed);
        }
        // The same answers after a close and reopen.
        try (PartitionLog log = PartitionLog.open(logDir, config, FileIO.system(), new ManualClock(0))) {
            checkAll(log, records, seed);
        }
    }

    private static void checkAll(final PartitionLog log, final List<long[]> records, final long seed) {
        final TreeSet<Long> targets = new TreeSet<>();
        for (final long[] r : records) {
            targets.add(r[1] - 1);
            targets.add(r[1]);
            targets.add(r[1] + 1);
        }
        targets.add(0L);
        targets.add(Long.MAX_VALUE);
        final long bound = records.size() / 2; // e.g. a high watermark half-way
        final LogReader scratch = log.reader(); // reused: the allocation-free form
        for (final long target : targets) {
            long expected = -1;
            for (final long[] r : records) {
                if (r[1] >= target) {
                    expected = r[0];
                    break;
                }
            }
            assertEquals(expected, log.offsetForTimestamp(target), "seed=" + seed + " target=" + target);
            assertEquals(expected < bound ? expected : -1, scratch.offsetForTimestamp(target, bound),
                "seed=" + seed + " target=" + target + " maxOffsetExclusive=" + bound);
        }
        assertEquals(bound, scratch.offsetForTimestamp(PartitionLog.LATEST_TIMESTAMP, bound));
        assertEquals(records.size(), log.offsetForTimestamp(PartitionLog.LATEST_TIMESTAMP));
        assertEquals(log.logStartOffset(), scratch.offsetForTimestamp(PartitionLog.EARLIEST_TIMESTAMP, bound));
        for (final long invalid : new long[] {-4, -5, Long.MIN_VALUE}) {
            final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> log.offsetForTimestamp(invalid));
            assertTrue(e.getMessage().contains("timestampMs=" + invalid), e.getMessage());
        }
    }
}
