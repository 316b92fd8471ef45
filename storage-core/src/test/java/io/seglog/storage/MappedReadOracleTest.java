package io.seglog.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.io.FileIO;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Whole-log reads with header reads through the segments' mappings ({@code seglog.read.mapped=true}, the default)
 * against the same reads with a {@code pread} per header, on two logs given the same appends: identical slices
 * (segment, position, size, first offset), timestamp answers and out-of-range errors, across rolls, upper bounds,
 * {@code maxBytes} cuts and {@code minOneBatch}, for fixed seeds.
 */
class MappedReadOracleTest {
    private static final long[] SEEDS = {1L, 7L, 20_261_129L};

    @TempDir
    Path dir;

    @Test
    void mappedReadsAnswerExactlyAsPositionalReads() {
        for (final long seed : SEEDS) {
            check(seed);
        }
    }

    private void check(final long seed) {
        final SplittableRandom random = new SplittableRandom(seed);
        final LogConfig mapped = LogConfig.builder().segmentBytes(16 * 1024).indexIntervalBytes(300)
            .segmentIndexBytes(4096).build();
        final LogConfig plain = mapped.toBuilder().readMapped(false).build();
        try (PartitionLog a = PartitionLog.open(dir.resolve("mapped" + seed + "-0"), mapped, FileIO.system(), new ManualClock(0));
             PartitionLog b = PartitionLog.open(dir.resolve("plain" + seed + "-0"), plain, FileIO.system(), new ManualClock(0))) {
            final LogReader sa = a.reader();
            final LogReader sb = b.reader();
            for (int round = 0; round < 30; round++) {
                for (int n = 0; n < 1 + random.nextInt(40); n++) {
                    final long base = a.logEndOffset();
                    final SimpleRecord[] records = new SimpleRecord[1 + random.nextInt(8)];
                    for (int r = 0; r < records.length; r++) {
                        records[r] = KafkaBatches.randomRecord(random, 10_000 + base + r);
                    }
                    final ByteBuffer batch = KafkaBatches.batch(base, records);
                    a.appendAsFollower(batch.duplicate());
                    b.appendAsFollower(batch.duplicate());
                }
                final long end = a.logEndOffset();
                for (int q = 0; q < 100; q++) {
                    final long offset = random.nextLong(end + 1);
                    final int maxBytes = random.nextInt(6_000);
                    final long bound = random.nextBoolean() ? Long.MAX_VALUE : random.nextLong(end + 2);
                    final boolean minOne = random.nextBoolean();
                    sa.read(offset, maxBytes, bound, minOne);
                    sb.read(offset, maxBytes, bound, minOne);
                    final String what = "seed=" + seed + " read(" + offset + ", " + maxBytes + ", " + bound + ", " + minOne + ")";
                    assertEquals(sb.segmentBaseOffset(), sa.segmentBaseOffset(), what);
                    assertEquals(sb.position(), sa.position(), what);
                    assertEquals(sb.sizeInBytes(), sa.sizeInBytes(), what);
                    assertEquals(sb.firstOffset(), sa.firstOffset(), what);
                    final long ts = 5_000 + random.nextLong(end + 10_000);
                    assertEquals(sb.offsetForTimestamp(ts, bound), sa.offsetForTimestamp(ts, bound),
                        "seed=" + seed + " offsetForTimestamp(" + ts + ", " + bound + ")");
                }
                assertThrows(OffsetOutOfRangeException.class, () -> sa.read(end + 1, 100, Long.MAX_VALUE, true));
            }
            assertTrue(a.segmentCount() > 2, "rolled: " + a.segmentCount());
            assertEquals(b.segmentCount(), a.segmentCount());
        }
    }
}
