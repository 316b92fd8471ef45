package io.seglog.replication.transport;

/**
 * Refusal of a controller epoch older than the newest this broker has seen (Kafka's STALE_CONTROLLER_EPOCH): the sender is a deposed controller.
 */
public final class StaleControllerEpochException extends ControlRequestRefusedException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message      what was refused
     * @param requestEpoch the epoch in the request
     * @param currentEpoch the epoch the receiver holds
     */
    public StaleControllerEpochException(final String message, final long requestEpoch, final long currentEpoch) {
        super(message, requestEpoch, currentEpoch);
    }
}
