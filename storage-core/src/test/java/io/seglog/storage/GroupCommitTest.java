package io.seglog.storage;

import static io.seglog.storage.KafkaBatches.batch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.storage.io.FaultInjectingFileIO;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** awaitDurable with group commit, the flush policy and explicit flush. */
class GroupCommitTest {
    private static final long T0 = 1_700_000_000_000L;

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(T0);

    private static long logForces(final FaultInjectingFileIO io) {
        return io.journal().stream().filter(l -> l.startsWith("FORCE ") && l.endsWith(".log")).count();
    }

    @Test
    @Timeout(60)
    void manyAppendersOnTheirOwnThreadsShareFsyncs() throws Exception {
        final long[] single = run(1, 200, dir.resolve("one-0"));
        final long[] eight = run(8, 200, dir.resolve("eight-0"));
        assertTrue(eight[1] < eight[0] / 2, "fsyncs=" + eight[1] + " must be far fewer than appends=" + eight[0]);
        assertTrue(single[1] <= single[0], "one thread: at most one fsync per append");
    }

    /** Appends and awaits durability from {@code threads} threads; returns {appends, data-file fsyncs}. */
    private long[] run(final int threads, final int appendsPerThread, final Path partitionDir) throws Exception {
        final FaultInjectingFileIO io = new FaultInjectingFileIO();
        try (PartitionLog log = PartitionLog.open(partitionDir, LogConfig.defaults(), io, clock)) {
            final long forcesBefore = logForces(io);
            final CountDownLatch start = new CountDownLatch(1);
            final List<Thread> workers = new ArrayList<>();
            final AtomicLong violations = new AtomicLong();
            final List<Throwable> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
            for (int t = 0; t < threads; t++) {
                final Thread worker = new Thread(() -> {
                    try {
                        start.await();
                        for (int i = 0; i < appendsPerThread; i++) {
                            final long offset = log.appendAsLeader(batch(0, T0 + i), 0);
                            final long durable = log.awaitDurable(offset).get(30, TimeUnit.SECONDS);
                            if (durable <= offset || log.flushedOffset() <= offset) {
                                violations.incrementAndGet();
                            }
                        }
                    } catch (final Throwable e) {
                        errors.add(e);
                    }
                }, "appender-" + t);
                workers.add(worker);
                worker.start();
            }
            final long startNs = System.nanoTime();
            start.countDown();
            for (final Thread worker : workers) {
                worker.join(TimeUnit.SECONDS.toMillis(50));
                assertFalse(worker.isAlive(), worker.getName() + " finished");
            }
            final long elapsedNs = System.nanoTime() - startNs;
            assertTrue(errors.isEmpty(), () -> "errors: " + errors);
            assertEquals(0, violations.get(), "a future completed before its offset was flushed");
            final long appends = (long) threads * appendsPerThread;
            final long forces = logForces(io) - forcesBefore;
            assertEquals(appends, log.logEndOffset());
            assertEquals(appends, log.flushedOffset());
            System.out.printf("group commit, %d thread(s): %d appends acknowledged durable with %d data-file fsyncs"
                + " in %d ms = %.0f durable appends/s, %.0f fsyncs/s%n", threads, appends, forces,
                elapsedNs / 1_000_000, appends * 1e9 / elapsedNs, forces * 1e9 / elapsedNs);
            return new long[] {appends, forces};
        }
    }

    @Test
    void onASchedulerOneFsyncCompletesEveryWaiter() {
        final FaultInjectingFileIO io = new FaultInjectingFileIO();
        final ManualScheduler scheduler = new ManualScheduler(clock);
        final LogManagerConfig config = LogManagerConfig.builder().logDirs(dir.resolve("logs")).build();
        try (LogManager manager = LogManager.open(config, io, scheduler, clock)) {
            final PartitionLog log = manager.getOrCreate(new TopicPartition("g", 0));
            final List<CompletableFuture<Long>> futures = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                futures.add(log.awaitDurable(log.appendAsLeader(batch(0, T0), 0)));
            }
            assertTrue(futures.stream().noneMatch(CompletableFuture::isDone), "nothing durable before the flush");
            assertEquals(1, scheduler.pending("group-commit"), "one flush task for all ten waiters");
            final long forcesBefore = logForces(io);
            scheduler.runDue();
            assertEquals(1, logForces(io) - forcesBefore);
            for (final CompletableFuture<Long> f : futures) {
                assertEquals(10L, f.join());
            }
            assertEquals(10L, log.awaitDurable(3).join(), "an already durable offset completes at once");
        }
    }

    @Test
    void rejectsOffsetsNotYetAppended() {
        try (PartitionLog log = PartitionLog.open(dir.resolve("g-0"), LogConfig.defaults(),
            new FaultInjectingFileIO(), clock)) {
            log.appendAsLeader(batch(0, T0), 0);
            final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> log.awaitDurable(1));
            assertTrue(e.getMessage().contains("offset=1"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> log.awaitDurable(-1));
        }
    }

    @Test
    void flushMessagesFlushesAfterTheNthUnflushedMessage() {
        final LogConfig config = LogConfig.builder().flushMessages(3).build();
        try (PartitionLog log = PartitionLog.open(dir.resolve("g-0"), config, new FaultInjectingFileIO(), clock)) {
            log.appendAsLeader(batch(0, T0), 0);
            log.appendAsLeader(batch(0, T0), 0);
            assertEquals(0, log.flushedOffset());
            log.appendAsLeader(batch(0, T0), 0);
            assertEquals(3, log.flushedOffset());
            log.appendAsLeader(batch(0, T0, T0, T0), 0);
            assertEquals(6, log.flushedOffset());
        }
    }

    @Test
    void flushMsFlushesOnTheSchedulerOnceTheDataIsOldEnough() {
        final ManualScheduler scheduler = new ManualScheduler(clock);
        final LogManagerConfig config = LogManagerConfig.builder().logDirs(dir.resolve("logs"))
            .logConfig(LogConfig.builder().flushMs(5_000).build()).flushCheckIntervalMs(1_000).build();
        try (LogManager manager = LogManager.open(config, new FaultInjectingFileIO(), scheduler, clock)) {
            final PartitionLog log = manager.getOrCreate(new TopicPartition("g", 0));
            scheduler.advanceMs(1_000); // the first check starts the flush clock
            log.appendAsLeader(batch(0, T0), 0);
            scheduler.advanceMs(4_000);
            assertEquals(0, log.flushedOffset(), "4 s since the clock started: not yet");
            scheduler.advanceMs(1_000);
            assertEquals(1, log.flushedOffset(), "5 s: flushed by the log-flusher task");
        }
    }

    @Test
    void explicitFlushCompletesPendingWaiters() {
        final ManualScheduler scheduler = new ManualScheduler(clock);
        final LogManagerConfig config = LogManagerConfig.builder().logDirs(dir.resolve("logs")).build();
        try (LogManager manager = LogManager.open(config, new FaultInjectingFileIO(), scheduler, clock)) {
            final PartitionLog log = manager.getOrCreate(new TopicPartition("g", 0));
            final CompletableFuture<Long> f = log.awaitDurable(log.appendAsLeader(batch(0, T0), 0));
            assertFalse(f.isDone());
            log.flush();
            assertEquals(1L, f.join());
        }
    }
}
