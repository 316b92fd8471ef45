package io.seglog.storage;

import java.nio.file.Path;

/**
 * An I/O failure of the storage core, unchecked, naming the file or directory it concerns. After one, the log
 * that raised it is offline: every later call on it fails, because a failed write or fsync leaves the file in
 * an unknown state and is never retried in place.
 *
 * <p>Immutable, so thread-safe.
 */
public class StorageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The file or directory concerned; transient because {@link Path} is not serializable. */
    private final transient Path path;

    /**
     * Creates the exception.
     *
     * @param message what failed
     * @param path    the file or directory concerned, or {@code null} when none
     * @param cause   the underlying failure, or {@code null}
     */
    public StorageException(final String message, final Path path, final Throwable cause) {
        super(path == null ? message : message + " (path=" + path + ")", cause);
        this.path = path;
    }

    /**
     * The file or directory concerned.
     *
     * @return the path, or {@code null} when none was known
     */
    public Path path() {
        return path;
    }
}
