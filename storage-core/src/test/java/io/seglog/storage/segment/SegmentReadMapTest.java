package io.seglog.storage.segment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.LogConfig;
import io.seglog.storage.SegmentConfigs;
import io.seglog.storage.format.RecordBatchBuilder;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Header reads through the segment's read mapping ({@code seglog.read.mapped}) against the same reads with
 * positional reads only, on real files: same answers for offset translation, slice ends and timestamp search,
 * while the segment grows, after it rolls, and across truncations that run while readers read.
 */
class SegmentReadMapTest {
    private static final long SEED = 20_261_129L;
    private static final LogConfig MAPPED = LogConfig.builder().indexIntervalBytes(150).segmentIndexBytes(8192).build();
    private static final LogConfig UNMAPPED = MAPPED.toBuilder().readMapped(false).build();

    @TempDir
    Path dir;

    /** One batch of 1-3 records at {@code offset}, timestamps 1000 + offset on, values of random length. */
    private static ByteBuffer batch(final SplittableRandom random, final long offset, final int records) {
        final byte[][] values = new byte[records][];
        for (int r = 0; r < records; r++) {
            values[r] = new byte[random.nextInt(1, 200)];
            random.nextBytes(values[r]);
        }
        final UnsafeBuffer built = RecordBatchBuilder.batchOf(offset, 1_000 + offset, values);
        final ByteBuffer copy = ByteBuffer.allocate(built.capacity());
        built.getBytes(0, copy, 0, built.capacity());
        return copy;
    }

    private static void append(final LogSegment segment, final ByteBuffer batch) throws IOException {
        Lookups.append(segment, batch);
    }

    private LogSegment create(final String name, final LogConfig config) throws IOException {
        final Path sub = Files.createDirectories(dir.resolve(name));
        return LogSegment.create(FileIO.system(), sub, 0, SegmentConfigs.of(config), 0, 0);
    }

    @Test
    void mappedAndPositionalReadsGiveTheSameAnswers() throws IOException {
        final SplittableRandom random = new SplittableRandom(SEED);
        final List<Integer> boundaries = new ArrayList<>();
        boundaries.add(0);
        try (LogSegment mapped = create("mapped", MAPPED); LogSegment plain = create("plain", UNMAPPED)) {
            final BatchCursor scratchA = new BatchCursor();
            final BatchCursor scratchB = new BatchCursor();
            long next = 0;
            for (int round = 0; round < 40; round++) {
                for (int b = 0; b < 1 + random.nextInt(20); b++) {
                    final int records = 1 + random.nextInt(3);
                    final ByteBuffer batch = batch(random, next, records);
                    append(mapped, batch.duplicate());
                    append(plain, batch.duplicate());
                    next += records;
                    boundaries.add(mapped.sizeInBytes());
                }
                if (round == 30) {
                    mapped.onBecomeInactive();
                    plain.onBecomeInactive();
                }
                final int size = mapped.sizeInBytes();
                assertEquals(size, plain.sizeInBytes());
                for (int q = 0; q < 50; q++) {
                    final long offset = random.nextLong(next + 2);
                    final int maxPosition = random.nextBoolean() ? size : boundaries.get(random.nextInt(boundaries.size()));
                    final Lookups.Found a = Lookups.find(mapped, offset, maxPosition, scratchA);
                    final Lookups.Found b = Lookups.find(plain, offset, maxPosition, scratchB);
                    assertEquals(b, a, "seed=" + SEED + " findBatch(" + offset + ", " + maxPosition + ")");
                    final int from = boundaries.get(random.nextInt(boundaries.size()));
                    final int limit = from + random.nextInt(size - from + 1);
                    assertEquals(plain.reader().lastBatchEndWithin(from, limit, scratchB),
                        mapped.reader().lastBatchEndWithin(from, limit, scratchA), "seed=" + SEED + " lastBatchEndWithin");
                    final long timestamp = 1_000 + random.nextLong(next + 2);
                    assertEquals(plain.reader().findOffsetByTimestamp(timestamp, 0, size, scratchB),
                        mapped.reader().findOffsetByTimestamp(timestamp, 0, size, scratchA), "seed=" + SEED + " timestamp " + timestamp);
                }
                assertTrue(mapped.readMappedBytes() > 0 && mapped.readMappedBytes() <= size,
                    "mapped " + mapped.readMappedBytes() + " of " + size);
                assertEquals(-1, plain.readMappedBytes(), "seglog.read.mapped=false maps nothing");
            }
            // Rolled at round 30: the next read maps the whole file.
            assertEquals(mapped.sizeInBytes(), mapped.readMappedBytes());
        }
    }

