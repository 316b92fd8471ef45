package io.seglog.replication.replica;

import io.seglog.replication.policy.FetchDivergence;
import io.seglog.storage.EpochEndOffset;
import io.seglog.storage.LeaderEpochEntry;
import io.seglog.storage.LogReader;
import io.seglog.storage.LogRecord;
import io.seglog.storage.LogSlice;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.Records;
import org.agrona.collections.LongArrayList;

/**
 * What a leader answers from its log alone: a fetch's records below a bound, ListOffsets, the epoch an offset was
 * written in. It owns no state (the log is the log manager's, the role {@link Partition}'s) and writes nothing: the
 * answers are functions of the log and of what the caller read of the role.
 *
 * <p>Locking: {@link Partition} calls it under its role read lock, after the caller's leader epoch was checked, so
 * that the role the answer is made in cannot change during it; the log's reads take no lock.
 */
final class LeaderReads {
    private static final long[] NO_ABORTS = new long[0];
    private final PartitionLog log;

    LeaderReads(final PartitionLog log) {
        this.log = log;
    }

    /**
     * A follower's fetch from {@code fetchOffset}: the epoch where its log diverged from this one (Kafka's
     * {@code DivergingEpoch}, no records), OFFSET_OUT_OF_RANGE, or the batches from there below the log end. A
     * diverging answer is the only one with a defined diverging epoch.
     */
    ReadResult forFollower(final int lastFetchedEpoch, final long fetchOffset, final int maxBytes,
                           final boolean minOneBatch) {
        final long hw = log.highWatermark();
        final long logStart = log.logStartOffset();
        final long leo = log.logEndOffset();
        final EpochEndOffset epochEnd = lastFetchedEpoch >= 0 ? log.endOffsetForEpoch(lastFetchedEpoch)
            : EpochEndOffset.UNDEFINED;
        switch (FetchDivergence.decide(lastFetchedEpoch, fetchOffset, logStart, epochEnd)) {
            case DIVERGING:
                return new ReadResult(ReplicaError.NONE, hw, logStart, leo, epochEnd, null);
            case OUT_OF_RANGE:
                return new ReadResult(ReplicaError.OFFSET_OUT_OF_RANGE, hw, logStart, leo, EpochEndOffset.UNDEFINED,
                    null);
            default:
                return readBelow(Long.MAX_VALUE, fetchOffset, maxBytes, minOneBatch, hw, logStart, leo);
        }
    }

    /**
     * A consumer's fetch from {@code fetchOffset}: the batches below its isolation's bound (Kafka's order: the high
     * watermark and the last stable offset are read before the data, so the answer never claims more than it holds);
     * a {@code read_committed} answer carries the aborted transactions its records overlap, read from the segments'
     * transaction indexes without decoding a record.
     */
    ReadResult forConsumer(final FetchIsolation isolation, final long fetchOffset, final int maxBytes,
                           final boolean minOneBatch) {
        final long hw = log.highWatermark();
        final long lso = log.lastStableOffset();
        final long logStart = log.logStartOffset();
        final long leo = log.logEndOffset();
        if (isolation != FetchIsolation.TXN_COMMITTED) {
            final ReadResult read = readBelow(hw, fetchOffset, maxBytes, minOneBatch, hw, logStart, leo);
            return new ReadResult(read.error(), hw, logStart, leo, EpochEndOffset.UNDEFINED, read.records(), lso, null);
        }
        if (fetchOffset < logStart || fetchOffset > leo) {
            return new ReadResult(ReplicaError.OFFSET_OUT_OF_RANGE, hw, logStart, leo, EpochEndOffset.UNDEFINED, null);
        }
        if (fetchOffset >= Math.min(lso, leo) || maxBytes == 0 && !minOneBatch) {
            return new ReadResult(ReplicaError.NONE, hw, logStart, leo, EpochEndOffset.UNDEFINED, null, lso,
                NO_ABORTS);
        }
        final LogReader reader = log.reader();
        if (!reader.read(fetchOffset, maxBytes, lso, minOneBatch)) {
            return new ReadResult(ReplicaError.NONE, hw, logStart, leo, EpochEndOffset.UNDEFINED, null, lso,
                NO_ABORTS);
        }
        final LongArrayList aborted = new LongArrayList();
        reader.abortedTransactions((producerId, firstOffset) -> {
            aborted.addLong(producerId);
            aborted.addLong(firstOffset);
        });
        return new ReadResult(ReplicaError.NONE, hw, logStart, leo, EpochEndOffset.UNDEFINED, reader.slice(), lso,
            aborted.isEmpty() ? NO_ABORTS : aborted.toLongArray());
    }

