package io.seglog.storage;

import io.seglog.storage.index.TransactionIndex;
import io.seglog.storage.log.LogEnd;
import io.seglog.storage.log.Segments;
import io.seglog.storage.log.Watermarks;
import io.seglog.storage.segment.BatchCursor;
import io.seglog.storage.segment.LogSegment;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;

/**
 * One reader's cursor over a {@link PartitionLog}: it owns the reader's scratch buffers, its snapshot of the log's
 * published end and its search state, and holds the answer of its last {@link #read} as fields (the segment file,
 * the byte position and size of the whole batches found, their first offset), which it can send zero-copy
 * ({@link #transferTo}) or copy ({@link #readInto}). Reusing one reader makes reads and timestamp searches
 * allocation-free. {@link #slice()} turns the answer into a {@link LogSlice} value that outlives the next read.
 *
 * <p>Reads: {@link #read} positions the cursor at the batch that contains the requested offset (or the first batch
 * after it, if it falls into a gap) and covers the whole batches after it that lie entirely below
 * {@code min(maxOffsetExclusive, logEndOffset)}, at most {@code maxBytes} of them, except that with
 * {@code minOneBatch} the first batch is taken whole. The bytes are exactly as they sit on disk and on the wire;
 * the first batch may start before the requested offset, and the caller skips the records below it, as Kafka's
 * consumers do. Unlike Kafka's {@code FileRecords} slice the answer always ends on a batch boundary.
 *
 * <p>Threads: a reader belongs to one thread at a time (make one per reading thread; {@link PartitionLog#reader()}
 * is cheap). Any number of readers read one log concurrently with its appender and with each other, without locks:
 * each takes a consistent snapshot of the published end and never looks past it, so it sees no partial batch, even
 * while the log appends, rolls and truncates. A read that runs into a truncation's shrink reads again from a fresh
 * snapshot.
 */
public final class LogReader {
    /** The log's closed and offline state (its {@link LogHealth}), asked before each read. */
    private final LogHealth health;
    private final Path dir;
    private final Watermarks watermarks;
    private final Segments segments;
    private final LogEnd end;
    private final LogEnd.Snapshot snapshot = new LogEnd.Snapshot();
    private final BatchCursor cursor = new BatchCursor();

    // The answer of the last read.
    private LogSegment segment;
    private FileChannel channel;
    private int position;
    private int sizeInBytes;
    private long requestedOffset = -1;
    private long firstOffset = -1;
    /** The segments the last answer was found in, and the answer's segment's place among them. */
    private LogSegment[] answerSegments;
    private int answerIndex;
    /** Every offset of the last answer lies below this: its segment's end, capped at the read's bound. */
    private long answerUpperOffset = -1;

    // The aborted-transaction search's state (made at its first use; most readers never need it).
    private ByteBuffer txnScratch;
    private AbortedTransactionSink abortedSink;
    private int abortedCount;
    private final TransactionIndex.AbortedSink toAbortedSink = this::onAborted;

    /** Told each aborted transaction a {@code read_committed} answer overlaps. */
    @FunctionalInterface
    public interface AbortedTransactionSink {
        /**
         * One aborted transaction (a fetch response's {@code AbortedTransaction}): the consumer drops the producer's
         * records from {@code firstOffset} up to the producer's ABORT marker.
         *
         * @param producerId  the transaction's producer
         * @param firstOffset the transaction's first offset
         */
        void aborted(long producerId, long firstOffset);
    }

    LogReader(final LogHealth health, final Path dir, final Watermarks watermarks, final Segments segments,
              final LogEnd end) {
        this.health = health;
        this.dir = dir;
        this.watermarks = watermarks;
        this.segments = segments;
        this.end = end;
    }

