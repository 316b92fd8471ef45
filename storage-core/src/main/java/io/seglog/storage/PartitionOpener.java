package io.seglog.storage;

import io.seglog.storage.io.FileIO;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Opens the partitions found at start. With more than one partition and more than one thread allowed, the
 * opens run on a fixed pool that exists only for the duration of the call (Kafka's
 * {@code num.recovery.threads.per.data.dir}): recovery after a crash is CPU- and I/O-bound per partition and
 * parallelises well. All-or-nothing: if one open fails, the others are closed and the first failure is thrown
 * with the rest suppressed. Stateless.
 */
final class PartitionOpener {
    /** One partition to open and the checkpointed offsets that go with it. */
    record Task(TopicPartition tp, Path dir, LogDirFailure failure, long recoveryPoint, long logStartOffset,
                long highWatermark, boolean hadCleanShutdown, int dirIndex) {
    }

    private PartitionOpener() {
    }

    static Map<TopicPartition, PartitionLog> openAll(final List<Task> tasks, final LogManagerConfig config,
                                                    final FileIO io, final InstantSource time, final int maxThreads) {
        final Map<TopicPartition, PartitionLog> opened = new HashMap<>();
        if (tasks.isEmpty()) {
            return opened;
        }
        final int threads = Math.min(maxThreads, tasks.size());
        if (threads <= 1) {
            RuntimeException failure = null;
            for (final Task task : tasks) {
                try {
                    opened.put(task.tp(), openOne(task, config, io, time));
                } catch (final RuntimeException e) {
                    failure = e;
                    break;
                }
            }
            if (failure != null) {
                closeAll(opened.values(), failure);
                throw failure;
            }
            return opened;
        }
        final AtomicInteger ids = new AtomicInteger();
        final ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            final Thread t = new Thread(r, "seglog-log-open-" + ids.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        final List<Future<PartitionLog>> futures = new ArrayList<>(tasks.size());
        try {
            for (final Task task : tasks) {
                futures.add(pool.submit(() -> openOne(task, config, io, time)));
            }
            RuntimeException failure = null;
            for (int i = 0; i < futures.size(); i++) {
                try {
                    opened.put(tasks.get(i).tp(), futures.get(i).get());
                } catch (final ExecutionException e) {
                    final RuntimeException cause = e.getCause() instanceof RuntimeException re ? re
                        : new StorageException("opening " + tasks.get(i).tp() + " failed: " + e.getCause(),
                            tasks.get(i).dir(), e.getCause());
                    failure = add(failure, cause);
                } catch (final InterruptedException e) {
                    Thread.currentThread().interrupt();
                    failure = add(failure, new StorageException("interrupted while opening partitions", null, e));
                }
            }
            if (failure != null) {
                closeAll(opened.values(), failure);
                throw failure;
            }
            return opened;
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

    private static PartitionLog openOne(final Task task, final LogManagerConfig config, final FileIO io,
                                        final InstantSource time) {
        final PartitionLog log = PartitionLog.open(task.dir(), config.logConfig(task.tp().topic()), io, time,
            task.recoveryPoint(), task.hadCleanShutdown());
        if (!task.hadCleanShutdown()) {
            log.markUnflushedFrom(task.recoveryPoint());
        }
        return log;
    }

    private static void closeAll(final Iterable<PartitionLog> logs, final Throwable primary) {
        for (final PartitionLog log : logs) {
            try {
                log.close();
            } catch (final RuntimeException e) {
                primary.addSuppressed(e);
            }
        }
    }

    private static RuntimeException add(final RuntimeException first, final RuntimeException next) {
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }
}
