package io.seglog.storage.checkpoint;

/**
 * Converts one checkpoint entry to and from its line (without the line terminator).
 *
 * <p>Lines are printable ASCII; {@link CheckpointFile} rejects anything else on both write and read.
 * Implementations are stateless and thread-safe.
 *
 * @param <T> the entry type
 */
interface CheckpointEntryFormat<T> {
    /**
     * Appends an entry's line, without a line terminator.
     *
     * @param entry the entry
     * @param out   where the line goes
     * @throws IllegalArgumentException if the entry cannot be represented
     */
    void format(T entry, StringBuilder out);

    /**
     * Parses one line.
     *
     * @param line the line, without its terminator, printable ASCII
     * @return the entry
     * @throws IllegalArgumentException naming the field and the value when the line is malformed; the reader
     *                                  turns it into a {@link CorruptCheckpointException} naming file and line
     */
    T parse(String line);
}