    /**
     * Reads whole batches from {@code startOffset}; see the class comment. Thread-confined, lock-free,
     * allocation-free.
     *
     * @param startOffset        the first offset wanted, in {@code [logStartOffset, logEndOffset]}
     * @param maxBytes           the most bytes to cover, 0 or more
     * @param maxOffsetExclusive the upper bound, e.g. a high watermark; {@link Long#MAX_VALUE} for the log end
     * @param minOneBatch        cover the first batch whole even when it is larger than {@code maxBytes}
     * @return whether the answer holds a batch ({@code sizeInBytes() > 0}); empty when no batch below the bound
     *     starts at or after the offset, or the first is larger than {@code maxBytes} without {@code minOneBatch}
     * @throws OffsetOutOfRangeException if {@code startOffset} is below the log start or above the log end
     * @throws IllegalArgumentException if {@code maxBytes} is negative
     * @throws StorageException if the log is closed or offline, a read fails, or a batch on disk is damaged
     */
    public boolean read(final long startOffset, final int maxBytes, final long maxOffsetExclusive,
                        final boolean minOneBatch) {
        if (maxBytes < 0) {
            throw new IllegalArgumentException("maxBytes=" + maxBytes + " must be >= 0");
        }
        health.ensureReadable();
        final int truncationsAtStart = end.truncations();
        end.snapshot(snapshot);
        final long endOffset = snapshot.offset();
        final long startOff = watermarks.logStartOffset();
        if (startOffset < startOff || startOffset > endOffset) {
            throw new OffsetOutOfRangeException(dir.toString(), startOffset, startOff, endOffset);
        }
        final long bound = Math.min(maxOffsetExclusive, endOffset);
        if (startOffset >= bound) {
            return answerEmpty(startOffset);
        }
        final LogSegment[] segsAtStart = segments.array();
        try {
            return readBelow(segsAtStart, startOffset, bound, maxBytes, minOneBatch);
        } catch (final IOException | IllegalStateException e) {
            if (!health.isClosed() && (end.truncations() != truncationsAtStart || segments.array() != segsAtStart)) {
                // The snapshot predates a truncation whose shrink this read ran into, or retention closed a segment
                // under it (file.delete.delay.ms=0): read again from a fresh snapshot, which answers out-of-range
                // when the offset went with the segment.
                return read(startOffset, maxBytes, maxOffsetExclusive, minOneBatch);
            }
            throw e instanceof IOException ? health.readFailure((IOException) e) : (IllegalStateException) e;
        }
    }

    private boolean readBelow(final LogSegment[] segs, final long startOffset, final long bound, final int maxBytes,
                              final boolean minOneBatch) throws IOException {
        final LogSegment endSegment = snapshot.segment();
        // The upper bound as a (segment, position): every batch before it lies wholly below the bound.
        final LogSegment boundSegment;
        final int boundPosition;
        if (bound == snapshot.offset()) {
            boundSegment = endSegment;
            boundPosition = snapshot.position();
        } else {
            boundSegment = segs[Segments.floorIndex(segs, bound)];
            // A truncation may have shrunk the segment since the snapshot: its size is lowered first.
            final int limit = boundSegment == endSegment ? Math.min(snapshot.position(), boundSegment.sizeInBytes())
                : boundSegment.sizeInBytes();
            boundPosition = boundSegment.reader().batchStartAtOrAfter(bound, limit, cursor);
        }
        for (int i = Segments.floorIndex(segs, startOffset); i < segs.length; i++) {
            final LogSegment candidate = segs[i];
            if (candidate.baseOffset() > boundSegment.baseOffset()) {
                break;
            }
            final int maxPosition = candidate == boundSegment ? boundPosition : candidate.sizeInBytes();
            // Every batch served lies below the next segment's base (or the log end): checked on the way.
            if (!candidate.reader().findBatch(startOffset, maxPosition, upperOffset(segs, i, endSegment), cursor)) {
                continue; // startOffset is past this segment's last batch (a gap): try the next one
            }
            final int at = cursor.position();
            final int available = maxPosition - at;
            final int length;
            if (available <= maxBytes) {
                length = available;
            } else if (cursor.size() > maxBytes) {
                length = minOneBatch ? cursor.size() : 0;
            } else {
                length = candidate.reader().lastBatchEndWithin(at, at + maxBytes, cursor) - at;
            }
            if (length == 0) {
                return answerEmpty(startOffset);
            }
            answer(candidate, at, length, startOffset, cursor.baseOffset());
            answerSegments = segs;
            answerIndex = i;
            answerUpperOffset = Math.min(bound, upperOffset(segs, i, endSegment));
            return true;
        }
        return answerEmpty(startOffset);
    }

