package io.seglog.storage.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * One writer appends to both indexes (growing them by resize when full, which remaps under the readers) while
 * several readers look up without locks. Entries are a pure function of their slot, so a reader can tell an
 * entry from an unpublished (zero) or torn one.
 */
class IndexConcurrencyTest {
    private static final long BASE = 1_000_000L;
    private static final int ENTRIES = 60_000;
    private static final int READERS = 3;

    @TempDir
    Path dir;

    private static long offsetOf(final int slot) {
        return BASE + 2L * slot + 1;          // odd relative offsets: slot 0's zero bytes never look valid
    }

    private static int positionOf(final int slot) {
        return 3 * slot + 7;
    }

    private static long timestampOf(final int slot) {
        return 5_000L + 10L * slot;
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void readersNeverSeeUnpublishedOrTornEntries() throws Exception {
        try (OffsetIndex offsets = OffsetIndex.open(FileIO.system(), dir.resolve("c.index"), BASE, 8 * 1024);
             TimeIndex times = TimeIndex.open(FileIO.system(), dir.resolve("c.timeindex"), BASE, 12 * 1024)) {
            final AtomicBoolean done = new AtomicBoolean();
            final AtomicReference<Throwable> failure = new AtomicReference<>();
            final AtomicLong lookups = new AtomicLong();
            final List<Thread> readers = new ArrayList<>();
            for (int r = 0; r < READERS; r++) {
                final long seed = 77L + r;
                final Thread reader = new Thread(() -> {
                    try {
                        read(offsets, times, done, new SplittableRandom(seed), lookups);
                    } catch (Throwable t) {
                        failure.compareAndSet(null, t);
                    }
                }, "index-reader-" + r);
                readers.add(reader);
                reader.start();
            }
            try {
                for (int slot = 0; slot < ENTRIES && failure.get() == null; slot++) {
                    if (offsets.isFull()) {
                        offsets.resize(offsets.maxEntries() * 2 * 8);
                    }
                    if (times.isFull()) {
                        times.resize(times.maxEntries() * 2 * 12);
                    }
                    offsets.append(offsetOf(slot), positionOf(slot));
                    times.maybeAppend(timestampOf(slot), offsetOf(slot), false);
                }
            } finally {
                done.set(true);
                for (final Thread reader : readers) {
                    reader.join();
                }
            }
            if (failure.get() != null) {
                throw new AssertionError("a reader failed", failure.get());
            }
            assertEquals(ENTRIES, offsets.entries());
            assertEquals(ENTRIES, times.entries());
            assertTrue(lookups.get() > 0, "readers ran");
        }
    }

    private static void read(final OffsetIndex offsets, final TimeIndex times, final AtomicBoolean done,
                             final SplittableRandom random, final AtomicLong lookups) {
        long count = 0;
        while (!done.get()) {
            // Entries published before the lookup must be found; nothing beyond those published after it.
            final int before = offsets.entries();
            final long target = BASE + random.nextLong(2L * before + 40);
            final int slot = offsets.lookupSlot(target);
            final long offset = offsets.lookupOffset(target);
            final int position = offsets.lookupPosition(target);
            final int after = offsets.entries();
            final int expected = expectedSlot(target);
            if (slot > expected || slot >= after || (expected < before && slot != expected)) {
                throw new AssertionError("offset index: target=" + target + " slot=" + slot + " expected="
                    + expected + " entries before=" + before + " after=" + after);
            }
            // Each call may find a later entry than the previous one, never an unpublished (zero) or torn one.
            final boolean offsetValid = offset == BASE && slot < 0
                || (offset - BASE) % 2 == 1 && offset <= target && offset == offsetOf((int) ((offset - BASE - 1) / 2));
            final boolean positionValid = position == 0 && slot < 0
                || position >= 7 && (position - 7) % 3 == 0 && offsetOf((position - 7) / 3) <= target;
            if (!offsetValid || !positionValid) {
                throw new AssertionError("offset index: unpublished or torn entry for target=" + target
                    + ": slot=" + slot + " offset=" + offset + " position=" + position);
            }
            final int timesBefore = times.entries();
            final long timestamp = 5_000L + random.nextLong(10L * timesBefore + 40) - 5;
            final long found = times.lookupOffset(timestamp);
            final int timeSlot = found == BASE ? -1 : (int) ((found - BASE - 1) / 2);
            if (found != BASE && (found != offsetOf(timeSlot) || timestampOf(timeSlot) > timestamp)) {
                throw new AssertionError("time index: torn or unpublished entry for ts=" + timestamp + ": offset="
                    + found);
            }
            final int expectedTime = timestamp < 5_000 ? -1 : (int) Math.min((timestamp - 5_000) / 10, ENTRIES - 1);
            if (expectedTime < timesBefore && timeSlot != expectedTime) {
                throw new AssertionError("time index: ts=" + timestamp + " slot=" + timeSlot + " expected="
                    + expectedTime + " entries before=" + timesBefore);
            }
            count++;
        }
        lookups.addAndGet(count);
    }

    /** The slot the writer puts at or below target once it has written everything. */
    private static int expectedSlot(final long target) {
        final long relative = target - BASE - 1;
        return relative < 0 ? -1 : (int) Math.min(relative / 2, ENTRIES - 1);
    }
}
