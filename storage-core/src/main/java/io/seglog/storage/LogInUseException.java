package io.seglog.storage;

import java.nio.file.Path;

/**
 * A partition directory is already open for writing: by another {@link PartitionLog} or {@link LogManager} in this
 * process, or by another process. Every writable open holds an OS lock on the partition directory's
 * {@code .lock} file for as long as the log is open, so two writers never append at the same offsets. Nothing on
 * disk was changed by the refused open, and the log directory does not go offline for it.
 *
 * <p>Immutable, so thread-safe.
 */
public final class LogInUseException extends StorageException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param partitionDir the partition directory
     * @param holder       who holds it, as far as is known ("this process" or "another process")
     * @param cause        the lock failure
     */
    public LogInUseException(final Path partitionDir, final String holder, final Throwable cause) {
        super("partition directory " + partitionDir + " is already open for writing (by " + holder + "); close that"
            + " PartitionLog or LogManager first", partitionDir, cause);
    }
}
