package io.seglog.storage.producer;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A producer-state snapshot that fails a check: names the file, the byte position, the field, what was expected and
 * what was found. Loading deletes such a snapshot and rebuilds the state from an older one or from the log.
 */
public final class CorruptSnapshotException extends IOException {
    private static final long serialVersionUID = 1L;

    private final transient Path file;
    private final long position;
    private final String field;

    /**
     * Creates the exception.
     *
     * @param file     the snapshot file
     * @param position the byte position of the field in the file
     * @param field    the field that failed
     * @param expected what a valid snapshot holds there
     * @param found    what the file holds
     */
    public CorruptSnapshotException(final Path file, final long position, final String field, final String expected,
                                    final String found) {
        super("corrupt producer snapshot " + file + " at position " + position + ": " + field + " expected "
            + expected + ", found " + found);
        this.file = file;
        this.position = position;
        this.field = field;
    }

    /**
     * The snapshot file.
     *
     * @return the path
     */
    public Path file() {
        return file;
    }

    /**
     * The byte position of the failing field.
     *
     * @return the position
     */
    public long position() {
        return position;
    }

    /**
     * The failing field's name.
     *
     * @return the name
     */
    public String field() {
        return field;
    }
}
