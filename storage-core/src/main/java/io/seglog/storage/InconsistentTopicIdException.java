package io.seglog.storage;

import java.nio.file.Path;

/**
 * A partition directory already belongs to a topic with another id (Kafka's {@code InconsistentTopicIdException}):
 * its {@code partition.metadata} names one id and the caller assigned another, which means the directory is left
 * over from a deleted topic of the same name, or the caller's metadata is wrong. Nothing is changed; the replica
 * layer refuses the partition.
 *
 * <p>Immutable, so thread-safe.
 */
public final class InconsistentTopicIdException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    private final transient Path dir;
    private final TopicId logTopicId;
    private final TopicId requestedTopicId;

    /**
     * Creates the exception.
     *
     * @param dir              the partition directory
     * @param logTopicId       the id its {@code partition.metadata} holds
     * @param requestedTopicId the id the caller assigned
     */
    public InconsistentTopicIdException(final Path dir, final TopicId logTopicId, final TopicId requestedTopicId) {
        super("partition directory " + dir + " holds topic id=" + logTopicId + " in partition.metadata, not the"
            + " assigned topic id=" + requestedTopicId);
        this.dir = dir;
        this.logTopicId = logTopicId;
        this.requestedTopicId = requestedTopicId;
    }

    /**
     * The partition directory.
     *
     * @return its path
     */
    public Path dir() {
        return dir;
    }

    /**
     * The id the log holds.
     *
     * @return the id in {@code partition.metadata}
     */
    public TopicId logTopicId() {
        return logTopicId;
    }

    /**
     * The id the caller assigned.
     *
     * @return the refused id
     */
    public TopicId requestedTopicId() {
        return requestedTopicId;
    }
}
