package io.seglog.storage.segment;

import static io.seglog.storage.format.RecordBatchDescriptor.BASE_OFFSET_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.LAST_OFFSET_DELTA_LENGTH;
import static io.seglog.storage.format.RecordBatchDescriptor.LAST_OFFSET_DELTA_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.MAX_TIMESTAMP_LENGTH;
import static io.seglog.storage.format.RecordBatchDescriptor.MAX_TIMESTAMP_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.NO_TIMESTAMP;

import io.seglog.storage.index.OffsetIndex;
import io.seglog.storage.index.TimeIndex;
import io.seglog.storage.index.TransactionIndex;
import io.seglog.storage.io.FileIO;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import org.agrona.DirectBuffer;

/**
 * One segment of a partition log: the data file {@code <base>.log} holding v2 record batches back to back,
 * exactly as Kafka writes them, and its two sparse indexes {@code <base>.index} (offset to file position) and
 * {@code <base>.timeindex} (timestamp to offset), where {@code <base>} is the segment's base offset in 20
 * digits. Kafka's {@code LogSegment} opens these files and we open Kafka's.
 *
 * <p>Index rule (Kafka 4.4's {@code LogSegment.append}, per batch): before a batch is accounted, if more than
 * {@code index.interval.bytes} bytes were written since the last entry, the offset index gets
 * (batch's last offset, batch's start position) and the time index gets (largest timestamp so far, last
 * offset of the batch that first reached it). The first batch of a segment is therefore never indexed. On
 * roll and close the time index also gets the final (largest timestamp, offset) entry, and both indexes are
 * trimmed to their entries. A rebuild after a missing index ({@link #open}) applies the same rule, so it
 * reproduces the same files.
 *
 * <p>Threads: one writer (the log's appender: {@link #append}, {@link #onBecomeInactive}, {@link #close}) and
 * any number of concurrent readers (through {@link #reader()}), which take no lock. The writer writes the
 * bytes, then the index entries, then publishes the new size through a volatile field; a reader bounds every
 * scan by a size it read, so it never sees a partial batch. Readers use positional reads or a read-only mapping
 * ({@code SegmentReader}), never the channel's position, so they do not disturb each other or the writer.
 *
 * <p>Who owns what: the segment owns its data file and channel, the published size, the writer's tail mapping and
 * roll state; {@link SegmentIndexing} owns the index rule's state (bytes since the last entry, the largest timestamp
 * so far and its offset) and adds the entries of appends, rebuilds and recovery scans; {@link SegmentReader} owns the
 * readers' mapping; the indexes own their files. The open's findings (the first batch's timestamp, a rebuild, a
 * lost tail) are still set by {@code SegmentFactory} before the segment is handed out.
 */
public final class LogSegment implements AutoCloseable {
    /** Header bytes read to step over a batch and know its offsets: everything up to {@code lastOffsetDelta}. */
    static final int OFFSET_HEADER_BYTES = LAST_OFFSET_DELTA_OFFSET + LAST_OFFSET_DELTA_LENGTH;
    /** Header bytes read when the timestamp is needed too: everything up to {@code maxTimestamp}. */
    static final int TIMESTAMP_HEADER_BYTES = MAX_TIMESTAMP_OFFSET + MAX_TIMESTAMP_LENGTH;
    /** Marks {@link #rollingBasedTimestampMs} as not read yet. */
    private static final long UNKNOWN = Long.MIN_VALUE;

    private static final VarHandle SIZE_IN_BYTES;

