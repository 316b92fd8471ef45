package io.seglog.storage.segment;

import static io.seglog.storage.format.RecordBatchDescriptor.MAX_TIMESTAMP_OFFSET;

import io.seglog.storage.format.RecordBatchDescriptor;
import io.seglog.storage.index.OffsetIndex;
import io.seglog.storage.index.TimeIndex;
import io.seglog.storage.index.TransactionIndex;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.EnumSet;

/**
 * How a {@link LogSegment} comes to be: created empty ({@link LogSegment#create}), opened after a clean shutdown
 * ({@link LogSegment#open}) or opened for a crash-recovery scan ({@link LogSegment#openForRecovery}). Each
 * closes (and for a creation, deletes) what it opened when it fails.
 *
 * <p>Thread-safety: stateless; the segment it returns is not yet shared.
 */
final class SegmentFactory {
    private SegmentFactory() {
    }

    /** {@link LogSegment#create}. */
    static LogSegment create(final FileIO io, final Path dir, final long baseOffset, final SegmentConfig config,
                             final long nowMs, final long rollJitterMs) throws IOException {
        final Path logFile = dir.resolve(SegmentFiles.fileName(baseOffset, SegmentFiles.LOG_SUFFIX));
        final Path indexFile = dir.resolve(SegmentFiles.fileName(baseOffset, SegmentFiles.INDEX_SUFFIX));
        final Path timeIndexFile = dir.resolve(SegmentFiles.fileName(baseOffset, SegmentFiles.TIME_INDEX_SUFFIX));
        io.deleteIfExists(indexFile);
        io.deleteIfExists(timeIndexFile);
        io.deleteIfExists(dir.resolve(SegmentFiles.fileName(baseOffset, SegmentFiles.TXN_INDEX_SUFFIX)));
        final FileChannel channel = io.open(logFile,
            EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE));
        try {
            return withIndexes(io, channel, logFile, indexFile, timeIndexFile, baseOffset, 0, config, rollJitterMs,
                nowMs);
        } catch (final IOException | RuntimeException e) {
            // withIndexes closed what it opened; remove the files this call created, so that a failed creation
            // leaves no empty .log behind (it would be loaded as a segment on the next open).
            for (final Path created : new Path[] {timeIndexFile, indexFile, logFile}) {
                try {
                    io.deleteIfExists(created);
                } catch (final IOException | RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            throw e;
        }
    }

    /** {@link LogSegment#open}. */
    static LogSegment open(final FileIO io, final Path dir, final long baseOffset, final SegmentConfig config,
                           final long nowMs, final long rollJitterMs, final ByteBuffer scratch) throws IOException {
        final Path logFile = dir.resolve(SegmentFiles.fileName(baseOffset, SegmentFiles.LOG_SUFFIX));
        final Path indexFile = dir.resolve(SegmentFiles.fileName(baseOffset, SegmentFiles.INDEX_SUFFIX));
        final Path timeIndexFile = dir.resolve(SegmentFiles.fileName(baseOffset, SegmentFiles.TIME_INDEX_SUFFIX));
        // Existence is metadata, not file access; FileIO has no call for it.
        final boolean rebuild = !Files.exists(indexFile) || !Files.exists(timeIndexFile);
        if (rebuild) {
            io.deleteIfExists(indexFile);
            io.deleteIfExists(timeIndexFile);
        }
        final FileChannel channel = io.open(logFile, EnumSet.of(StandardOpenOption.READ, StandardOpenOption.WRITE));
        final int length = checkedLength(channel, logFile);
        final LogSegment segment = withIndexes(io, channel, logFile, indexFile, timeIndexFile, baseOffset,
            length, config, rollJitterMs, nowMs);
        try {
            boolean indexesOk = !rebuild;
            final boolean hadIndexes = indexesOk;
            if (indexesOk) {
                try {
                    segment.offsetIndex().sanityCheck();
                    segment.timeIndex().sanityCheck();
                    // Stronger than Kafka's sanity check: the last entries must name batches the file holds, so a
                    // data file cut short or replaced behind its indexes (or a flipped last entry) is rebuilt.
                    indexesOk = segment.reader().lastEntriesHold(new BatchCursor());
                } catch (final RuntimeException corrupt) {
                    indexesOk = false;
                }
            }
            if (length > 0) {
                // Kafka's loadFirstBatchTimestamp: time-based rolls keep counting in record time after a reopen.
                segment.readHeader(scratch, 0, length, LogSegment.TIMESTAMP_HEADER_BYTES);
                segment.rollingBasedTimestampMs = scratch.getLong(MAX_TIMESTAMP_OFFSET);
            }
            if (indexesOk) {
                // Kafka's loadLargestTimestamp: the time index's last entry, then the batches it has not indexed
                // yet (all of them when the index has no slot, segment.index.bytes below one entry).
                segment.reloadLargestTimestamp(scratch);
            } else {
                segment.indexesRebuiltOnOpen = true;
                // Judged before the rebuild rewrites the index files, and a refusal abandons the segment (a close
                // would drop the indexes its checks found wrong): the evidence stays on disk for the next open.
                try {
                    // Read only when the indexes were rejected (every open would otherwise page in every index);
                    // the checks above read them without writing.
                    if (hadIndexes) {
                        IndexClaims.ofOrNone(segment.offsetIndex(), segment.timeIndex(), length)
                            .checkNotCutShort(logFile, dataEndOf(segment, scratch, length));
                    }
                } catch (final CorruptSegmentException lost) {
                    if (config.truncateOnCorruption()) {
                        segment.lostTail = lost; // the loader keeps what is left and drops the later segments
                    } else {
                        try {
                            segment.abandon();
                        } catch (final IOException suppressed) {
                            lost.addSuppressed(suppressed);
                        }
                        throw lost;
                    }
                }
                segment.rebuildIndexes(scratch);
                // Rebuilt as a closed segment would be; the log grows the active one back to full size.
                segment.offsetIndex().trimToValidSize();
                segment.timeIndex().trimToValidSize();
            }
        } catch (final IOException | RuntimeException e) {
            segment.closeAfterFailure(e);
            throw e;
        }
        return segment;
    }

    /**
     * Where the data file's batches end (a walk of the batch headers): the last batch's last offset and the largest
     * batch timestamp, -1 each when the file holds no batch.
     */
    static IndexClaims.DataEnd dataEndOf(final LogSegment segment, final ByteBuffer scratch, final int length)
        throws IOException {
        long last = -1;
        long maxTimestamp = -1;
        for (int position = 0; position < length; ) {
            final int batchSize = segment.readHeader(scratch, position, length, LogSegment.TIMESTAMP_HEADER_BYTES);
            last = scratch.getLong(RecordBatchDescriptor.BASE_OFFSET_OFFSET)
                + scratch.getInt(RecordBatchDescriptor.LAST_OFFSET_DELTA_OFFSET);
            maxTimestamp = Math.max(maxTimestamp, scratch.getLong(MAX_TIMESTAMP_OFFSET));
            position += batchSize;
        }
        return new IndexClaims.DataEnd(last, maxTimestamp);
    }

    /** {@link LogSegment#openReadOnly}. */
    static LogSegment openReadOnly(final FileIO io, final Path dir, final long baseOffset, final SegmentConfig config,
                                   final long nowMs, final ByteBuffer scratch, final boolean toBeScanned,
                                   final boolean useIndexFiles) throws IOException {
        final Path logFile = dir.resolve(SegmentFiles.fileName(baseOffset, SegmentFiles.LOG_SUFFIX));
        final Path indexFile = dir.resolve(SegmentFiles.fileName(baseOffset, SegmentFiles.INDEX_SUFFIX));
        final Path timeIndexFile = dir.resolve(SegmentFiles.fileName(baseOffset, SegmentFiles.TIME_INDEX_SUFFIX));
        final FileChannel channel = io.open(logFile, EnumSet.of(StandardOpenOption.READ));
        final int length = checkedLength(channel, logFile);
        LogSegment segment = null;
        try {
            if (useIndexFiles && !toBeScanned && Files.exists(indexFile) && Files.exists(timeIndexFile)) {
                segment = usableIndexes(io, channel, logFile, indexFile, timeIndexFile, baseOffset, length, config,
                    nowMs);
            }
            // Index files that are not used for reads (rejected by their checks, or the last segment's) are still
            // witnesses of the data they describe, as in a writable open.
            final boolean indexesRejected = segment == null && !toBeScanned
                && Files.exists(indexFile) && Files.exists(timeIndexFile);
            if (segment == null) {
                // The transaction index first: the empty indexes hold nothing to release, it holds a file.
                final TransactionIndex txnIndex = TransactionIndex.openOrDiscard(io, txnIndexFile(logFile, baseOffset),
                    baseOffset, true);
                segment = new LogSegment(logFile, baseOffset, channel,
                    OffsetIndex.emptyReadOnly(io, indexFile, baseOffset, channel),
                    TimeIndex.emptyReadOnly(io, timeIndexFile, baseOffset, channel), txnIndex, length, config, 0,
                    nowMs);
                segment.indexesRebuiltOnOpen = true;
            }
            if (indexesRejected) {
                // The index files failed their checks: the same witnesses as a writable open's.
                try {
                    IndexClaims.read(io, indexFile, timeIndexFile, baseOffset, length)
                        .checkNotCutShort(logFile, dataEndOf(segment, scratch, length));
                } catch (final CorruptSegmentException lost) {
                    if (!config.truncateOnCorruption()) {
                        throw lost;
                    }
                    segment.lostTail = lost;
                }
            }
            if (length > 0 && !toBeScanned) {
                segment.readHeader(scratch, 0, length, LogSegment.TIMESTAMP_HEADER_BYTES);
                segment.rollingBasedTimestampMs = scratch.getLong(MAX_TIMESTAMP_OFFSET);
                // With an empty time index this walks every batch header: the largest timestamp, without writing.
                segment.reloadLargestTimestamp(scratch);
            }
            return segment;
        } catch (final IOException | RuntimeException e) {
            // Nothing may be trimmed or synced: abandon, never close.
            try {
                if (segment != null) {
                    segment.abandon();
                } else {
                    channel.close();
                }
            } catch (final IOException | RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /**
     * The segment over its index files mapped read-only, when both open and pass the checks {@link #open} applies;
     * null (everything it opened released, the data file left open) when they do not.
     */
    private static LogSegment usableIndexes(final FileIO io, final FileChannel channel, final Path logFile,
                                            final Path indexFile, final Path timeIndexFile, final long baseOffset,
                                            final int size, final SegmentConfig config, final long nowMs)
        throws IOException {
        OffsetIndex offsetIndex = null;
        TimeIndex timeIndex = null;
        TransactionIndex txnIndex = null;
        LogSegment segment = null;
        try {
            offsetIndex = OffsetIndex.openReadOnly(io, indexFile, baseOffset);
            timeIndex = TimeIndex.openReadOnly(io, timeIndexFile, baseOffset);
            txnIndex = TransactionIndex.openOrDiscard(io, txnIndexFile(logFile, baseOffset), baseOffset, true);
            segment = new LogSegment(logFile, baseOffset, channel, offsetIndex, timeIndex, txnIndex, size, config, 0,
                nowMs);
            segment.offsetIndex().sanityCheck();
            segment.timeIndex().sanityCheck();
            if (segment.reader().lastEntriesHold(new BatchCursor())) {
                return segment;
            }
        } catch (final IOException | RuntimeException unusable) {
            // Unreadable, too long to map or failing a check: read the segment without them.
        }
        if (segment != null) {
            segment.abandonKeepingDataFile();
        } else {
            if (txnIndex != null) {
                txnIndex.close();
            }
            if (timeIndex != null) {
                timeIndex.abandon();
            }
            if (offsetIndex != null) {
                offsetIndex.abandon();
            }
        }
        return null;
    }

    /** {@link LogSegment#openForRecovery}. */
    static LogSegment openForRecovery(final FileIO io, final Path dir, final long baseOffset, final SegmentConfig config,
                                      final long nowMs, final long rollJitterMs) throws IOException {
        final Path logFile = dir.resolve(SegmentFiles.fileName(baseOffset, SegmentFiles.LOG_SUFFIX));
        final Path indexFile = dir.resolve(SegmentFiles.fileName(baseOffset, SegmentFiles.INDEX_SUFFIX));
        final Path timeIndexFile = dir.resolve(SegmentFiles.fileName(baseOffset, SegmentFiles.TIME_INDEX_SUFFIX));
        io.deleteIfExists(indexFile);
        io.deleteIfExists(timeIndexFile);
        final FileChannel channel = io.open(logFile, EnumSet.of(StandardOpenOption.READ, StandardOpenOption.WRITE));
        final int length = checkedLength(channel, logFile);
        return withIndexes(io, channel, logFile, indexFile, timeIndexFile, baseOffset, length, config,
            rollJitterMs, nowMs);
    }

    /** The data file's length, which must fit a segment's int positions; closes the channel if it fails. */
    private static int checkedLength(final FileChannel channel, final Path logFile) throws IOException {
        final long length;
        try {
            length = channel.size();
        } catch (final IOException | RuntimeException e) {
            closeQuietly(channel, e);
            throw e;
        }
        if (length > Integer.MAX_VALUE) {
            closeQuietly(channel, null);
            throw new CorruptSegmentException("segment file length=" + length + " exceeds the limit " + Integer.MAX_VALUE, logFile);
        }
        return (int) length;
    }

    private static LogSegment withIndexes(final FileIO io, final FileChannel channel, final Path logFile,
                                          final Path indexFile, final Path timeIndexFile, final long baseOffset,
                                          final int size, final SegmentConfig config, final long rollJitterMs,
                                          final long nowMs) throws IOException {
        OffsetIndex offsetIndex = null;
        TimeIndex timeIndex = null;
        TransactionIndex txnIndex = null;
        try {
            offsetIndex = OffsetIndex.open(io, indexFile, baseOffset, config.segmentIndexBytes());
            timeIndex = TimeIndex.open(io, timeIndexFile, baseOffset, config.segmentIndexBytes());
            // Kept across a recovery scan (its entries come from the producer state's replay, not from the scan).
            txnIndex = TransactionIndex.openOrDiscard(io, txnIndexFile(logFile, baseOffset), baseOffset, false);
            return new LogSegment(logFile, baseOffset, channel, offsetIndex, timeIndex, txnIndex, size, config,
                rollJitterMs, nowMs);
        } catch (final IOException | RuntimeException e) {
            if (txnIndex != null) {
                try {
                    txnIndex.close();
                } catch (final IOException | RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            if (timeIndex != null) {
                try {
                    timeIndex.close();
                } catch (final IOException | RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            if (offsetIndex != null) {
                try {
                    offsetIndex.close();
                } catch (final IOException | RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            closeQuietly(channel, e);
            throw e;
        }
    }

    private static Path txnIndexFile(final Path logFile, final long baseOffset) {
        return logFile.resolveSibling(SegmentFiles.fileName(baseOffset, SegmentFiles.TXN_INDEX_SUFFIX));
    }

    private static void closeQuietly(final FileChannel channel, final Throwable primary) {
        try {
            channel.close();
        } catch (final IOException e) {
            if (primary != null) {
                primary.addSuppressed(e);
            }
        }
    }
}
