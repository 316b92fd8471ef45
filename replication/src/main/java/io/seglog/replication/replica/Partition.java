package io.seglog.replication.replica;

import io.seglog.replication.election.LeaderAndIsr;
import io.seglog.replication.policy.FetchDivergence;
import io.seglog.replication.policy.FollowerProgress;
import io.seglog.replication.policy.IsrRules;
import io.seglog.replication.transport.PartitionStateInfo;
import io.seglog.storage.AppendOutcome;
import io.seglog.storage.EpochEndOffset;
import io.seglog.storage.LeaderAppendResult;
import io.seglog.storage.LeaderEpochEntry;
import io.seglog.storage.LogRecord;
import io.seglog.storage.LogSlice;
import io.seglog.storage.OffsetOutOfRangeException;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.Records;
import io.seglog.storage.StorageException;
import io.seglog.storage.TopicPartition;
import io.seglog.storage.format.CodecUnavailableException;
import io.seglog.storage.format.InvalidRecordException;
import io.seglog.storage.format.RecordBatchDescriptor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One partition on one broker: its log, and its role as leader or follower at a leader epoch (Kafka's
 * {@code Partition}). As leader it appends producers' batches, tracks each follower's progress from its fetches,
 * moves the high watermark and changes the ISR through an {@link IsrWriter}; as follower it appends what its
 * fetcher brings and takes the leader's high watermark. The rules it applies are in
 * {@link io.seglog.replication.policy}; time comes from the {@link Context}.
 *
 * <p>Threads: any. The role (leader, epochs, ISR) changes under a write lock; appends, reads and fetches run under
 * the read lock, so a LeaderAndIsr waits for the appends in flight and none starts in the old role after it. The
 * followers' progress, the ISR change in flight and the high-watermark decisions are guarded by a monitor taken
 * inside the read lock. Nothing here blocks on ZooKeeper or the network: an ISR write is handed to the writer and
 * its outcome applied when it completes.
 */
public final class Partition {
    /** ListOffsets v8+ (KIP-405): the local log's start, which is the log start without tiered storage. */
    public static final long EARLIEST_LOCAL_TIMESTAMP = -4L;
    /** ListOffsets v9+ (KIP-1005): the last offset in remote storage; -1 without tiered storage. */
    public static final long LATEST_TIERED_TIMESTAMP = -5L;
    /** ListOffsets v11+ (KIP-1023): the first offset not yet uploaded; -1 without tiered storage. */
    public static final long EARLIEST_PENDING_UPLOAD_TIMESTAMP = -6L;

    private static final Logger LOG = LoggerFactory.getLogger(Partition.class);

    /** What a partition needs from its broker. */
    public interface Context {
        /**
         * The broker's monotonic clock.
         *
         * @return milliseconds
         */
        long nowMs();

        /**
         * {@code replica.lag.time.max.ms}.
         *
         * @return milliseconds
         */
        long replicaLagTimeMaxMs();

        /**
         * Whether acks=all waits for the disks of every replica that counted.
         *
         * @return durable acks
         */
        boolean durableAcks();

        /**
         * The replication fixes in force: all of them, except in a simulation that proves it finds what one
         * prevents.
         *
         * @return the fixes
         */
        default SafetyFixes safetyFixes() {
            return SafetyFixes.ALL;
        }

        /**
         * Whether a broker may be in an ISR (alive).
         *
         * @param brokerId the broker
         * @return eligible
         */
        boolean isEligible(int brokerId);

        /**
         * Where ISR changes are written.
         *
         * @return the writer
         */
        IsrWriter isrWriter();

        /**
         * The high watermark (or the durable one) moved: acknowledgements and consumer fetches may complete.
         *
         * @param tp the partition
         */
        void onHighWatermarkChanged(TopicPartition tp);

        /**
         * Records were appended: followers' fetches may complete.
         *
         * @param tp the partition
         */
        void onAppended(TopicPartition tp);

        /**
         * A follower's fetch moved its log end offset without moving the high watermark: acks=1 produces held by the
         * flow control may be answered.
         *
         * @param tp the partition
         */
        default void onFollowerProgress(final TopicPartition tp) {
        }

        /**
         * A leader's ISR change was written (Kafka's {@code IsrShrinksPerSec} and {@code IsrExpandsPerSec} count
         * these). Called outside every lock of the partition.
         *
         * @param tp     the partition
         * @param before the ISR before
         * @param after  the ISR written
         */
        default void onIsrChanged(final TopicPartition tp, final List<Integer> before, final List<Integer> after) {
        }
    }

    private final TopicPartition tp;
    private final int localBrokerId;
    private final PartitionLog log;
    private final Context ctx;
    private final ReentrantReadWriteLock roleLock = new ReentrantReadWriteLock();
    /** Reads the log's answer under the log's append lock: made once, so an append allocates only its result. */
    private final LeaderAppendResult.Handler<AppendResult> onLeaderAppend = this::answer;
    /** The broker's eligibility rule, made once, so the high-watermark check after each append allocates none. */
    private final IsrRules.Eligibility eligible;
    /** Guards the followers' progress, the ISR change in flight and the HW decisions (inside the read lock). */
    private final Object progressLock = new Object();

