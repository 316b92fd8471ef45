package io.seglog.replication.transport;

/**
 * A request meant for the active controller reached a broker that is not (or no longer) the controller.
 */
public final class NotControllerException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int brokerId;

    /**
     * Creates the exception.
     *
     * @param brokerId the broker that is not the controller
     */
    public NotControllerException(final int brokerId) {
        super("broker.id=" + brokerId + " is not the active controller");
        this.brokerId = brokerId;
    }

    /**
     * The broker that answered and is not the controller.
     *
     * @return its id
     */
    public int brokerId() {
        return brokerId;
    }
}