    static {
        try {
            SIZE_IN_BYTES = MethodHandles.lookup().findVarHandle(LogSegment.class, "sizeInBytes", int.class);
        } catch (final ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Path logFile;
    private final long baseOffset;
    private final FileChannel channel;
    private final OffsetIndex offsetIndex;
    private final TimeIndex timeIndex;
    /** The aborted transactions whose markers this segment holds; its file exists from the first one. */
    private final TransactionIndex txnIndex;
    /** The lock-free batch reads (header scans, offset and timestamp lookups). */
    private final SegmentReader reader;
    /** The index rule's state: bytes since the last entry, the largest timestamp so far and its offset. */
    private final SegmentIndexing indexing;
    private final long rollJitterMs;
    private final long createdMs;
    /** Small appends go through this mapping ({@code seglog.mapped.append.max.bytes}); null when off. */
    private final MappedTail mappedTail;
    private final int mappedAppendMaxBytes;

    /** Published size: bytes below it are whole batches with their index entries written. */
    private volatile int sizeInBytes;
    // Writer-only state.
    long rollingBasedTimestampMs = UNKNOWN;
    private boolean closed;
    /** Whether {@link #open} had to rebuild the indexes (missing or failing their sanity check). */
    boolean indexesRebuiltOnOpen;
    /**
     * Set by {@link #open} under the truncate policy when the index files proved that the data file lost batches from
     * its end (the fail policy refuses instead): what they said. Null otherwise.
     */
    CorruptSegmentException lostTail;

    LogSegment(final Path logFile, final long baseOffset, final FileChannel channel,
               final OffsetIndex offsetIndex, final TimeIndex timeIndex, final TransactionIndex txnIndex,
               final int sizeInBytes, final SegmentConfig config, final long rollJitterMs, final long createdMs) {
        this.logFile = logFile;
        this.baseOffset = baseOffset;
        this.channel = channel;
        this.offsetIndex = offsetIndex;
        this.timeIndex = timeIndex;
        this.txnIndex = txnIndex;
        this.sizeInBytes = sizeInBytes;
        this.indexing = new SegmentIndexing(baseOffset, offsetIndex, timeIndex, config.indexIntervalBytes());
        this.rollJitterMs = rollJitterMs;
        this.createdMs = createdMs;
        this.mappedAppendMaxBytes = config.mappedAppendMaxBytes();
        this.mappedTail = mappedAppendMaxBytes > 0 ? new MappedTail(channel, config.segmentBytes()) : null;
        this.reader = new SegmentReader(logFile, baseOffset, channel, offsetIndex, timeIndex, config.readMapped(),
            this::sizeInBytes);
    }

    /**
     * Creates a new, empty segment: the {@code .log} file (which must not exist) and both indexes,
     * preallocated to {@code segment.index.bytes} and mapped. Stale index files of the same base offset are
     * replaced. The caller fsyncs the directory.
     *
     * @param io           the file layer
     * @param dir          the partition directory
     * @param baseOffset   the first offset the segment may hold
     * @param config       the log configuration
     * @param nowMs        the creation time, used for time-based rolls of batches without timestamps
     * @param rollJitterMs this segment's jitter, subtracted from {@code segment.ms}
     * @return the open segment, owned by the caller
     * @throws IOException if a file cannot be created or mapped
     */
    public static LogSegment create(final FileIO io, final Path dir, final long baseOffset, final SegmentConfig config,
                                    final long nowMs, final long rollJitterMs) throws IOException {
        return SegmentFactory.create(io, dir, baseOffset, config, nowMs, rollJitterMs);
    }

    /**
     * Opens an existing segment after a clean shutdown: its size is the {@code .log} file's length and its
     * indexes are mapped as they are (Kafka's behaviour: every slot of an existing index file counts as an
     * entry, which is why close trims them). If either index file is missing, or fails its sanity check, both
     * are rebuilt from the data file with the append rule, so they come back identical.
     *
     * <p>Recovery seam: this trusts the data file (no CRC scan, no torn-tail truncation). Crash recovery
     * (issue 3) runs before or instead of this, using {@link #rebuildIndexes(ByteBuffer)} as its index step.
     *
     * @param io           the file layer
     * @param dir          the partition directory
     * @param baseOffset   the base offset parsed from the file name
     * @param config       the log configuration
     * @param nowMs        the time the segment is opened at (its creation time for time-based rolls)
     * @param rollJitterMs this segment's jitter
     * @param scratch      a heap buffer of at least 64 bytes for header reads
     * @return the open segment, owned by the caller
     * @throws IOException if a file cannot be opened or read
     * @throws CorruptSegmentException if the data file is larger than a segment can be or holds a partial batch
     */
    public static LogSegment open(final FileIO io, final Path dir, final long baseOffset, final SegmentConfig config,
                                  final long nowMs, final long rollJitterMs, final ByteBuffer scratch)
        throws IOException {
        return SegmentFactory.open(io, dir, baseOffset, config, nowMs, rollJitterMs, scratch);
    }

    /**
     * Opens an existing segment of a read-only log: the data file is opened for reading only, nothing is created,
     * deleted, resized or written. Its indexes are used (mapped read-only) when both files exist and pass the
     * checks {@link #open} applies; otherwise, and for a segment that is {@code toBeScanned} by a recovery scan,
     * it has empty indexes with no slot, so every lookup reads it from its start (correct, slower) and a scan
     * adds no entry. Close it with {@link #abandon()}.
     *
     * @param io          the file layer (a read-only one)
     * @param dir         the partition directory
     * @param baseOffset  the base offset parsed from the file name
     * @param config      the log configuration
     * @param nowMs       the time the segment is opened at
     * @param scratch     a heap buffer of at least 64 bytes for header reads (unused, and may be null, when
     *                    {@code toBeScanned})
     * @param toBeScanned whether a recovery scan accounts its batches next
     * @param useIndexFiles whether its index files may be mapped (not for the last segment: a writer that has the
     *                    log open shrinks the active segment's index files when it rolls, and a mapped page past
     *                    a file's end kills the reader)
     * @return the open segment, owned by the caller
     * @throws IOException if a file cannot be opened or read
     * @throws CorruptSegmentException if the data file is larger than a segment can be or holds a partial batch
     */
    public static LogSegment openReadOnly(final FileIO io, final Path dir, final long baseOffset,
                                          final SegmentConfig config, final long nowMs, final ByteBuffer scratch,
                                          final boolean toBeScanned, final boolean useIndexFiles)
        throws IOException {
        return SegmentFactory.openReadOnly(io, dir, baseOffset, config, nowMs, scratch, toBeScanned, useIndexFiles);
    }

    /**
     * A read-only log's stand-in for {@link #truncateDataTo}: bytes from {@code position} on (a torn tail, or
     * damage the policy drops) are no longer part of the segment; the file is not changed. Before readers.
     *
     * @param position the new size, a batch boundary
     */
    void hideFrom(final int position) {
        if (position < sizeInBytes) {
            sizeInBytes = position;
        }
    }

    /**
     * Discards this segment object without touching any file and leaves the data file open, for a read-only open
     * that found the indexes unusable and builds the segment again without them.
     */
    void abandonKeepingDataFile() throws IOException {
        closed = true;
        if (mappedTail != null) {
            mappedTail.release();
        }
        reader.closeMapping();
        try {
            offsetIndex.abandon();
        } finally {
            try {
                timeIndex.abandon();
            } finally {
                txnIndex.close();
            }
        }
    }

    /**
     * Opens an existing segment for a crash-recovery scan: both index files are deleted and recreated empty
     * (indexes are never trusted above the recovery point; {@link SegmentRecovery} rebuilds them while it
     * CRC-checks the batches), and the size is the data file's length, which may end in a torn batch.
     *
     * @param io           the file layer
     * @param dir          the partition directory
     * @param baseOffset   the base offset parsed from the file name
     * @param config       the log configuration
     * @param nowMs        the time the segment is opened at
     * @param rollJitterMs this segment's jitter
     * @return the open segment with empty indexes, owned by the caller
     * @throws IOException if a file cannot be opened
     * @throws CorruptSegmentException if the data file is larger than a segment can be
     */
    static LogSegment openForRecovery(final FileIO io, final Path dir, final long baseOffset, final SegmentConfig config,
                                      final long nowMs, final long rollJitterMs) throws IOException {
        return SegmentFactory.openForRecovery(io, dir, baseOffset, config, nowMs, rollJitterMs);
    }

    /**
     * Accounts one batch found valid by a recovery scan, with the append rule for index entries. Writer only.
     *
     * @param lastOffset   the batch's last offset
     * @param maxTimestamp the batch's largest timestamp
     * @param position     its position in the data file
     * @param size         its size
     */
    void recoverBatch(final long lastOffset, final long maxTimestamp, final int position, final int size) {
        if (position == 0) {
            rollingBasedTimestampMs = maxTimestamp;
        }
        indexing.account(lastOffset, maxTimestamp, position, size);
    }

    /**
     * Before a recovery scan of {@code dataBytes}: prepares as many index slots as the append rule can fill
     * (an entry per more than {@code index.interval.bytes}), so the rebuild does not fault on the index files'
     * holes page by page ({@code MappedIndex#prepareForAppends}). Writer only.
     *
     * @param dataBytes the bytes the scan will read
     * @throws IOException if an index file cannot be written
     */
    void prepareIndexesForRecovery(final int dataBytes) throws IOException {
        indexing.prepareForRecovery(dataBytes);
    }

    /**
     * Ends a recovery scan: a reopened segment counts index bytes from 0 again (as {@link #rebuildIndexes}
     * does), the time index gets its final entry and both indexes are trimmed, as on roll. Writer only.
     *
     * @throws IOException if an index cannot be resized
     */
    void finishRecovery() throws IOException {
        indexing.restartCount();
        onBecomeInactive();
    }

    /**
     * Cuts the data file to {@code position} (a batch boundary) and makes the cut durable, so bytes past it can
     * never reappear under later appends. Index entries must already be below it. Writer only.
     *
     * @param position the new size
     * @throws IOException if the truncation or its fsync fails
     */
    void truncateDataTo(final int position) throws IOException {
        if (position < sizeInBytes) {
            sizeInBytes = position;
        }
        releaseMappedTail();
        reader.shrinkDataFile(position); // drains the readers' mapping first
        channel.force(true);
        sizeInBytes = position;
    }

    /**
     * Removes every batch whose last offset is at or above {@code offset} (Kafka's {@code LogSegment.truncateTo}):
     * the published size shrinks first, then the indexes lose their entries at or above it, then the file is
     * cut and fsynced; the largest timestamp is recomputed and the indexes grow back to
     * {@code segment.index.bytes}, since the segment becomes the active one. Writer only; the caller publishes
     * the new log end before calling, so new readers never look past it.
     *
     * @param offset        the first offset to remove
     * @param maxIndexBytes the preallocated index size
     * @param cursor        the writer's cursor
     * @return bytes removed from the data file
     * @throws IOException if a read, the truncation or an fsync fails
     */
    public int truncateTo(final long offset, final int maxIndexBytes, final BatchCursor cursor) throws IOException {
        final int oldSize = sizeInBytes;
        final int position = reader.findBatchForTruncation(offset, oldSize, cursor) ? cursor.position : oldSize;
        final ByteBuffer scratch = cursor.scratch;
        sizeInBytes = position;
        // Entries below the cut stay untouched, so a concurrent lookup sees a whole old entry or none.
        offsetIndex.truncateTo(offset);
        timeIndex.truncateTo(offset);
        txnIndex.truncateTo(offset);
        releaseMappedTail();
        reader.shrinkDataFile(position); // drains the readers' mapping first
        channel.force(true);
        offsetIndex.resize(maxIndexBytes);
        timeIndex.resize(maxIndexBytes);
        indexing.restartCount();
        if (position == 0) {
            rollingBasedTimestampMs = UNKNOWN;
        }
        reloadLargestTimestamp(scratch);
        return oldSize - position;
    }

    /**
     * Kafka's {@code loadLargestTimestamp}: the time index's last entry, then the batches from the offset-index
     * entry at or below it to the end, whose timestamps may be larger (they were not indexed yet).
     */
    void reloadLargestTimestamp(final ByteBuffer scratch) throws IOException {
        long maxTimestamp = timeIndex.entries() == 0 ? NO_TIMESTAMP : timeIndex.lastTimestamp();
        long offsetOfMax = timeIndex.entries() == 0 ? baseOffset : timeIndex.lastEntryOffset();
        final int size = sizeInBytes;
        // Start at the batch holding the time index's last offset, found through the checked lookup (an index
        // position is not trusted unchecked); the writer maps nothing for it (a truncation drops the mapping anyway).
        final BatchCursor cursor = new BatchCursor();
        for (int position = reader.findBatchForTruncation(offsetOfMax, size, cursor) ? cursor.position() : size;
             position < size; ) {
            final int batchSize = readHeader(scratch, position, size, TIMESTAMP_HEADER_BYTES);
            final long batchMax = scratch.getLong(MAX_TIMESTAMP_OFFSET);
            if (batchMax > maxTimestamp) {
                maxTimestamp = batchMax;
                offsetOfMax = scratch.getLong(BASE_OFFSET_OFFSET) + scratch.getInt(LAST_OFFSET_DELTA_OFFSET);
            }
            position += batchSize;
        }
        indexing.reloadedLargestTimestamp(maxTimestamp, offsetOfMax);
    }

    /**
     * Closes the files without trimming or syncing anything: for a log directory that went offline after a
     * failed write or fsync, where no further fsync may be issued. Idempotent with {@link #close()}.
     *
     * @throws IOException the first failure, with the others suppressed
     */
    public void abandon() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        if (mappedTail != null) {
            mappedTail.release();
        }
        reader.closeMapping();
        closeFiles(false, null);
    }

    /**
     * Closes the segment and deletes its data and index files.
     *
     * @param io the file layer
     * @throws IOException if closing or a delete fails
     */
    public void closeAndDelete(final FileIO io) throws IOException {
        close();
        final Path dir = logFile.getParent();
        // Index files before the data file, so a crash in between never leaves index files without their data file.
        io.deleteIfExists(dir.resolve(SegmentFiles.fileName(baseOffset, SegmentFiles.INDEX_SUFFIX)));
        io.deleteIfExists(dir.resolve(SegmentFiles.fileName(baseOffset, SegmentFiles.TIME_INDEX_SUFFIX)));
        txnIndex.deleteIfExists();
        io.deleteIfExists(logFile);
    }

    /**
     * Whether {@link #open} rebuilt the indexes because a file was missing or failed its sanity check.
     *
     * @return true after a rebuild on open
     */
    public boolean indexesRebuiltOnOpen() {
        return indexesRebuiltOnOpen;
    }

    /**
     * What the index files said when an open under the truncate policy found that they prove batches lost from the
     * end of the data file (under the fail policy the open is refused instead); the loader drops the later segments.
     *
     * @return the finding, or null when nothing was lost
     */
    public CorruptSegmentException lostTailOnOpen() {
        return lostTail;
    }

    /**
     * The first offset this segment may hold; also its file names.
     *
     * @return the base offset
     */
    public long baseOffset() {
        return baseOffset;
    }

    /**
     * The published size of the data file: whole batches only.
     *
     * @return bytes
     */
    public int sizeInBytes() {
        return sizeInBytes;
    }

    /**
     * The data file.
     *
     * @return the path of {@code <base>.log}
     */
    public Path logFile() {
        return logFile;
    }

    /**
     * The data file's channel, for slices; readers must use positional reads only.
     *
     * @return the channel
     */
    public FileChannel channel() {
        return channel;
    }

    /** How many bytes of the data file the readers' mapping covers, -1 when none (tests). */
    int readMappedBytes() {
        return reader.mappedBytes();
    }

    /**
     * The offset index (internal; exposed for tests and recovery).
     *
     * @return the offset index
     */
    public OffsetIndex offsetIndex() {
        return offsetIndex;
    }

    /**
     * The time index (internal; exposed for tests and recovery).
     *
     * @return the time index
     */
    public TimeIndex timeIndex() {
        return timeIndex;
    }

    /**
     * The segment's aborted-transaction index ({@code .txnindex}): one entry per transaction whose ABORT marker is
     * in this segment. Written by the log's writer; read by any thread.
     *
     * @return the index
     */
    public TransactionIndex txnIndex() {
        return txnIndex;
    }

    /**
     * The largest batch timestamp in the segment, Kafka's {@code largestTimestamp} for retention and
     * timestamp search.
     *
     * @return the timestamp, or -1 when no batch has one
     */
    public long maxTimestampSoFar() {
        return indexing.maxTimestampSoFar();
    }

    /**
     * This segment's roll jitter.
     *
     * @return milliseconds subtracted from {@code segment.ms}
     */
    public long rollJitterMs() {
        return rollJitterMs;
    }

    /**
     * Kafka's roll rule ({@code LogSegment.shouldRoll}) for an append of {@code incomingBytes} whose largest
     * timestamp and last offset are given, plus an all-or-nothing guard Kafka lacks: the indexes must have
     * room for every entry the append would add, so an append never fails half-way on a full index.
     *
     * @param config               the segment configuration
     * @param incomingBytes        bytes of the append
     * @param incomingMaxTimestamp largest batch timestamp of the append (-1 when none)
     * @param incomingLastOffset   last offset of the append
     * @param incomingIndexEntries index entries the append would add ({@link #indexEntriesFor})
     * @param nowMs                the current time, for segments whose batches carry no timestamps
     * @return whether the active segment must roll before this append
     */
    public boolean shouldRoll(final SegmentConfig config, final int incomingBytes, final long incomingMaxTimestamp,
                              final long incomingLastOffset, final int incomingIndexEntries, final long nowMs) {
        final int size = sizeInBytes;
        final boolean reachedRollMs = timeWaitedForRollMs(nowMs, incomingMaxTimestamp)
            > config.segmentMs() - rollJitterMs;
        return size > config.segmentBytes() - incomingBytes
            || (size > 0 && reachedRollMs)
            || offsetIndex.isFull()
            || timeIndex.isFull()
            || offsetIndex.entries() + incomingIndexEntries > offsetIndex.maxEntries()
            || timeIndex.entries() + incomingIndexEntries > timeIndex.maxEntries() - 1
            || !canConvertToRelativeOffset(incomingLastOffset);
    }

    /**
     * Kafka's {@code timeWaitedForRoll}: record time since the first batch of the segment when batches carry
     * timestamps, otherwise wall-clock time since the segment was created or opened.
     *
     * @param nowMs            the current time
     * @param messageTimestamp the largest timestamp of the incoming append
     * @return milliseconds
     */
    long timeWaitedForRollMs(final long nowMs, final long messageTimestamp) {
        final long first = rollingBasedTimestampMs == UNKNOWN ? NO_TIMESTAMP : rollingBasedTimestampMs;
        return first >= 0 ? messageTimestamp - first : nowMs - createdMs;
    }

    /**
     * Whether {@code offset} can be stored in this segment's indexes as a 32-bit offset relative to the base.
     *
     * @param offset an offset
     * @return {@code 0 <= offset - baseOffset <= Integer.MAX_VALUE}
     */
    public boolean canConvertToRelativeOffset(final long offset) {
        final long relative = offset - baseOffset;
        return relative >= 0 && relative <= Integer.MAX_VALUE;
    }

    /**
     * How many index entries an append of these (validated) batches would add under the index rule.
     *
     * @param batches the append's batches
     * @return the number of entries
     */
    public int indexEntriesFor(final AppendBatches batches) {
        return indexing.entriesFor(batches);
    }

    /**
     * Appends validated batches whose offsets are assigned: one positional write of all bytes at the end of
     * the file, then the index entries batch by batch, then the new size is published. Writer only.
     *
     * @param source  the bytes; its position and limit are left unchanged
     * @param view    the same buffer as an Agrona view (same indexes as {@code source})
     * @param offset  position of the first batch in {@code source}
     * @param batches the batches' sizes, offsets and timestamps, as the appender noted them
     * @throws IOException if the write fails; nothing is published then
     */
    public void append(final ByteBuffer source, final DirectBuffer view, final int offset,
                       final AppendBatches batches) throws IOException {
        final int start = sizeInBytes;
        final int length = batches.bytes();
        if (length <= mappedAppendMaxBytes) {
            mappedTail.write(view, offset, length, start);
        } else {
            writeFully(source, offset, length, start);
        }
        int filePosition = start;
        for (int i = 0, n = batches.count(); i < n; i++) {
            final int size = batches.size(i);
            final long maxTimestamp = batches.maxTimestamp(i);
            if (filePosition == 0) {
                rollingBasedTimestampMs = maxTimestamp;
            }
            indexing.account(batches.lastOffset(i), maxTimestamp, filePosition, size);
            filePosition += size;
        }
        // Release, not volatile (no full fence): readers' volatile loads still see the copy and index entries.
        SIZE_IN_BYTES.setRelease(this, filePosition);
    }

    private void writeFully(final ByteBuffer source, final int offset, final int length, final long filePosition)
        throws IOException {
        final int savedPosition = source.position();
        final int savedLimit = source.limit();
        try {
            source.limit(offset + length).position(offset);
            long at = filePosition;
            while (source.hasRemaining()) {
                at += channel.write(source, at);
            }
        } finally {
            source.limit(savedLimit).position(savedPosition);
        }
    }

    /**
     * Rebuilds both indexes from the data file with the append rule and recomputes the largest timestamp;
     * used when an index file is missing or corrupt. Trusts the data file's batch lengths (no CRC check).
     *
     * @param scratch a heap buffer of at least 64 bytes for header reads
     * @throws IOException if the data file cannot be read
     * @throws CorruptSegmentException if a batch length does not fit the file (a torn tail needs crash recovery)
     */
    public void rebuildIndexes(final ByteBuffer scratch) throws IOException {
        reader.indexesRebuilt();
        indexing.clearForRebuild();
        final int size = sizeInBytes;
        long previousLast = baseOffset - 1;
        for (int position = 0; position < size; ) {
            final int batchSize = readHeader(scratch, position, size, TIMESTAMP_HEADER_BYTES);
            final long base = scratch.getLong(BASE_OFFSET_OFFSET);
            final long lastOffset = base + scratch.getInt(LAST_OFFSET_DELTA_OFFSET);
            // The base offset is not covered by the CRC: the entries built from it must still ascend and fit.
            if (base <= previousLast) {
                throw new CorruptSegmentException(logFile, new CorruptSegmentException.Finding(position, base,
                    "baseOffset", "above " + previousLast, Long.toString(base), "the batch's base offset goes back"
                        + " into the offsets before it (the base offset is not covered by the CRC), found while"
                        + " rebuilding the indexes; re-fetch the partition from a replica"));
            }
            if (!canConvertToRelativeOffset(lastOffset)) {
                throw new CorruptSegmentException(logFile, new CorruptSegmentException.Finding(position, base,
                    "lastOffset", "at most " + (baseOffset + Integer.MAX_VALUE), Long.toString(lastOffset), "the batch"
                        + " does not fit the segment's 32-bit relative offsets (the base offset is not covered by the"
                        + " CRC), found while rebuilding the indexes; re-fetch the partition from a replica"));
            }
            indexing.account(lastOffset, scratch.getLong(MAX_TIMESTAMP_OFFSET), position, batchSize);
            previousLast = lastOffset;
            position += batchSize;
        }
        // Kafka rebuilds with a fresh counter too; a reopened segment starts counting again from 0.
        indexing.restartCount();
        indexing.appendFinalTimeIndexEntry();
    }

    int readHeader(final ByteBuffer scratch, final int position, final int limit, final int bytes)
        throws IOException {
        return reader.readHeader(scratch, position, limit, bytes);
    }

    /**
     * The segment's read side: lookups by offset and timestamp, bounded by a size the caller read. Readers call it
     * directly, each with its own {@link BatchCursor}.
     *
     * @return the reader
     */
    public SegmentReader reader() {
        return reader;
    }

    /**
     * The segment stops being the active one (roll or close): appends the final time-index entry and trims
     * both index files to their entries, as Kafka's {@code onBecomeInactiveSegment} does. Writer only.
     *
     * @throws IOException if an index cannot be resized
     */
    public void onBecomeInactive() throws IOException {
        trimMappedTail();
        reader.seal();
        indexing.appendFinalTimeIndexEntry();
        offsetIndex.trimToValidSize();
        timeIndex.trimToValidSize();
    }

    /** Unmaps the tail window; it must go before any truncation (a mapped page past the end raises SIGBUS). */
    private void releaseMappedTail() {
        if (mappedTail != null) {
            mappedTail.release();
        }
    }

    /** Unmaps the tail window and cuts the zeros it left past the data, so the file is exactly the batches. */
    private void trimMappedTail() throws IOException {
        if (mappedTail != null && mappedTail.isMapped()) {
            mappedTail.release();
            if (channel.size() > sizeInBytes) {
                // Through the reader: a stale reader may have mapped the window's zeros past the data, and a
                // mapped page past the new end raises SIGBUS; shrinkDataFile drains that mapping first.
                reader.shrinkDataFile(sizeInBytes);
            }
        }
    }

    /**
     * Grows both indexes back to {@code segment.index.bytes}: a reopened active segment appends again
     * (Kafka's loader does the same).
     *
     * @param maxIndexBytes the preallocated size
     * @throws IOException if an index cannot be resized
     */
    public void resizeIndexes(final int maxIndexBytes) throws IOException {
        reader.unseal();
        offsetIndex.resize(maxIndexBytes);
        timeIndex.resize(maxIndexBytes);
    }

    /**
     * Forces the data file and the indexes to disk. Safe to call while the writer appends.
     *
     * @throws IOException if an fsync fails; the caller must not retry it
     */
    public void flush() throws IOException {
        channel.force(true);
        offsetIndex.flush();
        timeIndex.flush();
        txnIndex.flush();
    }

    /**
     * Closes the indexes and the data file, keeping every failure. No reader may be inside a lookup.
     * Idempotent.
     *
     * @throws IOException the first failure, with the others suppressed
     */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        reader.closeMapping();
        Throwable failure = null;
        try {
            trimMappedTail();
        } catch (final IOException | RuntimeException e) {
            failure = e;
        }
        closeFiles(true, failure);
    }

