package io.seglog.storage.log;

import java.io.IOException;

/**
 * A write, fsync, rename or delete of a partition log's files failed: the files are now in an unknown state and
 * the log must go offline (never retry in place). Carries what was being done, for the message the owner gives
 * the caller and the log directory's failure record.
 *
 * <p>Immutable.
 */
public final class LogWriteException extends IOException {
    private static final long serialVersionUID = 1L;

    private final String what;

    /**
     * Wraps the failure.
     *
     * @param what  what was being done, e.g. {@code "append of 1024 bytes at offset=7 failed"}
     * @param cause the failure
     */
    public LogWriteException(final String what, final Throwable cause) {
        super(what + ": " + cause, cause);
        this.what = what;
    }

    /**
     * What was being done.
     *
     * @return the description
     */
    public String what() {
        return what;
    }
}
