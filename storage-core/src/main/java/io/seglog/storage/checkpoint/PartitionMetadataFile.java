package io.seglog.storage.checkpoint;

import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Base64;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * A partition directory's {@value #FILE_NAME}, Kafka's {@code PartitionMetadataFile} (KIP-516): the id of the topic
 * the directory belongs to, so that a directory left over from a deleted topic is never taken for a new topic of
 * the same name.
 *
 * <pre>
 * line 1   version: 0                       "version", ':', blanks, a decimal int
 * line 2   topic_id: AAAAAAAAAAAAAAAAAAAAAQ  "topic_id", ':', blanks, 16 bytes in URL-safe base64 without padding
 * </pre>
 * As Kafka writes it, the second line has no terminator ({@code "version: 0\ntopic_id: <id>"}); a final
 * {@code '\n'} or {@code "\r\n"} is read too. Version history: 0 (Kafka 2.8, KIP-516), the only one. Like Kafka's
 * reader, a higher version is read for its first two lines (Kafka's downgrade rule); at version 0 nothing may follow
 * the id.
 *
 * <p>Integrity: no checksum (Kafka's has none); the content is validated: the keys, a version of 0 or more, an id
 * that decodes to 16 bytes and is not the zero id, at most {@value #MAX_FILE_BYTES} bytes. Anything else is a
 * {@link CorruptCheckpointException} naming the file and the line. A missing file is "no id yet".
 *
 * <p>Write: temp file, fsync, rename, fsync of the directory ({@link AtomicFileWriter}), once per directory: the id
 * never changes. {@link #assign} of the id already held is a no-op; another id is refused ({@link Outcome#CONFLICT}).
 * Ids are {@link UUID}s here (this package is below the API's {@code TopicId}); {@link #idToText} and
 * {@link #idFromText} are Kafka's {@code Uuid} text codec.
 *
 * <p>Thread-safe: {@link #topicId} is a volatile read; {@link #assign} is serialised.
 */
public final class PartitionMetadataFile {
    /** The file's name in a partition directory, as Kafka names it. */
    public static final String FILE_NAME = "partition.metadata";
    /** The version written. */
    public static final int CURRENT_VERSION = 0;
    /** Largest file read: the real one is 43 bytes; anything far larger is not this file. */
    static final int MAX_FILE_BYTES = 1024;
    /** Bytes of an id. */
    static final int ID_LENGTH = 16;
    private static final String VERSION_KEY = "version";
    private static final String TOPIC_ID_KEY = "topic_id";

    private final Path dir;
    private final Path file;
    private final AtomicFileWriter writer;
    private volatile UUID topicId;

    private PartitionMetadataFile(final FileIO io, final Path dir, final UUID topicId) {
        this.dir = dir;
        this.file = dir.resolve(FILE_NAME);
        this.writer = io == null ? null : new AtomicFileWriter(io, file, dir.resolve(FILE_NAME + CheckpointFile.TEMP_SUFFIX),
            "partition metadata file");
        this.topicId = topicId;
    }

    /**
     * Reads the file of a partition directory, if any.
     *
     * @param io       the file layer
     * @param dir      the partition directory
     * @param writable whether {@link #assign} may write (false for a read-only log)
     * @return the handle, holding the id read or none
     * @throws IOException                if the file exists but cannot be read
     * @throws CorruptCheckpointException naming the file and line when its content is not the format above
     */
    public static PartitionMetadataFile open(final FileIO io, final Path dir, final boolean writable)
        throws IOException {
        Objects.requireNonNull(io, "io");
        final Path file = Objects.requireNonNull(dir, "dir").resolve(FILE_NAME);
        final byte[] content;
        try (FileChannel channel = io.open(file, Set.of(StandardOpenOption.READ))) {
            final long size = channel.size();
            if (size > MAX_FILE_BYTES) {
                throw new CorruptCheckpointException(file, CorruptCheckpointException.WHOLE_FILE, "size=" + size
                    + " bytes exceeds " + MAX_FILE_BYTES + " (the file holds a version and a topic id)");
            }
            final ByteBuffer buffer = ByteBuffer.allocate((int) size);
            while (buffer.hasRemaining() && channel.read(buffer) >= 0) {
                // Reads until full or end of file.
            }
            content = new byte[buffer.position()];
            buffer.flip().get(content);
        } catch (final NoSuchFileException e) {
            return new PartitionMetadataFile(writable ? io : null, dir, null);
        }
        return new PartitionMetadataFile(writable ? io : null, dir, parse(file, content));
    }

    /**
     * The id the directory belongs to.
     *
     * @return the id, or empty when none was written yet
     */
    public Optional<UUID> topicId() {
        return Optional.ofNullable(topicId);
    }

    /**
     * Records the directory's topic id durably, the first time; afterwards only the same id is accepted.
     *
     * @param id the topic id, not a reserved one
     * @return what was done; {@link Outcome#CONFLICT} when the file holds another id
     * @throws IllegalArgumentException     for a reserved id
     * @throws IllegalStateException        when the handle was opened read-only
     * @throws IOException                  if the write fails (the file then holds nothing new; after a failed fsync
     *                                      every later write fails too)
     */
    public synchronized Outcome assign(final UUID id) throws IOException {
        Objects.requireNonNull(id, "id");
        if (id.getMostSignificantBits() == 0 && (id.getLeastSignificantBits() == 0 || id.getLeastSignificantBits() == 1)) {
            throw new IllegalArgumentException("topic id=" + idToText(id) + " for " + dir + " is reserved (zero or one)");
        }
        final UUID current = topicId;
        if (current != null) {
            return current.equals(id) ? Outcome.ALREADY_HELD : Outcome.CONFLICT;
        }
        if (writer == null) {
            throw new IllegalStateException(file + " is open read-only: topic id=" + idToText(id)
                + " cannot be written");
        }
        writer.write(encode(id));
        topicId = id;
        return Outcome.WRITTEN;
    }

    /** What {@link #assign} did. */
    public enum Outcome {
        /** The id was written now. */
        WRITTEN,
        /** The file already held this id; nothing was written. */
        ALREADY_HELD,
        /** The file holds another id ({@link #topicId()}); nothing was written. */
        CONFLICT
    }

    /**
     * Kafka's text of an id ({@code Uuid.toString}): the 16 big-endian bytes in URL-safe base64 without padding.
     *
     * @param id the id
     * @return 22 characters
     */
    public static String idToText(final UUID id) {
        final ByteBuffer bytes = ByteBuffer.allocate(ID_LENGTH).putLong(id.getMostSignificantBits())
            .putLong(id.getLeastSignificantBits());
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes.array());
    }

    /**
     * Parses Kafka's text of an id ({@code Uuid.fromString}).
     *
     * @param text URL-safe base64 of 16 bytes (padding allowed, as Kafka allows it)
     * @return the id
     * @throws IllegalArgumentException naming the text when it is not that
     */
    public static UUID idFromText(final String text) {
        Objects.requireNonNull(text, "text");
        if (text.length() > 24) {
            throw new IllegalArgumentException("topic id=" + quote(text) + " is too long for 16 bytes of base64");
        }
        final byte[] bytes;
        try {
            bytes = Base64.getUrlDecoder().decode(text);
        } catch (final IllegalArgumentException e) {
            throw new IllegalArgumentException("topic id=" + text + " is not URL-safe base64: " + e.getMessage(), e);
        }
        if (bytes.length != ID_LENGTH) {
            throw new IllegalArgumentException("topic id=" + text + " decodes to " + bytes.length + " bytes, not "
                + ID_LENGTH);
        }
        final ByteBuffer buffer = ByteBuffer.wrap(bytes);
        return new UUID(buffer.getLong(), buffer.getLong());
    }

    /**
     * The file's content for an id, as Kafka's {@code PartitionMetadata.encode} writes it.
     *
     * @param id the id
     * @return {@code "version: 0\ntopic_id: <id>"} in UTF-8
     */
    public static byte[] encode(final UUID id) {
        return (VERSION_KEY + ": " + CURRENT_VERSION + "\n" + TOPIC_ID_KEY + ": " + idToText(id))
            .getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Parses a file's content.
     *
     * @param file    the file, for messages
     * @param content its bytes
     * @return the id
     * @throws CorruptCheckpointException naming the file and line when the content is not the format above
     */
    static UUID parse(final Path file, final byte[] content) {
        final String text = new String(content, StandardCharsets.UTF_8);
        final String[] lines = text.split("\r?\n", -1);
        final int version;
        try {
            version = Integer.parseInt(value(file, lines, 0, VERSION_KEY));
        } catch (final NumberFormatException e) {
            throw new CorruptCheckpointException(file, 1, "version=" + quote(lines[0]) + " is not a decimal int", e);
        }
        if (version < CURRENT_VERSION) {
            throw new CorruptCheckpointException(file, 1, "version=" + version + " must be >= " + CURRENT_VERSION);
        }
        final String idText = value(file, lines, 1, TOPIC_ID_KEY);
        final UUID id;
        try {
            id = idFromText(idText);
        } catch (final IllegalArgumentException e) {
            throw new CorruptCheckpointException(file, 2, e.getMessage(), e);
        }
        if (id.getMostSignificantBits() == 0 && id.getLeastSignificantBits() == 0) {
            throw new CorruptCheckpointException(file, 2, "topic_id=" + idText + " is the zero id (no topic has it)");
        }
        // Version 0 is exactly two lines, the second optionally terminated; a later version may add lines.
        if (version == CURRENT_VERSION && (lines.length > 3 || lines.length == 3 && !lines[2].isEmpty())) {
            throw new CorruptCheckpointException(file, 3, "found " + quote(lines[2]) + " after the topic_id line");
        }
        return id;
    }

    /** The value of {@code key: value} on a line, with Kafka's separator (a colon and one or more blanks). */
    private static String value(final Path file, final String[] lines, final int index, final String key) {
        final int lineNumber = index + 1;
        if (index >= lines.length) {
            throw new CorruptCheckpointException(file, lineNumber, "missing; expected '" + key + ": ...'");
        }
        final String line = lines[index];
        final String prefix = key + ":";
        int at = prefix.length();
        if (!line.startsWith(prefix) || at >= line.length() || !Character.isWhitespace(line.charAt(at))) {
            throw new CorruptCheckpointException(file, lineNumber, "found " + quote(line) + ", expected '" + key
                + ": ...'");
        }
        while (at < line.length() && Character.isWhitespace(line.charAt(at))) {
            at++;
        }
        return line.substring(at);
    }

    private static String quote(final String line) {
        return "'" + (line.length() > 60 ? line.substring(0, 60) + "..." : line) + "'";
    }

    @Override
    public String toString() {
        final UUID id = topicId;
        return "PartitionMetadataFile(" + file + ", topicId=" + (id == null ? "none" : idToText(id)) + ")";
    }
}
