package io.seglog.storage;

import io.seglog.storage.io.FileIO;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Opens the partitions found at start. With more than one thread allowed and more than one partition, or a
 * partition to recover after a crash, the opens run on a fixed pool that exists only for the duration of the
 * call (Kafka's {@code num.recovery.threads.per.data.dir}): recovery after a crash is CPU- and I/O-bound per
 * partition and parallelises well. The same pool is lent to each recovery scan to verify batch CRCs beside the
 * opening thread ({@link RecoveryOptions#verifyingOn}), so a single large partition uses the threads too; when
 * every thread is busy opening, a scan does its share itself. Every task gets a result, the open log or the
 * failure; the caller decides what a failure means (a {@link StorageException} takes that log directory
 * offline). Stateless.
 */
final class PartitionOpener {
    /** One partition to open and the checkpointed offsets that go with it. */
    record Task(TopicPartition tp, Path dir, long recoveryPoint, long logStartOffset, long highWatermark,
                boolean hadCleanShutdown, int dirIndex) {
    }

    /** The outcome of one task: exactly one of {@code log} and {@code failure} is non-null. */
    record Result(Task task, PartitionLog log, RuntimeException failure) {
    }

    private PartitionOpener() {
    }

    static List<Result> openAll(final List<Task> tasks, final LogManagerConfig config, final FileIO io,
                                final InstantSource time, final int maxThreads) {
        final List<Result> results = new ArrayList<>(tasks.size());
        final boolean anyScan = tasks.stream().anyMatch(task -> !task.hadCleanShutdown());
        final int threads = anyScan ? maxThreads : Math.min(maxThreads, tasks.size());
        if (threads <= 1 || tasks.isEmpty()) {
            for (final Task task : tasks) {
                results.add(openOne(task, config, io, time, null, 0));
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
            final List<Future<Result>> futures = new ArrayList<>(tasks.size());
            for (final Task task : tasks) {
                futures.add(pool.submit(() -> openOne(task, config, io, time, pool, threads - 1)));
            }
            boolean interrupted = false;
            for (int i = 0; i < futures.size(); i++) {
                while (true) {
                    try {
                        results.add(futures.get(i).get());
                        break;
                    } catch (final ExecutionException e) {
                        // openOne catches RuntimeException; an Error reaches here
                        results.add(new Result(tasks.get(i), null, new StorageException("opening " + tasks.get(i).tp()
                            + " failed: " + e.getCause(), tasks.get(i).dir(), e.getCause())));
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

    private static Result openOne(final Task task, final LogManagerConfig config, final FileIO io,
                                  final InstantSource time, final ExecutorService verifyPool, final int verifyThreads) {
        try {
            RecoveryOptions options = new RecoveryOptions(task.hadCleanShutdown(), task.recoveryPoint(),
                Long.MAX_VALUE);
            if (verifyPool != null && verifyThreads > 0) {
                options = options.verifyingOn(verifyPool, verifyThreads);
            }
            final PartitionLog log = PartitionLog.open(task.dir(), config.logConfig(task.tp().topic()), io, time,
                new SplittableRandom(), options);
            if (!task.hadCleanShutdown()) {
                log.managerHooks.markUnflushedFrom(task.recoveryPoint());
            }
            return new Result(task, log, null);
        } catch (final RuntimeException e) {
            return new Result(task, null, e);
        }
    }
}
