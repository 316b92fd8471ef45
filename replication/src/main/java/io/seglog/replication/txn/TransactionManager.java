package io.seglog.replication.txn;

import io.seglog.replication.group.GroupScheduler;
import io.seglog.storage.TopicPartition;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transactional ids of one {@code __transaction_state} partition this broker leads, and the coordinator's work on
 * them (Kafka's {@code TransactionCoordinator} with the classic protocol, transactions versions 0 and 1):
 * InitProducerId for a transactional id (a new producer id, an epoch bump, or the fence and abort of an open
 * transaction), AddPartitionsToTxn, EndTxn (PrepareCommit or PrepareAbort written, every partition's marker written
 * and retried until it is, then CompleteCommit or CompleteAbort written) and the abort of transactions past their
 * timeout. Every change is prepared on the {@link TransactionMetadata}, written to the partition through
 * {@link TransactionLog} and completed only once written, so a new coordinator that loads the partition resumes where
 * this one stopped (a transaction found prepared gets its markers written again).
 *
 * <p>Everything runs on the coordinator's thread ({@link GroupScheduler}): requests, write and marker completions,
 * retries and the timeout scan; the requests' futures complete there. Not thread-safe otherwise.
 */
final class TransactionManager {
    private static final Logger LOG = LoggerFactory.getLogger(TransactionManager.class);

    /** Where the coordinator's records go: the transactional id's {@code __transaction_state} partition. */
    @FunctionalInterface
    interface TransactionLog {
        /**
         * Appends one record with acks=all.
         *
         * @param key   the record's key
         * @param value its value
         * @return completes once the record is committed; fails with a {@link WriteFailure} naming the error to
         *     answer (NOT_COORDINATOR when this broker lost the partition, COORDINATOR_NOT_AVAILABLE when it could
         *     not be written in time)
         */
        CompletableFuture<Void> append(byte[] key, byte[] value);
    }

    /** Where markers go: each partition's leader (WriteTxnMarkers, or this broker's own log). */
    @FunctionalInterface
    interface MarkerWriter {
        /**
         * Writes one marker.
         *
         * @param partition        the data partition
         * @param producerId       the transaction's producer
         * @param producerEpoch    its epoch
         * @param coordinatorEpoch this coordinator's epoch (the partition leader's fencing of deposed coordinators)
         * @param commit           COMMIT, else ABORT
         * @return completes with the outcome (Kafka's handling of WriteTxnMarkers' answers); a failed future counts as
         *     {@link MarkerOutcome#RETRY}
         */
        CompletableFuture<MarkerOutcome> write(TopicPartition partition, long producerId, short producerEpoch,
                                               int coordinatorEpoch, boolean commit);
    }

    /** What became of one marker. */
    enum MarkerOutcome {
        /** Written. */
        WRITTEN,
        /** Not written now (no leader, not enough replicas, a timeout): tried again after the backoff. */
        RETRY,
        /** The partition is gone (its topic deleted) or cannot take markers: nothing to write, counted as done. */
        PARTITION_GONE,
        /** A newer producer epoch or coordinator epoch owns the transaction: this coordinator stops sending. */
        FENCED
    }

    /** A coordinator record that could not be written, with the error to answer. */
    static final class WriteFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final TxnError error;

        /**
         * @param error   NOT_COORDINATOR or COORDINATOR_NOT_AVAILABLE
         * @param message why
         */
        WriteFailure(final TxnError error, final String message) {
            super(message);
            this.error = error;
        }

        TxnError error() {
            return error;
        }
    }

    /**
     * InitProducerId's answer.
     *
     * @param error         NONE, or why not
     * @param producerId    the producer id, or -1
     * @param producerEpoch its epoch, or -1
     */
    record InitResult(TxnError error, long producerId, short producerEpoch) {
        static InitResult failed(final TxnError error) {
            return new InitResult(error, TransactionMetadata.NO_PRODUCER_ID, TransactionMetadata.NO_EPOCH);
        }
    }

    private final String partitionName;
    private final int coordinatorEpoch;
    private final int maxTimeoutMs;
    private final long retryBackoffMs;
    private final short valueVersion;
    private final TransactionLog log;
    private final MarkerWriter markers;
    private final LongSupplier producerIds;
    private final GroupScheduler thread;
    private final LongSupplier wallClockMs;
    private final Map<String, TransactionMetadata> cache = new HashMap<>();
    /** Until the partition is read, requests are answered COORDINATOR_LOAD_IN_PROGRESS (they could not be right). */
    private boolean loaded;
    private boolean stopped;

    /**
     * @param partitionName    the {@code __transaction_state} partition, for messages
     * @param coordinatorEpoch the partition's leader epoch: this coordinator's epoch
     * @param maxTimeoutMs     {@code transaction.max.timeout.ms}
     * @param retryBackoffMs   the wait before a marker or a completion is tried again
     * @param valueVersion     the {@code __transaction_state} value version written (by the cluster's transactions
     *                         version: 0 for version 0, else 1)
     * @param log              the partition's writer
     * @param markers          the markers' writer
     * @param producerIds      allocates producer ids (a ZooKeeper block's, as InitProducerId's)
     * @param thread           the coordinator's thread and timers
     * @param wallClockMs      the wall clock, for the records' timestamps and the timeouts
     */
    TransactionManager(final String partitionName, final int coordinatorEpoch, final int maxTimeoutMs,
                       final long retryBackoffMs, final short valueVersion, final TransactionLog log,
                       final MarkerWriter markers, final LongSupplier producerIds, final GroupScheduler thread,
                       final LongSupplier wallClockMs) {
        this.partitionName = partitionName;
        this.coordinatorEpoch = coordinatorEpoch;
        this.maxTimeoutMs = maxTimeoutMs;
        this.retryBackoffMs = retryBackoffMs;
        this.valueVersion = valueVersion;
        this.log = log;
        this.markers = markers;
        this.producerIds = producerIds;
        this.thread = thread;
        this.wallClockMs = wallClockMs;
    }

    /**
     * Takes the partition's loaded metadata (coordinator thread) and finishes what the previous coordinator left
     * prepared: a PrepareCommit or PrepareAbort gets its markers written, then its completion.
     *
     * @param loaded the transactional ids read from the partition
     */
    void loaded(final Map<String, TransactionMetadata> loaded) {
        cache.putAll(loaded);
        this.loaded = true;
        for (final TransactionMetadata m : loaded.values()) {
            if (m.state() == TransactionState.PREPARE_COMMIT || m.state() == TransactionState.PREPARE_ABORT) {
                LOG.info("{}: resuming the {} of {} (producer {} epoch {}) left by the previous coordinator",
                    partitionName, m.state().stateName(), m.transactionalId(), m.producerId(), m.producerEpoch());
                sendMarkers(m, m.state() == TransactionState.PREPARE_COMMIT, m.prepareComplete(wallClockMs.getAsLong()));
            }
        }
    }

    /** Stops: no more writes, retries or answers but NOT_COORDINATOR (this broker no longer leads the partition). */
    void stop() {
        stopped = true;
    }

    /**
     * A transactional id's metadata (tests, DescribeTransactions).
     *
     * @param transactionalId the id
     * @return its metadata, if known
     */
    Optional<TransactionMetadata> metadata(final String transactionalId) {
        return Optional.ofNullable(cache.get(transactionalId));
    }

    // ------------------------------------------------------------------------------------------------ InitProducerId

    /**
     * InitProducerId with a transactional id (coordinator thread).
     *
     * @param transactionalId the id, not null
     * @param timeoutMs       the producer's {@code transaction.timeout.ms}
     * @param expectedPid     the producer id the producer has (KIP-360), or -1
     * @param expectedEpoch   its epoch, or -1
     * @return the answer
     */
    CompletableFuture<InitResult> initProducerId(final String transactionalId, final int timeoutMs,
                                                 final long expectedPid, final short expectedEpoch) {
        final CompletableFuture<InitResult> answer = new CompletableFuture<>();
        final TxnError refused = refusal(transactionalId);
        if (refused != null) {
            return CompletableFuture.completedFuture(InitResult.failed(refused));
        }
        if (timeoutMs <= 0 || timeoutMs > maxTimeoutMs) {
            return CompletableFuture.completedFuture(InitResult.failed(TxnError.INVALID_TRANSACTION_TIMEOUT));
        }
        final long now = wallClockMs.getAsLong();
        TransactionMetadata m = cache.get(transactionalId);
        if (m == null) {
            final long producerId;
            try {
                producerId = producerIds.getAsLong();
            } catch (final RuntimeException e) {
                LOG.warn("{}: no producer id for {}: {}", partitionName, transactionalId, e.toString());
                return CompletableFuture.completedFuture(InitResult.failed(TxnError.COORDINATOR_NOT_AVAILABLE));
            }
            m = new TransactionMetadata(transactionalId, producerId, TransactionMetadata.NO_PRODUCER_ID,
                TransactionMetadata.NO_PRODUCER_ID, TransactionMetadata.NO_EPOCH, TransactionMetadata.NO_EPOCH,
                timeoutMs, TransactionState.EMPTY, Set.of(), -1, now, (short) 0);
            cache.put(transactionalId, m);
        }
        return initKnown(m, timeoutMs, expectedPid, expectedEpoch, now, answer);
    }

    private CompletableFuture<InitResult> initKnown(final TransactionMetadata m, final int timeoutMs,
                                                    final long expectedPid, final short expectedEpoch, final long now,
                                                    final CompletableFuture<InitResult> answer) {
        final String transactionalId = m.transactionalId();
        final boolean expected = expectedPid >= 0;
        if (m.pendingState() != null) {
            return CompletableFuture.completedFuture(InitResult.failed(TxnError.CONCURRENT_TRANSACTIONS));
        }
        if (expected && m.producerEpoch() != TransactionMetadata.NO_EPOCH && expectedPid != m.producerId()
            && !(expectedPid == m.previousProducerId() && TransactionMetadata.isEpochExhausted(expectedEpoch))) {
            return CompletableFuture.completedFuture(InitResult.failed(TxnError.PRODUCER_FENCED));
        }
        switch (m.state()) {
            case PREPARE_ABORT, PREPARE_COMMIT -> answer.complete(InitResult.failed(TxnError.CONCURRENT_TRANSACTIONS));
            case EMPTY, COMPLETE_ABORT, COMPLETE_COMMIT -> {
                final TransactionMetadata.Transit transit;
                try {
                    transit = TransactionMetadata.isEpochExhausted(m.producerEpoch())
                        && (!expected || expectedEpoch == m.producerEpoch())
                        ? m.prepareProducerIdRotation(producerIds.getAsLong(), timeoutMs, now, expected)
                        : m.prepareIncrementProducerEpoch(timeoutMs, expected ? Optional.of(expectedEpoch)
                            : Optional.empty(), now);
                } catch (final TransactionMetadata.FencedProducerException fenced) {
                    answer.complete(InitResult.failed(TxnError.PRODUCER_FENCED));
                    return answer;
                } catch (final RuntimeException e) {
                    // Kafka's request layer answers a coordinator's own exception (an exhausted epoch a producer
                    // asks to keep, no producer id to rotate to) with UNKNOWN_SERVER_ERROR.
                    LOG.warn("{}: InitProducerId of {} failed: {}", partitionName, transactionalId, e.toString());
                    answer.complete(InitResult.failed(TxnError.UNKNOWN_SERVER_ERROR));
                    return answer;
                }
                write(m, transit, error -> {
                    if (error == TxnError.NONE) {
                        LOG.info("{}: initialized {} with producer id {} epoch {}", partitionName, transactionalId,
                            transit.producerId(), transit.producerEpoch());
                        answer.complete(new InitResult(TxnError.NONE, transit.producerId(), transit.producerEpoch()));
                    } else {
                        answer.complete(InitResult.failed(error));
                    }
                });
            }
            case ONGOING -> {
                // A new instance while a transaction is open: fence the old one (the epoch bumped) and abort the
                // transaction under the new epoch; the client retries (CONCURRENT_TRANSACTIONS) and bumps again.
                final TransactionMetadata.Transit fence = m.prepareFenceProducerEpoch();
                end(m, fence.producerId(), fence.producerEpoch(), false, false, (short) 0).thenAccept(error ->
                    answer.complete(InitResult.failed(error == TxnError.NONE ? TxnError.CONCURRENT_TRANSACTIONS
                        : error)));
            }
            default -> throw new IllegalStateException(partitionName + ": " + transactionalId + " is "
                + m.state().stateName() + ", which no request may find");
        }
        return answer;
    }

    // ------------------------------------------------------------------------------------------------ AddPartitions

    /**
     * AddPartitionsToTxn (or AddOffsetsToTxn with the group's offsets partition), coordinator thread.
     *
     * @param transactionalId the id
     * @param producerId      the producer's id
     * @param producerEpoch   its epoch
     * @param partitions      the partitions to add
     * @param clientVersion   the client's transactions version
     * @return the answer, one for all partitions
     */
    CompletableFuture<TxnError> addPartitions(final String transactionalId, final long producerId,
                                              final short producerEpoch, final Set<TopicPartition> partitions,
                                              final short clientVersion) {
        final TxnError refused = refusal(transactionalId);
        if (refused != null) {
            return CompletableFuture.completedFuture(refused);
        }
        final TransactionMetadata m = cache.get(transactionalId);
        final TxnError refusal;
        if (m == null || m.producerId() != producerId) {
            refusal = TxnError.INVALID_PRODUCER_ID_MAPPING;
        } else if (m.producerEpoch() != producerEpoch) {
            refusal = TxnError.PRODUCER_FENCED;
        } else if (m.pendingState() != null || m.state() == TransactionState.PREPARE_COMMIT
            || m.state() == TransactionState.PREPARE_ABORT) {
            refusal = TxnError.CONCURRENT_TRANSACTIONS;
        } else if (m.state() == TransactionState.ONGOING && m.partitions().containsAll(partitions)) {
            refusal = TxnError.NONE; // nothing new: no record
        } else {
            refusal = null;
        }
        if (refusal != null) {
            return CompletableFuture.completedFuture(refusal);
        }
        final CompletableFuture<TxnError> answer = new CompletableFuture<>();
        write(m, m.prepareAddPartitions(partitions, wallClockMs.getAsLong(), served(clientVersion)), answer::complete);
        return answer;
    }

    // ------------------------------------------------------------------------------------------------ EndTxn

    /**
     * EndTxn from the producer (coordinator thread): answered once PrepareCommit or PrepareAbort is written; the
     * markers and the completion follow.
     *
     * @param transactionalId the id
     * @param producerId      the producer's id
     * @param producerEpoch   its epoch
     * @param commit          commit, else abort
     * @param clientVersion   the client's transactions version
     * @return the answer
     */
    CompletableFuture<TxnError> endTransaction(final String transactionalId, final long producerId,
                                               final short producerEpoch, final boolean commit,
                                               final short clientVersion) {
        final TxnError refused = refusal(transactionalId);
        if (refused != null) {
            return CompletableFuture.completedFuture(refused);
        }
        final TransactionMetadata m = cache.get(transactionalId);
        if (m == null) {
            return CompletableFuture.completedFuture(TxnError.INVALID_PRODUCER_ID_MAPPING);
        }
        return end(m, producerId, producerEpoch, commit, true, served(clientVersion));
    }

    /**
     * The transactions version this coordinator serves a client at: at most 1 (the cluster does not offer version 2,
     * whose EndTxn answers and retry rules are not served), so no epoch is bumped behind a client's back.
     */
    private static short served(final short clientVersion) {
        return (short) Math.min(clientVersion, 1);
    }

    /** What every request is refused before its transactional id is looked up (an empty id included), or null. */
    private TxnError refusal(final String transactionalId) {
        final TxnError unavailable = unavailable();
        return unavailable != null ? unavailable : transactionalId.isEmpty() ? TxnError.INVALID_REQUEST : null;
    }

    /** NOT_COORDINATOR once stopped, COORDINATOR_LOAD_IN_PROGRESS until loaded; null when requests may go on. */
    private TxnError unavailable() {
        return stopped ? TxnError.NOT_COORDINATOR : loaded ? null : TxnError.COORDINATOR_LOAD_IN_PROGRESS;
    }

    private CompletableFuture<TxnError> end(final TransactionMetadata m, final long producerId,
                                            final short producerEpoch, final boolean commit,
                                            final boolean fromClient, final short clientVersion) {
        final boolean fencing = m.pendingState() == TransactionState.PREPARE_EPOCH_FENCE;
        final TxnError refusal = endRefusal(m, producerId, producerEpoch, commit, fromClient, fencing);
        if (refusal != null) {
            return CompletableFuture.completedFuture(refusal);
        }
        if (fencing) {
            m.takeFencedEpoch(producerEpoch);
        }
        final CompletableFuture<TxnError> answer = new CompletableFuture<>();
        final TransactionMetadata.Transit prepare = m.prepareAbortOrCommit(commit ? TransactionState.PREPARE_COMMIT
            : TransactionState.PREPARE_ABORT, clientVersion, TransactionMetadata.NO_PRODUCER_ID,
            wallClockMs.getAsLong(), false);
        write(m, prepare, error -> {
            if (error != TxnError.NONE) {
                if (fencing) {
                    m.epochFenceFailed(); // the epoch was never given out: the next fence reuses it
                }
                answer.complete(error);
                return;
            }
            answer.complete(TxnError.NONE);
            sendMarkers(m, commit, m.prepareComplete(wallClockMs.getAsLong()));
        });
        return answer;
    }

    /** Kafka's EndTxn checks before anything is prepared (transactions versions 0 and 1); null when it may go on. */
    private static TxnError endRefusal(final TransactionMetadata m, final long producerId, final short producerEpoch,
                                       final boolean commit, final boolean fromClient, final boolean fencing) {
        if (m.producerId() != producerId) {
            return TxnError.INVALID_PRODUCER_ID_MAPPING;
        }
        if (fromClient && producerEpoch != m.producerEpoch() || producerEpoch < m.producerEpoch()) {
            return TxnError.PRODUCER_FENCED;
        }
        if (m.pendingState() != null && !fencing) {
            return TxnError.CONCURRENT_TRANSACTIONS;
        }
        switch (m.state()) {
            case ONGOING:
                return null;
            case COMPLETE_COMMIT:
                return commit ? TxnError.NONE : TxnError.INVALID_TXN_STATE; // a retried commit is done
            case COMPLETE_ABORT:
                return commit ? TxnError.INVALID_TXN_STATE : TxnError.NONE;
            case PREPARE_COMMIT:
                return commit ? TxnError.CONCURRENT_TRANSACTIONS : TxnError.INVALID_TXN_STATE;
            case PREPARE_ABORT:
                return commit ? TxnError.INVALID_TXN_STATE : TxnError.CONCURRENT_TRANSACTIONS;
            case EMPTY:
                return TxnError.INVALID_TXN_STATE;
            default:
                throw new IllegalStateException(m.transactionalId() + " is " + m.state().stateName()
                    + ", which no request may find");
        }
    }

    // ------------------------------------------------------------------------------------------------ markers

    /**
     * Writes the markers of a prepared commit or abort to every partition, each retried until written, then writes
     * the completion (already prepared: the metadata's pending state is CompleteCommit or CompleteAbort meanwhile).
     */
    private void sendMarkers(final TransactionMetadata m, final boolean commit,
                             final TransactionMetadata.Transit complete) {
        final Set<TopicPartition> remaining = new HashSet<>(m.partitions());
        if (remaining.isEmpty()) {
            writeCompletion(m, complete);
            return;
        }
        for (final TopicPartition tp : Set.copyOf(remaining)) {
            sendMarker(m, commit, complete, tp, remaining);
        }
    }

    private void sendMarker(final TransactionMetadata m, final boolean commit,
                            final TransactionMetadata.Transit complete, final TopicPartition tp,
                            final Set<TopicPartition> remaining) {
        if (stopped) {
            return; // a retry after this broker lost the partition: the next coordinator writes the markers
        }
        final long producerId = m.producerId();
        final short epoch = m.producerEpoch();
        attempt(() -> markers.write(tp, producerId, epoch, coordinatorEpoch, commit)).whenComplete((outcome, failure) ->
            thread.execute(() -> {
                if (stopped) {
                    return; // the next coordinator writes them again
                }
                final MarkerOutcome result = failure != null ? MarkerOutcome.RETRY : outcome;
                switch (result) {
                    case RETRY -> {
                        LOG.warn("{}: the {} marker of {} (producer {} epoch {}) on {} is not written yet, tried again"
                            + " in {} ms{}", partitionName, commit ? "COMMIT" : "ABORT", m.transactionalId(),
                            producerId, epoch, tp, retryBackoffMs, failure == null ? "" : ": "
                                + rootCause(failure));
                        thread.schedule("txn-marker:" + m.transactionalId() + ":" + tp, retryBackoffMs,
                            () -> sendMarker(m, commit, complete, tp, remaining));
                    }
                    case FENCED -> LOG.info("{}: the {} marker of {} on {} was refused as fenced: a newer producer or"
                        + " coordinator epoch owns the transaction; no more markers are sent for it", partitionName,
                        commit ? "COMMIT" : "ABORT", m.transactionalId(), tp);
                    default -> { // WRITTEN, or PARTITION_GONE: nothing more to write there
                        if (result == MarkerOutcome.PARTITION_GONE) {
                            LOG.info("{}: {} is gone; the transaction of {} completes without its marker",
                                partitionName, tp, m.transactionalId());
                        }
                        m.removePartition(tp);
                        if (remaining.remove(tp) && remaining.isEmpty()) {
                            writeCompletion(m, complete);
                        }
                    }
                }
            }));
    }

    private void writeCompletion(final TransactionMetadata m, final TransactionMetadata.Transit complete) {
        if (stopped) {
            return;
        }
        appendRecord(m, complete, failure -> {
            if (stopped) {
                return;
            }
            if (failure == null) {
                m.completeTransitionTo(complete);
                LOG.info("{}: {} of {} complete (producer {} epoch {})", partitionName,
                    complete.state().stateName(), m.transactionalId(), complete.producerId(),
                    complete.producerEpoch());
            } else {
                // Retried until written or this coordinator stops (a NOT_COORDINATOR is followed by its stop; the
                // next coordinator then completes the transaction from the prepared record).
                thread.schedule("txn-complete:" + m.transactionalId(), retryBackoffMs,
                    () -> writeCompletion(m, complete));
            }
        });
    }

    // ------------------------------------------------------------------------------------------------ timeouts

    /**
     * Aborts the open transactions older than their timeout (Kafka's {@code abortTimedOutTransactions}): each is
     * fenced (its epoch bumped, so the late producer's next request is refused) and aborted (coordinator thread).
     *
     * @return how many aborts were started
     */
    int abortTimedOutTransactions() {
        if (unavailable() != null) {
            return 0;
        }
        final long now = wallClockMs.getAsLong();
        int started = 0;
        for (final TransactionMetadata m : cache.values().toArray(new TransactionMetadata[0])) {
            if (m.state() == TransactionState.ONGOING && m.pendingState() == null
                && m.startTimestampMs() + m.timeoutMs() < now) {
                LOG.info("{}: aborting the transaction of {} (producer {} epoch {}), open for {} ms, past its timeout"
                    + " of {} ms", partitionName, m.transactionalId(), m.producerId(), m.producerEpoch(),
                    now - m.startTimestampMs(), m.timeoutMs());
                final TransactionMetadata.Transit fence = m.prepareFenceProducerEpoch();
                end(m, fence.producerId(), fence.producerEpoch(), false, false, (short) 0);
                started++;
            }
        }
        return started;
    }

    // ------------------------------------------------------------------------------------------------ writes

    /** Writes a transit's record; completes it on success, drops it on failure; {@code then} gets the outcome. */
    private void write(final TransactionMetadata m, final TransactionMetadata.Transit transit,
                       final Consumer<TxnError> then) {
        appendRecord(m, transit, failure -> {
            if (stopped) {
                then.accept(TxnError.NOT_COORDINATOR);
                return;
            }
            if (failure != null) {
                m.abandonPendingTransition();
                final TxnError error = errorOf(failure);
                LOG.info("{}: writing {} for {} failed ({}): {}", partitionName, transit.state().stateName(),
                    m.transactionalId(), error, rootCause(failure).getMessage());
                then.accept(error);
                return;
            }
            m.completeTransitionTo(transit);
            then.accept(TxnError.NONE);
        });
    }

    /** Appends a transit's record; {@code then} gets the failure, or null, on the coordinator's thread. */
    private void appendRecord(final TransactionMetadata m, final TransactionMetadata.Transit transit,
                              final Consumer<Throwable> then) {
        final byte[] key = TransactionRecords.encodeKey(m.transactionalId());
        final byte[] value = TransactionRecords.encodeValue(TransactionMetadata.valueOf(transit, valueVersion),
            valueVersion);
        attempt(() -> log.append(key, value)).whenComplete((ok, failure) -> thread.execute(() -> then.accept(failure)));
    }

    /** A seam's call whose synchronous throw counts as its failed future (a pending state is never left behind). */
    private static <T> CompletableFuture<T> attempt(final java.util.function.Supplier<CompletableFuture<T>> call) {
        try {
            return call.get();
        } catch (final RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private static TxnError errorOf(final Throwable failure) {
        final Throwable cause = rootCause(failure);
        return cause instanceof WriteFailure w ? w.error() : TxnError.COORDINATOR_NOT_AVAILABLE;
    }

    private static Throwable rootCause(final Throwable failure) {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }
}
