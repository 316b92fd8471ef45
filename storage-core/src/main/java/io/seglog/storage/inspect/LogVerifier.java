package io.seglog.storage.inspect;

import io.seglog.storage.checkpoint.CorruptCheckpointException;
import io.seglog.storage.checkpoint.EpochEntry;
import io.seglog.storage.checkpoint.LeaderEpochCheckpointFile;
import io.seglog.storage.checkpoint.OffsetCheckpointFile;
import io.seglog.storage.checkpoint.PartitionKey;
import io.seglog.storage.checkpoint.PartitionMetadataFile;
import io.seglog.storage.dir.LogDirLock;
import io.seglog.storage.format.RecordBatchDescriptor;
import io.seglog.storage.io.FileIO;
import io.seglog.storage.producer.ProducerSnapshotDescriptor;
import io.seglog.storage.producer.ProducerSnapshots;
import io.seglog.storage.segment.SegmentFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.agrona.collections.IntArrayList;
import org.agrona.collections.LongArrayList;

/**
 * Checks a log directory, or one partition directory, without a broker and without changing a byte: every file is
 * opened for reading only. It reports every problem it finds rather than stopping at the first, each naming the
 * file, the position and the offset, so that an operator can compare it with what {@code kafka-dump-log} shows.
 *
 * <p>What it checks, per partition:
 * <ul>
 *   <li>every batch of every segment: a length that fits the file, magic 2, the CRC-32C, offsets that increase
 *       within and across segments and start at or past the segment's base offset; a segment stops being read at its
 *       first bad batch (nothing after it can be framed);</li>
 *   <li>the offset index: whole entries, offsets and positions that increase, each entry at the start of a batch
 *       that begins at or before its offset, none past the segment's last offset;</li>
 *   <li>the time index: whole entries, timestamps and offsets that never decrease, offsets inside the segment and
 *       timestamps no later than its batches' newest;</li>
 *   <li>the leader-epoch checkpoint (its format and order, no epoch starting past the log end, and each batch's
 *       leader epoch equal to the epoch the checkpoint gives its offset), {@code partition.metadata}, and each
 *       producer snapshot (its CRC, and no snapshot past the log end).</li>
 * </ul>
 * In a log directory, it also checks the recovery-point, log-start-offset and replication-offset checkpoints against
 * each partition's log end, and each checkpointed log start against the partition's first segment. Index files left
 * without their data file, and a batch whose offsets reach the next segment's base offset, are reported too
 * (docs/recovery.md lists these witnesses). A preallocated index (the active segment of a running or crashed broker) ends at its
 * first all-zero entry after the first, as Kafka's tools read it, and its data file's zero bytes after the last batch are
 * preallocated space, not damage.
 *
 * <p>Nothing read from a file sizes an allocation: batches are checked in fixed-size chunks.
 */
public final class LogVerifier {
    private static final int MIN_BATCH_LENGTH = RecordBatchDescriptor.BATCH_HEADER_LENGTH
        - RecordBatchDescriptor.LOG_OVERHEAD;
    private static final int OFFSET_ENTRY = 8;
    private static final int TIME_ENTRY = 12;

    private final FileIO io;
    private final Consumer<String> progress;
    private final List<Problem> problems = new ArrayList<>();
    private final ByteBuffer header = ByteBuffer.allocate(RecordBatchDescriptor.BATCH_HEADER_LENGTH);
    private final FileBytes fileBytes = new FileBytes();
    /** Each partition directory's first segment base offset, by directory name. */
    private final Map<String, Long> firstBases = new HashMap<>();
    private static final List<String> INDEX_SUFFIXES = List.of(SegmentFiles.INDEX_SUFFIX,
        SegmentFiles.TIME_INDEX_SUFFIX, ".txnindex");
    private int partitions;
    private int segments;
    private long batches;
    private long bytes;

    private LogVerifier(final FileIO io, final Consumer<String> progress) {
        this.io = io;
        this.progress = progress;
    }

