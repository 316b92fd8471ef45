package io.seglog.storage.dir;

import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;
import java.util.Set;
import org.agrona.CloseHelper;

/**
 * Exclusive ownership of a log directory: an OS lock ({@link FileChannel#tryLock()}) on {@value #LOCK_FILE_NAME}
 * inside it, Kafka's convention, so two processes (or two owners in one JVM) never open the same logs.
 *
 * <p>The lock is advisory and tied to the process: the OS releases it when the process dies, however it dies,
 * so a crash never leaves a stale lock. For that reason the file's content and durability do not matter
 * (it stays empty, is not fsynced, and is not deleted on close: deleting it could let a waiting process lock
 * a fresh inode while another still holds the old one).
 *
 * <p>Thread-safe; {@link #close} is idempotent.
 */
public final class LogDirLock implements AutoCloseable {
    /** Name of the lock file in a log directory, as Kafka names it. */
    public static final String LOCK_FILE_NAME = ".lock";

    private final Path directory;
    private final FileChannel channel;
    private final FileLock lock;
    private boolean closed; // guarded by this

    private LogDirLock(final Path directory, final FileChannel channel, final FileLock lock) {
        this.directory = directory;
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Locks a log directory without waiting.
     *
     * @param io        the file I/O
     * @param directory the log directory, which must exist
     * @return the held lock; the caller closes it to release the directory
     * @throws LogDirLockedException naming the directory if another process or owner holds it
     * @throws IOException           if the lock file cannot be opened or locked
     */
    public static LogDirLock acquire(final FileIO io, final Path directory) throws IOException {
        final Path dir = Objects.requireNonNull(directory, "directory").toAbsolutePath();
        final FileChannel channel = io.open(dir.resolve(LOCK_FILE_NAME),
            Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE));
        try {
            final FileLock lock = channel.tryLock();
            if (lock == null) {
                throw new LogDirLockedException(dir, "another process holds it", null);
            }
            return new LogDirLock(dir, channel, lock);
        } catch (final OverlappingFileLockException e) {
            final LogDirLockedException locked = new LogDirLockedException(dir, "already held in this process", e);
            closeQuietly(channel, locked);
            throw locked;
        } catch (final IOException | RuntimeException e) {
            closeQuietly(channel, e);
            throw e;
        }
    }

    private static void closeQuietly(final FileChannel channel, final Throwable primary) {
        try {
            channel.close();
        } catch (final IOException e) {
            primary.addSuppressed(e);
        }
    }

    /**
     * The locked directory.
     *
     * @return its absolute path
     */
    public Path directory() {
        return directory;
    }

    /**
     * Whether the lock is still held.
     *
     * @return false after {@link #close}
     */
    public synchronized boolean isHeld() {
        return !closed && lock.isValid();
    }

    /**
     * Releases the lock and closes the file; idempotent.
     *
     * @throws IOException if releasing or closing fails (both are attempted)
     */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        // Releases the lock, then closes the channel even if the release failed; the first failure is thrown
        // (an IOException, rethrown as it is) with the other suppressed.
        CloseHelper.closeAll(lock, channel);
    }

    @Override
    public String toString() {
        return "LogDirLock(" + directory + (isHeld() ? ", held" : ", released") + ")";
    }
}
