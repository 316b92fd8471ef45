package io.seglog.storage;

import java.util.ArrayList;
import java.util.List;

/**
 * A deterministic {@link Scheduler} for tests: tasks run only when the test calls {@link #runDue()} or
 * {@link #advanceMs(long)}, on the test's thread, in due-time order, against a {@link ManualClock}.
 */
public final class ManualScheduler implements Scheduler {
    private static final class Task {
        final String name;
        final Runnable runnable;
        final long periodMs;
        long dueMs;
        boolean cancelled;

        Task(final String name, final Runnable runnable, final long dueMs, final long periodMs) {
            this.name = name;
            this.runnable = runnable;
            this.dueMs = dueMs;
            this.periodMs = periodMs;
        }
    }

    private final ManualClock clock;
    private final List<Task> tasks = new ArrayList<>();
    private boolean closed;
    private int runs;

    public ManualScheduler(final ManualClock clock) {
        this.clock = clock;
    }

    @Override
    public synchronized Cancellable schedule(final String name, final Runnable task, final long delayMs,
                                             final long periodMs) {
        if (delayMs < 0 || periodMs < 0) {
            throw new IllegalArgumentException("delayMs=" + delayMs + " periodMs=" + periodMs);
        }
        if (closed) {
            throw new IllegalStateException("scheduler is closed; task=" + name);
        }
        final Task t = new Task(name, task, clock.millis() + delayMs, periodMs);
        tasks.add(t);
        return () -> {
            synchronized (ManualScheduler.this) {
                t.cancelled = true;
                tasks.remove(t);
            }
        };
    }

    /** Runs every task due now (including ones that become due while running), earliest first. */
    public int runDue() {
        int ran = 0;
        while (true) {
            final Task next;
            synchronized (this) {
                Task best = null;
                for (final Task t : tasks) {
                    if (t.dueMs <= clock.millis() && (best == null || t.dueMs < best.dueMs)) {
                        best = t;
                    }
                }
                if (best == null) {
                    return ran;
                }
                next = best;
                if (next.periodMs > 0) {
                    next.dueMs += next.periodMs;
                } else {
                    tasks.remove(next);
                }
                runs++;
            }
            next.runnable.run();
            ran++;
        }
    }

    /** Moves the clock and runs what became due. */
    public int advanceMs(final long ms) {
        clock.advanceMs(ms);
        return runDue();
    }

    public synchronized int pending(final String namePrefix) {
        int n = 0;
        for (final Task t : tasks) {
            if (t.name.startsWith(namePrefix)) {
                n++;
            }
        }
        return n;
    }

    public synchronized int pendingTotal() {
        return tasks.size();
    }

    public synchronized int runs() {
        return runs;
    }

    @Override
    public synchronized void close() {
        closed = true;
        tasks.clear();
    }
}
