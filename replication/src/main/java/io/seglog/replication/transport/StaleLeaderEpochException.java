package io.seglog.replication.transport;

/**
 * Refusal of a LeaderAndIsr partition state whose leader epoch is not newer than the one the broker holds for that partition.
 */
public final class StaleLeaderEpochException extends ControlRequestRefusedException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message      what was refused
     * @param requestEpoch the epoch in the request
     * @param currentEpoch the epoch the receiver holds
     */
    public StaleLeaderEpochException(final String message, final long requestEpoch, final long currentEpoch) {
        super(message, requestEpoch, currentEpoch);
    }
}
