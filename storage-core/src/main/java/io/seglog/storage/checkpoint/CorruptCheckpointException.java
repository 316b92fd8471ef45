package io.seglog.storage.checkpoint;

import java.nio.file.Path;

/**
 * A checkpoint file whose content breaks its format: wrong version, malformed line, entry count that does
 * not match the entries, data after the last entry, a file larger than the reader's limit.
 *
 * <p>Unchecked and distinct from {@link java.io.IOException} so that a caller can tell corruption (apply the
 * file's documented fallback, see {@code docs/checkpoints.md}) from an I/O failure (take the log directory
 * offline).
 */
public final class CorruptCheckpointException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Line number used when the problem concerns the whole file rather than one line. */
    public static final int WHOLE_FILE = 0;

    private final transient Path file;
    private final int lineNumber;
    private final String reason;

    /**
     * Creates the exception.
     *
     * @param file       the checkpoint file
     * @param lineNumber the 1-based line at fault, or {@link #WHOLE_FILE}
     * @param reason     what is wrong, naming the field, the value found and the value expected
     */
    public CorruptCheckpointException(final Path file, final int lineNumber, final String reason) {
        this(file, lineNumber, reason, null);
    }

    /**
     * Creates the exception with a cause.
     *
     * @param file       the checkpoint file
     * @param lineNumber the 1-based line at fault, or {@link #WHOLE_FILE}
     * @param reason     what is wrong, naming the field, the value found and the value expected
     * @param cause      the parse failure behind it, or {@code null}
     */
    public CorruptCheckpointException(final Path file, final int lineNumber, final String reason,
                                      final Throwable cause) {
        super("corrupt checkpoint file " + file
            + (lineNumber == WHOLE_FILE ? "" : " at line " + lineNumber) + ": " + reason, cause);
        this.file = file;
        this.lineNumber = lineNumber;
        this.reason = reason;
    }

    /**
     * The checkpoint file.
     *
     * @return its path
     */
    public Path file() {
        return file;
    }

    /**
     * The line at fault.
     *
     * @return the 1-based line number, or {@link #WHOLE_FILE}
     */
    public int lineNumber() {
        return lineNumber;
    }

    /**
     * What is wrong, without the file and line prefix.
     *
     * @return the reason
     */
    public String reason() {
        return reason;
    }
}
