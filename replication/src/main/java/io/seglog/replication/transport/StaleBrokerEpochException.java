package io.seglog.replication.transport;

/**
 * Refusal of a broker epoch other than the receiving broker's current registration (KIP-380's STALE_BROKER_EPOCH): the message was meant for an earlier incarnation of the broker, or comes from a controller that has not seen its re-registration.
 */
public final class StaleBrokerEpochException extends ControlRequestRefusedException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message      what was refused
     * @param requestEpoch the epoch in the request
     * @param currentEpoch the epoch the receiver holds
     */
    public StaleBrokerEpochException(final String message, final long requestEpoch, final long currentEpoch) {
        super(message, requestEpoch, currentEpoch);
    }
}
