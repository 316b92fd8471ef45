package io.seglog.storage;

import io.seglog.storage.dir.LogDirLock;
import io.seglog.storage.segment.CorruptSegmentException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lifecycle and failure state of one {@link PartitionLog}: it owns the closed flag, the offline cause (the first
 * I/O failure, after which every call fails), whether the log is read-only, the partition directory's {@code .lock}
 * (released here once the files are closed), and the log's subscription to its log directory's shared
 * {@link LogDirFailure}. It is the only writer of that state; every path of the log asks it before it writes
 * ({@link #ensureWritable}) or reads ({@link #ensureReadable}) and hands it the failures that take the log offline
 * ({@link #goOffline}).
 *
 * <p>Threads: the flags are volatile; {@link #close} runs under the log's append lock, the rest anywhere.
 */
final class LogHealth {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionLog.class);

    private final Path dir;
    /** The partition directory's {@code .lock}, held from before the open until close: one writer; null read-only. */
    private final LogDirLock ownership;
    /** Opened read-only: no lock, nothing on disk ever changes, every write refused. */
    private final boolean readOnly;
    /** The log directory's shared state when a LogManager opened this log; null for a standalone log. */
    private final LogDirFailure dirFailure;
    /** Fails the log's durability waiters: what going offline, here or in the shared directory, does besides. */
    private final Consumer<StorageException> onOffline;

    private volatile boolean closed;
    private volatile Throwable offlineCause;

    LogHealth(final Path dir, final LogDirLock ownership, final LogDirFailure dirFailure,
              final Consumer<StorageException> onOffline) {
        this.dir = dir;
        this.ownership = ownership;
        this.readOnly = ownership == null;
        this.dirFailure = dirFailure;
        this.onOffline = onOffline;
    }

    /** Starts listening to the log directory's failure, once the log is built (a failed open leaves no listener). */
    void subscribe() {
        if (dirFailure != null) {
            dirFailure.onOffline(onOffline);
        }
    }

    boolean isReadOnly() {
        return readOnly;
    }

    boolean isClosed() {
        return closed;
    }

    /** True once this log, or the log directory it shares, went offline after an I/O failure. */
    boolean isOffline() {
        return offlineCause != null || (dirFailure != null && dirFailure.isOffline());
    }

    /** Closed, offline or read-only: the cleaner leaves such a log alone. */
    boolean isOfflineOrClosed() {
        return closed || isOffline() || readOnly;
    }

    /**
     * Closes the log once, under its append lock: marks it closed, runs {@code closeFiles}, then releases the
     * directory's lock unless {@code releaseLock} is false and the files closed (a close that failed releases it
     * even for a caller that meant to keep it), and stops listening to the log directory's failure.
     *
     * @return the directory's lock when the caller keeps it; null otherwise, and for a read-only log
     */
    LogDirLock close(final ReentrantLock appendLock, final boolean releaseLock, final Runnable closeFiles) {
        appendLock.lock();
        try {
            if (closed) {
                return releaseLock ? null : ownership;
            }
            closed = true;
            boolean closedFiles = false;
            try {
                closeFiles.run();
                closedFiles = true;
            } finally {
                if (releaseLock || !closedFiles) {
                    releaseOwnership();
                }
            }
        } finally {
            appendLock.unlock();
            if (dirFailure != null) {
                dirFailure.removeListener(onOffline);
            }
        }
        return releaseLock ? null : ownership;
    }

    void ensureWritable() {
        ensureReadable();
        if (readOnly) {
            throw new IllegalStateException("the log in " + dir + " is open read-only (PartitionLog.openReadOnly):"
                + " nothing in it is ever written");
        }
    }

    void ensureReadable() {
        if (closed) {
            throw new StorageException("the log is closed", dir, null);
        }
        if (dirFailure != null) {
            dirFailure.ensureOnline();
        }
        final Throwable cause = offlineCause;
        if (cause != null) {
            throw new StorageException("the log is offline after an I/O failure", dir, cause);
        }
    }

    /**
     * Takes the log (and a log manager's whole log directory) offline after a failed write or fsync, fails the
     * durability waiters and answers the exception to throw.
     */
    StorageException goOffline(final String what, final Throwable cause) {
        if (offlineCause == null) {
            offlineCause = cause;
        }
        final StorageException offline = dirFailure != null
            ? dirFailure.markOffline(dir.getFileName() + ": " + what, cause)
            : new StorageException("the log is offline after a failed write or fsync (" + what + ")", dir, cause);
        onOffline.accept(offline);
        if (cause instanceof StorageException) {
            return (StorageException) cause;
        }
        return new StorageException(what + ": " + cause.getMessage(), dir, cause);
    }

    StorageException readFailure(final IOException e) {
        if (closed) {
            return new StorageException("the log was closed during a read", dir, e);
        }
        if (e instanceof CorruptSegmentException) {
            // A batch out of its place names its file, position, offset and field (a CorruptLogException); other
            // damage found by a read names the file. Neither takes the log offline: the data is wrong, not the disk.
            return CorruptLogException.of((CorruptSegmentException) e);
        }
        return new StorageException("read failed: " + e.getMessage(), dir, e);
    }

    /** Releases the partition directory's lock once every file is closed (also after a failed close). */
    private void releaseOwnership() {
        if (ownership == null) {
            return; // read-only: no lock was taken
        }
        try {
            ownership.close();
        } catch (final IOException e) {
            LOG.warn("releasing the lock of {} failed (the OS releases it when the process exits): {}", dir,
                e.toString());
        }
    }
}
