package io.seglog.storage;

import java.util.Objects;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The default {@link Scheduler}: one daemon thread over a {@link ScheduledThreadPoolExecutor}. Tasks are
 * wrapped so that a throwing periodic task keeps its schedule (the executor would silently cancel it).
 * {@link #close()} drops everything queued and waits for a running task without interrupting it. Thread-safe.
 */
final class SingleThreadScheduler implements Scheduler {
    /** How long close waits for a running task before it gives up (a stuck fsync must not hang shutdown). */
    private static final long CLOSE_WAIT_MS = 30_000;

    private final ScheduledThreadPoolExecutor executor;

    SingleThreadScheduler(final String threadName) {
        Objects.requireNonNull(threadName, "threadName");
        executor = new ScheduledThreadPoolExecutor(1, runnable -> {
            final Thread thread = new Thread(runnable, threadName);
            thread.setDaemon(true);
            return thread;
        });
        executor.setRemoveOnCancelPolicy(true);
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        executor.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
    }

    @Override
    public Cancellable schedule(final String name, final Runnable task, final long delayMs, final long periodMs) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(task, "task");
        if (delayMs < 0 || periodMs < 0) {
            throw new IllegalArgumentException("delayMs=" + delayMs + " and periodMs=" + periodMs
                + " must be >= 0 (task=" + name + ")");
        }
        if (executor.isShutdown()) {
            throw new IllegalStateException("scheduler is closed; cannot schedule task=" + name);
        }
        final Runnable guarded = () -> {
            try {
                task.run();
            } catch (final RuntimeException e) {
                // A periodic task that throws would be cancelled by the executor; the tasks report their own
                // failures (a storage failure takes the directory offline), so keeping the schedule is right.
                Thread.currentThread().getUncaughtExceptionHandler().uncaughtException(Thread.currentThread(), e);
            }
        };
        final ScheduledFuture<?> future = periodMs > 0
            ? executor.scheduleAtFixedRate(guarded, delayMs, periodMs, TimeUnit.MILLISECONDS)
            : executor.schedule(guarded, delayMs, TimeUnit.MILLISECONDS);
        return () -> future.cancel(false);
    }

    @Override
    public void close() {
        // shutdown, not shutdownNow: interrupting a task inside FileChannel.force would close the segment's
        // channel (ClosedByInterruptException). Queued tasks are dropped by the policies set above.
        executor.shutdown();
        try {
            executor.awaitTermination(CLOSE_WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "SingleThreadScheduler{" + executor + "}";
    }
}
