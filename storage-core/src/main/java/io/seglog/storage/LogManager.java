package io.seglog.storage;

import io.seglog.storage.LogDirectory.Checkpoint;
import io.seglog.storage.checkpoint.PartitionKey;
import io.seglog.storage.cleaner.CleanableLog;
import io.seglog.storage.cleaner.LogCleaner;
import io.seglog.storage.dir.LogDirLock;
import io.seglog.storage.io.FileIO;
import io.seglog.storage.log.ParallelOpen;
import java.io.IOException;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The partitions of one broker (or embedder) over one or more log directories, in Kafka's layout: each log
 * directory holds a {@code .lock}, the three offset checkpoints ({@code recovery-point-offset-checkpoint},
 * {@code log-start-offset-checkpoint}, {@code replication-offset-checkpoint}), the clean-shutdown marker
 * {@code .kafka_cleanshutdown}, and one {@code <topic>-<partition>} directory per partition.
 *
 * <p>Lifecycle: {@link #open} locks every directory, consumes the clean-shutdown markers, reads the checkpoints
 * (a malformed one falls back to empty: recovery point 0, log start from the segments, high watermark at the
 * log start), removes leftover {@code -delete} directories and opens every partition (in parallel on a short-
 * lived bounded pool when there are several). Background work runs on the {@link Scheduler}: retention, the
 * {@code flush.ms} policy, the checkpoints, delayed unlinks. {@link #close()} stops that work, closes (flushes)
 * every partition, writes the checkpoints and then the clean-shutdown marker of every directory still online,
 * and releases the locks.
 *
 * <p>Failures: a failed write or fsync in a directory (segment, index, checkpoint, rename) takes that directory
 * offline: every call on its partitions then throws a {@link StorageException} naming the directory and the
 * first failure, pending durable waits fail, nothing is retried, and no clean-shutdown marker is written for
 * it. Partitions in other directories keep working.
 *
 * <p>Who owns what: each {@link LogDirectory} owns one directory's lock, health, checkpoint files and clean-shutdown
 * marker (the only writer of each); this manager owns which partitions exist and where, the scheduled tasks, the
 * cleaner and its own lifecycle, and supplies a directory with its logs when it writes a checkpoint.
 *
 * <p>Thread-safe: partitions are created and deleted under a lock; lookups are lock-free.
 */
public final class LogManager implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LogManager.class);
    /** Suffix of a partition directory renamed for deletion: {@code <topic>-<partition>.<uuid>-delete}. */
    public static final String DELETE_DIR_SUFFIX = "-delete";

    /** A partition and its directory. */
    private record Entry(PartitionLog log, LogDirectory dir) {
    }

    private final LogManagerConfig config;
    /** A topic's configuration for the logs this manager opens or creates. */
    private final Function<String, LogConfig> topicConfigs;
    private final FileIO io;
    private final InstantSource time;
    private final Scheduler scheduler;
    private final boolean ownsScheduler;
    private final List<LogDirectory> dirs;
    private final Map<TopicPartition, Entry> logs = new ConcurrentHashMap<>();
    /** Partitions found at open in a directory that could not start: never re-created elsewhere. */
    private final Map<TopicPartition, LogDirectory> offlineAtStart = new ConcurrentHashMap<>();
    /** Why each partition that did not open at start did not (the log's own error: corruption, I/O, ...). */
    private final Map<TopicPartition, StorageException> openFailures = new ConcurrentHashMap<>();
    private final List<Scheduler.Cancellable> tasks = new ArrayList<>();
    private final Object lifecycleLock = new Object();
    private volatile boolean closed;
    /** Runs when {@code log.cleaner.enable}; null otherwise. */
    private LogCleaner cleaner;

    private LogManager(final LogManagerConfig config, final FileIO io, final InstantSource time,
                       final Scheduler scheduler, final boolean ownsScheduler, final List<LogDirectory> dirs,
                       final Function<String, LogConfig> topicConfigs) {
        this.config = config;
        this.topicConfigs = topicConfigs != null ? topicConfigs : config::logConfig;
        this.io = io;
        this.time = time;
        this.scheduler = scheduler;
        this.ownsScheduler = ownsScheduler;
        this.dirs = dirs;
    }

    /**
     * Opens a log manager with the system file layer and clock and a default single-thread scheduler.
     *
     * @param config the configuration
     * @return the open manager, owned by the caller
     * @throws LogInUseException if another writer has one of its partitions open (nothing was changed)
     * @throws StorageException if a directory is locked by another owner, or cannot be opened or read
     */
    public static LogManager open(final LogManagerConfig config) {
        return open(config, FileIO.system(), null, InstantSource.system());
    }

    /**
     * Opens a log manager.
     *
     * @param config    the configuration
     * @param io        the file layer
     * @param scheduler the scheduler for background work, or {@code null} for a default single-thread one
     *                  that this manager starts and closes; a supplied one is not closed by {@link #close()},
     *                  which cancels the manager's periodic tasks and pending partition removals (one-shot
     *                  group-commit and segment-unlink tasks of closed logs may still run and do nothing)
     * @param time      the clock
     * @return the open manager, owned by the caller
     * @throws LogInUseException if another writer has one of its partitions open (nothing was changed)
     * @throws StorageException if a directory is locked by another owner (the message says which), or a
     *     directory, checkpoint or partition cannot be opened or read
     */
    public static LogManager open(final LogManagerConfig config, final FileIO io, final Scheduler scheduler,
                                  final InstantSource time) {
        return open(config, io, scheduler, time, null);
    }

    /**
     * Opens a log manager whose log cleaner threads ({@code log.cleaner.threads}, when {@code log.cleaner.enable})
     * come from {@code cleanerThreads}.
     *
     * @param config         the configuration
     * @param io             the file layer
     * @param scheduler      the scheduler for background work, or {@code null} (see
     *                       {@link #open(LogManagerConfig, FileIO, Scheduler, InstantSource)})
     * @param time           the clock
     * @param cleanerThreads makes the cleaner threads, or {@code null} for daemon threads named
     *                       {@code seglog-log-cleaner-N}
     * @return the open manager, owned by the caller
     * @throws LogInUseException if another writer has one of its partitions open (nothing was changed)
     * @throws StorageException if a directory is locked by another owner, or a directory, checkpoint or partition
     *     cannot be opened or read
     */
    public static LogManager open(final LogManagerConfig config, final FileIO io, final Scheduler scheduler,
                                  final InstantSource time, final ThreadFactory cleanerThreads) {
        return open(config, io, scheduler, time, cleanerThreads, null);
    }

    /**
     * Opens a log manager whose logs take their topic's configuration from {@code topicConfigs} (Kafka's
     * {@code LogManager} with its config repository): every log loaded at open and every log
     * {@link #getOrCreate(TopicPartition)} creates asks it, instead of {@link LogManagerConfig#logConfig(String)}.
     *
     * @param config         the configuration
     * @param io             the file layer
     * @param scheduler      the scheduler for background work, or {@code null} (see
     *                       {@link #open(LogManagerConfig, FileIO, Scheduler, InstantSource)})
     * @param time           the clock
     * @param cleanerThreads makes the cleaner threads, or {@code null} for daemon threads
     * @param topicConfigs   a topic's log configuration (the defaults with its overrides), called from the threads
     *                       that open logs (several at once at open), or {@code null} for
     *                       {@link LogManagerConfig#logConfig(String)}
     * @return the open manager, owned by the caller
     * @throws LogInUseException if another writer has one of its partitions open (nothing was changed)
     * @throws StorageException if a directory is locked by another owner, or a directory, checkpoint or partition
     *     cannot be opened or read
     */
    public static LogManager open(final LogManagerConfig config, final FileIO io, final Scheduler scheduler,
                                  final InstantSource time, final ThreadFactory cleanerThreads,
                                  final Function<String, LogConfig> topicConfigs) {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(io, "io");
        Objects.requireNonNull(time, "time");
        final List<LogDirectory> dirs = new ArrayList<>();
        Scheduler sched = scheduler;
        LogManager manager = null;
        try {
            for (final Path path : config.logDirs()) {
                dirs.add(LogDirectory.open(io, path));
            }
            if (sched == null) {
                sched = Scheduler.singleThread("seglog-log-manager");
            }
            manager = new LogManager(config, io, time, sched, scheduler == null, dirs, topicConfigs);
            manager.loadAll();
            manager.scheduleTasks();
            manager.startCleaner(cleanerThreads);
            return manager;
        } catch (final RuntimeException e) {
            if (manager != null) {
                manager.abortOpen(e);
            } else {
                if (scheduler == null && sched != null) {
                    sched.close();
                }
                releaseLocks(dirs, e);
            }
            throw e;
        }
    }

    private void startCleaner(final ThreadFactory threads) {
        if (!config.cleanerConfig().enabled()) {
            return;
        }
        final List<Path> paths = new ArrayList<>();
        for (final LogDirectory dir : dirs) {
            paths.add(dir.path());
        }
        try {
            cleaner = new LogCleaner(config.cleanerConfig().settings(), paths, this::cleanableLogs, io, time);
        } catch (final IOException e) {
            throw new StorageException("reading " + LogCleaner.CHECKPOINT_FILE + " failed: " + e.getMessage(),
                paths.get(0), e);
        }
        final AtomicInteger n = new AtomicInteger();
        cleaner.start(threads != null ? threads : task -> {
            final Thread thread = new Thread(task, "seglog-log-cleaner-" + n.getAndIncrement());
            thread.setDaemon(true);
            return thread;
        });
    }

    /** The cleaner's view of every open log of an online directory. */
    List<CleanableLog> cleanableLogs() {
        final List<CleanableLog> views = new ArrayList<>();
        for (final Map.Entry<TopicPartition, Entry> e : logs.entrySet()) {
            if (!e.getValue().dir.failure().isOffline()) {
                views.add(new PartitionCleaning(e.getValue().log, e.getKey()));
            }
        }
        return views;
    }

    /**
     * The log cleaner, when {@code log.cleaner.enable}.
     *
     * @return the cleaner, or empty
     */
    Optional<LogCleaner> logCleaner() {
        return Optional.ofNullable(cleaner);
    }

    private static void releaseLocks(final List<LogDirectory> dirs, final Throwable primary) {
        for (int i = dirs.size() - 1; i >= 0; i--) {
            try {
                dirs.get(i).releaseLock();
            } catch (final IOException | RuntimeException e) {
                primary.addSuppressed(e);
            }
        }
    }

    private void abortOpen(final RuntimeException primary) {
        closed = true;
        if (cleaner != null) {
            cleaner.close();
        }
        for (final Entry entry : logs.values()) {
            try {
                entry.log.close();
            } catch (final RuntimeException e) {
                primary.addSuppressed(e);
            }
        }
        logs.clear();
        if (ownsScheduler) {
            scheduler.close();
        }
        releaseLocks(dirs, primary);
    }

    private void loadAll() {
        final List<OpenTask> toOpen = new ArrayList<>();
        final Map<TopicPartition, Path> seen = new HashMap<>();
        for (final LogDirectory dir : dirs) {
            final Map<TopicPartition, Long> recoveryPoints = dir.readCheckpoint(Checkpoint.RECOVERY_POINTS);
            final Map<TopicPartition, Long> logStarts = dir.readCheckpoint(Checkpoint.LOG_STARTS);
            final Map<TopicPartition, Long> highWatermarks = dir.readCheckpoint(Checkpoint.HIGH_WATERMARKS);
            for (final Path child : PartitionDirs.list(dir.path())) {
                final String name = child.getFileName().toString();
                if (name.endsWith(DELETE_DIR_SUFFIX)) {
                    PartitionDirs.deleteRecursively(io, child);
                    continue;
                }
                final TopicPartition tp = PartitionDirs.parse(child);
                if (tp == null) {
                    continue; // not a partition directory; never touched (AP-06)
                }
                final Path previous = seen.putIfAbsent(tp, child);
                if (previous != null) {
                    throw new StorageException("partition " + tp + " exists in two log directories: " + previous
                        + " and " + child, child, null);
                }
                // No log-start entry: -1, so that the open knows the checkpoint says nothing of this log (Kafka writes
                // entries only for logs whose start is above their first segment).
                toOpen.add(new OpenTask(tp, child, recoveryPoints.getOrDefault(tp, 0L),
                    logStarts.getOrDefault(tp, -1L), highWatermarks.getOrDefault(tp, 0L), dir.hadCleanShutdown(),
                    dirs.indexOf(dir)));
            }
        }
        final List<Opened> results = ParallelOpen.openAll(toOpen, config.openThreadsPerDir() * dirs.size(),
            toOpen.stream().anyMatch(task -> !task.hadCleanShutdown()), this::openOne,
            (task, error) -> new Opened(task, null, new StorageException("opening " + task.tp() + " failed: " + error,
                task.dir(), error)));
        RuntimeException unexpected = null;
        for (final Opened result : results) {
            final RuntimeException failure = result.failure();
            if (failure instanceof LogInUseException) {
                // Another writer has it open: this manager does not start rather than share the partition.
                unexpected = (RuntimeException) add(unexpected, failure);
            } else if (failure instanceof StorageException) {
                // Kafka's rule: a partition that cannot be opened for an I/O or corruption reason takes its log
                // directory offline; the other directories start.
                LOG.error("cannot open {}; log directory {} goes offline: {}", result.task().dir(),
                    dirs.get(result.task().dirIndex()).path(), failure.getMessage());
                dirs.get(result.task().dirIndex()).failure().markOffline("opening partition " + result.task().tp(),
                    failure);
                offlineAtStart.put(result.task().tp(), dirs.get(result.task().dirIndex()));
                openFailures.put(result.task().tp(), (StorageException) failure);
            } else if (failure != null) {
                unexpected = (RuntimeException) add(unexpected, failure);
            }
        }
        for (final Opened result : results) {
            final PartitionLog log = result.log();
            if (log == null) {
                continue;
            }
            final LogDirectory dir = dirs.get(result.task().dirIndex());
            if (unexpected != null || dir.failure().isOffline()) {
                offlineAtStart.put(result.task().tp(), dir);
                try {
                    log.close(); // abandons its segments when the directory is offline
                } catch (final RuntimeException e) {
                    LOG.warn("closing {} after a failed start: {}", log.dir(), e.getMessage());
                }
                continue;
            }
            logs.put(result.task().tp(), new Entry(log, dir));
        }
        if (unexpected != null) {
            throw unexpected;
        }
        if (dirs.stream().allMatch(d -> d.failure().isOffline())) {
            throw new StorageException("every log directory is offline after opening; first: "
                + dirs.get(0).failure().failure().getMessage(), dirs.get(0).path(), dirs.get(0).failure().failure());
        }
    }

    /** One partition to open at start and the checkpointed offsets that go with it. */
    private record OpenTask(TopicPartition tp, Path dir, long recoveryPoint, long logStartOffset, long highWatermark,
                            boolean hadCleanShutdown, int dirIndex) {
    }

    /** The outcome of one open: exactly one of {@code log} and {@code failure} is non-null. */
    private record Opened(OpenTask task, PartitionLog log, RuntimeException failure) {
    }

    /** Opens one partition found at start, lending the open pool's threads to its recovery scan. */
    private Opened openOne(final OpenTask task, final ExecutorService verifyPool, final int verifyThreads) {
        try {
            RecoveryOptions options = new RecoveryOptions(task.hadCleanShutdown(), task.recoveryPoint(),
                Long.MAX_VALUE);
            if (verifyPool != null && verifyThreads > 0) {
                options = options.verifyingOn(verifyPool, verifyThreads);
            }
            final LogDirectory dir = dirs.get(task.dirIndex());
            final PartitionLog log = PartitionLog.open(task.dir(), topicConfigs.apply(task.tp().topic()), io, time,
                new SplittableRandom(), options, environment(dir, task.logStartOffset(), task.highWatermark(),
                    task.hadCleanShutdown() ? -1 : task.recoveryPoint()));
            return new Opened(task, log, null);
        } catch (final RuntimeException e) {
            return new Opened(task, null, e);
        }
    }

    /** What a log of {@code dir} gets from this manager: the directory's state, the scheduler, the checkpoints. */
    private LogEnvironment environment(final LogDirectory dir, final long logStartOffset, final long highWatermark,
                                       final long unflushedFrom) {
        return new LogEnvironment(dir.failure(), scheduler,
            () -> dir.writeCheckpoint(Checkpoint.RECOVERY_POINTS, () -> logsIn(dir)),
            () -> dir.writeCheckpoint(Checkpoint.LOG_STARTS, () -> logsIn(dir)), logStartOffset, highWatermark,
            unflushedFrom);
    }

    /** The open logs of one directory now. */
    private Map<TopicPartition, PartitionLog> logsIn(final LogDirectory dir) {
        final Map<TopicPartition, PartitionLog> in = new HashMap<>();
        for (final Map.Entry<TopicPartition, Entry> e : logs.entrySet()) {
            if (e.getValue().dir == dir) {
                in.put(e.getKey(), e.getValue().log);
            }
        }
        return in;
    }

    private void scheduleTasks() {
        tasks.add(scheduler.schedule("log-retention", this::runRetention, config.retentionCheckIntervalMs(),
            config.retentionCheckIntervalMs()));
        tasks.add(scheduler.schedule("log-flusher", this::runFlushPolicy, config.flushCheckIntervalMs(),
            config.flushCheckIntervalMs()));
        tasks.add(scheduler.schedule("recovery-point-checkpoint", this::checkpointRecoveryPoints,
            config.recoveryPointCheckpointIntervalMs(), config.recoveryPointCheckpointIntervalMs()));
        tasks.add(scheduler.schedule("log-start-offset-checkpoint", this::checkpointLogStartOffsets,
            config.logStartCheckpointIntervalMs(), config.logStartCheckpointIntervalMs()));
        tasks.add(scheduler.schedule("high-watermark-checkpoint", this::checkpointHighWatermarks,
            config.highWatermarkCheckpointIntervalMs(), config.highWatermarkCheckpointIntervalMs()));
    }

    /**
     * The partition's log, creating its directory (in the log directory with the fewest partitions among those
     * online) and an empty log if it does not exist, with its topic's configuration (the manager's topic
     * configuration source, else {@link LogManagerConfig#logConfig(String)}).
     *
     * @param tp the partition; its topic name was validated when it was constructed
     * @return the log, owned by this manager (do not close it; use {@link #delete})
     * @throws StorageException if no log directory is online, the directory cannot be created, or the
     *     partition exists in a log directory that is offline
     * @throws IllegalArgumentException if {@code <topic>-<partition>} is longer than a file name may be (255
     *     bytes); nothing is created and no log directory goes offline
     * @throws IllegalStateException if the manager is closed
     */
    public PartitionLog getOrCreate(final TopicPartition tp) {
        Objects.requireNonNull(tp, "tp");
        final Entry existing = logs.get(tp);
        // The topic's configuration is asked for only when the log is created (the source may read ZooKeeper).
        return existing != null ? existing.log : getOrCreate(tp, topicConfigs.apply(tp.topic()));
    }

    /**
     * Returns the partition's log, creating it with {@code logConfig} if it does not exist (Kafka's
     * {@code LogManager.getOrCreateLog} with the topic's configuration: the broker's defaults with the topic's
     * overrides laid over them). An existing log is returned as it is: change its configuration with
     * {@link PartitionLog#updateConfig} or {@link #updateTopicConfig}.
     *
     * @param tp        the partition; its topic name was validated when it was constructed
     * @param logConfig the configuration of a log created by this call
     * @return the log, owned by this manager (do not close it; use {@link #delete})
     * @throws StorageException if no log directory is online, the directory cannot be created, or the
     *     partition exists in a log directory that is offline
     * @throws IllegalArgumentException if {@code <topic>-<partition>} is longer than a file name may be (255
     *     bytes); nothing is created and no log directory goes offline
     * @throws IllegalStateException if the manager is closed
     */
    public PartitionLog getOrCreate(final TopicPartition tp, final LogConfig logConfig) {
        Objects.requireNonNull(tp, "tp");
        Objects.requireNonNull(logConfig, "logConfig");
        PartitionDirs.checkName(tp);
        final Entry existing = logs.get(tp);
        if (existing != null) {
            return existing.log;
        }
        synchronized (lifecycleLock) {
            ensureOpen();
            final Entry again = logs.get(tp);
            if (again != null) {
                return again.log;
            }
            final LogDirectory home = offlineAtStart.get(tp);
            if (home != null) {
                // Its data lives in an offline directory: a new empty copy elsewhere would diverge from it.
                final StorageException why = openFailures.get(tp);
                if (why != null) {
                    throw new StorageException("partition " + tp + " did not open at start, so its log directory is"
                        + " offline: " + why.getMessage(), why.path(), why);
                }
                home.failure().ensureOnline();
            }
            final LogDirectory dir = leastLoadedOnlineDir();
            final Path partitionDir = PartitionDirs.resolveInside(dir.path(), tp);
            final PartitionLog log;
            try {
                log = PartitionLog.open(partitionDir, logConfig, io, time, new SplittableRandom(),
                    RecoveryOptions.afterCrash(0), environment(dir, -1, 0, -1));
            } catch (final LogInUseException e) {
                throw e; // another writer holds it: the caller's problem, not the directory's
            } catch (final StorageException e) {
                throw dir.failure().markOffline("creating partition " + tp, e);
            }
            logs.put(tp, new Entry(log, dir));
            return log;
        }
    }

    private LogDirectory leastLoadedOnlineDir() {
        LogDirectory best = null;
        int bestCount = Integer.MAX_VALUE;
        for (final LogDirectory dir : dirs) {
            if (dir.failure().isOffline()) {
                continue;
            }
            int count = 0;
            for (final Entry e : logs.values()) {
                if (e.dir == dir) {
                    count++;
                }
            }
            if (count < bestCount) {
                best = dir;
                bestCount = count;
            }
        }
        if (best == null) {
            throw new StorageException("every log directory is offline; first: " + dirs.get(0).failure().failure()
                .getMessage(), dirs.get(0).path(), dirs.get(0).failure().failure());
        }
        return best;
    }

    /**
     * Gives every open log of {@code topic} a new configuration (a topic's overrides changed; Kafka's
     * {@code LogManager.updateTopicConfig}); see {@link PartitionLog#updateConfig} for when each setting applies.
     * Logs in an offline directory are skipped.
     *
     * @param topic     the topic
     * @param logConfig its new configuration
     * @return the number of logs updated
     */
    public int updateTopicConfig(final String topic, final LogConfig logConfig) {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(logConfig, "logConfig");
        int updated = 0;
        for (final Map.Entry<TopicPartition, Entry> e : logs.entrySet()) {
            if (e.getKey().topic().equals(topic) && !e.getValue().dir.failure().isOffline()) {
                try {
                    e.getValue().log.updateConfig(logConfig);
                    updated++;
                } catch (final StorageException closedOrOffline) {
                    LOG.warn("Configuration of {} not updated: {}", e.getKey(), closedOrOffline.getMessage());
                }
            }
        }
        return updated;
    }

    /**
     * The partition's log if it exists.
     *
     * @param tp the partition
     * @return the log, or empty
     */
    public Optional<PartitionLog> log(final TopicPartition tp) {
        final Entry entry = logs.get(tp);
        return entry == null ? Optional.empty() : Optional.of(entry.log);
    }

    /**
     * The partitions, in no particular order.
     *
     * @return an immutable snapshot
     */
    public Set<TopicPartition> partitions() {
        return Set.copyOf(logs.keySet());
    }

    /**
     * The log directory that holds a partition.
     *
     * @param tp the partition
     * @return the log directory, or empty when the partition does not exist
     */
    public Optional<Path> logDir(final TopicPartition tp) {
        final Entry entry = logs.get(tp);
        return entry == null ? Optional.empty() : Optional.of(entry.dir.path());
    }

    /**
     * Why a partition found at start did not open: the log's own error, e.g. a {@link CorruptLogException} naming
     * file, position and offset (its log directory went offline with it).
     *
     * @param tp the partition
     * @return the error, or empty when it opened (or was not found)
     */
    public Optional<StorageException> openFailure(final TopicPartition tp) {
        return Optional.ofNullable(openFailures.get(tp));
    }

    /**
     * Whether a log directory is offline (after a failed write or fsync, or a partition that could not open).
     *
     * @param logDir one of the configured log directories
     * @return true when offline
     * @throws IllegalArgumentException if it is not one of this manager's directories
     */
    public boolean isOffline(final Path logDir) {
        return dirAt(logDir).failure().isOffline();
    }

    private LogDirectory dirAt(final Path logDir) {
        final Path n = logDir.toAbsolutePath().normalize();
        for (final LogDirectory dir : dirs) {
            if (dir.path().equals(n)) {
                return dir;
            }
        }
        throw new IllegalArgumentException("logDir=" + logDir + " is not one of " + config.logDirs());
    }

    /**
     * Deletes a partition: its log is closed, its directory renamed to {@code <topic>-<partition>.<uuid>-delete}
     * (the topic cut short to fit 255 bytes, as Kafka does)
     * (and the log directory fsynced), and the renamed directory is removed after {@code file.delete.delay.ms}
     * on the scheduler (or at the next open if the process stops first).
     *
     * @param tp the partition
     * @return whether it existed
     * @throws StorageException if the rename fails (the log directory goes offline)
     * @throws IllegalStateException if the manager is closed
     */
    public boolean delete(final TopicPartition tp) {
        final Entry entry;
        final Path renamed;
        synchronized (lifecycleLock) {
            ensureOpen();
            entry = logs.get(tp);
            if (entry == null) {
                return false;
            }
            entry.dir.failure().ensureOnline();
            logs.remove(tp);
            if (cleaner != null) {
                cleaner.forget(entry.dir.path(), new PartitionKey(tp.topic(), tp.partition()));
            }
            // The partition's lock is kept until the directory is renamed: no writer opens it in between.
            final LogDirLock held = entry.log.closeKeepingLock();
            renamed = entry.dir.path().resolve(
                PartitionDirs.deleteDirName(tp, UUID.randomUUID().toString().replace("-", "")));
            try {
                io.atomicMove(entry.log.dir(), renamed);
                io.fsyncDirectory(entry.dir.path());
            } catch (final IOException | RuntimeException e) {
                throw entry.dir.failure().markOffline("rename of " + entry.log.dir() + " for deletion", e);
            } finally {
                try {
                    held.close();
                } catch (final IOException e) {
                    LOG.warn("releasing the lock of {} failed (the OS releases it when the process exits): {}",
                        renamed, e.toString());
                }
            }
        }
        final Scheduler.Cancellable removal = scheduler.schedule("delete-partition " + renamed.getFileName(),
            () -> PartitionDirs.deleteRecursively(io, renamed), entry.log.config().fileDeleteDelayMs(), 0);
        synchronized (tasks) {
            tasks.add(removal); // cancelled by close; the next open removes the directory instead
        }
        return true;
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("the LogManager is closed");
        }
    }

    // ---- background work (runs on the scheduler) ----

    void runRetention() {
        for (final Entry entry : logs.values()) {
            if (entry.dir.failure().isOffline() || entry.log.isClosed()) {
                continue;
            }
            try {
                entry.log.deleteOldSegments();
            } catch (final StorageException e) {
                LOG.error("retention failed for {}: {}", entry.log.dir(), e.getMessage());
            } catch (final IllegalStateException e) {
                // closed concurrently by delete(): nothing to do
            }
        }
    }

    void runFlushPolicy() {
        final long nowMs = time.millis();
        for (final Entry entry : logs.values()) {
            final PartitionLog log = entry.log;
            if (entry.dir.failure().isOffline() || log.isClosed()) {
                continue;
            }
            try {
                if (log.isFlushDue(nowMs)) {
                    log.flush();
                }
            } catch (final StorageException e) {
                LOG.error("scheduled flush failed for {}: {}", log.dir(), e.getMessage());
            }
        }
    }

    void checkpointRecoveryPoints() {
        writeCheckpoints(Checkpoint.RECOVERY_POINTS);
    }

    void checkpointLogStartOffsets() {
        writeCheckpoints(Checkpoint.LOG_STARTS);
    }

    void checkpointHighWatermarks() {
        writeCheckpoints(Checkpoint.HIGH_WATERMARKS);
    }

    private void writeCheckpoints(final Checkpoint which) {
        for (final LogDirectory dir : dirs) {
            try {
                dir.writeCheckpoint(which, () -> logsIn(dir));
            } catch (final StorageException e) {
                LOG.error("checkpoint write failed in {}: {}", dir.path(), e.getMessage());
            }
        }
    }

    /**
     * Closes the manager: cancels its scheduled tasks (and closes its own default scheduler, waiting for a
     * running task), closes every partition (which flushes it), writes the three checkpoints and then the
     * clean-shutdown marker of every directory that is still online, and releases the locks. Keeps every
     * failure (suppressed on the first). Idempotent.
     *
     * @throws StorageException if any step failed; the directories concerned get no clean-shutdown marker
     */
    @Override
    public void close() {
        synchronized (lifecycleLock) {
            if (closed) {
                return;
            }
            closed = true;
        }
        if (cleaner != null) {
            cleaner.close(); // before the logs close: a round in progress finishes its swap first
        }
        synchronized (tasks) {
            for (final Scheduler.Cancellable task : tasks) {
                task.cancel();
            }
        }
        if (ownsScheduler) {
            scheduler.close();
        }
        Throwable failure = null;
        final Map<LogDirectory, Boolean> dirClean = new HashMap<>();
        for (final Entry entry : logs.values()) {
            try {
                entry.log.close();
            } catch (final RuntimeException e) {
                dirClean.put(entry.dir, false);
                failure = add(failure, e);
            }
        }
        for (final LogDirectory dir : dirs) {
            if (dir.failure().isOffline() || Boolean.FALSE.equals(dirClean.get(dir))) {
                continue;
            }
            try {
                dir.writeCleanShutdown(() -> logsIn(dir), config.brokerEpoch());
            } catch (final IOException | RuntimeException e) {
                failure = add(failure, e);
            }
        }
        logs.clear();
        for (int i = dirs.size() - 1; i >= 0; i--) {
            try {
                dirs.get(i).releaseLock();
            } catch (final IOException | RuntimeException e) {
                failure = add(failure, e);
            }
        }
        if (failure != null) {
            throw failure instanceof StorageException se ? se
                : new StorageException("closing the LogManager failed: " + failure, null, failure);
        }
    }

    private static Throwable add(final Throwable first, final Throwable next) {
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }

    /**
     * Whether the previous shutdown of a log directory was clean (its marker was present at open).
     *
     * @param logDir one of the configured log directories
     * @return true when the marker was present
     * @throws IllegalArgumentException if it is not one of this manager's directories
     */
    public boolean hadCleanShutdown(final Path logDir) {
        return dirAt(logDir).hadCleanShutdown();
    }

    @Override
    public String toString() {
        return "LogManager{logDirs=" + config.logDirs() + ", partitions=" + logs.size() + ", closed=" + closed + "}";
    }
}
