package io.seglog.replication.txn;

import io.seglog.storage.TopicPartition;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One transactional id's state in the coordinator and its state machine, with Kafka 4.4's rules
 * ({@code TransactionMetadata}): every change is first <em>prepared</em> ({@code prepare*}: checked against the current
 * state, returning the {@link Transit} to write to {@code __transaction_state} and marking it pending, so no second
 * change starts meanwhile), then <em>completed</em> once that record is written ({@link #completeTransitionTo}, which
 * checks the transit once more and takes its fields). Transactions version 2 (KIP-890, {@code clientVersion >= 2})
 * bumps the epoch at every commit and abort and rotates the producer id when the epoch runs out.
 *
 * <p>Not thread-safe: the coordinator changes one transactional id on one thread at a time.
 */
final class TransactionMetadata {
    private static final Logger LOG = LoggerFactory.getLogger(TransactionMetadata.class);
    /** Kafka's {@code RecordBatch.NO_PRODUCER_EPOCH} and {@code NO_PRODUCER_ID}. */
    static final short NO_EPOCH = -1;
    static final long NO_PRODUCER_ID = -1;

    /**
     * A prepared change: the state a {@code __transaction_state} record will hold.
     *
     * @param producerId            the producer id
     * @param previousProducerId    the producer id before the change
     * @param nextProducerId        the producer id the next epoch overflow moves to, or -1
     * @param producerEpoch         the epoch
     * @param lastProducerEpoch     the epoch before (a retried InitProducerId's answer), or -1
     * @param timeoutMs             {@code transaction.timeout.ms}
     * @param state                 the state
     * @param partitions            the transaction's partitions
     * @param startTimestampMs      when the transaction began, or -1
     * @param lastUpdateTimestampMs when the change was made
     * @param clientVersion         the client's transactions version (0, 1 or 2)
     */
    record Transit(long producerId, long previousProducerId, long nextProducerId, short producerEpoch,
                   short lastProducerEpoch, int timeoutMs, TransactionState state, Set<TopicPartition> partitions,
                   long startTimestampMs, long lastUpdateTimestampMs, short clientVersion) {
        Transit {
            partitions = Set.copyOf(partitions);
        }
    }

    /**
     * The metadata a {@code __transaction_state} value describes, as a coordinator loading the partition builds it
     * (Kafka's {@code TransactionLog.read}: the last epoch is not stored, so it is -1).
     *
     * @param transactionalId the transactional id (the record's key)
     * @param value           the record's value
     * @return the metadata, nothing pending
     */
    static TransactionMetadata of(final String transactionalId, final TransactionRecords.TransactionValue value) {
        final Set<TopicPartition> partitions = new HashSet<>();
        value.partitions().forEach((topic, ids) -> {
            for (final int id : ids) {
                partitions.add(new TopicPartition(topic, id));
            }
        });
        return new TransactionMetadata(transactionalId, value.producerId(), value.previousProducerId(),
            value.nextProducerId(), value.producerEpoch(), NO_EPOCH, value.timeoutMs(), value.state(), partitions,
            value.startTimestampMs(), value.lastUpdateTimestampMs(), value.clientTransactionVersion());
    }

    /**
     * The {@code __transaction_state} value of a transit, at a value version: version 0 stores neither the previous
     * nor the next producer id nor the client's transactions version (Kafka writes the version of the cluster's
     * transactions version, not the client's).
     *
     * @param transit the prepared change
     * @param version {@link TransactionRecords#VALUE_VERSION_0} or {@link TransactionRecords#VALUE_VERSION_1}
     * @return the value
     */
    static TransactionRecords.TransactionValue valueOf(final Transit transit, final short version) {
        final java.util.Map<String, int[]> byTopic = new java.util.TreeMap<>();
        final java.util.Map<String, java.util.List<Integer>> lists = new java.util.TreeMap<>();
        transit.partitions().forEach(tp -> lists.computeIfAbsent(tp.topic(), t -> new java.util.ArrayList<>())
            .add(tp.partition()));
        lists.forEach((topic, ids) -> byTopic.put(topic, ids.stream().sorted().mapToInt(Integer::intValue).toArray()));
        final boolean v1 = version >= TransactionRecords.VALUE_VERSION_1;
        return new TransactionRecords.TransactionValue(transit.producerId(), v1 ? transit.previousProducerId() : -1,
            v1 ? transit.nextProducerId() : -1, transit.producerEpoch(), NO_EPOCH, transit.timeoutMs(),
            transit.state(), transit.state() == TransactionState.EMPTY ? java.util.Map.of() : byTopic,
            transit.lastUpdateTimestampMs(), transit.startTimestampMs(), v1 ? transit.clientVersion() : 0);
    }

    /** The epoch the producer sent is neither the current one nor the one before: another instance fenced it. */
    static final class FencedProducerException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        FencedProducerException(final String message) {
            super(message);
        }
    }

    private final String transactionalId;
    private long producerId;
    private long previousProducerId;
    private long nextProducerId;
    private short producerEpoch;
    private short lastProducerEpoch;
    private int timeoutMs;
    private TransactionState state;
    private Set<TopicPartition> partitions;
    private long startTimestampMs;
    private long lastUpdateTimestampMs;
    private short clientVersion;
    private TransactionState pendingState;
    /** A fence's epoch bump failed to be written: the next fence reuses the epoch instead of bumping again. */
    private boolean failedEpochFence;

    TransactionMetadata(final String transactionalId, final long producerId, final long previousProducerId,
                        final long nextProducerId, final short producerEpoch, final short lastProducerEpoch,
                        final int timeoutMs, final TransactionState state, final Set<TopicPartition> partitions,
                        final long startTimestampMs, final long lastUpdateTimestampMs, final short clientVersion) {
        this.transactionalId = transactionalId;
        this.producerId = producerId;
        this.previousProducerId = previousProducerId;
        this.nextProducerId = nextProducerId;
        this.producerEpoch = producerEpoch;
        this.lastProducerEpoch = lastProducerEpoch;
        this.timeoutMs = timeoutMs;
        this.state = state;
        this.partitions = new HashSet<>(partitions);
        this.startTimestampMs = startTimestampMs;
        this.lastUpdateTimestampMs = lastUpdateTimestampMs;
        this.clientVersion = clientVersion;
    }

    /**
     * Whether an epoch can no longer be given to a producer (Kafka keeps the last two for fencing).
     *
     * @param epoch an epoch
     * @return {@code epoch >= Short.MAX_VALUE - 1}
     */
    static boolean isEpochExhausted(final short epoch) {
        return epoch >= Short.MAX_VALUE - 1;
    }

    private static boolean bumpsEpochAtEnd(final short clientVersion) {
        return clientVersion >= 2;
    }

    // ------------------------------------------------------------------------------------------------ prepares

    /**
     * InitProducerId for the same producer id: the epoch bumped (a new instance, or one retrying after an error) or,
     * for a retry of a call that succeeded, kept; Empty, no partitions.
     *
     * @param newTimeoutMs  the producer's {@code transaction.timeout.ms}
     * @param expectedEpoch the epoch the producer has (KIP-360), or empty for a new instance
     * @param nowMs         the time
     * @return the transit
     * @throws FencedProducerException when {@code expectedEpoch} is neither the current nor the last epoch
     * @throws IllegalStateException   when the epochs are exhausted, or the transition is not allowed
     */
    Transit prepareIncrementProducerEpoch(final int newTimeoutMs, final Optional<Short> expectedEpoch,
                                          final long nowMs) {
        if (isEpochExhausted(producerEpoch)) {
            throw new IllegalStateException("no producer epoch left for producer id " + producerId + " of "
                + transactionalId);
        }
        final short bumped = (short) (producerEpoch + 1);
        final short epoch;
        final short last;
        if (expectedEpoch.isEmpty()) {
            epoch = bumped;
            last = NO_EPOCH;
        } else if (producerEpoch == NO_EPOCH || expectedEpoch.get() == producerEpoch) {
            epoch = bumped;
            last = producerEpoch;
        } else if (expectedEpoch.get() == lastProducerEpoch) {
            epoch = producerEpoch; // a retry of a call that succeeded: the same answer
            last = lastProducerEpoch;
        } else {
            throw new FencedProducerException("transactional id " + transactionalId + ": epoch " + expectedEpoch.get()
                + " is neither the current epoch " + producerEpoch + " nor the last one " + lastProducerEpoch);
        }
        return prepare(TransactionState.EMPTY, producerId, nextProducerId, epoch, last, newTimeoutMs, Set.of(), -1,
            nowMs, clientVersion);
    }

    /**
     * InitProducerId with a new producer id (the first one, or after the epochs ran out): epoch 0, Empty.
     *
     * @param newProducerId   the new producer id
     * @param newTimeoutMs    the producer's {@code transaction.timeout.ms}
     * @param nowMs           the time
     * @param recordLastEpoch keep the current epoch as the last one (a retry can then be answered)
     * @return the transit
     * @throws IllegalStateException when a transaction is still pending
     */
    Transit prepareProducerIdRotation(final long newProducerId, final int newTimeoutMs, final long nowMs,
                                      final boolean recordLastEpoch) {
        if (state == TransactionState.ONGOING || state == TransactionState.PREPARE_ABORT
            || state == TransactionState.PREPARE_COMMIT) {
            throw new IllegalStateException("cannot rotate the producer id of " + transactionalId + " while a"
                + " transaction is pending (" + state.stateName() + ")");
        }
        return prepare(TransactionState.EMPTY, newProducerId, nextProducerId, (short) 0,
            recordLastEpoch ? producerEpoch : NO_EPOCH, newTimeoutMs, Set.of(), -1, nowMs, clientVersion);
    }

    /**
     * A new instance fences the open transaction: the epoch bumped (not again after a fence that failed to be
     * written, nor past {@code Short.MAX_VALUE}), PrepareEpochFence, then aborted under it.
     *
     * @return the transit
     */
    Transit prepareFenceProducerEpoch() {
        if (producerEpoch == Short.MAX_VALUE) {
            LOG.error("Fencing producer {} {} with epoch Short.MAX_VALUE: this must not happen unless there is a bug",
                transactionalId, producerId);
        }
        final short epoch = failedEpochFence || producerEpoch == Short.MAX_VALUE ? producerEpoch
            : (short) (producerEpoch + 1);
        return prepare(TransactionState.PREPARE_EPOCH_FENCE, producerId, nextProducerId, epoch, lastProducerEpoch,
            timeoutMs, partitions, startTimestampMs, lastUpdateTimestampMs, clientVersion);
    }

    /**
     * AddPartitionsToTxn (or AddOffsetsToTxn): Ongoing with the partitions added; a transaction starts now when none
     * was open.
     *
     * @param added          the partitions
     * @param nowMs          the time
     * @param newClientVersion the client's transactions version
     * @return the transit
     */
    Transit prepareAddPartitions(final Set<TopicPartition> added, final long nowMs, final short newClientVersion) {
        final long start = state == TransactionState.EMPTY || state == TransactionState.COMPLETE_ABORT
            || state == TransactionState.COMPLETE_COMMIT ? nowMs : startTimestampMs;
        final Set<TopicPartition> all = new HashSet<>(partitions);
        all.addAll(added);
        return prepare(TransactionState.ONGOING, producerId, nextProducerId, producerEpoch, lastProducerEpoch,
            timeoutMs, all, start, nowMs, newClientVersion);
    }

    /**
     * EndTxn or a timeout: PrepareCommit or PrepareAbort; with transactions version 2 the epoch is bumped (not past
     * {@code Short.MAX_VALUE}: an abort at it keeps it).
     *
     * @param newState         {@link TransactionState#PREPARE_COMMIT} or {@link TransactionState#PREPARE_ABORT}
     * @param newClientVersion the client's transactions version
     * @param newNextProducerId the producer id to move to when the epoch overflows, or -1
     * @param nowMs            the time
     * @param noPartitionAdded an abort of a transaction that added no partition (version 2): it starts now
     * @return the transit
     */
    Transit prepareAbortOrCommit(final TransactionState newState, final short newClientVersion,
                                 final long newNextProducerId, final long nowMs, final boolean noPartitionAdded) {
        short epoch = producerEpoch;
        short last = lastProducerEpoch;
        if (bumpsEpochAtEnd(newClientVersion)) {
            if (producerEpoch == Short.MAX_VALUE && newState == TransactionState.PREPARE_ABORT) {
                LOG.error("Aborting producer {} {} with epoch Short.MAX_VALUE: this must not happen unless there is a"
                    + " bug", transactionalId, producerId);
            } else {
                epoch = (short) (producerEpoch + 1);
            }
            last = producerEpoch;
        }
        return prepare(newState, producerId, newNextProducerId, epoch, last, timeoutMs, partitions,
            noPartitionAdded ? nowMs : startTimestampMs, nowMs, newClientVersion);
    }

    /**
     * Every marker written: CompleteCommit or CompleteAbort, no partitions; with transactions version 2 and a next
     * producer id, that id at epoch 0.
     *
     * @param nowMs the time
     * @return the transit
     */
    Transit prepareComplete(final long nowMs) {
        failedEpochFence = false;
        final TransactionState target = state == TransactionState.PREPARE_COMMIT ? TransactionState.COMPLETE_COMMIT
            : TransactionState.COMPLETE_ABORT;
        final boolean rotate = bumpsEpochAtEnd(clientVersion) && nextProducerId != NO_PRODUCER_ID;
        return prepare(target, rotate ? nextProducerId : producerId, NO_PRODUCER_ID,
            rotate ? 0 : producerEpoch, lastProducerEpoch, timeoutMs, Set.of(), startTimestampMs, nowMs,
            clientVersion);
    }

    /**
     * The transactional id expires.
     *
     * @return the transit
     */
    Transit prepareDead() {
        return prepare(TransactionState.DEAD, producerId, nextProducerId, producerEpoch, lastProducerEpoch, timeoutMs,
            Set.of(), startTimestampMs, lastUpdateTimestampMs, clientVersion);
    }

    private Transit prepare(final TransactionState target, final long newProducerId, final long newNextProducerId,
                            final short epoch, final short last, final int newTimeoutMs,
                            final Set<TopicPartition> newPartitions, final long start, final long lastUpdate,
                            final short newClientVersion) {
        if (pendingState != null) {
            throw new IllegalStateException("transactional id " + transactionalId + ": preparing " + target.stateName()
                + " from " + state.stateName() + " while " + pendingState.stateName() + " is pending");
        }
        if (newProducerId < 0) {
            throw new IllegalArgumentException("illegal new producer id " + newProducerId + " for "
                + transactionalId);
        }
        if (target != TransactionState.DEAD && epoch < 0) {
            throw new IllegalArgumentException("illegal new producer epoch " + epoch + " for " + transactionalId);
        }
        if (!target.canFollow(state)) {
            throw new IllegalStateException("transactional id " + transactionalId + " cannot go from "
                + state.stateName() + " to " + target.stateName());
        }
        final Transit transit = new Transit(newProducerId, producerId, newNextProducerId, epoch, last, newTimeoutMs,
            target, newPartitions, start, lastUpdate, newClientVersion);
        pendingState = target;
        return transit;
    }

    // ------------------------------------------------------------------------------------------------ completion

    /**
     * Takes a prepared transit once its record is written, after checking it against the state it was prepared
     * from (Kafka's checks: the pending state, the producer id and epoch, the partitions, the timeout, the start).
     *
     * @param transit the transit {@code prepare*} returned
     * @throws IllegalStateException when nothing is pending or the transit does not fit the state
     */
    void completeTransitionTo(final Transit transit) {
        final TransactionState target = pendingState;
        if (target == null) {
            throw new IllegalStateException("transactional id " + transactionalId + " completes a transition with"
                + " none pending");
        }
        if (target != transit.state() || !fits(target, transit)) {
            throw new IllegalStateException("transactional id " + transactionalId + " (" + state.stateName()
                + ", pending " + target.stateName() + ") cannot complete the transition to " + transit);
        }
        producerId = transit.producerId();
        previousProducerId = transit.previousProducerId();
        nextProducerId = transit.nextProducerId();
        producerEpoch = transit.producerEpoch();
        lastProducerEpoch = transit.lastProducerEpoch();
        timeoutMs = transit.timeoutMs();
        partitions = new HashSet<>(transit.partitions());
        startTimestampMs = transit.startTimestampMs();
        lastUpdateTimestampMs = transit.lastUpdateTimestampMs();
        clientVersion = transit.clientVersion();
        pendingState = null;
        state = target;
    }

    private boolean fits(final TransactionState target, final Transit t) {
        switch (target) {
            case EMPTY:
                return (producerEpoch == t.producerEpoch() || validEpochBump(t)) && t.partitions().isEmpty()
                    && t.startTimestampMs() == -1;
            case ONGOING:
                return validEpoch(t) && t.partitions().containsAll(partitions) && timeoutMs == t.timeoutMs();
            case PREPARE_COMMIT:
            case PREPARE_ABORT:
                // Version 2 may abort with no transaction open: its start is the abort's.
                final boolean emptyAbort = target == TransactionState.PREPARE_ABORT
                    && bumpsEpochAtEnd(t.clientVersion()) && (state == TransactionState.EMPTY
                    || state == TransactionState.COMPLETE_COMMIT || state == TransactionState.COMPLETE_ABORT);
                return validEpoch(t) && partitions.equals(t.partitions()) && timeoutMs == t.timeoutMs()
                    && (startTimestampMs == t.startTimestampMs() || emptyAbort);
            case COMPLETE_COMMIT:
            case COMPLETE_ABORT:
                return validEpoch(t) && timeoutMs == t.timeoutMs() && t.startTimestampMs() != -1;
            case DEAD:
                throw new IllegalStateException("transactional id " + transactionalId + " completes a transition to"
                    + " Dead: an expired id is removed from the cache, never written as Dead");
            default:
                return false; // PrepareEpochFence is never completed: the abort under the new epoch follows it
        }
    }

    /** The transit keeps this producer and epoch (as version 2 moves them at the end of a transaction). */
    private boolean validEpoch(final Transit t) {
        final boolean version2 = bumpsEpochAtEnd(t.clientVersion());
        if (version2 && (t.state() == TransactionState.COMPLETE_COMMIT
            || t.state() == TransactionState.COMPLETE_ABORT) && t.producerEpoch() == 0) {
            return t.lastProducerEpoch() == lastProducerEpoch && t.previousProducerId() == producerId; // overflowed
        }
        if (version2 && (t.state() == TransactionState.PREPARE_COMMIT
            || t.state() == TransactionState.PREPARE_ABORT)) {
            return t.lastProducerEpoch() == producerEpoch && t.producerId() == producerId;
        }
        return t.producerEpoch() == producerEpoch && t.producerId() == producerId;
    }

    private boolean validEpochBump(final Transit t) {
        return t.producerEpoch() == (short) (producerEpoch + 1)
            || t.producerEpoch() == 0 && t.producerId() != producerId;
    }

    // ------------------------------------------------------------------------------------------------ the rest

    /**
     * A partition whose marker was written leaves the transaction being committed or aborted.
     *
     * @param partition the partition
     * @throws IllegalStateException when no commit or abort is being prepared
     */
    void removePartition(final TopicPartition partition) {
        if (state != TransactionState.PREPARE_COMMIT && state != TransactionState.PREPARE_ABORT) {
            throw new IllegalStateException("transactional id " + transactionalId + " is " + state.stateName()
                + ": no marker is being written for " + partition);
        }
        partitions.remove(partition);
    }

    /**
     * Drops the pending change after its record failed to be written (Kafka clears the pending state the same way):
     * the metadata stays as it was, and the next request may prepare again.
     */
    void abandonPendingTransition() {
        pendingState = null;
    }

    /**
     * Turns a prepared fence into the abort that follows it (Kafka's {@code endTransaction} for a fence): the pending
     * PrepareEpochFence is dropped and the fence's epoch taken, with no last epoch, so the abort is prepared, and its
     * markers written, under the new epoch.
     *
     * @param fencedEpoch the epoch the fence prepared
     * @throws IllegalStateException when no fence is pending
     */
    void takeFencedEpoch(final short fencedEpoch) {
        if (pendingState != TransactionState.PREPARE_EPOCH_FENCE) {
            throw new IllegalStateException("transactional id " + transactionalId + " has no fence pending");
        }
        pendingState = null;
        producerEpoch = fencedEpoch;
        lastProducerEpoch = NO_EPOCH;
    }

    /** Marks a fence whose record failed to be written: the next fence does not bump the epoch again. */
    void epochFenceFailed() {
        failedEpochFence = true;
    }

    /** @return the transactional id */
    String transactionalId() {
        return transactionalId;
    }

    /** @return the producer id */
    long producerId() {
        return producerId;
    }

    /** @return the producer id before the last change */
    long previousProducerId() {
        return previousProducerId;
    }

    /** @return the producer id an epoch overflow moves to, or -1 */
    long nextProducerId() {
        return nextProducerId;
    }

    /** @return the epoch */
    short producerEpoch() {
        return producerEpoch;
    }

    /** @return the epoch before, or -1 */
    short lastProducerEpoch() {
        return lastProducerEpoch;
    }

    /** @return {@code transaction.timeout.ms} */
    int timeoutMs() {
        return timeoutMs;
    }

    /** @return the state */
    TransactionState state() {
        return state;
    }

    /** @return the state being written, or null */
    TransactionState pendingState() {
        return pendingState;
    }

    /** @return a copy of the transaction's partitions */
    Set<TopicPartition> partitions() {
        return Set.copyOf(partitions);
    }

    /** @return when the transaction began, or -1 */
    long startTimestampMs() {
        return startTimestampMs;
    }

    /** @return when it last changed */
    long lastUpdateTimestampMs() {
        return lastUpdateTimestampMs;
    }

    /** @return the client's transactions version */
    short clientVersion() {
        return clientVersion;
    }

    @Override
    public String toString() {
        return "TransactionMetadata[" + transactionalId + ", producerId=" + producerId + ", previousProducerId="
            + previousProducerId + ", nextProducerId=" + nextProducerId + ", producerEpoch=" + producerEpoch
            + ", lastProducerEpoch=" + lastProducerEpoch + ", timeoutMs=" + timeoutMs + ", state="
            + state.stateName() + ", pending=" + (pendingState == null ? "none" : pendingState.stateName())
            + ", partitions=" + partitions + ", start=" + startTimestampMs + ", lastUpdate=" + lastUpdateTimestampMs
            + ", clientVersion=" + clientVersion + "]";
    }
}
