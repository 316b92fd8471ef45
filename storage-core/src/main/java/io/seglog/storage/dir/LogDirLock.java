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
import java.util.concurrent.ConcurrentHashMap;
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

    /** Real paths of the directories locked through this class in this JVM. */
    private static final Set<Path> HELD = ConcurrentHashMap.newKeySet();

    private final Path directory;
    private final Path key;
    private final FileChannel channel;
    private final FileLock lock;
    private boolean closed; // guarded by this

    private LogDirLock(final Path directory, final Path key, final FileChannel channel, final FileLock lock) {
        this.directory = directory;
        this.key = key;
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
     * @throws IOException           if the directory does not exist, or the lock file cannot be opened or locked
     */
    public static LogDirLock acquire(final FileIO io, final Path directory) throws IOException {
        final Path dir = Objects.requireNonNull(directory, "directory").toAbsolutePath();
        // Checked before any channel is opened: the OS lock is per process (fcntl), and closing any descriptor of
        // the lock file, even one whose tryLock failed in this JVM, would release this process's lock on it for
        // every other process (FileLock's javadoc warns of this; Lucene's NativeFSLockFactory keeps the same set).
        final Path key = dir.toRealPath();
        if (!HELD.add(key)) {
            throw new LogDirLockedException(dir, true, "already held in this process", null);
        }
        FileChannel channel = null;
        try {
            channel = io.open(dir.resolve(LOCK_FILE_NAME), Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE));
            final FileLock lock = channel.tryLock();
            if (lock == null) {
                throw new LogDirLockedException(dir, false, "another process holds it", null);
            }
            return new LogDirLock(dir, key, channel, lock);
        } catch (final OverlappingFileLockException e) {
            // Held in this JVM outside this class (not through acquire): refuse, keeping that lock's descriptor.
            HELD.remove(key);
            throw new LogDirLockedException(dir, true, "already held in this process", e);
        } catch (final IOException | RuntimeException e) {
            HELD.remove(key);
            if (channel != null) {
                closeQuietly(channel, e);
            }
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
     * Whether a writer holds the directory: an owner in this JVM, or another process (probed with a shared lock on a
     * read-only channel of the lock file, so nothing is created or written). While it probes, the directory counts as
     * held in this JVM, so no {@link #acquire} here opens the file meanwhile (closing the probe's channel would
     * release that owner's OS lock).
     *
     * @param directory the log or partition directory
     * @return true when held; false when free, or when there is no lock file
     */
    public static boolean isHeld(final Path directory) {
        final Path lockFile = directory.resolve(LOCK_FILE_NAME);
        if (!java.nio.file.Files.exists(lockFile)) {
            return false;
        }
        final Path key;
        try {
            key = directory.toAbsolutePath().toRealPath();
        } catch (final IOException gone) {
            return false;
        }
        if (!HELD.add(key)) {
            return true;
        }
        try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.READ)) {
            final FileLock probe = channel.tryLock(0, Long.MAX_VALUE, true);
            if (probe == null) {
                return true;
            }
            probe.release();
            return false;
        } catch (final OverlappingFileLockException heldHere) {
            return true;
        } catch (final IOException unknown) {
            return false;
        } finally {
            HELD.remove(key);
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
        // (an IOException, rethrown as it is) with the other suppressed. Only then may this JVM lock it again.
        try {
            CloseHelper.closeAll(lock, channel);
        } finally {
            HELD.remove(key);
        }
    }

    @Override
    public String toString() {
        return "LogDirLock(" + directory + (isHeld() ? ", held" : ", released") + ")";
    }
}
