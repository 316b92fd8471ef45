package io.seglog.replication.example;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The time left for one step of the demo: every wait in a step polls or blocks against it, so a step that cannot
 * finish fails with a message naming the step and what it waited for instead of hanging.
 *
 * <p>Not thread-safe; one per step.
 */
final class Deadline {
    /** Poll interval for conditions that have no notification (ZooKeeper state seen by another session). */
    private static final long POLL_MS = 10;

    private final String step;
    private final long timeoutMs;
    private final long deadlineNs;

    private Deadline(final String step, final Duration timeout) {
        this.step = step;
        this.timeoutMs = timeout.toMillis();
        this.deadlineNs = System.nanoTime() + timeout.toNanos();
    }

    static Deadline of(final String step, final Duration timeout) {
        return new Deadline(step, timeout);
    }

    String step() {
        return step;
    }

    long remainingMs() {
        return Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineNs - System.nanoTime()));
    }

    /** Polls until the condition holds; fails naming the step and {@code what} when the deadline passes. */
    void await(final BooleanSupplier condition, final Supplier<String> what) throws InterruptedException {
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadlineNs > 0) {
                throw timeout(what.get());
            }
            Thread.sleep(POLL_MS);
        }
    }

    /** Waits for a future within the deadline. */
    <T> T get(final Future<T> future, final String what) throws InterruptedException, ExecutionException {
        try {
            return future.get(remainingMs(), TimeUnit.MILLISECONDS);
        } catch (final TimeoutException e) {
            future.cancel(false);
            throw timeout(what);
        }
    }

    DemoFailure timeout(final String what) {
        return new DemoFailure("step '" + step + "' did not finish within " + timeoutMs + " ms: waiting for " + what);
    }
}
