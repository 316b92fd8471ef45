package io.seglog.storage.checkpoint;

import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A checkpoint file in Kafka's text format, written atomically and read strictly.
 *
 * <pre>
 * line 1      version       decimal int, must equal the version this file was built with
 * line 2      count         decimal int &gt;= 0, the number of entry lines that follow
 * line 3..    entry         one per line, as {@link CheckpointEntryFormat} writes it
 * </pre>
 * Every line ends with {@code '\n'} ({@code "\r\n"} is also read, since Kafka on Windows writes it) and
 * holds printable ASCII only. Kafka's files have no checksum; neither do ours, so that each side reads the
 * other's.
 *
 * <p><b>Write</b> ({@link #write}): the whole content goes to {@code <name>.tmp} in the same directory, which is
 * fsynced, atomically renamed over {@code <name>}, and then the directory is fsynced, so after a crash the
 * file holds either the previous or the new content, never a mix. Every step goes through {@link FileIO}. A
 * failed fsync (of the file or of the directory) is never retried: the page cache may have dropped the dirty
 * pages and a second fsync could report success without the data (fsyncgate). After one, this instance
 * refuses every further write and the caller must take the log directory offline.
 *
 * <p><b>Read</b> ({@link #read}): a missing file and an empty (zero-byte) file both read as no entries
 * (Kafka's {@code CheckpointFile} creates an empty file when it is constructed). Anything else that is not
 * exactly the format above is a {@link CorruptCheckpointException} naming the path and the line: wrong
 * version, malformed number or entry, fewer entry lines than the count, data after the last entry, a last
 * line with no terminator. Memory is bounded by the file size, which is checked against a limit before
 * anything is read; the count line is never used to size an allocation beyond what the file can hold.
 *
 * <p>Thread-safe: reads and writes of one instance are serialised. Two instances on one path, or two
 * processes, must not write concurrently (the log directory lock prevents the latter).
 *
 * @param <T> the entry type
 */
final class CheckpointFile<T> {
    /** Suffix of the temporary file that {@link #write} fills before renaming it over the checkpoint. */
    public static final String TEMP_SUFFIX = ".tmp";

    /**
     * Default largest file {@link #read} accepts. The largest checkpoint Kafka writes has one line of at
     * most ~290 bytes per partition in a log directory; 64 MiB covers over 200,000 partitions with the longest
     * topic names, while a corrupt multi-gigabyte file is refused before it is read into memory.
     */
    public static final int DEFAULT_MAX_FILE_BYTES = 64 << 20;

    /** Shortest possible entry line ({@code "x\n"}): bounds the list capacity taken from the count line. */
    private static final int MIN_ENTRY_LINE_BYTES = 2;
    /** Longest part of an offending line quoted in an error message. */
    private static final int MAX_QUOTED_CHARS = 80;

    private final FileIO io;
    private final Path file;
    private final Path tempFile;
    private final int version;
    private final CheckpointEntryFormat<T> format;
    private final int maxFileBytes;
    private final Object lock = new Object();
    private final AtomicFileWriter writer;

    /**
     * Creates a handle on a checkpoint file with the default size limit. Touches no file.
     *
     * @param io      the file I/O through which every access goes
     * @param file    the checkpoint file
     * @param version the format version written on line 1 and required on read
     * @param format  the entry format
     */
    public CheckpointFile(final FileIO io, final Path file, final int version, final CheckpointEntryFormat<T> format) {
        this(io, file, version, format, DEFAULT_MAX_FILE_BYTES);
    }

    /**
     * Creates a handle on a checkpoint file. Touches no file.
     *
     * @param io           the file I/O through which every access goes
     * @param file         the checkpoint file
     * @param version      the format version written on line 1 and required on read
     * @param format       the entry format
     * @param maxFileBytes the largest file {@link #read} accepts, at least 1
     * @throws IllegalArgumentException if {@code maxFileBytes} is less than 1 or the file has no parent
     */
    public CheckpointFile(final FileIO io, final Path file, final int version, final CheckpointEntryFormat<T> format,
                          final int maxFileBytes) {
        this.io = Objects.requireNonNull(io, "io");
        this.file = Objects.requireNonNull(file, "file").toAbsolutePath();
        this.format = Objects.requireNonNull(format, "format");
        if (maxFileBytes < 1) {
            throw new IllegalArgumentException("maxFileBytes=" + maxFileBytes + " must be >= 1");
        }
        if (this.file.getParent() == null) {
            throw new IllegalArgumentException("file=" + file + " has no parent directory");
        }
        this.tempFile = this.file.resolveSibling(this.file.getFileName() + TEMP_SUFFIX);
        this.version = version;
        this.maxFileBytes = maxFileBytes;
        this.writer = new AtomicFileWriter(io, this.file, tempFile, "checkpoint file");
    }

    /**
     * The checkpoint file.
     *
     * @return its absolute path
     */
    public Path file() {
        return file;
    }

    /**
     * The temporary file used by {@link #write}; a leftover one after a crash is garbage.
     *
     * @return its absolute path
     */
    public Path tempFile() {
        return tempFile;
    }

    /**
     * The format version.
     *
     * @return the version written on line 1
     */
    public int version() {
        return version;
    }

    /**
     * Replaces the file's content with these entries, atomically and durably (see the class comment).
     *
     * @param entries the entries, in the order they are written
     * @throws IOException              if a step fails; the file then holds its previous content (or, when only
     *                                  the directory fsync failed, possibly the new one), and after a failed fsync
     *                                  this instance refuses further writes
     * @throws IllegalArgumentException if an entry's line would not be printable ASCII
     */
    public void write(final Collection<? extends T> entries) throws IOException {
        final byte[] content = encode(entries);
        synchronized (lock) {
            writer.write(content);
        }
    }

    private byte[] encode(final Collection<? extends T> entries) {
        final StringBuilder body = new StringBuilder(entries.size() * 32);
        int count = 0;
        for (final T entry : entries) {
            final int start = body.length();
            format.format(Objects.requireNonNull(entry, "entry"), body);
            for (int i = start; i < body.length(); i++) {
                final char c = body.charAt(i);
                if (c < 0x20 || c > 0x7e) {
                    throw new IllegalArgumentException("entry " + count + " of checkpoint " + file
                        + " has a character that is not printable ASCII (0x" + Integer.toHexString(c) + ") at index "
                        + (i - start) + ": " + entry);
                }
            }
            body.append('\n');
            count++;
        }
        // The count is taken from the entries actually written, never from a size() that could disagree.
        final String header = version + "\n" + count + "\n";
        return (header + body).getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Reads the entries.
     *
     * @return the entries in file order; empty when the file is missing or has zero bytes
     * @throws CorruptCheckpointException naming the path and line when the content breaks the format
     * @throws IOException                if the file cannot be read
     */
    public List<T> read() throws IOException {
        synchronized (lock) {
            final byte[] content;
            try (FileChannel channel = io.open(file, Set.of(StandardOpenOption.READ))) {
                content = readFully(channel);
            } catch (final NoSuchFileException e) {
                return new ArrayList<>();
            }
            return parse(content);
        }
    }

    private byte[] readFully(final FileChannel channel) throws IOException {
        final long size = channel.size();
        if (size > maxFileBytes) {
            throw new CorruptCheckpointException(file, CorruptCheckpointException.WHOLE_FILE,
                "file size=" + size + " bytes exceeds the limit of " + maxFileBytes + " bytes");
        }
        final byte[] content = new byte[(int) size];
        final ByteBuffer buffer = ByteBuffer.wrap(content);
        while (buffer.hasRemaining()) {
            if (channel.read(buffer) < 0) {
                throw new CorruptCheckpointException(file, CorruptCheckpointException.WHOLE_FILE,
                    "file shrank while being read: size=" + size + " bytes, read=" + buffer.position() + " bytes");
            }
        }
        return content;
    }

    private List<T> parse(final byte[] content) {
        if (content.length == 0) {
            return new ArrayList<>();
        }
        final LineReader lines = new LineReader(content);
        final int readVersion = parseHeader(lines, "version");
        if (readVersion != version) {
            throw new CorruptCheckpointException(file, 1, "version=" + readVersion + ", expected=" + version);
        }
        final int count = parseHeader(lines, "count");
        if (count < 0) {
            throw new CorruptCheckpointException(file, 2, "count=" + count + " must be >= 0");
        }
        // Never trust the count for an allocation: the file can hold at most remaining/2 entry lines.
        final List<T> entries = new ArrayList<>(Math.min(count, lines.remaining() / MIN_ENTRY_LINE_BYTES));
        for (int i = 0; i < count; i++) {
            if (!lines.hasMore()) {
                throw new CorruptCheckpointException(file, lines.lineNumber() + 1,
                    "count=" + count + " but the file ends after " + i + " entries");
            }
            final String line = lines.next();
            try {
                entries.add(format.parse(line));
            } catch (final IllegalArgumentException e) {
                throw new CorruptCheckpointException(file, lines.lineNumber(),
                    "malformed entry '" + quote(line) + "': " + e.getMessage(), e);
            }
        }
        if (lines.hasMore()) {
            throw new CorruptCheckpointException(file, lines.lineNumber() + 1,
                "unexpected data after the last of count=" + count + " entries");
        }
        return entries;
    }

    private int parseHeader(final LineReader lines, final String field) {
        if (!lines.hasMore()) {
            throw new CorruptCheckpointException(file, lines.lineNumber() + 1, "missing " + field + " line");
        }
        final String line = lines.next();
        try {
            return CheckpointFields.parseInt(line, field);
        } catch (final IllegalArgumentException e) {
            throw new CorruptCheckpointException(file, lines.lineNumber(), e.getMessage(), e);
        }
    }

    private static String quote(final String line) {
        return line.length() <= MAX_QUOTED_CHARS ? line : line.substring(0, MAX_QUOTED_CHARS) + "...";
    }

    /**
     * Deletes a temporary file left by a write that crashed before its rename; call it when the log
     * directory is opened.
     *
     * @return whether a temporary file was deleted
     * @throws IOException if it exists and cannot be deleted
     */
    public boolean deleteStaleTempFile() throws IOException {
        synchronized (lock) {
            return io.deleteIfExists(tempFile);
        }
    }

    @Override
    public String toString() {
        return "CheckpointFile(" + file + ", version=" + version + ")";
    }

    /** Splits the content into lines, validating terminators and characters. Not thread-safe. */
    private final class LineReader {
        private final byte[] content;
        private int position;
        private int lineNumber;

        LineReader(final byte[] content) {
            this.content = content;
        }

        boolean hasMore() {
            return position < content.length;
        }

        int remaining() {
            return content.length - position;
        }

        int lineNumber() {
            return lineNumber;
        }

        String next() {
            lineNumber++;
            final int start = position;
            int end = start;
            while (end < content.length && content[end] != '\n') {
                end++;
            }
            if (end == content.length) {
                throw new CorruptCheckpointException(file, lineNumber,
                    "line is not terminated by a newline (truncated file?)");
            }
            position = end + 1;
            if (end > start && content[end - 1] == '\r') {
                end--;
            }
            for (int i = start; i < end; i++) {
                final int b = content[i] & 0xff;
                if (b < 0x20 || b > 0x7e) {
                    throw new CorruptCheckpointException(file, lineNumber, "byte 0x" + Integer.toHexString(b)
                        + " at column " + (i - start + 1) + " is not printable ASCII");
                }
            }
            return new String(content, start, end - start, StandardCharsets.US_ASCII);
        }
    }
}
