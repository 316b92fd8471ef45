package io.seglog.storage.log;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;

/**
 * Opens the partitions a log manager finds at start. With more than one thread allowed and more than one task
 * (or any task that scans after a crash), the opens run on a fixed pool that exists only for the duration of the
 * call (Kafka's {@code num.recovery.threads.per.data.dir}): recovery after a crash is CPU- and I/O-bound per
 * partition and parallelises well. The same pool is lent to each open to verify batch CRCs beside the opening
 * thread, so a single large partition uses the threads too; when every thread is busy opening, an open does its
 * share itself. Every task gets a result; no thread outlives the call.
 *
 * <p>Stateless.
 */
public final class ParallelOpen {
    /**
     * Opens one task.
     *
     * @param <T> the task
     * @param <R> the result
     */
    @FunctionalInterface
    public interface Opener<T, R> {
        /**
         * Opens the task, catching its own failures into the result.
         *
         * @param task          the task
         * @param verifyPool    threads it may lend to its recovery scan, or null
         * @param verifyThreads how many of them, 0 without a pool
         * @return the result
         */
        R open(T task, ExecutorService verifyPool, int verifyThreads);
    }

    private ParallelOpen() {
    }

    /**
     * Opens every task and returns their results in task order.
     *
     * @param tasks      the tasks
     * @param maxThreads the most threads to use
     * @param anyScan    whether any task scans after a crash (then the pool is worth having for one task too)
     * @param opener     opens one task
     * @param onError    the result of a task whose open threw (an {@link Error})
     * @param <T>        the task
     * @param <R>        the result
     * @return the results
     */
    public static <T, R> List<R> openAll(final List<T> tasks, final int maxThreads, final boolean anyScan,
                                         final Opener<T, R> opener, final BiFunction<T, Throwable, R> onError) {
        final List<R> results = new ArrayList<>(tasks.size());
        final int threads = anyScan ? maxThreads : Math.min(maxThreads, tasks.size());
        if (threads <= 1 || tasks.isEmpty()) {
            for (final T task : tasks) {
                results.add(opener.open(task, null, 0));
            }
            return results;
        }
        final AtomicInteger ids = new AtomicInteger();
        final ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            final Thread t = new Thread(r, "seglog-log-open-" + ids.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        try {
            final List<Future<R>> futures = new ArrayList<>(tasks.size());
            for (final T task : tasks) {
                futures.add(pool.submit(() -> opener.open(task, pool, threads - 1)));
            }
            boolean interrupted = false;
            for (int i = 0; i < futures.size(); i++) {
                while (true) {
                    try {
                        results.add(futures.get(i).get());
                        break;
                    } catch (final ExecutionException e) {
                        results.add(onError.apply(tasks.get(i), e.getCause()));
                        break;
                    } catch (final InterruptedException e) {
                        // Every open must finish (or its log would leak): wait on, restore the flag after.
                        interrupted = true;
                    }
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            return results;
        } finally {
            // Every future was waited for, so the threads are idle; wait for them to exit so none outlives open.
            pool.shutdown();
            try {
                pool.awaitTermination(10, TimeUnit.SECONDS);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
