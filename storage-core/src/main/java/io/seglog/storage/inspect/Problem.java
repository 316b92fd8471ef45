package io.seglog.storage.inspect;

import java.nio.file.Path;
import java.util.Objects;

/**
 * One thing wrong in a log directory, as {@link LogVerifier} reports it: the file, where in it, and what.
 *
 * @param file     the file (or directory) the problem is in
 * @param position the byte position in the file, or -1 when it concerns the whole file
 * @param offset   the log offset concerned, or -1 when none
 * @param message  what is wrong, with the values found and expected
 */
public record Problem(Path file, long position, long offset, String message) {
    /**
     * Checks the fields.
     *
     * @param file     the file
     * @param position the byte position, or -1
     * @param offset   the offset, or -1
     * @param message  the description
     */
    public Problem {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(message, "message");
    }

    /**
     * The problem as one line: {@code file: position P, offset O: message}, leaving out what is not known.
     *
     * @return the line
     */
    @Override
    public String toString() {
        final StringBuilder line = new StringBuilder().append(file);
        if (position >= 0) {
            line.append(": position ").append(position);
        }
        if (offset >= 0) {
            line.append(position >= 0 ? ", offset " : ": offset ").append(offset);
        }
        return line.append(": ").append(message).toString();
    }
}
