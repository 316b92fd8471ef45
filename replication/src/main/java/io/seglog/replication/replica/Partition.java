package io.seglog.replication.replica;

import io.seglog.replication.election.LeaderAndIsr;
import io.seglog.replication.policy.FollowerProgress;
import io.seglog.replication.transport.PartitionStateInfo;
import io.seglog.storage.AppendOutcome;
import io.seglog.storage.EpochEndOffset;
import io.seglog.storage.LeaderAppendResult;
import io.seglog.storage.OffsetOutOfRangeException;
import io.seglog.storage.PartitionLog;
import io.seglog.storage.FencedLeaderEpochException;
import io.seglog.storage.ProducerAppendException;
import io.seglog.storage.StorageException;
import io.seglog.storage.TopicPartition;
import io.seglog.storage.format.CodecUnavailableException;
import io.seglog.storage.format.InvalidRecordException;
import java.nio.ByteBuffer;
import java.util.List;
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
 * <p>Who owns what: Partition is the entry point the replica manager, the fetchers and the wire call, and owns the
 * role (leader, leader epoch, controller epoch, assignment, where the leader's epoch began, stopped) and its lock.
 * {@link IsrTracker} owns the ISR, the followers' progress, the ISR change in flight and the high-watermark
 * decisions; {@link ProduceAcks} the leadership's start and the acks=1 ring, and when waiting produces are answered.
 * {@link LeaderReads} (a leader's answers read from the log) and {@link FollowerWrites} (a follower's changes to the
 * log) own no state. Each field has one writer, the class that declares it.
 *
 * <p>Threads: any. Locks, always in this order: the role lock (a read-write lock; the role and the ISR tracker's
 * role-wide state change under its write lock; appends, reads, fetches and follower changes run under its read
 * lock, so a LeaderAndIsr waits for those in flight and none starts in the old role after it), then the tracker's
 * monitor (the followers' progress, the ISR change in flight, the HW decisions), then the log's own locks (its
 * append lock, under which the answer handler records in the acks ring, whose monitor is innermost). Nothing here
 * blocks on ZooKeeper or the network: an ISR write is handed to the writer outside every lock and its outcome
 * applied under the write lock when it completes.
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
    private final LeaderAppendResult.Handler<AppendResult> onLeaderAppend;
    /** The ISR, the followers' progress, the ISR change in flight and the high-watermark decisions. */
    private final IsrTracker tracker;
    /** The leader's answers read from the log alone (no state). */
    private final LeaderReads reads;
    /** The follower's changes to the log (no state). */
    private final FollowerWrites followerWrites;

    /** The leadership's start and the acks=1 flow control's ring: when produces waiting on the HW are answered. */
    private final ProduceAcks produceAcks;

    // The role: written under the write lock.
    private volatile int leaderId = LeaderAndIsr.NO_LEADER;
    private volatile int leaderEpoch = -1;
    private int controllerEpoch = -1;
    private volatile List<Integer> assignment = List.of();
    private long leaderEpochStartOffset = -1;
    private volatile boolean stopped;

    /**
     * A partition with no role yet.
     *
     * @param tp            the partition
     * @param localBrokerId this broker
     * @param log           its log, owned by the broker's log manager
     * @param ctx           the broker's services
     */
    Partition(final TopicPartition tp, final int localBrokerId, final PartitionLog log, final Context ctx) {
        this.tp = tp;
        this.localBrokerId = localBrokerId;
        this.log = log;
        this.ctx = ctx;
        this.tracker = new IsrTracker(tp, localBrokerId, log, ctx);
        this.reads = new LeaderReads(log);
        this.followerWrites = new FollowerWrites(tp, log);
        this.produceAcks = new ProduceAcks(log, ctx, tracker);
        this.onLeaderAppend = produceAcks::answer;
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
    boolean makeLeader(final PartitionStateInfo state) {
        final boolean newLeader;
        roleLock.writeLock().lock();
        try {
            newLeader = leaderId != localBrokerId;
            final LeaderAndIsr lai = state.leaderAndIsr();
            if (newLeader) {
                produceAcks.beginLeadership(lai.leaderEpoch());
            }
            leaderEpochStartOffset = ctx.safetyFixes().leaderEpochAtElection()
                ? log.beginLeaderEpoch(lai.leaderEpoch()) : log.logEndOffset();
            setRole(state);
            tracker.lead(lai, assignment, newLeader);
        } finally {
            roleLock.writeLock().unlock();
        }
        LOG.info("{} broker.id={} leads in epoch {} from offset {} (isr={}, highWatermark={})", tp, localBrokerId,
            leaderEpoch, leaderEpochStartOffset, tracker.isr(), log.highWatermark());
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
    boolean makeFollower(final PartitionStateInfo state) {
        roleLock.writeLock().lock();
        try {
            final boolean changed = leaderId != state.leaderAndIsr().leader()
                || leaderEpoch != state.leaderAndIsr().leaderEpoch() || stopped;
            setRole(state);
            tracker.follow(state.leaderAndIsr());
            leaderEpochStartOffset = -1;
            return changed;
        } finally {
            roleLock.writeLock().unlock();
        }
    }

    private void setRole(final PartitionStateInfo state) {
        final LeaderAndIsr lai = state.leaderAndIsr();
        leaderId = lai.leader();
        leaderEpoch = lai.leaderEpoch();
        controllerEpoch = state.controllerEpoch();
        assignment = List.copyOf(state.replicas());
        stopped = false;
    }

    /** Stops every role (StopReplica): requests in flight and later ones get NOT_LEADER_OR_FOLLOWER. */
    void stop() {
        roleLock.writeLock().lock();
        try {
            stopped = true;
            leaderId = LeaderAndIsr.NO_LEADER;
            tracker.stop();
        } finally {
            roleLock.writeLock().unlock();
        }
    }

    /** @return whether this broker leads the partition now */
    public boolean isLeader() {
        return leaderId == localBrokerId && !stopped;
    }

    /** @return the leader this broker knows of, or -1 */
    public int leaderId() {
        return leaderId;
    }

    /** @return the leader epoch this broker holds, -1 before the first LeaderAndIsr */
    public int leaderEpoch() {
        return leaderEpoch;
    }

    /** @return the ISR this broker holds (as leader: the one written to the store) */
    public List<Integer> isr() {
        return tracker.isr();
    }

    /** @return the replicas assigned, as the last LeaderAndIsr gave them, preferred leader first */
    public List<Integer> assignment() {
        return assignment;
    }

    /** @return Kafka's under-replicated: this broker leads it and its ISR is smaller than its assignment */
    public boolean underReplicated() {
        return isLeader() && tracker.isr().size() < assignment.size();
    }

    /** @return Kafka's under-min-ISR: led here, the ISR below the effective min ISR (acks=all refused) */
    public boolean underMinIsr() {
        return isLeader() && tracker.isr().size() < effectiveMinIsr();
    }

    /** @return Kafka's at-min-ISR: led here, the ISR at the effective min ISR (one more loss stops acks=all) */
    public boolean atMinIsr() {
        return isLeader() && tracker.isr().size() == effectiveMinIsr();
    }

    /** @return the topic and partition */
    public TopicPartition topicPartition() {
        return tp;
    }

    /** The replication fixes in force (its broker's). */
    SafetyFixes safetyFixes() {
        return ctx.safetyFixes();
    }

    /** @return the partition's log */
    public PartitionLog log() {
        return log;
    }

    /** @return as leader, the offset at which its epoch began; -1 when not leader */
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
            return tracker.followerLogEndOffset(brokerId);
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
            final AppendResult refused = leaderRefusal(acks);
            if (refused != null) {
                return refused;
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
        afterLeaderAppend(result.lastOffset());
        return result;
    }

    /**
     * Writes a transaction marker as leader for the coordinator (WriteTxnMarkers, acks=all): refused as a produce
     * would be (not the leader, the ISR below {@code min.insync.replicas}), and by the log's producer and
     * coordinator epoch fencing (INVALID_PRODUCER_EPOCH, TRANSACTION_COORDINATOR_FENCED).
     *
     * @param producerId       the transaction's producer
     * @param producerEpoch    its epoch
     * @param coordinatorEpoch the coordinator's epoch
     * @param commit           COMMIT, else ABORT
     * @return the marker's offset, or the error
     */
    public AppendResult appendMarkerAsLeader(final long producerId, final short producerEpoch,
                                             final int coordinatorEpoch, final boolean commit) {
        final long offset;
        final int epoch;
        roleLock.readLock().lock();
        try {
            final AppendResult refused = leaderRefusal((short) -1);
            if (refused != null) {
                return refused;
            }
            epoch = leaderEpoch;
            offset = log.appendTransactionMarker(producerId, producerEpoch, coordinatorEpoch, commit, epoch);
        } catch (final ProducerAppendException | FencedLeaderEpochException | StorageException e) {
            return AppendResult.markerRefused(e);
        } finally {
            roleLock.readLock().unlock();
        }
        afterLeaderAppend(offset);
        return new AppendResult(ReplicaError.NONE, AppendOutcome.APPENDED, offset, offset, -1, log.logStartOffset(),
            null, epoch);
    }

    /** A leader write's refusal before the log (role lock held): not the leader, or acks=all below the min ISR. */
    private AppendResult leaderRefusal(final short acks) {
        if (!isLeader()) {
            return AppendResult.error(ReplicaError.NOT_LEADER_OR_FOLLOWER, "broker " + localBrokerId
                + " is not the leader of " + tp + " (leader " + leaderId + ")");
        }
        final int minIsr = effectiveMinIsr();
        final List<Integer> isr = tracker.isr();
        if (acks == -1 && isr.size() < minIsr) {
            return AppendResult.error(ReplicaError.NOT_ENOUGH_REPLICAS, "the ISR " + isr + " of " + tp
                + " is smaller than min.insync.replicas=" + minIsr + " (capped at the replication factor)");
        }
        return null;
    }

    /** After a leader write: the followers told, the high watermark moved if it can, a durable ack awaited. */
    private void afterLeaderAppend(final long lastOffset) {
        ctx.onAppended(tp);
        if (maybeIncrementHighWatermark()) {
            ctx.onHighWatermarkChanged(tp);
        }
        if (ctx.durableAcks()) {
            log.awaitDurable(lastOffset).whenComplete((flushed, failure) -> {
                if (failure == null && maybeIncrementHighWatermark()) {
                    ctx.onHighWatermarkChanged(tp);
                }
            });
        }
    }

    /** Whether an acks=all produce may be answered ({@link ProduceAcks#acksStatus}); null while it waits. */
    ReplicaError acksStatus(final long lastOffset, final int epoch) {
        roleLock.readLock().lock();
        try {
            return produceAcks.acksStatus(lastOffset, epoch, isLeader(), effectiveMinIsr());
        } finally {
            roleLock.readLock().unlock();
        }
    }

    /** acks=1 flow control: the HW an acks=1 produce waits for ({@link ProduceAcks#unreplicatedTarget}), or -1. */
    long unreplicatedTarget(final long lastOffset, final long maxBytes) {
        return produceAcks.unreplicatedTarget(lastOffset, maxBytes);
    }

    /** Whether a held acks=1 produce may be answered ({@link ProduceAcks#unreplicatedStatus}); null while it waits. */
    ReplicaError unreplicatedStatus(final long target, final int epoch, final long activeWindowMs) {
        roleLock.readLock().lock();
        try {
            return produceAcks.unreplicatedStatus(target, epoch, isLeader(), activeWindowMs);
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
    ReadResult fetchForFollower(final int replicaId, final long replicaBrokerEpoch, final int currentLeaderEpoch,
                                       final long fetchOffset, final int lastFetchedEpoch, final long followerLogStart,
                                       final long followerDurable, final int maxBytes, final boolean minOneBatch,
                                       final boolean recordProgress) {
        final FollowerProgress follower;
        final int readEpoch;
        final ReadResult read;
        roleLock.readLock().lock();
        try {
            readEpoch = leaderEpoch;
            final ReplicaError epochError = checkEpochAsLeader(currentLeaderEpoch);
            if (epochError != null) {
                return ReadResult.error(epochError);
            }
            follower = tracker.follower(replicaId);
            if (follower == null) {
                return ReadResult.error(currentLeaderEpoch >= 0 ? ReplicaError.UNKNOWN_LEADER_EPOCH
                    : ReplicaError.NOT_LEADER_OR_FOLLOWER);
            }
            read = reads.forFollower(lastFetchedEpoch, fetchOffset, maxBytes, minOneBatch);
        } catch (final OffsetOutOfRangeException e) {
            return ReadResult.error(ReplicaError.OFFSET_OUT_OF_RANGE);
        } catch (final StorageException e) {
            return ReadResult.error(ReplicaError.KAFKA_STORAGE_ERROR);
        } finally {
            roleLock.readLock().unlock();
        }
        if (!recordProgress || read.error() != ReplicaError.NONE || !read.divergingEpoch().isUndefined()) {
            return read; // an out-of-range or diverging fetch records no progress
        }
        final long previous = follower.logEndOffset(); // a hint for the trigger below, read without the lock
        final IsrWriter.Proposal expand = recordFollowerFetch(follower, readEpoch, fetchOffset, followerLogStart,
            followerDurable, read.logEndOffset(), replicaBrokerEpoch);
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
            return tracker.onFollowerFetch(follower, fetchOffset, followerLogStart, followerDurable, leaderLogEndOffset,
                brokerEpoch, ctx.safetyFixes().currentEpochToJoinIsr() ? leaderEpochStartOffset : -1, leaderEpoch,
                controllerEpoch);
        } finally {
            roleLock.readLock().unlock();
        }
    }

    /** Hands a proposal to the writer, outside every lock (its outcome takes the write lock). */
    private void sendIsr(final IsrWriter.Proposal proposal) {
        LOG.info("{} leader {} epoch {}: ISR {} -> {}", tp, localBrokerId, proposal.leaderEpoch(), tracker.isr(),
            proposal.isr());
        ctx.isrWriter().write(tp, proposal).whenComplete((result, failure) -> onIsrWritten(proposal, result, failure));
    }

    private void onIsrWritten(final IsrWriter.Proposal proposal, final IsrWriter.Result result,
                              final Throwable failure) {
        final List<Integer> before;
        roleLock.writeLock().lock();
        try {
            if (!isLeader() || leaderEpoch != proposal.leaderEpoch()) {
                // A newer role: its LeaderAndIsr carried the state, and reset the change in flight; one pending now
                // is the new role's and stays pending until its own answer.
                return;
            }
            before = tracker.onIsrWritten(proposal, result, failure, leaderEpoch);
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
    boolean maybeShrinkIsr() {
        final IsrWriter.Proposal proposal;
        roleLock.readLock().lock();
        try {
            if (!isLeader()) {
                return false;
            }
            proposal = tracker.maybeShrink(leaderEpoch, controllerEpoch);
        } finally {
            roleLock.readLock().unlock();
        }
        if (proposal == null) {
            return false;
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
            return isLeader() && tracker.maybeIncrementHighWatermark(effectiveMinIsr());
        } catch (final StorageException e) {
            LOG.warn("{}: high watermark not moved: {}", tp, e.getMessage());
            return false;
        } finally {
            roleLock.readLock().unlock();
        }
    }

    /**
     * The durable high watermark (durable acks only).
     *
     * @return the offset, -1 when unknown or durable acks are off
     */
    public long durableHighWatermark() {
        return tracker.durableHighWatermark();
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
     * Serves a consumer's fetch as leader: batches below the high watermark, or for {@code read_committed} below the
     * last stable offset with the aborted transactions they overlap.
     *
     * @param currentLeaderEpoch the epoch the consumer believes current, or -1
     * @param fetchOffset        the first offset wanted
     * @param maxBytes           the most bytes
     * @param minOneBatch        return the first batch whole even when larger than {@code maxBytes}
     * @param isolation          {@link FetchIsolation#HIGH_WATERMARK} or {@link FetchIsolation#TXN_COMMITTED}
     * @return the records or the error
     */
    ReadResult fetchForConsumer(final int currentLeaderEpoch, final long fetchOffset, final int maxBytes,
                                final boolean minOneBatch, final FetchIsolation isolation) {
        roleLock.readLock().lock();
        try {
            final ReplicaError epochError = checkEpochAsLeader(currentLeaderEpoch);
            if (epochError != null) {
                return ReadResult.error(epochError);
            }
            return reads.forConsumer(isolation, fetchOffset, maxBytes, minOneBatch);
        } catch (final OffsetOutOfRangeException e) {
            return ReadResult.error(ReplicaError.OFFSET_OUT_OF_RANGE);
        } catch (final StorageException e) {
            return ReadResult.error(ReplicaError.KAFKA_STORAGE_ERROR);
        } finally {
            roleLock.readLock().unlock();
        }
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
     * @param isolation          the bound: the log end for a follower, the high watermark or (read_committed) the
     *                           last stable offset for a consumer
     * @return the offset or the error
     */
    public OffsetResult listOffset(final int currentLeaderEpoch, final long timestamp,
                                   final FetchIsolation isolation) {
        roleLock.readLock().lock();
        try {
            final ReplicaError epochError = checkEpochAsLeader(currentLeaderEpoch);
            if (epochError != null) {
                return OffsetResult.error(epochError);
            }
            return reads.listOffset(timestamp, isolation, leaderEpoch, leaderEpochStartOffset);
        } catch (final CodecUnavailableException e) {
            // The batch the timestamp lands in uses a codec whose library this broker lacks.
            return OffsetResult.error(ReplicaError.UNKNOWN_SERVER_ERROR);
        } catch (final StorageException e) {
            return OffsetResult.error(ReplicaError.KAFKA_STORAGE_ERROR);
        } finally {
            roleLock.readLock().unlock();
        }
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

    /** Whether this broker follows the partition in {@code epoch}: a fetch sent in it may still be applied. */
    boolean isFollowerIn(final int epoch) {
        return !stopped && leaderId != localBrokerId && leaderId >= 0 && leaderEpoch == epoch;
    }

    /**
     * Appends what the fetcher brought and takes the leader's watermarks ({@link FollowerWrites#append}), unless the
     * role changed since the fetch was sent.
     *
     * @param records        the batches, in the leader's offsets
     * @param epoch          the leader epoch the fetch was sent in
     * @param leaderHw       the leader's high watermark from the response
     * @param leaderLogStart the leader's log start from the response
     * @return the log end offset after the append, or -1 when the role changed
     * @throws InvalidRecordException when the batches do not continue the log or are malformed
     */
    long appendAsFollower(final ByteBuffer records, final int epoch, final long leaderHw, final long leaderLogStart) {
        return asFollower(epoch, () -> followerWrites.append(records, leaderId, epoch, leaderHw, leaderLogStart));
    }

    /**
     * Truncates the follower's log ({@link FollowerWrites#truncateTo}), unless the role changed since the fetch.
     *
     * @param offset the new log end offset
     * @param epoch  the leader epoch the fetch was sent in
     * @return the log end offset after it, or -1 when the role changed
     */
    long truncateAsFollower(final long offset, final int epoch) {
        return asFollower(epoch, () -> followerWrites.truncateTo(offset, leaderId, epoch));
    }

    /**
     * Empties the follower's log and restarts it at {@code offset} ({@link FollowerWrites#truncateFullyAndStartAt}).
     *
     * @param offset the leader's log start offset
     * @param epoch  the leader epoch the fetch was sent in
     * @return whether it was done (false when the role changed)
     */
    boolean truncateFullyAsFollower(final long offset, final int epoch) {
        return asFollower(epoch, () -> {
            followerWrites.truncateFullyAndStartAt(offset, leaderId, epoch);
            return 0;
        }) >= 0;
    }

    /** Runs a follower's change (non-negative result) under the role read lock while this broker follows in epoch. */
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
            + ", isr=" + tracker.isr() + "]";
    }
}
