package io.seglog.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The default scheduler: one named thread, periodic tasks survive exceptions, close stops everything. */
class SingleThreadSchedulerTest {
    private static boolean threadAlive(final String name) {
        return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.isAlive() && t.getName().equals(name));
    }

    @Test
    @Timeout(30)
    void runsOneShotAndPeriodicTasksAndAThrowingTaskKeepsItsSchedule() throws Exception {
        final AtomicInteger runs = new AtomicInteger();
        final CountDownLatch threeRuns = new CountDownLatch(3);
        final CountDownLatch once = new CountDownLatch(1);
        final Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> { }); // the test's throws are expected
        try (Scheduler scheduler = Scheduler.singleThread("seglog-test-scheduler")) {
            scheduler.schedule("once", once::countDown, 0, 0);
            scheduler.schedule("periodic", () -> {
                runs.incrementAndGet();
                threeRuns.countDown();
                throw new IllegalStateException("task failure must not cancel the schedule");
            }, 0, 5);
            assertTrue(once.await(10, TimeUnit.SECONDS));
            assertTrue(threeRuns.await(10, TimeUnit.SECONDS), "ran 3 times despite throwing each time");
            assertTrue(threadAlive("seglog-test-scheduler"));
        } finally {
            Thread.setDefaultUncaughtExceptionHandler(previous);
        }
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (threadAlive("seglog-test-scheduler") && System.nanoTime() < deadline) {
            Thread.sleep(5); // polling a condition with a deadline
        }
        assertFalse(threadAlive("seglog-test-scheduler"), "close leaves no thread");
    }

    @Test
    void cancelStopsATaskAndScheduleAfterCloseFails() throws Exception {
        final Scheduler scheduler = Scheduler.singleThread("seglog-test-scheduler-2");
        final AtomicInteger runs = new AtomicInteger();
        final Scheduler.Cancellable c = scheduler.schedule("later", runs::incrementAndGet, 60_000, 0);
        c.cancel();
        c.cancel();
        assertThrows(IllegalArgumentException.class, () -> scheduler.schedule("bad", () -> { }, -1, 0));
        scheduler.close();
        scheduler.close();
        final IllegalStateException e = assertThrows(IllegalStateException.class,
            () -> scheduler.schedule("late", () -> { }, 0, 0));
        assertTrue(e.getMessage().contains("late"), e.getMessage());
        assertEquals(0, runs.get());
    }
}
