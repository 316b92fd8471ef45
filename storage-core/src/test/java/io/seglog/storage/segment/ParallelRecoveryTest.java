package io.seglog.storage.segment;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.LogConfig;
import io.seglog.storage.SegmentConfigs;
import io.seglog.storage.epoch.LeaderEpochCache;
import io.seglog.storage.format.RecordBatchBuilder;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The parallel recovery scan ({@link SegmentRecovery} with a {@link BatchCrcVerifier}) against the sequential
 * one as the oracle: the same outcome (valid bytes, next offset, epoch, and the same problem: position, offset,
 * field, expected and found, torn tail or not), byte-identical rebuilt indexes and the same leader epochs, for a
 * clean segment and for damage in every batch (so at the first, a middle and the last batch of every part of
 * every run: runs are a few hundred bytes here, parts three per run). Then the threading contract: a failure on
 * a worker thread surfaces with the file and positions, the scan returns only when no part is still reading
 * the mapping, and an executor that refuses or never runs tasks changes nothing but speed.
 */
@Timeout(120)
class ParallelRecoveryTest {
    private static final LogConfig CONFIG = LogConfig.builder().messageTimestampAfterMaxMs(Long.MAX_VALUE)
        .segmentBytes(1 << 20).indexIntervalBytes(100).segmentIndexBytes(4096).build();
    private static final int BATCHES = 40;
    /** Small runs, so 40 batches make several runs of a few batches, each cut into three parts. */
    private static final int RUN_BYTES = 500;

    @TempDir
    Path fallback;
    /** On tmpfs when there is one: hundreds of segments are opened, and an fsync there costs nothing. */
    private Path tmp;
    private ExecutorService pool;
    private int dirs;

    @BeforeEach
    void startPool() throws IOException {
        final Path shm = Path.of("/dev/shm");
        tmp = Files.isDirectory(shm) && Files.isWritable(shm) ? Files.createTempDirectory(shm, "parallel-recovery")
            : fallback;
        pool = Executors.newFixedThreadPool(2);
    }

