package io.seglog.replication.group;

/** A group record that could not be written; the requests that waited on it answer {@link #error()}. */
public final class GroupWriteException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient GroupError error;

    /**
     * @param error   what the waiting requests answer (Kafka maps append errors to COORDINATOR_NOT_AVAILABLE,
     *                NOT_COORDINATOR or UNKNOWN_SERVER_ERROR)
     * @param message what happened
     */
    public GroupWriteException(final GroupError error, final String message) {
        super(message);
        this.error = error;
    }

    /**
     * The error the waiting requests answer.
     *
     * @return the error
     */
    GroupError error() {
        return error;
    }
}
