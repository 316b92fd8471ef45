package io.seglog.replication.transport;

/**
 * A control message (or one partition of it) refused because an epoch in it is stale. Carries both epochs:
 * the one the sender used and the one the receiver holds.
 */
public abstract class ControlRequestRefusedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String reason;
    private final long requestEpoch;
    private final long currentEpoch;

    /**
     * Creates the exception.
     *
     * @param message      what was refused; {@link #getMessage()} is this followed by both epochs
     * @param requestEpoch the epoch in the request
     * @param currentEpoch the epoch the receiver holds
     */
    protected ControlRequestRefusedException(final String message, final long requestEpoch, final long currentEpoch) {
        super(message + " (request epoch=" + requestEpoch + ", current epoch=" + currentEpoch + ")");
        this.reason = message;
        this.requestEpoch = requestEpoch;
        this.currentEpoch = currentEpoch;
    }

    /**
     * What was refused, as given to the constructor: {@link #getMessage()} without the epochs appended to it. A
     * transport carries this and the two epochs, and the receiver's copy, built by the same constructor, has the
     * same message.
     *
     * @return the reason (null when the constructor was given null)
     */
    public String reason() {
        return reason;
    }

    /**
     * The epoch the sender used.
     *
     * @return the request's epoch
     */
    public long requestEpoch() {
        return requestEpoch;
    }

    /**
     * The epoch the receiver holds.
     *
     * @return the current epoch
     */
    public long currentEpoch() {
        return currentEpoch;
    }
}