    @AfterEach
    void stopPool() throws InterruptedException, IOException {
        pool.shutdown();
        assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS), "pool threads end");
        if (!tmp.equals(fallback)) {
            try (Stream<Path> walk = Files.walk(tmp)) {
                for (final Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
                    Files.delete(p);
                }
            }
        }
    }

    /** The scan's results: outcome, index files and epochs. */
    private record Scanned(SegmentRecovery.Outcome outcome, byte[] index, byte[] timeIndex, String epochs) {
    }

    private static byte[] segmentBytes(final List<Integer> starts) {
        final SplittableRandom random = new SplittableRandom(7);
        final ByteBuffer out = ByteBuffer.allocate(BATCHES * 400);
        for (int i = 0; i < BATCHES; i++) {
            final UnsafeBuffer batch = RecordBatchBuilder.batchOf(i, 5_000 + 3L * i, new byte[random.nextInt(1, 200)]);
            // The leader epoch lies outside the CRC: rising every seventh batch.
            batch.putInt(12, i / 7, java.nio.ByteOrder.BIG_ENDIAN);
            starts.add(out.position());
            final byte[] bytes = new byte[batch.capacity()];
            batch.getBytes(0, bytes);
            out.put(bytes);
        }
        starts.add(out.position());
        final byte[] all = new byte[out.position()];
        out.flip().get(all);
        return all;
    }

    private Scanned scan(final byte[] log, final SegmentRecovery recovery, final long recoveryPoint)
        throws IOException {
        final Path dir = tmp.resolve("d" + dirs++);
        Files.createDirectories(dir);
        Files.write(dir.resolve(SegmentFiles.fileName(0, SegmentFiles.LOG_SUFFIX)), log);
        final LeaderEpochCache epochs = LeaderEpochCache.inMemory();
        final SegmentRecovery.Outcome outcome;
        try (LogSegment segment = LogSegment.openForRecovery(FileIO.system(), dir, 0, SegmentConfigs.of(CONFIG), 0, 0)) {
            outcome = recovery.scan(segment, recoveryPoint, -1, null, epochs, Long.MAX_VALUE);
            segment.finishRecovery();
        }
        return new Scanned(outcome, Files.readAllBytes(dir.resolve(SegmentFiles.fileName(0, SegmentFiles.INDEX_SUFFIX))),
            Files.readAllBytes(dir.resolve(SegmentFiles.fileName(0, SegmentFiles.TIME_INDEX_SUFFIX))),
            epochs.entries().toString());
    }

    private void assertSameAsSequential(final byte[] log, final long recoveryPoint, final String context)
        throws IOException {
        final Scanned expected = scan(log, new SegmentRecovery(), recoveryPoint);
        final Scanned actual = scan(log, new SegmentRecovery(new BatchCrcVerifier(pool, 2), RUN_BYTES), recoveryPoint);
        assertEquals(expected.outcome(), actual.outcome(), context);
        assertArrayEquals(expected.index(), actual.index(), context + ": offset index");
        assertArrayEquals(expected.timeIndex(), actual.timeIndex(), context + ": time index");
        assertEquals(expected.epochs(), actual.epochs(), context + ": epochs");
    }

    @Test
    void cleanSegmentRecoversLikeTheSequentialScan() throws IOException {
        final List<Integer> starts = new ArrayList<>();
        final byte[] log = segmentBytes(starts);
        final Scanned parallel = scan(log, new SegmentRecovery(new BatchCrcVerifier(pool, 2), RUN_BYTES), 0);
        assertNull(parallel.outcome().problem());
        assertEquals(log.length, parallel.outcome().validBytes());
        assertEquals(BATCHES, parallel.outcome().nextOffset());
        assertTrue(parallel.index().length > 8, "index entries rebuilt");
        assertSameAsSequential(log, 0, "clean");
        assertSameAsSequential(log, BATCHES, "clean, recovery point at the end");
    }

    @Test
    void damageInEveryBatchIsFoundWhereTheSequentialScanFindsIt() throws IOException {
        final List<Integer> starts = new ArrayList<>();
        final byte[] original = segmentBytes(starts);
        for (int i = 0; i < BATCHES; i++) {
            final int start = starts.get(i);
            final int end = starts.get(i + 1);
            // The first and last CRC-covered bytes; the magic byte (recovery point at the end: corruption, not torn);
            // the base offset (outside the CRC: a contradiction).
            final int[] flips = {start + 21, end - 1, start + 16, start + 7};
            for (int f = 0; f < flips.length; f++) {
                final byte[] log = original.clone();
                log[flips[f]] ^= (byte) 0x5a;
                final long recoveryPoint = f == 2 ? BATCHES : 0;
                assertSameAsSequential(log, recoveryPoint, "batch " + i + " byte " + flips[f] + ", recovery point "
                    + recoveryPoint);
            }
            // A torn tail inside the batch: the file ends there.
            final byte[] torn = java.util.Arrays.copyOf(original, (start + end) / 2);
            assertSameAsSequential(torn, 0, "torn inside batch " + i);
        }
    }

    @Test
    void aBadCrcIsReportedWithTheSequentialScansProblem() throws IOException {
        final List<Integer> starts = new ArrayList<>();
        final byte[] log = segmentBytes(starts);
        final int victim = 17;
        log[starts.get(victim + 1) - 1] ^= 1;
        final Scanned scanned = scan(log, new SegmentRecovery(new BatchCrcVerifier(pool, 2), RUN_BYTES), BATCHES);
        final SegmentRecovery.Problem problem = scanned.outcome().problem();
        assertNotNull(problem);
        assertEquals(starts.get(victim), problem.position());
        assertEquals(victim, problem.offset());
        assertEquals("crc", problem.field());
        assertTrue(problem.expected().matches("\\d+") && problem.found().matches("\\d+"), problem.toString());
        assertNotEquals(problem.expected(), problem.found());
        assertEquals(starts.get(victim), scanned.outcome().validBytes());
    }

    @Test
    void aFailureOnAWorkerThreadNamesTheFileAndPositions() throws IOException {
        final List<Integer> starts = new ArrayList<>();
        final byte[] log = segmentBytes(starts);
        final AtomicReference<Thread> thrower = new AtomicReference<>();
        final RuntimeException boom = new IllegalStateException("boom");
        final int victim = starts.get(BATCHES - 1);
        final BatchCrcVerifier.Crc crc = (bytes, from, to) -> {
            if (from == victim + 21) {
                thrower.set(Thread.currentThread());
                throw boom;
            }
            return crc32c(bytes, from, to);
        };
        // Each task runs on its own thread before execute returns, so the parts after the caller's run there.
        final java.util.concurrent.Executor threadPerTask = task -> {
            final Thread worker = new Thread(task, "verify-worker");
            worker.start();
            try {
                worker.join();
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        final SegmentRecovery recovery = new SegmentRecovery(new BatchCrcVerifier(threadPerTask, 2, crc), 1 << 20);
        final IOException e = assertThrows(IOException.class, () -> scan(log, recovery, 0));
        assertSame(boom, e.getCause());
        assertNotNull(thrower.get());
        assertEquals("verify-worker", thrower.get().getName(), "thrown on a worker thread");
        assertTrue(e.getMessage().contains(SegmentFiles.fileName(0, SegmentFiles.LOG_SUFFIX)), e.getMessage());
        assertTrue(e.getMessage().contains("positions"), e.getMessage());
        assertTrue(e.getMessage().contains(".." + log.length), "the failed part's byte range: " + e.getMessage());
    }

    @Test
    void theScanReturnsOnlyWhenNoPartIsStillReading() throws IOException {
        final List<Integer> starts = new ArrayList<>();
        final byte[] log = segmentBytes(starts);
        final AtomicInteger inFlight = new AtomicInteger();
        final AtomicInteger maxInFlight = new AtomicInteger();
        final AtomicInteger workersEntered = new AtomicInteger();
        final Thread caller = Thread.currentThread();
        final RuntimeException boom = new IllegalStateException("caller's part fails first");
        final BatchCrcVerifier.Crc crc = (bytes, from, to) -> {
            maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            try {
                if (Thread.currentThread() == caller) {
                    // Fail only once a worker has claimed its part and is reading (deadline-bounded).
                    final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                    while (workersEntered.get() == 0 && System.nanoTime() < deadline) {
                        Thread.onSpinWait();
                    }
                    throw boom;
                }
                workersEntered.incrementAndGet();
                // Workers are slow, so the caller's failure comes while they still read the mapping.
                LockSupport.parkNanos(2_000_000);
                return crc32c(bytes, from, to);
            } finally {
                inFlight.decrementAndGet();
            }
        };
        final SegmentRecovery recovery = new SegmentRecovery(new BatchCrcVerifier(pool, 2, crc), 1 << 20);
        final IOException e = assertThrows(IOException.class, () -> scan(log, recovery, 0));
        assertEquals(0, inFlight.get(), "no part still running after the scan returned");
        assertSame(boom, e.getCause());
        assertTrue(maxInFlight.get() >= 2, "parts ran concurrently: " + maxInFlight.get());
    }

    @Test
    void anExecutorThatRefusesOrNeverRunsTasksOnlyCostsSpeed() throws IOException {
        final List<Integer> starts = new ArrayList<>();
        final byte[] log = segmentBytes(starts);
        log[starts.get(30) + 40] ^= 1;
        final Scanned expected = scan(log, new SegmentRecovery(), 0);
        final java.util.concurrent.Executor refusing = task -> {
            throw new RejectedExecutionException("full");
        };
        assertEquals(expected.outcome(),
            scan(log, new SegmentRecovery(new BatchCrcVerifier(refusing, 3), RUN_BYTES), 0).outcome());
        final List<Runnable> parked = new ArrayList<>();
        final Scanned viaParked = scan(log, new SegmentRecovery(new BatchCrcVerifier(parked::add, 3), RUN_BYTES), 0);
        assertEquals(expected.outcome(), viaParked.outcome());
        assertTrue(parked.size() > 3, "tasks were handed over: " + parked.size());
        // The calling thread did their parts; run late, they find them claimed and touch nothing.
        parked.forEach(Runnable::run);
    }

    @Test
    void aVerifierNeedsAnExecutorAndAThread() {
        assertThrows(IllegalArgumentException.class, () -> new BatchCrcVerifier(null, 1));
        assertThrows(IllegalArgumentException.class, () -> new BatchCrcVerifier(pool, 0));
        assertThrows(IllegalArgumentException.class, () -> new SegmentRecovery(null, 0));
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> new LogLoader.Options(false, 0, Long.MAX_VALUE, null, pool, 0));
        assertTrue(e.getMessage().contains("verifyThreads=0"), e.getMessage());
    }

    private static long crc32c(final ByteBuffer bytes, final int from, final int to) {
        final CRC32C crc = new CRC32C();
        final ByteBuffer range = bytes.duplicate();
        range.limit(to).position(from);
        crc.update(range);
        return crc.getValue();
    }
}