    /**
     * Closes the indexes (trimmed when {@code trim}, else abandoned as they are) and the data file, adding each
     * failure to {@code failure}, then throws the first failure with the others suppressed.
     */
    private void closeFiles(final boolean trim, final Throwable earlier) throws IOException {
        // An index found wrong by a reader goes with the close, so the next open rebuilds it from the data file (not
        // the transaction index: its entries come from the producer state, not from this file's batches).
        final boolean dropIndexes = trim && reader.indexesSuspect();
        final FileClose[] steps = dropIndexes
            ? new FileClose[] {offsetIndex::closeAndDelete, timeIndex::closeAndDelete, txnIndex::close, channel::close}
            : trim ? new FileClose[] {offsetIndex::close, timeIndex::close, txnIndex::close, channel::close}
            : new FileClose[] {offsetIndex::abandon, timeIndex::abandon, txnIndex::close, channel::close};
        Throwable failure = earlier;
        for (final FileClose step : steps) {
            try {
                step.run();
            } catch (final IOException | RuntimeException e) {
                failure = addTo(failure, e);
            }
        }
        if (failure instanceof IOException) {
            throw (IOException) failure;
        }
        if (failure instanceof RuntimeException) {
            throw (RuntimeException) failure;
        }
    }

    /** One step of {@link #closeFiles}. */
    @FunctionalInterface
    private interface FileClose {
        void run() throws IOException;
    }

    void closeAfterFailure(final Throwable primary) {
        try {
            close();
        } catch (final IOException | RuntimeException e) {
            primary.addSuppressed(e);
        }
    }

    private static Throwable addTo(final Throwable first, final Throwable next) {
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }

    @Override
    public String toString() {
        return "LogSegment{baseOffset=" + baseOffset + ", sizeInBytes=" + sizeInBytes + ", file=" + logFile + "}";
    }
}