    /**
     * The first offset at or after the log start and below {@code min(maxOffsetExclusive, logEndOffset)} whose
     * record timestamp is at least {@code timestampMs} (Kafka's {@code ListOffsets} by timestamp; a consumer's
     * answer is bounded by the high watermark). Timestamps need not be ordered: the answer is the earliest such
     * offset, found through each segment's largest timestamp and time index. Kafka's special targets are honoured:
     * {@link PartitionLog#LATEST_TIMESTAMP} (-1) answers the bound itself, {@link PartitionLog#EARLIEST_TIMESTAMP}
     * (-2) the log start offset, {@link PartitionLog#MAX_TIMESTAMP} (-3) the first record with the largest
     * timestamp (-1 when it lies at or above the bound); other negative targets (tiered storage's) are refused. Thread-confined, lock-free, allocation-free
     * after the first search (which makes the cursor's 4 KiB chunk buffer). Leaves the read answer as it was.
     *
     * @param timestampMs        the target timestamp, or one of the special values
     * @param maxOffsetExclusive the upper bound, e.g. the high watermark; {@link Long#MAX_VALUE} for the log end
     * @return the offset, or -1 when no record below the bound has such a timestamp
     * @throws IllegalArgumentException if {@code timestampMs} is negative and not one of the special values
     * @throws StorageException if the log is closed or offline, a read fails, or a batch on disk is damaged
     * @throws io.seglog.storage.format.CodecUnavailableException if a compressed batch must be read and its codec
     *         is not on the class path
     */
    public long offsetForTimestamp(final long timestampMs, final long maxOffsetExclusive) {
        if (timestampMs < 0 && timestampMs != PartitionLog.LATEST_TIMESTAMP
            && timestampMs != PartitionLog.EARLIEST_TIMESTAMP && timestampMs != PartitionLog.MAX_TIMESTAMP) {
            throw new IllegalArgumentException("timestampMs=" + timestampMs + " must be >= 0, or "
                + PartitionLog.LATEST_TIMESTAMP + " (latest), " + PartitionLog.EARLIEST_TIMESTAMP + " (earliest) or "
                + PartitionLog.MAX_TIMESTAMP + " (the record with the largest timestamp)");
        }
        health.ensureReadable();
        final int truncationsAtStart = end.truncations();
        end.snapshot(snapshot);
        final long startOff = watermarks.logStartOffset();
        final long bound = Math.max(startOff, Math.min(maxOffsetExclusive, snapshot.offset()));
        if (timestampMs == PartitionLog.LATEST_TIMESTAMP) {
            return bound;
        }
        if (timestampMs == PartitionLog.EARLIEST_TIMESTAMP) {
            return startOff;
        }
        final LogSegment[] segsAtStart = segments.array();
        try {
            final LogSegment endSegment = snapshot.segment();
            if (timestampMs == PartitionLog.MAX_TIMESTAMP) {
                return offsetOfLargestTimestamp(segsAtStart, endSegment, startOff, bound);
            }
            for (int i = 0; i < segsAtStart.length; i++) {
                final LogSegment candidate = segsAtStart[i];
                if (candidate.baseOffset() > endSegment.baseOffset() || candidate.baseOffset() >= bound) {
                    break;
                }
                if (candidate.maxTimestampSoFar() < timestampMs) {
                    continue; // Kafka's rule: skip segments whose largest timestamp is below the target
                }
                final int maxPosition = candidate == endSegment ? snapshot.position() : candidate.sizeInBytes();
                final long found = candidate.reader().findOffsetByTimestamp(timestampMs, startOff, maxPosition,
                    upperOffset(segsAtStart, i, endSegment), cursor);
                if (found >= 0) {
                    // The earliest qualifying offset: if it lies at or above the bound, nothing below it qualifies.
                    return found < bound ? found : -1;
                }
            }
        } catch (final IOException | IllegalStateException e) {
            if (!health.isClosed() && (end.truncations() != truncationsAtStart || segments.array() != segsAtStart)) {
                return offsetForTimestamp(timestampMs, maxOffsetExclusive); // ran into a truncation or retention
            }
            throw e instanceof IOException ? health.readFailure((IOException) e) : (IllegalStateException) e;
        }
        return -1;
    }

