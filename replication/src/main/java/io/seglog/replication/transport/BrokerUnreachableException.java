package io.seglog.replication.transport;

/**
 * The target broker of a control message is not reachable (not registered with the channel, or closed).
 */
public final class BrokerUnreachableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param brokerId the broker
     */
    public BrokerUnreachableException(final int brokerId) {
        super("broker.id=" + brokerId + " is not reachable");
    }
}
