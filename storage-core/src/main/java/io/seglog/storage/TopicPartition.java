package io.seglog.storage;

import io.seglog.storage.checkpoint.PartitionKey;

/**
 * A topic name and a partition number, validated as Kafka validates them, so that the partition's
 * directory name ({@code <topic>-<partition>}) is always a safe single path element.
 *
 * @param topic     the topic: 1 to 249 characters of {@code [a-zA-Z0-9._-]}, not {@code "."} or {@code ".."}
 * @param partition the partition number, zero or more
 */
public record TopicPartition(String topic, int partition) {
    /**
     * Longest legal topic name, Kafka's limit. With a partition number of up to five digits {@code <topic>-<partition>}
     * fits a 255-byte file name; a log manager refuses a longer directory name up front.
     */
    public static final int MAX_TOPIC_LENGTH = PartitionKey.MAX_TOPIC_LENGTH;

    /**
     * Validates both fields.
     *
     * @param topic     the topic name
     * @param partition the partition number
     * @throws IllegalArgumentException naming the field and the value when either is invalid
     */
    public TopicPartition {
        PartitionKey.validate(topic, partition);
    }

    /**
     * Checks a topic name against Kafka's rules before it is used in any file-system or ZooKeeper path.
     *
     * @param topic the topic name
     * @throws IllegalArgumentException naming the value and the rule it breaks
     */
    public static void validateTopic(final String topic) {
        PartitionKey.validateTopic(topic);
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