    /** acks=1 flow control: this leadership's latest appends, recorded in the order the log wrote them. */
    private final AppendRing appendRing = new AppendRing();

    // The role: written under the write lock.
    private volatile int leaderId = LeaderAndIsr.NO_LEADER;
    private volatile int leaderEpoch = -1;
    /** The epoch in which this broker last became leader (a re-election at a higher epoch keeps it). */
    private int leaderSinceEpoch = -1;
    private int partitionEpoch = -1;
    private int controllerEpoch = -1;
    private volatile List<Integer> assignment = List.of();
    private volatile List<Integer> isr = List.of();
    private long leaderEpochStartOffset = -1;
    private Map<Integer, FollowerProgress> followers = Map.of();
    private volatile boolean stopped;

    // Under progressLock.
    private List<Integer> pendingIsr;
    /** An ISR write found a newer leadership in the store: no more proposals until a LeaderAndIsr. */
    private boolean isrStale;
    private long durableHighWatermark = -1;

    /**
     * A partition with no role yet.
     *
     * @param tp            the partition
     * @param localBrokerId this broker
     * @param log           its log, owned by the broker's log manager
     * @param ctx           the broker's services
     */
    public Partition(final TopicPartition tp, final int localBrokerId, final PartitionLog log, final Context ctx) {
        this.tp = tp;
        this.localBrokerId = localBrokerId;
        this.log = log;
        this.ctx = ctx;
        this.eligible = ctx::isEligible;
    }

    // ------------------------------------------------------------------------------------------------- role

    /**
     * Becomes leader (Kafka's {@code makeLeader}): records the new epoch in the log at its end before anything is
     * appended in it (KAFKA-7415), takes the ISR and assignment, and starts tracking every follower afresh (a new
     * leader) or keeps what it knew (re-elected).
     *
     * @param state the LeaderAndIsr state naming this broker leader
     * @return whether this broker was not leader before
     * @throws StorageException if the epoch cannot be recorded (the log goes offline)
     */
    public boolean makeLeader(final PartitionStateInfo state) {
        final boolean newLeader;
        roleLock.writeLock().lock();
        try {
            newLeader = leaderId != localBrokerId;
            final LeaderAndIsr lai = state.leaderAndIsr();
            if (newLeader) {
                leaderSinceEpoch = lai.leaderEpoch();
                appendRing.reset(); // the flow control counts this leadership's appends only
            }
            leaderEpochStartOffset = ctx.safetyFixes().leaderEpochAtElection()
                ? log.beginLeaderEpoch(lai.leaderEpoch()) : log.logEndOffset();
            setRole(state);
            final long now = ctx.nowMs();
            final long leo = log.logEndOffset();
            final Map<Integer, FollowerProgress> next = new HashMap<>();
            for (final int replica : assignment) {
                if (replica == localBrokerId) {
                    continue;
                }
                final FollowerProgress known = followers.get(replica);
                final FollowerProgress f = known != null ? known : new FollowerProgress(replica);
                if (newLeader || known == null) {
                    f.resetForNewLeader(now, isr.contains(replica));
                } else {
                    f.resetForReelectedLeader(now, leo, isr.contains(replica));
                }
                next.put(replica, f);
            }
            followers = next;
            synchronized (progressLock) {
                pendingIsr = null;
                isrStale = false;
                durableHighWatermark = -1;
            }
        } finally {
            roleLock.writeLock().unlock();
        }
        LOG.info("{} broker.id={} leads in epoch {} from offset {} (isr={}, highWatermark={})", tp, localBrokerId,
            leaderEpoch, leaderEpochStartOffset, isr, log.highWatermark());
        if (maybeIncrementHighWatermark()) {
            ctx.onHighWatermarkChanged(tp);
        }
        return newLeader;
    }

    /**
     * Becomes a follower of another broker (Kafka's {@code makeFollower}); the fetcher then truncates by epoch and
     * fetches.
     *
     * @param state the LeaderAndIsr state
     * @return whether the leader or the leader epoch changed (the fetcher must start over)
     */
    public boolean makeFollower(final PartitionStateInfo state) {
        roleLock.writeLock().lock();
        try {
            final boolean changed = leaderId != state.leaderAndIsr().leader()
                || leaderEpoch != state.leaderAndIsr().leaderEpoch() || stopped;
            setRole(state);
            followers = Map.of();
            leaderEpochStartOffset = -1;
            synchronized (progressLock) {
                pendingIsr = null;
                isrStale = false;
            }
            return changed;
        } finally {
            roleLock.writeLock().unlock();
        }
    }

    private void setRole(final PartitionStateInfo state) {
        final LeaderAndIsr lai = state.leaderAndIsr();
        leaderId = lai.leader();
        leaderEpoch = lai.leaderEpoch();
        partitionEpoch = lai.partitionEpoch();
        controllerEpoch = state.controllerEpoch();
        isr = List.copyOf(lai.isr());
        assignment = List.copyOf(state.replicas());
        stopped = false;
    }

