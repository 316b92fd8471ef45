package io.seglog.storage.dir;

import java.io.IOException;
import java.nio.file.Path;

/** Another process, or another owner in this process, already holds a log directory's lock. */
public final class LogDirLockedException extends IOException {
    private static final long serialVersionUID = 1L;

    private final transient Path directory;
    private final boolean inThisProcess;

    /**
     * Creates the exception.
     *
     * @param directory     the log directory
     * @param inThisProcess whether the holder is in this JVM (else another process)
     * @param detail        who holds it, as far as is known
     * @param cause         the lock failure, or {@code null}
     */
    public LogDirLockedException(final Path directory, final boolean inThisProcess, final String detail,
                                 final Throwable cause) {
        super("log directory " + directory + " is locked (" + LogDirLock.LOCK_FILE_NAME + "): " + detail, cause);
        this.directory = directory;
        this.inThisProcess = inThisProcess;
    }

    /**
     * Whether the holder is in this JVM.
     *
     * @return true for this process, false for another
     */
    public boolean inThisProcess() {
        return inThisProcess;
    }

    /**
     * The log directory.
     *
     * @return its path
     */
    public Path directory() {
        return directory;
    }
}
