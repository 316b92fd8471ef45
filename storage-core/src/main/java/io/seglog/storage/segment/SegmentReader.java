package io.seglog.storage.segment;

import static io.seglog.storage.format.RecordBatchDescriptor.BASE_OFFSET_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.BATCH_HEADER_LENGTH;
import static io.seglog.storage.format.RecordBatchDescriptor.LAST_OFFSET_DELTA_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.LENGTH_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.LOG_OVERHEAD;
import static io.seglog.storage.format.RecordBatchDescriptor.MAGIC_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.MAGIC_V2;
import static io.seglog.storage.format.RecordBatchDescriptor.MAX_TIMESTAMP_OFFSET;

import io.seglog.storage.index.IndexEntry;
import io.seglog.storage.index.OffsetIndex;
import io.seglog.storage.index.TimeIndex;
import io.seglog.storage.mapping.SharedMapping;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The read side of a {@link LogSegment} ({@link LogSegment#reader()}): batch-header scans bounded by a published
 * size, offset translation, the last whole batch below a byte limit, Kafka's timestamp search and the next offset.
 * Every length read from disk is checked against the limit before it is used. Readers call it directly; each
 * brings its own {@link BatchCursor}, which holds its scratch buffers and receives each answer as fields. The
 * segment owns the data file's size and the writer's state; this class owns the readers' mapping of the file.
 *
 * <p>Header reads: through a read-only mapping of the data file (a {@link SharedMapping}, {@code seglog.read.mapped},
 * on by default) when the bytes lie inside it, else with a positional read. A {@code pread} costs about 1 us on
 * a VM and a random-offset read needs two or three of them (the first batch, then the end of the slice), which
 * was the whole latency of a read; a mapped header costs a few nanoseconds once its page is mapped. The mapping
 * is made lazily by the first reader that needs it, covers the file up to that reader's published size, and is
 * remapped only when the segment has grown by a quarter (at least {@link #MIN_REMAP_GROWTH_BYTES}) since: an
 * active segment's newest bytes are read with {@code pread} in between, which bounds the remaps (and the page
 * faults of touching a new mapping) to a few per doubling of the segment. Once the segment is {@link #seal()
 * sealed} (rolled) the next reader maps it whole, and it stays mapped until close.
 *
 * <p>Lifetime of the mapping: each lookup acquires it and releases it when done, so it is never unmapped under a
 * reader. A remap retires the old mapping (its last user unmaps it). The data file shrinks (truncation) only
 * through {@link #shrinkDataFile}, which retires the mapping and waits until its users are gone, so no page past
 * the new end of the file is ever touched through it, then allows mapping again.
 * {@link #closeMapping()} (segment close) retires it for good.
 *
 * <p>Thread-safety: any number of concurrent readers, positional reads only, each with its own scratch buffer;
 * mapping and unmapping are guarded by {@code mapLock}, which only the slow path (a new mapping) and the writer
 * take.
 */
public final class SegmentReader {
    private static final Logger LOG = LoggerFactory.getLogger(SegmentReader.class);
    /** A remap happens only after at least this much growth, so small appends never cost a remap each. */
    static final int MIN_REMAP_GROWTH_BYTES = 1 << 20;
    /** No bound on a segment's offsets: lookups that are not served (the writer's, the checks' own) skip the checks. */
    static final long NO_UPPER_BOUND = Long.MAX_VALUE;
    private static final ByteOrder ORDER = ByteOrder.BIG_ENDIAN;

    private final Path logFile;
    private final long baseOffset;
    private final FileChannel channel;
    private final OffsetIndex offsetIndex;
    private final TimeIndex timeIndex;
    private final boolean mappingEnabled;

    /** Guards creating, retiring and blocking the mapping; never taken by a reader that finds one. */
    private final Object mapLock = new Object();
    /** The current mapping, or null when there is none (yet, or while suspended, or after close). */
    private volatile SharedMapping map;
    /** Guarded by mapLock: no new mapping while the file shrinks (suspended) or after close (closed). */
    private boolean suspended;
    private boolean closed;
    /** Set when the segment stops growing (roll, close): a partial mapping is then extended to the whole file. */
    private volatile boolean sealed;
    /** Guarded by mapLock: mapping failed once (e.g. no address space); positional reads from then on. */
    private boolean mappingFailed;

    /** The segment's published size: bytes below it are whole batches (index entries are checked against them). */
    private final IntSupplier publishedSize;
    /**
     * Set when an offset-index (or time-index) entry did not match the batch it points to: from then on lookups in
     * this segment scan from its first batch instead of trusting that index, and the segment drops the index files
     * when it closes, so the next open rebuilds them from the data file.
     */
    private volatile boolean offsetIndexSuspect;
    private volatile boolean timeIndexSuspect;

    SegmentReader(final Path logFile, final long baseOffset, final FileChannel channel, final OffsetIndex offsetIndex,
                  final TimeIndex timeIndex, final boolean mappingEnabled, final IntSupplier publishedSize) {
        this.logFile = logFile;
        this.baseOffset = baseOffset;
        this.channel = channel;
        this.offsetIndex = offsetIndex;
        this.timeIndex = timeIndex;
        this.mappingEnabled = mappingEnabled;
        this.publishedSize = publishedSize;
    }

    /**
     * Whether a lookup found an index entry that contradicts the data file (the indexes must be rebuilt).
     *
     * @return true once either index was found wrong
     */
    boolean indexesSuspect() {
        return offsetIndexSuspect || timeIndexSuspect;
    }

    private void offsetIndexWrong(final long entryOffset, final int entryPosition, final String found) {
        if (!offsetIndexSuspect) {
            offsetIndexSuspect = true;
            LOG.warn("Offset index {} is wrong: its entry (offset {}, position {}) does not match the data file ({});"
                + " until the indexes are rebuilt from the data file (at open, or at the next open), lookups in {}"
                + " scan from its first batch", offsetIndex.file(), entryOffset, entryPosition, found, logFile);
        }
    }

    private void timeIndexWrong(final long entryOffset, final long entryTimestamp, final String found) {
        if (!timeIndexSuspect) {
            timeIndexSuspect = true;
            LOG.warn("Time index {} is wrong: its entry (timestamp {}, offset {}) does not match the data file ({});"
                + " until the indexes are rebuilt from the data file (at open, or at the next open), timestamp"
                + " searches in {} scan from its first batch", timeIndex.file(), entryTimestamp, entryOffset, found,
                logFile);
        }
    }

    /**
     * Whether the last entry of each index is true to the data file (an open checks this: a {@code .log} cut short
     * or replaced behind its indexes, or a flipped bit in a last entry, must not be trusted).
     *
     * @param cursor a cursor for the header reads
     * @return true when both last entries hold (or the indexes are empty)
     * @throws IOException if a read fails
     */
    boolean lastEntriesHold(final BatchCursor cursor) throws IOException {
        final int offsetEntries = offsetIndex.entries();
        if (offsetEntries > 0 && !offsetEntryHolds(null, cursor.scratch, offsetIndex.entryOffset(offsetEntries - 1),
            offsetIndex.entryPosition(offsetEntries - 1))) {
            return false;
        }
        final int timeEntries = timeIndex.entries();
        return timeEntries == 0 || timeEntryHolds(timeIndex.entryOffset(timeEntries - 1),
            timeIndex.entryTimestamp(timeEntries - 1), cursor);
    }

    /** The indexes were rebuilt from the data file: trust them again. Writer only. */
    void indexesRebuilt() {
        offsetIndexSuspect = false;
        timeIndexSuspect = false;
    }

    /**
     * Whether the offset-index entry (last offset {@code entryOffset} of the batch at {@code entryPosition}) is true
     * to the data file: the position lies below the published size and a v2 batch whose last offset is exactly the
     * entry's starts there. Fills {@code scratch} with that header.
     */
    private boolean offsetEntryHolds(final SharedMapping mapped, final ByteBuffer scratch, final long entryOffset,
                                     final int entryPosition) throws IOException {
        final int size = publishedSize.getAsInt();
        if (entryPosition < 0 || entryPosition > size - BATCH_HEADER_LENGTH) {
            offsetIndexWrong(entryOffset, entryPosition, "the position is outside the " + size + " bytes of batches");
            return false;
        }
        try {
            readHeader(mapped, scratch, entryPosition, size, LogSegment.OFFSET_HEADER_BYTES);
        } catch (final CorruptSegmentException e) {
            offsetIndexWrong(entryOffset, entryPosition, "no batch starts there: " + e.getMessage());
            return false;
        }
        final long last = scratch.getLong(BASE_OFFSET_OFFSET) + scratch.getInt(LAST_OFFSET_DELTA_OFFSET);
        if (scratch.get(MAGIC_OFFSET) != MAGIC_V2 || last != entryOffset) {
            offsetIndexWrong(entryOffset, entryPosition, "the batch there has magic " + scratch.get(MAGIC_OFFSET)
                + " and last offset " + last);
            return false;
        }
        return true;
    }

    /**
     * The mapping to read below {@code limit} with, acquired (the caller releases it), or null: mapping is off,
     * suspended or closed, or failed. Maps or remaps when there is no mapping or the file grew enough past it.
     */
    private SharedMapping acquireMap(final int limit) {
        if (!mappingEnabled) {
            return null;
        }
        final SharedMapping current = map;
        if (current != null && !worthRemapping(current, limit) && current.acquire()) {
            return current;
        }
        return remap(limit);
    }

    private SharedMapping acquireExisting() {
        final SharedMapping current = map;
        return current != null && current.acquire() ? current : null;
    }

    private boolean worthRemapping(final SharedMapping current, final int limit) {
        final int missing = limit - current.bytes();
        return missing > 0 && (sealed || (missing >= MIN_REMAP_GROWTH_BYTES && missing >= current.bytes() >>> 2));
    }

    /** The segment stopped growing (it rolled or closes): the next reader maps whatever is still unmapped. */
    void seal() {
        sealed = true;
    }

    /** The segment grows again (it became the active one after a reopen or a truncation). */
    void unseal() {
        sealed = false;
    }

    private SharedMapping remap(final int limit) {
        synchronized (mapLock) {
            if (suspended || closed || mappingFailed) {
                return null;
            }
            final SharedMapping current = map;
            if (current != null && !worthRemapping(current, limit) && current.acquire()) {
                return current; // another reader remapped meanwhile
            }
            try {
                // Never beyond the file's length now: mapping past it would extend the file, and a page past the
                // end raises SIGBUS. The writer cannot shrink the file meanwhile: it must take mapLock first.
                final long fileBytes = channel.size();
                final int bytes = (int) Math.min(limit, fileBytes);
                if (bytes <= 0 || (current != null && bytes <= current.bytes())) {
                    return current != null && current.acquire() ? current : null;
                }
                final SharedMapping fresh = new SharedMapping(channel.map(FileChannel.MapMode.READ_ONLY, 0, bytes));
                fresh.acquire();
                map = fresh;
                if (current != null) {
                    current.retire();
                }
                return fresh;
            } catch (final IOException | RuntimeException e) {
                // Out of address space or map count: correct without, just slower. Not retried per read, since a
                // failing mmap may first run a full GC (the JDK's retry) and costs far more than the pread it saves.
                mappingFailed = true;
                return null;
            }
        }
    }

    /**
     * Cuts the data file to {@code position} with the readers' mapping retired and drained first (a mapped page
     * past the new end of the file raises SIGBUS when touched); readers map again afterwards, below the new size.
     * Writer only.
     */
    void shrinkDataFile(final int position) throws IOException {
        suspendMapping();
        try {
            channel.truncate(position);
        } finally {
            resumeMapping();
        }
    }

    /**
     * Retires the mapping and waits until no reader uses it, then blocks new mappings until
     * {@link #resumeMapping()}. A reader holds the mapping only for the few header reads of one lookup, so the
     * wait is short.
     */
    private void suspendMapping() {
        final SharedMapping old;
        synchronized (mapLock) {
            suspended = true;
            old = map;
            map = null;
        }
        if (old != null) {
            old.retireAndAwait(); // a reader is inside one lookup (a few header reads); it unmaps when it leaves
        }
    }

    /** Allows mapping again after a shrink; the segment is the active one again, so it grows. */
    private void resumeMapping() {
        synchronized (mapLock) {
            suspended = false;
            sealed = false;
        }
    }

    /** Retires the mapping for good (segment close); its last reader unmaps it. Idempotent. */
    void closeMapping() {
        final SharedMapping old;
        synchronized (mapLock) {
            closed = true;
            old = map;
            map = null;
        }
        if (old != null) {
            old.retire();
        }
    }

    /**
     * Whether a mapping is in place (tests).
     *
     * @return the mapped length, or -1 when none
     */
    int mappedBytes() {
        final SharedMapping current = map;
        return current == null ? -1 : current.bytes();
    }

    /**
     * Reads the header of the batch at {@code position} into {@code scratch} and checks its length against
     * {@code limit}: a length read from disk is never trusted.
     *
     * @return the batch size
     */
    int readHeader(final ByteBuffer scratch, final int position, final int limit, final int bytes)
        throws IOException {
        return readHeader(null, scratch, position, limit, bytes);
    }

    private int readHeader(final SharedMapping mapped, final ByteBuffer scratch, final int position, final int limit,
                           final int bytes) throws IOException {
        if (limit - position < BATCH_HEADER_LENGTH) {
            throw new CorruptSegmentException("partial batch header at position=" + position + ": only "
                + (limit - position) + " bytes before the end=" + limit + " (crash recovery needed)", logFile);
        }
        readFully(mapped, scratch, position, bytes, limit);
        final int batchLength = scratch.getInt(LENGTH_OFFSET);
        if (batchLength < BATCH_HEADER_LENGTH - LOG_OVERHEAD || batchLength > limit - position - LOG_OVERHEAD) {
            throw new CorruptSegmentException("batchLength=" + batchLength + " at position=" + position
                + " does not fit between the header size " + (BATCH_HEADER_LENGTH - LOG_OVERHEAD) + " and the "
                + (limit - position - LOG_OVERHEAD) + " bytes left before end=" + limit, logFile);
        }
        return batchLength + LOG_OVERHEAD;
    }

    /**
     * Fills {@code scratch} with {@code [position, position + bytes)}: a copy from the mapping when it covers
     * them and {@code scratch} is a heap buffer, else positional reads.
     */
    void readFully(final SharedMapping mapped, final ByteBuffer scratch, final int position, final int bytes,
                   final int limit) throws IOException {
        if (mapped != null && mapped.covers(position, bytes) && scratch.hasArray()) {
            mapped.copyTo(position, scratch, bytes);
            return;
        }
        scratch.clear().limit(bytes);
        int read = 0;
        while (read < bytes) {
            final int n = channel.read(scratch, position + (long) read);
            if (n < 0) {
                throw new CorruptSegmentException("data file ended at position=" + (position + read)
                    + " before the published size=" + limit, logFile);
            }
            read += n;
        }
    }

    /**
     * Copies {@code [position, position + length)} into {@code target} at its position (which advances) through
     * the readers' mapping, when it covers the range. Thread-safe, allocation-free.
     *
     * @param position file position of a range below a published size
     * @param target   a buffer with at least {@code length} bytes remaining
     * @param length   bytes to copy
     * @return true when copied; false when the range is not mapped (the caller reads it with positional reads)
     */
    public boolean copyMapped(final int position, final ByteBuffer target, final int length) {
        final SharedMapping mapped = acquireMap(position + length);
        if (mapped == null) {
            return false;
        }
        try {
            if (!mapped.covers(position, length)) {
                return false;
            }
            mapped.view().getBytes(position, target, target.position(), length);
            target.position(target.position() + length);
            return true;
        } finally {
            mapped.release();
        }
    }

    /**
     * Finds the first batch whose last offset is at least {@code offset}, scanning batch headers from the offset
     * index's entry and stopping at {@code maxPosition}; the answer goes into {@code cursor} (position, size, base
     * offset). Thread-safe, allocation-free.
     *
     * @param offset      the offset sought
     * @param maxPosition a published size or a batch boundary below it
     * @param cursor      the reader's cursor
     * @return true when found; false when no such batch starts below {@code maxPosition}
     * @throws IOException if a read fails, or a batch length does not fit ({@link CorruptSegmentException})
     */
    public boolean findBatch(final long offset, final int maxPosition, final BatchCursor cursor) throws IOException {
        return findBatch(offset, maxPosition, NO_UPPER_BOUND, cursor, true);
    }

    /**
     * {@link #findBatch(long, int, BatchCursor)} for an answer that is served: every batch the scan steps over or
     * answers must lie where its segment says, since a base offset is not covered by the batch CRC and a flipped bit
     * there would otherwise serve a batch under offsets it does not hold. Each batch must start above the previous
     * one's last offset (and at or above the segment's base offset) and end below {@code upperOffset}, the next
     * segment's base offset (or the log end); and the batch found must end below the next batch's base offset (one
     * 8-byte read more). Thread-safe, allocation-free.
     *
     * @param offset      the offset sought
     * @param maxPosition a published size or a batch boundary below it
     * @param upperOffset every offset of this segment lies below it: the next segment's base offset, or the log end
     * @param cursor      the reader's cursor
     * @return true when found; false when no such batch starts below {@code maxPosition}
     * @throws IOException if a read fails; a {@link CorruptSegmentException} with its finding (file, position, offset)
     *     when a batch lies outside its place
     */
    public boolean findBatch(final long offset, final int maxPosition, final long upperOffset,
                             final BatchCursor cursor) throws IOException {
        return findBatch(offset, maxPosition, upperOffset, cursor, true);
    }

    /**
     * {@link #findBatch} for the writer before it cuts the file: uses the readers' mapping if there is one but
     * makes none, since the truncation drops it before the cut.
     *
     * @param offset      the offset sought
     * @param maxPosition the published size
     * @param cursor      the writer's cursor
     * @return true when found
     * @throws IOException if a read fails
     */
    public boolean findBatchForTruncation(final long offset, final int maxPosition, final BatchCursor cursor)
        throws IOException {
        return findBatch(offset, maxPosition, NO_UPPER_BOUND, cursor, false);
    }

    private boolean findBatch(final long offset, final int maxPosition, final long upperOffset,
                              final BatchCursor cursor, final boolean mayMap) throws IOException {
        final IndexEntry entry = cursor.entry;
        if (offset >= baseOffset && !offsetIndexSuspect) {
            offsetIndex.lookup(offset, entry);
        } else {
            entry.none(baseOffset);
        }
        final ByteBuffer scratch = cursor.scratch;
        final SharedMapping mapped = mayMap ? acquireMap(maxPosition) : acquireExisting();
        try {
            int position = 0;
            if (entry.found()) {
                // Indexes are not checksummed: the batch the entry points to must be the one it names. The check reads
                // the header the scan then starts from (through the mapping, a few nanoseconds).
                if (offsetEntryHolds(mapped, scratch, entry.offset(), entry.position())) {
                    position = entry.position();
                    if (position >= maxPosition) {
                        return false;
                    }
                }
            }
            final boolean checked = upperOffset != NO_UPPER_BOUND;
            // The last offset before the scan's first batch: the segment's base - 1 from its start; from an index
            // entry the previous batch is not read, so only the segment's base bounds the first one.
            long previousLast = baseOffset - 1;
            while (position < maxPosition) {
                final int size = readHeader(mapped, scratch, position, maxPosition, LogSegment.OFFSET_HEADER_BYTES);
                final long base = scratch.getLong(BASE_OFFSET_OFFSET);
                final long lastOffset = base + scratch.getInt(LAST_OFFSET_DELTA_OFFSET);
                if (checked && (base <= previousLast || lastOffset >= upperOffset)) {
                    throw misplaced(position, base, lastOffset, previousLast, upperOffset);
                }
                if (lastOffset >= offset) {
                    cursor.found(position, size);
                    if (checked) {
                        checkNextStartsAfter(mapped, scratch, position + size, lastOffset);
                    }
                    return true;
                }
                previousLast = lastOffset;
                position += size;
            }
            return false;
        } finally {
            if (mapped != null) {
                mapped.release();
            }
        }
    }

    /**
     * The batch found must end below the next batch's base offset; otherwise its base offset moved up (or the next
     * one's moved down) and serving it would answer offsets it does not hold, or skip records the file holds. One
     * 8-byte read, through the mapping when the next header lies in it (the same page, mostly).
     */
    private void checkNextStartsAfter(final SharedMapping mapped, final ByteBuffer scratch, final int nextPosition,
                                      final long lastOffset) throws IOException {
        final int size = publishedSize.getAsInt();
        if (size - nextPosition < BATCH_HEADER_LENGTH) {
            return;
        }
        final long nextBase;
        if (mapped != null && mapped.covers(nextPosition, Long.BYTES)) {
            nextBase = mapped.view().getLong(nextPosition + BASE_OFFSET_OFFSET, ORDER);
        } else {
            readFully(null, scratch, nextPosition, Long.BYTES, size);
            nextBase = scratch.getLong(BASE_OFFSET_OFFSET);
        }
        if (nextBase <= lastOffset) {
            throw new CorruptSegmentException(logFile, new CorruptSegmentException.Finding(nextPosition, nextBase,
                "baseOffset", "above " + lastOffset, Long.toString(nextBase), "the batch at position " + nextPosition
                    + " starts inside the offsets of the batch before it, which ends at offset " + lastOffset + " (base"
                    + " offsets are not covered by the CRC: one of the two is damaged); the read is refused rather"
                    + " than skip records; re-fetch the partition from a replica"));
        }
    }

    /** A batch whose offsets lie outside its place in the segment: damage, named by file, position and offset. */
    private CorruptSegmentException misplaced(final int position, final long base, final long lastOffset,
                                              final long previousLast, final long upperOffset) {
        final boolean below = base <= previousLast;
        return new CorruptSegmentException(logFile, new CorruptSegmentException.Finding(position, base,
            below ? "baseOffset" : "lastOffset", below ? "above " + previousLast : "below " + upperOffset,
            Long.toString(below ? base : lastOffset), below
                ? "the batch's base offset " + base + " does not follow the previous offset " + previousLast + " of"
                    + " the segment (base offsets are not covered by the CRC)"
                : "the batch's offsets " + base + " to " + lastOffset + " reach " + upperOffset + ", where the next"
                    + " segment (or the log end) begins (base offsets are not covered by the CRC)"
                + "; the read is refused rather than serve the batch under offsets it does not hold; re-fetch the"
                + " partition from a replica"));
    }

    /**
     * The start of the first batch whose last offset is at least {@code offset}, i.e. the byte position that an
     * upper bound of {@code offset} (exclusive) translates to. Thread-safe, allocation-free.
     *
     * @param offset      the upper bound
     * @param maxPosition a published size
     * @param cursor      the reader's cursor (its answer fields are overwritten)
     * @return the position, or {@code maxPosition} when every batch below it ends before {@code offset}
     * @throws IOException if a read fails
     */
    public int batchStartAtOrAfter(final long offset, final int maxPosition, final BatchCursor cursor)
        throws IOException {
        return findBatch(offset, maxPosition, NO_UPPER_BOUND, cursor, true) ? cursor.position : maxPosition;
    }

    /**
     * The end of the last whole batch that lies within {@code [fromPosition, limitPosition]}, where
     * {@code fromPosition} is a batch start. Starts from the last offset-index entry at or below the limit, so the
     * scan covers about {@code index.interval.bytes}. Thread-safe, allocation-free.
     *
     * @param fromPosition  a batch boundary
     * @param limitPosition the largest end allowed; at most a published size
     * @param cursor        the reader's cursor (only its scratch is used)
     * @return a batch boundary in {@code [fromPosition, limitPosition]}
     * @throws IOException if a read fails
     */
    public int lastBatchEndWithin(final int fromPosition, final int limitPosition, final BatchCursor cursor)
        throws IOException {
        int start = fromPosition;
        final IndexEntry entry = cursor.entry;
        if (!offsetIndexSuspect) {
            // One lookup that reads the index's count once (a truncation cannot move it under the search) and tries
            // the warm tail first; an entry below fromPosition is no help, the scan starts at a batch boundary anyway.
            offsetIndex.lookupAtMost(limitPosition, entry);
            if (entry.found() && entry.position() > fromPosition) {
                final SharedMapping mapped = acquireExisting();
                try {
                    if (offsetEntryHolds(mapped, cursor.scratch, entry.offset(), entry.position())) {
                        start = entry.position();
                    }
                } finally {
                    if (mapped != null) {
                        mapped.release();
                    }
                }
            }
        }
        return lastBatchEndFrom(start, limitPosition, cursor.scratch);
    }

    /** The end of the last whole batch within {@code [position, limitPosition]}, walking lengths from a batch start. */
    private int lastBatchEndFrom(final int startPosition, final int limitPosition, final ByteBuffer scratch)
        throws IOException {
        int position = startPosition;
        if (limitPosition - position < BATCH_HEADER_LENGTH) {
            return position;
        }
        final SharedMapping mapped = acquireMap(limitPosition);
        try {
            while (limitPosition - position >= BATCH_HEADER_LENGTH) {
                final int batchLength;
                if (mapped != null && mapped.covers(position, LOG_OVERHEAD)) {
                    batchLength = mapped.view().getInt(position + LENGTH_OFFSET, ORDER);
                } else {
                    readFully(null, scratch, position, LOG_OVERHEAD, limitPosition);
                    batchLength = scratch.getInt(LENGTH_OFFSET);
                }
                if (batchLength < BATCH_HEADER_LENGTH - LOG_OVERHEAD) {
                    throw new CorruptSegmentException("batchLength=" + batchLength + " at position=" + position
                        + " is below the header size " + (BATCH_HEADER_LENGTH - LOG_OVERHEAD), logFile);
                }
                if (batchLength > limitPosition - position - LOG_OVERHEAD) {
                    break;
                }
                position += batchLength + LOG_OVERHEAD;
            }
            return position;
        } finally {
            if (mapped != null) {
                mapped.release();
            }
        }
    }

    /**
     * Kafka's {@code findOffsetByTimestamp}: the first offset at or after {@code startingOffset} whose record
     * timestamp is at least {@code timestampMs}, looking only below {@code maxPosition}. The time index gives the
     * last batch that is certainly too early; the scan starts there. Thread-safe and allocation-free: the records
     * of a candidate batch are read in chunks of the cursor's search buffer ({@link TimestampScan}), never into a
     * buffer sized from the batch length on disk.
     *
     * @param timestampMs    the target timestamp
     * @param startingOffset the first offset that may be returned (the log start)
     * @param maxPosition    a published size
     * @param upperOffset    every offset of this segment lies below it (the next segment's base, or the log end):
     *                       the batches the search reads are checked to lie in their place, as a served read's are
     * @param cursor         the reader's cursor
     * @return the offset, or -1 when no record below {@code maxPosition} qualifies
     * @throws IOException if a read fails, or a batch or record does not fit where it lies
     * @throws io.seglog.storage.format.CodecUnavailableException if a compressed batch must be read and its codec
     *         is not on the class path
     */
    public long findOffsetByTimestamp(final long timestampMs, final long startingOffset, final int maxPosition,
                                      final long upperOffset, final BatchCursor cursor) throws IOException {
        long from = startingOffset;
        final IndexEntry entry = cursor.entry;
        if (!timeIndexSuspect) {
            timeIndex.lookup(timestampMs, entry);
            // Only an entry past the starting offset narrows the scan; it is checked before it is trusted.
            if (entry.found() && entry.offset() > startingOffset) {
                final long entryOffset = entry.offset();
                final long entryTimestamp = entry.timestamp();
                // Start at the smaller of this entry's and the previous entry's offset: the entry itself is checked,
                // and a damaged offset that still passes the check (another batch with the same largest timestamp)
                // cannot move the start past the batch the search needs.
                final long start = Math.min(entry.previousOffset(), entryOffset);
                if (timeEntryHolds(entryOffset, entryTimestamp, cursor)) {
                    from = Math.max(startingOffset, start);
                }
            }
        }
        if (!findBatch(from, maxPosition, upperOffset, cursor, true)) {
            return -1;
        }
        return scanTimestamps(timestampMs, startingOffset, cursor.position, maxPosition, upperOffset,
            cursor.searchChunk());
    }

    /**
     * {@link #findOffsetByTimestamp(long, long, int, long, BatchCursor)} without the placement checks (tests and
     * tools that compare the search alone).
     *
     * @param timestampMs    the target timestamp
     * @param startingOffset the first offset that may be returned
     * @param maxPosition    a published size
     * @param cursor         the reader's cursor
     * @return the offset, or -1
     * @throws IOException if a read fails
     */
    public long findOffsetByTimestamp(final long timestampMs, final long startingOffset, final int maxPosition,
                                      final BatchCursor cursor) throws IOException {
        return findOffsetByTimestamp(timestampMs, startingOffset, maxPosition, NO_UPPER_BOUND, cursor);
    }

    /**
     * Whether the time-index entry (timestamp, offset) is true to the data file: the offset is the last offset of a
     * batch whose largest timestamp is exactly the entry's (the index records a batch's largest timestamp with its
     * last offset, as Kafka's does).
     */
    private boolean timeEntryHolds(final long entryOffset, final long entryTimestamp, final BatchCursor cursor)
        throws IOException {
        final int size = publishedSize.getAsInt();
        if (!findBatch(entryOffset, size, NO_UPPER_BOUND, cursor, true) || cursor.baseOffset > entryOffset) {
            timeIndexWrong(entryOffset, entryTimestamp, "no batch holds the offset");
            return false;
        }
        final SharedMapping mapped = acquireExisting();
        try {
            readHeader(mapped, cursor.scratch, cursor.position, size, LogSegment.TIMESTAMP_HEADER_BYTES);
        } finally {
            if (mapped != null) {
                mapped.release();
            }
        }
        final long batchMax = cursor.scratch.getLong(MAX_TIMESTAMP_OFFSET);
        final long batchLast = cursor.scratch.getLong(BASE_OFFSET_OFFSET) + cursor.scratch.getInt(LAST_OFFSET_DELTA_OFFSET);
        if (batchMax != entryTimestamp || batchLast != entryOffset) {
            timeIndexWrong(entryOffset, entryTimestamp, "the batch holding the offset has largest timestamp "
                + batchMax + " and last offset " + batchLast);
            return false;
        }
        return true;
    }

    /** The scan of a timestamp search from a batch start. */
    private long scanTimestamps(final long timestampMs, final long startingOffset, final int startPosition,
                                final int maxPosition, final long upperOffset, final ByteBuffer scratch)
        throws IOException {
        int position = startPosition;
        long previousLast = baseOffset - 1;
        final SharedMapping mapped = acquireMap(maxPosition);
        try {
            while (position < maxPosition) {
                final int size = readHeader(mapped, scratch, position, maxPosition, LogSegment.TIMESTAMP_HEADER_BYTES);
                final long base = scratch.getLong(BASE_OFFSET_OFFSET);
                final long lastOffset = base + scratch.getInt(LAST_OFFSET_DELTA_OFFSET);
                if (upperOffset != NO_UPPER_BOUND && (base <= previousLast || lastOffset >= upperOffset)) {
                    throw misplaced(position, base, lastOffset, previousLast, upperOffset);
                }
                previousLast = lastOffset;
                if (lastOffset >= startingOffset && scratch.getLong(MAX_TIMESTAMP_OFFSET) >= timestampMs) {
                    final long found = TimestampScan.firstRecordAtOrAfter(channel, mapped, logFile, scratch, position,
                        size, timestampMs, startingOffset);
                    if (found >= 0) {
                        if (upperOffset != NO_UPPER_BOUND) {
                            // The answer comes from this batch's base offset: it must end below the next one's.
                            checkNextStartsAfter(mapped, scratch, position + size, lastOffset);
                        }
                        return found;
                    }
                }
                position += size;
            }
            return -1;
        } finally {
            if (mapped != null) {
                mapped.release();
            }
        }
    }

    /**
     * The offset the next batch after the last one below {@code publishedSize} would get: that batch's last offset
     * plus one, or the base offset when there is none. Scans from the last offset-index entry. Thread-safe.
     *
     * @param publishedSize the segment's size
     * @param scratch       a heap buffer of at least 64 bytes
     * @return the next offset
     * @throws IOException if a read fails, or the file ends inside a batch
     */
    public long readNextOffset(final int publishedSize, final ByteBuffer scratch) throws IOException {
        final int size = publishedSize;
        int position = 0;
        final int entries = offsetIndex.entries();
        if (entries > 0 && !offsetIndexSuspect) {
            final long entryOffset = offsetIndex.entryOffset(entries - 1);
            final int entryPosition = offsetIndex.entryPosition(entries - 1);
            // Checked like every index answer: a last entry past the data (a .log cut short) must not hide batches.
            if (offsetEntryHolds(null, scratch, entryOffset, entryPosition)) {
                position = entryPosition;
            }
        }
        long next = baseOffset;
        while (position < size) {
            final int batchSize = readHeader(scratch, position, size, LogSegment.OFFSET_HEADER_BYTES);
            next = scratch.getLong(BASE_OFFSET_OFFSET) + scratch.getInt(LAST_OFFSET_DELTA_OFFSET) + 1;
            position += batchSize;
        }
        return next;
    }
}
