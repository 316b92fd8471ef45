package io.seglog.storage;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The health of one log directory, shared by every partition in it (Kafka's {@code LogDirFailureChannel}, one
 * directory at a time). The first failed write or fsync on any file of the directory takes the whole directory
 * offline for the life of the process: the failure is kept, every later call on its partitions throws a
 * {@link StorageException} naming the directory and that first failure, and listeners (the partitions'
 * durability waiters) are told once so nothing more is reported durable. There is no way back online; a
 * restart runs recovery.
 *
 * <p>Thread-safe: the first failure wins by a synchronized transition; reads are volatile.
 */
final class LogDirFailure {
    private final Path logDir;
    private final List<Consumer<StorageException>> listeners = new CopyOnWriteArrayList<>();
    private volatile StorageException failure;

    LogDirFailure(final Path logDir) {
        this.logDir = logDir;
    }

    Path logDir() {
        return logDir;
    }

    boolean isOffline() {
        return failure != null;
    }

    /** The exception every call throws once offline, or null while online. */
    StorageException failure() {
        return failure;
    }

    /**
     * Takes the directory offline unless it already is; the first cause is kept.
     *
     * @param what  what failed, e.g. {@code "fsync of 00000000000000000000.log"}
     * @param cause the failure
     * @return the exception describing the directory's (first) failure
     */
    StorageException markOffline(final String what, final Throwable cause) {
        final StorageException offline;
        synchronized (this) {
            if (failure != null) {
                return failure;
            }
            offline = new StorageException("log directory is offline (first failure: " + what + ": "
                + (cause.getMessage() == null ? cause.toString() : cause.getMessage()) + "); it stays offline until"
                + " restart", logDir, cause);
            failure = offline;
        }
        for (final Consumer<StorageException> listener : listeners) {
            listener.accept(offline);
        }
        return offline;
    }

    /**
     * Throws the directory's failure when it is offline.
     *
     * @throws StorageException naming the directory and its first failure
     */
    void ensureOnline() {
        final StorageException f = failure;
        if (f != null) {
            throw new StorageException(f.getMessage(), null, f);
        }
    }

    /** Registers a listener told once when the directory goes offline (at once if it already is). */
    void onOffline(final Consumer<StorageException> listener) {
        listeners.add(listener);
        final StorageException f = failure;
        if (f != null) {
            listener.accept(f);
        }
    }

    void removeListener(final Consumer<StorageException> listener) {
        listeners.remove(listener);
    }

    @Override
    public String toString() {
        return "LogDirFailure{logDir=" + logDir + ", offline=" + (failure != null) + "}";
    }
}