    @Test
    void anActiveSegmentIsRemappedOnlyAfterItGrewEnough() throws IOException {
        final SplittableRandom random = new SplittableRandom(SEED);
        try (LogSegment segment = create("grow", MAPPED)) {
            final BatchCursor scratch = new BatchCursor();
            long next = 0;
            for (; next < 10; next++) {
                append(segment, batch(random, next, 1));
            }
            final int first = segment.sizeInBytes();
            assertEquals(9, Lookups.find(segment, 9, first, scratch) == null ? -1 : scratch.baseOffset());
            assertEquals(first, segment.readMappedBytes(), "the first read maps the file up to its limit");
            append(segment, batch(random, next++, 1));
            // Past the mapping: read with a positional read, not remapped for a few bytes.
            assertEquals(10, readBase(segment, 10, scratch));
            assertEquals(first, segment.readMappedBytes());
            while (segment.sizeInBytes() < first + SegmentReader.MIN_REMAP_GROWTH_BYTES + 1) {
                append(segment, batch(random, next++, 3));
                next += 2;
            }
            assertEquals(next - 3, readBase(segment, next - 1, scratch));
            assertEquals(segment.sizeInBytes(), segment.readMappedBytes(), "grew by more than a quarter and 1 MiB");
            append(segment, batch(random, next, 1));
            segment.onBecomeInactive();
            assertEquals(next, readBase(segment, next, scratch));
            assertEquals(segment.sizeInBytes(), segment.readMappedBytes(), "a rolled segment is mapped whole");
        }
    }

    @Test
    void trimmingTheMappedTailAtRollDrainsAReadMappingPastTheData() throws IOException {
        final SplittableRandom random = new SplittableRandom(SEED);
        try (LogSegment segment = create("trim", MAPPED)) {
            for (long next = 0; next < 10; next++) {
                append(segment, batch(random, next, 1)); // small: through the mapped tail, zeros filled ahead
            }
            final int data = segment.sizeInBytes();
            assertTrue(segment.channel().size() > data, "the mapped tail's zero fill runs ahead of the data");
            // A stale reader (its limit from before a truncation) maps into the zeros past the data; its walk
            // meets a zero header there and fails cleanly, as a positional read would.
            assertThrows(CorruptSegmentException.class,
                () -> Lookups.find(segment, 10, data + 1000, new BatchCursor()));
            assertTrue(segment.readMappedBytes() > data, "mapped past the data: " + segment.readMappedBytes());
            segment.onBecomeInactive();
            assertEquals(data, segment.channel().size(), "trimmed to the data");
            assertTrue(segment.readMappedBytes() <= data, "no mapping left past the end of the file: "
                + segment.readMappedBytes());
            assertEquals(9, readBase(segment, 9, new BatchCursor()));
        }
    }

    @Test
    void aTruncationMakesNoMappingOfItsOwn() throws IOException {
        final SplittableRandom random = new SplittableRandom(SEED);
        try (LogSegment segment = create("no-map", MAPPED)) {
            for (long offset = 0; offset < 40; offset += 2) {
                append(segment, batch(random, offset, 2));
            }
            final BatchCursor scratch = new BatchCursor();
            assertTrue(segment.reader().findBatchForTruncation(21, segment.sizeInBytes(), scratch));
            assertEquals(20, scratch.baseOffset(), "the batch holding offset 21");
            assertEquals(-1, segment.readMappedBytes(), "the writer's lookup maps nothing");
            segment.truncateTo(20, 8192, scratch);
            assertEquals(-1, segment.readMappedBytes(), "a mapping made for the cut would only be dropped again");
            assertEquals(18, readBase(segment, 19, scratch), "readers map again after the truncation");
            assertEquals(segment.sizeInBytes(), segment.readMappedBytes());
        }
    }

    private static long readBase(final LogSegment segment, final long offset, final BatchCursor scratch)
        throws IOException {
        final Lookups.Found found = Lookups.find(segment, offset, segment.sizeInBytes(), scratch);
        return found == null ? -1 : scratch.baseOffset();
    }

    @Test
    void closeReleasesTheMappingAndLaterReadsFailCleanly() throws IOException {
        final SplittableRandom random = new SplittableRandom(SEED);
        final LogSegment segment = create("close", MAPPED);
        append(segment, batch(random, 0, 2));
        final BatchCursor scratch = new BatchCursor();
        assertEquals(0, readBase(segment, 1, scratch));
        assertTrue(segment.readMappedBytes() > 0);
        segment.close();
        assertEquals(-1, segment.readMappedBytes(), "closed: no mapping");
        // The closed index refuses the lookup before any header read: what a reader racing a deletion got before.
        final Exception failure = assertThrows(Exception.class, () -> Lookups.find(segment, 1, 1_000, scratch));
        assertTrue(failure instanceof IOException || failure instanceof IllegalStateException, failure.toString());
        assertEquals(-1, segment.readMappedBytes(), "a read after close maps nothing");
    }

