package io.seglog.storage;

import io.seglog.storage.checkpoint.CleanShutdownFile;
import io.seglog.storage.checkpoint.CorruptCheckpointException;
import io.seglog.storage.checkpoint.OffsetCheckpointFile;
import io.seglog.storage.checkpoint.PartitionKey;
import io.seglog.storage.dir.LogDirLock;
import io.seglog.storage.dir.LogDirLockedException;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One log directory of a {@link LogManager}: its {@code .lock} (held from {@link #open} to {@link #releaseLock}), its
 * health ({@link LogDirFailure}, shared with every log in it), its three offset checkpoints, and its clean-shutdown
 * marker with whether it was present at open.
 *
 * <p>Owner of those, and their only writer: a checkpoint is written only through {@link #writeCheckpoint} (one
 * writer per file at a time, the offsets read under that file's lock, so a later write never carries older values;
 * a failure takes the directory offline), the marker only through {@link #writeCleanShutdown}. Which partitions live
 * here is the manager's to know: a write asks the manager for them while it holds the file's lock. Thread-safe.
 */
final class LogDirectory {
    private static final Logger LOG = LoggerFactory.getLogger(LogManager.class);

    /** A directory's offset checkpoints, each with the offset of a log it records. */
    enum Checkpoint {
        /** The offset below which a log is flushed. */
        RECOVERY_POINTS(OffsetCheckpointFile.RECOVERY_POINT_FILE, PartitionLog::flushedOffset),
        /** The log start offsets. */
        LOG_STARTS(OffsetCheckpointFile.LOG_START_FILE, PartitionLog::logStartOffset),
        /** The high watermarks. */
        HIGH_WATERMARKS(OffsetCheckpointFile.REPLICATION_FILE, PartitionLog::highWatermark);

        private final String fileName;
        private final ToLongFunction<PartitionLog> offset;

        Checkpoint(final String fileName, final ToLongFunction<PartitionLog> offset) {
            this.fileName = fileName;
            this.offset = offset;
        }
    }

    private final FileIO io;
    private final Path path;
    private final LogDirLock lock;
    private final LogDirFailure failure;
    /** Indexed by {@link Checkpoint#ordinal()}. */
    private final OffsetCheckpointFile[] checkpoints = new OffsetCheckpointFile[Checkpoint.values().length];
    private final CleanShutdownFile cleanShutdown;
    private final boolean hadCleanShutdown;

    private LogDirectory(final FileIO io, final Path path, final LogDirLock lock, final CleanShutdownFile cleanShutdown,
                         final boolean hadCleanShutdown) {
        this.io = io;
        this.path = path;
        this.lock = lock;
        this.failure = new LogDirFailure(path);
        for (final Checkpoint c : Checkpoint.values()) {
            checkpoints[c.ordinal()] = new OffsetCheckpointFile(io, path.resolve(c.fileName));
        }
        this.cleanShutdown = cleanShutdown;
        this.hadCleanShutdown = hadCleanShutdown;
    }

    /**
     * Creates the directory if needed, locks it, checks that no other writer has one of its partitions open, and
     * consumes its clean-shutdown marker. Nothing is left locked when it fails.
     *
     * @throws LogInUseException if another writer has one of its partitions open (nothing was changed)
     * @throws StorageException if it cannot be created, locked or read
     */
    static LogDirectory open(final FileIO io, final Path path) {
        try {
            io.createDirectories(path);
        } catch (final IOException e) {
            throw new StorageException("cannot create the log directory: " + e, path, e);
        }
        final LogDirLock lock;
        try {
            lock = LogDirLock.acquire(io, path);
        } catch (final LogDirLockedException e) {
            throw new StorageException("cannot lock the log directory (is another process or LogManager using it?): "
                + e.getMessage(), path, e);
        } catch (final FileSystemException e) {
            // Not a lock held by someone else: the directory cannot be written (read-only, or permissions).
            throw new StorageException("cannot create the lock file in the log directory (read-only file system or"
                + " no write permission?): " + e, path, e);
        } catch (final IOException e) {
            throw new StorageException("cannot lock the log directory: " + e, path, e);
        }
        try {
            ensurePartitionsFree(io, path);
        } catch (final RuntimeException e) {
            try {
                lock.close();
            } catch (final IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        final CleanShutdownFile cleanShutdown = new CleanShutdownFile(io, path);
        try {
            return new LogDirectory(io, path, lock, cleanShutdown, cleanShutdown.consume().present());
        } catch (final IOException | RuntimeException e) {
            final StorageException failure = new StorageException("cannot read the clean-shutdown marker: " + e,
                cleanShutdown.file(), e);
            try {
                lock.close();
            } catch (final IOException suppressed) {
                failure.addSuppressed(suppressed);
            }
            throw failure;
        }
    }

    /**
     * Refuses to start over a partition another writer has open, before anything in the directory changes (the
     * clean-shutdown marker is consumed next, and partitions are recovered): each partition's lock is taken and
     * released at once. A writer that opens one between this check and the load is refused there.
     *
     * @throws LogInUseException naming the first partition directory held
     */
    private static void ensurePartitionsFree(final FileIO io, final Path logDir) {
        for (final Path child : PartitionDirs.list(logDir)) {
            if (child.getFileName().toString().endsWith(LogManager.DELETE_DIR_SUFFIX)
                || PartitionDirs.parse(child, false) == null) {
                continue;
            }
            try {
                LogDirLock.acquire(io, child).close();
            } catch (final LogDirLockedException e) {
                throw new LogInUseException(child, e.inThisProcess() ? "another log in this process"
                    : "another process", e);
            } catch (final IOException e) {
                throw new StorageException("cannot lock the partition directory: " + e, child, e);
            }
        }
    }

    /** The directory, absolute and normalised as configured. */
    Path path() {
        return path;
    }

    /** Its health, shared with every log in it. */
    LogDirFailure failure() {
        return failure;
    }

    /** Whether the clean-shutdown marker was present at open. */
    boolean hadCleanShutdown() {
        return hadCleanShutdown;
    }

    /**
     * Reads a checkpoint; a malformed one is the documented safe fallback, an empty map (recovery point 0 = full
     * recovery; log start from the segments; high watermark at the log start, re-learned from the leader).
     *
     * @throws StorageException if it cannot be read
     */
    Map<TopicPartition, Long> readCheckpoint(final Checkpoint which) {
        final OffsetCheckpointFile file = checkpoints[which.ordinal()];
        try {
            final Map<TopicPartition, Long> offsets = new HashMap<>();
            file.read().forEach((key, offset) -> offsets.put(new TopicPartition(key.topic(), key.partition()), offset));
            return offsets;
        } catch (final CorruptCheckpointException e) {
            LOG.warn("ignoring malformed checkpoint " + e.getMessage(), e);
            return Map.of();
        } catch (final IOException e) {
            throw new StorageException("cannot read checkpoint: " + e, file.file(), e);
        }
    }

    /**
     * Writes one checkpoint with the offsets of the logs in this directory, unless the directory is offline. A
     * truncating thread writes the recovery points too ({@link LogEnvironment}): one writer per file at a time, and
     * the logs' offsets read under the file's lock, so a later write never carries older values.
     *
     * @param logs the logs of this directory now, asked for under the file's lock
     * @throws StorageException if the write fails (the directory goes offline)
     */
    void writeCheckpoint(final Checkpoint which, final Supplier<Map<TopicPartition, PartitionLog>> logs) {
        if (failure.isOffline()) {
            return;
        }
        final OffsetCheckpointFile file = checkpoints[which.ordinal()];
        synchronized (file) {
            final Map<PartitionKey, Long> offsets = new HashMap<>();
            logs.get().forEach((tp, log) -> offsets.put(new PartitionKey(tp.topic(), tp.partition()),
                which.offset.applyAsLong(log)));
            try {
                file.write(offsets);
            } catch (final IOException | RuntimeException e) {
                throw failure.markOffline("write of " + file.file().getFileName(), e);
            }
        }
    }

    /**
     * Writes the three checkpoints and then the clean-shutdown marker, which promises that everything before it is
     * on disk (ST-10). On a failure the directory goes offline and no marker is left to vouch for it.
     *
     * @throws IOException if the marker cannot be written
     * @throws StorageException (or another runtime exception) if another step failed
     */
    void writeCleanShutdown(final Supplier<Map<TopicPartition, PartitionLog>> logs, final long brokerEpoch)
        throws IOException {
        try {
            for (final Checkpoint c : Checkpoint.values()) {
                writeCheckpoint(c, logs);
            }
            cleanShutdown.write(brokerEpoch);
        } catch (final IOException | RuntimeException e) {
            failure.markOffline("clean shutdown", e);
            try {
                // A marker whose directory entry may not be durable must not vouch for this directory.
                io.deleteIfExists(cleanShutdown.file());
            } catch (final IOException | RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /**
     * Releases the directory's {@code .lock}.
     *
     * @throws IOException if the release fails
     */
    void releaseLock() throws IOException {
        lock.close();
    }
}
