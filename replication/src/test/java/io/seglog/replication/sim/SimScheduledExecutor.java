package io.seglog.replication.sim;

import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * One process's single-threaded scheduled executor (a channel's thread) as events of the simulation: a task runs as an
 * event of its node, a delayed one after its delay in simulated time, and nothing runs once the process has ended
 * (a crash leaves no thread behind to run it). Only what the production code it stands under uses: {@code execute}
 * and one-shot {@code schedule}; nothing waits for a result.
 */
final class SimScheduledExecutor extends AbstractExecutorService implements ScheduledExecutorService {
    private final SimScheduler sim;
    private final String name;
    private final int node;
    private final BooleanSupplier alive;
    private boolean shutdown;

    /**
     * @param sim   the scheduler
     * @param name  the events' name
     * @param node  the node whose process runs the tasks
     * @param alive whether that process still runs
     */
    SimScheduledExecutor(final SimScheduler sim, final String name, final int node, final BooleanSupplier alive) {
        this.sim = sim;
        this.name = name;
        this.node = node;
        this.alive = alive;
    }

    private boolean running() {
        return !shutdown && alive.getAsBoolean();
    }

    @Override
    public void execute(final Runnable task) {
        schedule(task, 0, TimeUnit.MILLISECONDS);
    }

    @Override
    public ScheduledFuture<?> schedule(final Runnable task, final long delay, final TimeUnit unit) {
        if (shutdown) {
            throw new RejectedExecutionException(name + " is shut down");
        }
        final long delayMs = unit.toMillis(delay);
        final long dueMs = sim.nowMs() + delayMs;
        final boolean[] done = {false};
        final SimScheduler.Timer timer = sim.schedule(name, node, Math.max(0, delayMs), () -> {
            done[0] = true;
            if (running()) {
                task.run();
            }
        });
        return new ScheduledFuture<Object>() {
            @Override
            public long getDelay(final TimeUnit u) {
                return u.convert(dueMs - sim.nowMs(), TimeUnit.MILLISECONDS);
            }

            @Override
            public int compareTo(final Delayed o) {
                return Long.compare(getDelay(TimeUnit.MILLISECONDS), o.getDelay(TimeUnit.MILLISECONDS));
            }

            @Override
            public boolean cancel(final boolean mayInterrupt) {
                return timer.cancel();
            }

            @Override
            public boolean isCancelled() {
                return timer.cancelled();
            }

            @Override
            public boolean isDone() {
                return done[0] || timer.cancelled();
            }

            @Override
            public Object get() {
                throw new UnsupportedOperationException("the simulation's thread never waits");
            }

            @Override
            public Object get(final long timeout, final TimeUnit u) {
                throw new UnsupportedOperationException("the simulation's thread never waits");
            }
        };
    }

    @Override
    @SuppressWarnings("unchecked")
    public <V> ScheduledFuture<V> schedule(final Callable<V> callable, final long delay, final TimeUnit unit) {
        // Its value is never read (get() is refused): the call is what matters.
        return (ScheduledFuture<V>) schedule(() -> {
            try {
                callable.call();
            } catch (final RuntimeException e) {
                throw e;
            } catch (final Exception e) {
                throw new IllegalStateException(e);
            }
        }, delay, unit);
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(final Runnable command, final long initialDelay, final long period,
                                                  final TimeUnit unit) {
        throw new UnsupportedOperationException("not used by the code the simulation runs");
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(final Runnable command, final long initialDelay, final long delay,
                                                     final TimeUnit unit) {
        throw new UnsupportedOperationException("not used by the code the simulation runs");
    }

    @Override
    public void shutdown() {
        shutdown = true;
    }

    @Override
    public List<Runnable> shutdownNow() {
        shutdown = true;
        return List.of();
    }

    @Override
    public boolean isShutdown() {
        return shutdown;
    }

    @Override
    public boolean isTerminated() {
        return shutdown;
    }

    @Override
    public boolean awaitTermination(final long timeout, final TimeUnit unit) {
        return shutdown;
    }
}
