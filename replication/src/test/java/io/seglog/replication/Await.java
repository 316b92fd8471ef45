package io.seglog.replication;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Polls a condition until a deadline (tests never sleep to wait), and checks for leaked threads. */
public final class Await {
    private Await() {
    }

    /**
     * Polls every few milliseconds until the condition holds.
     *
     * @param timeout   the deadline
     * @param condition the condition
     * @param what      describes the condition for the failure message
     * @throws AssertionError when the deadline passes
     */
    public static void until(final Duration timeout, final BooleanSupplier condition, final Supplier<String> what) {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not true within " + timeout + ": " + what.get(),
                    new TimeoutException(what.get()));
            }
            Thread.onSpinWait();
            try {
                Thread.sleep(5);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting for " + what.get(), e);
            }
        }
    }

    /**
     * The live threads now.
     *
     * @return a snapshot
     */
    public static Set<Thread> threads() {
        return new HashSet<>(Thread.getAllStackTraces().keySet());
    }

    /**
     * Waits until every thread started since the snapshot has ended.
     *
     * @param before  the snapshot taken before the test started anything
     * @param timeout the deadline
     */
    public static void noThreadsLeakedSince(final Set<Thread> before, final Duration timeout) {
        noThreadsLeakedSince(before, timeout, name -> false);
    }

    /**
     * Waits until every thread started since the snapshot has ended, except those the test does not own.
     *
     * @param before  the snapshot taken before the test started anything
     * @param timeout the deadline
     * @param foreign names of threads that belong to a third-party server and may outlive it
     */
    public static void noThreadsLeakedSince(final Set<Thread> before, final Duration timeout,
                                            final java.util.function.Predicate<String> foreign) {
        until(timeout, () -> leaked(before, foreign).isEmpty(), () -> "threads still alive: " + leaked(before, foreign));
    }

    private static Set<String> leaked(final Set<Thread> before, final java.util.function.Predicate<String> foreign) {
        final Set<String> names = new HashSet<>();
        for (final Thread t : Thread.getAllStackTraces().keySet()) {
            if (foreign.test(t.getName())) {
                continue;
            }
            // JDK-internal pools (e.g. the common ForkJoin pool, attach listener) are shared by the JVM, not ours.
            if (t.isAlive() && !before.contains(t) && !t.getName().startsWith("ForkJoinPool.commonPool")
                && !t.getName().equals("Attach Listener") && !t.getName().startsWith("junit-") && !t.getName().startsWith("process reaper")) {
                names.add(t.getName());
            }
        }
        return names;
    }
}