    /**
     * Kafka's MAX_TIMESTAMP answer (UnifiedLog.fetchOffsetByTimestamp): the first segment with the largest
     * timestamp, and in it the first record that carries that timestamp; -1 when the log has no timestamp or that
     * record lies at or above the bound.
     */
    private long offsetOfLargestTimestamp(final LogSegment[] segs, final LogSegment endSegment, final long startOff,
                                          final long bound) throws IOException {
        int best = -1;
        for (int i = 0; i < segs.length; i++) {
            final LogSegment candidate = segs[i];
            if (candidate.baseOffset() > endSegment.baseOffset() || candidate.baseOffset() >= bound) {
                break;
            }
            if (candidate.maxTimestampSoFar() >= 0
                && (best < 0 || candidate.maxTimestampSoFar() > segs[best].maxTimestampSoFar())) {
                best = i;
            }
        }
        if (best < 0) {
            return -1;
        }
        final LogSegment segment = segs[best];
        final int maxPosition = segment == endSegment ? snapshot.position() : segment.sizeInBytes();
        final long found = segment.reader().findOffsetByTimestamp(segment.maxTimestampSoFar(), startOff, maxPosition,
            upperOffset(segs, best, endSegment), cursor);
        return found >= 0 && found < bound ? found : -1;
    }

    /**
     * Every offset of {@code segs[i]} lies below this: the next segment's base offset, or for the segment the read's
     * snapshot ends in, that snapshot's log end.
     */
    private long upperOffset(final LogSegment[] segs, final int i, final LogSegment endSegment) {
        return segs[i] == endSegment || i + 1 >= segs.length ? snapshot.offset() : segs[i + 1].baseOffset();
    }

    private boolean answerEmpty(final long requested) {
        answer(null, 0, 0, requested, -1);
        answerSegments = null;
        return false;
    }

    private void answer(final LogSegment found, final int at, final int size, final long requested,
                        final long first) {
        this.segment = found;
        this.channel = found == null ? null : found.channel();
        this.position = at;
        this.sizeInBytes = size;
        this.requestedOffset = requested;
        this.firstOffset = first;
    }

    /**
     * The aborted transactions the last answer overlaps, for a {@code read_committed} fetch (Kafka's
     * {@code collectAbortedTransactions}): read from the segments' transaction indexes, from the answer's segment
     * on, without decoding a record, so the answer is still sent zero-copy. Each transaction whose ABORT marker is at
     * or after the requested offset and whose first offset is below the answer's end is told, in marker order;
     * the search stops at the first index entry whose recorded last stable offset passes the answer. Read with
     * {@code maxOffsetExclusive} = {@link PartitionLog#lastStableOffset()}, as Kafka's {@code read_committed}
     * fetches are: above it a transaction may still abort. Thread-confined, lock-free, allocation-free after the
     * first call (which makes a 2 KiB buffer).
     *
     * @param sink told each aborted transaction
     * @return how many were told; 0 when the last answer is empty
     * @throws StorageException if the log is closed or offline, or an index cannot be read
     */
    public int abortedTransactions(final AbortedTransactionSink sink) {
        if (segment == null) {
            return 0;
        }
        health.ensureReadable();
        if (txnScratch == null) {
            txnScratch = ByteBuffer.allocate(64 * TransactionIndex.ENTRY_LENGTH);
        }
        abortedSink = sink;
        abortedCount = 0;
        try {
            final LogSegment[] segs = answerSegments;
            // Later segments too: a transaction's entry sits with its marker, which may come long after its data.
            for (int i = answerIndex; i < segs.length; i++) {
                if (segs[i].txnIndex().discardedOnOpen()) {
                    // Only a read-only log keeps one (a writable open rebuilds it): no answer beats a wrong one.
                    throw new StorageException("the aborted-transaction index " + segs[i].txnIndex().file()
                        + " is corrupt; a writable open rebuilds it", dir, null);
                }
                if (segs[i].txnIndex().collect(requestedOffset, answerUpperOffset, txnScratch, toAbortedSink)) {
                    break;
                }
            }
        } catch (final IOException e) {
            // A segment retired and unlinked since the read: its offsets are gone, as the read's would be.
            if (!health.isClosed() && segments.array() != answerSegments) {
                throw new OffsetOutOfRangeException(dir.toString(), requestedOffset, watermarks.logStartOffset(),
                    end.offset());
            }
            throw health.readFailure(e);
        } finally {
            abortedSink = null;
        }
        return abortedCount;
    }