    /** Stops every role (StopReplica): requests in flight and later ones get NOT_LEADER_OR_FOLLOWER. */
    public void stop() {
        roleLock.writeLock().lock();
        try {
            stopped = true;
            leaderId = LeaderAndIsr.NO_LEADER;
            followers = Map.of();
            synchronized (progressLock) {
                pendingIsr = null;
            }
        } finally {
            roleLock.writeLock().unlock();
        }
    }

    /**
     * Whether this broker leads the partition now.
     *
     * @return leader
     */
    public boolean isLeader() {
        return leaderId == localBrokerId && !stopped;
    }

    /**
     * The leader this broker knows of.
     *
     * @return the broker id, or -1
     */
    public int leaderId() {
        return leaderId;
    }

    /**
     * The leader epoch this broker holds.
     *
     * @return the epoch, -1 before the first LeaderAndIsr
     */
    public int leaderEpoch() {
        return leaderEpoch;
    }

    /**
     * The ISR this broker holds (as leader: the one written to the store).
     *
     * @return the ISR
     */
    public List<Integer> isr() {
        return isr;
    }

    /**
     * The replicas assigned, as the last LeaderAndIsr gave them.
     *
     * @return the assignment, preferred leader first
     */
    public List<Integer> assignment() {
        return assignment;
    }

    /**
     * Kafka's under-replicated partition: this broker leads it and its ISR is smaller than its assignment.
     *
     * @return under-replicated
     */
    public boolean underReplicated() {
        return isLeader() && isr.size() < assignment.size();
    }

    /**
     * Kafka's under-min-ISR partition: this broker leads it and its ISR is smaller than the effective
     * {@code min.insync.replicas}, so acks=all writes are refused.
     *
     * @return under min ISR
     */
    public boolean underMinIsr() {
        return isLeader() && isr.size() < effectiveMinIsr();
    }

    /**
     * Kafka's at-min-ISR partition: this broker leads it and its ISR is exactly the effective
     * {@code min.insync.replicas}: one more loss stops acks=all writes.
     *
     * @return at min ISR
     */
    public boolean atMinIsr() {
        return isLeader() && isr.size() == effectiveMinIsr();
    }

    /**
     * The partition.
     *
     * @return the topic and partition
     */
    public TopicPartition topicPartition() {
        return tp;
    }

    /** The replication fixes in force (its broker's). */
    SafetyFixes safetyFixes() {
        return ctx.safetyFixes();
    }

    /**
     * The partition's log.
     *
     * @return the log
     */
    public PartitionLog log() {
        return log;
    }

    /**
     * As leader, the offset at which its epoch began.
     *
     * @return the offset, -1 when not leader
     */
    public long leaderEpochStartOffset() {
        roleLock.readLock().lock();
        try {
            return isLeader() ? leaderEpochStartOffset : -1;
        } finally {
            roleLock.readLock().unlock();
        }
    }

    /**
     * As leader, what it knows of a follower (a copy, for tests and metrics).
     *
     * @param brokerId the follower
     * @return its log end offset, or -1
     */
    public long followerLogEndOffset(final int brokerId) {
        roleLock.readLock().lock();
        try {
            final FollowerProgress f = followers.get(brokerId);
            synchronized (progressLock) {
                return f == null ? -1 : f.logEndOffset();
            }
        } finally {
            roleLock.readLock().unlock();
        }
    }

    // ------------------------------------------------------------------------------------------ as leader

    /**
     * Kafka's effective min ISR: {@code min.insync.replicas} capped at the replication factor, so that a partition
     * with fewer replicas than the broker-wide setting (an RF=1 topic on a broker with min.insync.replicas=2) still
     * moves its high watermark and takes acks=all writes, as Kafka's {@code Partition.effectiveMinIsr} does.
     */
    private int effectiveMinIsr() {
        final int replicationFactor = assignment.isEmpty() ? 1 : assignment.size();
        return Math.min(log.config().minInsyncReplicas(), replicationFactor);
    }

