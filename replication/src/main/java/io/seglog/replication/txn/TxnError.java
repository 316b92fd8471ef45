package io.seglog.replication.txn;

/**
 * The transaction coordinator's outcomes, with Kafka's error codes (what the wire answers a client with).
 */
enum TxnError {
    /** An unexpected failure (Kafka's answer to a coordinator's own exception). */
    UNKNOWN_SERVER_ERROR(-1),
    /** Done. */
    NONE(0),
    /** The partition is being loaded: retry soon. */
    COORDINATOR_LOAD_IN_PROGRESS(14),
    /** The coordinator cannot write its log now (not enough replicas, a timeout): retry. */
    COORDINATOR_NOT_AVAILABLE(15),
    /** This broker does not lead the transactional id's partition: find the coordinator again. */
    NOT_COORDINATOR(16),
    /** A malformed request (an empty transactional id). */
    INVALID_REQUEST(42),
    /** The request does not fit the transaction's state (EndTxn with none open, commit after an abort). */
    INVALID_TXN_STATE(48),
    /** The producer id is not the transactional id's. */
    INVALID_PRODUCER_ID_MAPPING(49),
    /** {@code transaction.timeout.ms} is above {@code transaction.max.timeout.ms} or not positive. */
    INVALID_TRANSACTION_TIMEOUT(50),
    /** Another change of the transactional id is being written, or its markers: retry. */
    CONCURRENT_TRANSACTIONS(51),
    /** A newer instance of the producer took over the transactional id. */
    PRODUCER_FENCED(90);

    private final short code;

    TxnError(final int code) {
        this.code = (short) code;
    }

    /**
     * Kafka's error code.
     *
     * @return the code
     */
    short code() {
        return code;
    }
}
