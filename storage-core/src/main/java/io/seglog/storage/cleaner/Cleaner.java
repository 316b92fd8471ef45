package io.seglog.storage.cleaner;

import io.seglog.storage.format.BatchRecordReader;
import io.seglog.storage.format.RecordBatch;
import io.seglog.storage.format.RecordBatchValidator;
import io.seglog.storage.format.RecordView;
import io.seglog.storage.index.TransactionIndex;
import io.seglog.storage.io.FileIO;
import io.seglog.storage.segment.LogSegment;
import io.seglog.storage.segment.SegmentFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cleans one log once (Kafka's {@code Cleaner.doClean}): builds the offset map over the dirty section, groups the
 * segments below the map's end by size, and for each group writes a {@code .cleaned} file, makes it durable,
 * renames it {@code .swap} and hands it to the log ({@link CleanableLog#replaceSegments}). One per cleaner thread,
 * with its own map and buffers. Not thread-safe; {@link #close} releases the codecs' native state.
 */
final class Cleaner implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Cleaner.class);
    /** Suffix of a compaction output being written. */
    static final String CLEANED_SUFFIX = ".cleaned";
    /** Suffix of a compaction output ready to replace its segments. */
    static final String SWAP_SUFFIX = ".swap";

    private final int mapBytes;
    /** Allocated at the first round (a manager without compacted logs never pays for it). */
    private OffsetMap map;
    private final double loadFactor;
    private final Throttler throttler;
    private final SegmentScan scan;
    /**
     * Reads the records of compressed batches too. Kafka's cleaner sets no bound on a batch's decompressed size;
     * this takes the leader's bound for a client's batch, so a batch a leader accepted is always cleanable.
     */
    private final BatchRecordReader reader =
        new BatchRecordReader(RecordBatchValidator.DEFAULT_MAX_DECOMPRESSED_BYTES);
    private final BatchFilter filter = new BatchFilter(reader);
    private final RecordView record = new RecordView();
    /** The round's aborted transactions: their records are dropped and never enter the offset map. */
    private AbortedBatches aborted = AbortedBatches.NONE;
    private final int ioBufferBytes;
    private ByteBuffer out;

    /**
     * Creates a cleaner.
     *
     * @param mapBytes      the memory of its offset map
     * @param loadFactor    how full the map may get
     * @param ioBufferBytes the size of its read buffer and of its write buffer
     * @param throttler     the shared I/O throttle
     */
    Cleaner(final int mapBytes, final double loadFactor, final int ioBufferBytes, final Throttler throttler) {
        final int slots = mapBytes / OffsetMap.BYTES_PER_ENTRY;
        if (slots * loadFactor < 1) {
            throw new IllegalArgumentException("offset map too small to hold one key (slots=" + slots
                + ", load factor=" + loadFactor + "): raise log.cleaner.dedupe.buffer.size or lower the threads");
        }
        this.mapBytes = mapBytes;
        this.loadFactor = loadFactor;
        this.throttler = throttler;
        this.ioBufferBytes = ioBufferBytes;
        this.scan = new SegmentScan(ioBufferBytes, throttler);
    }

    /**
     * Cleans {@code range.log()} below {@code range.firstUncleanableOffset()}.
     *
     * @param range the log and its dirty section
     * @param nowMs the time of the round (tombstone horizons)
     * @return the offset up to which the log is now clean (the next first dirty offset), or -1 when the log
     *     changed under the round and nothing was swapped
     * @throws IOException if a file operation fails
     * @throws UncleanableLogException if the log holds something the cleaner cannot clean
     */
    long clean(final CleanableRange range, final long nowMs) throws IOException {
        if (map == null) {
            map = new OffsetMap(mapBytes);
            out = ByteBuffer.allocate(ioBufferBytes);
        }
        final CleanableLog log = range.log();
        final LogSegment[] segments = log.segments();
        aborted = AbortedBatches.of(segments);
        buildOffsetMap(segments, range.firstDirtyOffset(), range.firstUncleanableOffset());
        final long endOffset = map.latestOffset() + 1;
        final Map<Long, Long> lastBatchOfProducer = lastBatchOfEachProducer(segments);
        final CompactionSettings config = log.compaction();
        final List<LogSegment[]> groups = groupBySize(segments, endOffset, config.segmentBytes(),
            config.segmentIndexBytes(), range.firstUncleanableOffset());
        LOG.info("Cleaning {} below offset {} (dirty from {}, {} keys, {} groups)", log.dir(), endOffset,
            range.firstDirtyOffset(), map.size(), groups.size());
        for (final LogSegment[] group : groups) {
            if (!cleanGroup(log, group, nowMs, range.firstUncleanableOffset(), lastBatchOfProducer)) {
                return -1;
            }
        }
        LOG.info("Cleaned {}: read {} records, kept {}; offset map {}% full", log.dir(), filter.recordsRead,
            filter.recordsKept, Math.round(map.utilization() * 100));
        return endOffset;
    }

    /**
     * Kafka's {@code buildOffsetMap}: every key of the dirty section [start, end) to its last offset, until the map
     * reaches its load factor (then the map covers a prefix of the dirty section and the next round goes on).
     */
    void buildOffsetMap(final LogSegment[] segments, final long start, final long end) throws IOException {
        if (map == null) {
            map = new OffsetMap(mapBytes);
            out = ByteBuffer.allocate(ioBufferBytes);
        }
        map.clear();
        final int maxEntries = (int) (map.slots() * loadFactor);
        for (int i = 0; i < segments.length - 1; i++) {
            final LogSegment segment = segments[i];
            final long nextBase = segments[i + 1].baseOffset();
            if (nextBase <= start) {
                continue;
            }
            if (segment.baseOffset() >= end) {
                break;
            }
            scan.open(segment);
            for (RecordBatch batch = scan.next(); batch != null; batch = scan.next()) {
                if (batch.lastOffset() < start) {
                    continue;
                }
                if (!batch.isControl() && !aborted.isAborted(batch)) {
                    reader.open(batch);
                    while (reader.next(record)) {
                        if (record.keyLength() >= 0 && record.offset() >= start) {
                            if (map.size() >= maxEntries) {
                                return; // full: the map ends at the last key it took
                            }
                            map.put(record.buffer(), record.keyOffset(), record.keyLength(), record.offset());
                        }
                    }
                }
                map.updateLatestOffset(batch.lastOffset());
            }
            // Past a gap at the segment's end (an earlier cleaning dropped its last batches), up to the next base.
            map.updateLatestOffset(Math.min(nextBase, end) - 1);
        }
    }

    /**
     * Kafka's {@code groupSegmentsBySize}: consecutive segments below {@code endOffset} whose data, offset index
     * and time index each stay within a segment's limits, and whose offsets stay within an int of the group base.
     */
    static List<LogSegment[]> groupBySize(final LogSegment[] segments, final long endOffset, final int maxBytes,
                                          final int maxIndexBytes, final long firstUncleanableOffset) {
        final List<LogSegment[]> groups = new ArrayList<>();
        int i = 0;
        final int limit = segments.length - 1; // never the active segment
        while (i < limit && segments[i].baseOffset() < endOffset) {
            final int first = i;
            long logBytes = segments[i].sizeInBytes();
            long indexBytes = segments[i].offsetIndex().entries() * 8L;
            long timeIndexBytes = segments[i].timeIndex().entries() * 12L;
            i++;
            while (i < limit && segments[i].baseOffset() < endOffset
                && logBytes + segments[i].sizeInBytes() <= maxBytes
                && indexBytes + segments[i].offsetIndex().entries() * 8L <= maxIndexBytes
                && timeIndexBytes + segments[i].timeIndex().entries() * 12L <= maxIndexBytes
                && (segments[i].sizeInBytes() == 0
                    || lastOffsetEstimate(segments, i, firstUncleanableOffset) - segments[i - 1].baseOffset()
                    <= Integer.MAX_VALUE)) {
                logBytes += segments[i].sizeInBytes();
                indexBytes += segments[i].offsetIndex().entries() * 8L;
                timeIndexBytes += segments[i].timeIndex().entries() * 12L;
                i++;
            }
            final LogSegment[] group = new LogSegment[i - first];
            System.arraycopy(segments, first, group, 0, group.length);
            groups.add(group);
        }
        return groups;
    }

    /** The largest offset segment {@code i} can hold: the next base - 1 (Kafka's estimate). */
    private static long lastOffsetEstimate(final LogSegment[] segments, final int i, final long firstUncleanable) {
        return i + 1 < segments.length ? segments[i + 1].baseOffset() - 1 : firstUncleanable - 1;
    }

    /**
     * The last offset of each producer's last batch in the log (Kafka keeps that batch, possibly empty, so the
     * producer's sequence and epoch survive cleaning). Kafka takes this from its producer state, which forgets
     * producers after {@code producer.id.expiration.ms}; this scan keeps every producer's last batch.
     */
    private Map<Long, Long> lastBatchOfEachProducer(final LogSegment[] segments) throws IOException {
        final Map<Long, Long> last = new HashMap<>();
        for (final LogSegment segment : segments) {
            scan.open(segment);
            for (RecordBatch batch = scan.next(); batch != null; batch = scan.next()) {
                if (batch.producerId() >= 0) {
                    last.put(batch.producerId(), batch.lastOffset());
                }
            }
        }
        return last;
    }

    /** Cleans one group into one segment and swaps it in; false when the log changed and the round stops. */
    private boolean cleanGroup(final CleanableLog log, final LogSegment[] group, final long nowMs,
                               final long upperBound, final Map<Long, Long> lastBatchOfProducer) throws IOException {
        final FileIO io = log.io();
        final long base = group[0].baseOffset();
        final Path logFile = log.dir().resolve(SegmentFiles.fileName(base, SegmentFiles.LOG_SUFFIX));
        final Path cleaned = logFile.resolveSibling(logFile.getFileName() + CLEANED_SUFFIX);
        final Path swap = logFile.resolveSibling(logFile.getFileName() + SWAP_SUFFIX);
        io.deleteIfExists(cleaned);
        final long deleteRetentionMs = log.compaction().deleteRetentionMs();
        try (FileChannel channel = io.open(cleaned, EnumSet.of(StandardOpenOption.CREATE_NEW,
            StandardOpenOption.WRITE))) {
            out.clear();
            long written = 0;
            for (int s = 0; s < group.length; s++) {
                scan.open(group[s]);
                for (RecordBatch batch = scan.next(); batch != null; batch = scan.next()) {
                    final boolean ownLast = batch.producerId() >= 0
                        && lastBatchOfProducer.getOrDefault(batch.producerId(), -1L) == batch.lastOffset();
                    final boolean roundLast = batch.nextOffset() == upperBound;
                    // The group's last batch stays (possibly empty) so that the .swap file's offsets reach the
                    // group's last segment: recovery replaces exactly the segments a swap file's range covers.
                    final boolean groupLast = s == group.length - 1 && scan.atEnd();
                    final long at = written;
                    written += filter.filter(batch, map, nowMs, deleteRetentionMs, ownLast || roundLast || groupLast,
                        aborted.isAborted(batch), bytes -> room(channel, at, bytes));
                }
            }
            drain(channel, written - out.position());
            channel.force(true);
        } catch (final IOException | RuntimeException e) {
            io.deleteIfExists(cleaned);
            throw e;
        }
        Files.setLastModifiedTime(cleaned, FileTime.fromMillis(lastModified(group)));
        // The group's aborted transactions stay indexed (every marker is kept), in a swap file durable before the
        // log's swap file exists: the swap's completion at the next open renames both.
        final Path txnIndexSwap = writeTransactionIndex(io, group,
            log.dir().resolve(SegmentFiles.fileName(base, SegmentFiles.TXN_INDEX_SUFFIX)));
        try {
            io.atomicMove(cleaned, swap);
        } catch (final IOException | RuntimeException e) {
            io.deleteIfExists(txnIndexSwap); // never left for a later round of this base to take
            throw e;
        }
        // A failure here takes the log offline; the swap files are finished or discarded at the next open.
        final boolean swapped = log.replaceSegments(group, swap, nowMs);
        if (!swapped) {
            io.deleteIfExists(txnIndexSwap);
            io.deleteIfExists(swap);
            LOG.info("Cleaning of {} aborted: segments from {} changed meanwhile", log.dir(), base);
        }
        return swapped;
    }

    /**
     * Writes the group's transaction-index entries to {@code <index>.cleaned}, syncs it, renames it
     * {@code <index>.swap} and syncs the directory; when the group has no aborted transaction there is no such file.
     * Either way a swap file an earlier failed round of the same base left behind is gone first.
     *
     * @return the swap file's path (it may not exist)
     */
    private static Path writeTransactionIndex(final FileIO io, final LogSegment[] group, final Path index)
        throws IOException {
        final Path cleaned = index.resolveSibling(index.getFileName() + CLEANED_SUFFIX);
        final Path swap = index.resolveSibling(index.getFileName() + SWAP_SUFFIX);
        io.deleteIfExists(swap);
        io.deleteIfExists(cleaned);
        try (TransactionIndex out = TransactionIndex.open(io, cleaned, group[0].baseOffset())) {
            for (final LogSegment segment : group) {
                segment.txnIndex().forEachEntry(out::append);
            }
            if (out.sizeInBytes() == 0) {
                return swap;
            }
            out.flush();
        } catch (final IOException | RuntimeException e) {
            io.deleteIfExists(cleaned);
            throw e;
        }
        io.atomicMove(cleaned, swap);
        io.fsyncDirectory(index.getParent());
        return swap;
    }

    /**
     * The write buffer with {@code bytes} of room: drained to the file when short of room, grown when too small.
     * {@code written} counts the bytes of the output so far, those still in the buffer included.
     */
    private ByteBuffer room(final FileChannel channel, final long written, final int bytes) throws IOException {
        if (out.remaining() < bytes) {
            drain(channel, written - out.position());
            if (out.capacity() < bytes) {
                out = ByteBuffer.allocate(bytes);
            }
        }
        return out;
    }

    /** Writes the buffer's bytes at {@code position} of the file. */
    private int drain(final FileChannel channel, final long position) throws IOException {
        out.flip();
        final int bytes = out.remaining();
        long at = position;
        while (out.hasRemaining()) {
            at += channel.write(out, at);
        }
        throttler.maybeThrottle(bytes);
        out.clear();
        return bytes;
    }

    private static long lastModified(final LogSegment[] group) {
        try {
            return Files.getLastModifiedTime(group[group.length - 1].logFile()).toMillis();
        } catch (final IOException e) {
            return System.currentTimeMillis();
        }
    }

    /** Releases the reader's and the builder's codec state. */
    @Override
    public void close() {
        filter.close();
        reader.close();
    }

    /**
     * The offset map (tests).
     *
     * @return the map
     */
    OffsetMap map() {
        return map;
    }

    /**
     * Initial I/O buffer size.
     *
     * @return bytes
     */
    int ioBufferBytes() {
        return ioBufferBytes;
    }
}
