package io.seglog.replication.replica;

import io.seglog.storage.Scheduler;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a {@link ReplicaFetcher}'s steps run, one at a time: a thread of its own in a broker ({@link #onThread}), or a
 * scheduler shared with the rest of a broker in a deterministic simulation ({@link #onScheduler}). A fetcher never
 * blocks in a step: it sends a request and continues in another step when the answer or a timer comes.
 *
 * <p>Tasks run one at a time, never inline in {@link #execute} or {@link #schedule} while the driver runs (an answer
 * completed on a network thread continues on the driver, and a simulation sees every continuation as an event of
 * its own). Once stopped, {@link #execute} runs the task on the caller's thread, so that an answer arriving late is
 * still seen, and closed, by the fetcher; timers no longer run.
 */
interface FetcherDriver {
    /**
     * Runs a task soon, after the ones already waiting.
     *
     * @param task the task
     */
    void execute(Runnable task);

    /**
     * Runs a task after a delay.
     *
     * @param delayMs the delay, 0 or more
     * @param task    the task
     * @return cancels it (a no-op once it ran)
     */
    Scheduler.Cancellable schedule(long delayMs, Runnable task);

    /** Starts running tasks. */
    void start();

    /** Stops running tasks, without waiting for one in progress; waiting tasks run on the caller. Idempotent. */
    void stop();

    /**
     * Whether no task runs any more.
     *
     * @return true once stopped and the task in progress (if any) has finished, or if never started
     */
    boolean ended();

    /**
     * Waits for the task in progress after {@link #stop}.
     *
     * @param timeoutMs how long at most
     */
    void join(long timeoutMs);

    /**
     * A driver on a thread of its own (the broker's fetcher thread), with timers on {@link System#nanoTime()}.
     *
     * @param threads makes the thread
     * @param name    the thread's name
     * @return the driver, not started
     */
    static FetcherDriver onThread(final ThreadFactory threads, final String name) {
        return new ThreadDriver(threads, name);
    }

    /**
     * A driver over a scheduler: each task is a one-shot scheduled task.
     *
     * @param scheduler runs the tasks (one at a time for a fetcher's steps to stay ordered: a single-thread scheduler
     *                  or a simulation's)
     * @param name      the tasks' name
     * @return the driver
     */
    static FetcherDriver onScheduler(final Scheduler scheduler, final String name) {
        return new SchedulerDriver(scheduler, name);
    }

    /** One thread running ready tasks first, then timers in due order. */
    final class ThreadDriver implements FetcherDriver {
        private static final Logger LOG = LoggerFactory.getLogger(ThreadDriver.class);

        private record Timer(long dueNs, long seq, Runnable task) {
        }

        private final ReentrantLock lock = new ReentrantLock();
        private final Condition changed = lock.newCondition();
        private final ArrayDeque<Runnable> ready = new ArrayDeque<>();
        private final PriorityQueue<Timer> timers = new PriorityQueue<>((a, b) -> a.dueNs != b.dueNs
            ? Long.compare(a.dueNs, b.dueNs) : Long.compare(a.seq, b.seq));
        private final Thread thread;
        private long nextSeq;
        private boolean stopped;

        private ThreadDriver(final ThreadFactory threads, final String name) {
            this.thread = threads.newThread(this::run);
            thread.setName(name);
            thread.setDaemon(true);
        }

        @Override
        public void execute(final Runnable task) {
            lock.lock();
            try {
                if (!stopped) {
                    ready.add(task);
                    changed.signalAll();
                    return;
                }
            } finally {
                lock.unlock();
            }
            task.run();
        }

        @Override
        public Scheduler.Cancellable schedule(final long delayMs, final Runnable task) {
            final long dueNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delayMs);
            lock.lock();
            try {
                if (stopped) {
                    return () -> { };
                }
                final Timer queued = new Timer(dueNs, nextSeq++, task);
                timers.add(queued);
                changed.signalAll();
                return () -> {
                    lock.lock();
                    try {
                        timers.remove(queued);
                    } finally {
                        lock.unlock();
                    }
                };
            } finally {
                lock.unlock();
            }
        }

        @Override
        public void start() {
            thread.start();
        }

        @Override
        public void stop() {
            final List<Runnable> waiting;
            lock.lock();
            try {
                stopped = true;
                timers.clear();
                waiting = new ArrayList<>(ready);
                ready.clear();
                changed.signalAll();
            } finally {
                lock.unlock();
            }
            // Continuations already queued (an answer that arrived) still run, to give back what they hold.
            waiting.forEach(ThreadDriver::runLogged);
        }

        @Override
        public boolean ended() {
            return !thread.isAlive();
        }

        @Override
        public void join(final long timeoutMs) {
            if (thread.isAlive() && thread != Thread.currentThread()) {
                try {
                    thread.join(timeoutMs);
                } catch (final InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        private void run() {
            while (true) {
                final Runnable task = next();
                if (task == null) {
                    return;
                }
                runLogged(task);
            }
        }

        /** The next task to run, waiting for it; null once stopped. */
        private Runnable next() {
            lock.lock();
            try {
                while (!stopped) {
                    final Runnable first = ready.poll();
                    if (first != null) {
                        return first;
                    }
                    final Timer timer = timers.peek();
                    final long now = System.nanoTime();
                    if (timer != null && timer.dueNs - now <= 0) {
                        timers.poll();
                        return timer.task;
                    }
                    try {
                        if (timer == null) {
                            changed.await();
                        } else {
                            changed.awaitNanos(timer.dueNs - now);
                        }
                    } catch (final InterruptedException e) {
                        // Nothing interrupts a fetcher on purpose (an interrupt in a file write closes the channel
                        // and takes the log directory offline); keep going, the stop flag ends the loop.
                        LOG.debug("{}: interrupted while idle", thread.getName());
                    }
                }
                return null;
            } finally {
                lock.unlock();
            }
        }

        private static void runLogged(final Runnable task) {
            try {
                task.run();
            } catch (final RuntimeException e) {
                LOG.error("fetcher task failed", e);
            }
        }
    }

    /** Tasks as one-shot tasks of a {@link Scheduler}. */
    final class SchedulerDriver implements FetcherDriver {
        private final Scheduler scheduler;
        private final String name;
        private volatile boolean stopped;

        private SchedulerDriver(final Scheduler scheduler, final String name) {
            this.scheduler = scheduler;
            this.name = name;
        }

        @Override
        public void execute(final Runnable task) {
            if (!stopped) {
                try {
                    scheduler.schedule(name, task, 0, 0);
                    return;
                } catch (final IllegalStateException closed) {
                    // The scheduler closed under us: run here, as a stopped driver does.
                }
            }
            task.run();
        }

        @Override
        public Scheduler.Cancellable schedule(final long delayMs, final Runnable task) {
            if (stopped) {
                return () -> { };
            }
            try {
                return scheduler.schedule(name, () -> {
                    if (!stopped) {
                        task.run();
                    }
                }, delayMs, 0);
            } catch (final IllegalStateException closed) {
                return () -> { };
            }
        }

        @Override
        public void start() {
            // Nothing to start: the scheduler runs.
        }

        @Override
        public void stop() {
            stopped = true;
        }

        @Override
        public boolean ended() {
            return stopped;
        }

        @Override
        public void join(final long timeoutMs) {
            // A scheduler task in progress is the caller's or finishes on the scheduler's own thread.
        }
    }
}