    /**
     * Appends a producer's batches as leader (Kafka's {@code appendRecordsToLeader}): refused before the append with
     * NOT_ENOUGH_REPLICAS for acks=all while the ISR is smaller than {@code min.insync.replicas}. The log's answer
     * becomes the result through {@link AppendResult#of}, the one mapping of its {@link AppendOutcome} to Kafka's
     * errors; a leader epoch the log has moved past is {@link AppendOutcome#FENCED_LEADER_EPOCH}, answered
     * NOT_LEADER_OR_FOLLOWER with both epochs in the message.
     *
     * @param records the batches, stamped in place
     * @param acks    the produce's acks (-1, 0 or 1)
     * @return the offsets assigned, or the error
     */
    public AppendResult appendAsLeader(final ByteBuffer records, final short acks) {
        final AppendResult result;
        roleLock.readLock().lock();
        try {
            if (!isLeader()) {
                return AppendResult.error(ReplicaError.NOT_LEADER_OR_FOLLOWER, "broker " + localBrokerId
                    + " is not the leader of " + tp + " (leader " + leaderId + ")");
            }
            final int minIsr = effectiveMinIsr();
            if (acks == -1 && isr.size() < minIsr) {
                return AppendResult.error(ReplicaError.NOT_ENOUGH_REPLICAS, "the ISR " + isr + " of " + tp
                    + " is smaller than min.insync.replicas=" + minIsr + " (capped at the replication factor)");
            }
            result = log.appendAsLeader(records, leaderEpoch, onLeaderAppend);
        } catch (final InvalidRecordException e) {
            return AppendResult.error(ReplicaError.of(e), e.getMessage());
        } catch (final CodecUnavailableException e) {
            // storage-core's codec libraries are optional; an embedder's broker without one answers as Kafka does.
            return AppendResult.error(ReplicaError.UNSUPPORTED_COMPRESSION_TYPE, e.getMessage());
        } catch (final StorageException e) {
            return AppendResult.error(ReplicaError.KAFKA_STORAGE_ERROR, e.getMessage());
        } finally {
            roleLock.readLock().unlock();
        }
        if (result.error() != ReplicaError.NONE) {
            return result; // refused by the log (a producer's state, or a fenced leader): nothing appended
        }
        ctx.onAppended(tp);
        if (maybeIncrementHighWatermark()) {
            ctx.onHighWatermarkChanged(tp);
        }
        if (ctx.durableAcks()) {
            log.awaitDurable(result.lastOffset()).whenComplete((flushed, failure) -> {
                if (failure == null && maybeIncrementHighWatermark()) {
                    ctx.onHighWatermarkChanged(tp);
                }
            });
        }
        return result;
    }

