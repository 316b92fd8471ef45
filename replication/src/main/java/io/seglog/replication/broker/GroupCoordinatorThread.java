package io.seglog.replication.broker;

import io.seglog.replication.group.GroupScheduler;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The group coordinator's one thread: it runs the tasks handed to it (requests, write completions) in the order they
 * came and its timers when they fall due, one at a time, so the group state it touches needs no lock. A timer is named
 * by a key; scheduling a key again replaces its timer. A task that throws is logged and the thread goes on.
 *
 * <p>Thread-safe: tasks and timers may be given from any thread.
 */
final class GroupCoordinatorThread implements GroupScheduler, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(GroupCoordinatorThread.class);

    /** A timer; {@code seq} orders timers due at the same time by when they were set. */
    private record Timer(long dueMs, long seq, String key, Runnable task) {
    }

    private final LongSupplier clockMs;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
    private final PriorityQueue<Timer> timers = new PriorityQueue<>((a, b) -> a.dueMs() != b.dueMs()
        ? Long.compare(a.dueMs(), b.dueMs()) : Long.compare(a.seq(), b.seq()));
    private final Map<String, Timer> byKey = new HashMap<>();
    private final Thread thread;
    private long seq;
    private boolean running = true;

    /**
     * Starts the thread.
     *
     * @param name          the thread's name
     * @param threadFactory makes the thread
     * @param clockMs       a monotonic clock, milliseconds
     */
    GroupCoordinatorThread(final String name, final ThreadFactory threadFactory, final LongSupplier clockMs) {
        this.clockMs = clockMs;
        this.thread = threadFactory.newThread(this::run);
        thread.setName(name);
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public long nowMs() {
        return clockMs.getAsLong();
    }

    @Override
    public void schedule(final String key, final long delayMs, final Runnable task) {
        lock.lock();
        try {
            final Timer old = byKey.remove(key);
            if (old != null) {
                timers.remove(old);
            }
            final Timer timer = new Timer(clockMs.getAsLong() + Math.max(0, delayMs), seq++, key, task);
            timers.add(timer);
            byKey.put(key, timer);
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void cancel(final String key) {
        lock.lock();
        try {
            final Timer old = byKey.remove(key);
            if (old != null) {
                timers.remove(old);
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void execute(final Runnable task) {
        lock.lock();
        try {
            if (!running) {
                LOG.debug("{} is closed; a task is dropped", thread.getName());
                return;
            }
            tasks.add(task);
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Whether the caller runs on this thread (the group state may be touched).
     *
     * @return true on the coordinator's thread
     */
    boolean onThread() {
        return Thread.currentThread() == thread;
    }

    private void run() {
        while (true) {
            final Runnable next;
            lock.lock();
            try {
                next = awaitNext();
                if (next == null) {
                    return;
                }
            } catch (final InterruptedException e) {
                return;
            } finally {
                lock.unlock();
            }
            try {
                next.run();
            } catch (final RuntimeException | AssertionError | StackOverflowError e) {
                // The thread must outlive one failing task: every group's requests wait on it.
                LOG.error("{}: a task failed", thread.getName(), e);
            }
        }
    }

    /** The next task, or a timer due now; waits otherwise. Null once closed. Under the lock. */
    private Runnable awaitNext() throws InterruptedException {
        while (running) {
            final Runnable task = tasks.poll();
            if (task != null) {
                return task;
            }
            final Timer first = timers.peek();
            final long now = clockMs.getAsLong();
            if (first != null && first.dueMs() <= now) {
                timers.poll();
                byKey.remove(first.key(), first);
                return first.task();
            }
            if (first == null) {
                changed.await();
            } else {
                changed.await(first.dueMs() - now, TimeUnit.MILLISECONDS);
            }
        }
        return null;
    }

    /** Stops the thread once the task it runs (if any) ends; queued tasks and timers are dropped. Idempotent. */
    @Override
    public void close() {
        lock.lock();
        try {
            running = false;
            tasks.clear();
            timers.clear();
            byKey.clear();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        if (thread != Thread.currentThread()) {
            try {
                thread.join(TimeUnit.SECONDS.toMillis(30));
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
