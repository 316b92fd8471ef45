package io.seglog.replication.group;

/**
 * The coordinator's one thread, its timers and its clock: everything {@link GroupManager} does runs as a task here,
 * so that its state needs no lock, and a simulation can run it on a clock of its own, one task at a time.
 */
public interface GroupScheduler {
    /**
     * The coordinator's clock.
     *
     * @return milliseconds (monotonic; only differences matter)
     */
    long nowMs();

    /**
     * Runs a task on the coordinator's thread after a delay, replacing any task scheduled under the same key.
     *
     * @param key     names the timer (one per group and purpose, or per member)
     * @param delayMs the delay
     * @param task    what to run
     */
    void schedule(String key, long delayMs, Runnable task);

    /**
     * Cancels the task scheduled under a key, if any.
     *
     * @param key the timer's name
     */
    void cancel(String key);

    /**
     * Runs a task on the coordinator's thread as soon as it can (from another thread: a write's completion).
     *
     * @param task what to run
     */
    void execute(Runnable task);
}