    /**
     * Verifies a log directory (a directory of partition directories) or a single partition directory (one that
     * holds {@code .log} files).
     *
     * @param dir      the directory
     * @param progress told one line per segment scanned ("partition 2/7, segment 3/12: ..."), for long runs
     * @return what was checked and every problem found
     * @throws IOException if the directory cannot be listed (a file that cannot be read is a problem instead)
     */
    public static VerifyReport verify(final Path dir, final Consumer<String> progress) throws IOException {
        Objects.requireNonNull(dir, "dir");
        final LogVerifier verifier = new LogVerifier(FileIO.system(), Objects.requireNonNull(progress, "progress"));
        verifier.run(dir);
        return new VerifyReport(verifier.partitions, verifier.segments, verifier.batches, verifier.bytes,
            verifier.problems);
    }

    private void run(final Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            throw new IOException(dir + " is not a directory");
        }
        if (isPartitionDir(dir)) {
            verifyPartition(dir, 1, 1);
            return;
        }
        final List<Path> dirs = new ArrayList<>();
        try (DirectoryStream<Path> children = Files.newDirectoryStream(dir, Files::isDirectory)) {
            children.forEach(dirs::add);
        }
        dirs.sort(null);
        // The checkpoints are read before the partitions: a live broker writes them after the data they describe, so
        // what they say was on disk before the scans began (read after, a high watermark could pass a log end read
        // earlier).
        final Map<PartitionKey, Long> recoveryPoints = readOffsetCheckpoint(dir.resolve(
            OffsetCheckpointFile.RECOVERY_POINT_FILE));
        final Map<PartitionKey, Long> highWatermarks = readOffsetCheckpoint(dir.resolve(
            OffsetCheckpointFile.REPLICATION_FILE));
        final Path logStartFile = dir.resolve(OffsetCheckpointFile.LOG_START_FILE);
        final Map<PartitionKey, Long> logStarts = readOffsetCheckpoint(logStartFile);
        final Map<String, Long> logEnds = new HashMap<>();
        for (int i = 0; i < dirs.size(); i++) {
            logEnds.put(dirs.get(i).getFileName().toString(), verifyPartition(dirs.get(i), i + 1, dirs.size()));
        }
        checkOffsetCheckpoint(dir.resolve(OffsetCheckpointFile.RECOVERY_POINT_FILE), recoveryPoints, logEnds,
            "recovery point");
        checkOffsetCheckpoint(dir.resolve(OffsetCheckpointFile.REPLICATION_FILE), highWatermarks, logEnds,
            "high watermark");
        checkOffsetCheckpoint(logStartFile, logStarts, logEnds, "log start offset");
        // Read again: retention may have moved a log start (checkpoint first, then the files) during the scans.
        checkLogStartsHeld(logStartFile, logStarts, readOffsetCheckpoint(logStartFile));
    }

    /**
     * Each checkpointed log start lies in or above the first segment: a segment is deleted only after the checkpoint
     * has moved past it, so a first segment above the checkpointed start says the segments below it were lost.
     */
    private void checkLogStartsHeld(final Path file, final Map<PartitionKey, Long> before,
                                    final Map<PartitionKey, Long> after) {
        if (before == null || after == null) {
            return;
        }
        for (final Map.Entry<PartitionKey, Long> e : before.entrySet()) {
            final Long first = firstBases.get(e.getKey().topic() + "-" + e.getKey().partition());
            final Long now = after.get(e.getKey());
            if (first != null && e.getValue() < first && (now == null || now < first)) {
                problem(file, -1, e.getValue(), e.getKey() + ": the log start offset " + e.getValue() + " lies below"
                    + " the first segment, at " + first + ": the segments holding offsets " + e.getValue() + " to "
                    + (first - 1) + " are gone");
            }
        }
    }

    private static boolean isPartitionDir(final Path dir) throws IOException {
        try (DirectoryStream<Path> logs = Files.newDirectoryStream(dir, "*.log")) {
            return logs.iterator().hasNext();
        }
    }

    private void problem(final Path file, final long position, final long offset, final String message) {
        problems.add(new Problem(file, position, offset, message));
    }

    // ---------------------------------------------------------------------------------------------- partition

    /** Verifies one partition directory; returns its log end offset (-1 when it has no segment). */
    private long verifyPartition(final Path dir, final int index, final int count) throws IOException {
        partitions++;
        final TreeMap<Long, Path> logs = new TreeMap<>();
        final TreeMap<Long, Path> snapshots = new TreeMap<>();
        final List<Path> indexes = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (final Path file : files) {
                final String name = file.getFileName().toString();
                final boolean log = name.endsWith(".log");
                if (log || name.endsWith(ProducerSnapshotDescriptor.SUFFIX)) {
                    final long base = FileBytes.offsetOf(name);
                    if (base < 0) {
                        problem(file, -1, -1, "the name is not a 20-digit offset and a suffix");
                    } else {
                        (log ? logs : snapshots).put(base, file);
                    }
                } else if (INDEX_SUFFIXES.stream().anyMatch(name::endsWith)) {
                    indexes.add(file);
                }
            }
        }
        checkOrphanIndexes(indexes, logs);
        final List<EpochEntry> epochs = readEpochs(dir);
        // A partition a running broker holds (its .lock) is read as it is being written: its active segment may end
        // in a batch still being written, and files may go (retention, truncation) while this runs.
        final boolean live = LogDirLock.isHeld(dir);
        long previousLast = -1;
        long logEnd = logs.isEmpty() ? -1 : logs.firstKey();
        int segment = 0;
        for (final Map.Entry<Long, Path> e : logs.entrySet()) {
            segment++;
            final long base = e.getKey();
            if (base <= previousLast) {
                problem(e.getValue(), -1, base, "the segment's base offset is not past the previous segment's last"
                    + " offset " + previousLast);
            }
            final Long nextBase = logs.higherKey(base);
            // The indexes first: they are written after the data, so every entry read now names bytes the scan
            // below will find, even while a writer appends.
            final Path offsetIndexFile = dir.resolve(SegmentFiles.fileName(base, ".index"));
            final Path timeIndexFile = dir.resolve(SegmentFiles.fileName(base, ".timeindex"));
            final ByteBuffer offsetIndex = readSmallFile(offsetIndexFile, "offset index", OFFSET_ENTRY);
            final ByteBuffer timeIndex = readSmallFile(timeIndexFile, "time index", TIME_ENTRY);
            final SegmentScan scan = scanSegment(e.getValue(), base, Math.max(previousLast, base - 1), epochs,
                nextBase == null ? Long.MAX_VALUE : nextBase, live && nextBase == null);
            progress.accept("partition " + index + "/" + count + " " + dir.getFileName() + ", segment " + segment
                + "/" + logs.size() + ": " + scan.positions.size() + " batches, " + scan.validBytes + " bytes"
                + (scan.preallocated > 0 ? " (then " + scan.preallocated + " preallocated zero bytes)" : "")
                + (scan.inProgress > 0 ? " (then " + scan.inProgress + " bytes a running broker is writing)" : "")
                + (scan.gone ? " (deleted by the running broker while verifying)" : ""));
            if (!scan.gone) {
                checkOffsetIndex(offsetIndexFile, offsetIndex, base, scan);
                checkTimeIndex(timeIndexFile, timeIndex, base, scan);
            }
            if (scan.lastOffset >= 0) {
                previousLast = Math.max(previousLast, scan.lastOffset);
            }
            logEnd = Math.max(logEnd, Math.max(base, previousLast + 1));
        }
        checkEpochs(dir, epochs, logEnd);
        checkSnapshots(snapshots, logEnd);
        checkPartitionMetadata(dir);
        if (!logs.isEmpty()) {
            firstBases.put(dir.getFileName().toString(), logs.firstKey());
        }
        return logEnd;
    }

    /**
     * Index files whose data file is missing: Seglog deletes and renames a segment's index files before its data
     * file, so one left alone says the data file was lost (a live Kafka broker renames the data file first, so one
     * may be seen for an instant while it deletes a segment).
     */
    private void checkOrphanIndexes(final List<Path> indexes, final TreeMap<Long, Path> logs) {
        for (final Path index : indexes) {
            final long base = FileBytes.offsetOf(index.getFileName().toString());
            if (base >= 0 && !logs.containsKey(base)) {
                problem(index, -1, base, "an index file without its data file "
                    + SegmentFiles.fileName(base, SegmentFiles.LOG_SUFFIX) + ": the segment's records are gone");
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ segment

    /** What a segment scan found: batch starts, their offsets, and where valid data ends. */
    private static final class SegmentScan {
        final IntArrayList positions = new IntArrayList();
        final LongArrayList baseOffsets = new LongArrayList();
        long lastOffset = -1;
        long maxTimestamp = -1;
        long validBytes;
        /** Whether the scan stopped at a bad batch: index entries past it follow from that one problem. */
        boolean damaged;
        /** Zero bytes after the last batch: an active segment's preallocated space, not checked further. */
        long preallocated;
        /** The data file went while being verified (retention or truncation of a live log): nothing to check. */
        boolean gone;
        /** Bytes at the end of a live log's active segment that a writer is still writing: not checked. */
        long inProgress;
    }

    private SegmentScan scanSegment(final Path file, final long base, final long previousLast,
                                    final List<EpochEntry> epochs, final long nextBase, final boolean beingWritten) {
        segments++;
        final SegmentScan scan = new SegmentScan();
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            final long size = channel.size();
            long position = 0;
            long last = previousLast;
            while (position < size) {
                final String bad = checkBatch(file, channel, position, size, base, last, epochs, nextBase);
                if (bad != null && fileBytes.allZero(channel, position, size)) {
                    scan.preallocated = size - position;
                    break;
                }
                if (bad != null && beingWritten && !fileBytes.validBatchAfter(channel, position + 1, size)) {
                    // The active segment of a live log: the last bytes are a batch the writer is still writing.
                    scan.inProgress = size - position;
                    break;
                }
                if (bad != null) {
                    problem(file, position, header.limit() >= 8 ? header.getLong(0) : -1, bad + "; the "
                        + (size - position) + " bytes from here on, and the index entries for them, are not checked");
                    scan.damaged = true;
                    break;
                }
                final long batchBase = header.getLong(0);
                final int length = header.getInt(RecordBatchDescriptor.LENGTH_OFFSET);
                final long batchLast = batchBase + header.getInt(RecordBatchDescriptor.LAST_OFFSET_DELTA_OFFSET);
                if (position > Integer.MAX_VALUE) {
                    problem(file, position, batchBase, "the segment is larger than 2 GiB");
                    break;
                }
                scan.positions.addInt((int) position);
                scan.baseOffsets.addLong(batchBase);
                scan.lastOffset = batchLast;
                scan.maxTimestamp = Math.max(scan.maxTimestamp,
                    header.getLong(RecordBatchDescriptor.MAX_TIMESTAMP_OFFSET));
                last = batchLast;
                position += RecordBatchDescriptor.LOG_OVERHEAD + length;
                batches++;
                bytes += RecordBatchDescriptor.LOG_OVERHEAD + length;
            }
            scan.validBytes = position;
        } catch (final NoSuchFileException e) {
            scan.gone = true; // listed, then retention or a truncation of a live log took it: nothing to check
        } catch (final java.io.EOFException e) {
            if (!beingWritten) {
                problem(file, -1, -1, "cannot be read: " + e);
            }
            // else: a live follower truncated its active segment while it was read; what was read up to there held
        } catch (final IOException e) {
            problem(file, -1, -1, "cannot be read: " + e);
        }
        return scan;
    }

    /**
     * Reads and checks the batch at this position; its header is left in {@link #header}.
     *
     * @return null when it is sound, else what is wrong
     */
    private String checkBatch(final Path file, final FileChannel channel, final long position, final long size,
                              final long base, final long previousLast, final List<EpochEntry> epochs,
                              final long nextBase) throws IOException {
        header.clear();
        if (size - position < RecordBatchDescriptor.LOG_OVERHEAD) {
            header.limit(0);
            return "a partial batch header (" + (size - position) + " bytes)";
        }
        header.limit((int) Math.min(header.capacity(), size - position));
        FileBytes.readFully(channel, header, position);
        final long batchBase = header.getLong(0);
        final int length = header.getInt(RecordBatchDescriptor.LENGTH_OFFSET);
        if (length < MIN_BATCH_LENGTH) {
            return "batch length " + length + " is below the v2 header's " + MIN_BATCH_LENGTH;
        }
        if (length > size - position - RecordBatchDescriptor.LOG_OVERHEAD) {
            return "batch length " + length + " runs past the end of the file (" + (size - position
                - RecordBatchDescriptor.LOG_OVERHEAD) + " bytes left)";
        }
        final byte magic = header.get(RecordBatchDescriptor.MAGIC_OFFSET);
        if (magic != RecordBatchDescriptor.MAGIC_V2) {
            return "magic " + magic + ", not 2";
        }
        final long stored = Integer.toUnsignedLong(header.getInt(RecordBatchDescriptor.CRC_OFFSET));
        final long computed = fileBytes.crc32c(channel, position + RecordBatchDescriptor.ATTRIBUTES_OFFSET,
            position + RecordBatchDescriptor.LOG_OVERHEAD + length);
        if (stored != computed) {
            return "CRC-32C " + computed + " does not match the stored " + stored;
        }
        final int lastDelta = header.getInt(RecordBatchDescriptor.LAST_OFFSET_DELTA_OFFSET);
        final int count = header.getInt(RecordBatchDescriptor.RECORDS_COUNT_OFFSET);
        if (lastDelta < 0 || count < 0 || count > (long) lastDelta + 1) {
            return "last offset delta " + lastDelta + " and record count " + count + " disagree";
        }
        if (batchBase < base) {
            return "base offset " + batchBase + " is below the segment's base offset " + base;
        }
        if (batchBase <= previousLast) {
            return "base offset " + batchBase + " does not follow the previous last offset " + previousLast;
        }
        if (batchBase + lastDelta >= nextBase) {
            return "last offset " + (batchBase + lastDelta) + " reaches the next segment's base offset " + nextBase
                + " (the base offset is not covered by the CRC)";
        }
        if (batchBase + lastDelta - base > Integer.MAX_VALUE) {
            return "last offset " + (batchBase + lastDelta) + " is too far past the segment's base offset " + base
                + " for its indexes";
        }
        final int epoch = header.getInt(RecordBatchDescriptor.PARTITION_LEADER_EPOCH_OFFSET);
        if (epochs != null && epoch >= 0) {
            // Before the checkpoint's first entry (the log start moved into a segment) there is nothing to compare.
            final int expected = epochAt(epochs, batchBase);
            if (expected >= 0 && expected != epoch) {
                problem(file, position, batchBase, "leader epoch " + epoch + " but the leader-epoch checkpoint gives"
                    + " epoch " + expected + " for this offset");
            }
        }
        return null;
    }

    // ------------------------------------------------------------------------------------------------ indexes

    private void checkOffsetIndex(final Path file, final ByteBuffer index, final long base, final SegmentScan scan) {
        if (index == null) {
            return;
        }
        if (index.limit() % OFFSET_ENTRY != 0) {
            problem(file, -1, -1, "length " + index.limit() + " is not a whole number of " + OFFSET_ENTRY
                + "-byte entries");
        }
        long previousOffset = -1;
        int previousPosition = -1;
        for (int i = 0; i + OFFSET_ENTRY <= index.limit(); i += OFFSET_ENTRY) {
            final int relative = index.getInt(i);
            final int position = index.getInt(i + 4);
            if (relative == 0 && position == 0) {
                // Preallocated and never written (an active segment's index): no entry is ever (0, 0), since the
                // first batch of a segment is never indexed (an entry follows index.interval.bytes of data).
                break;
            }
            final long offset = base + Integer.toUnsignedLong(relative);
            if (scan.damaged && (position >= scan.validBytes || offset > scan.lastOffset)) {
                break;
            }
            if (offset <= previousOffset || position <= previousPosition) {
                problem(file, i, offset, "entry (offset " + offset + ", position " + position + ") does not follow"
                    + " (offset " + previousOffset + ", position " + previousPosition + ")");
            }
            final int slot = scan.positions.size() == 0 ? -1 : binarySearch(scan.positions, position);
            if (slot < 0) {
                problem(file, i, offset, "position " + position + " is not the start of a batch in "
                    + SegmentFiles.fileName(base, ".log") + " (" + scan.validBytes + " valid bytes)");
            } else if (offset < scan.baseOffsets.getLong(slot)) {
                problem(file, i, offset, "the batch at position " + position + " starts at offset "
                    + scan.baseOffsets.getLong(slot) + ", after the entry's offset");
            } else if (offset > scan.lastOffset) {
                problem(file, i, offset, "past the segment's last offset " + scan.lastOffset);
            }
            previousOffset = offset;
            previousPosition = position;
        }
    }

    private void checkTimeIndex(final Path file, final ByteBuffer index, final long base, final SegmentScan scan) {
        if (index == null) {
            return;
        }
        if (index.limit() % TIME_ENTRY != 0) {
            problem(file, -1, -1, "length " + index.limit() + " is not a whole number of " + TIME_ENTRY
                + "-byte entries");
        }
        long previousTimestamp = Long.MIN_VALUE;
        long previousOffset = -1;
        for (int i = 0; i + TIME_ENTRY <= index.limit(); i += TIME_ENTRY) {
            final long timestamp = index.getLong(i);
            final int relative = index.getInt(i + 8);
            if (timestamp == 0 && relative == 0) {
                break; // preallocated and never written (an active segment's time index)
            }
            final long offset = base + Integer.toUnsignedLong(relative);
            if (scan.damaged && offset > scan.lastOffset) {
                break;
            }
            if (timestamp < previousTimestamp || offset < previousOffset) {
                problem(file, i, offset, "entry (timestamp " + timestamp + ", offset " + offset + ") goes back from"
                    + " (timestamp " + previousTimestamp + ", offset " + previousOffset + ")");
            }
            if (offset > scan.lastOffset) {
                problem(file, i, offset, "past the segment's last offset " + scan.lastOffset);
            } else if (timestamp > scan.maxTimestamp) {
                problem(file, i, offset, "timestamp " + timestamp + " is later than the segment's newest batch ("
                    + scan.maxTimestamp + ")");
            }
            previousTimestamp = timestamp;
            previousOffset = offset;
        }
    }

    private static int binarySearch(final IntArrayList sorted, final int key) {
        int low = 0;
        int high = sorted.size() - 1;
        while (low <= high) {
            final int mid = (low + high) >>> 1;
            final int v = sorted.getInt(mid);
            if (v < key) {
                low = mid + 1;
            } else if (v > key) {
                high = mid - 1;
            } else {
                return mid;
            }
        }
        return -1;
    }

    /**
     * An index file's bytes (indexes are capped at 2 GiB by their format; the allocation is the file's real size).
     *
     * @return null when the file is missing (the engine rebuilds it) or unreadable (reported)
     */
    private ByteBuffer readSmallFile(final Path file, final String what, final int entrySize) {
        if (!Files.exists(file)) {
            return null;
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            final long size = channel.size();
            if (size > Integer.MAX_VALUE) {
                problem(file, -1, -1, "the " + what + " is larger than 2 GiB");
                return null;
            }
            final ByteBuffer content = ByteBuffer.allocate((int) size).order(ByteOrder.BIG_ENDIAN);
            // A live broker trims an index when its segment rolls (only never-written zero slots go): what was read
            // up to the new end is the index.
            while (content.hasRemaining() && channel.read(content, content.position()) >= 0) {
                // keep reading
            }
            if (content.hasRemaining()) {
                content.limit(content.position() - content.position() % entrySize); // whole entries of what is left
                return content.position(0);
            }
            return content.flip();
        } catch (final NoSuchFileException e) {
            return null; // gone while verifying a live log (retention, truncation, a roll's trim): nothing to check
        } catch (final IOException e) {
            problem(file, -1, -1, "the " + what + " cannot be read: " + e);
            return null;
        }
    }

    // -------------------------------------------------------------------------------------------- checkpoints

    /** The leader-epoch checkpoint's entries, or null when it is missing or unreadable (then reported). */
    private List<EpochEntry> readEpochs(final Path dir) {
        final Path file = dir.resolve(LeaderEpochCheckpointFile.FILE_NAME);
        if (!Files.exists(file)) {
            return null;
        }
        try {
            return new LeaderEpochCheckpointFile(io, file).read();
        } catch (final CorruptCheckpointException | IOException e) {
            problem(file, -1, -1, e.getMessage());
            return null;
        }
    }

    private static int epochAt(final List<EpochEntry> epochs, final long offset) {
        int epoch = -1;
        for (final EpochEntry e : epochs) {
            if (e.startOffset() > offset) {
                break;
            }
            epoch = e.epoch();
        }
        return epoch;
    }

    private void checkEpochs(final Path dir, final List<EpochEntry> epochs, final long logEnd) {
        if (epochs == null) {
            return;
        }
        for (final EpochEntry e : epochs) {
            if (e.startOffset() > Math.max(logEnd, 0)) {
                problem(dir.resolve(LeaderEpochCheckpointFile.FILE_NAME), -1, e.startOffset(), "epoch " + e.epoch()
                    + " starts past the log end offset " + logEnd);
            }
        }
    }

    private void checkSnapshots(final TreeMap<Long, Path> snapshots, final long logEnd) {
        for (final Map.Entry<Long, Path> e : snapshots.entrySet()) {
            if (e.getKey() > Math.max(logEnd, 0)) {
                problem(e.getValue(), -1, e.getKey(), "a producer snapshot past the log end offset " + logEnd);
            }
            try {
                ProducerSnapshots.describe(io, e.getValue());
            } catch (final NoSuchFileException gone) {
                // retention of a live log deleted it after the listing: nothing to check
            } catch (final IOException ex) {
                problem(e.getValue(), -1, -1, ex.getMessage());
            }
        }
    }

    private void checkPartitionMetadata(final Path dir) {
        try {
            PartitionMetadataFile.open(io, dir, false);
        } catch (final CorruptCheckpointException | IOException e) {
            problem(dir.resolve(PartitionMetadataFile.FILE_NAME), -1, -1, e.getMessage());
        }
    }

    /** An offset checkpoint's entries; null when it is missing, or unreadable (then reported). */
    private Map<PartitionKey, Long> readOffsetCheckpoint(final Path file) {
        if (!Files.exists(file)) {
            return null;
        }
        try {
            return new OffsetCheckpointFile(io, file).read();
        } catch (final CorruptCheckpointException | IOException e) {
            problem(file, -1, -1, e.getMessage());
            return null;
        }
    }

    private void checkOffsetCheckpoint(final Path file, final Map<PartitionKey, Long> offsets,
                                       final Map<String, Long> logEnds, final String what) {
        if (offsets == null) {
            return;
        }
        for (final Map.Entry<PartitionKey, Long> e : offsets.entrySet()) {
            final Long logEnd = logEnds.get(e.getKey().topic() + "-" + e.getKey().partition());
            if (logEnd != null && logEnd >= 0 && e.getValue() > logEnd) {
                problem(file, -1, e.getValue(), e.getKey() + ": the " + what + " is past the log end offset "
                    + logEnd);
            }
        }
    }
}
