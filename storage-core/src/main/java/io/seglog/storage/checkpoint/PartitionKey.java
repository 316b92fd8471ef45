package io.seglog.storage.checkpoint;

/**
 * The key of an offset checkpoint entry, {@code <topic> <partition>}, checked by the same rules as the partition
 * it names (the root package's {@code TopicPartition} applies {@link #validate}), so a checkpoint line that could
 * not name a partition directory is refused as corrupt.
 *
 * @param topic     the topic
 * @param partition the partition number
 */
public record PartitionKey(String topic, int partition) {
    /**
     * Longest legal topic name, Kafka's limit. With a partition number of up to five digits {@code <topic>-<partition>}
     * fits a 255-byte file name; a log manager refuses a longer directory name up front.
     */
    public static final int MAX_TOPIC_LENGTH = 249;

    /**
     * Validates both fields.
     *
     * @param topic     the topic name
     * @param partition the partition number
     * @throws IllegalArgumentException naming the field and the value when either is invalid
     */
    public PartitionKey {
        validate(topic, partition);
    }

    /**
     * Kafka's rules for a topic name (1 to 249 characters of {@code [a-zA-Z0-9._-]}, not {@code "."} or
     * {@code ".."}) and a partition number (zero or more).
     *
     * @param topic     the topic name
     * @param partition the partition number
     * @throws IllegalArgumentException naming the field and the value when either is invalid
     */
    public static void validate(final String topic, final int partition) {
        validateTopic(topic);
        if (partition < 0) {
            throw new IllegalArgumentException("partition=" + partition + " must be >= 0 (topic=" + topic + ")");
        }
    }

    /**
     * Kafka's rules for a topic name.
     *
     * @param topic the topic name
     * @throws IllegalArgumentException naming the value and the rule it breaks
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

    @Override
    public String toString() {
        return topic + "-" + partition;
    }
}
