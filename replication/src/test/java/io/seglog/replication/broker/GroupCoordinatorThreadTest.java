package io.seglog.replication.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The coordinator's thread: tasks in the order given, timers on the clock given (moved by the test, so no wall-clock
 * bound is asserted), a key's timer replaced or cancelled, a failing task survived, nothing run after close.
 */
class GroupCoordinatorThreadTest {
    private static final long WAIT_S = 30;
    private final AtomicLong clock = new AtomicLong(1_000);
    private final GroupCoordinatorThread thread = new GroupCoordinatorThread("group-coordinator-test", Thread::new,
        clock::get);

    @AfterEach
    void close() {
        thread.close();
    }

    /** Runs nothing, but returns once the thread has run everything given before it. */
    private void drain() throws InterruptedException {
        final CountDownLatch done = new CountDownLatch(1);
        thread.execute(done::countDown);
        assertTrue(done.await(WAIT_S, TimeUnit.SECONDS), "the thread runs its tasks");
    }

    @Test
    void tasksRunOneAtATimeOnOneThreadInTheOrderEachSubmitterGaveThem() throws Exception {
        final List<String> ran = new CopyOnWriteArrayList<>();
        final Set<Thread> threads = ConcurrentHashMap.newKeySet();
        final AtomicInteger running = new AtomicInteger();
        final AtomicInteger overlaps = new AtomicInteger();
        final Thread[] submitters = new Thread[4];
        for (int s = 0; s < submitters.length; s++) {
            final int id = s;
            submitters[s] = new Thread(() -> {
                for (int i = 0; i < 500; i++) {
                    final String name = id + ":" + i;
                    thread.execute(() -> {
                        if (running.incrementAndGet() > 1) {
                            overlaps.incrementAndGet();
                        }
                        threads.add(Thread.currentThread());
                        ran.add(name);
                        running.decrementAndGet();
                        assertTrue(thread.onThread());
                    });
                }
            });
            submitters[s].start();
        }
        for (final Thread t : submitters) {
            t.join(TimeUnit.SECONDS.toMillis(WAIT_S));
        }
        drain();
        assertEquals(2_000, ran.size());
        assertEquals(0, overlaps.get(), "never two tasks at once");
        assertEquals(1, threads.size(), "one thread");
        for (int s = 0; s < submitters.length; s++) {
            final String prefix = s + ":";
            final List<Integer> order = ran.stream().filter(n -> n.startsWith(prefix))
                .map(n -> Integer.parseInt(n.substring(prefix.length()))).toList();
            for (int i = 0; i < order.size(); i++) {
                assertEquals(i, order.get(i), "submitter " + s + "'s tasks in its order");
            }
        }
        assertFalse(thread.onThread(), "the test's thread is not the coordinator's");
    }

    @Test
    void aTimerRunsOnceItsDelayHasPassedOnTheClockAndAKeyHasOneTimer() throws Exception {
        final AtomicInteger fired = new AtomicInteger();
        final CountDownLatch ranOnce = new CountDownLatch(1);
        thread.schedule("session-m1", 1_000, () -> {
            fired.incrementAndGet();
            ranOnce.countDown();
        });
        thread.schedule("session-m1", 2_000, () -> {
            fired.incrementAndGet();
            ranOnce.countDown();
        });
        clock.addAndGet(1_500);
        drain();
        assertEquals(0, fired.get(), "the first timer was replaced; the second is not due");
        clock.addAndGet(500);
        drain(); // wakes the thread to look at its timers again
        assertTrue(ranOnce.await(WAIT_S, TimeUnit.SECONDS));
        drain();
        assertEquals(1, fired.get(), "one timer per key");
    }

    @Test
    void aCancelledTimerNeverRunsAndTimersDueTogetherRunInTheOrderSet() throws Exception {
        final List<String> ran = new CopyOnWriteArrayList<>();
        thread.schedule("a", 100, () -> ran.add("a"));
        thread.schedule("b", 100, () -> ran.add("b"));
        thread.schedule("c", 100, () -> ran.add("c"));
        thread.cancel("b");
        thread.cancel("no-such-timer");
        clock.addAndGet(100);
        drain();
        drain();
        assertEquals(List.of("a", "c"), ran);
    }

    @Test
    void aFailingTaskIsLoggedAndTheThreadGoesOn() throws Exception {
        thread.execute(() -> {
            throw new IllegalStateException("a broken handler");
        });
        thread.schedule("t", 0, () -> {
            throw new IllegalStateException("a broken timer");
        });
        final AtomicInteger after = new AtomicInteger();
        thread.execute(after::incrementAndGet);
        drain();
        assertEquals(1, after.get());
    }

    @Test
    void nothingRunsAfterClose() throws Exception {
        final AtomicInteger ran = new AtomicInteger();
        thread.schedule("late", 10, ran::incrementAndGet);
        thread.close();
        clock.addAndGet(10);
        thread.execute(ran::incrementAndGet);
        thread.close();
        assertEquals(0, ran.get());
    }
}