    /**
     * The log's answer made the partition's, under the log's append lock (so appends reach the flow control's ring in
     * the order they were written): an append is remembered for acks=1, and every outcome becomes a result.
     */
    private AppendResult answer(final LeaderAppendResult appended) {
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
     * @return NONE when acknowledged; NOT_ENOUGH_REPLICAS_AFTER_APPEND when replicated but the ISR is now below
     *     {@code min.insync.replicas}; NOT_LEADER_OR_FOLLOWER when this broker lost the leadership since the
     *     append; null while it must wait
     */
    ReplicaError acksStatus(final long lastOffset, final int epoch) {
        roleLock.readLock().lock();
        try {
            if (!isLeader() || epoch < leaderSinceEpoch) {
                return ReplicaError.NOT_LEADER_OR_FOLLOWER;
            }
            final long committed;
            synchronized (progressLock) {
                committed = ctx.durableAcks() ? Math.min(durableHighWatermark, log.highWatermark())
                    : log.highWatermark();
            }
            if (committed <= lastOffset) {
                return null;
            }
            return isr.size() < effectiveMinIsr() ? ReplicaError.NOT_ENOUGH_REPLICAS_AFTER_APPEND
                : ReplicaError.NONE;
        } finally {
            roleLock.readLock().unlock();
        }
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
        if (isr.size() < 2) {
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
     * @param activeWindowMs how recently a follower must have fetched to be waited for
     * @return NONE to answer; NOT_LEADER_OR_FOLLOWER when this broker lost the leadership since the append (the
     *     batch may be truncated); null while it waits
     */
    ReplicaError unreplicatedStatus(final long target, final int epoch, final long activeWindowMs) {
        roleLock.readLock().lock();
        try {
            if (!isLeader() || epoch < leaderSinceEpoch) {
                return ReplicaError.NOT_LEADER_OR_FOLLOWER;
            }
            if (log.highWatermark() >= target) {
                return ReplicaError.NONE;
            }
            final long activeSince = ctx.nowMs() - activeWindowMs;
            synchronized (progressLock) {
                for (final int id : isr) {
                    final FollowerProgress f = followers.get(id);
                    if (f != null && f.logEndOffset() < target && f.lastFetchTimeMs() >= activeSince) {
                        return null;
                    }
                }
            }
            return ReplicaError.NONE;
        } finally {
            roleLock.readLock().unlock();
        }
    }

    /**
     * Serves a follower's fetch as leader (Kafka's {@code fetchRecords} for a follower): checks the follower's
     * epochs, answers a diverging log with the epoch where it diverged, else reads from the fetch offset and records
     * the follower's progress (which may move the high watermark and add the follower to the ISR).
     *
     * @param replicaId          the follower
     * @param replicaBrokerEpoch the follower's broker epoch, or -1
     * @param currentLeaderEpoch the epoch the follower believes current, or -1
     * @param fetchOffset        the follower's log end offset
     * @param lastFetchedEpoch   the epoch of the follower's last batch, or -1
     * @param followerLogStart   the follower's log start offset
     * @param followerDurable    the follower's durable end offset, or -1
     * @param maxBytes           the most bytes to read
     * @param minOneBatch        return the first batch whole even when larger than {@code maxBytes}
     * @param recordProgress     record the follower's progress (the first read of a fetch, when it arrives; not the
     *                           read that answers it after a wait, as Kafka's {@code updateFetchState})
     * @return the records or the error
     */
    public ReadResult fetchForFollower(final int replicaId, final long replicaBrokerEpoch, final int currentLeaderEpoch,
                                       final long fetchOffset, final int lastFetchedEpoch, final long followerLogStart,
                                       final long followerDurable, final int maxBytes, final boolean minOneBatch,
                                       final boolean recordProgress) {
        final FollowerProgress follower;
        final int readEpoch;
        final long leo;
        final ReadResult read;
        roleLock.readLock().lock();
        try {
            readEpoch = leaderEpoch;
            final ReplicaError epochError = checkEpochAsLeader(currentLeaderEpoch);
            if (epochError != null) {
                return ReadResult.error(epochError);
            }
            follower = followers.get(replicaId);
            if (follower == null) {
                return ReadResult.error(currentLeaderEpoch >= 0 ? ReplicaError.UNKNOWN_LEADER_EPOCH
                    : ReplicaError.NOT_LEADER_OR_FOLLOWER);
            }
            final long hw = log.highWatermark();
            final long logStart = log.logStartOffset();
            leo = log.logEndOffset();
            final EpochEndOffset epochEnd = lastFetchedEpoch >= 0 ? log.endOffsetForEpoch(lastFetchedEpoch)
                : EpochEndOffset.UNDEFINED;
            switch (FetchDivergence.decide(lastFetchedEpoch, fetchOffset, logStart, epochEnd)) {
                case DIVERGING:
                    return new ReadResult(ReplicaError.NONE, hw, logStart, leo, epochEnd, null);
                case OUT_OF_RANGE:
                    return new ReadResult(ReplicaError.OFFSET_OUT_OF_RANGE, hw, logStart, leo, EpochEndOffset.UNDEFINED,
                        null);
                default:
                    break;
            }
            read = readBelow(Long.MAX_VALUE, fetchOffset, maxBytes, minOneBatch, hw, logStart, leo);
        } catch (final OffsetOutOfRangeException e) {
            return ReadResult.error(ReplicaError.OFFSET_OUT_OF_RANGE);
        } catch (final StorageException e) {
            return ReadResult.error(ReplicaError.KAFKA_STORAGE_ERROR);
        } finally {
            roleLock.readLock().unlock();
        }
        if (!recordProgress || read.error() != ReplicaError.NONE) {
            return read; // an out-of-range fetch records no progress
        }
        final long previous = follower.logEndOffset(); // a hint for the trigger below, read without the lock
        final IsrWriter.Proposal expand = recordFollowerFetch(follower, readEpoch, fetchOffset, followerLogStart,
            followerDurable, leo, replicaBrokerEpoch);
        if (expand != null) {
            sendIsr(expand);
        }
        if (maybeIncrementHighWatermark()) {
            ctx.onHighWatermarkChanged(tp);
        } else if (fetchOffset > previous) {
            ctx.onFollowerProgress(tp);
        }
        // The high watermark may have moved with this fetch: the follower learns it now, not one round later.
        return new ReadResult(read.error(), log.highWatermark(), read.logStartOffset(), read.logEndOffset(),
            read.divergingEpoch(), read.records());
    }

    private IsrWriter.Proposal recordFollowerFetch(final FollowerProgress follower, final int readEpoch,
                                                   final long fetchOffset, final long followerLogStart,
                                                   final long followerDurable, final long leaderLogEndOffset,
                                                   final long brokerEpoch) {
        roleLock.readLock().lock();
        try {
            if (!isLeader() || leaderEpoch != readEpoch) {
                return null; // the role changed since the read: its offsets were checked against another leadership
            }
            synchronized (progressLock) {
                follower.onFetch(fetchOffset, followerLogStart, followerDurable, leaderLogEndOffset, ctx.nowMs(),
                    brokerEpoch);
                // Kafka's maybeExpandIsr: one change in flight at a time.
                if (pendingIsr != null || isrStale || isr.contains(follower.brokerId())) {
                    return null;
                }
                if (!IsrRules.canJoinIsr(follower, log.highWatermark(),
                    ctx.safetyFixes().currentEpochToJoinIsr() ? leaderEpochStartOffset : -1,
                    ctx.isEligible(follower.brokerId()))) {
                    return null;
                }
                final List<Integer> expanded = new ArrayList<>(isr);
                expanded.add(follower.brokerId());
                return propose(expanded);
            }
        } finally {
            roleLock.readLock().unlock();
        }
    }

    /**
     * Records a proposal in flight; under the read lock and the progress lock. A leader elected uncleanly has nothing
     * to recover (no transaction or producer state yet), so its ISR writes mark the partition RECOVERED (KIP-704).
     */
    private IsrWriter.Proposal propose(final List<Integer> newIsr) {
        pendingIsr = List.copyOf(newIsr);
        return new IsrWriter.Proposal(localBrokerId, leaderEpoch, pendingIsr, partitionEpoch, controllerEpoch, false);
    }

    /** Hands a proposal to the writer, outside every lock (its outcome takes the write lock). */
    private void sendIsr(final IsrWriter.Proposal proposal) {
        LOG.info("{} leader {} epoch {}: ISR {} -> {}", tp, localBrokerId, proposal.leaderEpoch(), isr, proposal.isr());
        ctx.isrWriter().write(tp, proposal).whenComplete((result, failure) -> onIsrWritten(proposal, result, failure));
    }

    private void onIsrWritten(final IsrWriter.Proposal proposal, final IsrWriter.Result result,
                              final Throwable failure) {
        List<Integer> before = null;
        roleLock.writeLock().lock();
        try {
            synchronized (progressLock) {
                if (!isLeader() || leaderEpoch != proposal.leaderEpoch()) {
                    // A newer role: its LeaderAndIsr carried the state, and reset the change in flight; one pending
                    // now is the new role's and stays pending until its own answer.
                    return;
                }
                if (pendingIsr != null && pendingIsr.equals(proposal.isr())) {
                    pendingIsr = null;
                }
                if (failure != null) {
                    LOG.warn("{} ISR change to {} not written (proposed again later): {}", tp, proposal.isr(),
                        failure.toString());
                } else if (result instanceof IsrWriter.Written written) {
                    before = isr;
                    isr = proposal.isr();
                    partitionEpoch = written.partitionEpoch();
                } else {
                    final LeaderAndIsr current = ((IsrWriter.Conflict) result).current();
                    if (current != null && current.leader() == localBrokerId && current.leaderEpoch() == leaderEpoch) {
                        // The same leadership at another version: our earlier write whose answer was lost, or a
                        // change that kept the epoch. Adopt it and decide again from it (KAFKA-2729 left Kafka's
                        // leaders stuck on a stale version until the next LeaderAndIsr).
                        LOG.info("{} ISR write found version {} (expected {}): adopting ISR {}", tp,
                            current.partitionEpoch(), proposal.partitionEpoch(), current.isr());
                        isr = List.copyOf(current.isr());
                        partitionEpoch = current.partitionEpoch();
                    } else {
                        LOG.info("{} ISR write found a newer leadership {}: waiting for the controller", tp, current);
                        isrStale = true;
                    }
                }
            }
        } finally {
            roleLock.writeLock().unlock();
        }
        if (before != null) {
            ctx.onIsrChanged(tp, before, proposal.isr());
        }
        if (maybeIncrementHighWatermark()) {
            ctx.onHighWatermarkChanged(tp);
        }
        // Acks waiting on this partition re-check the ISR (NOT_ENOUGH_REPLICAS_AFTER_APPEND).
        ctx.onHighWatermarkChanged(tp);
    }

    /**
     * Removes the followers that fell behind from the ISR (Kafka's {@code maybeShrinkIsr}, run every half
     * {@code replica.lag.time.max.ms}); the change takes effect once written.
     *
     * @return whether a change was proposed
     */
    public boolean maybeShrinkIsr() {
        final IsrWriter.Proposal proposal;
        roleLock.readLock().lock();
        try {
            if (!isLeader()) {
                return false;
            }
            synchronized (progressLock) {
                if (pendingIsr != null || isrStale) {
                    return false;
                }
                final List<Integer> out = IsrRules.outOfSync(localBrokerId, isr, followers.values(),
                    log.logEndOffset(), ctx.nowMs(), ctx.replicaLagTimeMaxMs());
                if (out.isEmpty()) {
                    return false;
                }
                final List<Integer> shrunk = new ArrayList<>(isr);
                shrunk.removeAll(out);
                proposal = propose(shrunk);
            }
        } finally {
            roleLock.readLock().unlock();
        }
        sendIsr(proposal);
        return true;
    }

    /**
     * Moves the leader's high watermark as far as the rule allows (Kafka's {@code maybeIncrementLeaderHW}), and the
     * durable one with durable acks.
     *
     * @return whether either moved
     */
    boolean maybeIncrementHighWatermark() {
        roleLock.readLock().lock();
        try {
            if (!isLeader()) {
                return false;
            }
            synchronized (progressLock) {
                final long leo = log.logEndOffset();
                final long hw = log.highWatermark();
                final List<Integer> maximal = maximalIsr();
                final long now = ctx.nowMs();
                final long next = IsrRules.highWatermark(hw, leo, followers.values(), isr.size(), maximal,
                    effectiveMinIsr(), eligible, now, ctx.replicaLagTimeMaxMs());
                boolean moved = false;
                if (next > hw) {
                    log.updateHighWatermark(next);
                    moved = true;
                }
                if (ctx.durableAcks()) {
                    final long durable = IsrRules.durableHighWatermark(log.highWatermark(), log.flushedOffset(), leo,
                        followers.values(), maximal, eligible, now, ctx.replicaLagTimeMaxMs());
                    if (durable > durableHighWatermark) {
                        durableHighWatermark = durable;
                        moved = true;
                    }
                }
                return moved;
            }
        } catch (final StorageException e) {
            LOG.warn("{}: high watermark not moved: {}", tp, e.getMessage());
            return false;
        } finally {
            roleLock.readLock().unlock();
        }
    }

    /** The committed ISR plus the members being added (Kafka's maximal ISR); under the progress lock. */
    private List<Integer> maximalIsr() {
        if (pendingIsr == null) {
            return isr;
        }
        final Set<Integer> union = new LinkedHashSet<>(isr);
        union.addAll(pendingIsr);
        return List.copyOf(union);
    }

    /**
     * The durable high watermark (durable acks only).
     *
     * @return the offset, -1 when unknown or durable acks are off
     */
    public long durableHighWatermark() {
        synchronized (progressLock) {
            return durableHighWatermark;
        }
    }

    private ReplicaError checkEpochAsLeader(final int currentLeaderEpoch) {
        if (currentLeaderEpoch >= 0 && currentLeaderEpoch < leaderEpoch) {
            return ReplicaError.FENCED_LEADER_EPOCH;
        }
        if (currentLeaderEpoch > leaderEpoch) {
            return ReplicaError.UNKNOWN_LEADER_EPOCH;
        }
        return isLeader() ? null : ReplicaError.NOT_LEADER_OR_FOLLOWER;
    }

    /**
     * Serves a consumer's fetch as leader: batches below the high watermark.
     *
     * @param currentLeaderEpoch the epoch the consumer believes current, or -1
     * @param fetchOffset        the first offset wanted
     * @param maxBytes           the most bytes
     * @param minOneBatch        return the first batch whole even when larger than {@code maxBytes}
     * @return the records or the error
     */
    public ReadResult fetchForConsumer(final int currentLeaderEpoch, final long fetchOffset, final int maxBytes,
                                       final boolean minOneBatch) {
        roleLock.readLock().lock();
        try {
            final ReplicaError epochError = checkEpochAsLeader(currentLeaderEpoch);
            if (epochError != null) {
                return ReadResult.error(epochError);
            }
            final long hw = log.highWatermark();
            final long logStart = log.logStartOffset();
            return readBelow(hw, fetchOffset, maxBytes, minOneBatch, hw, logStart, log.logEndOffset());
        } catch (final OffsetOutOfRangeException e) {
            return ReadResult.error(ReplicaError.OFFSET_OUT_OF_RANGE);
        } catch (final StorageException e) {
            return ReadResult.error(ReplicaError.KAFKA_STORAGE_ERROR);
        } finally {
            roleLock.readLock().unlock();
        }
    }

    /**
     * Reads whole batches from {@code fetchOffset} below {@code maxOffset} (the log end for a follower, the high
     * watermark for a consumer), under the caller's role lock. An offset outside {@code [logStart, leo]} is
     * OFFSET_OUT_OF_RANGE; an offset at the bound answers no records.
     */
    private ReadResult readBelow(final long maxOffset, final long fetchOffset, final int maxBytes,
                                 final boolean minOneBatch, final long hw, final long logStart, final long leo) {
        if (fetchOffset < logStart || fetchOffset > leo) {
            return new ReadResult(ReplicaError.OFFSET_OUT_OF_RANGE, hw, logStart, leo, EpochEndOffset.UNDEFINED, null);
        }
        final LogSlice slice = fetchOffset >= Math.min(maxOffset, leo) || maxBytes == 0 && !minOneBatch ? null
            : log.read(fetchOffset, maxBytes, maxOffset, minOneBatch);
        return new ReadResult(ReplicaError.NONE, hw, logStart, leo, EpochEndOffset.UNDEFINED,
            slice == null || slice.isEmpty() ? null : slice);
    }

    /**
     * Kafka's ListOffsets on the leader: the earliest offset, the latest (the high watermark for a consumer, the log
     * end for a replica), the first offset at or after a timestamp, or the record with the largest timestamp. A new
     * leader whose high watermark has not reached its epoch's start answers OFFSET_NOT_AVAILABLE to consumers for
     * anything but the earliest offset, so that none reads a high watermark the old leader had already passed.
     *
     * @param currentLeaderEpoch the epoch the caller believes current, or -1
     * @param timestamp          a timestamp, or {@link PartitionLog#LATEST_TIMESTAMP},
     *                           {@link PartitionLog#EARLIEST_TIMESTAMP}, {@link PartitionLog#MAX_TIMESTAMP}, or one of
     *                           the tiered-storage values {@link #EARLIEST_LOCAL_TIMESTAMP},
     *                           {@link #LATEST_TIERED_TIMESTAMP}, {@link #EARLIEST_PENDING_UPLOAD_TIMESTAMP}
     * @param fromReplica        a follower asks (bounded by the log end, not the high watermark)
     * @return the offset or the error
     */
    public OffsetResult listOffset(final int currentLeaderEpoch, final long timestamp, final boolean fromReplica) {
        roleLock.readLock().lock();
        try {
            final ReplicaError epochError = checkEpochAsLeader(currentLeaderEpoch);
            if (epochError != null) {
                return OffsetResult.error(epochError);
            }
            final long bound = fromReplica ? log.logEndOffset() : log.highWatermark();
            // Without tiered storage the local log is the whole log (Kafka's UnifiedLog without remote storage).
            if (timestamp == PartitionLog.EARLIEST_TIMESTAMP || timestamp == EARLIEST_LOCAL_TIMESTAMP) {
                final long start = log.logStartOffset();
                return new OffsetResult(ReplicaError.NONE, start, -1, epochAt(start));
            }
            if (timestamp == LATEST_TIERED_TIMESTAMP || timestamp == EARLIEST_PENDING_UPLOAD_TIMESTAMP) {
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
        } catch (final CodecUnavailableException e) {
            // The batch the timestamp lands in uses a codec whose library this broker lacks.
            return OffsetResult.error(ReplicaError.UNKNOWN_SERVER_ERROR);
        } catch (final StorageException e) {
            return OffsetResult.error(ReplicaError.KAFKA_STORAGE_ERROR);
        } finally {
            roleLock.readLock().unlock();
        }
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

    /**
     * Kafka's OffsetsForLeaderEpoch on the leader: the largest epoch at or below {@code epoch} and where it ends.
     *
     * @param currentLeaderEpoch the epoch the caller believes current, or -1
     * @param epoch              the epoch asked about
     * @return the answer or the error
     */
    public EpochResult endOffsetForEpoch(final int currentLeaderEpoch, final int epoch) {
        roleLock.readLock().lock();
        try {
            final ReplicaError epochError = checkEpochAsLeader(currentLeaderEpoch);
            if (epochError != null) {
                return EpochResult.error(epochError);
            }
            return new EpochResult(ReplicaError.NONE, log.endOffsetForEpoch(epoch));
        } finally {
            roleLock.readLock().unlock();
        }
    }

    // ---------------------------------------------------------------------------------------- as follower

    /**
     * Whether this broker follows the partition in this leader epoch.
     *
     * @param epoch the epoch a fetch was sent in
     * @return whether the fetch's answer may still be applied
     */
    boolean isFollowerIn(final int epoch) {
        return !stopped && leaderId != localBrokerId && leaderId >= 0 && leaderEpoch == epoch;
    }

    /**
     * Appends what the fetcher brought, then takes the leader's high watermark (capped at the log end) and log start
     * (Kafka's {@code processPartitionData}). Nothing happens when the role changed since the fetch was sent.
     *
     * @param records        the batches, in the leader's offsets
     * @param epoch          the leader epoch the fetch was sent in
     * @param leaderHw       the leader's high watermark from the response
     * @param leaderLogStart the leader's log start from the response
     * @return the log end offset after the append, or -1 when the role changed
     * @throws InvalidRecordException when the batches do not continue the log or are malformed
     */
    long appendAsFollower(final ByteBuffer records, final int epoch, final long leaderHw, final long leaderLogStart) {
        return asFollower(epoch, () -> {
            if (records != null && records.hasRemaining()) {
                restartAtFirstBatchIfEmpty(records, epoch);
                log.appendAsFollower(records);
            }
            log.updateHighWatermark(leaderHw);
            if (leaderLogStart > log.logStartOffset() && leaderLogStart <= log.highWatermark()) {
                log.deleteRecordsBefore(leaderLogStart);
            }
            return log.logEndOffset();
        });
    }

    /**
     * An empty follower log restarted at the leader's log start, which may lie inside a batch (a log start raised by
     * offset, not by segment), cannot take the whole batch the leader serves from there: it starts over at that
     * batch's base offset instead (Kafka's answer to {@code UnexpectedAppendOffsetException}). A log holding records
     * is never moved.
     */
    private void restartAtFirstBatchIfEmpty(final ByteBuffer records, final int epoch) {
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
     * leader's end after OFFSET_OUT_OF_RANGE). Nothing happens when the role changed since the fetch was sent.
     *
     * @param offset the new log end offset
     * @param epoch  the leader epoch the fetch was sent in
     * @return the log end offset after it, or -1 when the role changed
     */
    long truncateAsFollower(final long offset, final int epoch) {
        return asFollower(epoch, () -> {
            if (offset < log.logEndOffset()) {
                LOG.info("{} follower of {} in epoch {}: truncating from {} to {}", tp, leaderId, epoch,
                    log.logEndOffset(), offset);
            }
            return log.truncateTo(offset);
        });
    }

    /**
     * Empties the follower's log and restarts it at {@code offset} (the leader's log start passed this log's end).
     *
     * @param offset the leader's log start offset
     * @param epoch  the leader epoch the fetch was sent in
     * @return whether it was done (false when the role changed)
     */
    boolean truncateFullyAsFollower(final long offset, final int epoch) {
        return asFollower(epoch, () -> {
            LOG.info("{} follower of {} in epoch {}: log [{}, {}) is below the leader's start {}; restarting there", tp,
                leaderId, epoch, log.logStartOffset(), log.logEndOffset(), offset);
            log.truncateFullyAndStartAt(offset);
            return 0;
        }) >= 0;
    }

    /**
     * Runs a follower's change to the log under the role read lock, only while this broker still follows the
     * partition in the epoch the fetch was sent in.
     *
     * @param epoch  the leader epoch the fetch was sent in
     * @param change the change; returns a non-negative result
     * @return the change's result, or -1 when the role changed
     */
    private long asFollower(final int epoch, final LongSupplier change) {
        roleLock.readLock().lock();
        try {
            return isFollowerIn(epoch) ? change.getAsLong() : -1;
        } finally {
            roleLock.readLock().unlock();
        }
    }

    @Override
    public String toString() {
        return "Partition[" + tp + ", broker=" + localBrokerId + ", leader=" + leaderId + ", epoch=" + leaderEpoch
            + ", isr=" + isr + "]";
    }
}
