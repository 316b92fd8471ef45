package io.seglog.storage.segment;

import io.seglog.storage.index.IndexDescriptor;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.agrona.collections.LongArrayList;

/**
 * Names of a segment's files, as Kafka names them ({@code LogFileUtils}): the base offset in 20 decimal
 * digits, so names sort in offset order, plus {@code .log}, {@code .index} or {@code .timeindex}.
 *
 * <p>Thread-safety: stateless.
 */
public final class SegmentFiles {
    /** Suffix of the data file. */
    public static final String LOG_SUFFIX = ".log";
    /** Suffix of the offset index; the index format's descriptor owns it. */
    public static final String INDEX_SUFFIX = IndexDescriptor.OFFSET_INDEX_SUFFIX;
    /** Suffix of the time index; the index format's descriptor owns it. */
    public static final String TIME_INDEX_SUFFIX = IndexDescriptor.TIME_INDEX_SUFFIX;
    /** Suffix of a segment's aborted-transaction index. */
    public static final String TXN_INDEX_SUFFIX = io.seglog.storage.index.TransactionIndex.SUFFIX;
    /**
     * Suffix of a producer-state snapshot, {@code <offset>.snapshot} (the producer package owns its format; the
     * segment layer lists them, since a snapshot's offset is a log end the log once had).
     */
    public static final String SNAPSHOT_SUFFIX = ".snapshot";
    /** Digits of the base offset in file names: Kafka pads to 20, enough for any non-negative long. */
    public static final int FILE_NAME_DIGITS = 20;

    private SegmentFiles() {
    }

    /**
     * The name of a segment file.
     *
     * @param baseOffset the segment's base offset, 0 or more
     * @param suffix     {@link #LOG_SUFFIX}, {@link #INDEX_SUFFIX} or {@link #TIME_INDEX_SUFFIX}
     * @return e.g. {@code 00000000000000000042.log}
     */
    public static String fileName(final long baseOffset, final String suffix) {
        final String digits = Long.toString(baseOffset);
        final StringBuilder name = new StringBuilder(FILE_NAME_DIGITS + suffix.length());
        for (int i = digits.length(); i < FILE_NAME_DIGITS; i++) {
            name.append('0');
        }
        return name.append(digits).append(suffix).toString();
    }

    /**
     * Parses a segment data file name.
     *
     * @param fileName a file name (no directory)
     * @return the base offset, or -1 when the name is not {@code <20 digits>.log}
     */
    public static long parseBaseOffset(final String fileName) {
        if (fileName.length() != FILE_NAME_DIGITS + LOG_SUFFIX.length() || !fileName.endsWith(LOG_SUFFIX)) {
            return -1;
        }
        for (int i = 0; i < FILE_NAME_DIGITS; i++) {
            final char c = fileName.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
        }
        try {
            return Long.parseLong(fileName, 0, FILE_NAME_DIGITS, 10);
        } catch (final NumberFormatException tooLarge) {
            return -1;
        }
    }

    /**
     * The offsets named by the files of a directory that end in {@code suffix} ({@code <20 digits><suffix>}),
     * ascending; other names are ignored.
     *
     * @param dir    the directory
     * @param suffix e.g. {@link #LOG_SUFFIX} or {@link #SNAPSHOT_SUFFIX}
     * @return the offsets
     * @throws IOException if the directory cannot be listed
     */
    public static long[] listOffsets(final Path dir, final String suffix) throws IOException {
        final LongArrayList found = new LongArrayList();
        // Listing is metadata, not file access; FileIO has no call for it.
        try (DirectoryStream<Path> files =
                 Files.newDirectoryStream(dir, "*" + suffix)) {
            for (final Path file : files) {
                final String name = file.getFileName().toString();
                if (name.length() == FILE_NAME_DIGITS + suffix.length()) {
                    final long offset = parseBaseOffset(name.substring(0, FILE_NAME_DIGITS) + LOG_SUFFIX);
                    if (offset >= 0) {
                        found.addLong(offset);
                    }
                }
            }
        }
        final long[] offsets = found.toLongArray();
        Arrays.sort(offsets);
        return offsets;
    }
}
