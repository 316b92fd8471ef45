package io.seglog.replication.replica;

import io.seglog.storage.PartitionLog;
import io.seglog.storage.TopicPartition;
import io.seglog.storage.format.RecordBatchDescriptor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A follower's changes to its log, in the leader's offsets: the append of what the fetcher brought with the leader's
 * high watermark and log start, the restart of an empty log inside a batch, the truncations. It owns no state: the log
 * is the log manager's, the fetch state the fetcher's ({@link PartitionFetch}), the role {@link Partition}'s.
 *
 * <p>Locking: {@link Partition} calls it under its role read lock, only while this broker follows the partition in the
 * leader epoch the fetch was sent in, so no LeaderAndIsr lands in the middle of a change; the log's append lock is
 * taken inside.
 */
final class FollowerWrites {
    private static final Logger LOG = LoggerFactory.getLogger(Partition.class);

    private final TopicPartition tp;
    private final PartitionLog log;

    FollowerWrites(final TopicPartition tp, final PartitionLog log) {
        this.tp = tp;
        this.log = log;
    }

    /**
     * Appends what the fetcher brought, then takes the leader's high watermark (capped at the log end) and log start
     * (Kafka's {@code processPartitionData}). {@code leaderId} and {@code epoch} only name the role in the log.
     *
     * @return the log end offset after the append
     */
    long append(final ByteBuffer records, final int leaderId, final int epoch, final long leaderHw,
                final long leaderLogStart) {
        if (records != null && records.hasRemaining()) {
            restartAtFirstBatchIfEmpty(records, leaderId, epoch);
            log.appendAsFollower(records);
        }
        log.updateHighWatermark(leaderHw);
        if (leaderLogStart > log.logStartOffset() && leaderLogStart <= log.highWatermark()) {
            log.deleteRecordsBefore(leaderLogStart);
        }
        return log.logEndOffset();
    }

    /**
     * An empty follower log restarted at the leader's log start, which may lie inside a batch (a log start raised by
     * offset, not by segment), cannot take the whole batch the leader serves from there: it starts over at that
     * batch's base offset instead (Kafka's answer to {@code UnexpectedAppendOffsetException}). A log holding records
     * is never moved.
     */
    private void restartAtFirstBatchIfEmpty(final ByteBuffer records, final int leaderId, final int epoch) {
        final long end = log.logEndOffset();
        if (end != log.logStartOffset()
            || records.remaining() < RecordBatchDescriptor.LAST_OFFSET_DELTA_OFFSET + Integer.BYTES) {
            return;
        }
        final ByteBuffer header = records.duplicate().order(ByteOrder.BIG_ENDIAN);
        final long base = header.getLong(records.position() + RecordBatchDescriptor.BASE_OFFSET_OFFSET);
        final long last = base + header.getInt(records.position() + RecordBatchDescriptor.LAST_OFFSET_DELTA_OFFSET);
        if (base < end && last >= end) {
            LOG.info("{} follower of {} in epoch {}: empty log at {} restarts at {}, the base of the batch holding it",
                tp, leaderId, epoch, end, base);
            log.truncateFullyAndStartAt(base);
        }
    }

    /**
     * Truncates the follower's log (by epoch, after a diverging epoch or an OffsetsForLeaderEpoch answer, or to the
     * leader's end after OFFSET_OUT_OF_RANGE).
     *
     * @return the log end offset after it
     */
    long truncateTo(final long offset, final int leaderId, final int epoch) {
        if (offset < log.logEndOffset()) {
            LOG.info("{} follower of {} in epoch {}: truncating from {} to {}", tp, leaderId, epoch,
                log.logEndOffset(), offset);
        }
        return log.truncateTo(offset);
    }

    /** Empties the follower's log and restarts it at {@code offset} (the leader's log start passed this log's end). */
    void truncateFullyAndStartAt(final long offset, final int leaderId, final int epoch) {
        LOG.info("{} follower of {} in epoch {}: log [{}, {}) is below the leader's start {}; restarting there", tp,
            leaderId, epoch, log.logStartOffset(), log.logEndOffset(), offset);
        log.truncateFullyAndStartAt(offset);
    }
}
