package io.seglog.replication.group;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link GroupManager}'s timers and write completions on the coordinator's {@link GroupScheduler}: it owns the scope
 * of the manager's timer keys and whether the manager still runs (set once, by {@link #stop}, when the manager is
 * unloaded). A timer or completion that fires after {@link #stop} does nothing (a completion runs only its
 * {@code afterStop} part), so a late one never touches the groups or offsets of the manager that replaced it.
 *
 * <p>Only the manager's owners of state ({@link GroupMembership}, {@link CommittedOffsets}) schedule through it;
 * only {@link GroupManager#unload} stops it. Touched only on the coordinator's thread.
 */
final class GroupTasks {
    private static final AtomicLong INSTANCES = new AtomicLong();

    private final GroupScheduler scheduler;
    /** Scopes this manager's timer keys: another manager of the same partition (a reload) shares the scheduler. */
    private final String keyPrefix = "groups-" + INSTANCES.incrementAndGet() + "-";
    /** Set by {@link #stop}: timers and write completions that fire after it do nothing. */
    private boolean stopped;

    GroupTasks(final GroupScheduler scheduler) {
        this.scheduler = scheduler;
    }

    /** A timer of this manager (its key scoped to it); it does nothing once the manager is stopped. */
    void schedule(final String key, final long delayMs, final Runnable task) {
        scheduler.schedule(keyPrefix + key, delayMs, () -> {
            if (!stopped) {
                task.run();
            }
        });
    }

    void cancel(final String key) {
        scheduler.cancel(keyPrefix + key);
    }

    /** A task on the coordinator's thread (a write's completion); it does nothing once the manager is stopped. */
    void execute(final Runnable task) {
        execute(task, () -> { });
    }

    /**
     * A write's completion on the coordinator's thread; once the manager is stopped only {@code afterStop} runs,
     * which answers the request with the write's outcome and touches no state. As Kafka's coordinator, a request whose
     * write ends after its partition moved away is still answered (with NONE when the write was committed): left
     * unanswered it would hold its connection, whose later requests wait behind it, until the client gives up.
     */
    void execute(final Runnable task, final Runnable afterStop) {
        scheduler.execute(() -> {
            if (!stopped) {
                task.run();
            } else {
                afterStop.run();
            }
        });
    }

    /** The manager is unloaded: from now on its timers and completions do nothing. */
    void stop() {
        stopped = true;
    }
}
