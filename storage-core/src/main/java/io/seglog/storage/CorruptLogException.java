package io.seglog.storage;

import io.seglog.storage.segment.CorruptSegmentException;
import java.nio.file.Path;

/**
 * A partition's data file holds corruption that a crash cannot explain: an invalid batch with valid batches
 * after it, a batch below the recovery point (data that was already durable), or a batch whose checksum is
 * right but whose offset or leader epoch contradicts the log. Recovery never silently truncates such data
 * (unless {@link LogConfig#corruptionPolicy()} says so): the partition refuses to open, and a replica
 * re-fetches it from the leader.
 *
 * <p>The exception names the file, the byte position of the batch, the offset that batch should start at,
 * the field that failed and both values ({@code expected} and {@code found}; a CRC is given in hex).
 */
public final class CorruptLogException extends StorageException {
    private static final long serialVersionUID = 1L;

    private final long position;
    private final long offset;
    private final String field;
    private final String expected;
    private final String found;

    /**
     * Creates the exception.
     *
     * @param file     the data file
     * @param position byte position of the invalid batch in the file
     * @param offset   the offset the batch at {@code position} should start at
     * @param field    the batch field that failed, e.g. {@code crc}, {@code batchLength}, {@code baseOffset}
     * @param expected what the field should hold (or the limit it broke)
     * @param found    what it holds
     * @param detail   why this is corruption and not a torn tail
     */
    public CorruptLogException(final Path file, final long position, final long offset, final String field,
                               final String expected, final String found, final String detail) {
        this(file, position, offset, field, expected, found, detail, null);
    }

    /**
     * Creates the exception with the lower-level finding it reports.
     *
     * @param file     the data file
     * @param position byte position of the invalid batch in the file
     * @param offset   the offset the batch at {@code position} should start at
     * @param field    the batch field that failed
     * @param expected what the field should hold (or the limit it broke)
     * @param found    what it holds
     * @param detail   why this is corruption and not a torn tail
     * @param cause    the finding, or null
     */
    public CorruptLogException(final Path file, final long position, final long offset, final String field,
                               final String expected, final String found, final String detail, final Throwable cause) {
        super("corrupt log: " + field + " of the batch at position=" + position + " (offset=" + offset
            + "): expected " + expected + ", found " + found + "; " + detail, file, cause);
        this.position = position;
        this.offset = offset;
        this.field = field;
        this.expected = expected;
        this.found = found;
    }

    /**
     * The byte position of the invalid batch in {@link #path()}.
     *
     * @return the position
     */
    public long position() {
        return position;
    }

    /**
     * The offset the invalid batch should start at (the end of the last valid batch before it).
     *
     * @return the offset
     */
    public long offset() {
        return offset;
    }

    /**
     * The batch field that failed.
     *
     * @return the field name
     */
    public String field() {
        return field;
    }

    /**
     * What the field should hold, or the limit it broke; a CRC in hex.
     *
     * @return the expected value as text
     */
    public String expected() {
        return expected;
    }

    /**
     * What the field holds; a CRC in hex.
     *
     * @return the value found as text
     */
    public String found() {
        return found;
    }

    /**
     * The public form of damage found in a segment: a recovery finding becomes this exception (field, position,
     * offset), any other damage a {@link StorageException} naming the file.
     *
     * @param e the segment layer's exception
     * @return the exception to throw
     */
    static StorageException of(final CorruptSegmentException e) {
        final CorruptSegmentException.Finding f = e.finding();
        if (f == null) {
            return new StorageException(e.getMessage(), e.file(), e);
        }
        return new CorruptLogException(e.file(), f.position(), f.offset(), f.field(), f.expected(), f.found(),
            f.detail(), e);
    }
}