    /**
     * The writer truncates the tail of the segment and appends again while readers look up offsets below a
     * committed prefix the truncations never cut into: the readers' mapping is drained and dropped before each
     * shrink (touching a page past the new end would kill the JVM with SIGBUS), and every answer stays right.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void truncationsWhileReadersReadThroughTheMapping() throws Exception {
        final SplittableRandom random = new SplittableRandom(SEED);
        try (LogSegment segment = create("trunc", MAPPED)) {
            final List<Long> committedBases = new ArrayList<>();
            long next = 0;
            for (int b = 0; b < 200; b++) {
                committedBases.add(next);
                append(segment, batch(random, next, 2));
                next += 2;
            }
            final long committedEnd = next;
            final int committedSize = segment.sizeInBytes();
            final AtomicBoolean stop = new AtomicBoolean();
            final AtomicReference<Throwable> failure = new AtomicReference<>();
            final AtomicLong reads = new AtomicLong();
            final Thread[] readers = new Thread[2];
            for (int t = 0; t < readers.length; t++) {
                final SplittableRandom own = new SplittableRandom(SEED + t + 1);
                readers[t] = new Thread(() -> {
                    final BatchCursor scratch = new BatchCursor();
                    try {
                        while (!stop.get()) {
                            final int i = own.nextInt(committedBases.size());
                            final long offset = committedBases.get(i) + own.nextInt(2);
                            final Lookups.Found found = Lookups.find(segment, offset, committedSize, scratch);
                            if (found == null || scratch.baseOffset() != committedBases.get(i)) {
                                throw new AssertionError("offset " + offset + " found " + found);
                            }
                            // Every record of a batch carries the batch's timestamp, 1000 + its base offset.
                            final long ts = segment.reader().findOffsetByTimestamp(1_000 + committedBases.get(i), 0,
                                committedSize, scratch);
                            if (ts != committedBases.get(i)) {
                                throw new AssertionError("timestamp of batch " + committedBases.get(i) + " found " + ts);
                            }
                            reads.incrementAndGet();
                        }
                    } catch (final Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }, "reader-" + t);
                readers[t].start();
            }
            final BatchCursor scratch = new BatchCursor();
            try {
                for (int round = 0; round < 200 && failure.get() == null; round++) {
                    for (int b = 0; b < 1 + random.nextInt(30); b++) {
                        append(segment, batch(random, next, 2));
                        next += 2;
                    }
                    // A read of the new tail may map it; the truncation must then drop that mapping first.
                    readBase(segment, next - 1, scratch);
                    segment.truncateTo(committedEnd, 8192, scratch);
                    next = committedEnd;
                    assertEquals(committedSize, segment.sizeInBytes());
                    assertTrue(segment.readMappedBytes() <= committedSize, "no mapping past the new end");
                }
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (reads.get() < 100 && failure.get() == null && System.nanoTime() < deadline) {
                    Thread.onSpinWait();
                }
            } finally {
                stop.set(true);
                for (final Thread reader : readers) {
                    reader.join(TimeUnit.SECONDS.toMillis(10));
                    assertFalse(reader.isAlive(), reader.getName() + " did not stop");
                }
            }
            if (failure.get() != null) {
                throw new AssertionError("seed=" + SEED, failure.get());
            }
            assertTrue(reads.get() >= 100, "reads=" + reads.get());
        }
    }

    /**
     * A segment closed (a retired segment's delayed unlink, a truncation dropping later segments) while readers are
     * inside lookups through its mapping: the mapping is unmapped only by its last user, so the readers end with a
     * clean failure of the closed files (never a crash from reading unmapped memory), and nothing stays mapped.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void closingWhileReadersUseTheMappingNeverUnmapsUnderThem() throws Exception {
        final SplittableRandom random = new SplittableRandom(SEED);
        for (int round = 0; round < 10; round++) {
            final LogSegment segment = create("closing-" + round, MAPPED);
            for (long offset = 0; offset < 400; offset += 2) {
                append(segment, batch(random, offset, 2));
            }
            segment.onBecomeInactive();
            final int size = segment.sizeInBytes();
            final AtomicLong reads = new AtomicLong();
            final AtomicReference<Throwable> unexpected = new AtomicReference<>();
            final Thread[] readers = new Thread[2];
            for (int t = 0; t < readers.length; t++) {
                final SplittableRandom own = new SplittableRandom(SEED + round * 10L + t);
                readers[t] = new Thread(() -> {
                    final BatchCursor scratch = new BatchCursor();
                    final ByteBuffer copy = ByteBuffer.allocateDirect(size);
                    try {
                        for (;;) {
                            final long offset = own.nextLong(400);
                            final Lookups.Found found = Lookups.find(segment, offset, size, scratch);
                            if (found == null || scratch.baseOffset() != (offset & ~1L)) {
                                throw new AssertionError("offset " + offset + " found " + found);
                            }
                            copy.clear();
                            segment.reader().copyMapped(0, copy, size);
                            reads.incrementAndGet();
                        }
                    } catch (final IOException | IllegalStateException closed) {
                        // the closed channel or index: how a lookup of a closed segment ends
                    } catch (final Throwable e) {
                        unexpected.compareAndSet(null, e);
                    }
                }, "closing-reader-" + t);
                readers[t].start();
            }
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (reads.get() < 50 && unexpected.get() == null && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            segment.close();
            for (final Thread reader : readers) {
                reader.join(TimeUnit.SECONDS.toMillis(10));
                assertFalse(reader.isAlive(), reader.getName() + " did not end after close");
            }
            if (unexpected.get() != null) {
                throw new AssertionError("round " + round, unexpected.get());
            }
            assertTrue(reads.get() >= 50, "round " + round + " reads=" + reads.get());
            assertEquals(-1, segment.readMappedBytes());
        }
    }
}
