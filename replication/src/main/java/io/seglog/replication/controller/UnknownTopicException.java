package io.seglog.replication.controller;

/**
 * A topic named in an admin request does not exist.
 */
public final class UnknownTopicException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param topic the topic
     */
    UnknownTopicException(final String topic) {
        super("topic=" + topic + " does not exist");
    }
}
