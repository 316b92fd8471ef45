package io.seglog.replication.replica;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.Await;
import io.seglog.replication.replica.ReplicaFixtures.ManualClock;
import io.seglog.storage.TopicPartition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The purgatory: an operation completes exactly once, whichever of a check, its deadline or close comes first.
 * Deadlines are driven with {@link DelayedOperations#expire} on a clock the test moves, except in the one test of the
 * reaper thread.
 */
class DelayedOperationsTest {
    private static final TopicPartition TP0 = new TopicPartition("t", 0);
    private static final TopicPartition TP1 = new TopicPartition("t", 1);
    private static final long TICK = DelayedOperations.TICK_MS;

    private final ManualClock clock = new ManualClock(10_000);
    private final DelayedOperations ops = new DelayedOperations(clock);
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        ops.close();
        for (final AutoCloseable c : toClose) {
            c.close();
        }
    }

    /** Completes when {@link #ready} is set; counts its completions and whether it was expired when answered. */
    static class TestOp extends DelayedOperations.Operation {
        final AtomicBoolean ready = new AtomicBoolean();
        final AtomicInteger completions = new AtomicInteger();
        final AtomicInteger checks = new AtomicInteger();
        volatile boolean expiredWhenAnswered;

        @Override
        boolean tryComplete() {
            checks.incrementAndGet();
            return ready.get() && forceComplete();
        }

        @Override
        void onComplete() {
            expiredWhenAnswered = expired();
            completions.incrementAndGet();
        }
    }

    @Test
    void aDeadlineArmedAfterADayIdleExpiresOnTimeAndNotBefore() {
        final TestOp first = new TestOp();
        ops.tryCompleteElseWatch(first, List.of(TP0), clock.getAsLong() + 100);
        assertEquals(1, ops.expire(clock.getAsLong() + 100 + TICK));
        clock.advance(TimeUnit.DAYS.toMillis(1)); // no deadline armed all day: the wheel's tick falls behind

        final TestOp op = new TestOp();
        final long deadline = clock.getAsLong() + 100;
        assertFalse(ops.tryCompleteElseWatch(op, List.of(TP0), deadline));
        assertEquals(0, ops.expire(clock.getAsLong()), "not due yet");
        assertEquals(0, ops.expire(deadline - TICK - 1), "not due yet");
        assertEquals(1, ops.expire(deadline + TICK));
        assertTrue(op.expiredWhenAnswered);
    }

    @Test
    void completesOnceWhenACheckComesFirst() {
        final TestOp op = new TestOp();
        final long deadline = clock.getAsLong() + 100;
        assertFalse(ops.tryCompleteElseWatch(op, List.of(TP0), deadline));
        assertEquals(0, ops.checkAndComplete(TP0), "not ready yet");
        assertEquals(1, ops.pending());

        op.ready.set(true);
        assertEquals(1, ops.checkAndComplete(TP0));
        assertEquals(0, ops.pending(), "its deadline is cancelled");
        assertEquals(0, ops.expire(deadline + TICK));
        assertEquals(0, ops.checkAndComplete(TP0));
        ops.close();

        assertEquals(1, op.completions.get());
        assertFalse(op.expired());
    }

    @Test
    void completesOnceWhenTheDeadlineComesFirst() {
        final TestOp op = new TestOp();
        final long deadline = clock.getAsLong() + 100;
        assertFalse(ops.tryCompleteElseWatch(op, List.of(TP0), deadline));

        assertEquals(0, ops.expire(deadline - 1), "never before its deadline");
        assertEquals(0, op.completions.get());
        assertEquals(1, ops.expire(deadline + TICK), "at most one tick late");
        assertTrue(op.expired());
        assertTrue(op.expiredWhenAnswered, "expired() is set before the answer is built");

        op.ready.set(true);
        assertEquals(0, ops.checkAndComplete(TP0));
        ops.close();
        assertEquals(1, op.completions.get());
    }

    @Test
    void completesOnceWhenCloseComesFirst() {
        final TestOp op = new TestOp();
        final long deadline = clock.getAsLong() + 100;
        assertFalse(ops.tryCompleteElseWatch(op, List.of(TP0, TP1), deadline));

        ops.close();
        assertEquals(1, op.completions.get());
        assertTrue(op.expired(), "close answers waiting operations as expired");

        op.ready.set(true);
        assertEquals(0, ops.checkAndComplete(TP0));
        assertEquals(0, ops.expire(deadline + TICK));
        ops.close();
        assertEquals(1, op.completions.get());

        final TestOp late = new TestOp();
        assertTrue(ops.tryCompleteElseWatch(late, List.of(TP0), deadline), "after close nothing waits");
        assertEquals(1, late.completions.get());
    }

    @Test
    void tryCompleteElseWatchCatchesAChangeBetweenItsCheckAndTheWatch() {
        final TestOp op = new TestOp() {
            @Override
            boolean tryComplete() {
                if (checks.incrementAndGet() == 1) {
                    // The partition changes right after the first check; the change's checkAndComplete comes before
                    // the operation is watched, so it finds nothing to complete.
                    ready.set(true);
                    assertEquals(0, ops.checkAndComplete(TP0));
                    return false;
                }
                return ready.get() && forceComplete();
            }
        };
        assertTrue(ops.tryCompleteElseWatch(op, List.of(TP0), clock.getAsLong() + 100));
        assertEquals(1, op.completions.get());
        assertEquals(2, op.checks.get(), "checked again once watched");
        assertEquals(0, ops.pending(), "no deadline armed for a completed operation");
    }

    @Test
    void closeBetweenTheWatchAndTheDeadlineStillCompletesTheOperation() {
        final TestOp op = new TestOp() {
            @Override
            boolean tryComplete() {
                if (checks.incrementAndGet() == 2) {
                    // The broker shuts down after the operation is watched and before its deadline is armed: close
                    // sweeps the armed deadlines and the watch lists, which do not hold this one yet.
                    ops.close();
                }
                return false;
            }
        };
        final boolean completed = ops.tryCompleteElseWatch(op, List.of(TP0), clock.getAsLong() + 3_600_000);

        assertEquals(1, op.completions.get(), "an operation watched while the purgatory closes is still answered");
        assertTrue(completed);
        assertEquals(0, ops.pending());
    }

    @Test
    void operationWatchingTwoPartitionsCompletesOnEitherCheck() {
        final TestOp a = new TestOp();
        final TestOp b = new TestOp();
        final long deadline = clock.getAsLong() + 100;
        assertFalse(ops.tryCompleteElseWatch(a, List.of(TP0, TP1), deadline));
        assertFalse(ops.tryCompleteElseWatch(b, List.of(TP0, TP1), deadline));
        assertEquals(2, ops.watching(TP0));
        assertEquals(2, ops.watching(TP1));

        a.ready.set(true);
        assertEquals(1, ops.checkAndComplete(TP1));
        assertEquals(0, ops.checkAndComplete(TP0), "a is done, b is not ready");
        b.ready.set(true);
        assertEquals(1, ops.checkAndComplete(TP0));
        assertEquals(0, ops.checkAndComplete(TP1));

        assertEquals(0, ops.pending());
        assertEquals(1, a.completions.get());
        assertEquals(1, b.completions.get());
        assertEquals(0, ops.expire(deadline + TICK));
    }

    @Test
    void operationCompletedByACheckWhileItsDeadlineFiresIsNotExpired() throws Exception {
        final CountDownLatch answering = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicBoolean expiredSeenByAnswer = new AtomicBoolean();
        final TestOp op = new TestOp() {
            @Override
            void onComplete() {
                answering.countDown();
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (final InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                expiredSeenByAnswer.set(expired());
                completions.incrementAndGet();
            }
        };
        final long deadline = clock.getAsLong() + 100;
        assertFalse(ops.tryCompleteElseWatch(op, List.of(TP0), deadline));
        op.ready.set(true);

        // A check wins the operation and is building its answer; its deadline is still armed and now fires.
        final Thread checker = new Thread(() -> ops.checkAndComplete(TP0), "delayed-operations-check");
        checker.start();
        try {
            assertTrue(answering.await(10, TimeUnit.SECONDS), "the check reached onComplete");
            assertEquals(0, ops.expire(deadline + TICK), "the deadline finds it completed");
        } finally {
            release.countDown();
            checker.join(TimeUnit.SECONDS.toMillis(10));
        }

        assertFalse(checker.isAlive());
        assertEquals(1, op.completions.get());
        assertFalse(expiredSeenByAnswer.get(), "the answer of a check must not read as expired");
        assertFalse(op.expired(), "completed by a check, not by its deadline");
    }

    @Test
    void concurrentChecksDeadlinesAndWatchesCompleteEveryOperationExactlyOnce() throws Exception {
        final long seed = Long.getLong("seglog.test.seed", 0x5EED_0DE1L);
        final int threads = 4;
        final int perThread = 500;
        final TopicPartition[] keys = new TopicPartition[8];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = new TopicPartition("t", i);
        }
        final SplittableRandom setup = new SplittableRandom(seed);
        final List<TestOp> all = new ArrayList<>();
        final List<List<TopicPartition>> watched = new ArrayList<>();
        for (int i = 0; i < threads * perThread; i++) {
            all.add(new TestOp());
            final TopicPartition first = keys[setup.nextInt(keys.length)];
            final TopicPartition second = keys[setup.nextInt(keys.length)];
            watched.add(first.equals(second) ? List.of(first) : List.of(first, second));
        }
        final CyclicBarrier start = new CyclicBarrier(threads);
        final ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            final List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                final int thread = t;
                done.add(pool.submit(() -> {
                    final SplittableRandom random = new SplittableRandom(seed + 1 + thread);
                    start.await(10, TimeUnit.SECONDS);
                    for (int n = 0; n < perThread; n++) {
                        final int index = n * threads + thread;
                        ops.tryCompleteElseWatch(all.get(index), watched.get(index),
                            clock.getAsLong() + random.nextInt(200));
                        for (int k = random.nextInt(4); k > 0; k--) {
                            final int other = random.nextInt(all.size());
                            all.get(other).ready.set(true);
                            final List<TopicPartition> its = watched.get(other);
                            ops.checkAndComplete(its.get(random.nextInt(its.size())));
                        }
                        if (random.nextInt(4) == 0) {
                            ops.expire(clock.advance(random.nextInt(6)));
                        }
                    }
                    return null;
                }));
            }
            for (final Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
            assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
        }
        // Whatever is left has a deadline at most 200 ms ahead.
        ops.expire(clock.advance(200 + TICK));
        assertEquals(0, ops.pending(), "seed=" + seed);
        ops.close();

        final List<String> wrong = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            final TestOp op = all.get(i);
            if (op.completions.get() != 1 || op.expired() != op.expiredWhenAnswered) {
                wrong.add("op " + i + ": completions=" + op.completions.get() + " expired=" + op.expired()
                    + " expiredWhenAnswered=" + op.expiredWhenAnswered);
            }
        }
        assertEquals(List.of(), wrong, "seed=" + seed);
    }

    @Test
    void reaperExpiresOnARealClockAndCloseEndsIt() {
        final LongSupplier realMs = () -> TimeUnit.NANOSECONDS.toMillis(System.nanoTime());
        final DelayedOperations reaped = new DelayedOperations(realMs);
        toClose.add(reaped);
        final List<Thread> started = new CopyOnWriteArrayList<>();
        reaped.startReaper("delayed-operations-test-reaper", r -> {
            final Thread t = new Thread(r);
            started.add(t);
            return t;
        });
        final TestOp soon = new TestOp();
        final TestOp late = new TestOp();
        assertFalse(reaped.tryCompleteElseWatch(soon, List.of(TP0), realMs.getAsLong() + 20));
        assertFalse(reaped.tryCompleteElseWatch(late, List.of(TP0), realMs.getAsLong() + 3_600_000));

        Await.until(Duration.ofSeconds(10), () -> soon.completions.get() == 1, () -> "the reaper expired it");
        assertTrue(soon.expired());
        assertEquals(0, late.completions.get(), "an hour away");
        assertEquals(1, started.size());
        assertTrue(started.get(0).isAlive());
        assertEquals("delayed-operations-test-reaper", started.get(0).getName());

        reaped.close();
        assertEquals(1, late.completions.get());
        assertTrue(late.expired());
        Await.until(Duration.ofSeconds(10), () -> !started.get(0).isAlive(), () -> "the reaper thread ended");
    }
}
