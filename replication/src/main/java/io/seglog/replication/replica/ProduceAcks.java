package io.seglog.replication.replica;

import io.seglog.storage.AppendOutcome;
import io.seglog.storage.LeaderAppendResult;
import io.seglog.storage.PartitionLog;

/**
 * The produces a leader has appended and not yet answered: when this broker's leadership began (the epoch a produce
 * must have been appended in for its answer to stand), and the acks=1 flow control's ring of this leadership's
 * latest appends; the decisions of when an acks=all or a held acks=1 produce is answered, which
 * {@link DelayedOperations} asks through {@link Partition}.
 *
 * <p>Owner of the leadership's start epoch and of its {@link AppendRing}, and their only writer. Locking: the start
 * epoch is set from {@link Partition#makeLeader} under the role write lock and read under the role read lock, which
 * {@link Partition} takes around every call here; the ring is written by {@link #answer} under the log's append lock
 * (inside the role read lock), in append order, and guarded by its own monitor. The high watermark and the ISR are
 * read through their owners, the log and the {@link IsrTracker}.
 */
final class ProduceAcks {
    private final PartitionLog log;
    private final Partition.Context ctx;
    private final IsrTracker isrs;
    /** acks=1 flow control: this leadership's latest appends, recorded in the order the log wrote them. */
    private final AppendRing appendRing = new AppendRing();
    /** The epoch in which this broker last became leader (a re-election at a higher epoch keeps it). */
    private int leaderSinceEpoch = -1;

    ProduceAcks(final PartitionLog log, final Partition.Context ctx, final IsrTracker isrs) {
        this.log = log;
        this.ctx = ctx;
        this.isrs = isrs;
    }

    /** This broker became leader (it was not): the flow control counts this leadership's appends only. */
    void beginLeadership(final int leaderEpoch) {
        leaderSinceEpoch = leaderEpoch;
        appendRing.reset();
    }

    /**
     * The log's answer made the partition's, under the log's append lock (so appends reach the flow control's ring in
     * the order they were written): an append is remembered for acks=1, and every outcome becomes a result.
     */
    AppendResult answer(final LeaderAppendResult appended) {
        if (appended.outcome() == AppendOutcome.APPENDED) {
            appendRing.record(appended.lastOffset() + 1, appended.sizeInBytes());
        }
        return AppendResult.of(appended);
    }

    /**
     * Whether an acks=all produce that appended up to {@code lastOffset} may be answered: the high watermark (or,
     * with durable acks, the durable high watermark) passed it.
     *
     * A new leader epoch with this broker still leader (the controller dropped a dead replica from the ISR) keeps
     * the produce waiting, as Kafka's {@code checkEnoughReplicasReachOffset} does: a leader's log is never truncated,
     * so the batch is still at its offsets. Leadership lost since the append, even if regained, answers
     * NOT_LEADER_OR_FOLLOWER (a follower may have truncated it).
     *
     * @param lastOffset the produce's last offset
     * @param epoch      the leader epoch it was appended in
     * @param isLeader   whether this broker leads now
     * @param minIsr     the effective {@code min.insync.replicas}
     * @return NONE when acknowledged; NOT_ENOUGH_REPLICAS_AFTER_APPEND when replicated but the ISR is now below
     *     {@code min.insync.replicas}; NOT_LEADER_OR_FOLLOWER when this broker lost the leadership since the
     *     append; null while it must wait
     */
    ReplicaError acksStatus(final long lastOffset, final int epoch, final boolean isLeader, final int minIsr) {
        if (!isLeader || epoch < leaderSinceEpoch) {
            return ReplicaError.NOT_LEADER_OR_FOLLOWER;
        }
        if (isrs.committedOffset() <= lastOffset) {
            return null;
        }
        return isrs.isr().size() < minIsr ? ReplicaError.NOT_ENOUGH_REPLICAS_AFTER_APPEND : ReplicaError.NONE;
    }

    /**
     * acks=1 flow control: the offset the high watermark must reach before an acks=1 produce that appended up to
     * {@code lastOffset} is answered, so that at most {@code maxBytes} of acknowledged records lie beyond what every
     * in-sync follower holds: the end of the first append whose running total reaches this one's less
     * {@code maxBytes}. Worked from the ring of this leadership's latest appends; when this append has already left the
     * ring, the produce need not wait, and when the first such append has, the oldest one remembered stands in (a
     * tighter bound).
     *
     * @param lastOffset the produce's last offset
     * @param maxBytes   the bound, 0 or more
     * @return the offset, or -1 when the produce need not wait (no follower in the ISR, or everything this leader
     *     appended is within the bound)
     */
    long unreplicatedTarget(final long lastOffset, final long maxBytes) {
        if (isrs.isr().size() < 2) {
            return -1;
        }
        return appendRing.target(lastOffset, maxBytes);
    }

    /**
     * Whether an acks=1 produce held by the flow control may be answered: the high watermark reached
     * {@code target}, or no in-sync follower short of it has fetched within {@code activeWindowMs} (a stopped or
     * paused follower is not waited for).
     *
     * @param target         from {@link #unreplicatedTarget}
     * @param epoch          the leader epoch of the append
     * @param isLeader       whether this broker leads now
     * @param activeWindowMs how recently a follower must have fetched to be waited for
     * @return NONE to answer; NOT_LEADER_OR_FOLLOWER when this broker lost the leadership since the append (the
     *     batch may be truncated); null while it waits
     */
    ReplicaError unreplicatedStatus(final long target, final int epoch, final boolean isLeader,
                                    final long activeWindowMs) {
        if (!isLeader || epoch < leaderSinceEpoch) {
            return ReplicaError.NOT_LEADER_OR_FOLLOWER;
        }
        if (log.highWatermark() >= target) {
            return ReplicaError.NONE;
        }
        return isrs.awaitsActiveFollower(target, ctx.nowMs() - activeWindowMs) ? null : ReplicaError.NONE;
    }
}
