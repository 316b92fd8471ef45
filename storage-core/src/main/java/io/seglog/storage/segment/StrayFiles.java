package io.seglog.storage.segment;

import static io.seglog.storage.format.RecordBatchDescriptor.BASE_OFFSET_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.BATCH_HEADER_LENGTH;
import static io.seglog.storage.format.RecordBatchDescriptor.LAST_OFFSET_DELTA_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.LENGTH_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.LOG_OVERHEAD;

import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tidies a partition directory before its segments are opened, as Kafka's
 * {@code LogLoader.removeTempFilesAndCollectSwapFiles} and {@code loadSegmentFiles} do:
 * <ul>
 *   <li>{@code *.deleted} (segments awaiting their delayed unlink), {@code *.cleaned} (unfinished compaction
 *       output) and {@code *.tmp} (unfinished checkpoint writes) are deleted;</li>
 *   <li>a {@code .swap} file of a base offset at or above the smallest {@code .cleaned} one is an unfinished
 *       split (KAFKA-6264) and is deleted; an index {@code .swap} is deleted (indexes are rebuilt); a log
 *       {@code .swap} replaces the segments whose base offsets fall in its offset range and is renamed into
 *       place, its indexes deleted so that they are rebuilt;</li>
 *   <li>an index file ({@code .index}, {@code .timeindex}, {@code .txnindex}) whose {@code .log} is missing is
 *       deleted after the load ({@link #deleteOrphanIndexes}), unless it lies in a gap between two segments: then it
 *       is the trace of a lost segment and the load refuses the log (or truncates it there);</li>
 *   <li>files Seglog or Kafka put in a partition directory are kept; anything else is left alone with a WARN.</li>
 * </ul>
 *
 * <p>Thread-safety: stateless.
 */
final class StrayFiles {
    private static final Logger LOG = LoggerFactory.getLogger(StrayFiles.class);

    static final String DELETED_SUFFIX = ".deleted";
    static final String CLEANED_SUFFIX = ".cleaned";
    static final String SWAP_SUFFIX = ".swap";
    static final String TMP_SUFFIX = ".tmp";
    static final String TXN_INDEX_SUFFIX = SegmentFiles.TXN_INDEX_SUFFIX;
    /** Files a partition directory may hold besides segments (Kafka's and ours). */
    private static final Set<String> KNOWN_NAMES = Set.of("leader-epoch-checkpoint", "partition.metadata", ".lock");
    private static final Set<String> KNOWN_SUFFIXES = Set.of(SegmentFiles.SNAPSHOT_SUFFIX, TXN_INDEX_SUFFIX);

    private StrayFiles() {
    }

    /**
     * Tidies {@code dir}; see the class comment.
     *
     * @param io      the file layer
     * @param dir     the partition directory
     * @param scratch a heap buffer of at least 64 bytes
     * @param removed receives every file deleted
     * @throws IOException if the directory cannot be listed or a file cannot be deleted or renamed
     */
    static void tidy(final FileIO io, final Path dir, final ByteBuffer scratch, final List<Path> removed)
        throws IOException {
        final List<Path> files = list(dir);
        long minCleaned = Long.MAX_VALUE;
        for (final Path file : files) {
            final String name = file.getFileName().toString();
            final long base = baseOffsetOf(name);
            if (name.endsWith(CLEANED_SUFFIX) && base >= 0) {
                minCleaned = Math.min(minCleaned, base);
            }
        }
        final List<Path> logSwaps = new ArrayList<>();
        for (final Path file : files) {
            final String name = file.getFileName().toString();
            if (name.endsWith(DELETED_SUFFIX) || name.endsWith(CLEANED_SUFFIX) || name.endsWith(TMP_SUFFIX)) {
                delete(io, file, removed);
            } else if (name.endsWith(SWAP_SUFFIX) && baseOffsetOf(name) >= 0) {
                final String target = name.substring(0, name.length() - SWAP_SUFFIX.length());
                final long base = baseOffsetOf(name);
                final boolean logSwap = target.endsWith(SegmentFiles.LOG_SUFFIX);
                // A transaction index's swap file goes with its log's swap file (completeSwap renames it), if any.
                final boolean withLogSwap = target.endsWith(TXN_INDEX_SUFFIX) && Files.exists(dir.resolve(
                    SegmentFiles.fileName(base, SegmentFiles.LOG_SUFFIX) + SWAP_SUFFIX));
                if (base >= minCleaned || !logSwap && !withLogSwap) {
                    delete(io, file, removed);
                } else if (logSwap) {
                    logSwaps.add(file);
                }
            }
        }
        boolean renamed = false;
        for (final Path swap : logSwaps) {
            completeSwap(io, dir, swap, scratch, removed);
            renamed = true;
        }
        if (renamed) {
            io.fsyncDirectory(dir);
        }
        for (final Path file : list(dir)) {
            final String name = file.getFileName().toString();
            if (!isIndex(name) && !isKnown(name)) {
                LOG.warn("Unknown file {} in partition directory {}: left alone", name, dir);
            }
        }
    }

    /**
     * The base offsets of index files ({@code .index}, {@code .timeindex}, {@code .txnindex}) whose {@code .log}
     * is missing, ascending. Left on disk by {@link #tidy} until the load has judged them: one that lies in a gap
     * between two segments is the trace of a lost segment (retirement, the cleaner's swap and truncation leave
     * orphans only below the first segment, inside a segment that replaced them, or above the last).
     *
     * @param dir the partition directory
     * @return the base offsets, no duplicates
     * @throws IOException if the directory cannot be listed
     */
    static long[] orphanIndexBases(final Path dir) throws IOException {
        final java.util.TreeSet<Long> found = new java.util.TreeSet<>();
        for (final Path file : list(dir)) {
            final String name = file.getFileName().toString();
            final long base = baseOffsetOf(name);
            if (isIndex(name) && base >= 0) {
                final String stem = name.substring(0, name.lastIndexOf('.'));
                if (!Files.exists(dir.resolve(stem + SegmentFiles.LOG_SUFFIX))) {
                    found.add(base);
                }
            }
        }
        return found.stream().mapToLong(Long::longValue).toArray();
    }

    /**
     * Deletes the index files whose {@code .log} is missing (Kafka's {@code loadSegmentFiles} does), once the load
     * has found none of them to be a lost segment's.
     *
     * @param io      the file layer
     * @param dir     the partition directory
     * @param removed receives every file deleted
     * @throws IOException if a file cannot be deleted
     */
    static void deleteOrphanIndexes(final FileIO io, final Path dir, final List<Path> removed) throws IOException {
        for (final Path file : list(dir)) {
            final String name = file.getFileName().toString();
            if (isIndex(name)) {
                final String stem = name.substring(0, name.lastIndexOf('.'));
                if (!Files.exists(dir.resolve(stem + SegmentFiles.LOG_SUFFIX))) {
                    LOG.warn("Deleting index {} of {}: its log file is missing", name, dir);
                    delete(io, file, removed);
                }
            }
        }
    }

    /**
     * A read-only load's stand-in for {@link #tidy}: stray files are left alone (they are not segments, so the
     * load ignores them), but a log {@code .swap} file is an unfinished replacement of segments that only a
     * writable open can complete, so the directory cannot be read as it is.
     *
     * @param dir the partition directory
     * @throws IOException naming the swap file when there is one, or if the directory cannot be listed
     */
    static void refuseUnfinishedSwap(final Path dir) throws IOException {
        for (final Path file : list(dir)) {
            final String name = file.getFileName().toString();
            if (name.endsWith(SegmentFiles.LOG_SUFFIX + SWAP_SUFFIX)) {
                throw new IOException("read-only open of " + dir + ": " + name + " is an unfinished segment swap"
                    + " (compaction or a split was interrupted); only a writable open completes it");
            }
        }
    }

    /** Replaces the segments a log swap file covers, then renames it into place (Kafka's swap completion). */
    private static void completeSwap(final FileIO io, final Path dir, final Path swap, final ByteBuffer scratch,
                                     final List<Path> removed) throws IOException {
        final String name = swap.getFileName().toString();
        final long base = baseOffsetOf(name);
        final long next = nextOffset(io, swap, base, scratch);
        for (final long existing : LogLoader.listBaseOffsets(dir)) {
            if (existing >= base && existing < next) {
                for (final String suffix : List.of(SegmentFiles.LOG_SUFFIX, SegmentFiles.INDEX_SUFFIX,
                    SegmentFiles.TIME_INDEX_SUFFIX, TXN_INDEX_SUFFIX)) {
                    delete(io, dir.resolve(SegmentFiles.fileName(existing, suffix)), removed);
                }
            }
        }
        for (final String suffix : List.of(SegmentFiles.INDEX_SUFFIX, SegmentFiles.TIME_INDEX_SUFFIX)) {
            delete(io, dir.resolve(SegmentFiles.fileName(base, suffix)), removed);
        }
        final Path txnIndex = dir.resolve(SegmentFiles.fileName(base, TXN_INDEX_SUFFIX));
        final Path txnIndexSwap = dir.resolve(SegmentFiles.fileName(base, TXN_INDEX_SUFFIX) + SWAP_SUFFIX);
        if (Files.exists(txnIndexSwap)) {
            io.atomicMove(txnIndexSwap, txnIndex);
        }
        // Otherwise a <base>.txnindex left is the new one already moved into place (the swap stopped between the two
        // renames: the old segment's went to .deleted before its .log did), or one of the old segments' (deleted
        // above with their .log files): kept either way.
        final Path target = dir.resolve(name.substring(0, name.length() - SWAP_SUFFIX.length()));
        LOG.warn("Completing the interrupted swap of {} into {}", name, target.getFileName());
        io.atomicMove(swap, target);
    }

    /** The offset after the last whole batch of a swap file; lengths are bounded by the file. */
    private static long nextOffset(final FileIO io, final Path file, final long base, final ByteBuffer scratch)
        throws IOException {
        long next = base;
        try (FileChannel channel = io.open(file, EnumSet.of(StandardOpenOption.READ))) {
            final long size = channel.size();
            long position = 0;
            while (size - position >= BATCH_HEADER_LENGTH) {
                scratch.clear().limit(BATCH_HEADER_LENGTH);
                while (scratch.hasRemaining()) {
                    if (channel.read(scratch, position + scratch.position()) < 0) {
                        return next;
                    }
                }
                final int length = scratch.getInt(LENGTH_OFFSET);
                if (length < BATCH_HEADER_LENGTH - LOG_OVERHEAD || length > size - position - LOG_OVERHEAD) {
                    break;
                }
                next = scratch.getLong(BASE_OFFSET_OFFSET) + scratch.getInt(LAST_OFFSET_DELTA_OFFSET) + 1;
                position += length + LOG_OVERHEAD;
            }
        }
        return next;
    }

    private static boolean isIndex(final String name) {
        return name.endsWith(SegmentFiles.INDEX_SUFFIX) || name.endsWith(SegmentFiles.TIME_INDEX_SUFFIX)
            || name.endsWith(TXN_INDEX_SUFFIX);
    }

    private static boolean isKnown(final String name) {
        if (KNOWN_NAMES.contains(name) || SegmentFiles.parseBaseOffset(name) >= 0) {
            return true;
        }
        for (final String suffix : KNOWN_SUFFIXES) {
            if (name.endsWith(suffix)) {
                return true;
            }
        }
        return false;
    }

    /** The base offset in a segment file name ({@code <20 digits>.<suffix>[.<suffix>]}), or -1. */
    private static long baseOffsetOf(final String name) {
        if (name.length() < SegmentFiles.FILE_NAME_DIGITS || name.charAt(SegmentFiles.FILE_NAME_DIGITS - 1) < '0') {
            return -1;
        }
        return SegmentFiles.parseBaseOffset(name.substring(0, SegmentFiles.FILE_NAME_DIGITS) + SegmentFiles.LOG_SUFFIX);
    }

    private static void delete(final FileIO io, final Path file, final List<Path> removed) throws IOException {
        if (io.deleteIfExists(file)) {
            removed.add(file);
        }
    }

    private static List<Path> list(final Path dir) throws IOException {
        final List<Path> files = new ArrayList<>();
        // Listing is metadata, not file access; FileIO has no call for it.
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
            for (final Path file : stream) {
                if (Files.isRegularFile(file)) {
                    files.add(file);
                }
            }
        }
        files.sort(null);
        return files;
    }
}
