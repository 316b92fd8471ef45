package io.seglog.storage.index;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Lookups against a linear scan over the same entries: seeded random entry sets (a failing seed is in the
 * message; rerun it alone with {@code -Dseglog.index.seed=<seed>}), and the warm-section boundaries.
 */
class IndexLookupOracleTest {
    /** Entries in the warm tail of each index: 8 KiB / entry size. */
    private static final int OFFSET_WARM = IndexDescriptor.WARM_SECTION_BYTES / IndexDescriptor.OFFSET_ENTRY_LENGTH;
    private static final int TIME_WARM = IndexDescriptor.WARM_SECTION_BYTES / IndexDescriptor.TIME_ENTRY_LENGTH;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "seed={0}")
    @ValueSource(longs = {1L, 2L, 3L, 42L, 1234L, 99991L, 0x5EED_1DE5L, 7_777_777L})
    void randomEntrySetsMatchLinearScan(final long seed) throws IOException {
        runSeed(seed);
    }

    @Test
    void seedFromSystemProperty() throws IOException {
        // Lets a failing seed be replayed alone; with no property it runs one more fixed seed.
        runSeed(Long.getLong("seglog.index.seed", 20_261_129L));
    }

    private void runSeed(final long seed) throws IOException {
        try {
            final SplittableRandom random = new SplittableRandom(seed);
            for (int round = 0; round < 4; round++) {
                checkOffsetIndex(random, round);
                checkTimeIndex(random, round);
            }
        } catch (AssertionError | RuntimeException e) {
            throw new AssertionError("seed=" + seed + " failed (rerun with -Dseglog.index.seed=" + seed + ")", e);
        }
    }

    private static int randomCount(final SplittableRandom random) {
        switch (random.nextInt(4)) {
            case 0:
                return random.nextInt(4);                                  // empty and tiny
            case 1:
                return random.nextInt(OFFSET_WARM - 3, OFFSET_WARM + 4);   // around the warm boundary
            default:
                return random.nextInt(1, 4_000);
        }
    }

    private void checkOffsetIndex(final SplittableRandom random, final int round) throws IOException {
        final long base = random.nextLong(0, 1L << 40);
        final int count = randomCount(random);
        final long[] offsets = new long[count];
        final int[] positions = new int[count];
        long offset = base + random.nextInt(3);
        int position = 0;
        for (int i = 0; i < count; i++) {
            offsets[i] = offset;
            positions[i] = position;
            offset += 1 + (random.nextBoolean() ? random.nextInt(3) : random.nextInt(500_000));
            position += random.nextInt(1, 20_000);
        }
        final int maxEntries = count + random.nextInt(3);
        final Path file = dir.resolve(round + "-" + base + ".index");
        long expectedLength;
        try (OffsetIndex index = OffsetIndex.open(FileIO.system(), file, base, Math.max(8, maxEntries * 8))) {
            for (int i = 0; i < count; i++) {
                index.append(offsets[i], positions[i]);
            }
            assertOffsetLookups(index, base, offsets, positions, count, random);
            // Truncate at a random point and check again: the prefix must still answer like the oracle.
            final int kept = count == 0 ? 0 : random.nextInt(count + 1);
            index.truncateTo(kept == count ? Long.MAX_VALUE : offsets[kept]);
            assertEquals(kept, index.entries());
            assertOffsetLookups(index, base, offsets, positions, kept, random);
            expectedLength = kept * 8L;
        }
        // Close trimmed the file to its entries; reopening must give the same answers.
        assertEquals(expectedLength, Files.size(file), "file length after close = entries * 8");
        final int kept = (int) (expectedLength / 8);
        try (OffsetIndex reopened = OffsetIndex.open(FileIO.system(), file, base, 8)) {
            reopened.sanityCheck();
            assertEquals(kept, reopened.entries());
            assertOffsetLookups(reopened, base, offsets, positions, kept, random);
        }
    }

    private static void assertOffsetLookups(final OffsetIndex index, final long base, final long[] offsets,
                                            final int[] positions, final int count, final SplittableRandom random) {
        final long last = count == 0 ? base + 10 : offsets[count - 1];
        for (int i = 0; i < 1_000; i++) {
            final long target;
            switch (random.nextInt(4)) {
                case 0:
                    target = count == 0 ? base : offsets[random.nextInt(count)] + random.nextInt(-1, 2);
                    break;
                case 1:
                    target = random.nextLong(Math.max(0, base - 5), last + 5);
                    break;
                case 2:
                    target = count == 0 ? base : offsets[Math.max(0, count - 1 - OFFSET_WARM)] + random.nextInt(-1, 2);
                    break;
                default:
                    target = random.nextBoolean() ? Long.MIN_VALUE : Long.MAX_VALUE;
                    break;
            }
            final int slot = oracle(offsets, count, target);
            assertEquals(slot, index.lookupSlot(target), "lookupSlot(" + target + ")");
            assertEquals(slot < 0 ? 0 : positions[slot], index.lookupPosition(target), "position of " + target);
            assertEquals(slot < 0 ? base : offsets[slot], index.lookupOffset(target), "offset of " + target);
            final long position = count == 0 ? random.nextInt(100)
                : positions[random.nextInt(count)] + random.nextInt(-1, 2);
            assertEquals(upperBoundOracle(offsets, positions, count, position),
                index.upperBoundOffsetForPosition(position), "upper bound for position " + position);
            final int limit = count == 0 || random.nextBoolean() ? (int) position
                : positions[Math.max(0, count - 1 - OFFSET_WARM)] + random.nextInt(-1, 2);
            assertEquals(floorPositionOracle(positions, count, limit), index.lookupPositionAtMost(limit),
                "greatest position <= " + limit);
        }
    }

    /** The linear scan: the greatest indexed position <= limit, or -1. */
    private static int floorPositionOracle(final int[] positions, final int count, final int limit) {
        int found = -1;
        for (int i = 0; i < count; i++) {
            if (positions[i] <= limit) {
                found = positions[i];
            }
        }
        return found;
    }

    /** The linear scan: the offset of the first entry with position >= target, or -1. */
    private static long upperBoundOracle(final long[] offsets, final int[] positions, final int count,
                                         final long target) {
        for (int i = 0; i < count; i++) {
            if (positions[i] >= target) {
                return offsets[i];
            }
        }
        return -1;
    }

    private void checkTimeIndex(final SplittableRandom random, final int round) throws IOException {
        final long base = random.nextLong(0, 1L << 40);
        final int count = randomCount(random);
        final long[] timestamps = new long[count];
        final long[] offsets = new long[count];
        long ts = random.nextLong(0, 1L << 41);
        long offset = base;
        for (int i = 0; i < count; i++) {
            timestamps[i] = ts;
            offsets[i] = offset;
            ts += 1 + (random.nextBoolean() ? random.nextInt(2) : random.nextInt(100_000));
            offset += random.nextInt(0, 1_000);   // offsets may repeat in a time index
        }
        final int maxEntries = count + 1 + random.nextInt(3);  // + the reserved slot
        final Path file = dir.resolve(round + "-" + base + ".timeindex");
        try (TimeIndex index = TimeIndex.open(FileIO.system(), file, base, maxEntries * 12)) {
            for (int i = 0; i < count; i++) {
                index.maybeAppend(timestamps[i], offsets[i], false);
                // The segment repeats the last entry on roll (with skipFullCheck): ignored. Like Kafka, a
                // regular append to a full index fails even when it would be ignored.
                index.maybeAppend(timestamps[i], offsets[i], random.nextBoolean() || index.isFull());
            }
            assertEquals(count, index.entries());
            final long last = count == 0 ? 100 : timestamps[count - 1];
            for (int i = 0; i < 1_000; i++) {
                final long target;
                switch (random.nextInt(4)) {
                    case 0:
                        target = count == 0 ? 0 : timestamps[random.nextInt(count)] + random.nextInt(-1, 2);
                        break;
                    case 1:
                        target = random.nextLong(-2, last + 5);
                        break;
                    case 2:
                        target = count == 0 ? 0
                            : timestamps[Math.max(0, count - 1 - TIME_WARM)] + random.nextInt(-1, 2);
                        break;
                    default:
                        target = random.nextBoolean() ? Long.MIN_VALUE : Long.MAX_VALUE;
                        break;
                }
                final int slot = oracle(timestamps, count, target);
                assertEquals(slot, index.lookupSlot(target), "lookupSlot(" + target + ")");
                assertEquals(slot < 0 ? base : offsets[slot], index.lookupOffset(target), "offset of " + target);
            }
        }
    }

    /** The linear scan: the last slot whose key is <= target, or -1. */
    private static int oracle(final long[] keys, final int count, final long target) {
        int found = -1;
        for (int i = 0; i < count; i++) {
            if (keys[i] <= target) {
                found = i;
            }
        }
        return found;
    }

    @ParameterizedTest(name = "entries={0}")
    @ValueSource(ints = {0, 1, 2, OFFSET_WARM - 1, OFFSET_WARM, OFFSET_WARM + 1, OFFSET_WARM + 2, OFFSET_WARM + 3,
        3 * OFFSET_WARM})
    void offsetWarmSectionBoundariesOnFullIndex(final int count) throws IOException {
        final long base = 10_000;
        final long[] offsets = new long[count];
        final int[] positions = new int[count];
        // Full index (maxEntries == count): the tail search covers the very last slot.
        try (OffsetIndex index = OffsetIndex.open(FileIO.system(), dir.resolve("warm.index"), base,
            Math.max(8, count * 8))) {
            for (int i = 0; i < count; i++) {
                offsets[i] = base + 1 + 2L * i;      // gaps, so key +- 1 falls between entries
                positions[i] = 7 * i;
                index.append(offsets[i], positions[i]);
            }
            assertEquals(count > 0, index.isFull());
            final int firstHot = Math.max(0, count - 1 - OFFSET_WARM);
            final long[] targets = count == 0 ? new long[] {base, base + 1} : new long[] {
                offsets[firstHot], offsets[firstHot] - 1, offsets[firstHot] + 1,   // the boundary itself
                offsets[0], offsets[0] - 1, base - 1,                             // below the first entry
                offsets[count - 1], offsets[count - 1] + 1, Long.MAX_VALUE};       // at and past the last
            for (final long target : targets) {
                final int slot = oracle(offsets, count, target);
                assertEquals(slot, index.lookupSlot(target), "target=" + target + " firstHot=" + firstHot);
                assertEquals(slot < 0 ? 0 : positions[slot], index.lookupPosition(target), "target=" + target);
            }
            for (int i = 0; i < count; i++) {   // every entry and both neighbours
                for (long target = offsets[i] - 1; target <= offsets[i] + 1; target++) {
                    assertEquals(oracle(offsets, count, target), index.lookupSlot(target), "target=" + target);
                }
                for (long position = positions[i] - 1; position <= positions[i] + 1; position++) {
                    assertEquals(upperBoundOracle(offsets, positions, count, position),
                        index.upperBoundOffsetForPosition(position), "position=" + position);
                }
            }
        }
    }

    @ParameterizedTest(name = "entries={0}")
    @ValueSource(ints = {1, TIME_WARM, TIME_WARM + 1, TIME_WARM + 2, TIME_WARM + 3})
    void timeWarmSectionBoundaries(final int count) throws IOException {
        final long base = 0;
        final long[] timestamps = new long[count];
        try (TimeIndex index = TimeIndex.open(FileIO.system(), dir.resolve("warm.timeindex"), base,
            (count + 1) * 12)) {
            for (int i = 0; i < count; i++) {
                timestamps[i] = 1_000 + 10L * i;
                index.maybeAppend(timestamps[i], base + i, i == count - 1);
            }
            for (int i = 0; i < count; i++) {
                for (long target = timestamps[i] - 1; target <= timestamps[i] + 1; target++) {
                    final int slot = oracle(timestamps, count, target);
                    assertEquals(slot, index.lookupSlot(target), "target=" + target);
                    assertEquals(slot < 0 ? base : base + slot, index.lookupOffset(target), "target=" + target);
                }
            }
        }
    }
}
