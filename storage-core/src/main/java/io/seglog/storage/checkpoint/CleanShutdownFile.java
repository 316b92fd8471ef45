package io.seglog.storage.checkpoint;

import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The clean-shutdown marker of a log directory, Kafka's {@value #FILE_NAME}: its presence when the directory
 * is opened means every log in it was flushed and closed, so recovery can be skipped.
 *
 * <p>Content (Kafka 3.7+, KIP-966): {@code {"version":0,"brokerEpoch":N}}, the epoch of the broker that shut
 * down cleanly. Older Kafka wrote an empty file. Only the file's existence decides whether recovery runs;
 * the content is read leniently and never fails the open.
 *
 * <p>Protocol: {@link #write} is the last step of a clean shutdown, after every log and checkpoint is flushed;
 * it writes atomically (temp file, fsync, rename, fsync of the directory). {@link #consume} is the first step
 * of opening the directory: it reads the marker and deletes it durably before any log is touched, so a crash
 * while loading forces recovery on the next open (Kafka's
 * {@code LogLoaderTest#testLogRecoveryIsCalledUponBrokerCrash}).
 *
 * <p>Thread-safe (stateless apart from the path).
 */
public final class CleanShutdownFile {
    /** Name of the marker in a log directory, as Kafka names it. */
    public static final String FILE_NAME = ".kafka_cleanshutdown";
    /** Version written in the JSON content. */
    public static final int CURRENT_VERSION = 0;
    /** Largest content read; a larger marker still counts as present, its content is ignored. */
    private static final int MAX_CONTENT_BYTES = 4096;

    private final FileIO io;
    private final Path directory;
    private final Path file;
    private final Path tempFile;
    private final AtomicFileWriter writer;

    /**
     * Creates a handle on the marker of a log directory. Touches no file.
     *
     * @param io        the file I/O
     * @param directory the log directory
     */
    public CleanShutdownFile(final FileIO io, final Path directory) {
        this.io = Objects.requireNonNull(io, "io");
        this.directory = Objects.requireNonNull(directory, "directory").toAbsolutePath();
        this.file = this.directory.resolve(FILE_NAME);
        this.tempFile = this.directory.resolve(FILE_NAME + CheckpointFile.TEMP_SUFFIX);
        this.writer = new AtomicFileWriter(io, file, tempFile, "clean shutdown marker");
    }

    /**
     * The marker file.
     *
     * @return its absolute path
     */
    public Path file() {
        return file;
    }

    /**
     * Writes the marker durably; call it last on a clean shutdown.
     *
     * @param brokerEpoch the broker epoch to record (KIP-966), or -1 when there is none
     * @throws IOException if a step fails; the marker is then absent or not durable, and the next open recovers.
     *                     After a failed fsync every later write fails too (a failed fsync is never retried: the
     *                     data the marker vouches for may be lost, so no marker may claim a clean shutdown)
     */
    public void write(final long brokerEpoch) throws IOException {
        final byte[] content = ("{\"version\":" + CURRENT_VERSION + ",\"brokerEpoch\":" + brokerEpoch + "}")
            .getBytes(StandardCharsets.US_ASCII);
        writer.write(content);
    }

    /**
     * Reads the marker and deletes it durably (the delete and a directory fsync); call it first when the
     * log directory is opened. A leftover temporary marker from a crashed {@link #write} is deleted too and
     * does not count.
     *
     * @return whether the previous shutdown was clean, and the broker epoch it recorded if readable
     * @throws IOException if the marker exists but cannot be deleted, or the directory cannot be synced
     */
    public Marker consume() throws IOException {
        final Marker marker = read();
        final boolean deletedTemp = io.deleteIfExists(tempFile);
        final boolean deleted = marker.present() && io.deleteIfExists(file);
        if (deleted || deletedTemp) {
            io.fsyncDirectory(directory);
        }
        return marker;
    }

    /**
     * Reads the marker without deleting it. Lenient: an empty, oversized or unparsable content gives a
     * present marker with no broker epoch.
     *
     * @return the marker
     * @throws IOException if the file exists but cannot be read
     */
    public Marker read() throws IOException {
        final byte[] content;
        try (FileChannel channel = io.open(file, Set.of(StandardOpenOption.READ))) {
            final long size = channel.size();
            if (size > MAX_CONTENT_BYTES) {
                return new Marker(true, OptionalLong.empty());
            }
            final ByteBuffer buffer = ByteBuffer.allocate((int) size);
            while (buffer.hasRemaining() && channel.read(buffer) >= 0) {
                // Reads until full or end of file; a shorter file is parsed as it is.
            }
            content = new byte[buffer.position()];
            buffer.flip().get(content);
        } catch (final NoSuchFileException e) {
            return new Marker(false, OptionalLong.empty());
        }
        return new Marker(true, brokerEpoch(new String(content, StandardCharsets.UTF_8)));
    }

    /**
     * Extracts {@code "brokerEpoch": <long>} from a JSON object without a JSON library; anything unexpected
     * gives an empty result, as Kafka's reader does.
     */
    static OptionalLong brokerEpoch(final String json) {
        final String key = "\"brokerEpoch\"";
        final int keyAt = json.indexOf(key);
        if (keyAt < 0) {
            return OptionalLong.empty();
        }
        int i = skipBlanks(json, keyAt + key.length());
        if (i >= json.length() || json.charAt(i) != ':') {
            return OptionalLong.empty();
        }
        i = skipBlanks(json, i + 1);
        int end = i;
        if (end < json.length() && json.charAt(end) == '-') {
            end++;
        }
        while (end < json.length() && Character.isDigit(json.charAt(end)) && json.charAt(end) < 128) {
            end++;
        }
        final int next = skipBlanks(json, end);
        if (next >= json.length() || (json.charAt(next) != ',' && json.charAt(next) != '}')) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(CheckpointFields.parseLong(json.substring(i, end), "brokerEpoch"));
        } catch (final IllegalArgumentException e) {
            return OptionalLong.empty();
        }
    }

    private static int skipBlanks(final String text, final int from) {
        int i = from;
        while (i < text.length() && Character.isWhitespace(text.charAt(i))) {
            i++;
        }
        return i;
    }

    @Override
    public String toString() {
        return "CleanShutdownFile(" + file + ")";
    }

    /**
     * What the marker said.
     *
     * @param present     whether the marker existed, i.e. the previous shutdown was clean
     * @param brokerEpoch the broker epoch it recorded, empty when absent, unreadable or {@code null}
     */
    public record Marker(boolean present, OptionalLong brokerEpoch) {
        /**
         * Validates the fields.
         *
         * @param present     whether the marker existed
         * @param brokerEpoch the broker epoch
         */
        public Marker {
            Objects.requireNonNull(brokerEpoch, "brokerEpoch");
        }
    }
}
