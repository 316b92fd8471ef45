package io.seglog.replication.controller;

/**
 * A topic could not be created because it exists.
 */
public final class TopicExistsException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param topic the topic
     */
    public TopicExistsException(final String topic) {
        super("topic=" + topic + " already exists");
    }
}
