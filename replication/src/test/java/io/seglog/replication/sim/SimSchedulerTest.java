package io.seglog.replication.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.seglog.replication.group.GroupScheduler;
import io.seglog.storage.Scheduler;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class SimSchedulerTest {
    /** A workload whose shape (delays, fan-out, cancellations) comes from the seed only. */
    private static SimScheduler randomRun(final long seed) {
        final SimScheduler sim = new SimScheduler(seed);
        final List<SimScheduler.Timer> armed = new ArrayList<>();
        for (int node = 0; node < 3; node++) {
            spawn(sim, node, 0, armed);
        }
        sim.run(10_000);
        return sim;
    }

    private static void spawn(final SimScheduler sim, final int node, final int depth, final List<SimScheduler.Timer> armed) {
        final long delay = sim.random().nextLong(0, 50);
        armed.add(sim.schedule("task d" + depth, node, delay, () -> {
            if (depth < 6) {
                final int children = sim.random().nextInt(1, 4);
                for (int i = 0; i < children; i++) {
                    spawn(sim, sim.random().nextInt(0, 3), depth + 1, armed);
                }
            }
            if (!armed.isEmpty() && sim.random().nextInt(4) == 0) {
                armed.get(sim.random().nextInt(armed.size())).cancel();
            }
        }));
    }

    @Test
    void sameSeedGivesTheSameTraceAndAnotherSeedAnother() {
        final SimScheduler a = randomRun(42);
        final SimScheduler b = randomRun(42);
        assertTrue(a.eventCount() > 20, "the workload ran: " + a.eventCount() + " events");
        assertEquals(a.digest(), b.digest());
        assertEquals(a.eventCount(), b.eventCount());
        assertEquals(a.recentEvents(), b.recentEvents());
        assertNotEquals(a.digest(), randomRun(43).digest());
    }

    @Test
    void timersFireInTimeThenSchedulingOrder() {
        final SimScheduler sim = new SimScheduler(1);
        final List<String> ran = new ArrayList<>();
        final List<Long> at = new ArrayList<>();
        for (final String spec : List.of("a@5", "b@1", "c@5", "d@3", "e@1", "f@0")) {
            final String[] p = spec.split("@");
            sim.schedule(p[0], SimScheduler.NO_NODE, Long.parseLong(p[1]), () -> {
                ran.add(p[0]);
                at.add(sim.nowMs());
            });
        }
        assertEquals(6, sim.pending());
        while (sim.step()) {
            continue;
        }
        assertEquals(List.of("f", "b", "e", "d", "a", "c"), ran);
        assertEquals(List.of(0L, 1L, 1L, 3L, 5L, 5L), at);
        assertEquals(0, sim.pending());
    }

    @Test
    void cancelledTimerNeverRunsAndCancelAfterFiringIsANoOp() {
        final SimScheduler sim = new SimScheduler(1);
        final List<String> ran = new ArrayList<>();
        final SimScheduler.Timer x = sim.schedule("x", 0, 10, () -> ran.add("x"));
        final SimScheduler.Timer y = sim.schedule("y", 0, 20, () -> ran.add("y"));
        final SimScheduler.Timer z = sim.schedule("z", 0, 30, () -> ran.add("z"));
        assertTrue(y.cancel());
        assertFalse(y.cancel(), "idempotent");
        assertEquals(2, sim.pending());
        sim.run(100);
        assertEquals(List.of("x", "z"), ran);
        assertTrue(x.fired());
        assertTrue(y.cancelled());
        assertFalse(y.fired());
        assertFalse(z.cancel(), "already ran");
        assertEquals(100, sim.nowMs(), "run(until) moves the clock to the end");
        assertEquals(0, sim.pending());
    }

    @Test
    void executeNeverRunsInlineAndRunsAfterWhatIsAlreadyDue() {
        final SimScheduler sim = new SimScheduler(1);
        final List<String> ran = new ArrayList<>();
        sim.schedule("first", 0, 5, () -> {
            sim.execute("completion", 0, () -> ran.add("completion"));
            ran.add("first-returned");
        });
        sim.schedule("second", 0, 5, () -> ran.add("second"));
        sim.run(5);
        assertEquals(List.of("first-returned", "second", "completion"), ran);
        final Executor executor = sim.executor("exec", 1);
        executor.execute(() -> ran.add("executor"));
        assertEquals(4, ran.size() + 1, "not run inside execute");
        assertTrue(sim.step());
        assertEquals("executor", ran.get(ran.size() - 1));
    }

    @Test
    void runUntilStopsAtTheConditionOrTheDeadline() {
        final SimScheduler sim = new SimScheduler(1);
        final List<Long> ran = new ArrayList<>();
        for (long t = 10; t <= 100; t += 10) {
            final long time = t;
            sim.schedule("tick", 0, t, () -> ran.add(time));
        }
        assertTrue(sim.runUntil(() -> ran.size() == 3, 1_000));
        assertEquals(30, sim.nowMs());
        assertFalse(sim.runUntil(() -> false, 55));
        assertEquals(List.of(10L, 20L, 30L, 40L, 50L), ran);
        assertEquals(50, sim.nowMs(), "the clock stays at the last event run");
        assertFalse(sim.runUntil(() -> false, 10_000), "the queue runs dry");
        assertEquals(10, ran.size());
    }

    @Test
    void aThrowingTaskStopsTheRunNamingSeedAndEvent() {
        final SimScheduler sim = new SimScheduler(77);
        sim.schedule("ok", 3, 1, () -> { });
        sim.schedule("boom", 3, 2, () -> {
            throw new IllegalStateException("broken invariant");
        });
        final SimScheduler.SimulationFailure f = assertThrows(SimScheduler.SimulationFailure.class, () -> sim.run(10));
        assertTrue(f.getMessage().contains("seed=77") && f.getMessage().contains("'boom' of node 3 at 2 ms"),
            f.getMessage());
        assertEquals("broken invariant", f.getCause().getMessage());
    }

    @Test
    void otherThreadsAreRefused() throws Exception {
        final SimScheduler sim = new SimScheduler(1);
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final Thread t = new Thread(() -> {
            try {
                sim.execute("from another thread", 0, () -> { });
            } catch (final Throwable e) {
                failure.set(e);
            }
        }, "intruder");
        t.start();
        t.join();
        assertTrue(failure.get() instanceof IllegalStateException
            && failure.get().getMessage().contains("'intruder'"), String.valueOf(failure.get()));
        assertEquals(0, sim.pending());
    }

    @Test
    void storageSchedulerRunsPeriodicTasksUntilCancelledOrClosed() {
        final SimScheduler sim = new SimScheduler(1);
        final Scheduler storage = sim.storageScheduler(2);
        final List<Long> flushes = new ArrayList<>();
        final List<Long> once = new ArrayList<>();
        final List<Long> retention = new ArrayList<>();
        final Scheduler.Cancellable flush = storage.schedule("flush-log", () -> flushes.add(sim.nowMs()), 5, 10);
        storage.schedule("delete-segment", () -> once.add(sim.nowMs()), 7, 0);
        storage.schedule("retention", () -> retention.add(sim.nowMs()), 0, 40);
        sim.run(36);
        assertEquals(List.of(5L, 15L, 25L, 35L), flushes);
        assertEquals(List.of(7L), once);
        flush.cancel();
        sim.run(100);
        assertEquals(4, flushes.size());
        assertEquals(List.of(0L, 40L, 80L), retention);
        storage.close();
        assertEquals(0, sim.pending(), "close cancels the node's tasks");
        sim.run(200);
        assertEquals(3, retention.size());
        assertThrows(IllegalStateException.class, () -> storage.schedule("late", () -> { }, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> sim.storageScheduler(2).schedule("neg", () -> { }, -1, 0));
    }

    @Test
    void groupSchedulerReplacesTimersByKey() {
        final SimScheduler sim = new SimScheduler(1);
        final GroupScheduler group = sim.groupScheduler(0);
        final List<String> ran = new ArrayList<>();
        group.schedule("heartbeat m1", 10, () -> ran.add("old"));
        group.schedule("heartbeat m1", 20, () -> ran.add("new"));
        group.schedule("rebalance g", 5, () -> ran.add("rebalance"));
        group.cancel("rebalance g");
        group.execute(() -> ran.add("write-done at " + group.nowMs()));
        assertTrue(ran.isEmpty(), "nothing inline");
        sim.run(100);
        assertEquals(List.of("write-done at 0", "new"), ran);
        assertEquals(0, sim.pending());
    }

    @Test
    void clockSeamsAgree() {
        final SimScheduler sim = new SimScheduler(1, new SimClock(1_000_000));
        sim.run(1234);
        assertEquals(1234, sim.clock().msSupplier().getAsLong());
        assertEquals(1_234_000_000L, sim.clock().nsSupplier().getAsLong());
        assertEquals(1_001_234, sim.clock().wallMsSupplier().getAsLong());
        assertEquals(1_001_234, sim.clock().instantSource().millis());
        assertThrows(IllegalArgumentException.class, () -> sim.schedule("past", 0, -1, () -> { }));
    }
}
