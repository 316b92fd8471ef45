package io.seglog.storage.producer;

import static io.seglog.storage.format.RecordBatchDescriptor.ATTRIBUTES_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.BASE_OFFSET_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.BASE_SEQUENCE_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.CONTROL_FLAG_MASK;
import static io.seglog.storage.format.RecordBatchDescriptor.LAST_OFFSET_DELTA_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.LENGTH_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.LOG_OVERHEAD;
import static io.seglog.storage.format.RecordBatchDescriptor.MAX_TIMESTAMP_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.NO_PRODUCER_EPOCH;
import static io.seglog.storage.format.RecordBatchDescriptor.NO_PRODUCER_ID;
import static io.seglog.storage.format.RecordBatchDescriptor.NO_SEQUENCE;
import static io.seglog.storage.format.RecordBatchDescriptor.PRODUCER_EPOCH_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.PRODUCER_ID_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.RECORDS_COUNT_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.RECORDS_OFFSET;
import static io.seglog.storage.format.RecordBatchDescriptor.TRANSACTIONAL_FLAG_MASK;

import io.seglog.storage.format.RecordBatch;
import io.seglog.storage.format.RecordBatchDescriptor;
import io.seglog.storage.format.RecordView;
import io.seglog.storage.index.TransactionIndex;
import io.seglog.storage.io.FileIO;
import io.seglog.storage.segment.LogSegment;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.agrona.DirectBuffer;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.collections.LongArrayList;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The producer state of one partition log and its {@code .snapshot} files (Kafka's {@code ProducerStateManager}):
 * per producer id an {@link ProducerEntry}, the offset the state describes ({@link #mapEndOffset()}: every batch
 * below it is in), and the snapshots on disk.
 *
 * <p>Leader appends ({@link #checkLeaderAppend}) follow Kafka 4.4's {@code ProducerAppendInfo} with origin CLIENT:
 * a batch that repeats one of the producer's five retained batches (same epoch, same sequence range) makes the whole
 * append a duplicate answered with the original offsets; an epoch below the producer's is fenced; a new epoch must
 * start at sequence 0 unless the producer had no epoch; otherwise the first sequence must follow the last one
 * (wrapping from {@link Integer#MAX_VALUE} to 0), unless the producer is unknown. Batches without a producer id
 * (-1) cost one header read and nothing else. Follower appends and recovery apply batches as origin REPLICATION
 * does: no checks, the state takes what the leader wrote ({@link #onAppended}).
 *
 * <p>Snapshots: written at a segment roll and at a clean close ({@link #takeSnapshot}), named by
 * {@link #mapEndOffset()}. At open ({@link #load}) snapshots above the trusted end (the log end after a clean
 * shutdown, the recovery point after a crash) are deleted, the latest remaining one is loaded (a corrupt one is
 * deleted with a warning and the next older one tried), producers past {@code producer.id.expiration.ms} are
 * dropped, and the batches from the snapshot to the log end are replayed. Truncation deletes the snapshots above
 * the new end and reloads the same way; retention deletes those below the log start.
 *
 * <p>Transactions (Kafka's {@code ongoingTxns}/{@code unreplicatedTxns}): a transactional data batch of a producer
 * with no open transaction begins one at its base offset; a marker completes it, telling the caller's
 * {@link TransactionSink} (an abort goes to the segment's transaction index) with the LSO Kafka records; the
 * transactions open, or completed with a marker not yet below the high watermark, give {@link #lastStableOffset}.
 * A snapshot's producers with a transaction open reopen it at load.
 *
 * <p>Threads: the log's writer only (the caller holds the append lock).
 */
public final class ProducerStateManager {
    private static final Logger LOG = LoggerFactory.getLogger("io.seglog.storage.PartitionLog");

    /** Told each transaction a marker completes, as the marker is applied (Kafka's {@code CompletedTxn}). */
    @FunctionalInterface
    public interface TransactionSink {
        /** Tells nothing: a reload's replay (the transaction indexes already hold the aborts). */
        TransactionSink NONE = (producerId, firstOffset, lastOffset, aborted, lastStableOffset) -> { };

        /**
         * @param producerId       the producer
         * @param firstOffset      the transaction's first offset
         * @param lastOffset       its marker's offset
         * @param aborted          whether the marker is an ABORT (else a COMMIT)
         * @param lastStableOffset the LSO once it completed: the first offset of the earliest open transaction of
         *                         another producer, else {@code lastOffset + 1} (what the abort's index entry records)
         */
        void completed(long producerId, long firstOffset, long lastOffset, boolean aborted, long lastStableOffset);
    }

    private final FileIO io;
    private final Path dir;
    private final long expirationMs;
    private final boolean readOnly;
    private final Long2ObjectHashMap<ProducerEntry> producers = new Long2ObjectHashMap<>();
    /** Snapshot files on disk by offset. */
    private final TreeMap<Long, Path> snapshots = new TreeMap<>();
    private long mapEndOffset;
    private long lastSnapOffset;
    /** The open transactions, and the completed ones whose markers may not be replicated yet: the LSO's input. */
    private final UnstableTransactions unstable = new UnstableTransactions();

    // The leader check's scratch: the producers' batches accepted so far in the append being checked.
    private long[] pendingIds = new long[4];
    private short[] pendingEpochs = new short[4];
    private int[] pendingLastSeqs = new int[4];
    private int pendingCount;

    // Marker parsing and the recovery scan (rare: control batches, opens and truncations).
    private final RecordBatch marker = new RecordBatch();
    private final RecordView markerRecord = new RecordView();
    private final UnsafeBuffer scanView = new UnsafeBuffer(0, 0);

    private ProducerStateManager(final FileIO io, final Path dir, final long expirationMs, final boolean readOnly) {
        this.io = io;
        this.dir = dir;
        this.expirationMs = expirationMs;
        this.readOnly = readOnly;
    }

    /**
     * An empty state that never touches the directory (a read-only log's).
     *
     * @param dir       the partition directory, for messages
     * @param endOffset the log end offset
     * @return the state
     */
    public static ProducerStateManager inMemory(final Path dir, final long endOffset) {
        final ProducerStateManager m = new ProducerStateManager(null, dir, Long.MAX_VALUE, true);
        m.mapEndOffset = endOffset;
        m.lastSnapOffset = endOffset;
        return m;
    }

    /**
     * Loads the producer state of an opened log: deletes the snapshots that cannot be trusted (above
     * {@code trustedEnd}, or below the first segment), loads the latest valid one and replays the batches after it.
     *
     * @param io             the file layer
     * @param dir            the partition directory
     * @param expirationMs   {@code producer.id.expiration.ms}
     * @param nowMs          the time, for expiration
     * @param segments       the log's segments, oldest first
     * @param logStartOffset the log start offset
     * @param endOffset      the log end offset
     * @param trustedEnd     the highest snapshot offset to trust: the log end after a clean shutdown, the recovery
     *                       point after a crash (a snapshot above it may describe batches the crash lost); lowered
     *                       to the first segment whose transaction index was discarded as corrupt, so the replay
     *                       rebuilds it
     * @return the state, at {@code endOffset}
     * @throws IOException if a file cannot be listed, read or deleted
     */
    public static ProducerStateManager load(final FileIO io, final Path dir, final long expirationMs, final long nowMs,
                                            final LogSegment[] segments, final long logStartOffset,
                                            final long endOffset, final long trustedEnd) throws IOException {
        final ProducerStateManager m = new ProducerStateManager(io, dir, expirationMs, false);
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*" + ProducerSnapshotDescriptor.SUFFIX)) {
            for (final Path file : files) {
                final long offset = ProducerSnapshotDescriptor.parseOffset(file.getFileName().toString());
                if (offset >= 0) {
                    m.snapshots.put(offset, file);
                }
            }
        }
        long limit = Math.min(trustedEnd, endOffset);
        for (final LogSegment segment : segments) {
            if (segment.txnIndex().discardedOnOpen()) {
                // Its entries come back with the replay, which must then start at or below its segment.
                limit = Math.min(limit, segment.baseOffset());
            }
        }
        boolean deleted = m.deleteSnapshotsAbove(limit);
        deleted |= m.deleteSnapshotsBefore(segments[0].baseOffset());
        if (deleted) {
            io.fsyncDirectory(dir);
        }
        m.reload(segments, logStartOffset, endOffset, nowMs, true);
        return m;
    }

    // ------------------------------------------------------------------------------------------ appends

    /**
     * Checks a leader append's batches (Kafka's CLIENT rules) without changing any state.
     *
     * @param view    the append's bytes
     * @param offset  where the first batch starts in {@code view}
     * @param length  the bytes of whole batches
     * @param sink    told of the duplicate or the refusal, if any (nothing is told when the append may go ahead)
     * @return true if the append may go ahead; false for a duplicate or a refusal (reported to {@code sink})
     */
    public boolean checkLeaderAppend(final DirectBuffer view, final int offset, final int length,
                                     final ProducerCheckSink sink) {
        pendingCount = 0;
        int index = 0;
        for (int p = offset, limit = offset + length; p < limit; index++) {
            final long pid = view.getLong(p + PRODUCER_ID_OFFSET, ByteOrder.BIG_ENDIAN);
            if (pid != NO_PRODUCER_ID && !checkBatch(view, p, index, pid, sink)) {
                return false;
            }
            p += LOG_OVERHEAD + view.getInt(p + LENGTH_OFFSET, ByteOrder.BIG_ENDIAN);
        }
        return true;
    }

    private boolean checkBatch(final DirectBuffer view, final int p, final int index, final long pid,
                               final ProducerCheckSink sink) {
        final short epoch = view.getShort(p + PRODUCER_EPOCH_OFFSET, ByteOrder.BIG_ENDIAN);
        final int firstSeq = view.getInt(p + BASE_SEQUENCE_OFFSET, ByteOrder.BIG_ENDIAN);
        final int delta = view.getInt(p + LAST_OFFSET_DELTA_OFFSET, ByteOrder.BIG_ENDIAN);
        final boolean control = (view.getShort(p + ATTRIBUTES_OFFSET, ByteOrder.BIG_ENDIAN) & CONTROL_FLAG_MASK) != 0;
        final int lastSeq = ProducerEntry.incrementSequence(firstSeq, delta);
        final ProducerEntry current = producers.get(pid);
        final short currentEpoch = current == null ? NO_PRODUCER_EPOCH : current.epoch();
        // Kafka's analyzeAndValidateProducerState: a retry of a retained batch answers for the whole append.
        if (!control && reportedDuplicate(current, index, pid, epoch, firstSeq, lastSeq, sink)) {
            return false;
        }
        // Kafka's "updatedEntry": the producer as the batches before this one in the append left it.
        final int pending = latestPending(pid);
        final short updatedEpoch = pending >= 0 ? pendingEpochs[pending] : currentEpoch;
        if (epoch < updatedEpoch) {
            sink.invalidProducerEpoch(index, pid, epoch, updatedEpoch, firstSeq,
                pending >= 0 ? pendingLastSeqs[pending] : current == null ? NO_SEQUENCE : current.lastSeq());
            return false;
        }
        if (control ? coordinatorFenced(view, p, index, pid, epoch, current, sink)
            : outOfSequence(index, pid, epoch, updatedEpoch, currentEpoch, firstSeq, pending, current, sink)) {
            return false;
        }
        addPending(pid, epoch, control ? (pending >= 0 ? pendingLastSeqs[pending] : NO_SEQUENCE) : lastSeq);
        return true;
    }

    /** Kafka's sequence rules for a data batch: whether it is out of order (then told to the sink). */
    private boolean outOfSequence(final int index, final long pid, final short epoch, final short updatedEpoch,
                                  final short currentEpoch, final int firstSeq, final int pending,
                                  final ProducerEntry current, final ProducerCheckSink sink) {
        if (epoch != updatedEpoch) {
            if (firstSeq != 0 && updatedEpoch != NO_PRODUCER_EPOCH) {
                sink.outOfOrderSequence(index, pid, epoch, updatedEpoch, firstSeq, NO_SEQUENCE);
                return true;
            }
            return false;
        }
        final int currentLastSeq = pending >= 0 ? pendingLastSeqs[pending]
            : epoch == currentEpoch && current != null ? current.lastSeq() : NO_SEQUENCE;
        // A producer with no epoch (all its batches gone to retention or DeleteRecords) may go on anywhere.
        if (currentEpoch != NO_PRODUCER_EPOCH && !inSequence(currentLastSeq, firstSeq)) {
            sink.outOfOrderSequence(index, pid, epoch, updatedEpoch, firstSeq, currentLastSeq);
            return true;
        }
        return false;
    }

    /**
     * Kafka's appendEndTxnMarker: whether a marker comes from a coordinator older than the one that wrote the
     * producer's last marker (then told to the sink).
     */
    private boolean coordinatorFenced(final DirectBuffer view, final int p, final int index, final long pid,
                                      final short epoch, final ProducerEntry current, final ProducerCheckSink sink) {
        if (current == null) {
            return false;
        }
        final int markerCoordinatorEpoch = readMarkerRecord(view, p)
            ? markerCoordinatorEpoch(view, current.coordinatorEpoch()) : current.coordinatorEpoch();
        if (markerCoordinatorEpoch < current.coordinatorEpoch()) {
            sink.coordinatorFenced(index, pid, epoch, markerCoordinatorEpoch, current.coordinatorEpoch());
            return true;
        }
        return false;
    }

    /** Whether the batch is a retry of one the producer's entry retains (then told to the sink). */
    private static boolean reportedDuplicate(final ProducerEntry current, final int index, final long pid,
                                             final short epoch, final int firstSeq, final int lastSeq,
                                             final ProducerCheckSink sink) {
        if (current == null || current.epoch() != epoch) {
            return false;
        }
        final int found = current.findBatch(firstSeq, lastSeq);
        if (found < 0) {
            return false;
        }
        sink.duplicate(index, pid, epoch, firstSeq, current.batchFirstOffset(found), current.batchLastOffset(found),
            current.batchTimestamp(found));
        return true;
    }

    /** The latest of this append's earlier batches of {@code pid}, or -1. */
    private int latestPending(final long pid) {
        for (int i = pendingCount - 1; i >= 0; i--) {
            if (pendingIds[i] == pid) {
                return i;
            }
        }
        return -1;
    }

    private static boolean inSequence(final int lastSeq, final int nextSeq) {
        return nextSeq == lastSeq + 1L || (nextSeq == 0 && lastSeq == Integer.MAX_VALUE);
    }

    private void addPending(final long pid, final short epoch, final int lastSeq) {
        if (pendingCount == pendingIds.length) {
            // Grows to the most producer batches one append held, so steady-state checks allocate nothing.
            pendingIds = Arrays.copyOf(pendingIds, pendingCount * 2);
            pendingEpochs = Arrays.copyOf(pendingEpochs, pendingCount * 2);
            pendingLastSeqs = Arrays.copyOf(pendingLastSeqs, pendingCount * 2);
        }
        pendingIds[pendingCount] = pid;
        pendingEpochs[pendingCount] = epoch;
        pendingLastSeqs[pendingCount] = lastSeq;
        pendingCount++;
    }

    /**
     * Applies appended batches (offsets assigned) to the state, as Kafka's REPLICATION origin does: no checks.
     * Called after every append, leader or follower, once the batches are written.
     *
     * @param view      the appended bytes
     * @param offset    where the first batch starts
     * @param length    the bytes of whole batches
     * @param endOffset the log end offset after the append
     */
    public void onAppended(final DirectBuffer view, final int offset, final int length, final long endOffset) {
        onAppended(view, offset, length, endOffset, -1, TransactionSink.NONE);
    }

    /**
     * Applies appended batches, telling {@code transactions} of each transaction a marker among them completes.
     *
     * @param view         the appended bytes
     * @param offset       where the first batch starts
     * @param length       the bytes of whole batches
     * @param endOffset    the log end offset after the append
     * @param stableBelow  the high watermark: completed transactions whose marker is below it stop counting (-1:
     *                     unknown)
     * @param transactions told of each completed transaction
     */
    public void onAppended(final DirectBuffer view, final int offset, final int length, final long endOffset,
                           final long stableBelow, final TransactionSink transactions) {
        for (int p = offset, limit = offset + length; p < limit; ) {
            if (view.getLong(p + PRODUCER_ID_OFFSET, ByteOrder.BIG_ENDIAN) != NO_PRODUCER_ID) {
                applyBatch(view, p, stableBelow, transactions);
            }
            p += LOG_OVERHEAD + view.getInt(p + LENGTH_OFFSET, ByteOrder.BIG_ENDIAN);
        }
        mapEndOffset = endOffset;
    }

    /** One batch with a producer id, whole in {@code view} at {@code p}. */
    private void applyBatch(final DirectBuffer view, final int p, final long stableBelow,
                            final TransactionSink transactions) {
        final long pid = view.getLong(p + PRODUCER_ID_OFFSET, ByteOrder.BIG_ENDIAN);
        final short epoch = view.getShort(p + PRODUCER_EPOCH_OFFSET, ByteOrder.BIG_ENDIAN);
        final short attributes = view.getShort(p + ATTRIBUTES_OFFSET, ByteOrder.BIG_ENDIAN);
        final long base = view.getLong(p + BASE_OFFSET_OFFSET, ByteOrder.BIG_ENDIAN);
        final int delta = view.getInt(p + LAST_OFFSET_DELTA_OFFSET, ByteOrder.BIG_ENDIAN);
        final long maxTimestamp = view.getLong(p + MAX_TIMESTAMP_OFFSET, ByteOrder.BIG_ENDIAN);
        if ((attributes & CONTROL_FLAG_MASK) != 0) {
            if (view.getInt(p + RECORDS_COUNT_OFFSET, ByteOrder.BIG_ENDIAN) == 0) {
                return; // Kafka: an empty control batch is a transaction the cleaner removed; nothing to do
            }
            final ProducerEntry entry = entryFor(pid);
            final long first = entry.currentTxnFirstOffset();
            // The marker's record is read once, for its coordinator epoch and its type.
            final boolean readable = readMarkerRecord(view, p);
            final int coordinatorEpoch = readable ? markerCoordinatorEpoch(view, entry.coordinatorEpoch())
                : entry.coordinatorEpoch();
            if (first >= 0) {
                // Kafka's order: the abort's LSO is taken while the transaction still counts as open.
                transactions.completed(pid, first, base, readable && isAbortMarker(view),
                    unstable.lastStableOffsetAfter(pid, base));
                unstable.complete(pid, base, stableBelow);
            }
            entry.onMarker(epoch, coordinatorEpoch, maxTimestamp);
            return;
        }
        final ProducerEntry entry = entryFor(pid);
        final int firstSeq = view.getInt(p + BASE_SEQUENCE_OFFSET, ByteOrder.BIG_ENDIAN);
        entry.addBatch(epoch, ProducerEntry.incrementSequence(firstSeq, delta), base + delta, delta, maxTimestamp);
        if ((attributes & TRANSACTIONAL_FLAG_MASK) != 0 && entry.beginTransactionIfNone(base)) {
            unstable.begin(pid, base, stableBelow);
        }
    }

    private ProducerEntry entryFor(final long pid) {
        ProducerEntry entry = producers.get(pid);
        if (entry == null) {
            entry = new ProducerEntry(pid);
            producers.put(pid, entry);
        }
        return entry;
    }

    /**
     * The coordinator epoch of the marker record {@link #readMarkerRecord} read (Kafka's {@code EndTransactionMarker}
     * value: int16 version, int32 coordinatorEpoch); {@code otherwise} when its value is too short.
     */
    private int markerCoordinatorEpoch(final DirectBuffer view, final int otherwise) {
        if (markerRecord.valueLength() < RecordBatchDescriptor.MARKER_VALUE_LENGTH) {
            return otherwise;
        }
        return view.getInt(markerRecord.valueOffset() + RecordBatchDescriptor.MARKER_VALUE_COORDINATOR_EPOCH_OFFSET,
            ByteOrder.BIG_ENDIAN);
    }

    /** Whether the marker record {@link #readMarkerRecord} read is an ABORT (a short key counts as a COMMIT). */
    private boolean isAbortMarker(final DirectBuffer view) {
        return markerRecord.keyLength() >= RecordBatchDescriptor.CONTROL_KEY_LENGTH
            && view.getShort(markerRecord.keyOffset() + RecordBatchDescriptor.CONTROL_KEY_TYPE_OFFSET,
                ByteOrder.BIG_ENDIAN) == RecordBatchDescriptor.CONTROL_TYPE_ABORT;
    }

    /** Reads a control batch's first record into {@link #markerRecord}; false when it has none. */
    private boolean readMarkerRecord(final DirectBuffer view, final int p) {
        marker.wrap(view, p);
        marker.rewindRecords();
        return marker.nextRecord(markerRecord);
    }

    // ------------------------------------------------------------------------------------------ snapshots

    /**
     * Writes a snapshot at {@link #mapEndOffset()} unless one is there already (Kafka's {@code takeSnapshot}):
     * temp file, fsync, rename, fsync of the directory.
     *
     * @return whether a snapshot was written
     * @throws IOException if the write fails
     */
    public boolean takeSnapshot() throws IOException {
        // Kafka's rule: only a state newer than the last snapshot (loaded or written) is worth a file.
        if (readOnly || mapEndOffset <= lastSnapOffset) {
            return false;
        }
        final Path file = dir.resolve(ProducerSnapshotDescriptor.fileName(mapEndOffset));
        ProducerSnapshotFile.write(io, file, producers.values());
        snapshots.put(mapEndOffset, file);
        lastSnapOffset = mapEndOffset;
        return true;
    }

    /**
     * Deletes the snapshots below {@code offset} (retention moved the log start there). The directory is not synced:
     * a snapshot below the first segment that comes back after a crash is deleted at the next open.
     *
     * @param offset the log start offset
     * @return whether any was deleted
     * @throws IOException if a delete fails
     */
    public boolean deleteSnapshotsBefore(final long offset) throws IOException {
        if (readOnly) {
            return false;
        }
        boolean deleted = false;
        for (final Map.Entry<Long, Path> e : new ArrayList<>(snapshots.headMap(offset, false).entrySet())) {
            deleteSnapshot(e.getKey(), e.getValue());
            deleted = true;
        }
        return deleted;
    }

    private boolean deleteSnapshotsAbove(final long offset) throws IOException {
        boolean deleted = false;
        for (final Map.Entry<Long, Path> e : new ArrayList<>(snapshots.tailMap(offset, false).entrySet())) {
            deleteSnapshot(e.getKey(), e.getValue());
            deleted = true;
        }
        return deleted;
    }

    private void deleteSnapshot(final long offset, final Path file) throws IOException {
        snapshots.remove(offset);
        io.deleteIfExists(file);
    }

    // ------------------------------------------------------------------------------------------ truncation

    /**
     * After a truncation to {@code newEnd}: deletes the snapshots above it (and syncs the directory, so none comes
     * back to describe batches the log no longer has) and, unless the state already ends there, reloads it from the
     * latest snapshot at or below it plus the batches after.
     *
     * @param segments       the segments after the truncation
     * @param logStartOffset the log start offset
     * @param newEnd         the new log end offset
     * @param nowMs          the time, for expiration
     * @throws IOException if a file operation fails
     */
    public void truncateAndReload(final LogSegment[] segments, final long logStartOffset, final long newEnd,
                                  final long nowMs) throws IOException {
        if (readOnly) {
            return;
        }
        if (deleteSnapshotsAbove(newEnd)) {
            io.fsyncDirectory(dir);
        }
        if (newEnd != mapEndOffset) {
            // The segments' truncation cut their transaction indexes: the entries below newEnd stand as written.
            reload(segments, logStartOffset, newEnd, nowMs, false);
        }
    }

    /**
     * After the log was emptied and restarted at {@code offset}: no producer, no snapshot.
     *
     * @param offset the new log start and end
     * @throws IOException if a delete fails
     */
    public void truncateFullyAndStartAt(final long offset) throws IOException {
        if (readOnly) {
            return;
        }
        producers.clear();
        unstable.clear();
        if (deleteSnapshotsAbove(-1)) {
            io.fsyncDirectory(dir);
        }
        mapEndOffset = offset;
        lastSnapOffset = 0;
    }

    /**
     * Loads the latest valid snapshot and replays the log after it. With {@code indexAborts} (an open) the
     * transaction indexes are made to agree with the replay: every entry from the snapshot's offset on is cut and
     * written again as the replay completes each abort, then synced. That repairs an index a crash left behind its
     * segment (entries are not synced before the recovery point passes them) or one discarded as corrupt at open.
     */
    private void reload(final LogSegment[] segments, final long logStartOffset, final long endOffset,
                        final long nowMs, final boolean indexAborts) throws IOException {
        producers.clear();
        unstable.clear();
        long from = Math.max(logStartOffset, segments[0].baseOffset());
        lastSnapOffset = from;
        while (!snapshots.isEmpty()) {
            final Map.Entry<Long, Path> latest = snapshots.lastEntry();
            try {
                final List<ProducerEntry> loaded = ProducerSnapshotFile.read(io, latest.getValue());
                for (final ProducerEntry entry : loaded) {
                    if (!isExpired(entry, nowMs)) {
                        producers.put(entry.producerId(), entry);
                        if (entry.currentTxnFirstOffset() >= 0) {
                            unstable.begin(entry.producerId(), entry.currentTxnFirstOffset(), -1);
                        }
                    }
                }
                from = latest.getKey();
                lastSnapOffset = from;
                break;
            } catch (final CorruptSnapshotException e) {
                LOG.warn("Deleting producer snapshot {} and rebuilding the producer state from an older one or the"
                    + " log: {}", latest.getValue(), e.getMessage());
                deleteSnapshot(latest.getKey(), latest.getValue());
            }
        }
        final int replayed;
        if (indexAborts) {
            final AbortIndexer indexer = new AbortIndexer(segments, from);
            replayed = replay(segments, from, endOffset, indexer);
            indexer.flush();
        } else {
            replayed = replay(segments, from, endOffset, TransactionSink.NONE);
        }
        mapEndOffset = endOffset;
        if (replayed > 0 || from < endOffset) {
            LOG.info("Rebuilt the producer state of {} from offset {} to {} ({} producer batches replayed, {}"
                + " producers)", dir, from, endOffset, replayed, producers.size());
        }
    }

    /** Replays the batches in {@code [from, endOffset)} from the segment files: a header read per batch. */
    private int replay(final LogSegment[] segments, final long from, final long endOffset,
                       final TransactionSink completions) throws IOException {
        if (from >= endOffset) {
            return 0;
        }
        int replayed = 0;
        ByteBuffer buffer = ByteBuffer.allocateDirect(RECORDS_OFFSET);
        for (int i = 0; i < segments.length; i++) {
            final LogSegment segment = segments[i];
            if (i + 1 < segments.length && segments[i + 1].baseOffset() <= from) {
                continue; // wholly below the start
            }
            if (segment.baseOffset() >= endOffset) {
                break;
            }
            final int size = segment.sizeInBytes();
            int position = 0;
            while (position + RECORDS_OFFSET <= size) {
                buffer.clear().limit(RECORDS_OFFSET);
                readFully(segment, buffer, position);
                scanView.wrap(buffer, 0, RECORDS_OFFSET);
                final int batchSize = LOG_OVERHEAD + scanView.getInt(LENGTH_OFFSET, ByteOrder.BIG_ENDIAN);
                final long base = scanView.getLong(BASE_OFFSET_OFFSET, ByteOrder.BIG_ENDIAN);
                final long last = base + scanView.getInt(LAST_OFFSET_DELTA_OFFSET, ByteOrder.BIG_ENDIAN);
                if (base >= endOffset || batchSize < RECORDS_OFFSET || position + batchSize > size) {
                    break;
                }
                if (last >= from && scanView.getLong(PRODUCER_ID_OFFSET, ByteOrder.BIG_ENDIAN) != NO_PRODUCER_ID) {
                    final boolean control =
                        (scanView.getShort(ATTRIBUTES_OFFSET, ByteOrder.BIG_ENDIAN) & CONTROL_FLAG_MASK) != 0;
                    if (control) {
                        // A marker's coordinator epoch is in its record: read the whole (small) batch.
                        if (buffer.capacity() < batchSize) {
                            buffer = ByteBuffer.allocateDirect(batchSize);
                        }
                        buffer.clear().limit(batchSize);
                        readFully(segment, buffer, position);
                        scanView.wrap(buffer, 0, batchSize);
                    }
                    try {
                        applyBatch(scanView, 0, -1, completions);
                    } catch (final UncheckedIOException e) {
                        throw e.getCause();
                    }
                    replayed++;
                }
                position += batchSize;
            }
        }
        return replayed;
    }

    /**
     * A reload's writer of transaction-index entries: cuts every segment's index at the replay's start, then appends
     * each abort the replay completes to the segment holding its marker. An index discarded at open as corrupt is
     * rebuilt whole instead: its entries are gathered and replace the file at once ({@link TransactionIndex#replaceWith}).
     */
    private static final class AbortIndexer implements TransactionSink {
        private final LogSegment[] segments;
        private final List<TransactionIndex> touched = new ArrayList<>();
        /** Per segment whose index was discarded: its rebuilt entries, 4 longs each; null for the others. */
        private final LongArrayList[] rebuilt;

        AbortIndexer(final LogSegment[] segments, final long from) throws IOException {
            this.segments = segments;
            this.rebuilt = new LongArrayList[segments.length];
            for (int i = 0; i < segments.length; i++) {
                final TransactionIndex index = segments[i].txnIndex();
                if (index.discardedOnOpen()) {
                    rebuilt[i] = new LongArrayList();
                } else if (i + 1 == segments.length || segments[i + 1].baseOffset() > from) {
                    index.truncateTo(from);
                    touched.add(index);
                }
            }
        }

        @Override
        public void completed(final long producerId, final long firstOffset, final long lastOffset,
                              final boolean aborted, final long lastStableOffset) {
            if (!aborted) {
                return;
            }
            int i = segments.length - 1;
            while (i > 0 && segments[i].baseOffset() > lastOffset) {
                i--;
            }
            if (rebuilt[i] != null) {
                rebuilt[i].addLong(producerId);
                rebuilt[i].addLong(firstOffset);
                rebuilt[i].addLong(lastOffset);
                rebuilt[i].addLong(lastStableOffset);
                return;
            }
            try {
                segments[i].txnIndex().append(producerId, firstOffset, lastOffset, lastStableOffset);
            } catch (final IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        void flush() throws IOException {
            for (final TransactionIndex index : touched) {
                index.flush();
            }
            for (int i = 0; i < segments.length; i++) {
                if (rebuilt[i] != null) {
                    segments[i].txnIndex().replaceWith(rebuilt[i].toLongArray(), rebuilt[i].size() / 4);
                    LOG.info("Rebuilt the aborted-transaction index {} ({} entries)", segments[i].txnIndex().file(),
                        rebuilt[i].size() / 4);
                }
            }
        }
    }

    private static void readFully(final LogSegment segment, final ByteBuffer buffer, final int position)
        throws IOException {
        int read = 0;
        while (buffer.hasRemaining()) {
            final int n = segment.channel().read(buffer, position + read);
            if (n < 0) {
                throw new IOException("unexpected end of " + segment.logFile() + " at position " + (position + read));
            }
            read += n;
        }
    }

    // ------------------------------------------------------------------------------------------ expiration

    private boolean isExpired(final ProducerEntry entry, final long nowMs) {
        // Kafka's isProducerExpired: a producer inside a transaction never expires.
        return entry.currentTxnFirstOffset() < 0 && nowMs - entry.lastTimestamp() >= expirationMs;
    }

    /**
     * Forgets the producers idle for {@code producer.id.expiration.ms} or longer (Kafka's
     * {@code removeExpiredProducers}); a later batch of theirs is accepted at any sequence, as from a new producer.
     *
     * @param nowMs the time
     * @return how many were removed
     */
    public int removeExpiredProducers(final long nowMs) {
        final int before = producers.size();
        producers.values().removeIf(entry -> isExpired(entry, nowMs));
        return before - producers.size();
    }

    // ------------------------------------------------------------------------------------------ queries

    /**
     * The offset the state describes: every batch below it has been applied.
     *
     * @return the offset
     */
    public long mapEndOffset() {
        return mapEndOffset;
    }

    /**
     * The last stable offset for a high watermark (Kafka's first unstable offset capped at it): below it every
     * transaction is decided and its marker replicated. Never waits; any thread.
     *
     * @param highWatermark the high watermark
     * @return at most {@code highWatermark}
     */
    public long lastStableOffset(final long highWatermark) {
        return unstable.lastStableOffset(highWatermark);
    }

    /**
     * The first offset of the earliest transaction still open or whose marker may not be replicated yet, or -1.
     *
     * @return the offset
     */
    public long firstUnstableOffset() {
        return unstable.firstUnstableOffset();
    }

    /**
     * The number of open transactions.
     *
     * @return the count
     */
    public int openTransactionCount() {
        return unstable.openCount();
    }

    /**
     * The number of producers known.
     *
     * @return the count
     */
    public int producerIdCount() {
        return producers.size();
    }

    /**
     * The offsets of the snapshot files on disk, ascending.
     *
     * @return a copy
     */
    public long[] snapshotOffsets() {
        return snapshots.keySet().stream().mapToLong(Long::longValue).toArray();
    }

    /** The entry of one producer, or null (tests). */
    ProducerEntry entry(final long producerId) {
        return producers.get(producerId);
    }
}
