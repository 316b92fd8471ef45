package io.seglog.storage.checkpoint;

import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;

/**
 * A partition's leader-epoch checkpoint ({@value #FILE_NAME} in the partition directory), Kafka's format:
 * <pre>
 * 0                       version
 * 2                       number of entries
 * 0 0                     &lt;epoch&gt; &lt;startOffset&gt;, single space
 * 3 1200
 * </pre>
 * Entries are in increasing epoch order and increasing start-offset order; strict reading (see
 * {@code CheckpointFile}) rejects a file that breaks either order, a negative value or an epoch above
 * {@link Integer#MAX_VALUE}.
 *
 * <p><b>Fallback</b> when missing or corrupt (applied by the caller): start with an empty cache and rebuild
 * it from the {@code partitionLeaderEpoch} of the batches while the log is recovered, as Kafka does for a
 * segment it recovers. Entries at or beyond the log end offset after recovery are stale and the caller
 * removes them with {@code truncateFromEnd(logEndOffset)}.
 *
 * <p>Thread-safe.
 */
public final class LeaderEpochCheckpointFile {
    /** Format version Kafka writes and reads. */
    public static final int CURRENT_VERSION = 0;
    /** Name of the file in a partition directory. */
    public static final String FILE_NAME = "leader-epoch-checkpoint";

    /** Number of lines before the first entry (version, count): entry i is on line i + 3. */
    private static final int HEADER_LINES = 2;

    private final CheckpointFile<EpochEntry> checkpoint;

    /**
     * Creates a handle on a leader-epoch checkpoint. Touches no file.
     *
     * @param io   the file I/O
     * @param file the file, usually {@code partitionDir.resolve(FILE_NAME)}
     */
    public LeaderEpochCheckpointFile(final FileIO io, final Path file) {
        this.checkpoint = new CheckpointFile<>(io, file, CURRENT_VERSION, Format.INSTANCE);
    }

    /**
     * The checkpoint file.
     *
     * @return its absolute path
     */
    public Path file() {
        return checkpoint.file();
    }

    /**
     * Replaces the file's content atomically and durably.
     *
     * @param entries the entries in increasing epoch and start-offset order
     * @throws IOException              if a step fails (see {@code CheckpointFile.write})
     * @throws IllegalArgumentException naming both entries if the order is broken
     */
    public void write(final Collection<EpochEntry> entries) throws IOException {
        EpochEntry previous = null;
        for (final EpochEntry entry : entries) {
            if (previous != null && !inOrder(previous, entry)) {
                throw new IllegalArgumentException("leader epoch entries out of order: " + previous + " then " + entry);
            }
            previous = entry;
        }
        checkpoint.write(entries);
    }

    /**
     * Reads the entries.
     *
     * @return the entries in file order; empty when the file is missing or has zero bytes
     * @throws CorruptCheckpointException naming path and line when the content breaks the format or the order
     * @throws IOException                if the file cannot be read
     */
    public List<EpochEntry> read() throws IOException {
        final List<EpochEntry> entries = checkpoint.read();
        for (int i = 1; i < entries.size(); i++) {
            if (!inOrder(entries.get(i - 1), entries.get(i))) {
                throw new CorruptCheckpointException(checkpoint.file(), i + 1 + HEADER_LINES,
                    "entry " + entries.get(i) + " does not follow " + entries.get(i - 1)
                        + " (epochs and start offsets must both increase)");
            }
        }
        return entries;
    }

    /**
     * Deletes a temporary file left by a crashed write.
     *
     * @return whether one was deleted
     * @throws IOException if it cannot be deleted
     */
    public boolean deleteStaleTempFile() throws IOException {
        return checkpoint.deleteStaleTempFile();
    }

    private static boolean inOrder(final EpochEntry previous, final EpochEntry next) {
        return next.epoch() > previous.epoch() && next.startOffset() > previous.startOffset();
    }

    @Override
    public String toString() {
        return "LeaderEpochCheckpointFile(" + checkpoint.file() + ")";
    }

    /** {@code <epoch> <startOffset>}. Stateless. */
    private enum Format implements CheckpointEntryFormat<EpochEntry> {
        INSTANCE;

        @Override
        public void format(final EpochEntry entry, final StringBuilder out) {
            out.append(entry.epoch()).append(' ').append(entry.startOffset());
        }

        @Override
        public EpochEntry parse(final String line) {
            final String[] fields = CheckpointFields.split(line, 2, "<epoch> <startOffset>");
            return new EpochEntry(CheckpointFields.parseNonNegativeInt(fields[0], "epoch"),
                CheckpointFields.parseNonNegativeLong(fields[1], "startOffset"));
        }
    }
}
