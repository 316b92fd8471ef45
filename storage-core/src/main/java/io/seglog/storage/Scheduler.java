package io.seglog.storage;

/**
 * Where the storage core runs its background work: periodic flushes, retention, checkpoint writes and the
 * delayed unlinking of deleted segments and partitions. An embedder supplies its own (an event loop, a shared
 * executor, a deterministic test scheduler) or takes {@link #singleThread(String)}; the storage core starts no
 * thread of its own.
 *
 * <p>Implementations must be thread-safe: tasks are scheduled from appender, reader and scheduler threads. A
 * task that throws must not stop other tasks; a periodic task that throws keeps running at its period (each
 * task here catches and reports its own failures anyway).
 */
public interface Scheduler extends AutoCloseable {
    /**
     * Runs a task once after {@code delayMs}, then, when {@code periodMs > 0}, every {@code periodMs}.
     *
     * @param name     a name for diagnostics, e.g. {@code "flush-log"}
     * @param task     the task
     * @param delayMs  the delay before the first run, 0 or more
     * @param periodMs the period, or 0 for a one-shot task
     * @return a handle that cancels the task
     * @throws IllegalArgumentException if {@code delayMs} or {@code periodMs} is negative
     * @throws IllegalStateException    if the scheduler is closed
     */
    Cancellable schedule(String name, Runnable task, long delayMs, long periodMs);

    /**
     * Stops the scheduler: no task starts after this returns and a running one has finished (a default
     * scheduler waits for it). Idempotent.
     */
    @Override
    void close();

    /**
     * A scheduler with one daemon thread, started by this call. The caller owns it and closes it.
     *
     * @param threadName the name of its thread
     * @return a new scheduler
     */
    static Scheduler singleThread(final String threadName) {
        return new SingleThreadScheduler(threadName);
    }

    /** Cancels a scheduled task. */
    @FunctionalInterface
    interface Cancellable {
        /** Cancels the task; a run in progress completes. Idempotent. */
        void cancel();
    }
}
