package io.seglog.storage.segment;

import io.seglog.storage.LogConfig;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Finds the segments of a partition directory and opens them in offset order: every
 * {@code <20 digits>.log} file is a segment; other files ({@code .deleted}, {@code .cleaned}, {@code .swap},
 * checkpoints) are left alone.
 *
 * <p>This is the clean-shutdown path and the seam for crash recovery (issue 3): recovery will run between
 * listing and opening, on the segments at or above the recovery point, truncating a torn tail with
 * {@link io.seglog.storage.format.RecordBatchValidator#checkBatch} and rebuilding indexes with
 * {@link LogSegment#rebuildIndexes(ByteBuffer)}. Today a segment whose index files are missing has them
 * rebuilt, and a partial batch at the end of a file fails the open with an error naming file and position.
 *
 * <p>Thread-safety: stateless.
 */
public final class LogLoader {
    private LogLoader() {
    }

    /**
     * The base offsets of the segment data files in a directory, ascending.
     *
     * @param dir the partition directory
     * @return the base offsets
     * @throws IOException if the directory cannot be listed
     */
    public static long[] listBaseOffsets(final Path dir) throws IOException {
        final List<Long> found = new ArrayList<>();
        // Listing is metadata, not file access; FileIO has no call for it.
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*" + SegmentFiles.LOG_SUFFIX)) {
            for (final Path file : files) {
                final long base = SegmentFiles.parseBaseOffset(file.getFileName().toString());
                if (base >= 0) {
                    found.add(base);
                }
            }
        }
        final long[] bases = new long[found.size()];
        for (int i = 0; i < bases.length; i++) {
            bases[i] = found.get(i);
        }
        Arrays.sort(bases);
        return bases;
    }

    /**
     * Opens every segment of the directory, oldest first. On failure, closes the ones already opened.
     *
     * @param io      the file layer
     * @param dir     the partition directory
     * @param config  the log configuration
     * @param nowMs   the current time
     * @param jitter  supplies each segment's roll jitter
     * @param scratch a heap buffer of at least 64 bytes for header reads
     * @return the open segments, in base-offset order; empty when the directory holds none
     * @throws IOException if a segment cannot be opened
     */
    public static List<LogSegment> load(final FileIO io, final Path dir, final LogConfig config, final long nowMs,
                                        final LongSupplier jitter, final ByteBuffer scratch) throws IOException {
        final long[] bases = listBaseOffsets(dir);
        final List<LogSegment> segments = new ArrayList<>(bases.length);
        try {
            for (final long base : bases) {
                segments.add(LogSegment.open(io, dir, base, config, nowMs, jitter.getAsLong(), scratch));
            }
        } catch (final IOException | RuntimeException e) {
            for (int i = segments.size() - 1; i >= 0; i--) {
                try {
                    segments.get(i).close();
                } catch (final IOException | RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            throw e;
        }
        return segments;
    }
}