    private void onAborted(final long producerId, final long firstOffset) {
        abortedCount++;
        abortedSink.aborted(producerId, firstOffset);
    }

    /**
     * The last read's answer as a value that stays valid after the next read (it allocates).
     *
     * @return the slice
     */
    public LogSlice slice() {
        return new LogSlice(segment, position, sizeInBytes, requestedOffset, firstOffset);
    }

    /**
     * The segment file's channel of the last answer, shared with the log; do not close it, and read it only with
     * positional reads or {@link FileChannel#transferTo}.
     *
     * @return the channel, or {@code null} when the answer is empty
     */
    public FileChannel channel() {
        return channel;
    }

    /**
     * The byte position of the first batch of the last answer in its segment file.
     *
     * @return the file position
     */
    public int position() {
        return position;
    }

    /**
     * The size of the last answer: whole batches only.
     *
     * @return bytes, 0 when empty
     */
    public int sizeInBytes() {
        return sizeInBytes;
    }

    /**
     * Whether the last answer holds no batch.
     *
     * @return {@code sizeInBytes() == 0}
     */
    public boolean isEmpty() {
        return sizeInBytes == 0;
    }

    /**
     * The offset the last read asked for.
     *
     * @return the requested start offset, -1 before the first read
     */
    public long requestedOffset() {
        return requestedOffset;
    }

    /**
     * The base offset of the first batch of the last answer: at most the requested offset when the batch contains
     * it, greater when the requested offset fell into a gap.
     *
     * @return the base offset, or -1 when empty
     */
    public long firstOffset() {
        return firstOffset;
    }

    /**
     * The base offset of the segment the last answer lies in (its file is {@code <base, 20 digits>.log}).
     *
     * @return the segment's base offset, or -1 when empty
     */
    public long segmentBaseOffset() {
        return segment == null ? -1 : segment.baseOffset();
    }

    /**
     * Sends the whole answer to {@code target}; see {@link LogSlice#transferTo(WritableByteChannel)}.
     *
     * @param target the channel to write to
     * @return the number of bytes transferred
     * @throws IOException if the transfer fails, or the segment file ends inside the answer
     */
    public long transferTo(final WritableByteChannel target) throws IOException {
        return LogSlice.transfer(segment, channel, position, sizeInBytes, target, 0, sizeInBytes);
    }

    /**
     * Sends part of the answer; see {@link LogSlice#transferTo(WritableByteChannel, int, int)}.
     *
     * @param target      the channel to write to
     * @param offsetBytes where to start, relative to the answer
     * @param countBytes  how many bytes to send at most
     * @return the number of bytes transferred
     * @throws IOException if the transfer fails, or the segment file ends inside the answer
     * @throws IllegalArgumentException if the range is not inside the answer
     */
    public long transferTo(final WritableByteChannel target, final int offsetBytes, final int countBytes)
        throws IOException {
        return LogSlice.transfer(segment, channel, position, sizeInBytes, target, offsetBytes, countBytes);
    }

    /**
     * Copies the answer into {@code target}; see {@link LogSlice#readInto}.
     *
     * @param target the buffer to fill from its position; must have {@link #sizeInBytes()} bytes remaining
     * @throws IOException if the read fails or the file ends early
     * @throws IllegalArgumentException if the buffer is too small
     */
    public void readInto(final ByteBuffer target) throws IOException {
        LogSlice.copy(segment, position, sizeInBytes, target);
    }

    @Override
    public String toString() {
        return "LogReader{segmentBaseOffset=" + segmentBaseOffset() + ", position=" + position + ", sizeInBytes="
            + sizeInBytes + ", requestedOffset=" + requestedOffset + ", firstOffset=" + firstOffset + "}";
    }
}
