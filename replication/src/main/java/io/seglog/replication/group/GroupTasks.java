package io.seglog.replication.group;

/**
 * A {@link GroupManager}'s timers and write completions on the coordinator's {@link GroupScheduler}: it owns the scope
 * of the manager's timer keys and whether the manager still runs (set once, by {@link #stop}, when the manager is
 * unloaded). A timer or completion that fires after {@link #stop} does nothing (a completion runs only its
 * {@code afterStop} part), so a late one never touches the groups or offsets of the manager that replaced it.
 *
 * <p>Timer keys are unique per scheduler because the scope is the offsets partition's number ({@code groups-7-...}):
 * the managers of a coordinator's partitions share its scheduler, and at most one manager per partition schedules at a
 * time. A manager of the same partition loaded again after an unload reuses the keys, which is safe: the unloaded one
 * has cancelled its timers, schedules nothing once stopped, and is never called again (the coordinator drops it).
 *
 * <p>Only the manager's owners of state ({@link GroupMembership}, {@link CommittedOffsets}) schedule through it;
 * only {@link GroupManager#unload} stops it. Touched only on the coordinator's thread.
 */
final class GroupTasks {
    private final GroupScheduler scheduler;
    /** Scopes this manager's timer keys: the other partitions' managers share the scheduler. */
    private final String keyPrefix;
    /** Set by {@link #stop}: timers and write completions that fire after it do nothing. */
    private boolean stopped;

    GroupTasks(final GroupScheduler scheduler, final int partition) {
        if (partition < 0) {
            throw new IllegalArgumentException("partition=" + partition + " must be >= 0");
        }
        this.scheduler = scheduler;
        this.keyPrefix = "groups-" + partition + "-";
    }

    /** A timer of this manager (its key scoped to it); none is set once the manager is stopped, none runs after. */
    void schedule(final String key, final long delayMs, final Runnable task) {
        if (stopped) {
            return;
        }
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
