package io.seglog.storage.cleaner;

import io.seglog.storage.checkpoint.OffsetCheckpointFile;
import io.seglog.storage.checkpoint.PartitionKey;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log cleaner of a set of log directories (Kafka's {@code LogCleaner} and {@code LogCleanerManager}): each round
 * takes the compacted log with the highest dirty ratio above its {@code min.cleanable.dirty.ratio} (or one with a
 * segment older than {@code max.compaction.lag.ms}) and cleans it, then records the new first dirty offset in its
 * log directory's {@code cleaner-offset-checkpoint}. A log whose cleaning fails is marked uncleanable (one ERROR
 * line) and skipped from then on; the thread goes on with the others.
 *
 * <p>Threads: {@link #start} creates {@code log.cleaner.threads} threads from the embedder's thread factory; each
 * waits {@code log.cleaner.backoff.ms} when no log needs cleaning. Without {@link #start}, {@link #cleanOnce} runs a
 * round on the caller's thread (tests, or an embedder with its own loop). Thread-safe.
 */
public final class LogCleaner implements AutoCloseable {
    /** The log-directory file holding each log's first dirty offset (Kafka's name and format). */
    public static final String CHECKPOINT_FILE = "cleaner-offset-checkpoint";
    /** Bytes per key in an offset map: a 16-byte MD5 digest and an 8-byte offset. */
    public static final int BYTES_PER_MAP_ENTRY = OffsetMap.BYTES_PER_ENTRY;
    private static final Logger LOG = LoggerFactory.getLogger(LogCleaner.class);

    /**
     * The cleaner's broker-level settings as plain values, per thread where Kafka divides them among the threads.
     * Immutable.
     *
     * @param threads                {@code log.cleaner.threads}, at least 1
     * @param dedupeBytesPerThread   the memory of each thread's offset map
     * @param dedupeLoadFactor       how full an offset map may get, in (0, 1]
     * @param ioBufferBytesPerThread the size of each thread's read buffer and of its write buffer
     * @param maxIoBytesPerSecond    the read-plus-write throttle of all threads together
     * @param backoffMs              how long a thread waits when no log needs cleaning
     */
    public record Settings(int threads, int dedupeBytesPerThread, double dedupeLoadFactor, int ioBufferBytesPerThread,
                           double maxIoBytesPerSecond, long backoffMs) {
    }

    private final Settings config;
    private final Supplier<? extends Iterable<CleanableLog>> logs;
    private final InstantSource time;
    private final FileIO io;
    private final Throttler throttler;
    private final Cleaner[] cleaners;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition wake = lock.newCondition();
    private final Set<PartitionKey> inProgress = new HashSet<>();
    private final Set<PartitionKey> uncleanable = new HashSet<>();
    private final Map<Path, Map<PartitionKey, Long>> checkpoints = new HashMap<>();
    private final List<Thread> threads = new ArrayList<>();
    private boolean stopped;

    /**
     * Creates a cleaner; it reads each directory's checkpoint now and cleans nothing until asked.
     *
     * @param config  the cleaner settings (the API package's {@code CleanerConfig} makes them)
     * @param logDirs the log directories whose checkpoints it keeps
     * @param logs    supplies the logs to consider at each round (those of every policy; compacted ones are taken)
     * @param io      the file layer for the checkpoints
     * @param time    the clock
     * @throws IOException if a checkpoint exists and cannot be read
     */
    public LogCleaner(final Settings config, final List<Path> logDirs,
                      final Supplier<? extends Iterable<CleanableLog>> logs, final FileIO io, final InstantSource time)
        throws IOException {
        this.config = config;
        this.logs = logs;
        this.io = io;
        this.time = time;
        this.throttler = new Throttler(config.maxIoBytesPerSecond(), System::nanoTime);
        this.cleaners = new Cleaner[config.threads()];
        for (int i = 0; i < cleaners.length; i++) {
            cleaners[i] = new Cleaner(config.dedupeBytesPerThread(), config.dedupeLoadFactor(),
                config.ioBufferBytesPerThread(), throttler);
        }
        for (final Path dir : logDirs) {
            final Map<PartitionKey, Long> offsets = new HashMap<>();
            final OffsetCheckpointFile file = new OffsetCheckpointFile(io, dir.resolve(CHECKPOINT_FILE));
            if (java.nio.file.Files.exists(file.file())) {
                for (final Map.Entry<PartitionKey, Long> e : file.read().entrySet()) {
                    offsets.put(e.getKey(), e.getValue());
                }
            }
            checkpoints.put(dir, offsets);
        }
    }

    /**
     * Starts the cleaner threads, made by {@code threadFactory}.
     *
     * @param threadFactory makes each thread
     * @throws IllegalStateException if already started or closed
     */
    public void start(final ThreadFactory threadFactory) {
        lock.lock();
        try {
            if (stopped || !threads.isEmpty()) {
                throw new IllegalStateException("cleaner already started or closed: threads=" + threads.size()
                    + " stopped=" + stopped);
            }
            for (final Cleaner cleaner : cleaners) {
                final Thread thread = threadFactory.newThread(() -> runThread(cleaner));
                threads.add(thread);
            }
        } finally {
            lock.unlock();
        }
        threads.forEach(Thread::start);
    }

    /**
     * Runs one round on the caller's thread: picks the filthiest cleanable log, cleans it and checkpoints it.
     *
     * @return whether a log was cleaned (or failed and was marked uncleanable)
     * @throws IllegalStateException if the cleaner threads run (they own the cleaners)
     */
    public boolean cleanOnce() {
        lock.lock();
        try {
            if (!threads.isEmpty()) {
                throw new IllegalStateException("cleanOnce while cleaner threads=" + threads.size() + " run");
            }
        } finally {
            lock.unlock();
        }
        return round(cleaners[0]);
    }

    /**
     * The partitions marked uncleanable by a failure.
     *
     * @return a copy
     */
    public Set<PartitionKey> uncleanablePartitions() {
        lock.lock();
        try {
            return Set.copyOf(uncleanable);
        } finally {
            lock.unlock();
        }
    }

    /**
     * The first dirty offset recorded for a partition, or -1.
     *
     * @param logDir the log directory
     * @param tp     the partition
     * @return the checkpointed offset or -1
     */
    public long checkpointedOffset(final Path logDir, final PartitionKey tp) {
        lock.lock();
        try {
            return checkpoints.getOrDefault(logDir, Map.of()).getOrDefault(tp, -1L);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Forgets a partition (deleted): its checkpoint entry and uncleanable mark go at the next checkpoint write.
     *
     * @param logDir the log directory
     * @param tp     the partition
     */
    public void forget(final Path logDir, final PartitionKey tp) {
        lock.lock();
        try {
            final Map<PartitionKey, Long> offsets = checkpoints.get(logDir);
            if (offsets != null) {
                offsets.remove(tp);
            }
            uncleanable.remove(tp);
        } finally {
            lock.unlock();
        }
    }

    private void runThread(final Cleaner cleaner) {
        while (true) {
            boolean cleaned;
            try {
                cleaned = round(cleaner);
            } catch (final RuntimeException e) {
                LOG.error("Log cleaner round failed; the thread goes on", e);
                cleaned = false;
            }
            lock.lock();
            try {
                if (stopped) {
                    return;
                }
                if (!cleaned) {
                    wake.await(config.backoffMs(), TimeUnit.MILLISECONDS);
                }
                if (stopped) {
                    return;
                }
            } catch (final InterruptedException e) {
                return;
            } finally {
                lock.unlock();
            }
        }
    }

    /** One round with {@code cleaner}: select, clean, checkpoint; a failure marks the log uncleanable. */
    private boolean round(final Cleaner cleaner) {
        final long nowMs = time.millis();
        final CleanableRange range = grabFilthiest(nowMs);
        if (range == null) {
            return false;
        }
        final PartitionKey tp = range.log().partition();
        final Path logDir = range.log().dir().getParent();
        try {
            final long end = cleaner.clean(range, nowMs);
            if (end >= 0) {
                checkpoint(logDir, tp, end);
            }
        } catch (final IOException | RuntimeException e) {
            LOG.error("Cleaning of {} failed; the partition is marked uncleanable: {}", range.log().dir(),
                e.toString(), e);
            lock.lock();
            try {
                uncleanable.add(tp);
            } finally {
                lock.unlock();
            }
        } finally {
            lock.lock();
            try {
                inProgress.remove(tp);
            } finally {
                lock.unlock();
            }
        }
        return true;
    }

    /** Kafka's {@code grabFilthiestCompactedLog}. */
    private CleanableRange grabFilthiest(final long nowMs) {
        lock.lock();
        try {
            if (stopped) {
                return null;
            }
            CleanableRange best = null;
            for (final CleanableLog log : logs.get()) {
                final PartitionKey tp = log.partition();
                if (!log.compaction().compact() || inProgress.contains(tp) || uncleanable.contains(tp)
                    || log.isClosedOrOffline()) {
                    continue;
                }
                final Path logDir = log.dir().getParent();
                final CleanableRange range;
                try {
                    range = CleanableRange.of(log, checkpoints.getOrDefault(logDir, Map.of()).getOrDefault(tp, -1L),
                        nowMs);
                } catch (final IOException | RuntimeException e) {
                    LOG.error("Cannot compute the cleanable range of {}; marked uncleanable: {}", log.dir(),
                        e.toString());
                    uncleanable.add(tp);
                    continue;
                }
                if (range.totalBytes() == 0) {
                    continue;
                }
                final boolean cleanable = range.needsCompactionNow() && range.cleanableBytes() > 0
                    || range.cleanableRatio() > log.compaction().minCleanableDirtyRatio();
                if (cleanable && (best == null || range.cleanableRatio() > best.cleanableRatio())) {
                    best = range;
                }
            }
            if (best != null) {
                inProgress.add(best.log().partition());
            }
            return best;
        } finally {
            lock.unlock();
        }
    }

    private void checkpoint(final Path logDir, final PartitionKey tp, final long offset) throws IOException {
        final Map<PartitionKey, Long> copy = new HashMap<>();
        lock.lock();
        try {
            final Map<PartitionKey, Long> offsets = checkpoints.computeIfAbsent(logDir, d -> new HashMap<>());
            offsets.put(tp, offset);
            copy.putAll(offsets);
            // One writer at a time per file, values read under the lock: a later write never carries older values.
            new OffsetCheckpointFile(io, logDir.resolve(CHECKPOINT_FILE)).write(copy);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Stops the threads (waking any backoff or throttle wait) and waits for them; a round in progress finishes its
     * current segment group first. Then releases the cleaners' codec state; a {@link #cleanOnce} must not be running.
     * Idempotent.
     */
    @Override
    public void close() {
        lock.lock();
        try {
            stopped = true;
            wake.signalAll();
        } finally {
            lock.unlock();
        }
        throttler.stop();
        for (final Thread thread : threads) {
            try {
                thread.join();
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                return; // a thread may still use its cleaner: its codec state is left to the collector
            }
        }
        for (final Cleaner cleaner : cleaners) {
            cleaner.close();
        }
    }
}
