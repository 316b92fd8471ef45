package io.seglog.storage;

/**
 * Kafka's TRANSACTION_COORDINATOR_FENCED: a transaction marker's coordinator epoch is below the one the producer's last
 * marker carried (a deposed transaction coordinator). Nothing was appended.
 */
public final class TransactionCoordinatorFencedException extends ProducerAppendException {
    private static final long serialVersionUID = 1L;

    /** The marker's coordinator epoch. */
    private final int coordinatorEpoch;
    /** The coordinator epoch of the producer's last marker. */
    private final int currentCoordinatorEpoch;

    TransactionCoordinatorFencedException(final LeaderAppendResult info) {
        super(info);
        this.coordinatorEpoch = info.coordinatorEpoch();
        this.currentCoordinatorEpoch = info.currentCoordinatorEpoch();
    }

    /** @return the fenced marker's coordinator epoch */
    public int coordinatorEpoch() {
        return coordinatorEpoch;
    }

    /** @return the coordinator epoch of the producer's last marker */
    public int currentCoordinatorEpoch() {
        return currentCoordinatorEpoch;
    }
}
