package io.seglog.storage.index;

import java.nio.file.Path;

/**
 * An index file whose contents break an invariant that every index written by Seglog or Kafka keeps, found by
 * {@code sanityCheck()} or when an index is opened. Indexes are not checksummed: the remedy is to delete the
 * index and rebuild it from the segment's log file.
 */
public final class CorruptIndexException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The index file. Not serialized: {@link Path} is not serializable; the message keeps the name. */
    private final transient Path file;
    private final String field;
    private final long found;
    private final String expected;

    /**
     * Creates the exception.
     *
     * @param file     the index file
     * @param field    the field or quantity that is wrong, for example {@code lastOffset} or {@code lengthBytes}
     * @param found    the value found in the file
     * @param expected what a valid file has instead, for example {@code >= baseOffset 100}
     */
    public CorruptIndexException(final Path file, final String field, final long found, final String expected) {
        super("corrupt index: file=" + file + ", " + field + "=" + found + ", expected " + expected);
        this.file = file;
        this.field = field;
        this.found = found;
        this.expected = expected;
    }

    /**
     * The index file.
     *
     * @return the file, or null after deserialization
     */
    public Path file() {
        return file;
    }

    /**
     * The field or quantity that is wrong.
     *
     * @return its name
     */
    public String field() {
        return field;
    }

    /**
     * The value found in the file.
     *
     * @return the value
     */
    public long found() {
        return found;
    }

    /**
     * What a valid file has instead.
     *
     * @return a short description of the expected value
     */
    public String expected() {
        return expected;
    }
}
