package io.seglog.replication.txn;

import java.util.EnumSet;
import java.util.Set;

/**
 * A transactional id's state in the transaction coordinator, with Kafka's ids (the {@code TransactionStatus} byte of
 * a {@code __transaction_state} value), names (what {@code DescribeTransactions} and {@code kafka-transactions} show)
 * and transitions ({@code TransactionState.validPreviousStates} in Kafka 4.4):
 *
 * <pre>
 *   Empty ──AddPartitions──▶ Ongoing ──EndTxn(commit)──▶ PrepareCommit ──markers written──▶ CompleteCommit
 *     ▲                        │   └──EndTxn(abort), timeout──▶ PrepareAbort ──markers written──▶ CompleteAbort
 *     │                        └──InitProducerId of a new instance──▶ PrepareEpochFence ──▶ PrepareAbort
 *     └──────────── CompleteCommit, CompleteAbort (the next transaction) ───── Dead (expired transactional id)
 * </pre>
 */
enum TransactionState {
    /** No transaction (a new transactional id, or one whose last transaction completed and was reset). */
    EMPTY(0, "Empty", true),
    /** Partitions (or the group's offsets) were added: a transaction is open. */
    ONGOING(1, "Ongoing", false),
    /** EndTxn(commit) accepted: COMMIT markers are being written. */
    PREPARE_COMMIT(2, "PrepareCommit", false),
    /** EndTxn(abort), a timeout or a fence accepted: ABORT markers are being written. */
    PREPARE_ABORT(3, "PrepareAbort", false),
    /** Every COMMIT marker written. */
    COMPLETE_COMMIT(4, "CompleteCommit", true),
    /** Every ABORT marker written. */
    COMPLETE_ABORT(5, "CompleteAbort", true),
    /** The transactional id expired and is being removed. */
    DEAD(6, "Dead", false),
    /** A new producer instance bumps the epoch: the open transaction is aborted under the new epoch. */
    PREPARE_EPOCH_FENCE(7, "PrepareEpochFence", false);

    private final byte id;
    private final String stateName;
    private final boolean expirationAllowed;

    TransactionState(final int id, final String stateName, final boolean expirationAllowed) {
        this.id = (byte) id;
        this.stateName = stateName;
        this.expirationAllowed = expirationAllowed;
    }

    /**
     * The id stored in {@code __transaction_state}.
     *
     * @return 0 to 7
     */
    public byte id() {
        return id;
    }

    /**
     * Kafka's name of the state, as tools show it.
     *
     * @return the name
     */
    public String stateName() {
        return stateName;
    }

    /**
     * Whether a transactional id in this state may expire ({@code transactional.id.expiration.ms}).
     *
     * @return true for Empty, CompleteCommit and CompleteAbort
     */
    public boolean isExpirationAllowed() {
        return expirationAllowed;
    }

    /**
     * The states a transactional id may come to this one from.
     *
     * @return a new set
     */
    public Set<TransactionState> validPreviousStates() {
        switch (this) {
            case EMPTY:
                return EnumSet.of(EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT);
            case ONGOING:
                return EnumSet.of(ONGOING, EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT);
            case PREPARE_COMMIT:
            case PREPARE_EPOCH_FENCE:
                return EnumSet.of(ONGOING);
            case PREPARE_ABORT:
                return EnumSet.of(ONGOING, PREPARE_EPOCH_FENCE, EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT);
            case COMPLETE_COMMIT:
                return EnumSet.of(PREPARE_COMMIT);
            case COMPLETE_ABORT:
                return EnumSet.of(PREPARE_ABORT);
            default:
                return EnumSet.of(EMPTY, COMPLETE_ABORT, COMPLETE_COMMIT);
        }
    }

    /**
     * Whether a transactional id may move from {@code previous} to this state.
     *
     * @param previous the current state
     * @return true when Kafka allows the transition
     */
    public boolean canFollow(final TransactionState previous) {
        return validPreviousStates().contains(previous);
    }

    /**
     * The state of a stored id.
     *
     * @param id the {@code TransactionStatus} byte
     * @return the state, or null for an id Kafka does not define
     */
    public static TransactionState fromId(final byte id) {
        final TransactionState[] all = values();
        return id >= 0 && id < all.length ? all[id] : null;
    }
}