    /**
     * Reads whole batches from {@code fetchOffset} below {@code maxOffset} (the log end for a follower, the high
     * watermark for a consumer). An offset outside {@code [logStart, leo]} is OFFSET_OUT_OF_RANGE; an offset at the
     * bound answers no records.
     */
    ReadResult readBelow(final long maxOffset, final long fetchOffset, final int maxBytes, final boolean minOneBatch,
                         final long hw, final long logStart, final long leo) {
        if (fetchOffset < logStart || fetchOffset > leo) {
            return new ReadResult(ReplicaError.OFFSET_OUT_OF_RANGE, hw, logStart, leo, EpochEndOffset.UNDEFINED, null);
        }
        final LogSlice slice = fetchOffset >= Math.min(maxOffset, leo) || maxBytes == 0 && !minOneBatch ? null
            : log.read(fetchOffset, maxBytes, maxOffset, minOneBatch);
        return new ReadResult(ReplicaError.NONE, hw, logStart, leo, EpochEndOffset.UNDEFINED,
            slice == null || slice.isEmpty() ? null : slice);
    }

    /**
     * ListOffsets' answer once the caller's epoch is known current: see {@link Partition#listOffset}.
     *
     * @param leaderEpoch            the leader epoch held
     * @param leaderEpochStartOffset where it began
     */
    OffsetResult listOffset(final long timestamp, final FetchIsolation isolation, final int leaderEpoch,
                            final long leaderEpochStartOffset) {
        final boolean fromReplica = isolation == FetchIsolation.LOG_END;
        final long bound = isolation.bound(log);
        // Without tiered storage the local log is the whole log (Kafka's UnifiedLog without remote storage).
        if (timestamp == PartitionLog.EARLIEST_TIMESTAMP || timestamp == Partition.EARLIEST_LOCAL_TIMESTAMP) {
            final long start = log.logStartOffset();
            return new OffsetResult(ReplicaError.NONE, start, -1, epochAt(start));
        }
        if (timestamp == Partition.LATEST_TIERED_TIMESTAMP
            || timestamp == Partition.EARLIEST_PENDING_UPLOAD_TIMESTAMP) {
            return new OffsetResult(ReplicaError.NONE, -1, -1, -1); // nothing tiered, nothing pending upload
        }
        if (!fromReplica && leaderEpochStartOffset > log.highWatermark()) {
            return OffsetResult.error(ReplicaError.OFFSET_NOT_AVAILABLE);
        }
        if (timestamp == PartitionLog.LATEST_TIMESTAMP) {
            return new OffsetResult(ReplicaError.NONE, bound, -1, leaderEpoch);
        }
        final long offset = log.reader().offsetForTimestamp(timestamp, bound);
        if (offset < 0 || offset >= bound) {
            return new OffsetResult(ReplicaError.NONE, -1, -1, -1);
        }
        long found = -1;
        for (final LogRecord record : Records.of(log, offset, offset + 1)) {
            found = record.timestamp();
        }
        return new OffsetResult(ReplicaError.NONE, offset, found, epochAt(offset));
    }

    private int epochAt(final long offset) {
        int epoch = -1;
        for (final LeaderEpochEntry e : log.leaderEpochs()) {
            if (e.startOffset() <= offset) {
                epoch = e.epoch();
            }
        }
        return epoch;
    }
}
