package io.seglog.storage.segment;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A segment's bytes contradict its format or the log around it: a batch length that does not fit the file, a
 * record that does not fit its batch, or (from a recovery scan) an invalid batch that a crash cannot explain.
 * Checked, like the {@link IOException} it extends, so that every caller decides what damage means for it; the
 * partition log turns it into its public corruption or storage error with the same facts. The message leaves the
 * file out; {@link #file()} names it.
 *
 * <p>Immutable.
 */
public final class CorruptSegmentException extends IOException {
    private static final long serialVersionUID = 1L;

    /** The facts of a recovery scan's finding; null for a damage found by a read. */
    private final transient Finding finding;
    private final transient Path file;

    /**
     * The field-by-field facts of an invalid batch that recovery found.
     *
     * @param position byte position of the batch in the file
     * @param offset   the offset the batch should start at
     * @param field    the batch field that failed
     * @param expected what the field should hold
     * @param found    what it holds
     * @param detail   why this is corruption and not a torn tail
     */
    public record Finding(long position, long offset, String field, String expected, String found, String detail) {
    }

    /**
     * Damage found by a read.
     *
     * @param message what is wrong, with positions and lengths
     * @param file    the data file
     */
    public CorruptSegmentException(final String message, final Path file) {
        super(message);
        this.file = file;
        this.finding = null;
    }

    /**
     * Corruption found by a recovery scan.
     *
     * @param file    the data file
     * @param finding the facts
     */
    public CorruptSegmentException(final Path file, final Finding finding) {
        super("corrupt log: " + finding.field() + " of the batch at position=" + finding.position() + " (offset="
            + finding.offset() + "): expected " + finding.expected() + ", found " + finding.found() + "; "
            + finding.detail());
        this.file = file;
        this.finding = finding;
    }

    /**
     * The data file.
     *
     * @return the file
     */
    public Path file() {
        return file;
    }

    /**
     * What a recovery scan found.
     *
     * @return the facts, or null for damage found by a read
     */
    public Finding finding() {
        return finding;
    }
}
