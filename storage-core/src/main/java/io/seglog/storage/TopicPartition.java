package io.seglog.storage;

/**
 * A topic name and a partition number, validated as Kafka validates them, so that the partition's
 * directory name ({@code <topic>-<partition>}) is always a safe single path element.
 *
 * @param topic     the topic: 1 to 249 characters of {@code [a-zA-Z0-9._-]}, not {@code "."} or {@code ".."}
 * @param partition the partition number, zero or more
 */
public record TopicPartition(String topic, int partition) {
    /** Longest legal topic name: Kafka's limit, which keeps {@code <topic>-<partition>} under 255 bytes. */
    public static final int MAX_TOPIC_LENGTH = 249;

    /**
     * Validates both fields.
     *
     * @param topic     the topic name
     * @param partition the partition number
     * @throws IllegalArgumentException naming the field and the value when either is invalid
     */
    public TopicPartition {
        validateTopic(topic);
        if (partition < 0) {
            throw new IllegalArgumentException("partition=" + partition + " must be >= 0 (topic=" + topic + ")");
        }
    }

    /**
     * Checks a topic name against Kafka's rules before it is used in any file-system or ZooKeeper path.
     *
     * @param topic the candidate name
     * @throws IllegalArgumentException naming the rule that the name breaks
     */
    public static void validateTopic(final String topic) {
        if (topic == null || topic.isEmpty()) {
            throw new IllegalArgumentException("topic=" + topic + " must not be empty");
        }
        if (topic.equals(".") || topic.equals("..")) {
            throw new IllegalArgumentException("topic=" + topic + " must not be '.' or '..'");
        }
        if (topic.length() > MAX_TOPIC_LENGTH) {
            throw new IllegalArgumentException(
                "topic length=" + topic.length() + " exceeds the maximum of " + MAX_TOPIC_LENGTH);
        }
        for (int i = 0; i < topic.length(); i++) {
            final char c = topic.charAt(i);
            final boolean legal = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                || c == '.' || c == '_' || c == '-';
            if (!legal) {
                throw new IllegalArgumentException("topic=" + topic + " has illegal character '" + c
                    + "' at index " + i + "; legal characters are [a-zA-Z0-9._-]");
            }
        }
    }

    /**
     * The partition's directory name in a log directory, as Kafka names it.
     *
     * @return {@code <topic>-<partition>}
     */
    public String directoryName() {
        return topic + "-" + partition;
    }

    @Override
    public String toString() {
        return directoryName();
    }
}
