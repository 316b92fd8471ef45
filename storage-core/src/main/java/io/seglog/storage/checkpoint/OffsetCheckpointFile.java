package io.seglog.storage.checkpoint;

import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A per-log-directory file of one offset per partition, in Kafka's format:
 * <pre>
 * 0                       version
 * 2                       number of entries
 * orders 0 1200           &lt;topic&gt; &lt;partition&gt; &lt;offset&gt;, single spaces
 * orders 1 977
 * </pre>
 * Kafka keeps three such files in each log directory, and so do we:
 * <ul>
 *   <li>{@value #RECOVERY_POINT_FILE}: the offset below which every partition's log is known to be flushed.
 *       <b>Fallback</b> when missing or corrupt: recovery point 0 for every partition, so recovery rescans
 *       every segment (slow, never unsafe).</li>
 *   <li>{@value #REPLICATION_FILE}: the high watermark of each partition. <b>Fallback</b> when missing or
 *       corrupt: 0 (or the log start offset); a high watermark read from it is always clamped to the log end
 *       offset, since the log may have lost an unflushed tail that the high watermark covered.</li>
 *   <li>{@value #LOG_START_FILE}: the log start offset of partitions whose start is above their first
 *       segment's base offset (after DeleteRecords or retention). <b>Fallback</b>: the first segment's base
 *       offset, which may re-expose records that were deleted logically but not yet physically.</li>
 * </ul>
 * The fallbacks are applied by the callers; this class only reads and writes. Strict reading (see
 * {@code CheckpointFile}) adds: the topic must satisfy Kafka's topic rules, partition and offset must be
 * zero or more, and a partition may appear only once.
 *
 * <p>Thread-safe.
 */
public final class OffsetCheckpointFile {
    /** Format version Kafka writes and reads. */
    public static final int CURRENT_VERSION = 0;
    /** Name of the recovery-point checkpoint in a log directory. */
    public static final String RECOVERY_POINT_FILE = "recovery-point-offset-checkpoint";
    /** Name of the high-watermark checkpoint in a log directory. */
    public static final String REPLICATION_FILE = "replication-offset-checkpoint";
    /** Name of the log-start-offset checkpoint in a log directory. */
    public static final String LOG_START_FILE = "log-start-offset-checkpoint";

    /** Number of lines before the first entry (version, count): entry i is on line i + 3. */
    private static final int HEADER_LINES = 2;
    private static final Comparator<PartitionKey> ORDER =
        Comparator.comparing(PartitionKey::topic).thenComparingInt(PartitionKey::partition);

    private final CheckpointFile<Map.Entry<PartitionKey, Long>> checkpoint;

    /**
     * Creates a handle on an offset checkpoint file. Touches no file.
     *
     * @param io   the file I/O
     * @param file the file, usually {@code logDir.resolve(RECOVERY_POINT_FILE)} or one of the other names
     */
    public OffsetCheckpointFile(final FileIO io, final Path file) {
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
     * Replaces the file's content atomically and durably, entries sorted by topic then partition.
     *
     * @param offsets the offset of each partition, each zero or more
     * @throws IOException              if a step fails (see {@code CheckpointFile.write})
     * @throws IllegalArgumentException naming the partition and value if an offset is negative or null
     */
    public void write(final Map<PartitionKey, Long> offsets) throws IOException {
        final List<Map.Entry<PartitionKey, Long>> entries = new ArrayList<>(offsets.size());
        for (final Map.Entry<PartitionKey, Long> entry : offsets.entrySet()) {
            final Long offset = entry.getValue();
            if (offset == null || offset < 0) {
                throw new IllegalArgumentException("offset=" + offset + " of " + entry.getKey() + " must be >= 0");
            }
            entries.add(Map.entry(Objects.requireNonNull(entry.getKey(), "partition"), offset));
        }
        entries.sort(Map.Entry.comparingByKey(ORDER));
        checkpoint.write(entries);
    }

    /**
     * Reads the offsets.
     *
     * @return a new mutable map, in file order; empty when the file is missing or has zero bytes
     * @throws CorruptCheckpointException naming path and line when the content breaks the format, including a
     *                                    partition listed twice
     * @throws IOException                if the file cannot be read
     */
    public Map<PartitionKey, Long> read() throws IOException {
        final List<Map.Entry<PartitionKey, Long>> entries = checkpoint.read();
        final Map<PartitionKey, Long> offsets = new LinkedHashMap<>(entries.size() * 2);
        final Map<PartitionKey, Integer> lines = new HashMap<>(entries.size() * 2);
        for (int i = 0; i < entries.size(); i++) {
            final Map.Entry<PartitionKey, Long> entry = entries.get(i);
            final int line = i + 1 + HEADER_LINES;
            final Integer firstLine = lines.putIfAbsent(entry.getKey(), line);
            if (firstLine != null) {
                throw new CorruptCheckpointException(checkpoint.file(), line,
                    "duplicate entry for partition " + entry.getKey() + " (first at line " + firstLine + ")");
            }
            offsets.put(entry.getKey(), entry.getValue());
        }
        return offsets;
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

    @Override
    public String toString() {
        return "OffsetCheckpointFile(" + checkpoint.file() + ")";
    }

    /** {@code <topic> <partition> <offset>}. Stateless. */
    private enum Format implements CheckpointEntryFormat<Map.Entry<PartitionKey, Long>> {
        INSTANCE;

        @Override
        public void format(final Map.Entry<PartitionKey, Long> entry, final StringBuilder out) {
            out.append(entry.getKey().topic()).append(' ').append(entry.getKey().partition())
                .append(' ').append(entry.getValue().longValue());
        }

        @Override
        public Map.Entry<PartitionKey, Long> parse(final String line) {
            final String[] fields = CheckpointFields.split(line, 3, "<topic> <partition> <offset>");
            final int partition = CheckpointFields.parseNonNegativeInt(fields[1], "partition");
            final long offset = CheckpointFields.parseNonNegativeLong(fields[2], "offset");
            return Map.entry(new PartitionKey(fields[0], partition), offset);
        }
    }
}
