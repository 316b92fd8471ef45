package io.seglog.replication.controller;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One thread that takes {@link ControllerEvent}s from a queue and hands them, with the time, to a processor;
 * between events it runs the processor's timed work when due (Kafka's {@code ControllerEventManager} plus its
 * scheduler in one thread, so that timed work never races event work).
 *
 * <p>Thread-safe: any thread may {@link #put} events; only the loop's thread processes them. With a
 * {@link ControllerDriver} instead of a thread factory there is no thread: the driver's thread runs the loop in steps
 * ({@link #runOnce}), and "the event thread" is whatever runs inside a step.
 */
final class ControllerEventLoop implements AutoCloseable {
    /** Longest wait for an event, so that an injected clock that jumps is noticed promptly. */
    private static final long MAX_WAIT_MS = 100;
    private static final Logger LOG = LoggerFactory.getLogger(ControllerEventLoop.class);

    /** What the loop drives. */
    interface Processor {
        void process(ControllerEvent event, long nowMs);

        /** @return when {@link #tick} is next due, in the clock's milliseconds */
        long nextTickMs();

        void tick(long nowMs);

        void preempt(ControllerEvent event);
    }

    private final LinkedBlockingDeque<ControllerEvent> queue = new LinkedBlockingDeque<>();
    private final Processor processor;
    private final LongSupplier clockMs;
    private final Thread thread;
    private final ControllerDriver driver;
    private volatile boolean running = true;
    private boolean started;
    /** Inside {@link #runOnce} (a driven loop only; the driver's one thread reads and writes it). */
    private boolean stepping;

    ControllerEventLoop(final ThreadFactory threadFactory, final LongSupplier clockMs, final Processor processor) {
        this.processor = processor;
        this.clockMs = clockMs;
        this.thread = threadFactory.newThread(this::run);
        this.driver = null;
    }

    ControllerEventLoop(final ControllerDriver driver, final LongSupplier clockMs, final Processor processor) {
        this.processor = processor;
        this.clockMs = clockMs;
        this.thread = null;
        this.driver = java.util.Objects.requireNonNull(driver, "driver");
    }

    synchronized void start() {
        if (!started) {
            started = true;
            if (driver == null) {
                thread.start();
            } else {
                driver.wakeup();
            }
        }
    }

    void put(final ControllerEvent event) {
        queue.add(event);
        if (driver != null) {
            driver.wakeup();
        }
    }

    /** Drops every queued event (preempting it) and queues this one: used on session expiry. */
    void clearAndPut(final ControllerEvent event) {
        final List<ControllerEvent> dropped = new ArrayList<>();
        synchronized (queue) {
            queue.drainTo(dropped);
            // At the head, not the tail: put() does not take this lock, so an event queued between the drain and
            // this line must still come after the expiry (Kafka's clearAndPut makes the expiry the next event).
            queue.addFirst(event);
            dropped.removeIf(e -> {
                if (e.survivesExpiry()) {
                    queue.add(e);
                    return true;
                }
                return false;
            });
        }
        dropped.forEach(processor::preempt);
        if (driver != null) {
            driver.wakeup();
        }
    }

    boolean isEventThread() {
        return driver == null ? Thread.currentThread() == thread : stepping;
    }

    /**
     * One step of a driven loop, without waiting: the timed work when it is due, else the next queued event, as one
     * turn of the thread's loop does.
     *
     * @return whether it did something (call again until false, then at {@link #nextWakeMs})
     */
    boolean runOnce() {
        if (driver == null) {
            throw new IllegalStateException("the loop runs on its own thread");
        }
        if (!running || !started) {
            return false;
        }
        stepping = true;
        try {
            final long now = clockMs.getAsLong();
            if (now >= processor.nextTickMs()) {
                processor.tick(now);
                return true;
            }
            final ControllerEvent event = queue.poll();
            if (event == null) {
                return false;
            }
            processor.process(event, clockMs.getAsLong());
            return true;
        } catch (final RuntimeException e) {
            LOG.error("Controller event failed", e);
            return true;
        } finally {
            stepping = false;
        }
    }

    /**
     * When a driven loop next has work: now while events are queued, else its timed work's due time.
     *
     * @return the clock's milliseconds, {@link Long#MAX_VALUE} for nothing planned
     */
    long nextWakeMs() {
        return queue.isEmpty() ? processor.nextTickMs() : clockMs.getAsLong();
    }

    private void run() {
        while (running) {
            try {
                final long now = clockMs.getAsLong();
                final long due = processor.nextTickMs();
                if (now >= due) {
                    processor.tick(now);
                    continue;
                }
                final ControllerEvent event = queue.poll(Math.min(due - now, MAX_WAIT_MS), TimeUnit.MILLISECONDS);
                if (event != null && running) {
                    processor.process(event, clockMs.getAsLong());
                }
            } catch (final InterruptedException e) {
                if (running) {
                    LOG.warn("Controller event thread interrupted; stopping");
                }
                break;
            } catch (final RuntimeException e) {
                LOG.error("Controller event failed", e);
            }
        }
        final List<ControllerEvent> dropped = new ArrayList<>();
        queue.drainTo(dropped);
        dropped.forEach(processor::preempt);
    }

    /** Stops the thread and waits for it; queued events are preempted. Idempotent. */
    @Override
    public void close() {
        running = false;
        if (driver != null) {
            final List<ControllerEvent> dropped = new ArrayList<>();
            queue.drainTo(dropped);
            dropped.forEach(processor::preempt);
            return;
        }
        synchronized (this) {
            if (!started) {
                return;
            }
        }
        thread.interrupt();
        try {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
